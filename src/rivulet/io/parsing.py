"""tf.io.parse_single_example / parse_example (FixedLenFeature, VarLenFeature, RaggedFeature) and serialize_tensor /
parse_tensor. Each is one op (ParseExampleV2, SerializeTensor, ParseTensor) so it works eagerly and inside
traced functions (a dataset's map)."""
import collections

import numpy as np

from .. import dtypes as _dt
from ..core.dispatch import bind
from ..core.op import defop
from ..core.tensor import Tensor, convert_to_tensor, to_numpy_value
from ..errors import InvalidArgumentError
from ..shape import TensorShape
from . import example_fast, example_proto as ep

_SUPPORTED = (_dt.int64, _dt.float32, _dt.string)


class FixedLenFeature(collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])):
    """A feature with a fixed shape; missing -> default_value (or an error when there is none)."""

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, _dt.as_dtype(dtype), default_value)

    def __repr__(self):
        return f"FixedLenFeature(shape={self.shape!r}, " \
               f"dtype={self.dtype!r}, default_value={self.default_value!r})"


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    def __new__(cls, dtype):
        return super().__new__(cls, _dt.as_dtype(dtype))

    def __repr__(self):
        return f"VarLenFeature(dtype={self.dtype!r})"


class RaggedFeature(collections.namedtuple("RaggedFeature", ["dtype", "value_key", "partitions",
                                                             "row_splits_dtype", "validate"])):
    """A feature read as a RaggedTensor: each Example's values are one row (parse_example), or the values
    themselves (parse_single_example). `value_key` names the feature (default: its key in the dict)."""

    def __new__(cls, dtype, value_key=None, partitions=(), row_splits_dtype=_dt.int32, validate=False):
        if partitions:
            raise NotImplementedError("rivulet's tf.io.RaggedFeature reads a feature's values as one row per "
                                      "Example (no `partitions`)")
        if value_key is not None and (not isinstance(value_key, str) or not value_key):
            raise ValueError(f"value_key must be a non-empty string, got {value_key!r}")
        return super().__new__(cls, _dt.as_dtype(dtype), value_key, tuple(partitions),
                               _dt.as_dtype(row_splits_dtype), validate)


def default_values(f):
    """A feature's default_value as a flat tuple of its dtype's values, converted as TensorFlow converts it (a
    tensor of its dtype: 1.7 for an int64 feature is TypeError, never truncated to 1; 1e39 for float32 is inf)."""
    if f.default_value is None:
        return None
    d = f.default_value
    if isinstance(d, Tensor):  # (a tensor of another dtype: convert_to_tensor's ValueError, as TensorFlow's)
        d = convert_to_tensor(d, dtype=f.dtype)
        if not hasattr(d, "_v"):
            raise ValueError(f"default_value of feature {f!r} must be a constant, not a traced tensor")
        d = d._v
    else:
        with np.errstate(over="ignore", invalid="ignore"):
            d = to_numpy_value(d, f.dtype)
    return tuple(np.asarray(d, dtype=object if f.dtype is _dt.string else None).reshape(-1).tolist())


SparseTensorValue = collections.namedtuple("SparseTensorValue", ["indices", "values", "dense_shape"])


# -- the op --------------------------------------------------------------------------------------------------
def _where(key, index):
    """TensorFlow's prefix of a parse error: 'Key: k.  ' for one Example, 'Name: <unknown>, Key: k, Index: i.  ' in
    a batch."""
    return f"Key: {key}.  " if index is None else f"Name: <unknown>, Key: {key}, Index: {index}.  "


def _values_of(feature, key, dtype, index=None, sparse=False):
    """The values of `feature` as a NumPy array of `dtype` (empty for a feature with no list). `index`: the
    Example's place in a batch (None: parse_single_example), for TensorFlow's wording of a mismatch."""
    kind = feature.WhichOneof("kind")
    want = {_dt.int64: "int64_list", _dt.float32: "float_list", _dt.string: "bytes_list"}[dtype]
    if kind is None:
        return _array([], dtype)
    if kind != want:
        have = {"int64_list": "int64", "float_list": "float", "bytes_list": "string"}[kind]
        if sparse:
            raise InvalidArgumentError(f"{_where(key, index)}Data types don't match. Expected type: "
                                       f"{_tf_type(dtype)}, Actual type: {have}")
        raise InvalidArgumentError(f"{_where(key, index)}Data types don't match. Data type: {have} but expected "
                                   f"type: {_tf_type(dtype)}")
    return getattr(feature, kind)._array()


