"""tf.keras.optimizers.legacy (tf_keras's OptimizerV2 names, which understanding/sngp uses) and
tf.keras.initializers.Identity (values and errors as TensorFlow 2.21's Keras gives them)."""
import numpy as np
import pytest

import rivulet as tf


def test_legacy_adam_is_adam_under_the_legacy_name():
    from rivulet.keras.optimizers.legacy import Adam  # the import form works too
    opt = tf.keras.optimizers.legacy.Adam(learning_rate=0.1)
    assert isinstance(opt, Adam) and isinstance(opt, tf.keras.optimizers.Adam)
    assert opt.get_config()["name"] == "Adam"
    v = tf.Variable(1.0)
    opt.apply_gradients([(tf.constant(0.5), v)])
    # Adam's first step: lr * sqrt(1 - b2) / (1 - b1) * m / (sqrt(v) + eps), m = 0.05, v = 0.00025
    np.testing.assert_allclose(v.numpy(), 1.0 - 0.1 * 0.05 / (np.sqrt(0.00025) + 1e-7) * np.sqrt(0.001) / 0.1,
                               rtol=1e-6)
    for name in ("SGD", "RMSprop", "Adagrad", "Adadelta", "Adamax", "Nadam", "Ftrl", "Optimizer"):
        assert hasattr(tf.keras.optimizers.legacy, name)
    with pytest.raises(NotImplementedError, match="decay"):
        tf.keras.optimizers.legacy.SGD(0.1, decay=0.01)


def test_identity_initializer():
    init = tf.keras.initializers.Identity(gain=2.0)
    assert init((2, 3)).numpy().tolist() == [[2.0, 0.0, 0.0], [0.0, 2.0, 0.0]]
    assert init((3, 2), dtype="float64").dtype == tf.float64
    with pytest.raises(ValueError, match=r"Identity matrix initializer can only be used for 2D matrices. "
                                         r"Received: shape=\(3,\) of rank 1."):
        init((3,))
    assert tf.keras.initializers.get({"class_name": "Identity", "config": {"gain": 3.0}}).gain == 3.0
    layer = tf.keras.layers.Dense(2, kernel_initializer="identity")
    layer.build((None, 2))
    assert layer.kernel.numpy().tolist() == [[1.0, 0.0], [0.0, 1.0]]
