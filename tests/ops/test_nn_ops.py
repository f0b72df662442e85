"""tf.nn ops against NumPy references, TensorFlow's errors, graph shape inference and finite differences."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.core.op import get_op
from rivulet.core.tensor import EagerTensor
from rivulet.errors import InvalidArgumentError
from rivulet.graph.graph import Graph
from rivulet.ops import nn_ops

RNG = np.random.default_rng(0)


# ---------------------------------------------------------------- finite-difference gradient check
class _Rec:
    def __init__(self, op, inputs, attrs):
        self.inputs = [EagerTensor(np.asarray(v)) for v in inputs]
        outs = op.kernel(*inputs, **attrs)
        outs = outs if isinstance(outs, tuple) else (outs,)
        self.outputs = [EagerTensor(np.asarray(o)) for o in outs]
        self.attrs = attrs


def check_grad(op, inputs, attrs=None, out_index=0, wrt=None, eps=1e-6, tol=1e-5):
    attrs = attrs or {}
    inputs = [np.asarray(v) for v in inputs]
    rec = _Rec(op, inputs, attrs)
    dy = RNG.standard_normal(rec.outputs[out_index].shape)
    dys = [None] * len(rec.outputs)
    dys[out_index] = EagerTensor(dy)
    grads = op.grad(rec, *dys)

    def f(vals):
        out = op.kernel(*vals, **attrs)
        out = out[out_index] if isinstance(out, tuple) else out
        return float(np.sum(np.asarray(out) * dy))

    for i in (wrt if wrt is not None else range(len(inputs))):
        x = inputs[i]
        num = np.zeros(x.shape)
        for idx in np.ndindex(*x.shape):
            vals = [v.copy() for v in inputs]
            vals[i][idx] += eps
            up = f(vals)
            vals[i][idx] -= 2 * eps
            num[idx] = (up - f(vals)) / (2 * eps)
        got = grads[i]
        got = np.zeros(x.shape) if got is None else np.asarray(got.numpy())
        np.testing.assert_allclose(got, num, rtol=tol, atol=tol, err_msg=f"input {i} of {op.name}")


def _x(*shape):
    return RNG.standard_normal(shape)


# ---------------------------------------------------------------- activations
def _sig(x):
    return 1 / (1 + np.exp(-x))


def _erf(x):
    import math
    return np.vectorize(math.erf)(x)


ACTS = [
    ("relu", {}, lambda x: np.maximum(x, 0)),
    ("relu6", {}, lambda x: np.clip(x, 0, 6)),
    ("leaky_relu", {"alpha": 0.3}, lambda x: np.where(x > 0, x, float(np.float32(0.3)) * x)),  # a float32 attr, as TF
    ("elu", {}, lambda x: np.where(x > 0, x, np.exp(x) - 1)),
    ("selu", {}, lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * (np.exp(x) - 1))),
    ("softplus", {}, lambda x: np.log1p(np.exp(x))),
    ("softsign", {}, lambda x: x / (1 + np.abs(x))),
    # TensorFlow's gelu takes 1/sqrt(2) and 0.044715 through float32 (float64 results follow that).
    ("gelu", {}, lambda x: 0.5 * x * (1 + _erf(x * float(np.float32(1 / np.sqrt(2)))))),
    ("gelu", {"approximate": True},
     lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + float(np.float32(0.044715)) * x ** 3)))),
    ("silu", {}, lambda x: x * _sig(x)),
    ("swish", {"beta": 2.0}, lambda x: x * _sig(2 * x)),
]


@pytest.mark.parametrize("name,kw,ref", ACTS, ids=[a[0] + str(a[1]) for a in ACTS])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_activation_values(name, kw, ref, dtype):
    x = (RNG.standard_normal((3, 5)) * 4).astype(dtype)
    y = getattr(tf.nn, name)(x, **kw)
    assert y.dtype == tf.as_dtype(dtype) and y.shape == (3, 5)
    np.testing.assert_allclose(y.numpy(), ref(x.astype(np.float64)), rtol=2e-6 if dtype == np.float32 else 1e-12,
                               atol=1e-6 if dtype == np.float32 else 1e-12)


GRAD_ACTS = [(nn_ops.RELU, {}), (nn_ops.RELU6, {}), (nn_ops.LEAKY_RELU, {"alpha": 0.3}), (nn_ops.ELU, {}),
             (nn_ops.SELU, {}), (nn_ops.SOFTPLUS, {}), (nn_ops.SOFTSIGN, {}), (nn_ops.GELU, {}),
             (nn_ops.GELU, {"approximate": True}), (nn_ops.SILU, {}), (nn_ops.SILU, {"beta": 1.7})]


@pytest.mark.parametrize("op,attrs", GRAD_ACTS, ids=[o.name + str(a) for o, a in GRAD_ACTS])
def test_activation_grads(op, attrs):
    x = _x(4, 3) * 3
    x[np.abs(x) < 1e-3] = 0.5
    x[np.abs(x - 6) < 1e-3] = 5.5
    check_grad(op, [x], attrs)
    # second order: the ...Grad op differentiated in both its inputs
    check_grad(get_op(op.name + "Grad"), [_x(4, 3), x], attrs)


def test_relu_int_and_dtype_errors():
    assert tf.nn.relu(tf.constant([1, -2])).numpy().tolist() == [1, 0]
    assert tf.nn.relu6(tf.constant([1, -2, 8])).numpy().tolist() == [1, 0, 6]
    assert tf.nn.leaky_relu(tf.constant([1, -2])).dtype == tf.float32
    with pytest.raises(InvalidArgumentError, match="Value for attr 'T' of bool"):
        tf.nn.relu(tf.constant([True]))
    with pytest.raises(InvalidArgumentError, match="Value for attr 'T' of int32"):
        tf.nn.elu(tf.constant([1, 2]))
    with pytest.raises(ValueError, match=r"must be a floating point tensor.Received:features.dtype=<dtype: .int32.>"):
        tf.nn.gelu(tf.constant([1, 2]))


def test_sigmoid_is_the_math_op_when_it_exists():
    from rivulet.ops import math_ops
    if hasattr(math_ops, "sigmoid"):  # one function, as in TensorFlow (tf.nn.sigmoid is tf.math.sigmoid)
        assert tf.nn.sigmoid is tf.math.sigmoid and tf.nn.tanh is tf.math.tanh
        assert tf.nn.sigmoid.__wrapped__ is math_ops.sigmoid
        r = tf.ragged.constant([[0.0], [0.0, 0.0]])
        assert tf.nn.sigmoid(r).to_list() == [[0.5], [0.5, 0.5]]
    else:
        with pytest.raises(AttributeError):
            tf.nn.sigmoid


# ---------------------------------------------------------------- bias_add
def test_bias_add():
    x, b = _x(2, 3, 4).astype(np.float32), _x(4).astype(np.float32)
    np.testing.assert_allclose(tf.nn.bias_add(x, b).numpy(), x + b)
    y = tf.nn.bias_add(x, _x(3).astype(np.float32), data_format="NCHW")
    assert y.shape == (2, 3, 4)
    with pytest.raises(InvalidArgumentError, match=r"Must provide as many biases as the last dimension of the "
                                                   r"input tensor: \[3\] vs. \[1,2\]"):
        tf.nn.bias_add([[1, 2]], [1, 2, 3])
    with pytest.raises(InvalidArgumentError, match=r"Biases must be 1D: \[1,2\]"):
        tf.nn.bias_add([[1, 2]], [[1, 2]])
    with pytest.raises(InvalidArgumentError, match=r"Input tensor must be at least 2D: \[2\]"):
        tf.nn.bias_add([1, 2], [1, 2])
    check_grad(nn_ops.BIAS_ADD, [_x(2, 3, 4), _x(4)])
    check_grad(nn_ops.BIAS_ADD, [_x(2, 3, 4), _x(3)], {"data_format": "NCHW"})


@pytest.mark.parametrize("shape,wide", [((16, 26, 26, 32), True), ((512, 11, 11, 8), True), ((32, 30, 30, 30), True),
                                        ((64, 11, 11, 64), False), ((128, 10), False), ((999, 331, 3), False)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bias_grad_of_a_tall_thin_gradient_adds_wide_rows(monkeypatch, shape, wide, dtype):
    """BiasAddGrad of a convolution's gradient with few channels sums rows of about 1024 values (the GEMV
    with a ones vector stays for wider or smaller ones); the sums are the exact ones within float32 rounding."""
    from rivulet.ops import math_ops
    dy = np.random.default_rng(3).standard_normal(shape).astype(dtype)
    gemv = []
    real = math_ops.column_sums
    monkeypatch.setattr(math_ops, "column_sums", lambda g: gemv.append(g.shape) or real(g))
    got = nn_ops._bias_grad_kernel(dy)
    assert got.dtype == dtype and got.shape == shape[-1:] and (not gemv) == wide
    ref = dy.reshape(-1, shape[-1]).astype(np.float64).sum(axis=0)
    bound = 1e-6 * np.abs(dy.reshape(-1, shape[-1])).sum(axis=0, dtype=np.float64)  # float32's rounding, at most
    assert (np.abs(got - ref) <= bound).all()


# ---------------------------------------------------------------- softmax family
def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_softmax_and_log_softmax(axis):
    x = _x(3, 4, 5).astype(np.float32)
    np.testing.assert_allclose(tf.nn.softmax(x, axis=axis).numpy(), _softmax(x, axis), rtol=1e-5)
    np.testing.assert_allclose(tf.nn.log_softmax(x, axis=axis).numpy(), np.log(_softmax(x, axis)), rtol=1e-5,
                               atol=1e-6)
    attrs = {} if axis == -1 else {"axis": axis}
    check_grad(nn_ops.SOFTMAX, [_x(3, 4, 5)], attrs)
    check_grad(nn_ops.LOG_SOFTMAX, [_x(3, 4, 5)], attrs)


def test_softmax_errors_and_half():
    with pytest.raises(InvalidArgumentError, match=r"`dim` must be in the range \[-1, 1\)"):
        tf.nn.softmax([1., 2.], axis=3)
    with pytest.raises(InvalidArgumentError, match="Value for attr 'T' of int32"):
        tf.nn.softmax([1, 2])
    y = tf.nn.softmax(tf.constant([1., 2., 3.], tf.float16))
    assert y.dtype == tf.float16
    np.testing.assert_allclose(y.numpy(), _softmax(np.array([1., 2., 3.])), rtol=1e-3)


def test_softmax_xent():
    logits, labels = _x(4, 5), _softmax(_x(4, 5))
    got = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    np.testing.assert_allclose(got.numpy(), -(labels * np.log(_softmax(logits))).sum(-1), rtol=1e-12)
    got0 = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits, axis=0)
    np.testing.assert_allclose(got0.numpy(), -(labels * np.log(_softmax(logits, 0))).sum(0), rtol=1e-12)
    assert tf.nn.softmax_cross_entropy_with_logits([[0., 1.]], [[1., 2.]]).numpy() == pytest.approx([0.31326166])
    with pytest.raises(InvalidArgumentError, match=r"logits and labels must be broadcastable: logits_size=\[1,2\] "
                                                   r"labels_size=\[1,3\]"):
        tf.nn.softmax_cross_entropy_with_logits(labels=[[0., 1., 0]], logits=[[1., 2.]])
    with pytest.raises(InvalidArgumentError, match="Value for attr 'T' of int32"):
        tf.nn.softmax_cross_entropy_with_logits(labels=[0, 1], logits=[1, 2])
    for axis in (-1, 0):  # the fused backprop (softmax - labels) assumes labels summing to 1, as TensorFlow's
        attrs = {} if axis == -1 else {"axis": axis}
        check_grad(nn_ops.SOFTMAX_XENT, [_x(3, 4), _softmax(_x(3, 4), axis)], attrs)
        check_grad(nn_ops.SOFTMAX_XENT, [_x(3, 4), _softmax(_x(3, 4), axis)], attrs, out_index=1)


def test_sparse_softmax_xent():
    logits, labels = _x(2, 3, 5), RNG.integers(0, 5, (2, 3)).astype(np.int32)
    got = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    ref = -np.log(np.take_along_axis(_softmax(logits), labels[..., None], -1))[..., 0]
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-12)
    assert got.shape == (2, 3)
    assert tf.nn.sparse_softmax_cross_entropy_with_logits(labels=3, logits=[1., 2., 3., 4.]).shape == ()
    with pytest.raises(ValueError, match=r"`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: "
                                         r"labels.shape=\(1, 1\) of rank 2 and logits.shape=\(1, 2\) of rank 2"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[[1]], logits=[[1., 2.]])
    with pytest.raises(ValueError, match="must equal `logits.shape` except for the last dimension"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[1, 2], logits=np.ones((3, 3), np.float32))
    with pytest.raises(InvalidArgumentError, match=r"Received a label value of 5 which is outside the valid range "
                                                   r"of \[0, 3\).  Label values: 5 1"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[5, 1], logits=np.ones((2, 3), np.float32))
    with pytest.raises(InvalidArgumentError, match="label value of -1"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[-1, 1], logits=np.ones((2, 3), np.float32))
    with pytest.raises(InvalidArgumentError, match="Value for attr 'Tlabels' of float"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[1., 1.], logits=np.ones((2, 3), np.float32))
    check_grad(nn_ops.SPARSE_XENT, [_x(3, 4), np.array([0, 3, 1])], wrt=[0])
    check_grad(nn_ops.SPARSE_XENT, [_x(3, 4), np.array([0, 3, 1])], wrt=[0], out_index=1)


def test_sigmoid_xent():
    x, z = _x(3, 4) * 3, RNG.uniform(size=(3, 4))
    got = tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x)
    np.testing.assert_allclose(got.numpy(), -(z * np.log(_sig(x)) + (1 - z) * np.log(1 - _sig(x))), rtol=1e-10)
    big = tf.nn.sigmoid_cross_entropy_with_logits(labels=[0., 1.], logits=[1., -200.])
    np.testing.assert_allclose(big.numpy(), [1.3132617, 200.], rtol=1e-6)
    with pytest.raises(ValueError, match=r"`logits` and `labels` must have the same shape, received \(\(3,\) vs "
                                         r"\(2,\)\)."):
        tf.nn.sigmoid_cross_entropy_with_logits(labels=[0., 1.], logits=[1., 2., 3.])
    check_grad(nn_ops.SIGMOID_XENT, [x, z])
    check_grad(nn_ops.SIGMOID_XENT_GRAD, [_x(3, 4), x, z])


# ---------------------------------------------------------------- conv2d
def conv_ref(x, w, strides, padding, dilations=(1, 1)):
    """Direct loops over output positions."""
    n, h, wd, c = x.shape
    kh, kw, _, o = w.shape
    sh, sw = strides
    dh, dw = dilations
    ekh, ekw = (kh - 1) * dh + 1, (kw - 1) * dw + 1
    if padding == "SAME":
        oh, ow = -(-h // sh), -(-wd // sw)
        pt = max((oh - 1) * sh + ekh - h, 0) // 2
        pl = max((ow - 1) * sw + ekw - wd, 0) // 2
    elif padding == "VALID":
        oh, ow, pt, pl = (h - ekh) // sh + 1, (wd - ekw) // sw + 1, 0, 0
    else:
        (pt, pb), (pl, pr) = padding
        oh, ow = (h + pt + pb - ekh) // sh + 1, (wd + pl + pr - ekw) // sw + 1
    out = np.zeros((n, oh, ow, o))
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                for a in range(kh):
                    for q in range(kw):
                        r, s = i * sh + a * dh - pt, j * sw + q * dw - pl
                        if 0 <= r < h and 0 <= s < wd:
                            out[b, i, j] += x[b, r, s] @ w[a, q]
    return out


CONV_CASES = [((2, 7, 6, 3), (3, 3, 3, 4), (1, 1), "SAME", (1, 1)),
              ((2, 7, 6, 3), (3, 3, 3, 4), (1, 1), "VALID", (1, 1)),
              ((1, 8, 9, 2), (3, 2, 2, 3), (2, 2), "SAME", (1, 1)),
              ((1, 8, 9, 2), (3, 3, 2, 3), (2, 3), "VALID", (1, 1)),
              ((1, 9, 9, 2), (3, 3, 2, 2), (1, 1), "SAME", (2, 2)),
              ((1, 9, 9, 2), (2, 3, 2, 2), (2, 1), "VALID", (2, 1)),
              ((1, 5, 5, 2), (1, 1, 2, 3), (1, 1), "VALID", (1, 1)),
              ((1, 5, 6, 2), (3, 3, 2, 3), (1, 1), ((1, 1), (2, 0)), (1, 1))]


@pytest.mark.parametrize("xs,ws,strides,padding,dil", CONV_CASES)
def test_conv2d_matches_loops(xs, ws, strides, padding, dil):
    x, w = _x(*xs).astype(np.float32), _x(*ws).astype(np.float32)
    pad_arg = padding if isinstance(padding, str) else [[0, 0], list(padding[0]), list(padding[1]), [0, 0]]
    y = tf.nn.conv2d(x, w, list(strides), pad_arg, dilations=list(dil))
    ref = conv_ref(x.astype(np.float64), w.astype(np.float64), strides, padding, dil)
    assert y.dtype == tf.float32 and y.shape == ref.shape
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("xs,ws,strides,padding,dil", CONV_CASES)
def test_conv2d_grads(xs, ws, strides, padding, dil):
    attrs = {"strides": strides, "padding": padding if isinstance(padding, str) else "EXPLICIT",
             "dilations": dil}
    if not isinstance(padding, str):
        attrs["explicit"] = padding
    x, w = _x(*xs), _x(*ws)
    check_grad(nn_ops.CONV2D, [x, w], attrs, tol=1e-6)
    y = nn_ops._conv_kernel(x, w, **attrs)
    check_grad(nn_ops.CONV_BACKPROP_INPUT, [x, w, _x(*y.shape)], attrs, wrt=[1, 2], tol=1e-6)
    check_grad(nn_ops.CONV_BACKPROP_FILTER, [x, w, _x(*y.shape)], attrs, wrt=[0, 2], tol=1e-6)


def test_conv2d_large_blocks(monkeypatch):
    # Several im2col blocks (and the overlapped copy) give the same result as one.
    monkeypatch.setattr(nn_ops, "_BLOCK_BYTES", 2000)
    x, w = _x(3, 10, 11, 4).astype(np.float32), _x(3, 3, 4, 5).astype(np.float32)
    for s in (1, 2):
        y = tf.nn.conv2d(x, w, s, "SAME")
        np.testing.assert_allclose(y.numpy(), conv_ref(x.astype(np.float64), w.astype(np.float64), (s, s), "SAME"),
                                   rtol=1e-4, atol=1e-4)
        attrs = {"strides": (s, s), "padding": "SAME", "dilations": (1, 1)}
        dy = _x(*y.shape)
        big = nn_ops._conv_backprop_filter_kernel(x.astype(np.float64), w, dy, **attrs)
        monkeypatch.setattr(nn_ops, "_BLOCK_BYTES", 8 << 20)
        one = nn_ops._conv_backprop_filter_kernel(x.astype(np.float64), w, dy, **attrs)
        monkeypatch.setattr(nn_ops, "_BLOCK_BYTES", 2000)
        np.testing.assert_allclose(big, one, rtol=1e-10)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_conv2d_tap_sums_match_im2col(monkeypatch, dtype):
    # Stride-1 float convolutions sum a BLAS GEMM per filter tap (no im2col copy) when NumPy's OpenBLAS is
    # reachable; the im2col path serves the rest. Both agree, in one block or many, with the fused epilogue.
    from rivulet.execute import openblas
    if openblas.api() is None or not openblas.api().has_gemm(dtype):
        pytest.skip("NumPy is not linked to OpenBLAS here")
    rs = np.random.default_rng(7)
    bias = rs.standard_normal(5).astype(dtype)
    monkeypatch.setattr(nn_ops, "_taps_pay", lambda *a: True)  # these small channel counts would take im2col

    def epilogue(block):
        np.add(block, bias, out=block)
        np.maximum(block, 0, out=block)

    for xs, ws, padding, dil in [((2, 9, 8, 3), (3, 3, 3, 5), "VALID", (1, 1)), ((1, 7, 11, 4), (2, 3, 4, 5), "SAME", (1, 1)),
                                 ((5, 4, 3, 2), (3, 2, 2, 5), "SAME", (1, 1)), ((4, 3, 5, 2), (3, 3, 2, 5), "VALID", (1, 2)),
                                 ((3, 6, 6, 2), (3, 2, 2, 5), "SAME", (2, 1)), ((1, 4, 5, 1), (1, 3, 1, 5), "VALID", (1, 2)),
                                 ((1, 5, 6, 2), (3, 3, 2, 5), "EXPLICIT", (1, 1))]:
        x, w = rs.standard_normal(xs).astype(dtype), rs.standard_normal(ws).astype(dtype)
        explicit = ((2, 0), (1, 3)) if padding == "EXPLICIT" else None
        for block_bytes in (1, 1 << 20):
            monkeypatch.setattr(nn_ops, "_TAP_BLOCK_BYTES", block_bytes)
            taps = nn_ops._conv_kernel(x, w, (1, 1), padding, dil, explicit, epilogue)
            with monkeypatch.context() as m:
                m.setattr(openblas, "api", lambda: None)
                cols = nn_ops._conv_kernel(x, w, (1, 1), padding, dil, explicit, epilogue)
            assert taps.dtype == dtype and taps.shape == cols.shape and taps.flags.c_contiguous
            np.testing.assert_allclose(taps, cols, rtol=1e-4 if dtype == np.float32 else 1e-12, atol=1e-5)
            # the stride-1 input gradient is a full correlation through the same kernel
            dy = rs.standard_normal(cols.shape).astype(dtype)
            dx = nn_ops._conv_backprop_input_kernel(x, w, dy, (1, 1), padding, dil, explicit)
            with monkeypatch.context() as m:
                m.setattr(openblas, "api", lambda: None)
                dx_cols = nn_ops._conv_backprop_input_kernel(x, w, dy, (1, 1), padding, dil, explicit)
            np.testing.assert_allclose(dx, dx_cols, rtol=1e-4 if dtype == np.float32 else 1e-12, atol=1e-4)


def test_conv2d_takes_tap_sums_where_they_pay():
    # Few input channels starve each tap's GEMM; many channels on small images waste the dropped rows and
    # columns: both keep im2col (bench/bench_conv.py has the measurements).
    pay = nn_ops._taps_pay
    assert not pay((64, 28, 28, 1), 1, 26, 26, (0, 0), (0, 0))
    assert pay((64, 28, 28, 16), 16, 28, 28, (1, 1), (1, 1))
    assert pay((1, 200, 200, 100), 100, 198, 198, (0, 0), (0, 0))
    assert not pay((16, 14, 14, 128), 128, 14, 14, (1, 1), (1, 1))
    assert pay((8, 56, 56, 128), 128, 56, 56, (1, 1), (1, 1))


def test_shifted_gemm_sum_checks_before_calling_blas():
    from rivulet.execute import openblas
    blas = openblas.api()
    if blas is None or not blas.has_gemm(np.float32):
        pytest.skip("NumPy is not linked to OpenBLAS here")
    a = np.arange(40, dtype=np.float32).reshape(10, 4)
    b = [np.ones((4, 3), np.float32), np.full((4, 3), 2.0, np.float32)]
    out = np.full((5, 3), np.nan, np.float32)
    blas.shifted_gemm_sum(a, [0, 5], b, out)
    np.testing.assert_allclose(out, a[0:5] @ b[0] + a[5:10] @ b[1])
    bad = [([0, 6], b, out, "leaves 10 rows"), ([-1, 0], b, out, "leaves 10 rows"),
           ([0, 1], [b[0], np.ones((3, 3), np.float32)], out, "do not agree"),
           ([0, 1], b, np.ones((5, 3)), "no BLAS GEMM"), ([0, 1], b, out[:, ::2], "do not agree"),
           ([0, 1], b, np.ones((6, 6), np.float32)[:5, ::2], "rows must be contiguous")]
    for offsets, bs, o, msg in bad:
        with pytest.raises(ValueError, match=msg):
            blas.shifted_gemm_sum(a, offsets, bs, o)
    ro = np.ones((5, 3), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        blas.shifted_gemm_sum(a, [0, 1], b, ro)


def test_conv2d_int32_and_errors():
    x, w = np.ones([1, 5, 5, 2], np.int32), np.ones([3, 3, 2, 4], np.int32)
    y = tf.nn.conv2d(x, w, 1, "SAME")
    assert y.dtype == tf.int32 and y.numpy()[0, :, :, 0].tolist()[0] == [8, 12, 12, 12, 8]
    x = np.ones([1, 5, 5, 2], np.float32)
    with pytest.raises(InvalidArgumentError, match='Value for attr \'padding\' of "valid" is not in the list'):
        tf.nn.conv2d(x, np.ones([3, 3, 2, 4], np.float32), 1, "valid")
    with pytest.raises(InvalidArgumentError, match="input depth must be evenly divisible by filter depth: 2 vs 3"):
        tf.nn.conv2d(x, np.ones([3, 3, 3, 4], np.float32), 1, "SAME")
    with pytest.raises(InvalidArgumentError, match=r"Computed output size would be negative: -1 \[input_size: 5, "
                                                   r"effective_filter_size: 7, stride: 1\]"):
        tf.nn.conv2d(x, np.ones([7, 3, 2, 4], np.float32), 1, "VALID")
    assert tf.nn.conv2d(x, np.ones([3, 3, 2, 4]), 1, "SAME").dtype == tf.float32  # filter takes x's dtype


def test_conv2d_and_pool_shape_inference():
    g = Graph()
    with g.as_default():
        x = g.placeholder(tf.float32, [None, 8, 8, 3])
        w = g.placeholder(tf.float32, [3, 3, 3, 16])
        assert tf.nn.conv2d(x, w, 1, "SAME").shape.as_list() == [None, 8, 8, 16]
        assert tf.nn.conv2d(x, w, 2, "VALID").shape.as_list() == [None, 3, 3, 16]
        assert tf.nn.conv2d(x, w, 1, "SAME", dilations=2).shape.as_list() == [None, 8, 8, 16]
        u = g.placeholder(tf.float32, [None, None, 8, 3])
        assert tf.nn.conv2d(u, w, 2, "SAME").shape.as_list() == [None, None, 4, 16]
        assert tf.nn.max_pool2d(x, 2, 2, "VALID").shape.as_list() == [None, 4, 4, 3]
        assert tf.nn.avg_pool2d(x, 3, 2, "SAME").shape.as_list() == [None, 4, 4, 3]
        assert tf.nn.bias_add(x, tf.zeros([3]) if hasattr(tf, "zeros") else np.zeros(3, np.float32)).shape.as_list() \
            == [None, 8, 8, 3]
        assert tf.nn.softmax(x).shape.as_list() == [None, 8, 8, 3]
        logits = g.placeholder(tf.float32, [None, 10])
        labels = g.placeholder(tf.int32, [None])
        assert tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits).shape.as_list() == [None]
        assert tf.nn.softmax_cross_entropy_with_logits(logits, logits).shape.as_list() == [None]
        assert tf.nn.dropout(x, 0.5).shape.as_list() == [None, 8, 8, 3]
        with pytest.raises(ValueError, match="input depth must be evenly divisible by filter depth: 3 vs 2"):
            tf.nn.conv2d(x, g.placeholder(tf.float32, [3, 3, 2, 4]), 1, "SAME")
        with pytest.raises(ValueError, match='Value for attr \'padding\' of "FOO"'):
            tf.nn.conv2d(x, w, 1, "FOO")


# ---------------------------------------------------------------- pooling
def pool_ref(x, k, s, padding, fn):
    n, h, w, c = x.shape
    if padding == "SAME":
        oh, ow = -(-h // s[0]), -(-w // s[1])
        pt, pl = max((oh - 1) * s[0] + k[0] - h, 0) // 2, max((ow - 1) * s[1] + k[1] - w, 0) // 2
    else:
        oh, ow, pt, pl = (h - k[0]) // s[0] + 1, (w - k[1]) // s[1] + 1, 0, 0
    out = np.zeros((n, oh, ow, c))
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * s[0] - pt, j * s[1] - pl
            win = x[:, max(r0, 0):r0 + k[0], max(c0, 0):c0 + k[1]]
            out[:, i, j] = fn(win, axis=(1, 2))
    return out


POOL_CASES = [((2, 6, 7, 3), (2, 2), (2, 2), "VALID"), ((2, 6, 7, 3), (3, 3), (2, 2), "SAME"),
              ((1, 5, 5, 2), (3, 2), (1, 2), "SAME"), ((1, 5, 5, 2), (3, 3), (1, 1), "VALID")]


@pytest.mark.parametrize("xs,k,s,padding", POOL_CASES)
def test_pools(xs, k, s, padding):
    x = _x(*xs).astype(np.float32)
    mx = tf.nn.max_pool2d(x, list(k), list(s), padding)
    av = tf.nn.avg_pool2d(x, list(k), list(s), padding)
    np.testing.assert_allclose(mx.numpy(), pool_ref(x, k, s, padding, np.max), rtol=1e-6)
    np.testing.assert_allclose(av.numpy(), pool_ref(x, k, s, padding, np.mean), rtol=1e-5, atol=1e-6)
    attrs = {"ksize": k, "strides": s, "padding": padding}
    check_grad(nn_ops.MAX_POOL, [_x(*xs)], attrs)
    check_grad(nn_ops.AVG_POOL, [_x(*xs)], attrs)


def test_pool_ties_int_and_errors():
    # A window's gradient goes to its first maximum only.
    x = np.ones((1, 2, 2, 1))
    rec = _Rec(nn_ops.MAX_POOL, [x], {"ksize": (2, 2), "strides": (2, 2), "padding": "VALID"})
    g = nn_ops.MAX_POOL.grad(rec, EagerTensor(np.ones((1, 1, 1, 1))))[0].numpy()
    assert g[0, :, :, 0].tolist() == [[1, 0], [0, 0]]
    assert tf.nn.max_pool2d(tf.constant(np.ones([1, 4, 4, 1], np.int32)), 2, 2, "VALID").dtype == tf.int32
    with pytest.raises(InvalidArgumentError, match="Value for attr 'T' of int32"):
        tf.nn.avg_pool2d(tf.constant(np.ones([1, 4, 4, 1], np.int32)), 2, 2, "VALID")
    av = tf.nn.avg_pool2d(np.arange(25, dtype=np.float32).reshape(1, 5, 5, 1), 3, 2, "SAME")
    assert av.numpy()[0, :, :, 0].tolist() == [[3, 4.5, 6], [10.5, 12, 13.5], [18, 19.5, 21]]


# ---------------------------------------------------------------- losses, normalisation, dropout
def test_l2_loss_normalize_moments():
    x = _x(3, 4)
    assert tf.nn.l2_loss(x).numpy() == pytest.approx((x ** 2).sum() / 2)
    with pytest.raises(InvalidArgumentError, match="Value for attr 'T' of int32"):
        tf.nn.l2_loss([1, 2])
    np.testing.assert_allclose(tf.nn.l2_normalize(x, axis=1).numpy(),
                               x / np.linalg.norm(x, axis=1, keepdims=True))
    np.testing.assert_allclose(tf.nn.l2_normalize([3., 4.]).numpy(), [0.6, 0.8])
    assert tf.nn.l2_normalize([0., 0.]).numpy().tolist() == [0, 0]
    check_grad(nn_ops.L2_LOSS, [x])
    check_grad(nn_ops.L2N, [x], {"axis": (1,), "epsilon": 1e-12})
    check_grad(nn_ops.L2N, [x * 1e-8], {"axis": (1,), "epsilon": 1e-12}, eps=1e-12)
    m, v = tf.nn.moments(tf.constant(x), axes=[0])
    np.testing.assert_allclose(m.numpy(), x.mean(0))
    np.testing.assert_allclose(v.numpy(), x.var(0))
    m, v = tf.nn.moments(tf.constant(x), axes=[0, 1], keepdims=True)
    assert m.shape == (1, 1) and v.numpy()[0, 0] == pytest.approx(x.var())
    mi, vi = tf.nn.moments(tf.constant([[1, 2], [3, 5]]), axes=[0])
    assert mi.dtype == tf.int32 and vi.numpy().tolist() == [1, 2]


def test_batch_normalization():
    x, mean, var = _x(4, 3), _x(3), RNG.uniform(1, 2, 3)
    off, scale = _x(3), _x(3)
    got = tf.nn.batch_normalization(x, mean, var, off, scale, 1e-3)
    np.testing.assert_allclose(got.numpy(), (x - mean) / np.sqrt(var + 1e-3) * scale + off)


def test_dropout():
    x = np.ones((200, 50), np.float32)
    y = tf.nn.dropout(x, rate=0.25).numpy()
    assert y.dtype == np.float32 and set(np.unique(y)) <= {0, np.float32(1 / 0.75)}
    assert 0.2 < (y == 0).mean() < 0.3
    col = tf.nn.dropout(x, rate=0.5, noise_shape=[1, 50]).numpy()
    assert (col == col[0]).all()  # one decision per column
    assert tf.nn.dropout(x, rate=0.0) is not None
    with pytest.raises(ValueError, match=r"`rate` must be a scalar tensor or a float in the range \[0, 1\). "
                                         r"Received: rate=1.0"):
        tf.nn.dropout(x, rate=1.0)
    with pytest.raises(ValueError, match="`x.dtype` must be a floating point tensor"):
        tf.nn.dropout([1, 2], rate=0.5)
    tf.random.set_seed(3)
    a = tf.nn.dropout(x, 0.5).numpy()
    tf.random.set_seed(3)
    assert (tf.nn.dropout(x, 0.5).numpy() == a).all()
    rec = _Rec(nn_ops.DROPOUT, [_x(5, 4)], {"rate": 0.5, "seed": 1, "seed2": 2})
    g = nn_ops.DROPOUT.grad(rec, EagerTensor(np.ones((5, 4))), None)[0].numpy()
    np.testing.assert_array_equal(g, rec.outputs[1].numpy())


def test_sparse_softmax_xent_of_a_batch_of_few_classes_is_tensorflows():
    # 12 rows of 5 classes: the row max from a transposed copy's columns, the labels' entries by flat index
    # (nn_ops._sparse_xent_kernel); a NaN row, ties, -inf and a constant row; TensorFlow 2.21's values
    x = (np.arange(60, dtype=np.float32).reshape(12, 5) * 0.37 % 3.1 - 1.2).astype(np.float32)
    x[3, 2] = np.nan
    x[5] = [2.0, 2.0, -1.0, 2.0, 0.5]
    x[7, 0] = -np.inf
    x[9] = 100.0
    y = np.array([0, 1, 2, 3, 4, 3, 2, 1, 0, 4, 1, 2], np.int32)
    xt = tf.constant(x)
    with tf.GradientTape() as t:
        t.watch(xt)
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=xt)
    grad = t.gradient(loss, xt).numpy()
    want = np.array([2.4824848, 1.6810328, 1.742485, np.nan, 1.0024849, 1.1856817, 1.3110328, 2.0252538, 1.0566608,
                     1.609438, 3.1316125, 1.3110332], np.float32)
    np.testing.assert_allclose(loss.numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(grad[[0, 5, 7, 9]], np.array([
        [-0.9164646, 0.12093707, 0.17508478, 0.2534763, 0.36696643],
        [0.30553782, 0.30553782, 0.015211833, -0.6944622, 0.068174705],
        [0., -0.8680396, 0.19104375, 0.2765806, 0.40041527],
        [0.2, 0.2, 0.2, 0.2, -0.8]], np.float32), rtol=1e-6, atol=1e-7)
    assert np.isnan(grad[3]).all() and grad.dtype == np.float32
