"""A GradientTape made inside a traced loop body that watches a tensor of the enclosing function (TensorFlow's
deepdream tutorial: a tape per tile in a `for ... in tf.range`) differentiates through the body's capture of
it; it gave None."""
import numpy as np

import rivulet as tf


def test_tape_in_an_autograph_range_loop_watches_the_functions_input():
    @tf.function
    def f(img, n):
        g = tf.zeros_like(img)
        for i in tf.range(n):
            with tf.GradientTape() as tape:
                tape.watch(img)
                loss = tf.reduce_sum(img[i:i + 2] * img[i:i + 2])
            g = g + tape.gradient(loss, img)
        return g
    np.testing.assert_array_equal(f(tf.ones(4), tf.constant(2)).numpy(), [2.0, 4.0, 2.0, 0.0])


def test_tape_in_a_while_loop_body_and_outside_watch_unchanged():
    @tf.function
    def h(img, n):
        def body(i, g):
            with tf.GradientTape() as tape:
                tape.watch(img)
                loss = tf.reduce_sum(img * img * tf.cast(i + 1, tf.float32))
            return i + 1, g + tape.gradient(loss, img)
        return tf.while_loop(lambda i, g: i < n, body, [0, tf.zeros_like(img)])[1]
    x = tf.constant([1.0, -2.0, 3.0])
    np.testing.assert_allclose(h(x, tf.constant(3)).numpy(), 2 * x.numpy() * (1 + 2 + 3))

    @tf.function
    def plain(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        return tape.gradient(y, x)
    np.testing.assert_array_equal(plain(x).numpy(), 2 * x.numpy())
