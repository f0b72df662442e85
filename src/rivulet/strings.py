"""tf.strings."""

TOPLEVEL = []
