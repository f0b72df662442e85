# Introduction to graphs: "Converting Python functions to graphs" and "Flow control" (seeds 000-002).
import rivulet as tf


def simple_relu(x):
  if tf.greater(x, 0):
    return x
  else:
    return 0

# Using `tf.function` makes `tf_simple_relu` a `PolymorphicFunction` that wraps
# `simple_relu`.
tf_simple_relu = tf.function(simple_relu)

print("First branch, with graph:", tf_simple_relu(tf.constant(1)).numpy())
print("Second branch, with graph:", tf_simple_relu(tf.constant(-1)).numpy())

# This is the graph-generating output of AutoGraph.
code = tf.autograph.to_code(simple_relu)
print(code.splitlines()[0])

# This is the graph itself.
graph_def = tf_simple_relu.get_concrete_function(tf.constant(1)).graph.as_graph_def()
print([n.op for n in graph_def.node][:3])


def my_function(x):
  if tf.reduce_sum(x) <= 1:
    return x * x
  else:
    return x-1

a_function = tf.function(my_function)

print("First branch, with graph:", a_function(tf.constant(1.0)).numpy())
print("Second branch, with graph:", a_function(tf.constant([5.0, 5.0])).numpy())

# Don't read the output too carefully.
print(tf.autograph.to_code(my_function))
