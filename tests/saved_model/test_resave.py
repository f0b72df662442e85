"""A loaded saved model saved again (as TensorFlow allows): its functions, variables, signatures and custom
gradients come back from the second save."""
import rivulet as tf


def test_loaded_model_saved_again(tmp_path):
    class M(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(3.0)

        @tf.function(input_signature=[tf.TensorSpec(None)])
        def f(self, x):
            @tf.custom_gradient
            def g(x):
                e = tf.exp(x) * self.w

                def grad(dy, variables):
                    return dy * e * 2.0, [dy * 5.0]
                return e, grad
            return g(x)

    tf.saved_model.save(M(), str(tmp_path / "a"))
    first = tf.saved_model.load(str(tmp_path / "a"))
    tf.saved_model.save(first, str(tmp_path / "b"))
    second = tf.saved_model.load(str(tmp_path / "b"))
    assert float(second.f(tf.constant(0.0))) == 3.0
    assert list(second.signatures) == ["serving_default"]
    out = second.signatures["serving_default"](x=tf.constant(0.0))
    assert list(out) == ["output_0"] and float(out["output_0"]) == 3.0
    x = tf.constant(0.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = second.f(x)
    gx, gw = t.gradient(y, [x, second.w])
    assert float(gx) == 6.0 and float(gw) == 5.0  # the saved gradient: dy * e * 2 and dy * 5
    second.w.assign(1.0)
    assert float(second.f(tf.constant(0.0))) == 1.0  # the function reads the loaded variable
