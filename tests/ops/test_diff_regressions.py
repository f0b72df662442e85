"""Regressions found by tools/diff_ops.py (rivulet against TensorFlow 2.21); expected values recorded from TF."""
import numpy as np
import pytest

import rivulet as tf


def test_float64_windows_are_computed_in_float64():
    # TF 2.21: tf.signal.hann_window(5, dtype=tf.float64), hamming_window(6, periodic=False, dtype=tf.float64)
    np.testing.assert_array_equal(tf.signal.hann_window(5, dtype=tf.float64).numpy(),
                                  [0.0, 0.49999999999999994, 1.0, 0.5000000000000001, 0.0])
    np.testing.assert_allclose(tf.signal.hamming_window(6, periodic=False, dtype=tf.float64).numpy(),
                               [0.08000000000000002, 0.3978521825875242, 0.9121478174124757, 0.912147817412476,
                                0.3978521825875243, 0.08000000000000002], rtol=1e-15)
    s = tf.signal.stft(tf.constant([0.5, -1.25, 2.0, 0.75, -0.3, 1.5, -2.0, 0.1, 3.0, -0.6, 1.1, 0.9], tf.float64),
                       8, 4)
    np.testing.assert_allclose(s.numpy()[0, :2], [1.4520815280171306 + 0j, -1.1770815280171305 - 1.407537879754125j],
                               rtol=1e-14)


def test_empty_unsorted_segment_max_min_are_the_lowest_and_highest_finite_values():
    # TF 2.21 values
    np.testing.assert_array_equal(tf.math.unsorted_segment_max(tf.constant([1.0, 2.0]), [0, 0], 2).numpy(),
                                  np.float32([2.0, -3.4028235e+38]))
    out = tf.math.unsorted_segment_min(tf.constant([1.0, 2.0], tf.float16), [0, 0], 2)
    assert out.dtype == tf.float16 and out.numpy().tolist() == [1.0, 65504.0]
    assert tf.math.unsorted_segment_max(tf.constant([1, 2]), [0, 0], 2).numpy().tolist() == [2, -2147483648]
    # a ragged row with no values reduces to the same (TF: np.float32([1.0, 3.4028235e+38]))
    np.testing.assert_array_equal(tf.math.reduce_min(tf.ragged.constant([[1.0, 2.0], []]), axis=1).numpy(),
                                  np.float32([1.0, 3.4028235e+38]))
    # a sorted segment with no rows stays 0
    assert tf.math.segment_max(tf.constant([1.0, 2.0]), [0, 2]).numpy().tolist() == [1.0, 0.0, 2.0]


@pytest.mark.parametrize("in_shape,shape,expected", [
    ((0, 3), [-1, 0], (3, 0)), ((0, 3), [0, -1], (0, 3)), ((0, 3), [-1, 0, 2], (1, 0, 2)),
    ((0, 3), [2, -1, 0], (2, 1, 0)), ((0, 3), [-1, 5], (0, 5)), ((2, 0, 3), [-1, 0], (6, 0)),
    ((2, 0, 3), [3, -1], (3, 0)), ((2, 0, 3), [-1, 0, 7], (0, 0, 7))])
def test_reshape_of_empty_tensors_infers_minus_one_as_tensorflow(in_shape, shape, expected):
    # TF 2.21 gives these shapes eagerly and in tf.function (rivulet raised "requires a multiple of 0")
    x = tf.zeros(in_shape)
    assert tuple(tf.reshape(x, shape).shape) == expected
    assert tuple(tf.function(lambda t: tf.reshape(t, shape))(x).shape) == expected


def test_reshape_to_a_shape_with_zero_of_a_nonempty_tensor_still_fails():
    with pytest.raises(tf.errors.InvalidArgumentError, match="6 values, but the requested shape has 0"):
        tf.reshape(tf.zeros([2, 3]), [-1, 0])


