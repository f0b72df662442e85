"""tf.debugging."""

TOPLEVEL = []
