"""tf.version / tf.__version__ and TensorFlow's short aliases of Keras namespaces (issue 25)."""
import importlib.metadata

import numpy as np
import pytest

import rivulet as tf


def test_version_reports_the_tensorflow_api():
    # TensorFlow 2.21: tf.__version__ == tf.version.VERSION == '2.21.0'; programs gate features on it
    assert tf.__version__ == "2.21.0"
    assert tf.version.VERSION == "2.21.0"
    assert tuple(int(p) for p in tf.__version__.split(".")[:2]) >= (2, 21)
    assert tf.version.GRAPH_DEF_VERSION_MIN_CONSUMER == 0 and tf.version.GRAPH_DEF_VERSION_MIN_PRODUCER == 0
    assert isinstance(tf.version.GIT_VERSION, str) and isinstance(tf.version.COMPILER_VERSION, str)
    assert tf.__git_version__ == tf.version.GIT_VERSION
    assert tf.__compiler_version__ == tf.version.COMPILER_VERSION


def test_rivulet_version_is_the_package_version():
    from rivulet.version import RIVULET_VERSION
    assert RIVULET_VERSION != tf.__version__
    try:
        assert RIVULET_VERSION == importlib.metadata.version("rivulet")
    except importlib.metadata.PackageNotFoundError:  # running from a source tree that is not installed
        pytest.skip("rivulet is not installed")


def test_keras_namespace_aliases():
    assert tf.losses is tf.keras.losses
    assert tf.metrics is tf.keras.metrics
    assert tf.optimizers is tf.keras.optimizers
    assert tf.initializers is tf.keras.initializers


def test_aliases_work_as_in_the_tutorials():
    # quickstart/advanced: tf.keras.losses / tf.keras.metrics spelled through the short names
    loss = tf.losses.SparseCategoricalCrossentropy(from_logits=True)
    acc = tf.metrics.SparseCategoricalAccuracy(name="train_accuracy")
    logits = tf.constant([[2.0, 1.0, 0.1], [0.5, 2.5, 0.3]])
    labels = tf.constant([0, 2])
    # -log softmax: row 0 -> 0.41703, row 1 -> 2.42005; mean 1.41854
    np.testing.assert_allclose(loss(labels, logits).numpy(), 1.4185398, rtol=1e-5)
    acc.update_state(labels, logits)
    assert float(acc.result()) == 0.5
    init = tf.initializers.Constant(3.0)
    assert init((2,)).numpy().tolist() == [3.0, 3.0]
    opt = tf.optimizers.SGD(learning_rate=0.5)
    v = tf.Variable(1.0)
    opt.apply_gradients([(tf.constant(2.0), v)])
    assert float(v.numpy()) == 0.0


def test_unknown_attribute_still_raises():
    with pytest.raises(AttributeError, match="no attribute 'not_a_namespace'"):
        tf.not_a_namespace  # noqa: B018
