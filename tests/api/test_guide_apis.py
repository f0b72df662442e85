"""APIs TensorFlow's guides call: py_function/numpy_function, tf.*_initializer, dtype enums, inference_fn,
Python arguments of concrete functions, custom TraceTypes, the profiler, SaveOptions, saving an update step.
Expected values and messages are TensorFlow 2.21's."""
import logging

import numpy as np
import pytest

import rivulet as tf
from rivulet.errors import InvalidArgumentError, UnknownError, AlreadyExistsError, UnavailableError
from rivulet.ops import random_ops


def test_py_function_eager_graph_and_errors():
    assert tf.py_function(lambda x, y: x * y + 1, [tf.constant(2.0), 3.0], tf.float32).numpy() == 7.0
    a, b = tf.py_function(lambda x: (x, x * 2), [tf.constant([1, 2])], [tf.int32, tf.int32])
    assert a.numpy().tolist() == [1, 2] and b.numpy().tolist() == [2, 4]
    with pytest.raises(InvalidArgumentError, match="Tensor conversion requested dtype int32 for Tensor with "
                                                   "dtype float32"):
        tf.py_function(lambda x: x, [1.5], tf.int32)
    with pytest.raises(UnknownError, match="ZeroDivisionError: division by zero"):
        tf.py_function(lambda x: 1 / 0, [1.5], tf.float32)
    calls = []

    @tf.function
    def g(a):
        r = tf.py_function(lambda x: (calls.append(1), x.numpy() * 10)[1], [a], tf.float32)
        assert r.shape.rank is None and r.op.type == "EagerPyFunc"
        return r + 1

    assert g(tf.constant([1., 2.])).numpy().tolist() == [11., 21.]
    assert g(tf.constant([3., 4.])).numpy().tolist() == [31., 41.]
    assert len(calls) == 2  # the Python function runs at each call, not at trace time


