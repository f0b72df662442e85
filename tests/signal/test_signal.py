"""tf.signal against values and gradients recorded from TensorFlow 2.21 (tests/signal/golden.npz)."""
import os

import numpy as np
import pytest

import rivulet as tf

G = np.load(os.path.join(os.path.dirname(__file__), "golden.npz"), allow_pickle=False)
X, Z, Z2 = G["x"], G["z"], G["z2"]


def _check_grad(name, fn, inp, weights):
    v = tf.constant(inp)
    with tf.GradientTape() as g:
        g.watch(v)
        y = fn(v)
        w = tf.cast(weights, y.dtype)
        loss = tf.reduce_sum(tf.math.real(y * w) if y.dtype.is_complex else y * w)
    np.testing.assert_allclose(y.numpy(), G[name], rtol=2e-4, atol=2e-4)
    if name + "_grad" in G:  # TensorFlow's own IRFFT gradient fails when fft_length crops the spectrum
        np.testing.assert_allclose(g.gradient(loss, v).numpy(), G[name + "_grad"], rtol=2e-4, atol=2e-4)


# The weights TensorFlow's recording used, regenerated in its order from the same seed.
_RNG = np.random.RandomState(0)
_RNG.randn(2, 40), _RNG.randn(2, 8), _RNG.randn(2, 8), _RNG.randn(3, 4, 6), _RNG.randn(3, 4, 6)
W = {name: _RNG.randn(*shape).astype(np.float32) for name, shape in
     [("fft", (2, 8)), ("fft2d", (3, 4, 6)), ("ifft2d", (3, 4, 6)), ("rfft", (2, 21)), ("rfft64", (2, 33)),
      ("irfft", (2, 14)), ("irfft9", (2, 9)), ("irfft20", (2, 20)), ("stft", (2, 8, 9))]}
W["ifft"] = W["fft"]

CASES = {"fft": tf.signal.fft, "ifft": tf.signal.ifft, "fft2d": tf.signal.fft2d, "ifft2d": tf.signal.ifft2d,
         "rfft": tf.signal.rfft, "rfft64": lambda v: tf.signal.rfft(v, [64]), "irfft": tf.signal.irfft,
         "irfft9": lambda v: tf.signal.irfft(v, [9]), "irfft20": lambda v: tf.signal.irfft(v, [20]),
         "stft": lambda v: tf.signal.stft(v, 12, 4)}
INPUTS = {"fft2d": Z2, "ifft2d": Z2, "rfft": X, "rfft64": X, "stft": X}


@pytest.mark.parametrize("name", list(CASES))
def test_transforms_and_gradients(name):
    _check_grad(name, CASES[name], INPUTS.get(name, Z), W[name])


def test_dtypes_and_errors():
    assert tf.signal.rfft(X).dtype == tf.complex64
    assert tf.signal.irfft(Z.astype(np.complex128)).dtype == tf.float64
    with pytest.raises(tf.errors.InvalidArgumentError, match="Tcomplex"):  # TF 2.21: eagerly, TypeError in graphs
        tf.signal.fft(X)
    with pytest.raises(TypeError, match="Tcomplex"):
        tf.function(tf.signal.fft)(X)
    with pytest.raises(ValueError, match="RFFT requires tf.float32 or tf.float64 inputs"):
        tf.signal.rfft(Z)


def test_frame_and_windows():
    np.testing.assert_array_equal(tf.signal.frame(X, 8, 5).numpy(), G["frame"])
    np.testing.assert_array_equal(tf.signal.frame(X, 8, 5, pad_end=True, pad_value=2).numpy(), G["frame_pad"])
    np.testing.assert_array_equal(tf.signal.frame(X.T, 6, 4, axis=0).numpy(), G["frame_ax0"])
    np.testing.assert_allclose(tf.signal.hann_window(10).numpy(), G["hann"], atol=1e-7)
    np.testing.assert_allclose(tf.signal.hann_window(7, periodic=False).numpy(), G["hann_sym"], atol=1e-7)
    np.testing.assert_allclose(tf.signal.hamming_window(9).numpy(), G["hamming"], atol=1e-7)


def test_stft_roundtrip_and_overlap_add():
    np.testing.assert_allclose(tf.signal.stft(X, 10, 3, fft_length=16, pad_end=True).numpy(), G["stft_pad"],
                               rtol=2e-4, atol=2e-4)
    s = tf.signal.stft(X, 16, 4)
    np.testing.assert_allclose(tf.signal.inverse_stft(s, 16, 4).numpy(), G["istft"], rtol=2e-4, atol=2e-4)
    inv = tf.signal.inverse_stft(s, 16, 4, window_fn=tf.signal.inverse_stft_window_fn(4)).numpy()
    np.testing.assert_allclose(inv, G["istft_inv"], rtol=2e-4, atol=2e-4)
    np.testing.assert_allclose(inv[:, 12:-12], X[:, 12:inv.shape[1] - 12], atol=1e-5)  # interior reconstructs
    frames = np.random.RandomState(0).randn(2, 3, 5, 4).astype(np.float32)
    ola = tf.signal.overlap_and_add(frames, 3).numpy()
    assert ola.shape == (2, 3, 16)
    np.testing.assert_allclose(ola[..., :3], frames[..., 0, :3], rtol=1e-6)
    np.testing.assert_allclose(ola[..., 3], frames[..., 0, 3] + frames[..., 1, 0], rtol=1e-6)

    @tf.function
    def f(v):
        return tf.signal.inverse_stft(tf.signal.stft(v, 16, 4), 16, 4)
    np.testing.assert_allclose(f(X).numpy(), G["istft"], rtol=2e-4, atol=2e-4)