def test_zeros_like_of_strings_is_empty_strings_and_ones_like_refuses_them():
    out = tf.zeros_like(tf.constant([["a"], ["bc"]]))
    assert out.dtype == tf.string and out.numpy().tolist() == [[b""], [b""]]
    assert tf.function(tf.zeros_like)(tf.constant(["a"])).numpy().tolist() == [b""]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'T' of string"):
        tf.ones_like(tf.constant(["a"]))


def test_fft_of_empty_tensors_is_empty():
    # TF 2.21: tf.signal.fft(tf.zeros([2, 0], tf.complex64)).shape == (2, 0); ifft2d of (0, 3) likewise
    for fn, shape in ((tf.signal.fft, (2, 0)), (tf.signal.ifft, (0, 4)), (tf.signal.ifft2d, (0, 3))):
        x = tf.zeros(shape, tf.complex64)
        assert fn(x).shape == shape and fn(x).dtype == tf.complex64
        assert tf.function(fn)(x).shape == shape


def test_float64_gelu_uses_tensorflows_float32_rounded_constants():
    # TF 2.21 tf.nn.gelu on float64 [0.5, -2.0] (its 1/sqrt(2) and 0.044715 go through float32), value and gradient
    x = tf.constant([0.5, -2.0], tf.float64)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        exact, approx = tf.nn.gelu(x), tf.nn.gelu(x, approximate=True)
    np.testing.assert_allclose(exact.numpy(), [0.3457312291306712, -0.04550026759242268], rtol=1e-14)
    np.testing.assert_allclose(tape.gradient(exact, x).numpy(), [0.8674951193839892, -0.08523180477426104],
                               rtol=1e-13)
    np.testing.assert_allclose(approx.numpy(), [0.3457140097922433, -0.04540230678804602], rtol=1e-13)
    np.testing.assert_allclose(tape.gradient(approx, x).numpy(), [0.8673699032922123, -0.08609925692200973],
                               rtol=1e-13)


def test_integer_euclidean_norm_squares_and_sums_in_the_input_dtype():
    # TF 2.21: int8 [[0, 1, 7], [100, 127, -128]] -> 8; uint8 [250, 250] -> 8; int32 [[3, 4], [1, 1]], axis=1 -> [5, 1]
    out = tf.math.reduce_euclidean_norm(tf.constant([[0, 1, 7], [100, 127, -128]], tf.int8))
    assert out.dtype == tf.int8 and int(out) == 8
    assert int(tf.math.reduce_euclidean_norm(tf.constant([250, 250], tf.uint8))) == 8
    assert tf.math.reduce_euclidean_norm(tf.constant([[3, 4], [1, 1]]), axis=1).numpy().tolist() == [5, 1]


def test_pow_refuses_unsigned_integers_as_tensorflow():
    # TF 2.21: "Value for attr 'T' of uint8 is not in the list of allowed values" (eager), TypeError in graphs
    x = tf.constant([2, 3], tf.uint8)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'T' of uint8"):
        tf.pow(x, x)
    with pytest.raises(TypeError, match="Value for attr 'T' of uint8"):
        tf.function(lambda a: a ** a)(x)
    assert tf.pow(tf.constant([2, 3], tf.int8), 2).numpy().tolist() == [4, 9]


def test_frame_and_stft_of_a_signal_of_unknown_length_in_a_graph():
    # TF 2.21, tf.function(input_signature=[tf.TensorSpec([None], tf.float32)]) (rivulet raised "needs the framed
    # axis to have a known size")
    spec = [tf.TensorSpec([None], tf.float32)]
    x = tf.range(10, dtype=tf.float32)
    frame = tf.function(lambda s: tf.signal.frame(s, 4, 3), input_signature=spec)
    assert frame(x).numpy().tolist() == [[0.0, 1.0, 2.0, 3.0], [3.0, 4.0, 5.0, 6.0], [6.0, 7.0, 8.0, 9.0]]
    assert frame(x[:3]).shape == (0, 4)
    padded = tf.function(lambda s: tf.signal.frame(s, 4, 3, pad_end=True, pad_value=-1), input_signature=spec)
    assert padded(x).numpy().tolist() == [[0.0, 1.0, 2.0, 3.0], [3.0, 4.0, 5.0, 6.0], [6.0, 7.0, 8.0, 9.0],
                                          [9.0, -1.0, -1.0, -1.0]]
    assert padded(x[:2]).numpy().tolist() == [[0.0, 1.0, -1.0, -1.0]]
    stft = tf.function(lambda s: tf.signal.stft(s, 8, 4), input_signature=spec)
    out = stft(tf.sin(tf.range(20, dtype=tf.float32)))
    assert out.shape == (4, 5)
    np.testing.assert_allclose(out.numpy()[0, :2], [-0.9205 + 0j, 1.4056 - 1.2774j], atol=1e-4)


