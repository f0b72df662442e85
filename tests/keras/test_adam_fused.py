"""Keras Adam as one op per variable (ops/training_ops.py): the same values, bit for bit, as the ops it replaces,
eagerly, in tf.function and in fit; in place only where nothing else holds the arrays; refusals."""
import threading

import numpy as np
import pytest

import rivulet as tf
from rivulet.keras import optimizers
from rivulet.ops import training_ops


def _train(fused, monkeypatch, mode, steps=4, block=None):
    if not fused:
        monkeypatch.setattr(optimizers, "_fusable", lambda *v: False)
    if block:
        monkeypatch.setattr(training_ops, "BLOCK", block)
    rng = np.random.default_rng(3)
    w = tf.Variable(rng.standard_normal((37, 29)).astype(np.float32))
    b = tf.Variable(rng.standard_normal(29).astype(np.float32))
    x = tf.constant(rng.standard_normal((8, 37)).astype(np.float32))
    opt = tf.keras.optimizers.Adam(learning_rate=0.01)

    def step():
        with tf.GradientTape() as t:
            loss = tf.reduce_sum(tf.tanh(x @ w + b) ** 2)
        opt.apply_gradients(zip(t.gradient(loss, [w, b]), [w, b]))
    run = tf.function(step) if mode == "function" else step
    for _ in range(steps):
        run()
    return [w.numpy(), b.numpy()] + [v.numpy() for v in opt.variables[1:]]


@pytest.mark.parametrize("mode", ["eager", "function"])
def test_fused_equals_the_ops_bit_for_bit(mode, monkeypatch):
    with monkeypatch.context() as mp:
        want = _train(False, mp, mode)
    got = _train(True, monkeypatch, mode, block=100)  # several blocks, a ragged last one
    assert len(got) == len(want) == 6
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_fused_op_in_the_training_graph():
    w = tf.Variable(np.ones((3, 2), np.float32))
    opt = tf.keras.optimizers.Adam()

    @tf.function
    def step():
        with tf.GradientTape() as t:
            loss = tf.reduce_sum(w * w)
        opt.apply_gradients([(t.gradient(loss, w), w)])
    step()
    types = [op.type for op in step.get_concrete_function().graph.get_operations()]
    assert types.count("_KerasAdamUpdate") == 1 and "AssignAddVariableOp" not in types[types.index(
        "_KerasAdamUpdate"):]


def test_fit_with_fused_adam_equals_without(monkeypatch):
    def fit():
        tf.keras.utils.set_random_seed(1)
        model = tf.keras.Sequential([tf.keras.Input((6,)), tf.keras.layers.Dense(5, activation="relu"),
                                     tf.keras.layers.Dense(1)])
        model.compile(optimizer="adam", loss="mse")
        rng = np.random.default_rng(0)
        model.fit(rng.random((64, 6), dtype=np.float32), rng.random((64, 1), dtype=np.float32), batch_size=16,
                  epochs=2, verbose=0)
        return [v.numpy() for v in model.weights]
    with monkeypatch.context() as mp:
        mp.setattr(optimizers, "_fusable", lambda *v: False)
        want = fit()
    for g, w in zip(fit(), want):
        np.testing.assert_array_equal(g, w)


def test_an_earlier_read_keeps_its_value():
    w = tf.Variable(np.ones(4, np.float32))
    before = w.read_value()  # holds the variable's array: the update must not write into it
    opt = tf.keras.optimizers.Adam(learning_rate=0.5)
    opt.apply_gradients([(tf.constant([1.0, -1.0, 2.0, 0.0]), w)])
    np.testing.assert_array_equal(before.numpy(), np.ones(4, np.float32))
    assert not np.array_equal(w.numpy(), np.ones(4, np.float32))


def test_concurrent_steps_all_land():
    w = tf.Variable(np.zeros(1000, np.float64))
    opt = tf.keras.optimizers.Adam(learning_rate=0.1)
    opt.apply_gradients([(tf.ones(1000, tf.float64), w)])  # slots made once
    m = opt.variables[1]

    def worker():
        for _ in range(20):
            training_ops.keras_adam_update(w, m, opt.variables[2], tf.ones(1000, tf.float64),
                                           tf.constant(0.0, tf.float64), tf.constant(1.0, tf.float64),
                                           tf.constant(0.0, tf.float64), tf.constant(1.0, tf.float64))
    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    np.testing.assert_array_equal(m.numpy(), np.ones(1000))  # m += (1 - m) * 1: every update read the last


def test_refusals():
    w = tf.Variable(np.zeros(3, np.float32))
    m, v = tf.Variable(np.zeros(3, np.float32)), tf.Variable(np.zeros(3, np.float32))
    one = tf.constant(1.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="shapes must be equal"):
        training_ops.keras_adam_update(w, m, v, tf.zeros(4), one, one, one, one)
    with pytest.raises(TypeError, match="floating gradient"):
        tf.function(lambda: training_ops.keras_adam_update(w, m, v, tf.zeros(3, tf.int32), one, one, one, one))()


def test_amsgrad_and_float16_keep_the_ops():
    assert not optimizers._fusable(tf.Variable(np.zeros(2, np.float16)))
    w = tf.Variable(np.ones(3, np.float32))
    opt = tf.keras.optimizers.Adam(amsgrad=True)

    @tf.function
    def step():
        opt.apply_gradients([(tf.ones(3), w)])
    step()
    assert "_KerasAdamUpdate" not in [op.type for op in step.get_concrete_function().graph.get_operations()]


def test_jit_compiled_fit_lowers_the_fused_update():
    pytest.importorskip("onnxruntime")
    import warnings

    def fit(jit):
        tf.keras.utils.set_random_seed(1)
        model = tf.keras.Sequential([tf.keras.Input((6,)), tf.keras.layers.Dense(5, activation="relu"),
                                     tf.keras.layers.Dense(1)])
        model.compile(optimizer="adam", loss="mse", jit_compile=jit)
        rng = np.random.default_rng(0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model.fit(rng.random((64, 6), dtype=np.float32), rng.random((64, 1), dtype=np.float32), batch_size=16,
                      epochs=3, verbose=0)
        assert not [w for w in caught if "NumPy executor" in str(w.message)]  # it ran compiled
        return [v.numpy() for v in model.weights]
    for g, w in zip(fit(True), fit(False)):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_saved_graphs_holding_the_update_are_checked():
    from rivulet import dtypes
    from rivulet.graph.graph import Graph
    from rivulet.saved_model import validate
    g = Graph("g")
    res = [g.placeholder(dtypes.resource, (), name=f"r{i}") for i in range(3)]
    grad = g.placeholder(tf.float32, (3,), name="g")
    scalars = [g.placeholder(tf.float32, (), name=f"s{i}") for i in range(4)]
    validate.node("ok", training_ops.KERAS_ADAM, res + [grad] + scalars, {}, {})
    with pytest.raises(validate.Invalid, match="updates 3 variables"):  # a gradient where a variable goes
        validate.node("bad", training_ops.KERAS_ADAM, res[:2] + [grad, grad] + scalars, {}, {})
    var = tf.Variable(np.zeros(4, np.float64))
    with pytest.raises(validate.Invalid, match="cannot update variable"):
        validate.node("bad", training_ops.KERAS_ADAM, res + [grad] + scalars, {}, {id(res[1]): var})
    with pytest.raises(tf.errors.InvalidArgumentError, match="updates variables"):
        training_ops._adam_kernel(np.zeros(3), np.zeros(3), np.zeros(3), np.zeros(3), 1.0, 1.0, 1.0, 1.0)
