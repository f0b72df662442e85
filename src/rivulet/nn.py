"""tf.nn."""

TOPLEVEL = []
