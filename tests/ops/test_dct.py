"""tf.signal.dct / idct: types I-IV, norm='ortho', n, gradients and errors, values recorded from TensorFlow 2.21."""
import numpy as np
import pytest

import rivulet as tf

X = [[1.0, 2.0, -1.5, 0.25, 3.0], [0.5, -0.5, 2.0, 1.0, -2.0]]
# TensorFlow 2.21: tf.signal.dct(tf.constant(X, tf.float64), type=T, norm=NORM)
TF = {
    (1, None): [[5.5, 0.474873734, 7.0, -4.474873734, -3.5], [3.5, 0.378679656, -5.5, 4.621320344, 1.5]],
    (2, None): [[9.5, -1.746977682, 8.08155948, -5.679838816, -4.16844052],
                [2.0, 2.991926825, -6.736067977, 5.79209581, 2.263932023]],
    (2, "ortho"): [[2.124264579, -0.55244285, 2.5556135, -1.79612274, -1.318176633],
                   [0.447213595, 0.946130336, -2.130131728, 1.831621519, 0.715918166]],
    (3, None): [[4.525169674, -1.051438232, 10.0, -4.802663734, -3.671067708],
                [2.724513988, 0.010101715, -7.5, 4.989898285, 2.275486012]],
    (3, "ortho"): [[1.561970126, -0.201508134, 3.29326349, -1.387749794, -1.029907711],
                   [0.927059887, 0.068687358, -2.30621533, 1.643437302, 0.785064773]],
    (4, None): [[4.583684474, 1.311284083, 5.303300859, -10.431914619, 1.856213369],
                [3.20735208, -2.253269748, -2.828427125, 8.147000992, -2.293914321]],
    (4, "ortho"): [[1.449488301, 0.414664436, 1.677050983, -3.298861055, 0.586986207],
                   [1.014253783, -0.712546459, -0.894427191, 2.576307923, -0.725399401]],
}
INVERSE = {1: 1, 2: 3, 3: 2, 4: 4}


@pytest.mark.parametrize("kind, norm", sorted(TF, key=str))
def test_dct_and_idct_match_tensorflow(kind, norm):
    x = tf.constant(X, tf.float64)
    np.testing.assert_allclose(tf.signal.dct(x, type=kind, norm=norm).numpy(), TF[kind, norm], rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(tf.signal.idct(x, type=INVERSE[kind], norm=norm).numpy(), TF[kind, norm],
                               rtol=1e-8, atol=1e-9)
    y = tf.signal.dct(tf.constant(X, tf.float32), type=kind, norm=norm)
    assert y.dtype == tf.float32
    np.testing.assert_allclose(y.numpy(), TF[kind, norm], rtol=2e-6, atol=2e-6)


def test_ortho_idct_inverts_dct():
    x = tf.constant(X, tf.float64)
    for kind in (2, 3, 4):
        back = tf.signal.idct(tf.signal.dct(x, type=kind, norm="ortho"), type=kind, norm="ortho")
        np.testing.assert_allclose(back.numpy(), X, atol=1e-12)


def test_n_truncates_or_pads():
    x = tf.constant(X, tf.float64)
    np.testing.assert_allclose(tf.signal.dct(x, n=3).numpy(), [[3.0, 4.330127019, -4.5], [4.0, -2.598076211, 3.5]],
                               rtol=1e-8)
    np.testing.assert_allclose(tf.signal.dct(x, n=7, norm="ortho").numpy(), [
        [1.795331247, 0.313291138, 0.085938405, 2.299109279, -0.674689959, -2.690900441, 0.041155362],
        [0.377964473, 0.979289647, -0.353199646, -1.759569997, 0.941951201, 2.048146775, -0.308416604]], rtol=1e-8)


@pytest.mark.parametrize("kind, want", [
    (1, [1.8, -3.4, 0.6, 2.8]),
    (2, [0.632017543, -1.447238791, -0.252761209, 1.667982457]),
    (3, [0.9, -0.942450447, -0.1, 1.905724837]),
    (4, [0.474787979, -1.269132555, 1.381242446, 1.263348027]),
])
def test_gradients_match_tensorflow(kind, want):
    x = tf.constant([1.0, 2.0, -1.5, 0.25], tf.float64)
    w = tf.constant([0.3, -1.0, 2.0, 0.5], tf.float64)
    with tf.GradientTape() as t:
        t.watch(x)
        loss = tf.reduce_sum(tf.signal.dct(x, type=kind, norm=None if kind == 1 else "ortho") * w)
    np.testing.assert_allclose(t.gradient(loss, x).numpy(), want, rtol=1e-8)


def test_in_tf_function_with_unknown_batch():
    f = tf.function(lambda v: tf.signal.dct(v, norm="ortho"), input_signature=[tf.TensorSpec([None, 5], tf.float64)])
    np.testing.assert_allclose(f(tf.constant(X, tf.float64)).numpy(), TF[2, "ortho"], rtol=1e-8)


@pytest.mark.parametrize("kwargs, err, msg", [
    (dict(type=1, norm="ortho"), ValueError, "Normalization is not supported for the Type-I DCT."),
    (dict(axis=0), NotImplementedError, "axis must be -1. Got: 0"),
    (dict(type=5), ValueError, r"Types I, II, III and IV \(I\)DCT are supported."),
    (dict(norm="forward"), ValueError, "Unknown normalization. Expected None or 'ortho', got: forward"),
    (dict(n=0), ValueError, "n should be a positive integer or None"),
    (dict(n=-1), ValueError, "n should be a positive integer or None"),
])
def test_errors_as_tensorflow(kwargs, err, msg):
    with pytest.raises(err, match=msg):
        tf.signal.dct(tf.constant(X), **kwargs)


def test_type_one_needs_two_points_and_floats_only():
    with pytest.raises(ValueError, match="Type-I DCT requires the dimension to be greater than one."):
        tf.signal.dct(tf.constant([[1.0]]), type=1)
    for bad in (tf.constant([1, 2]), tf.constant([1.0, 2.0], tf.float16)):
        with pytest.raises(TypeError):
            tf.signal.dct(bad)
