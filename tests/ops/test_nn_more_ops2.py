"""tf.nn.embedding_lookup_sparse / safe_embedding_lookup_sparse, batch_norm_with_global_normalization,
collapse_repeated, isotonic_regression, max_pool_with_argmax (and its gradient), conv3d (and gradients),
conv3d_transpose, conv1d_transpose, conv_transpose, atrous_conv2d(_transpose): each call below against
TensorFlow 2.21's output (the first 40 values rounded to 5 decimals, and the shape)."""
import numpy as np

import rivulet as tf

# TensorFlow 2.21's outputs, label -> (values, shape or None for tuples)
TF = {
    'els sum': ([12.0, 14.0, 16.0, 0.0, 1.0, 2.0, 6.0, 7.0, 8.0], (3, 3)),
    'els mean': ([6.0, 7.0, 8.0, 0.0, 1.0, 2.0, 6.0, 7.0, 8.0], (3, 3)),
    'els sqrtn w': ([9.45889, 10.67157, 11.88425, 0.0, 1.0, 2.0, 6.0, 7.0, 8.0], (3, 3)),
    'els mean w': ([7.8, 8.8, 9.8, 0.0, 1.0, 2.0, 6.0, 7.0, 8.0], (3, 3)),
    'els maxnorm': ([4.71078, 5.7056, 6.70043, 0.0, 1.0, 2.0, 2.4577, 2.86731, 3.27693], (3, 3)),
    'sels': ([3.0, 4.0, 5.0, 0.0, 0.0, 0.0, 6.0, 7.0, 8.0, 0.0, 0.0, 0.0], (4, 3)),
    'sels dflt': ([3.0, 4.0, 5.0, 9.0, 10.0, 11.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0], (4, 3)),
    'els grad': ([1.0, 2.0, 3.0, 0.2, 0.4, 0.6, 1.0, 2.0, 3.0, 0.8, 1.6, 2.4], (4, 3)),
    'bngn': ([0.1, 0.2, 5.75121, 6.197], (2, 2)),
    'collapse': ([[[1, 2, 3, 0], [4, 1, 0, 0]], [4, 2]], None),
    'iso': ([[[2.700000047683716, 2.700000047683716, 2.700000047683716, 2.700000047683716, 2.700000047683716,
        0.0]], [[0, 0, 0, 0, 0, 1]]], None),
    'iso inc': ([[[1.0, 2.5, 2.5, 4.0]], [[0, 1, 1, 2]]], None),
    'mpwa': ([[[[[8.0], [7.0]], [[6.0], [9.0]]]], [[[[4], [6]], [[8], [10]]]]], None),
    'mpwa batch': ([[[[[8.0, 16.0], [7.0, 14.0]], [[6.0, 12.0], [9.0, 18.0]]]], [[[[8, 9], [12, 13]], [[16, 17],
        [20, 21]]]]], None),
    'mpwa grad': ([0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 2.0, 0.0, 3.0, 0.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0], (1, 4, 4, 1)),
    'conv3d': ([3.0, 0.0, -3.0, 1.0, 0.0, -1.0, -1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 3.0, 0.0, -3.0, 1.0, 0.0, -1.0,
        -3.0, 0.0, 3.0, 0.0, 0.0, 0.0, 3.0, 0.0, -3.0, 1.0, 0.0, -1.0, -1.0, 0.0, 1.0, -3.0, 0.0, 3.0, 3.0, 0.0,
        -3.0, 1.0], (2, 3, 3, 3, 3)),
    'conv3d same s2': ([3.0, 0.0, -3.0, -1.0, 0.0, 1.0, -3.0, 0.0, 3.0, 3.0, 0.0, -3.0, -1.0, 0.0, 1.0, 0.0, 0.0,
        0.0, 3.0, 0.0, -3.0, -1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, -1.0, -1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0,
        0.0, -1.0, -3.0], (2, 2, 2, 2, 3)),
    'conv3d dil': ([-4.0, 0.0, 4.0, 4.0, 0.0, -4.0, 3.0, 0.0, -3.0, -4.0, 0.0, 4.0, 0.0, 0.0, 0.0, 3.0, 0.0, -3.0,
        4.0, 0.0, -4.0, -3.0, 0.0, 3.0, -4.0, 0.0, 4.0, 4.0, 0.0, -4.0, 3.0, 0.0, -3.0, -4.0, 0.0, 4.0, 3.0, 0.0,
        -3.0, -4.0], (2, 2, 3, 2, 3)),
    'conv3dT': ([-1.0, 8.0, -4.0, 5.0, -10.0, 11.0, 4.0, 4.0, 0.0, 2.0, 11.0, -1.0, 25.0, -3.0, 18.0, -10.0, -4.0,
        14.0, -3.0, 8.0, -8.0, 7.0, 15.0, 2.0, 5.0, 2.0, 20.0, -4.0, 10.0, -3.0, 12.0, -8.0, 8.0, -4.0, 5.0, 0.0,
        11.0, 4.0, 4.0, 25.0], (1, 4, 4, 4, 2)),
    'conv3dT valid': ([-1.0, 8.0, -14.0, 16.0, 4.0, 4.0, 0.0, 2.0, 36.0, -4.0, 18.0, -10.0, -4.0, 14.0, -11.0,
        15.0, 15.0, 2.0, 5.0, 2.0, 30.0, -7.0, 12.0, -8.0, 1.0, 16.0, 13.0, 23.0, 0.0, 30.0, 12.0, 13.0, 25.0,
        21.0, 1.0, 10.0, 4.0, 8.0, 15.0, 38.0], (1, 3, 4, 3, 2)),
    'conv1dT': ([0.5, 0.5, 0.5, 0.5, -0.5, -0.5, -1.0, -1.0, -0.5, -0.5, 0.5, 0.5, 1.0, 1.0, 0.5, 0.5, -0.5, -0.5,
        -1.0, -1.0], (1, 10, 2)),
    'convT': ([2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0,
        2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], (1, 6,
        6, 4)),
    'convT3': ([-1.0, 8.0, -4.0, 5.0, -10.0, 11.0, 4.0, 4.0, 0.0, 2.0, 11.0, -1.0, 25.0, -3.0, 18.0, -10.0, -4.0,
        14.0, -3.0, 8.0, -8.0, 7.0, 15.0, 2.0, 5.0, 2.0, 20.0, -4.0, 10.0, -3.0, 12.0, -8.0, 8.0, -4.0, 5.0, 0.0,
        11.0, 4.0, 4.0, 25.0], (1, 4, 4, 4, 2)),
    'atrous': ([100.0, 116.0, 132.0, 180.0, 196.0, 212.0, 260.0, 276.0, 292.0], (1, 3, 3, 1)),
    'atrousT': ([1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 1.0, 1.0, 1.0,
        1.0, 2.0, 2.0, 2.0, 2.0, 4.0, 4.0, 2.0, 2.0, 2.0, 2.0, 1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 1.0, 1.0, 1.0, 1.0],
        (1, 5, 5, 2)),
    'conv3d gx': ([-12.0, -12.0, -12.0, -12.0, 4.0, 4.0, 4.0, 4.0, -12.0, -12.0, -12.0, -12.0, 0.0, 0.0, 0.0, 0.0,
        12.0, 12.0, 12.0, 12.0, -16.0, -16.0, -16.0, -16.0, 16.0, 16.0, 16.0, 16.0, -20.0, -20.0, -20.0, -20.0,
        -12.0, -12.0, -12.0, -12.0, 4.0, 4.0, 4.0, 4.0], (2, 4, 4, 4, 2)),
    'conv3d gf': ([-48.0, 0.0, 48.0, 18.0, 0.0, -18.0, -16.0, 0.0, 16.0, -60.0, 0.0, 60.0, -38.0, 0.0, 38.0, 88.0,
        0.0, -88.0, -56.0, 0.0, 56.0, 0.0, 0.0, 0.0, -16.0, 0.0, 16.0, -60.0, 0.0, 60.0, 106.0, 0.0, -106.0, -48.0,
        0.0, 48.0, -56.0, 0.0, 56.0, 0.0], (2, 2, 2, 2, 3)),
}
SEEN = {}


