"""tf.signal basics: FFTs over the innermost axes (fft/ifft, fft2d/ifft2d, rfft/irfft), frame, overlap_and_add,
hann/hamming windows, stft and inverse_stft.

The FFT ops compute with NumPy's pocketfft in double precision and round to the input's precision. Their
gradients follow TensorFlow's complex convention (dL/d(re) + i dL/d(im)): FFT's is n * IFFT, RFFT's the real part
of a zero-extended IFFT, IRFFT's an RFFT weighted 1, 2, ..., 2, 1 (its DC and Nyquist terms appear once).
"""
import math

import numpy as np

from .. import dtypes as _dt
from ..core.dispatch import bind
from ..core.op import COMPLEX, defop
from ..shape import TensorShape
from ._rules import UNKNOWN, static_value, to_tensor
from . import array_ops as _a
from . import math_ops as _m

_REAL_TO_COMPLEX = {_dt.float32: _dt.complex64, _dt.float64: _dt.complex128}
_COMPLEX_TO_REAL = {_dt.complex64: _dt.float32, _dt.complex128: _dt.float64}


def _static_error(cls, msg, name):
    """TensorFlow's eager op raises InvalidArgumentError where its graph builder raises cls."""
    from ..core import context
    from ..errors import InvalidArgumentError
    return InvalidArgumentError(f"{msg} [Op:{name}]") if context.executing_eagerly() else cls(msg)


def _check_rank(x, rank, name):
    if x.shape.rank is not None and x.shape.rank < rank:
        from ..core import context
        if context.executing_eagerly():
            dims = "[" + ",".join(str(d) for d in x.shape.as_list()) + "]"
            raise _static_error(ValueError, f"Input must have rank of at least {rank} but got: {dims}", name)
        raise ValueError(f"Shape must be at least rank {rank} but is rank {x.shape.rank} for '{{{{node {name}}}}} = "
                         f"{name}[Tcomplex={x.dtype.name}](input)' with input shapes: {x.shape}.")


# ============================================================================ complex FFTs
def _make_fft(name, inverse_name, rank, inverse):
    axes = tuple(range(-rank, 0))
    np_fn = np.fft.ifftn if inverse else np.fft.fftn

    def kernel(x):
        if x.size == 0:  # an empty transform is empty, as TensorFlow's (NumPy refuses 0 points)
            return np.zeros(x.shape, x.dtype)
        return np_fn(x, axes=axes).astype(x.dtype)

    def grad(op, dy):
        size = _m.cast(_m.reduce_prod(_a.shape(dy)[-rank:]), dy.dtype)
        other = OPS[inverse_name]
        g = bind(other, (dy,))
        return (_m.truediv(g, size) if inverse else _m.multiply(g, size),)

    return defop(name, kernel, lambda x: (x.shape, x.dtype), grad=grad, allowed=COMPLEX)


OPS = {}
for _n, _inv, _rank, _is_inv in (("FFT", "IFFT", 1, False), ("IFFT", "FFT", 1, True),
                                  ("FFT2D", "IFFT2D", 2, False), ("IFFT2D", "FFT2D", 2, True),
                                  ("FFT3D", "IFFT3D", 3, False), ("IFFT3D", "FFT3D", 3, True)):
    OPS[_n] = _make_fft(_n, _inv, _rank, _is_inv)


def _complex_fn(op_name, rank):
    def f(input, name=None):  # noqa: A002
        x = to_tensor(input)
        if not x.dtype.is_complex:
            raise _static_error(TypeError, f"Value for attr 'Tcomplex' of {x.dtype.name} is not in the list of "
                                           f"allowed values: complex64, complex128", op_name)
        _check_rank(x, rank, op_name)
        return bind(OPS[op_name], (x,), name=name or op_name)
    f.__name__ = op_name.lower()
    return f


fft, ifft = _complex_fn("FFT", 1), _complex_fn("IFFT", 1)
fft2d, ifft2d = _complex_fn("FFT2D", 2), _complex_fn("IFFT2D", 2)
fft3d, ifft3d = _complex_fn("FFT3D", 3), _complex_fn("IFFT3D", 3)