def test_py_function_gradients():
    x = tf.constant(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.py_function(lambda a: a * a * a, [x], tf.float32)
    assert t.gradient(y, x).numpy() == 27.0

    @tf.function
    def gg(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.py_function(lambda a: tf.sin(a), [x], tf.float32)
        return t.gradient(y, x)
    assert gg(tf.constant(1.0)).numpy() == np.float32(0.5403023)


def test_numpy_function():
    assert tf.numpy_function(lambda x: x * 2, [np.array([1., 2.], np.float32)], tf.float32).numpy().tolist() == \
        [2., 4.]
    seen = []
    assert tf.numpy_function(lambda x: (seen.append(type(x)), x * 2)[1], [tf.constant(3)], tf.int32).numpy() == 6
    assert seen[0] in (np.ndarray, np.int32)

    @tf.function
    def h(a):
        r = tf.numpy_function(np.sort, [a], tf.float32)
        assert r.op.type == "PyFunc"
        return r
    assert h(tf.constant([3., 1.])).numpy().tolist() == [1., 3.]
    with pytest.raises(InvalidArgumentError, match="is float64, but expects int32"):
        tf.numpy_function(lambda x: x * 2.0, [tf.constant(3)], tf.int32)


def test_toplevel_initializers_and_dtype_enums():
    assert tf.random_normal_initializer(0., 1., seed=1)([2]).numpy().tolist() == [
        np.float32(0.1266503), np.float32(-0.49301657)]
    assert tf.random_uniform_initializer(-1., 1., seed=1)([2]).numpy().tolist() == [
        np.float32(0.75697637), np.float32(-0.0800395)]
    assert tf.constant_initializer(3.)([2]).numpy().tolist() == [3., 3.]
    assert tf.zeros_initializer()([2]).dtype == tf.float32
    assert tf.ones_initializer()([2], tf.int32).numpy().tolist() == [1, 1]
    random_ops.set_seed(3)
    try:  # unseeded: the stateful op under the global seed (stddev 0.05)
        z = np.array([-0.8296372, -1.8266271], np.float32)  # TensorFlow's tf.random.normal([2]) after set_seed(3)
        np.testing.assert_array_equal(tf.random_normal_initializer()([2]).numpy(), z * np.float32(0.05))
    finally:
        random_ops.set_seed(None)
    assert tf.zeros(1, 1).dtype == tf.float32  # dtype given as TensorFlow's enum number
    assert tf.ones([2], 9).dtype == tf.int64
    with pytest.raises(TypeError):
        tf.as_dtype(True)


def test_concrete_function_python_argument_and_inference_fn():
    @tf.function
    def pow(a, b):
        return a ** b
    square = pow.get_concrete_function(a=tf.TensorSpec(None, tf.float32), b=2)
    assert square(tf.constant(10.0)).numpy() == 100.0
    with pytest.raises(TypeError):
        square(tf.constant(10.0), b=3)
    fn = square.inference_fn
    assert repr(fn) == ("<AtomicFunction> __inference_pow(a: TensorSpec(shape=<unknown>, dtype=tf.float32, "
                        "name=None), b: Literal[2]) -> TensorSpec(shape=<unknown>, dtype=tf.float32, name=None)")
    assert fn(tf.constant(3.0), 2).numpy() == 9.0
    with pytest.raises(TypeError, match="missing a required argument: 'b'"):
        fn(tf.constant(3.0))


class _FruitType(tf.types.experimental.TraceType):
    def __init__(self, fruit):
        self.fruit_type, self.fruit_value = type(fruit), fruit

    def is_subtype_of(self, other):
        return type(other) is _FruitType and self.fruit_type is other.fruit_type

    def most_specific_common_supertype(self, others):
        return self if all(self == o for o in others) else None

    def placeholder_value(self, placeholder_context=None):
        return self.fruit_value

    def __eq__(self, other):
        return type(other) is _FruitType and self.fruit_type == other.fruit_type

    def __hash__(self):
        return hash(self.fruit_type)


class _Fruit:
    def __tf_tracing_type__(self, context):
        return _FruitType(self)


class _Apple(_Fruit):
    flavor = tf.constant([1, 2])


class _Mango(_Fruit):
    flavor = tf.constant([3, 4])


def test_custom_trace_type():
    @tf.function
    def mixed(a, b):
        return a.flavor + b.flavor
    assert mixed(_Apple(), _Mango()).numpy().tolist() == [4, 6]
    assert mixed(_Apple(), _Mango()).numpy().tolist() == [4, 6]
    assert mixed.experimental_get_tracing_count() == 1  # new objects of the same types reuse the graph
    mixed(_Mango(), _Apple())
    assert mixed.experimental_get_tracing_count() == 2


def test_profiler_rules(caplog, tmp_path):
    with pytest.raises(UnavailableError, match="No profiler is running"):
        tf.profiler.experimental.stop()
    with caplog.at_level(logging.WARNING, logger="rivulet"):
        tf.profiler.experimental.start(str(tmp_path))
    try:
        with pytest.raises(AlreadyExistsError, match="Another profiler is running."):
            tf.profiler.experimental.start(str(tmp_path))
        with tf.profiler.experimental.Trace("train", step_num=1):
            tf.constant(1.0) + 1
    finally:
        tf.profiler.experimental.stop()
    with tf.profiler.experimental.Profile(str(tmp_path)):
        pass
    assert repr(tf.profiler.experimental.ProfilerOptions()) == (
        "ProfilerOptions(host_tracer_level=2, python_tracer_level=0, device_tracer_level=1, delay_ms=None)")


def test_save_options_and_update_step_without_signature(tmp_path):
    opts = tf.saved_model.SaveOptions(namespace_whitelist=["a"], save_debug_info=True)
    assert opts.save_debug_info is True and opts.namespace_whitelist == ["a"]

    class M(tf.Module):
        def __init__(self):
            self.v = tf.Variable(1.0)

        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def update(self, x):
            self.v.assign_add(x)

    tf.saved_model.save(M(), str(tmp_path), options=opts)
    loaded = tf.saved_model.load(str(tmp_path))
    assert list(loaded.signatures.keys()) == []
    loaded.update(tf.constant(2.0))
    assert loaded.v.numpy() == 3.0
