"""Top-level ops TensorFlow has and the array namespace lacked: complex (Complex), ensure_shape (EnsureShape),
reverse_sequence (ReverseSequence), unravel_index (UnravelIndex), dynamic_partition / dynamic_stitch,
histogram_fixed_width (HistogramFixedWidth) and its _bins composite, bitcast (Bitcast), fingerprint
(Fingerprint, farmhash64), timestamp (Timestamp), space_to_batch_nd / batch_to_space (SpaceToBatchND,
BatchToSpaceND), identity_n, shape_n, is_tensor, get_static_value, tuple and parallel_stack, each with
TensorFlow's gradient where it has one and its errors."""
import time

import numpy as np

from .. import dtypes as _dt
from ..core import context
from ..core.dispatch import bind
from ..core.op import NUMERIC, defop
from ..core.tensor import Tensor
from ..errors import InvalidArgumentError
from ..shape import TensorShape
from . import array_ops as _a, composite, math_ops as _m
from ._rules import binary_args, broadcast_shape, static_value, to_tensor

_REAL_TO_COMPLEX = {_dt.float32: _dt.complex64, _dt.float64: _dt.complex128}
_I32_64 = frozenset([_dt.int32, _dt.int64])


# ---------------------------------------------------------------- complex
def _complex_grad(op, dy):
    re, im = op.inputs
    return _m.sum_to(_m.real(dy), re), _m.sum_to(_m.imag(dy), im)


COMPLEX = defop("Complex", lambda re, im: np.asarray(re + 1j * im).astype(np.result_type(re, np.complex64)),
                lambda re, im: (broadcast_shape(re.shape, im.shape), _REAL_TO_COMPLEX[re.dtype]),
                grad=_complex_grad, same=2, allowed=frozenset(_REAL_TO_COMPLEX))


def complex(real, imag, name=None):  # noqa: A001  (TensorFlow's name)
    """real + imag * 1j: complex64 from float32 parts, complex128 from float64 (broadcasting)."""
    re, im = binary_args(real, imag) if not (isinstance(real, Tensor) and isinstance(imag, Tensor)) \
        else (real, imag)
    if re.dtype != im.dtype or re.dtype not in _REAL_TO_COMPLEX:
        raise TypeError(f"The `real` and `imag` components have incorrect types: {re.dtype.name} {im.dtype.name}. "
                        f"They must be consistent, and one of [tf.float32, tf.float64]")
    return bind(COMPLEX, (re, im), name=name or "Complex")


# ---------------------------------------------------------------- ensure_shape
def _ensure_kernel(x, shape):
    want = TensorShape(shape)
    if not want.is_compatible_with(TensorShape(x.shape)):
        fmt = "[" + ",".join("?" if d is None else str(d) for d in want.as_list()) + "]" if want.rank is not None \
            else "<unknown>"
        raise InvalidArgumentError(f"Shape of tensor input [{','.join(map(str, x.shape))}] is not compatible with "
                                   f"expected shape {fmt}.")
    return x


def _ensure_infer(x, shape):
    want = TensorShape(shape)
    if not x.shape.is_compatible_with(want):
        raise ValueError(f"Shape {x.shape} is not compatible with expected shape {want}.")
    return x.shape.merge_with(want), x.dtype


ENSURE_SHAPE = defop("EnsureShape", _ensure_kernel, _ensure_infer, grad=lambda op, dy: (dy,))
ENSURE_SHAPE.is_view = True


def ensure_shape(x, shape, name=None):
    """x, checked when it runs to have a shape compatible with `shape` (None for any size), with that static
    shape from then on."""
    s = TensorShape(shape)
    attr = None if s.rank is None else tuple(s.as_list())
    return bind(ENSURE_SHAPE, (to_tensor(x),), {"shape": attr}, name=name or "EnsureShape")


# ---------------------------------------------------------------- reverse_sequence
def _revseq_kernel(x, lengths, seq_axis, batch_axis):
    out = np.array(x, copy=True)
    n = x.shape[seq_axis]
    for b, ln in enumerate(np.asarray(lengths).tolist()):
        if ln > n:
            raise InvalidArgumentError(f"seq_lens({b}) > input.dims({seq_axis})")
        if ln < 0:
            raise InvalidArgumentError(f"seq_lens({b}) < 0")
        src = [slice(None)] * x.ndim
        src[batch_axis] = b
        src[seq_axis] = slice(0, ln)
        dst = list(src)
        out[tuple(dst)] = np.flip(x[tuple(src)], axis=seq_axis - (1 if batch_axis < seq_axis else 0))
    return out