def test_math_log_sigmoid_and_softsign():
    # TF 2.21: tf.math.log_sigmoid([100., 0.5]) and its gradient; tf.math.softsign([-100., 0.5])
    x = tf.constant([100.0, 0.5])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.math.log_sigmoid(x)
    np.testing.assert_allclose(y.numpy(), [0.0, -0.4740769863128662], atol=1e-30, rtol=1e-7)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [0.0, 0.3775406777858734], atol=1e-40, rtol=1e-7)
    np.testing.assert_allclose(tf.math.softsign(tf.constant([-100.0, 0.5])).numpy(), [-0.9900990128517151,
                                                                                       0.3333333432674408])


def test_elu_and_selu_subtract_one_from_exp_as_tensorflow():
    # TF 2.21 values (its kernels compute exp(x) - 1, so tiny negative inputs round as TF's do)
    f32 = tf.constant([-1.5e-6, -0.25, 2.0], tf.float32)
    assert tf.nn.elu(f32).numpy().tolist() == [-1.4901161193847656e-06, -0.22119921445846558, 2.0]
    assert tf.nn.selu(f32).numpy().tolist() == [-2.6197722036158666e-06, -0.38889017701148987, 2.1014020442962646]
    f64 = tf.constant([-1.5e-6, -0.25, 2.0], tf.float64)
    assert tf.nn.selu(f64).numpy().tolist() == [-2.637147033406901e-06, -0.388890197478119, 2.101401974710961]
    assert tf.nn.elu(tf.constant([-1.5e-6], tf.float64)).numpy().tolist() == [-1.4999988749986315e-06]


def test_reduction_error_classes_in_graphs_follow_tensorflow():
    # TF 2.21 in tf.function: duplicate axes fail in the kernel (InvalidArgumentError, was ValueError here); a dtype
    # the reduction refuses is a TypeError before the axis is looked at (was ValueError for the axis)
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="duplicate dimension"):
        tf.function(lambda t: tf.reduce_sum(t, axis=[0, 0]))(x)
    with pytest.raises(tf.errors.InvalidArgumentError, match="duplicate dimension"):
        tf.reduce_sum(x, axis=[1, -1])
    with pytest.raises(TypeError):
        tf.function(lambda t: tf.reduce_sum(t, axis=2))(tf.constant([[True]]))
    with pytest.raises(ValueError, match="Invalid reduction dimension"):
        tf.function(lambda t: tf.reduce_sum(t, axis=2))(x)


def test_cumsum_axis_out_of_range_in_a_graph_is_invalid_argument():
    # TF 2.21 builds the graph and its Cumsum kernel raises InvalidArgumentError (was ValueError here)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"ScanOp: Expected scan axis in the range \[-2, 2\)"):
        tf.function(lambda t: tf.cumsum(t, axis=2))(tf.constant([[1.0, 2.0]]))


def test_einsum_gradient_for_an_operand_without_the_ellipsis():
    # TF 2.21: d/db of einsum("ab...,b->a...", a, b) ** 2 (rivulet raised numpy's "no '...' ellipsis provided")
    a = tf.reshape(tf.range(12, dtype=tf.float32), [2, 3, 2]) / 10
    b = tf.constant([1.0, -2.0, 0.5])
    with tf.GradientTape() as tape:
        tape.watch([a, b])
        y = tf.einsum("ab...,b->a...", a, b) ** 2
    ga, gb = tape.gradient(y, [a, b])
    np.testing.assert_allclose(gb.numpy(), [-1.4199998378753662, -2.0199997425079346, -2.619999885559082], rtol=1e-6)
    np.testing.assert_allclose(ga.numpy()[1, 0], [-1.0, -1.0999997854232788], rtol=1e-6)


