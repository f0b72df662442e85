"""tf.signal.linear_to_mel_weight_matrix, mfccs_from_log_mel_spectrograms, vorbis/kaiser/kaiser_bessel_derived
windows, mdct and inverse_mdct: values and errors recorded from TensorFlow 2.21."""
import numpy as np
import pytest

import rivulet as tf

F32 = dict(rtol=2e-6, atol=1e-7)
F64 = dict(rtol=1e-12, atol=1e-15)


def test_linear_to_mel_weight_matrix():
    m = tf.signal.linear_to_mel_weight_matrix(4, 9, 8000, 125.0, 3800.0)
    assert m.dtype == tf.float32 and m.shape == (9, 4)
    np.testing.assert_allclose(m.numpy(), [
        [0.0, 0.0, 0.0, 0.0], [0.8956538438796997, 0.1043461486697197, 0.0, 0.0],
        [0.0, 0.8690782189369202, 0.13092178106307983, 0.0], [0.0, 0.10917030274868011, 0.8908296823501587, 0.0],
        [0.0, 0.0, 0.5055729746818542, 0.49442705512046814], [0.0, 0.0, 0.0048243324272334576, 0.9951756596565247],
        [0.0, 0.0, 0.0, 0.5769243836402893], [0.0, 0.0, 0.0, 0.20334473252296448], [0.0, 0.0, 0.0, 0.0]], **F32)
    m = tf.signal.linear_to_mel_weight_matrix(3, 6, 16000, 20.0, 8000.0, dtype=tf.float64)
    np.testing.assert_allclose(m.numpy(), [
        [0.0, 0.0, 0.0], [0.1356440126347191, 0.8643559873652809, 0.0], [0.0, 0.2879649232439665, 0.7120350767560335],
        [0.0, 0.0, 0.7361264106614013], [0.0, 0.0, 0.3262316911380255], [0.0, 0.0, 0.0]], rtol=1e-12)
    np.testing.assert_allclose(tf.reduce_sum(tf.signal.linear_to_mel_weight_matrix(), axis=0).numpy(), [
        2.2854714393615723, 2.4851953983306885, 2.709531307220459, 2.9776315689086914, 3.2053003311157227,
        3.4202041625976562, 3.776449680328369, 4.096006393432617, 4.393705368041992, 4.78977108001709,
        5.18771505355835, 5.616916179656982, 6.122586727142334, 6.594091415405273, 7.170044898986816,
        7.769453048706055, 8.434292793273926, 9.121258735656738, 9.916668891906738, 10.728545188903809], rtol=5e-6)


@pytest.mark.parametrize("kwargs, msg", [
    (dict(num_mel_bins=0), "num_mel_bins must be positive. Got: 0"),
    (dict(lower_edge_hertz=-1.0), "lower_edge_hertz must be non-negative. Got: -1.0"),
    (dict(lower_edge_hertz=4000.0, upper_edge_hertz=3000.0), "lower_edge_hertz 4000.0 >= upper_edge_hertz 3000.0"),
    (dict(upper_edge_hertz=5000.0), r"upper_edge_hertz must not be larger than the Nyquist frequency \(sample_rate "
                                    r"/ 2\). Got 5000.0 for sample_rate: 8000"),
    (dict(sample_rate=0), "sample_rate must be positive. Got: 0"),
    (dict(dtype=tf.int32), "dtype must be a floating point type. Got: <dtype: 'int32'>"),
])
def test_mel_errors(kwargs, msg):
    with pytest.raises(ValueError, match=msg):
        tf.signal.linear_to_mel_weight_matrix(**kwargs)


def test_mfccs():
    y = tf.signal.mfccs_from_log_mel_spectrograms(tf.constant([[1.0, 2.0, -1.0, 0.5], [0.0, 3.0, 1.0, 2.0]]))
    np.testing.assert_allclose(y.numpy(), [[1.7677669525146484, 1.138434886932373, 0.24999992549419403,
                                            -1.8245452642440796], [4.242640495300293, -0.7653670310974121,
                                                                   -0.9999998807907104, -1.8477588891983032]], **F32)
    with pytest.raises(ValueError, match="num_mel_bins must be positive."):
        tf.signal.mfccs_from_log_mel_spectrograms(tf.zeros([2, 0]))


def test_windows():
    np.testing.assert_allclose(tf.signal.vorbis_window(5).numpy(), [0.1494358628988266, 0.8563191294670105, 1.0,
                                                                    0.8563191294670105, 0.14943568408489227], **F32)
    np.testing.assert_allclose(tf.signal.vorbis_window(4, dtype=tf.float64).numpy(), [
        0.2280143241916979, 0.9736577776423312, 0.9736577776423312, 0.22801432419169804], **F64)
    np.testing.assert_allclose(tf.signal.kaiser_window(6).numpy(), [
        5.2773448260268196e-05, 0.10171972215175629, 0.7929395437240601, 0.7929395437240601, 0.10171972215175629,
        5.2773448260268196e-05], **F32)
    np.testing.assert_allclose(tf.signal.kaiser_window(5, beta=3.0, dtype=tf.float64).numpy(), [
        0.20488475640125361, 0.7269255302876368, 1.0, 0.7269255302876368, 0.20488475640125361], **F64)
    assert tf.signal.kaiser_window(1).numpy().tolist() == [1.0]
    np.testing.assert_allclose(tf.signal.kaiser_bessel_derived_window(6).numpy(), [
        0.0071310256607830524, 0.7071067690849304, 0.9999745488166809, 0.9999745488166809, 0.7071067690849304,
        0.0071310256607830524], **F32)
    np.testing.assert_allclose(tf.signal.kaiser_bessel_derived_window(8, beta=4.0, dtype=tf.float64).numpy(), [
        0.19027811085318355, 0.5435095823690057, 0.8394029627497565, 0.9817302279802448, 0.9817302279802448,
        0.8394029627497565, 0.5435095823690057, 0.19027811085318355], **F64)


