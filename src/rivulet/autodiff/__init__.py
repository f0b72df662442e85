"""Automatic differentiation: tf.GradientTape, tf.gradients, tf.custom_gradient, tf.stop_gradient."""
