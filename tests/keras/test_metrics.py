import numpy as np
import pytest

import rivulet as tf

metrics = tf.keras.metrics


def test_mean_weighted_and_reset():
    m = metrics.Mean()
    m.update_state([1.0, 2.0, 3.0], sample_weight=[1.0, 0.0, 1.0])
    assert float(m.result()) == pytest.approx(2.0)
    m.update_state(10.0)
    assert float(m.result()) == pytest.approx(14.0 / 3)
    m.reset_state()
    assert float(m.result()) == 0.0
    assert float(m([4.0, 6.0])) == pytest.approx(5.0)  # calling updates and returns the result


def test_accuracy_metrics():
    p = np.array([[0.1, 0.8, 0.1], [0.6, 0.3, 0.1], [0.2, 0.3, 0.5], [0.4, 0.5, 0.1]], "float32")
    y = np.array([1, 0, 1, 1])
    sca = metrics.SparseCategoricalAccuracy()
    sca.update_state(y, p)
    assert float(sca.result()) == pytest.approx(0.75)
    sca.update_state(y[:, None], p)  # labels with a trailing unit axis
    assert float(sca.result()) == pytest.approx(0.75)
    ca = metrics.CategoricalAccuracy()
    ca.update_state(np.eye(3)[y], p)
    assert float(ca.result()) == pytest.approx(0.75)
    ba = metrics.BinaryAccuracy()
    ba.update_state([[1], [0], [1]], [[0.7], [0.6], [0.2]])
    assert float(ba.result()) == pytest.approx(1 / 3)
    acc = metrics.Accuracy()
    acc.update_state([1, 2, 3, 4], [1, 2, 0, 4])
    assert float(acc.result()) == pytest.approx(0.75)


def test_metric_names_and_variables_are_non_trainable():
    m = metrics.SparseCategoricalAccuracy()
    assert m.name == "sparse_categorical_accuracy"
    assert len(m.variables) == 2 and not any(v.trainable for v in m.variables)


def test_update_state_inside_tf_function_accumulates():
    m = metrics.Mean()
    f = tf.function(lambda x: m.update_state(x))
    for v in ([1.0, 2.0], [3.0, 4.0]):
        f(tf.constant(v))
    assert float(m.result()) == pytest.approx(2.5)


def test_compile_accuracy_resolves_by_shapes():
    from rivulet.keras.metrics import for_compile
    sparse = for_compile("accuracy", tf.zeros([4]), tf.zeros([4, 3]))
    dense = for_compile("accuracy", tf.zeros([4, 3]), tf.zeros([4, 3]))
    binary = for_compile("acc", tf.zeros([4, 1]), tf.zeros([4, 1]))
    assert sparse._fn is metrics.sparse_categorical_accuracy and sparse.name == "accuracy"
    assert dense._fn is metrics.categorical_accuracy
    assert binary._fn is metrics.binary_accuracy and binary.name == "acc"
