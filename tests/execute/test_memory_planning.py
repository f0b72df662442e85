"""Compiled graphs drop every big value after its last use, also where the batch is left open (as Keras
traces fit/predict steps), a multi-output op's tuple and a value passed through identities: the peak of a
chain is a few of its values, not all of them (measured with tracemalloc, which sees NumPy's buffers)."""
import re
import tracemalloc

import numpy as np

import rivulet as tf

MB = 1 << 20


def _peak(fn, *args):
    fn(*args)  # traced and compiled outside the measurement
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        out = fn(*args)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    return out, peak


def chain(x):
    for _ in range(12):  # twelve 1 MiB values, each the next one's only input
        x = tf.tanh(x)
    return tf.reduce_sum(x)


def test_values_of_an_unknown_batch_are_dropped_after_their_last_use():
    x = tf.constant(np.full((256, 1024), 0.5, np.float32))  # 1 MiB
    f = tf.function(chain, input_signature=[tf.TensorSpec([None, 1024], tf.float32)])
    out, peak = _peak(f, x)
    want = np.full((256, 1024), 0.5, np.float32)
    for _ in range(12):
        want = np.tanh(want)
    np.testing.assert_allclose(out.numpy(), want.sum(dtype=np.float64), rtol=1e-5)
    assert peak < 4 * MB, peak  # all twelve kept: 12 MiB
    known = tf.function(chain)  # a static batch: the same
    assert _peak(known, x)[1] < 4 * MB


def test_a_multi_output_ops_values_are_dropped_once_none_is_needed():
    def f(x):
        for _ in range(10):  # each split's tuple holds views of a fresh 1 MiB value
            y, z = tf.split(tf.tanh(x), [100, 156], axis=0)
            x = tf.concat([z, y], axis=0)
        return tf.reduce_sum(x)

    g = tf.function(f, input_signature=[tf.TensorSpec([None, 1024], tf.float32)])
    x = tf.constant(np.full((256, 1024), 0.5, np.float32))
    src = g.get_concrete_function()._compiled.source
    tuples = set(re.findall(r"(v\d+)\[1\]", src))
    assert len(tuples) == 10 and all(f"del {v}" in src for v in tuples)
    out, peak = _peak(g, x)
    assert peak < 5 * MB, peak  # all ten kept: 10 MiB more
    want = np.full((256, 1024), 0.5, np.float32)
    for _ in range(10):
        want = np.tanh(want)
    np.testing.assert_allclose(out.numpy(), want.sum(dtype=np.float64), rtol=1e-5)


def test_a_value_passed_through_identities_is_dropped_after_the_last_use_of_any():
    def f(x):
        for _ in range(12):
            x = tf.identity(tf.tanh(x))
        return tf.reduce_sum(x)

    from rivulet.execute import options
    tf.config.optimizer.set_experimental_options({"arithmetic_optimization": False})  # identities kept
    try:
        g = tf.function(f, input_signature=[tf.TensorSpec([None, 1024], tf.float32)])
        x = tf.constant(np.full((256, 1024), 0.5, np.float32))
        assert "Identity" in {op.type for op in g.get_concrete_function()._compiled.ops}
        out, peak = _peak(g, x)
    finally:
        options.reset()
    assert peak < 4 * MB, peak


def test_an_operand_read_for_its_shape_alone_is_not_kept_for_the_backward_pass():
    # y = x * w + b with an open batch: the gradient sums back to (x * w)'s shape (SumToShapeOf), which
    # would keep every layer's x * w alive until the backward pass reaches it; a stand-in of its shape
    # (no buffer of its own) is passed instead.
    ws = [tf.Variable(np.full([1024], 0.5, np.float32)) for _ in range(8)]
    bs = [tf.Variable(np.zeros([1024], np.float32)) for _ in range(8)]

    @tf.function(input_signature=[tf.TensorSpec([None, 1024], tf.float32)])
    def step(x):
        with tf.GradientTape() as tape:
            h = x
            for w, b in zip(ws, bs):
                h = tf.tanh(h * w + b)
            loss = tf.reduce_sum(h)
        return tape.gradient(loss, bs)

    x = tf.constant(np.full((256, 1024), 0.5, np.float32))
    src = step.get_concrete_function()._compiled.source
    assert "= _like(" in src
    got, peak = _peak(step, x)
    # kept for the backward pass: each layer's tanh output (8 MiB); the eight products too: 16 MiB
    assert peak < 13 * MB, peak
    h, ts = np.full((256, 1024), 0.5, np.float32), []
    for _ in range(8):
        h = np.tanh(h * np.float32(0.5))
        ts.append(h)
    g = np.ones_like(h)
    want = []
    for t in reversed(ts):
        g = g * (1 - t * t)
        want.append(g.sum(axis=0))
        g = g * np.float32(0.5)
    for a, b in zip(got, reversed(want)):
        np.testing.assert_allclose(a.numpy(), b, rtol=1e-4)


def test_a_buffer_read_later_through_an_identity_is_never_overwritten_in_place():
    from rivulet.execute import options
    tf.config.optimizer.set_experimental_options({"arithmetic_optimization": False})  # identities kept
    try:
        @tf.function
        def f(x):
            m = tf.matmul(x, x)
            i = tf.identity(m)
            return m + 1.0, i * 2.0  # m's last direct use is the add; its alias i is read after

        y, z = f(tf.constant(np.ones((300, 300), np.float32)))
    finally:
        options.reset()
    np.testing.assert_array_equal(y.numpy(), np.full((300, 300), 301.0, np.float32))
    np.testing.assert_array_equal(z.numpy(), np.full((300, 300), 600.0, np.float32))
