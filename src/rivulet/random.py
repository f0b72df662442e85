"""tf.random."""

TOPLEVEL = []