def test_float_floormod_zero_keeps_the_dividends_sign():
    # TF 2.21: floormod(-0., 3.) is -0., floormod(0., -2.5) is 0. (NumPy's mod gives the divisor's sign)
    x, y = tf.constant([-0.0, 0.0, 5.0, -1.0]), tf.constant([3.0, -2.5, -3.0, 0.3])
    out = tf.math.floormod(x, y).numpy()
    assert np.signbit(out).tolist() == [True, False, True, False]
    assert out.tolist() == [-0.0, 0.0, -1.0, 0.20000004768371582]
    assert np.signbit(tf.function(lambda a, b: a % b)(x, y).numpy()[:2]).tolist() == [True, False]


def test_real_and_conj_refuse_bool_and_string_as_tensorflow():
    # TF 2.21's messages; rivulet returned the input
    with pytest.raises(TypeError, match="input must be a numeric tensor, but got tensor with dtype <dtype: 'bool'>"):
        tf.math.real(tf.constant([True]))
    with pytest.raises(TypeError, match=r"Expected numeric or variant tensor, got dtype tf.string\."):
        tf.math.conj(tf.constant(["a"]))
    assert tf.math.conj(tf.constant([1], tf.uint8)).numpy().tolist() == [1]


def test_ops_the_checker_found_missing_strip_xlog1py_angle_fftshift_normalize():
    # values recorded from TF 2.21
    x = tf.constant([" a b ", "\t\nx\r\x0b\x0c", "", "h\u00e9llo\u00a0 "])
    assert tf.strings.strip(x).numpy().tolist() == [b"a b", b"x", b"", b"h\xc3\xa9llo\xc2\xa0"]
    assert tf.strings.strip(tf.ragged.constant([[" a"], [], ["b ", " c "]])).to_list() == [[b"a"], [], [b"b", b"c"]]
    a, b = tf.constant([0.0, 0.0, 2.0, -1.0]), tf.constant([-1.0, 0.0, -0.5, 3.0])
    with tf.GradientTape() as tape:
        tape.watch([a, b])
        z = tf.math.xlog1py(a, b)
    np.testing.assert_allclose(z.numpy(), [0.0, 0.0, -1.3862943649291992, -1.3862943649291992], rtol=1e-6)
    ga, gb = tape.gradient(z, [a, b])
    np.testing.assert_allclose(ga.numpy(), [0.0, 0.0, -0.6931471824645996, 1.3862943649291992], rtol=1e-6)
    np.testing.assert_allclose(gb.numpy(), [0.0, 0.0, 4.0, -0.25], rtol=1e-6)
    np.testing.assert_allclose(tf.math.angle(tf.constant([1 + 1j, -1 + 0j], tf.complex64)).numpy(),
                               [0.7853981852531433, 3.1415927410125732], rtol=1e-6)
    assert tf.math.angle(tf.constant([1.0, -1.0, -0.0])).numpy().tolist() == [0.0, 3.1415927410125732, 0.0]
    m = tf.reshape(tf.range(10), [2, 5])
    assert tf.signal.fftshift(m).numpy().tolist() == [[8, 9, 5, 6, 7], [3, 4, 0, 1, 2]]
    assert tf.signal.ifftshift(m, axes=[0]).numpy().tolist() == [[5, 6, 7, 8, 9], [0, 1, 2, 3, 4]]
    n, norm = tf.linalg.normalize(tf.constant([[3.0, 4.0], [1.0, 0.0]]), ord=1, axis=0)
    assert n.numpy().tolist() == [[0.75, 1.0], [0.25, 0.0]] and norm.numpy().tolist() == [[4.0, 4.0]]
    n, norm = tf.linalg.normalize(tf.constant([[3.0, 4.0], [1.0, 0.0]]))
    assert norm.shape == (1, 1)
    np.testing.assert_allclose(norm.numpy(), [[5.099019527435303]], rtol=1e-7)