# ============================================================================ real FFTs
def _fit(a, n, axis):
    """Crops or zero-pads axis `axis` of a NumPy array to length n."""
    if a.shape[axis] == n:
        return a
    if a.shape[axis] > n:
        return np.take(a, np.arange(n), axis=axis)
    pad = [(0, 0)] * a.ndim
    pad[axis] = (0, n - a.shape[axis])
    return np.pad(a, pad)


def _rfft_kernel(x, fft_length):
    fft_length = _resolve(fft_length, x, False)
    axes = tuple(range(-len(fft_length), 0))
    for ax, n in zip(axes, fft_length):
        x = _fit(x, n, ax)
    return np.fft.rfftn(x, s=fft_length, axes=axes).astype(_REAL_TO_COMPLEX[_dt.from_numpy(x.dtype)]._np)


def _resolve(fft_length, a, inverse):
    """fft_length with the dims unknown when the graph was traced (None) read from the array: the input's inner
    sizes, for an inverse transform 2 * (n - 1) in the last."""
    if None not in fft_length:
        return fft_length
    rank = len(fft_length)
    dims = list(a.shape[-rank:])
    if inverse:
        dims[-1] = 2 * (dims[-1] - 1)
    return tuple(d if n is None else n for n, d in zip(fft_length, dims))