def _count_error(key, dtype, index, got, shape):
    """TensorFlow's error for a FixedLenFeature holding another number of values than its shape."""
    kind = {_dt.int64: "int64", _dt.float32: "float", _dt.string: "bytes"}[dtype]
    n = shape.num_elements()
    if index is None:
        what = "Parsing bytes_list failed." if dtype is _dt.string and got > n else \
            f"Some {kind}_list slice was not parsed."
        return InvalidArgumentError(f"Key: {key}.  Can't parse serialized Example: {what}")
    if dtype is _dt.string and got > n:
        return InvalidArgumentError(f"{_where(key, index)}Can't parse serialized Example.")
    return InvalidArgumentError(f"{_where(key, index)}Number of {kind} values != expected.  Values size: {got} but "
                                f"output shape: {shape.as_list()}")


def _tf_type(dt):
    return {"float32": "float"}.get(dt.name, dt.name)


def _array(vals, dtype):
    if isinstance(vals, np.ndarray) and vals.dtype == (object if dtype is _dt.string else dtype._np):
        return vals
    if dtype is _dt.string:
        a = np.empty(len(vals), dtype=object)
        a[:] = list(vals)
        return a
    return np.asarray(vals, dtype=dtype._np)


def _parse_kernel(serialized, dense_keys, dense_types, dense_shapes, dense_defaults, sparse_keys, sparse_types,
                  scalar, seq_keys=(), seq_types=(), seq_shapes=(), seq_defaults=()):
    if seq_keys:  # FixedLenSequenceFeatures: read as VarLen ones (the general path), then made dense
        n = len(sparse_keys)
        outs = _parse_kernel(serialized, dense_keys, dense_types, dense_shapes, dense_defaults,
                             tuple(sparse_keys) + tuple(seq_keys), tuple(sparse_types) + tuple(seq_types), scalar)
        m = n + len(seq_keys)
        idx, vals, shapes, dense = outs[:m], outs[m:2 * m], outs[2 * m:3 * m], outs[3 * m:]
        seq = [_sequence_dense(key, dt, shape, default, idx[n + i], vals[n + i], shapes[n + i], scalar)
               for i, (key, dt, shape, default) in enumerate(zip(seq_keys, seq_types, seq_shapes, seq_defaults))]
        return tuple(idx[:n]) + tuple(vals[:n]) + tuple(shapes[:n]) + tuple(dense) + tuple(seq)
    tried = False
    if scalar:  # one record (a dataset's map): straight to the fast path
        one = serialized.item() if type(serialized) is np.ndarray and serialized.dtype == object else serialized
        if type(one) is bytes:
            got = example_fast.parse((one,), dense_keys, dense_types, dense_shapes, sparse_keys, sparse_types, True)
            if got is not None:
                return got
            tried = True  # (the fast path said no: not asked again below)
    records = [serialized] if scalar else np.asarray(serialized, dtype=object).reshape(-1).tolist()
    if not tried:
        plain, fast = records, all(type(r) is bytes for r in records)
        if not fast:
            plain = [r.item() if isinstance(r, np.ndarray) else r for r in records]
            fast = all(type(r) is bytes for r in plain)
        if fast:  # the fast path (example_fast.py), or None: the general one
            got = example_fast.parse(plain, dense_keys, dense_types, dense_shapes, sparse_keys, sparse_types,
                                     scalar)
            if got is not None:
                return got
    examples = []
    for r in records:
        r = r.item() if isinstance(r, np.ndarray) else r
        try:
            examples.append(ep.Example._decode(bytes(r), keep_earlier=True))
        except (ep.DecodeError, TypeError):
            raise InvalidArgumentError(f"Could not parse example input, value: '{bytes(r)[:64]!r}'") from None
    sparse_out = [[], [], []]
    for key, dt in zip(sparse_keys, sparse_types):
        vals = []
        for b, ex in enumerate(examples):
            f = ex.features.feature.get(key)
            vals.append(_values_of(f, key, dt, None if scalar else b, True) if f is not None else _array([], dt))
        counts = np.array([len(v) for v in vals], dtype=np.int64)
        # the j-th value of example b is at [b, j]: j counts from each example's first value
        starts = np.cumsum(counts) - counts
        j = np.arange(counts.sum(), dtype=np.int64) - np.repeat(starts, counts)
        idx = j[:, None] if scalar else np.stack([np.repeat(np.arange(len(vals), dtype=np.int64), counts), j], 1)
        longest = int(counts.max()) if len(counts) else 0
        sparse_out[0].append(idx)
        sparse_out[1].append(np.concatenate(vals) if vals else _array([], dt))
        sparse_out[2].append(np.asarray([longest] if scalar else [len(examples), longest], dtype=np.int64))
    dense_out = []
    for key, dt, shape, default in zip(dense_keys, dense_types, dense_shapes, dense_defaults):
        n = shape.num_elements()
        rows = []
        for b, ex in enumerate(examples):
            f = ex.features.feature.get(key)
            v = _values_of(f, key, dt, None if scalar else b) if f is not None else ()
            if f is None or not len(v) and n:
                if default is None:
                    raise InvalidArgumentError(f"{'' if scalar else 'Name: <unknown>, '}Feature: {key} (data type: "
                                               f"{_tf_type(dt)}) is required but could not be found.")
                v = list(default) if len(default) == n else list(default) * n
            if len(v) != n:
                raise _count_error(key, dt, None if scalar else b, len(v), shape)
            rows.append(_array(v, dt).reshape(shape.as_list()))
        out = rows[0] if scalar else (np.stack(rows) if rows else np.zeros([0] + shape.as_list(), dt._np))
        dense_out.append(out)
    result = tuple(sparse_out[0] + sparse_out[1] + sparse_out[2] + dense_out)
    return result


