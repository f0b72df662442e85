"""A function using tf.custom_gradient (reading a variable) exports: its IdentityN passes the first n inputs
through; the inputs past them (arguments, variables) only carry the gradient."""
import numpy as np
import pytest

import rivulet as tf

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")


def test_custom_gradient_reading_a_variable_exports(rt, tmp_path):
    class M(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(3.0)

        @tf.function(input_signature=[tf.TensorSpec([2])])
        def f(self, x):
            @tf.custom_gradient
            def g(x):
                y = x * self.w

                def grad(dy, variables):
                    return dy, [tf.reduce_sum(dy)]
                return y, grad
            return g(x)
    m = M()
    x = np.array([1.0, 2.0], np.float32)
    sess, _ = rt.export(m.f.get_concrete_function())
    np.testing.assert_allclose(rt.run(sess, x)[0], [3.0, 6.0])
    tf.saved_model.save(m, str(tmp_path / "m"))  # and the loaded model, whose gradient is the saved graph
    sess, _ = rt.export(tf.saved_model.load(str(tmp_path / "m")).signatures["serving_default"])
    np.testing.assert_allclose(rt.run(sess, x)[0], [3.0, 6.0])