def _irfft_kernel(z, fft_length):
    fft_length = _resolve(fft_length, z, True)
    axes = tuple(range(-len(fft_length), 0))
    for ax, n in zip(axes[:-1], fft_length[:-1]):
        z = _fit(z, n, ax)
    z = _fit(z, fft_length[-1] // 2 + 1, -1)
    return np.fft.irfftn(z, s=fft_length, axes=axes).astype(_COMPLEX_TO_REAL[_dt.from_numpy(z.dtype)]._np)


def _rfft_infer(x, fft_length):
    if x.shape.rank is None:
        return UNKNOWN, _REAL_TO_COMPLEX[x.dtype]
    dims = x.shape.as_list()
    last = None if fft_length[-1] is None else fft_length[-1] // 2 + 1
    dims[-len(fft_length):] = list(fft_length[:-1]) + [last]
    return TensorShape(dims), _REAL_TO_COMPLEX[x.dtype]


def _irfft_infer(z, fft_length):
    if z.shape.rank is None:
        return UNKNOWN, _COMPLEX_TO_REAL[z.dtype]
    dims = z.shape.as_list()
    dims[-len(fft_length):] = list(fft_length)
    return TensorShape(dims), _COMPLEX_TO_REAL[z.dtype]


def _rfft_grad_kernel(dy, x, fft_length):
    """Re(n * IFFT(dy zero-extended to the full spectrum)), fitted back to x's length (1-D transforms)."""
    n = _resolve(fft_length, x, False)[-1]
    full = _fit(dy, n, -1)
    g = np.real(np.fft.ifft(full, axis=-1) * n)
    return _fit(g, x.shape[-1], -1).astype(x.dtype)


def _irfft_grad_kernel(dx, z, fft_length):
    n = _resolve(fft_length, z, True)[-1]
    weight = np.full(n // 2 + 1, 2.0)
    weight[0] = 1
    if n % 2 == 0:
        weight[-1] = 1
    g = np.fft.rfft(dx, axis=-1) * weight / n
    return _fit(g, z.shape[-1], -1).astype(z.dtype)


RFFT_GRAD = defop("RFFTGrad", _rfft_grad_kernel, lambda dy, x, fft_length: (x.shape, x.dtype))
IRFFT_GRAD = defop("IRFFTGrad", _irfft_grad_kernel, lambda dx, z, fft_length: (z.shape, z.dtype))
RFFT = defop("RFFT", _rfft_kernel, _rfft_infer, allowed=frozenset(_REAL_TO_COMPLEX),
             grad=lambda op, dy: (bind(RFFT_GRAD, (dy, op.inputs[0]), op.attrs),))
IRFFT = defop("IRFFT", _irfft_kernel, _irfft_infer, allowed=COMPLEX,
              grad=lambda op, dx: (bind(IRFFT_GRAD, (dx, op.inputs[0]), op.attrs),))
RFFT2D = defop("RFFT2D", _rfft_kernel, _rfft_infer, allowed=frozenset(_REAL_TO_COMPLEX))
IRFFT2D = defop("IRFFT2D", _irfft_kernel, _irfft_infer, allowed=COMPLEX)
RFFT3D = defop("RFFT3D", _rfft_kernel, _rfft_infer, allowed=frozenset(_REAL_TO_COMPLEX))
IRFFT3D = defop("IRFFT3D", _irfft_kernel, _irfft_infer, allowed=COMPLEX)


def _lengths(fft_length, x, rank, inverse):
    if fft_length is None:
        dims = x.shape.as_list()[-rank:] if x.shape.rank is not None else [None] * rank
        if inverse and dims[-1] is not None:
            dims[-1] = 2 * (dims[-1] - 1)
        return tuple(dims)  # None: a size known when the graph runs (the kernels read it then)
    v = static_value(fft_length) if hasattr(fft_length, "dtype") else np.asarray(fft_length)
    if v is None:
        raise ValueError("rivulet's real FFTs need a fft_length known when the function is traced")
    v = np.asarray(v).reshape(-1)
    if v.size != rank or v.dtype.kind not in "iu":
        raise ValueError(f"fft_length must be a list of {rank} int(s), got {fft_length!r}")
    return tuple(int(n) for n in v)


def _real_fn(op, rank, inverse, default):
    def f(input_tensor, fft_length=None, name=None):
        x = to_tensor(input_tensor)
        want = COMPLEX if inverse else frozenset(_REAL_TO_COMPLEX)
        if x.dtype not in want:  # TensorFlow's Python wrapper checks first, eagerly and in graphs alike
            kinds = "tf.complex64 or tf.complex128" if inverse else "tf.float32 or tf.float64"
            raise ValueError(f"{default} requires {kinds} inputs, got: {str(x)}")
        _check_rank(x, rank, default)
        return bind(op, (x,), {"fft_length": _lengths(fft_length, x, rank, inverse)}, name=name or default)
    f.__name__ = default.lower()
    return f


rfft = _real_fn(RFFT, 1, False, "RFFT")
irfft = _real_fn(IRFFT, 1, True, "IRFFT")
rfft2d = _real_fn(RFFT2D, 2, False, "RFFT2D")
irfft2d = _real_fn(IRFFT2D, 2, True, "IRFFT2D")
rfft3d = _real_fn(RFFT3D, 3, False, "RFFT3D")
irfft3d = _real_fn(IRFFT3D, 3, True, "IRFFT3D")


# ============================================================================ framing
def _static_int(v, what):
    s = static_value(v) if hasattr(v, "dtype") else v
    if s is None:
        raise ValueError(f"rivulet's tf.signal needs `{what}` known when the function is traced")
    return int(s)


def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None):
    """Frames of `frame_length` samples every `frame_step` along `axis`: [..., n, ...] -> [..., frames, length, ...]."""
    x = to_tensor(signal)
    length, step = _static_int(frame_length, "frame_length"), _static_int(frame_step, "frame_step")
    if x.shape.rank is None:
        raise ValueError("frame needs a signal of known rank")
    ax = axis % x.shape.rank
    n = x.shape[ax]
    if n is None:
        return _frame_dynamic(x, length, step, pad_end, pad_value, ax, name)
    if pad_end:
        count = -(-n // step)
        extra = max(0, (count - 1) * step + length - n)
        if extra:
            pads = [[0, 0]] * x.shape.rank
            pads[ax] = [0, extra]
            x = _a.pad(x, pads, constant_values=pad_value)
    else:
        count = max(0, 1 + (n - length) // step)
    index = np.arange(count)[:, None] * step + np.arange(length)[None, :]
    return _a.gather(x, index.astype(np.int32), axis=ax, name=name or "frame")


def _frame_dynamic(x, length, step, pad_end, pad_value, ax, name):
    """frame along an axis whose size is known only when the graph runs: the frame count and the padding
    are computed by ops (a graph traced with an input_signature of unknown length)."""
    n = _a.shape(x, out_type=_dt.int32)[ax]
    if pad_end:
        count = _m.floordiv(n + (step - 1), step)
        extra = _m.maximum((count - 1) * step + length - n, 0)
        dims = _a.shape(x, out_type=_dt.int32)
        block = _a.concat([dims[:ax], _a.reshape(extra, [1]), dims[ax + 1:]], 0)
        x = _a.concat([x, _a.fill(block, _m.cast(pad_value, x.dtype))], ax)
    else:
        count = _m.maximum(1 + _m.floordiv(n - length, step), 0)
    index = _a.range(count)[:, None] * step + _a.range(length)[None, :]
    return _a.gather(x, index, axis=ax, name=name or "frame")


def overlap_and_add(signal, frame_step, name=None):
    """Sums [..., frames, length] frames placed `frame_step` apart: [..., (frames - 1) * step + length]."""
    x = to_tensor(signal)
    step = _static_int(frame_step, "frame_step")
    if x.shape.rank is None or x.shape.rank < 2 or x.shape[-1] is None or x.shape[-2] is None:
        raise ValueError(f"overlap_and_add needs a signal of rank >= 2 with known frames and length, got {x.shape}")
    count, length = x.shape[-2], x.shape[-1]
    out = (count - 1) * step + length if count else 0
    place = np.zeros((count * length, out), x.dtype.as_numpy_dtype)
    rows = np.arange(count * length)
    place[rows, (rows // length) * step + rows % length] = 1
    batch = x.shape[:-2].as_list()
    y = _m.matmul(_a.reshape(x, [-1, count * length]), place)
    shape = batch + [out] if None not in batch else _a.concat([_a.shape(x)[:-2], [out]], 0)
    return _a.reshape(y, shape, name=name or "overlap_and_add")


# ============================================================================ windows and STFT
def _window(a, b, window_length, periodic, dtype):
    n = _static_int(window_length, "window_length")
    dtype = _dt.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Found {dtype}")
    if n == 1:
        return _a.ones([1], dtype)
    # TensorFlow's periodic window of odd length is its symmetric one (denominator n - 1), and it rounds
    # 2*pi*k before dividing.
    denom = n - 1 + (1 if periodic and n % 2 == 0 else 0)
    # The constants are made in the window's dtype (a float64 window from float32 constants is off by 1e-8).
    arg = _m.truediv(_m.multiply(to_tensor(2 * math.pi, dtype), _m.cast(_a.range(n), dtype)), to_tensor(denom, dtype))
    return _m.subtract(to_tensor(a, dtype), _m.multiply(to_tensor(b, dtype), _m.cos(arg)))


def hann_window(window_length, periodic=True, dtype=_dt.float32, name=None):
    return _window(0.5, 0.5, window_length, periodic, dtype)


def hamming_window(window_length, periodic=True, dtype=_dt.float32, name=None):
    return _window(0.54, 0.46, window_length, periodic, dtype)


def _fft_length(frame_length, fft_length):
    return 2 ** int(math.ceil(math.log2(frame_length))) if fft_length is None else _static_int(fft_length,
                                                                                                "fft_length")


def stft(signals, frame_length, frame_step, fft_length=None, window_fn=hann_window, pad_end=False, name=None):
    """[..., samples] -> [..., frames, fft_length // 2 + 1] complex: windowed frames, then rfft."""
    x = to_tensor(signals)
    if not x.dtype.is_floating:
        raise ValueError(f"signals must be a floating point tensor, got {x.dtype.name}")
    length = _static_int(frame_length, "frame_length")
    n_fft = _fft_length(length, fft_length)
    frames = frame(x, length, frame_step, pad_end=pad_end)
    if window_fn is not None:
        frames = _m.multiply(frames, window_fn(length, dtype=x.dtype))
    return rfft(frames, [n_fft], name=name)


def inverse_stft(stfts, frame_length, frame_step, fft_length=None, window_fn=hann_window, name=None):
    """irfft of each frame, cut or padded to frame_length, windowed and overlap-added."""
    z = to_tensor(stfts)
    length = _static_int(frame_length, "frame_length")
    n_fft = _fft_length(length, fft_length)
    frames = irfft(z, [n_fft])
    if n_fft > length:
        frames = frames[..., :length]
    elif n_fft < length:
        pads = [[0, 0]] * (frames.shape.rank - 1) + [[0, length - n_fft]]
        frames = _a.pad(frames, pads)
    if window_fn is not None:
        frames = _m.multiply(frames, window_fn(length, dtype=frames.dtype))
    return overlap_and_add(frames, frame_step, name=name)


def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
    """The window that makes inverse_stft invert stft: the forward window over the sum of its overlapping squares."""
    step = _static_int(frame_step, "frame_step")

    def window(frame_length, dtype):
        forward = forward_window_fn(frame_length, dtype=dtype)
        overlaps = -(-frame_length // step)
        sq = _a.pad(_m.square(forward), [[0, overlaps * step - frame_length]])
        denom = _m.reduce_sum(_a.reshape(sq, [overlaps, step]), 0, keepdims=True)
        denom = _a.reshape(_a.tile(denom, [overlaps, 1]), [overlaps * step])
        return _m.truediv(forward, denom[:frame_length])
    return window


# ---------------------------------------------------------------- dct / idct
def _dct_matrix(kind, n, rows, norm, np_dtype):
    """The [rows, n] matrix M with dct(x) = x @ M for x of length `rows` along the last axis, zero-padded or
    truncated to n as TensorFlow does (rows past n are zero). Types as scipy.fftpack's (TensorFlow's docs)."""
    i = np.arange(n, dtype=np.float64)[:, None]  # input index
    k = np.arange(n, dtype=np.float64)[None, :]  # output index
    if kind == 1:
        m = np.cos(np.pi * i * k / (n - 1)) * np.where((i == 0) | (i == n - 1), 1.0, 2.0)
    elif kind == 2:
        m = 2 * np.cos(np.pi * k * (2 * i + 1) / (2 * n))
        if norm == "ortho":
            m = m * np.where(k == 0, np.sqrt(1 / (4 * n)), np.sqrt(1 / (2 * n)))
    elif kind == 3:
        if norm == "ortho":  # the inverse of the orthonormal type II: its transpose
            m = (2 * np.cos(np.pi * i * (2 * k + 1) / (2 * n))) * np.where(i == 0, np.sqrt(1 / (4 * n)),
                                                                          np.sqrt(1 / (2 * n)))
        else:
            m = np.cos(np.pi * i * (2 * k + 1) / (2 * n)) * np.where(i == 0, 1.0, 2.0)
    else:
        m = 2 * np.cos(np.pi * (2 * i + 1) * (2 * k + 1) / (4 * n))
        if norm == "ortho":
            m = m * np.sqrt(1 / (2 * n))
    out = np.zeros((rows, n))
    out[:min(rows, n)] = m[:min(rows, n)]
    return out.astype(np_dtype)


def dct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002  (TensorFlow's names)
    """tf.signal.dct: DCT types I-IV along the last axis (scipy.fftpack's definitions), `norm='ortho'` for
    types II-IV, `n` truncating or zero-padding the signal; differentiable (a product with the DCT matrix)."""
    x = to_tensor(input)
    if axis != -1:
        raise NotImplementedError(f"axis must be -1. Got: {axis}")
    if n is not None and (not isinstance(n, (int, np.integer)) or n < 1):
        raise ValueError("n should be a positive integer or None")
    if type not in (1, 2, 3, 4):
        raise ValueError("Types I, II, III and IV (I)DCT are supported.")
    if norm not in (None, "ortho"):
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")
    if x.dtype not in (_dt.float32, _dt.float64):
        raise TypeError(f"tf.signal.dct needs a float32 or float64 signal, got {x.dtype.name}")
    rank = x.shape.rank
    if rank is not None and rank < 1:
        raise ValueError(f"tf.signal.dct needs a signal of rank >= 1, got shape {x.shape}")
    rows = x.shape[-1] if rank is not None else None
    if type == 1:
        if norm == "ortho":
            raise ValueError("Normalization is not supported for the Type-I DCT.")
        if rows is not None and rows < 2:
            raise ValueError("Type-I DCT requires the dimension to be greater than one.")
    if rows is None:
        raise ValueError(f"rivulet's tf.signal.dct needs the signal's last dimension known when traced; got shape "
                         f"{x.shape}")
    size = rows if n is None else int(n)
    if type == 1 and size < 2:
        raise ValueError("Type-I DCT requires the dimension to be greater than one.")
    m = to_tensor(_dct_matrix(type, size, rows, norm, x.dtype.as_numpy_dtype))
    if rank == 1:
        return _a.squeeze(_m.matmul(_a.expand_dims(x, 0), m), [0], name=name)
    return _m.matmul(x, m, name=name)


def idct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002
    """tf.signal.idct: the DCT of the inverse type (I <-> I, II <-> III, IV <-> IV); with norm='ortho' the exact
    inverse of dct, unnormalised a multiple of it (2N for types II/III), as in scipy."""
    if type not in (1, 2, 3, 4):
        raise ValueError("Types I, II, III and IV (I)DCT are supported.")
    return dct(input, type={1: 1, 2: 3, 3: 2, 4: 4}[type], n=n, axis=axis, norm=norm, name=name)


# ---------------------------------------------------------------- mel filterbank, MFCCs
def _hertz_to_mel(f):
    return _m.multiply(_m.log(_m.add(_m.divide(f, 700.0), 1.0)), 1127.0)  # HTK's mel scale, as TensorFlow forms it


def linear_to_mel_weight_matrix(num_mel_bins=20, num_spectrogram_bins=129, sample_rate=8000, lower_edge_hertz=125.0,
                                upper_edge_hertz=3800.0, dtype=_dt.float32, name=None):
    """[num_spectrogram_bins, num_mel_bins] triangular filters on HTK's mel scale (the DC bin left out), to
    multiply linear-frequency magnitude spectrograms by, as tf.signal builds them."""
    dtype = _dt.as_dtype(dtype)
    if num_mel_bins <= 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {num_mel_bins}")
    if lower_edge_hertz < 0.0:
        raise ValueError(f"lower_edge_hertz must be non-negative. Got: {lower_edge_hertz}")
    if lower_edge_hertz >= upper_edge_hertz:
        raise ValueError(f"lower_edge_hertz {lower_edge_hertz:.1f} >= upper_edge_hertz {upper_edge_hertz:.1f}")
    if sample_rate <= 0.0:
        raise ValueError(f"sample_rate must be positive. Got: {sample_rate}")
    if upper_edge_hertz > sample_rate / 2:
        raise ValueError(f"upper_edge_hertz must not be larger than the Nyquist frequency (sample_rate / 2). Got "
                         f"{upper_edge_hertz} for sample_rate: {sample_rate}")
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Got: {dtype}")
    zero = to_tensor(0.0, dtype)
    nyquist = to_tensor(float(sample_rate) / 2.0, dtype)
    freqs = _a.linspace(zero, nyquist, int(num_spectrogram_bins))[1:]  # the DC bin gets no weight
    bins_mel = _a.expand_dims(_hertz_to_mel(freqs), 1)
    edges = _a.linspace(_hertz_to_mel(to_tensor(lower_edge_hertz, dtype)),
                        _hertz_to_mel(to_tensor(upper_edge_hertz, dtype)), int(num_mel_bins) + 2)
    lower, center, upper = (_a.reshape(edges[i:i + int(num_mel_bins)], [1, int(num_mel_bins)]) for i in range(3))
    rising = _m.divide(_m.subtract(bins_mel, lower), _m.subtract(center, lower))
    falling = _m.divide(_m.subtract(upper, bins_mel), _m.subtract(upper, center))
    weights = _m.maximum(zero, _m.minimum(rising, falling))
    return _a.pad(weights, [[1, 0], [0, 0]], name=name)


def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None):
    """MFCCs: the type-II DCT of log-mel spectrograms over their last axis, scaled by 1 / sqrt(2 * num_mel_bins)."""
    x = to_tensor(log_mel_spectrograms)
    n = x.shape[-1] if x.shape.rank else None
    if n == 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {x}")
    d = dct(x, type=2)
    return _m.multiply(d, _m.rsqrt(_m.multiply(_m.cast(n, d.dtype), 2.0)), name=name)


# ---------------------------------------------------------------- more windows
def vorbis_window(window_length, dtype=_dt.float32, name=None):
    """sin(pi/2 sin^2(pi (n + 1/2) / N)), the Vorbis power-complementary window."""
    n = _m.cast(_a.range(window_length), dtype)
    length = _m.cast(window_length, dtype)
    inner = _m.sin(_m.multiply(_m.divide(to_tensor(np.pi, dtype), length), _m.add(n, 0.5)))
    return _m.sin(_m.multiply(to_tensor(np.pi / 2, dtype), _m.square(inner)), name=name)


def kaiser_window(window_length, beta=12.0, dtype=_dt.float32, name=None):
    """I0(beta sqrt(1 - (2n / (N - 1) - 1)^2)) / I0(beta), in the exponentially scaled Bessel form."""
    from .special_ops import bessel_i0e
    if _static_int(window_length, "window_length") == 1:
        return _a.ones([1], dtype=dtype)
    half = (float(window_length) - 1.0) / 2.0
    arg = _m.cast(_a.range(-half, half + 0.1, dtype=_dt.float32), dtype)
    beta_t = to_tensor(float(beta), dtype)
    num = _m.multiply(beta_t, _m.sqrt(_m.maximum(_m.subtract(1.0, _m.divide(_m.square(arg), half * half)),
                                                 to_tensor(0.0, dtype))))
    return _m.divide(_m.multiply(_m.exp(_m.subtract(num, beta_t)), bessel_i0e(num)), bessel_i0e(beta_t), name=name)


def kaiser_bessel_derived_window(window_length, beta=12.0, dtype=_dt.float32, name=None):
    """The Kaiser-Bessel-derived window: square roots of the normalised running sums of a Kaiser window of
    N // 2 + 1 points, mirrored."""
    halflen = _static_int(window_length, "window_length") // 2
    k = kaiser_window(halflen + 1, beta, dtype)
    csum = _m.cumsum(k)
    half = _m.sqrt(_m.divide(csum[:-1], csum[-1]))
    return _a.concat([half, _a.reverse(half, [0])], 0, name=name)


# ---------------------------------------------------------------- mdct / inverse_mdct
def mdct(signals, frame_length, window_fn=vorbis_window, pad_end=False, norm=None, name=None):
    """Modified DCT of frames of frame_length (a multiple of 4) hopping frame_length / 2: each windowed frame
    folded to half its length, then a type-IV DCT."""
    frame_length = _static_int(frame_length, "frame_length")
    if frame_length % 4:
        raise ValueError("The frame length must be a multiple of 4.")
    frames = frame(to_tensor(signals), frame_length, frame_length // 2, pad_end=pad_end)
    if window_fn is not None:
        frames = _m.multiply(frames, window_fn(frame_length, dtype=frames.dtype))
    else:
        frames = _m.multiply(frames, 1.0 / np.sqrt(2))
    a, b, c, d = _a.split(frames, 4, axis=-1)
    folded = _a.concat([_m.subtract(_m.negative(_a.reverse(c, [-1])), d), _m.subtract(a, _a.reverse(b, [-1]))], -1)
    return dct(folded, type=4, norm=norm, name=name)


def inverse_mdct(mdcts, window_fn=vorbis_window, norm=None, name=None):
    """The inverse of mdct: a type-IV DCT per frame, unfolded to twice its length, windowed and overlap-added."""
    if norm not in (None, "ortho"):
        raise ValueError("Normalization other than None or 'ortho' is not supported.")
    x = to_tensor(mdcts)
    half = x.shape[-1]
    if half is None:
        raise ValueError(f"rivulet's inverse_mdct needs the last dimension known when traced; got shape {x.shape}")
    y = dct(x, type=4, norm=norm)
    if norm is None:
        y = _m.multiply(y, 0.5 / half)
    p, q = _a.split(y, 2, axis=-1)
    frames = _a.concat([q, _m.negative(_a.reverse(q, [-1])), _m.negative(_a.reverse(p, [-1])), _m.negative(p)], -1)
    if window_fn is not None:
        frames = _m.multiply(frames, window_fn(2 * half, dtype=x.dtype))
    else:
        frames = _m.multiply(frames, 1.0 / np.sqrt(2))
    return overlap_and_add(frames, half, name=name)