def _sequence_dense(key, dt, shape, default, indices, values, dense_shape, scalar):
    """A FixedLenSequenceFeature's [rows, *shape] (one Example) or [batch, rows, *shape] padded with its default
    (or zeros), from the feature's values read as a VarLenFeature; TensorFlow's errors for a count that is not a
    multiple of the row's size."""
    dims = list(shape)
    stride = int(np.prod(dims, dtype=np.int64))
    if scalar:
        if stride == 0 or len(values) % stride:
            raise InvalidArgumentError(f"Error while parsing feature with key {key}: number of elements should be "
                                       f"divisible by {stride}, found {len(values)} instead")
        return _array(values, dt).reshape([len(values) // stride] + dims)
    batch = int(dense_shape[0])
    counts = np.bincount(indices[:, 0], minlength=batch) if len(indices) else np.zeros(batch, np.int64)
    for b, c in enumerate(counts):
        if stride == 0 or c % stride:
            raise InvalidArgumentError(f"Name: <unknown>, Key: {key}, Index: {b}.  Number of {_tf_type(dt)} values "
                                       f"is not a multiple of stride length. Saw {int(c)} values but output shape "
                                       f"is: [?,{','.join(str(d) for d in dims)}]")
    rows = int(counts.max()) // stride if batch and stride else 0
    fill = default if default is not None else ((b"",) if dt is _dt.string else (0,))
    row = _array(list(fill) if len(fill) == stride else list(fill[:1]) * stride, dt)  # one padding row
    out = np.tile(row, (batch, rows)) if rows else _array([], dt).reshape(batch, 0)
    starts = np.cumsum(counts) - counts
    for b in range(batch):
        out[b, :counts[b]] = values[starts[b]:starts[b] + counts[b]]
    return out.reshape([batch, rows] + dims)


def _parse_infer(serialized, dense_keys, dense_types, dense_shapes, dense_defaults, sparse_keys, sparse_types,
                 scalar, seq_keys=(), seq_types=(), seq_shapes=(), seq_defaults=()):
    lead = [] if scalar else [serialized.shape[0] if serialized.shape.rank else None]
    rank = 1 if scalar else 2
    out = [(TensorShape([None, rank]), _dt.int64) for _ in sparse_keys]
    out += [(TensorShape([None]), dt) for dt in sparse_types]
    out += [(TensorShape([rank]), _dt.int64) for _ in sparse_keys]
    out += [(TensorShape(lead + shape.as_list()), dt) for dt, shape in zip(dense_types, dense_shapes)]
    out += [(TensorShape(lead + [None] + list(shape)), dt) for dt, shape in zip(seq_types, seq_shapes)]
    return out


PARSE_EXAMPLE = defop("ParseExampleV2", _parse_kernel, _parse_infer,
                      num_outputs=lambda a: 3 * len(a["sparse_keys"]) + len(a["dense_keys"])
                      + len(a.get("seq_keys", ())))


def _features(features):
    if not isinstance(features, dict) or not features:
        raise ValueError("Missing: features was empty." if isinstance(features, dict) else
                         f"`features` must be a dict of feature configurations, got {features!r}")
    dense, sparse, names, ragged, seq = [], [], [], set(), []
    for k in sorted(features):
        f = features[k]
        if isinstance(f, FixedLenFeature):
            if f.dtype not in _SUPPORTED:
                raise ValueError(f"Unsupported dtype {f.dtype.name} for feature {k!r}: use tf.int64, tf.float32 or "
                                 "tf.string.")
            shape = TensorShape(f.shape)
            if not shape.is_fully_defined():
                raise ValueError(f"First dimension of shape for feature {k} unknown. Consider using "
                                 "FixedLenSequenceFeature.")
            dense.append((k, f.dtype, shape, default_values(f)))
        elif type(f).__name__ == "FixedLenSequenceFeature":  # (sequence_example.py's class)
            if not f.allow_missing:
                raise ValueError("Unsupported: FixedLenSequenceFeature requires allow_missing to be True.")
            if f.dtype not in _SUPPORTED:
                raise ValueError(f"Unsupported dtype {f.dtype.name} for feature {k!r}: use tf.int64, tf.float32 or "
                                 "tf.string.")
            shape = TensorShape(f.shape)
            if not shape.is_fully_defined():
                raise ValueError(f"Shape of FixedLenSequenceFeature {k!r} must be fully defined, got {shape}")
            default = default_values(f)
            if default is not None and len(default) != 1:  # (TensorFlow reshapes it to one value)
                raise InvalidArgumentError(f"Input to reshape is a tensor with {len(default)} values, but the "
                                           "requested shape has 1")
            seq.append((k, f.dtype, tuple(shape.as_list()), default))
        elif isinstance(f, (VarLenFeature, RaggedFeature)):
            if f.dtype not in _SUPPORTED:
                raise ValueError(f"Unsupported dtype {f.dtype.name} for feature {k!r}.")
            if isinstance(f, RaggedFeature):
                ragged.add(k)
            sparse.append((getattr(f, "value_key", None) or k, f.dtype))
            names.append(k)
        else:
            raise ValueError(f"Unsupported feature configuration for {k!r}: {f!r} (use tf.io.FixedLenFeature, "
                             "tf.io.VarLenFeature or tf.io.RaggedFeature)")
    return dense, sparse, names, ragged, seq


def serialized_tensor(serialized, scalar):
    """The records to parse as a string tensor (a scalar one where `scalar`), or TensorFlow's error."""
    if isinstance(serialized, (list, tuple)):
        # a list of bytes through np.asarray becomes a fixed-width bytes array, which drops each record's
        # trailing NUL bytes (an Example often ends in one); an object array keeps them
        serialized = np.array(serialized, dtype=object)
    s = serialized if isinstance(serialized, Tensor) else convert_to_tensor(serialized, dtype=_dt.string)
    if s.dtype is not _dt.string:
        raise TypeError(f"`serialized` must be a string tensor, got {s.dtype.name}")
    if scalar and s.shape.rank not in (0, None):
        raise ValueError(f"Input serialized must be a scalar, got shape {s.shape}")
    return s


def _parse(serialized, features, scalar):
    dense, sparse, names, ragged, seq = _features(features)
    s = serialized_tensor(serialized, scalar)
    attrs = {"dense_keys": tuple(k for k, *_ in dense), "dense_types": tuple(d[1] for d in dense),
             "dense_shapes": tuple(d[2] for d in dense), "dense_defaults": tuple(d[3] for d in dense),
             "sparse_keys": tuple(k for k, _ in sparse), "sparse_types": tuple(t for _, t in sparse),
             "scalar": bool(scalar)}
    if seq:
        attrs.update({"seq_keys": tuple(q[0] for q in seq), "seq_types": tuple(q[1] for q in seq),
                      "seq_shapes": tuple(q[2] for q in seq), "seq_defaults": tuple(q[3] for q in seq)})
    outs = bind(PARSE_EXAMPLE, [s], attrs)
    if not isinstance(outs, list):
        outs = [outs]
    n = len(sparse)
    result = {}
    for i, k in enumerate(names):
        if k in ragged:
            result[k] = _ragged(outs[i], outs[n + i], outs[2 * n + i], scalar)
        else:
            result[k] = _sparse(outs[i], outs[n + i], outs[2 * n + i])
    for j, (k, *_) in enumerate(dense):
        result[k] = outs[3 * n + j]
    for j, (k, *_) in enumerate(seq):
        result[k] = outs[3 * n + len(dense) + j]
    return {k: result[k] for k in features}


def _sparse(indices, values, shape):
    """A VarLenFeature's value: tf.SparseTensor eagerly; inside traced functions (such as a dataset's map,
    whose elements are tensors) the same three tensors, by name."""
    from ..core import context
    from ..ops import composite
    if not context.executing_eagerly():
        return SparseTensorValue(indices, values, shape)
    return composite.kind("sparse")(indices, values, shape)  # the class, through the face's loader


def _ragged(indices, values, shape, scalar):
    """A RaggedFeature's value: the values (one Example), or a RaggedTensor with one row per Example."""
    if scalar:
        return values
    from ..ops import composite
    return composite.kind("ragged").from_value_rowids(values, indices[:, 0], nrows=shape[0], validate=False)


def parse_single_example(serialized, features, name=None, example_names=None):
    return _parse(serialized, features, True)


def parse_example(serialized, features, name=None, example_names=None):
    return _parse(serialized, features, False)