def test_mdct_and_inverse():
    x = tf.constant([[1.0, 2.0, -1.0, 0.5, 3.0, 0.0, 1.0, 2.0, -2.0, 1.0, 0.5, 0.25]])
    y = tf.signal.mdct(x, 4)
    assert y.shape == (1, 5, 2)
    np.testing.assert_allclose(y.numpy(), [[[0.2725313901901245, 3.8348026275634766],
                                            [-5.944372177124023, -0.9147582650184631],
                                            [-2.118171453475952, -2.3581812381744385],
                                            [1.8609588146209717, 4.492750644683838],
                                            [-2.0991058349609375, 2.225484848022461]]], rtol=2e-6, atol=5e-7)
    y = tf.signal.mdct(tf.constant([1.0, 2.0, -1.0, 0.5, 3.0, 0.0, 1.0, 2.0, -2.0, 1.0], tf.float64), 4,
                       norm="ortho", pad_end=True)
    np.testing.assert_allclose(y.numpy(), [
        [0.13626551242994395, 1.917401265820338], [-2.9721861316611777, -0.4573790874342077],
        [-1.0590861142841255, -1.179090610437612], [0.9304791212440677, 2.246375314012428],
        [-0.5471173087173031, 1.3208580269143808]], **F64)
    z = tf.signal.inverse_mdct(tf.constant([[[1.0, 2.0], [-1.0, 0.5], [3.0, 0.0]]]))
    np.testing.assert_allclose(z.numpy(), [[-0.16702914237976074, 0.7132411599159241, -0.9186670780181885,
                                            0.21860094368457794, 0.48750656843185425, -0.4753895401954651,
                                            -1.3493136167526245, -0.31598639488220215]], **F32)
    z = tf.signal.inverse_mdct(tf.constant([[1.0, 2.0], [-1.0, 0.5], [3.0, 0.0]], tf.float64), norm="ortho")
    np.testing.assert_allclose(z.numpy(), [-0.33405823027012044, 1.4264822845712182, -1.8373340808585772,
                                           0.4372015708539468, 0.9750130549158649, -0.950778985756338,
                                           -2.6986274773025256, -0.6319733017203089], **F64)
    with pytest.raises(ValueError, match="The frame length must be a multiple of 4."):
        tf.signal.mdct(tf.ones([12]), 5)


def test_mdct_round_trip_and_gradient():
    x = tf.constant(np.random.default_rng(0).normal(size=16), tf.float64)
    back = tf.signal.inverse_mdct(tf.signal.mdct(x, 8, norm="ortho"), norm="ortho")
    np.testing.assert_allclose(back.numpy()[4:-4], x.numpy()[4:-4], atol=1e-12)  # TDAC: the interior comes back
    with tf.GradientTape() as t:
        t.watch(x)
        loss = tf.reduce_sum(tf.square(tf.signal.mdct(x, 8)))
    assert t.gradient(loss, x).shape == (16,)


def test_rfft3d_and_irfft3d():
    x = tf.constant(np.arange(24, dtype=np.float64).reshape(2, 3, 4) ** 1.5)
    y = tf.signal.rfft3d(x)
    assert y.dtype == tf.complex128 and y.shape == (2, 3, 3)
    np.testing.assert_allclose(y.numpy().ravel()[:8], [
        1070.5240113105895, -55.44866920261264 + 59.03784775254108j, -57.06925098690746,
        -223.34612697816848 + 148.28624010836558j, 4.24114314489608 - 9.575469239907518j,
        6.96129658003075 - 3.10991810099675j, -223.34612697816848 - 148.28624010836558j,
        10.28029258393162 - 3.2061704082754985j], rtol=1e-12)
    np.testing.assert_allclose(tf.signal.rfft3d(x, fft_length=[2, 2, 6]).numpy().ravel()[:4], [
        553.6208645706545, -59.626421969088014 - 238.52193214964865j, 140.48875936796654 + 14.835707346635074j,
        -33.93022307849323], rtol=1e-12)
    np.testing.assert_allclose(tf.signal.irfft3d(y[..., :2], fft_length=[2, 3, 3]).numpy().ravel()[:6], [
        1.1225750993201487, 1.5283524932559638, 6.3736519548767125, 13.00122020275068, 15.46045428156515,
        23.935863037334347], rtol=1e-12)
    np.testing.assert_allclose(tf.signal.irfft3d(y).numpy(), x.numpy(), atol=1e-9)