REVERSE_SEQUENCE = defop("ReverseSequence", _revseq_kernel, lambda x, lengths, **a: (x.shape, x.dtype),
                         grad=lambda op, dy: (bind(REVERSE_SEQUENCE, (dy, op.inputs[1]), op.attrs), None))


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None):  # noqa: A002
    """Reverses the first seq_lengths[b] entries along seq_axis of each slice b along batch_axis."""
    x = to_tensor(input)
    lengths = to_tensor(seq_lengths)
    if lengths.dtype not in _I32_64:
        lengths = _m.cast(lengths, _dt.int64)
    rank = x.shape.rank
    seq_axis = int(seq_axis if seq_axis is not None else 1)
    batch_axis = int(batch_axis if batch_axis is not None else 0)
    if rank is not None:
        seq_axis %= rank
        batch_axis %= rank
    if seq_axis == batch_axis:
        raise ValueError(f"seq_dim must not equal batch_dim: {seq_axis}")
    return bind(REVERSE_SEQUENCE, (x, lengths), {"seq_axis": seq_axis, "batch_axis": batch_axis},
                name=name or "ReverseSequence")


# ---------------------------------------------------------------- unravel_index
def _unravel_kernel(indices, dims):
    if (indices < 0).any() or (indices >= np.prod(dims)).any():
        raise InvalidArgumentError("index is out of bound as with dims")
    return np.stack(np.unravel_index(indices, tuple(int(d) for d in dims))).astype(indices.dtype) \
        if np.ndim(indices) else np.asarray(np.unravel_index(int(indices), tuple(int(d) for d in dims)),
                                            indices.dtype)


def _unravel_infer(indices, dims):
    return TensorShape([dims.shape[0] if dims.shape.rank else None]).concatenate(indices.shape), indices.dtype


UNRAVEL_INDEX = defop("UnravelIndex", _unravel_kernel, _unravel_infer, same=2, allowed=_I32_64)


def unravel_index(indices, dims, name=None):
    """The coordinates in an array of shape dims of each flat index: shape [len(dims)] + indices.shape."""
    i = to_tensor(indices)
    d = to_tensor(dims, i.dtype)
    return bind(UNRAVEL_INDEX, (i, d), name=name or "UnravelIndex")


# ---------------------------------------------------------------- dynamic_partition / dynamic_stitch
def _partition_kernel(data, partitions, num_partitions):
    p = np.asarray(partitions)
    if data.shape[:p.ndim] != p.shape:
        raise InvalidArgumentError(f"data.shape must start with partitions.shape, got data.shape = "
                                   f"[{','.join(map(str, data.shape))}], partitions.shape = "
                                   f"[{','.join(map(str, p.shape))}]")
    flat_p = p.reshape(-1)
    bad = (flat_p < 0) | (flat_p >= num_partitions)
    if bad.any():
        i = int(np.argmax(bad))
        where = ",".join(map(str, np.unravel_index(i, p.shape))) if p.ndim else ""
        raise InvalidArgumentError(f"partitions[{where}] = {flat_p[i]} is not in [0, {num_partitions})")
    rows = data.reshape((flat_p.size,) + data.shape[p.ndim:])
    return tuple(rows[flat_p == k] for k in range(num_partitions))


def _partition_infer(data, partitions, num_partitions):
    inner = data.shape[partitions.shape.rank:] if data.shape.rank is not None and partitions.shape.rank is not None \
        else TensorShape(None)
    return [(TensorShape([None]).concatenate(inner), data.dtype)] * num_partitions


def _partition_grad(op, *dys):
    data, partitions = op.inputs
    n = op.attrs["num_partitions"]
    count = _a.size(partitions)
    idx = _a.reshape(_a.range(count), _a.shape(partitions))
    parts = dynamic_partition(idx, partitions, n)
    stitched = dynamic_stitch(parts, [d if d is not None else _a.zeros_like(o) for d, o in zip(dys, op.outputs)])
    return _a.reshape(stitched, _a.shape(data)), None


DYNAMIC_PARTITION = defop("DynamicPartition", _partition_kernel, _partition_infer, grad=_partition_grad,
                          num_outputs=lambda attrs: attrs["num_partitions"])


