"""tf.function arguments that are Python objects (issue 25), by TensorFlow's rule (trace_type_builder.from_value):
array-likes are traced as tensors; other objects by weak reference, where the same object or an equal one
reuses the graph; objects that cannot be weakly referenced by value. (Unhashable objects are refused, as in
TensorFlow: test_tracing_rules.py.)"""
import dataclasses
import gc
import weakref

import numpy as np
import pytest

import rivulet as tf


class ArrayLike:
    """Not an ndarray, but NumPy can read it (as a pandas DataFrame, or an xarray): unhashable, as they are."""
    __hash__ = None

    def __init__(self, rows):
        self.rows = rows

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.rows, dtype=np.float32)

    def __eq__(self, other):
        return NotImplemented


def test_array_likes_are_traced_as_tensors():
    traces = []

    @tf.function
    def total(x):
        traces.append(x)
        return tf.reduce_sum(x, axis=0)

    np.testing.assert_allclose(total(ArrayLike([[1, 2], [3, 4]])).numpy(), [4, 6])
    np.testing.assert_allclose(total(ArrayLike([[5, 6], [7, 8]])).numpy(), [12, 14])
    assert len(traces) == 1 and isinstance(traces[0], tf.Tensor)  # one graph, fed the values
    assert traces[0].shape == (2, 2) and traces[0].dtype == tf.float32
    total(ArrayLike([[1, 2, 3]]))
    assert len(traces) == 2  # a new shape: a new graph, as for arrays


def test_pandas_dataframe_argument():
    pd = pytest.importorskip("pandas")
    f = tf.function(lambda df: tf.reduce_sum(df, axis=0))
    out = f(pd.DataFrame({"a": [1.0, 2.0], "b": [3.0, 4.0]}))
    assert out.dtype == tf.float64  # TensorFlow keeps a DataFrame's float64
    np.testing.assert_allclose(out.numpy(), [3.0, 7.0])


def test_keras_model_subclass_with_a_tf_function_call():
    class Scaled(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = tf.keras.layers.Dense(1, kernel_initializer="ones", use_bias=False)

        @tf.function
        def call(self, x):
            return self.dense(x) * 2

    out = Scaled()(tf.constant([[1.0, 2.0]]))  # was a TypeError: PolymorphicFunction.__get__() needs owner
    assert out.numpy().tolist() == [[6.0]]
    # and models given to a tf.function as arguments: one graph per model, each held weakly
    traces = []

    @tf.function
    def apply(model, x):
        traces.append(1)
        return model(x)

    def make(value):
        return tf.keras.Sequential([tf.keras.layers.Dense(1, kernel_initializer=tf.keras.initializers.Constant(
            value), use_bias=False, input_shape=(2,))])
    m1, m2 = make(1.0), make(3.0)
    x = tf.constant([[1.0, 1.0]])
    assert apply(m1, x).numpy().tolist() == [[2.0]]
    assert apply(m1, x).numpy().tolist() == [[2.0]]
    assert apply(m2, x).numpy().tolist() == [[6.0]]
    assert len(traces) == 2
    ref = weakref.ref(m2)
    del m2
    gc.collect()
    assert ref() is None  # the function's cache does not keep a model alive


@dataclasses.dataclass(frozen=True)
class Config:
    scale: float


def test_equal_objects_share_a_graph_as_tensorflow_weakrefs_compare_equal():
    traces = []

    @tf.function
    def scaled(cfg, x):
        traces.append(1)
        return x * cfg.scale

    a, b = Config(2.0), Config(2.0)
    assert scaled(a, tf.constant(1.0)).numpy() == 2.0
    assert scaled(b, tf.constant(1.0)).numpy() == 2.0
    assert len(traces) == 1  # equal (and equally hashed) objects: TensorFlow's Weakref types are equal
    assert scaled(Config(5.0), tf.constant(1.0)).numpy() == 5.0
    assert len(traces) == 2


def test_objects_without_weak_references_are_keyed_by_value():
    traces = []

    @tf.function
    def f(key, x):
        traces.append(key)
        return x + 1

    f(frozenset({1, 2}), tf.constant(1))
    f(frozenset([2, 1]), tf.constant(1))  # another, equal object: TensorFlow's Literal
    f(complex(1, 2), tf.constant(1))
    f(complex(1, 2), tf.constant(1))
    assert len(traces) == 2
