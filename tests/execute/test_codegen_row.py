"""A compiled x[t] (StridedSlice of one dynamic integer index: a time loop's read of its input) is a plain NumPy
index in the generated code, with StridedSlice's values, dtypes and errors."""
import linecache

import numpy as np
import pytest

import rivulet as tf


def _compiled_source(f, *args):
    """The generated source of f's first call (registered with linecache, execute/codegen.py)."""
    before = set(linecache.cache)
    f(*args)
    return "".join("".join(linecache.cache[k][2]) for k in set(linecache.cache) - before
                   if str(k).startswith("<rivulet-graph"))


def test_row_index_is_inlined_with_the_kernels_results():
    @tf.function
    def f(x, i):
        return x[i], x[i] * 2.0

    x = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
    assert "_row(" in _compiled_source(f, x, tf.constant(1))
    for i in (0, 2, -1, -3):
        a, b = f(x, tf.constant(i))
        np.testing.assert_array_equal(a.numpy(), x.numpy()[i])
        np.testing.assert_array_equal(b.numpy(), 2 * x.numpy()[i])
    v = tf.function(lambda x, i: x[i])(tf.constant(np.arange(3, dtype=np.int64)), tf.constant(np.int64(2)))
    assert v.dtype == tf.int64 and v.shape == () and v.numpy() == 2


@pytest.mark.parametrize("i,match", [(3, "slice index 3 of dimension 0 out of bounds."),
                                     (-4, "slice index -1 of dimension 0 out of bounds.")])
def test_row_index_out_of_range_is_tensorflows_error(i, match):
    @tf.function
    def f(x, i):
        return x[i] + 1.0

    x = tf.constant(np.ones((3, 2), np.float32))
    with pytest.raises(tf.errors.InvalidArgumentError, match=match):
        f(x, tf.constant(i))


def test_a_while_loop_over_rows_with_gradients():
    x = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3))

    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            acc = tf.zeros([3])
            for t in tf.range(4):
                acc = acc * 0.5 + x[t] ** 2
            loss = tf.reduce_sum(acc)
        return acc, tape.gradient(loss, x)
    acc, g = f(x)
    want, wg = np.zeros(3, np.float32), np.zeros((4, 3), np.float32)
    for t in range(4):
        want = want * 0.5 + x.numpy()[t] ** 2
        wg[t] = 2 * x.numpy()[t] * 0.5 ** (3 - t)
    np.testing.assert_allclose(acc.numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(g.numpy(), wg, rtol=1e-6)