def test_string_ngrams_in_graphs_and_dataset_maps():
    # TF 2.21 values; rivulet's ngrams read .numpy() and failed in tf.function
    x = tf.constant(["a", "b", "c", "d"])
    f = tf.function(lambda s: tf.strings.ngrams(s, 2), input_signature=[tf.TensorSpec([None], tf.string)])
    assert f(x).numpy().tolist() == [b"a b", b"b c", b"c d"]
    assert tf.strings.ngrams(x, 2, pad_values="#", padding_width=1).numpy().tolist() == [
        b"# a", b"a b", b"b c", b"c d", b"d #"]
    r = tf.ragged.constant([["a", "b", "c"], [], ["d", "e"]])
    assert tf.function(lambda: tf.strings.ngrams(r, 2))().to_list() == [[b"a b", b"b c"], [], [b"d e"]]
    ds = tf.data.Dataset.from_tensor_slices(tf.constant([["a", "b", "c"], ["x", "y", "z"]]))
    assert [v.numpy().tolist() for v in ds.map(lambda s: tf.strings.ngrams(s, 2))] == [[b"a b", b"b c"],
                                                                                       [b"x y", b"y z"]]


def test_real_ffts_of_unknown_inner_size_in_graphs():
    # TF 2.21: rfft/irfft without fft_length traced with [None, None] (rivulet raised "need fft_length or a
    # statically known inner shape"); values and the gradient equal TF's
    x = tf.constant(np.sin(np.arange(12.0)).reshape(2, 6), tf.float32)
    spec = [tf.TensorSpec([None, None], tf.float32)]
    y = tf.function(tf.signal.rfft, input_signature=spec)(x)
    assert y.shape == (2, 4)
    np.testing.assert_allclose(y.numpy()[0, :2], [0.1762 + 0j, -0.2761 - 3.0021j], atol=1e-4)
    back = tf.function(tf.signal.irfft, input_signature=[tf.TensorSpec([None, None], tf.complex64)])(y)
    np.testing.assert_allclose(back.numpy(), x.numpy(), atol=1e-5)

    def grad(s):
        with tf.GradientTape() as tape:
            tape.watch(s)
            z = tf.abs(tf.signal.rfft(s)) ** 2
        return tape.gradient(z, s)
    g = tf.function(grad, input_signature=spec)(x)
    np.testing.assert_allclose(g.numpy(), grad(x).numpy(), rtol=1e-5, atol=1e-5)


