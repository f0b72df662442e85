# Introduction to graphs (older version, seed 004): "Inspecting polymorphic functions".
# Differs from the seed on purpose: the seed shows TensorFlow 2.4's ConcreteFunction printout
# ("ConcreteFunction my_function(x) / x: float32 Tensor, shape=()"); rivulet prints the current
# TensorFlow format ("ConcreteFunction Input Parameters: ..."), as TensorFlow 2.21 does.
import rivulet as tf


def my_function(x):
  if tf.reduce_sum(x) <= 1:
    return x * x
  else:
    return x-1

a_function = tf.function(my_function)

print("Calling a `Function`:")
print("Int:", a_function(tf.constant(2)))
print("Float:", a_function(tf.constant(2.0)))
print("Rank-1 tensor of floats", a_function(tf.constant([2.0, 2.0, 2.0])))

# Get the concrete function that works on floats
print("Inspecting concrete functions")
print("Concrete function for float:")
print(a_function.get_concrete_function(tf.TensorSpec(shape=[], dtype=tf.float32)))
print("Concrete function for tensor of floats:")
print(a_function.get_concrete_function(tf.constant([2.0, 2.0, 2.0])))

# Concrete functions are callable
# Note: You won't normally do this, but instead just call the containing `Function`
cf = a_function.get_concrete_function(tf.constant(2))
print("Directly calling a concrete function:", cf(tf.constant(2)))
