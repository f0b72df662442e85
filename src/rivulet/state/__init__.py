"""State: tf.Variable, its resource ops, variable creator scopes and tf.Module."""