def dynamic_partition(data, partitions, num_partitions, name=None):
    """data split into num_partitions tensors by partitions (an int32 tensor of a prefix of data's shape)."""
    d = to_tensor(data)
    p = to_tensor(partitions)
    if p.dtype != _dt.int32:
        raise TypeError(f"partitions must be int32, got {p.dtype.name}")
    out = bind(DYNAMIC_PARTITION, (d, p), {"num_partitions": int(num_partitions)}, name=name or "DynamicPartition")
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _stitch_kernel(*args, n):
    indices, data = args[:n], args[n:]
    first = np.asarray(indices[0])
    inner = data[0].shape[first.ndim:]
    size = max([int(np.max(i)) + 1 if np.size(i) else 0 for i in indices] + [0])
    out = np.zeros((size,) + inner, data[0].dtype)
    for i, d in zip(indices, data):
        i = np.asarray(i)
        if d.shape[:i.ndim] != i.shape:
            raise InvalidArgumentError(f"data[k].shape = [{','.join(map(str, d.shape))}] does not start with "
                                       f"indices[k].shape = [{','.join(map(str, i.shape))}]")
        if i.size:
            out[i.reshape(-1)] = d.reshape((i.size,) + inner)
    return out


def _stitch_infer(*args, n):
    indices, data = args[:n], args[n:]
    d0, i0 = data[0], indices[0]
    inner = d0.shape[i0.shape.rank:] if d0.shape.rank is not None and i0.shape.rank is not None \
        else TensorShape(None)
    return TensorShape([None]).concatenate(inner), d0.dtype


def _stitch_grad(op, dy):
    n = op.attrs["n"]
    indices = op.inputs[:n]
    return (None,) * n + tuple(_a.gather(dy, i) for i in indices)


DYNAMIC_STITCH = defop("DynamicStitch", _stitch_kernel, _stitch_infer, grad=_stitch_grad)


def dynamic_stitch(indices, data, name=None):
    """merged[indices[m][i]] = data[m][i] (later pieces win where indices repeat)."""
    idx = [_m.cast(to_tensor(i), _dt.int32) if to_tensor(i).dtype != _dt.int32 else to_tensor(i) for i in indices]
    vals = [to_tensor(d) for d in data]
    if len(idx) != len(vals):
        raise ValueError(f"indices and data must have the same length, got {len(idx)} and {len(vals)}")
    return bind(DYNAMIC_STITCH, tuple(idx) + tuple(vals), {"n": len(idx)}, name=name or "DynamicStitch")


# ---------------------------------------------------------------- histogram_fixed_width
def _hist_kernel(values, value_range, nbins, dtype):
    lo, hi = float(value_range[0]), float(value_range[1])
    if hi <= lo:
        raise InvalidArgumentError(f"value_range should satisfy value_range[0] < value_range[1], but got "
                                   f"[{value_range[0]}, {value_range[1]}]")
    if nbins <= 0:
        raise InvalidArgumentError(f"nbins should be a positive number, but got '{nbins}'")
    v = np.asarray(values, np.float64).reshape(-1)
    idx = np.clip(np.floor((v - lo) / (hi - lo) * nbins), 0, nbins - 1).astype(np.int64)
    return np.bincount(idx, minlength=nbins).astype(dtype.as_numpy_dtype)


HISTOGRAM = defop("HistogramFixedWidth", _hist_kernel,
                  lambda values, value_range, nbins, dtype: (TensorShape([nbins]), dtype), same=2,
                  allowed=frozenset([_dt.int32, _dt.int64, _dt.float32, _dt.float64]))


def histogram_fixed_width(values, value_range, nbins=100, dtype=_dt.int32, name=None):
    """Counts of values in nbins equal bins over [value_range[0], value_range[1]); values outside go to the
    first or last bin."""
    v = to_tensor(values)
    r = to_tensor(value_range, v.dtype)
    return bind(HISTOGRAM, (v, r), {"nbins": int(nbins), "dtype": _dt.as_dtype(dtype)},
                name=name or "HistogramFixedWidth")


def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=_dt.int32, name=None):
    """The bin of each value (values' shape), as histogram_fixed_width would count it."""
    v = to_tensor(values)
    r = to_tensor(value_range, v.dtype)
    scaled = _m.truediv(_m.subtract(v, r[0]), _m.subtract(r[1], r[0]))
    idx = _m.floor(_m.multiply(_m.cast(nbins, scaled.dtype), scaled))
    idx = _m.clip_by_value(idx, 0, nbins - 1)
    return _m.cast(idx, _dt.as_dtype(dtype), name=name)


