"""tf.function: tracing Python into graphs, the cache of ConcreteFunctions, and calling them."""