def test_fft_input_errors_follow_tensorflow():
    # TF 2.21: complex FFTs refuse real input with InvalidArgumentError eagerly; rfft/irfft's wrapper raises
    # ValueError naming the op; a scalar is InvalidArgumentError eagerly
    with pytest.raises(tf.errors.InvalidArgumentError, match="Tcomplex"):
        tf.signal.fft(tf.constant([1.0]))
    with pytest.raises(ValueError, match=r"IRFFT requires tf.complex64 or tf.complex128 inputs, got: tf.Tensor\("):
        tf.signal.irfft(tf.constant([1.0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Input must have rank of at least 1 but got: \[\]"):
        tf.signal.fft(tf.constant(1j))


def test_unsorted_segment_sqrt_n():
    # TF 2.21 values and gradient
    d = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
    with tf.GradientTape() as tape:
        tape.watch(d)
        y = tf.math.unsorted_segment_sqrt_n(d, tf.constant([2, 0, 2, -1]), 3)
    np.testing.assert_allclose(y.numpy(), [[3.0, 4.0], [0.0, 0.0], [4.242640972137451, 5.656854152679443]],
                               rtol=1e-7)
    np.testing.assert_allclose(tape.gradient(y, d).numpy(), [[0.7071067690849304] * 2, [1.0, 1.0],
                                                             [0.7071067690849304] * 2, [0.0, 0.0]], rtol=1e-7)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'T' of int32"):
        tf.math.unsorted_segment_sqrt_n(tf.constant([1, 2]), [0, 0], 2)


def test_linalg_cross():
    # TF 2.21 values, gradients and errors
    a = tf.constant([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
    b = tf.constant([[-1.0, 0.5, 2.0], [3.0, 1.0, -2.0]])
    with tf.GradientTape() as tape:
        tape.watch([a, b])
        y = tf.linalg.cross(a, b) * tf.constant([1.0, 2.0, 3.0])
    assert y.numpy().tolist() == [[2.5, -10.0, 7.5], [0.0, 14.0, 10.5]]
    ga, gb = tape.gradient(y, [a, b])
    assert ga.numpy().tolist() == [[-2.5, 5.0, -2.5], [7.0, -11.0, 5.0]]
    assert gb.numpy().tolist() == [[0.0, 0.0, 0.0], [7.0, -0.5, -2.0]]
    assert tf.linalg.cross(tf.constant([1, 2, 3]), tf.constant([4, 5, 6])).numpy().tolist() == [-3, 6, -3]
    with pytest.raises(tf.errors.FailedPreconditionError, match="only defined for 3-element vectors"):
        tf.linalg.cross(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0]))
    with pytest.raises(ValueError, match="Dimension must be 3 but is 2"):
        tf.function(tf.linalg.cross)(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0]))


@pytest.mark.parametrize("alpha", [0.2, 0.0, 1.0, 1.5, -0.5])
def test_leaky_relu_and_gradient_special_values(alpha):
    # values and signs recorded from TensorFlow 2.21 (denormal inputs left out: TensorFlow flushes them to zero)
    want = {0.2: ([np.nan, 0.0, -0.0, np.inf, -np.inf, 2.0, -0.6000000238418579],
                  [0.20000000298023224, -0.20000000298023224, -0.4000000059604645, 3.0, 0.20000000298023224, -1.0,
                   0.4000000059604645]),
            0.0: ([np.nan, 0.0, -0.0, np.inf, np.nan, 2.0, -0.0], [0.0, -0.0, -0.0, 3.0, 0.0, -1.0, 0.0]),
            1.0: ([np.nan, 0.0, -0.0, np.inf, -np.inf, 2.0, -3.0], [1.0, -1.0, -2.0, 3.0, 1.0, -1.0, 2.0]),
            1.5: ([np.nan, 0.0, -0.0, np.inf, -np.inf, 2.0, -4.5], [1.5, -1.5, -3.0, 3.0, 1.5, -1.0, 3.0]),
            -0.5: ([np.nan, -0.0, 0.0, np.inf, np.inf, 2.0, 1.5], [-0.5, 0.5, 1.0, 3.0, -0.5, -1.0, -1.0])}[alpha]
    x = tf.constant(np.array([np.nan, 0.0, -0.0, np.inf, -np.inf, 2.0, -3.0], np.float32))
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.nn.leaky_relu(x, alpha=alpha)
    g = t.gradient(y, x, output_gradients=tf.constant([1.0, -1.0, -2.0, 3.0, 1.0, -1.0, 2.0]))
    for got, exp in zip((y, g), want):
        exp = np.array(exp, np.float32)
        np.testing.assert_array_equal(got.numpy(), exp)
        num = ~np.isnan(exp)  # (a NaN's sign bit is not compared)
        assert np.signbit(got.numpy()[num]).tolist() == np.signbit(exp[num]).tolist()


def test_leaky_relu_alpha_is_a_float32_attr():
    # TensorFlow 2.21: float64 features take float64(float32(alpha)), float16 float16(float32(alpha))
    x = tf.constant([-1.0, 2.0, -3.5], tf.float64)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.nn.leaky_relu(x, alpha=0.3)
    assert y.numpy().tolist() == [-0.30000001192092896, 2.0, -1.0500000417232513]
    assert t.gradient(y, x).numpy().tolist() == [0.30000001192092896, 1.0, 0.30000001192092896]
    assert tf.nn.leaky_relu(tf.constant([-1.0], tf.float64)).numpy().tolist() == [-0.20000000298023224]
    assert tf.nn.leaky_relu(tf.constant([-1.0], tf.float16), alpha=0.3).numpy().tolist() == [-0.300048828125]