# ---------------------------------------------------------------- bitcast
def _bitcast_kernel(x, type):  # noqa: A002
    out = np.dtype(type.as_numpy_dtype)
    if x.dtype.itemsize == out.itemsize:
        return x.view(out)
    if x.dtype.itemsize > out.itemsize:
        ratio = x.dtype.itemsize // out.itemsize
        return np.ascontiguousarray(x).view(out).reshape(x.shape + (ratio,))
    ratio = out.itemsize // x.dtype.itemsize
    if not x.shape or x.shape[-1] != ratio:
        raise InvalidArgumentError(f"Cannot bitcast from {ratio} to {x.shape[-1] if x.shape else 0}")
    return np.ascontiguousarray(x).view(out).reshape(x.shape[:-1])


def _bitcast_infer(x, type):  # noqa: A002
    a, b = x.dtype.size, type.size
    if x.shape.rank is None or a == b:
        return x.shape, type
    if a > b:
        return x.shape.concatenate([a // b]), type
    if x.shape.rank == 0 or (x.shape[-1] is not None and x.shape[-1] != b // a):
        raise ValueError(f"Cannot bitcast from {x.dtype.name} to {type.name}: the last dimension of {x.shape} must "
                         f"be {b // a}")
    return x.shape[:-1], type


BITCAST = defop("Bitcast", _bitcast_kernel, _bitcast_infer, allowed=NUMERIC)


def bitcast(input, type, name=None):  # noqa: A002
    """The same bytes read as another dtype: a wider type consumes the last dimension, a narrower one adds it."""
    return bind(BITCAST, (to_tensor(input),), {"type": _dt.as_dtype(type)}, name=name or "Bitcast")


# ---------------------------------------------------------------- fingerprint, timestamp
def _fingerprint_kernel(data, method):
    from .fingerprint import fingerprint64
    if method != b"farmhash64" and method != "farmhash64":
        raise InvalidArgumentError(f"Unsupported fingerprint method: {method}")
    if np.ndim(data) < 1:
        raise InvalidArgumentError("`data` should have at least one dimension: []")
    n = data.shape[0]
    out = np.empty((n, 8), np.uint8)
    if data.dtype == object:
        rows = data.reshape(n, -1)
        for i in range(n):
            items = rows[i].tolist()
            if len(items) == 1:
                fp = fingerprint64(items[0])
            else:  # several strings in a row: TensorFlow fingerprints each and then their concatenated fingerprints
                fp = fingerprint64(b"".join(fingerprint64(s).to_bytes(8, "little") for s in items))
            out[i] = np.frombuffer(fp.to_bytes(8, "little"), np.uint8)
    else:
        rows = np.ascontiguousarray(data).reshape(n, -1)
        for i in range(n):
            out[i] = np.frombuffer(fingerprint64(rows[i].tobytes()).to_bytes(8, "little"), np.uint8)
    return out


FINGERPRINT = defop("Fingerprint", _fingerprint_kernel,
                    lambda data, method: (TensorShape([data.shape[0] if data.shape.rank else None, 8]), _dt.uint8))


def fingerprint(data, method="farmhash64", name=None):
    """An 8-byte uint8 fingerprint per row (the first dimension): FarmHash Fingerprint64 of each row's bytes."""
    return bind(FINGERPRINT, (to_tensor(data),), {"method": str(method)}, name=name or "Fingerprint")


TIMESTAMP = defop("Timestamp", lambda: np.float64(time.time()), lambda: (TensorShape([]), _dt.float64),
                  stateful=True)


def timestamp(name=None):
    """Seconds since the epoch as a float64 scalar, read when the op runs."""
    return bind(TIMESTAMP, (), name=name or "Timestamp")


# ---------------------------------------------------------------- space_to_batch_nd / batch_to_space
def _s2b_kernel(x, block_shape, paddings):
    block = [int(b) for b in np.asarray(block_shape).reshape(-1)]
    pads = np.asarray(paddings).reshape(-1, 2)
    m = len(block)
    if (pads < 0).any():
        raise InvalidArgumentError("Negative paddings are not allowed")
    padded = np.pad(x, [(0, 0)] + [(int(a), int(b)) for a, b in pads] + [(0, 0)] * (x.ndim - 1 - m))
    spatial = padded.shape[1:1 + m]
    for i, (s, b) in enumerate(zip(spatial, block)):
        if s % b:
            raise InvalidArgumentError(f"padded_shape[{i}]={s} is not divisible by block_shape[{i}]={b}")
    n = x.shape[0]
    shape = [n]
    for s, b in zip(spatial, block):
        shape += [s // b, b]
    rest = list(padded.shape[1 + m:])
    r = padded.reshape(shape + rest)
    perm = [2 * i + 2 for i in range(m)] + [0] + [2 * i + 1 for i in range(m)] + list(range(1 + 2 * m, r.ndim))
    r = r.transpose(perm)
    return np.ascontiguousarray(r.reshape([n * int(np.prod(block))] + [s // b for s, b in zip(spatial, block)] + rest))


def _b2s_kernel(x, block_shape, crops):
    block = [int(b) for b in np.asarray(block_shape).reshape(-1)]
    crops = np.asarray(crops).reshape(-1, 2)
    m = len(block)
    prod = int(np.prod(block))
    if x.shape[0] % prod:
        raise InvalidArgumentError(f"Input batch dimension ({x.shape[0]}) is not divisible by product of block sizes "
                                   f"({prod})")
    n = x.shape[0] // prod
    spatial = list(x.shape[1:1 + m])
    rest = list(x.shape[1 + m:])
    r = x.reshape(block + [n] + spatial + rest)
    perm = [m]
    for i in range(m):
        perm += [m + 1 + i, i]
    perm += list(range(1 + 2 * m, r.ndim))
    r = r.transpose(perm).reshape([n] + [s * b for s, b in zip(spatial, block)] + rest)
    sl = [slice(None)] + [slice(int(a), r.shape[1 + i] - int(b)) for i, (a, b) in enumerate(crops)]
    return np.ascontiguousarray(r[tuple(sl)])


def _s2b_infer(x, block_shape, paddings):
    return TensorShape(None if x.shape.rank is None else [None] * x.shape.rank), x.dtype


SPACE_TO_BATCH_ND = defop("SpaceToBatchND", _s2b_kernel, _s2b_infer,
                          grad=lambda op, dy: (bind(BATCH_TO_SPACE_ND, (dy, op.inputs[1], op.inputs[2])), None,
                                               None))
BATCH_TO_SPACE_ND = defop("BatchToSpaceND", _b2s_kernel, _s2b_infer,
                          grad=lambda op, dy: (bind(SPACE_TO_BATCH_ND, (dy, op.inputs[1], op.inputs[2])), None,
                                               None))


def space_to_batch_nd(input, block_shape, paddings, name=None):  # noqa: A002
    """Zero-pads the spatial dimensions and moves block_shape blocks of them into the batch dimension."""
    return bind(SPACE_TO_BATCH_ND, (to_tensor(input), to_tensor(block_shape), to_tensor(paddings)),
                name=name or "SpaceToBatchND")


space_to_batch = space_to_batch_nd


def batch_to_space(input, block_shape, crops, name=None):  # noqa: A002
    """space_to_batch_nd's inverse: batch blocks back into the spatial dimensions, then cropped."""
    return bind(BATCH_TO_SPACE_ND, (to_tensor(input), to_tensor(block_shape), to_tensor(crops)),
                name=name or "BatchToSpaceND")


# ---------------------------------------------------------------- small composites
def identity_n(input, name=None):  # noqa: A002
    """An identity of each tensor of a list."""
    return [_a.identity(to_tensor(t)) for t in input]


def shape_n(input, out_type=_dt.int32, name=None):  # noqa: A002
    """The shape of each tensor of a list."""
    return [_a.shape(to_tensor(t), out_type=out_type) for t in input]


def is_tensor(x):
    """Whether x is a tensor-like TensorFlow value: a Tensor, a SparseTensor or RaggedTensor, or a Variable."""
    if isinstance(x, Tensor) or isinstance(x, (composite.kind("sparse"), composite.kind("ragged"))):
        return True
    return (getattr(x, "_is_resource", False) or getattr(x, "is_tensor_like", False) is True or
            type(x).__name__ in ("Variable", "ResourceVariable"))


def get_static_value(tensor, partial=False):
    """The NumPy value of a tensor when it is known without running a graph (eager tensors, constants and what
    folds from them), else None; other values are returned as they are."""
    if not isinstance(tensor, Tensor):
        return tensor
    v = static_value(tensor)
    return None if v is None else np.asarray(v)


def tuple_(tensors, control_inputs=None, name=None):
    """tf.tuple."""
    # the tensors, each through an identity in graphs (TensorFlow gathers them in one group there)
    if context.executing_eagerly():
        return list(tensors)
    return [None if t is None else _a.identity(t) for t in tensors]


def parallel_stack(values, name="parallel_stack"):
    """tf.stack in a graph; TensorFlow refuses it eagerly."""
    if context.executing_eagerly():
        raise RuntimeError("tf.parallel_stack() is not compatible with eager execution.")
    return _a.stack(values, name=name)

