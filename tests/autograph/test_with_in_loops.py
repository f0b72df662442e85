"""A `with ... as name` inside a converted loop binds name before the body reads it, so name is no loop
variable (TensorFlow's liveness): generative/deepdream's GradientTape inside `for n in tf.range(steps)`
raised "'tape' is a loop variable ... got GradientTape", or gave a None gradient."""
import rivulet as tf


def test_gradient_tape_inside_a_tensor_loop():
    @tf.function
    def ascend(x, steps):
        for _ in tf.range(steps):
            with tf.GradientTape() as tape:
                tape.watch(x)
                loss = tf.reduce_sum(x * x)
            x = x + tape.gradient(loss, x)  # x + 2x
        return x

    assert ascend(tf.ones(2), tf.constant(2)).numpy().tolist() == [9.0, 9.0]


def test_with_target_not_carried_when_only_used_in_the_body():
    @tf.function
    def count(x, steps):
        for _ in tf.range(steps):
            with tf.GradientTape() as tape:
                tape.watch(x)
            x = x + 1.0
        return x

    assert count(tf.ones(2), tf.constant(2)).numpy().tolist() == [3.0, 3.0]