def show(label, f):
    r = f()
    if isinstance(r, (tuple, list)):
        SEEN[label] = ([np.round(np.asarray(x), 5).tolist() for x in r], None)
    else:
        SEEN[label] = (np.round(r.numpy().astype(np.float64), 5).ravel()[:40].tolist(), tuple(r.shape))


def _run():
    params = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3))
    ids = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 2]], tf.constant([1, 3, 0, 2], tf.int64), [4, 3])
    w = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 2]], [0.5, 2.0, 1.0, 3.0], [4, 3])
    show("els sum", lambda: tf.nn.embedding_lookup_sparse(params, ids, None, combiner="sum"))
    show("els mean", lambda: tf.nn.embedding_lookup_sparse(params, ids, None))
    show("els sqrtn w", lambda: tf.nn.embedding_lookup_sparse(params, ids, w, combiner="sqrtn"))
    show("els mean w", lambda: tf.nn.embedding_lookup_sparse(params, ids, w, combiner="mean"))
    show("els maxnorm", lambda: tf.nn.embedding_lookup_sparse(params, ids, None, combiner="sum", max_norm=5.0))
    ids2 = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], tf.constant([1, -1, 2], tf.int64), [4, 2])
    show("sels", lambda: tf.nn.safe_embedding_lookup_sparse(params, ids2))
    show("sels dflt", lambda: tf.nn.safe_embedding_lookup_sparse(params, ids2, default_id=3, combiner="sum"))
    pv = tf.Variable(params)
    with tf.GradientTape() as t:
        y = tf.reduce_sum(tf.nn.embedding_lookup_sparse(pv, ids, w, combiner="mean") *
                          tf.constant([[1.0, 2.0, 3.0]]))
    show("els grad", lambda: tf.convert_to_tensor(t.gradient(y, pv)))
    show("bngn", lambda: tf.nn.batch_norm_with_global_normalization(
        tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant([1.0, 2.0]), tf.constant([0.5, 1.0]),
        tf.constant([0.1, 0.2]), tf.constant([2.0, 3.0]), 0.001, True))
    show("collapse", lambda: tf.nn.collapse_repeated(tf.constant([[1, 1, 2, 2, 2, 3, 0], [4, 4, 4, 1, 1, 0, 0]]),
                                                     tf.constant([7, 4])))
    show("iso", lambda: tf.nn.isotonic_regression(tf.constant([[1.0, 3.0, 2.0, 4.0, 3.5, 0.0]])))
    show("iso inc", lambda: tf.nn.isotonic_regression(tf.constant([[1.0, 3.0, 2.0, 4.0]]), decreasing=False))
    x = tf.constant(np.array([1, 5, 3, 2, 8, 0, 7, 7, 6, 4, 9, 1, 2, 2, 3, 3], np.float32).reshape(1, 4, 4, 1))
    show("mpwa", lambda: tf.nn.max_pool_with_argmax(x, 2, 2, "VALID"))
    show("mpwa batch", lambda: tf.nn.max_pool_with_argmax(tf.concat([x, x * 2], 3), 2, 2, "SAME",
                                                          include_batch_in_index=True))
    with tf.GradientTape() as t:
        t.watch(x)
        v, a = tf.nn.max_pool_with_argmax(x, 2, 2, "VALID")
        loss = tf.reduce_sum(v * tf.constant([[[[1.0], [2.0]], [[3.0], [4.0]]]]))
    show("mpwa grad", lambda: t.gradient(loss, x))
    x3 = tf.constant(np.arange(2 * 4 * 4 * 4 * 2, dtype=np.float32).reshape(2, 4, 4, 4, 2) % 5 - 2)
    f3 = tf.constant(np.arange(2 * 2 * 2 * 2 * 3, dtype=np.float32).reshape(2, 2, 2, 2, 3) % 3 - 1)
    show("conv3d", lambda: tf.nn.conv3d(x3, f3, [1, 1, 1, 1, 1], "VALID"))
    show("conv3d same s2", lambda: tf.nn.conv3d(x3, f3, [1, 2, 2, 2, 1], "SAME"))
    show("conv3d dil", lambda: tf.nn.conv3d(x3, f3, [1, 1, 1, 1, 1], "VALID", dilations=[1, 2, 1, 2, 1]))
    f3b = tf.constant(np.arange(2 * 2 * 2 * 2 * 3, dtype=np.float32).reshape(2, 2, 2, 2, 3) % 7 - 2)
    small = tf.constant(np.arange(24, dtype=np.float32).reshape(1, 2, 2, 2, 3) % 5)
    show("conv3dT", lambda: tf.nn.conv3d_transpose(small, f3b, [1, 4, 4, 4, 2], [1, 2, 2, 2, 1], "SAME"))
    show("conv3dT valid", lambda: tf.nn.conv3d_transpose(small, f3b, [1, 3, 4, 3, 2], [1, 1, 2, 1, 1], "VALID"))
    f1 = tf.constant(np.arange(3 * 2 * 4, dtype=np.float32).reshape(3, 2, 4) % 4 - 1.5)
    show("conv1dT", lambda: tf.nn.conv1d_transpose(tf.constant(np.arange(20, dtype=np.float32).reshape(1, 5, 4) % 3),
                                                   f1, [1, 10, 2], 2, "SAME"))
    show("convT", lambda: tf.nn.conv_transpose(tf.ones([1, 3, 3, 2]), tf.ones([2, 2, 4, 2]), [1, 6, 6, 4], 2, "SAME"))
    show("convT3", lambda: tf.nn.conv_transpose(small, f3b, [1, 4, 4, 4, 2], 2, "SAME"))
    show("atrous", lambda: tf.nn.atrous_conv2d(tf.reshape(tf.range(50.0), [1, 5, 5, 2]), tf.ones([2, 2, 2, 1]), 2,
                                               "VALID"))
    show("atrousT", lambda: tf.nn.atrous_conv2d_transpose(tf.ones([1, 3, 3, 1]), tf.ones([2, 2, 2, 1]), [1, 5, 5, 2],
                                                          2, "VALID"))
    with tf.GradientTape(persistent=True) as t:
        t.watch([x3, f3])
        y = tf.nn.conv3d(x3, f3, [1, 2, 1, 2, 1], "SAME")
        loss = tf.reduce_sum(y * y)
    show("conv3d gx", lambda: t.gradient(loss, x3))
    show("conv3d gf", lambda: t.gradient(loss, f3))

def _close(got, want):
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want)
        for g, w in zip(got, want):
            _close(g, w)
    else:
        np.testing.assert_allclose(got, want, rtol=0, atol=2e-5)


def test_against_tensorflow():
    _run()
    assert sorted(SEEN) == sorted(TF)
    for label, (values, shape) in TF.items():
        got, got_shape = SEEN[label]
        assert got_shape == shape, label
        _close(got, values)
