# Better performance with tf.function: "Basics" (seed 003).
import timeit

import rivulet as tf


# The decorator converts `add` into a `PolymorphicFunction`
@tf.function
def add(a, b):
    return a + b

# [[2., 2.], [2., 2.]]
print(repr(add(tf.ones([2, 2]), tf.ones([2, 2]))))

v = tf.Variable(1.0)
with tf.GradientTape() as tape:
    result = add(v, 1.0)
print(repr(tape.gradient(result, v)))


@tf.function
def dense_layer(x, w, b):
    return add(tf.matmul(x, w), b)

print(repr(dense_layer(tf.ones([3, 2]), tf.ones([2, 2]), tf.ones([2]))))

conv_layer = tf.keras.layers.Conv2D(100, 3)

@tf.function
def conv_fn(image):
    return conv_layer(image)

image = tf.zeros([1, 200, 200, 100])
# Warm up
conv_layer(image)
conv_fn(image)
print("Eager conv:", timeit.timeit(lambda: conv_layer(image), number=10))
print("Function conv:", timeit.timeit(lambda: conv_fn(image), number=10))
print("Note how there's not much difference in performance for convolutions")
