"""tf.train.SequenceExample (with FeatureList / FeatureLists) and tf.io.parse_single_sequence_example /
parse_sequence_example, read and written in the protobuf wire format by hand, as example_proto.py does Example:

    SequenceExample { Features context = 1; FeatureLists feature_lists = 2; }
    FeatureLists    { map<string, FeatureList> feature_list = 1; }      (map entry: key = 1, value = 2)
    FeatureList     { repeated Feature feature = 1; }

The context is an Example's Features in the same field, so it is parsed by ParseExampleV2 (parsing.py); the
feature lists by the op here. Each sequence feature is FixedLenSequenceFeature (a dense [steps, *shape] tensor,
[batch, steps, *shape] padded with its default_value), VarLenFeature (a SparseTensor indexed [step, j] or
[example, step, j]) or RaggedFeature (a RaggedTensor [steps, None] or [batch, None, None]). A value never changes
dtype: a list of another kind is InvalidArgumentError naming the feature list and step, as TensorFlow's.
"""
import collections

import numpy as np

from .. import dtypes as _dt
from ..core.dispatch import bind
from ..core.op import defop
from ..errors import InvalidArgumentError
from ..shape import TensorShape
from . import example_proto as ep
from .parsing import (_SUPPORTED, FixedLenFeature, RaggedFeature, VarLenFeature, _array, _parse, _tf_type,
                      default_values, serialized_tensor)


class FixedLenSequenceFeature(collections.namedtuple("FixedLenSequenceFeature",
                                                     ["shape", "dtype", "allow_missing", "default_value"])):
    """A feature list whose every step holds `shape`'s values: read as a [steps, *shape] tensor."""

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, _dt.as_dtype(dtype), allow_missing, default_value)

    def __repr__(self):
        return (f"FixedLenSequenceFeature(shape={self.shape!r}, dtype={self.dtype!r}, "
                f"allow_missing={self.allow_missing!r}, default_value={self.default_value!r})")


# -- messages -------------------------------------------------------------------------------------------------
class FeatureList(ep._Message):
    def __init__(self, feature=()):
        self.feature = list(feature)
        for f in self.feature:
            if not isinstance(f, ep.Feature):
                raise TypeError(f"FeatureList.feature values must be tf.train.Feature, got {type(f).__name__}")

    def _encode(self):
        return b"".join(ep._delimited(b"\x0a", f._encode()) for f in self.feature)

    @classmethod
    def _decode(cls, b):
        out = cls()
        out.feature = [ep.Feature._decode(v) for f, w, v in ep.fields(b) if f == 1 and w == 2]
        return out

    def _text(self):
        lines = []
        for f in self.feature:
            lines += ["feature {"] + ["  " + ln for ln in f._text()] + ["}"]
        return lines


class _FeatureListMap(dict):
    def __missing__(self, key):
        self[key] = value = FeatureList()
        return value


class FeatureLists(ep._Message):
    def __init__(self, feature_list=None):
        self.feature_list = _FeatureListMap()
        for k, v in dict(feature_list or {}).items():
            if not isinstance(v, FeatureList):
                raise TypeError(f"FeatureLists.feature_list values must be tf.train.FeatureList, got "
                                f"{type(v).__name__}")
            self.feature_list[str(k)] = v

    def _encode(self):
        out = []
        for k, v in self.feature_list.items():
            entry = ep.bytes_field(1, k.encode()) + ep._delimited(b"\x12", v._encode())
            out.append(ep._delimited(b"\x0a", entry))
        return b"".join(out)

    @classmethod
    def _decode(cls, b, out=None):
        out = cls() if out is None else out
        for name, value in ep.map_entries(b, "feature list"):
            out.feature_list[name] = FeatureList._decode(value)
        return out

    def _text(self):
        lines = []
        for k, v in self.feature_list.items():
            lines += ["feature_list {", f'  key: "{k}"', "  value {"] + ["    " + ln for ln in v._text()] \
                + ["  }", "}"]
        return lines


class SequenceExample(ep._Message):
    def __init__(self, context=None, feature_lists=None):
        if context is not None and not isinstance(context, ep.Features):
            raise TypeError(f"SequenceExample.context must be tf.train.Features, got {type(context).__name__}")
        if feature_lists is not None and not isinstance(feature_lists, FeatureLists):
            raise TypeError("SequenceExample.feature_lists must be tf.train.FeatureLists, got "
                            f"{type(feature_lists).__name__}")
        self._has = (context is not None, feature_lists is not None)
        self.context = context if context is not None else ep.Features()
        self.feature_lists = feature_lists if feature_lists is not None else FeatureLists()

    def _encode(self):
        out = b""
        if self.context.feature or self._has[0]:
            out += ep._delimited(b"\x0a", self.context._encode())
        if self.feature_lists.feature_list or self._has[1]:
            out += ep._delimited(b"\x12", self.feature_lists._encode())
        return out

    @classmethod
    def _decode(cls, b):
        out = cls()
        for f, w, v in ep.fields(b):
            if f == 1 and w == 2:
                out.context = ep.Features._decode(v, out.context)
                out._has = (True, out._has[1])
            elif f == 2 and w == 2:
                out.feature_lists = FeatureLists._decode(v, out.feature_lists)
                out._has = (out._has[0], True)
        return out

    def _text(self):
        lines = []
        if self.context.feature or self._has[0]:
            lines += ["context {"] + ["  " + ln for ln in self.context._text()] + ["}"]
        if self.feature_lists.feature_list or self._has[1]:
            lines += ["feature_lists {"] + ["  " + ln for ln in self.feature_lists._text()] + ["}"]
        return lines


# -- the op ---------------------------------------------------------------------------------------------------
_KIND = {"list": "int64_list", "float": "float_list", "bytes": "bytes_list"}
_WANT = {_dt.int64: "int64_list", _dt.float32: "float_list", _dt.string: "bytes_list"}


def _steps(feature_list, key, dt):
    """Each step's values of one feature list, as arrays of `dt` (a list of another kind: TensorFlow's error)."""
    out = []
    for i, f in enumerate(feature_list.feature):
        kind = f.WhichOneof("kind")
        if kind is None:
            out.append(_array([], dt))
        elif kind != _WANT[dt]:
            raise InvalidArgumentError(f"Name: <unknown>, Feature list: {key}, Index: {i}.  Data types don't "
                                       f"match. Expected type: {_tf_type(dt)}")
        else:
            out.append(getattr(f, kind)._array())
    return out


def _seq_kernel(serialized, keys, kinds, types, shapes, defaults, missing_ok, scalar):
    records = [serialized] if scalar else np.asarray(serialized, dtype=object).reshape(-1).tolist()
    lists = []
    for r in records:
        r = r.item() if isinstance(r, np.ndarray) else r
        try:
            lists.append(SequenceExample._decode(bytes(r)).feature_lists.feature_list)
        except (ep.DecodeError, TypeError):
            raise InvalidArgumentError("Invalid protocol message input, example id: <unknown>") from None
    outs = []
    for key, kind, dt, shape, default, ok in zip(keys, kinds, types, shapes, defaults, missing_ok):
        per = []  # per example: its steps' value arrays
        for fl in lists:
            if key not in fl:
                if kind == "dense" and not ok:
                    raise InvalidArgumentError(f"Name: <unknown>, Feature list '{key}' is required but could not "
                                               "be found.  Did you mean to include it in feature_list_dense_missing"
                                               "_assumed_empty or feature_list_dense_defaults?")
                per.append([])
            else:
                per.append(_steps(fl[key], key, dt))
        empty = _array([], dt)
        if kind == "dense":
            dims = list(shape)
            n = int(np.prod(dims, dtype=np.int64))
            for steps in per:
                for i, v in enumerate(steps):
                    if len(v) != n:
                        raise InvalidArgumentError(f"Name: <unknown>, Key: {key}, Index: {i}.  Number of values != "
                                                   f"expected.  values size: {len(v)} but output shape: {dims}")
            lengths = np.array([len(s) for s in per], dtype=np.int64)
            longest = int(lengths.max()) if len(lengths) else 0
            fill = default if default is not None else ((b"",) if dt is _dt.string else (0,))
            rows = []
            for steps in per:
                body = np.concatenate(steps) if steps else empty
                pad = (longest - len(steps)) * n
                if pad:
                    padv = _array(list(fill) * (pad // len(fill)) if len(fill) == n else list(fill[:1]) * pad, dt)
                    body = np.concatenate([body, padv])
                rows.append(_array(body, dt).reshape([longest if not scalar else len(steps)] + dims))
            value = rows[0] if scalar else (np.stack(rows) if rows else np.zeros([0, 0] + dims, dt._np))
            outs += [value, lengths, np.zeros(0, np.int64)]
        else:
            step_counts = np.array([len(s) for s in per], dtype=np.int64)
            flat = [v for steps in per for v in steps]
            counts = np.array([len(v) for v in flat], dtype=np.int64)
            values = np.concatenate(flat) if flat else empty
            values = _array(values, dt)
            if kind == "ragged":
                outs += [values, counts, step_counts]
            else:  # sparse: [step, j] or [example, step, j]
                starts = np.cumsum(counts) - counts
                j = np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(starts, counts)
                step_of = np.concatenate([np.arange(c, dtype=np.int64) for c in step_counts]) if len(flat) else \
                    np.zeros(0, np.int64)
                t = np.repeat(step_of, counts)
                longest = int(counts.max()) if len(counts) else 0
                if scalar:
                    idx = np.stack([t, j], 1) if len(j) else np.zeros((0, 2), np.int64)
                    dense_shape = np.array([int(step_counts[0]), longest], np.int64)
                else:
                    ex_of = np.repeat(np.repeat(np.arange(len(per), dtype=np.int64), step_counts), counts)
                    idx = np.stack([ex_of, t, j], 1) if len(j) else np.zeros((0, 3), np.int64)
                    most = int(step_counts.max()) if len(step_counts) else 0
                    dense_shape = np.array([len(per), most, longest], np.int64)
                outs += [idx, values, dense_shape]
    return tuple(outs)


def _seq_infer(serialized, keys, kinds, types, shapes, defaults, missing_ok, scalar):
    lead = [] if scalar else [serialized.shape[0] if serialized.shape.rank else None]
    out = []
    for kind, dt, shape in zip(kinds, types, shapes):
        if kind == "dense":
            out += [(TensorShape(lead + [None] + list(shape)), dt), (TensorShape(lead), _dt.int64),
                    (TensorShape([0]), _dt.int64)]
        elif kind == "ragged":
            out += [(TensorShape([None]), dt), (TensorShape([None]), _dt.int64), (TensorShape(lead or [1]),
                                                                                _dt.int64)]
        else:
            rank = 2 if scalar else 3
            out += [(TensorShape([None, rank]), _dt.int64), (TensorShape([None]), dt), (TensorShape([rank]),
                                                                                      _dt.int64)]
    return out


PARSE_SEQUENCE_EXAMPLE = defop("ParseSequenceExampleV2", _seq_kernel, _seq_infer,
                               num_outputs=lambda a: 3 * len(a["keys"]))


def _sequence_features(features):
    keys, kinds, types, shapes, defaults, missing = [], [], [], [], [], []
    for k in sorted(features):
        f = features[k]
        if isinstance(f, FixedLenSequenceFeature):
            kind, shape = "dense", TensorShape(f.shape)
            if not shape.is_fully_defined():
                raise ValueError(f"Shape of FixedLenSequenceFeature {k!r} must be fully defined, got {shape}")
            default = default_values(f)
            shape, ok = tuple(shape.as_list()), bool(f.allow_missing)
        elif isinstance(f, VarLenFeature):
            kind, shape, default, ok = "sparse", (), None, True
        elif isinstance(f, RaggedFeature):
            if f.value_key not in (None, k):
                raise ValueError(f"RaggedFeature {k!r}: a sequence feature's value_key must be its key")
            kind, shape, default, ok = "ragged", (), None, True
        elif isinstance(f, FixedLenFeature):
            raise ValueError(f"Unsupported FixedLenFeature {f!r} for key {k!r}")
        else:
            raise ValueError(f"Unsupported feature configuration for {k!r}: {f!r} (use "
                             "tf.io.FixedLenSequenceFeature, tf.io.VarLenFeature or tf.io.RaggedFeature)")
        if f.dtype not in _SUPPORTED:
            raise ValueError(f"Unsupported dtype {f.dtype.name} for feature {k!r}: use tf.int64, tf.float32 or "
                             "tf.string.")
        keys.append(k)
        kinds.append(kind)
        types.append(f.dtype)
        shapes.append(shape)
        defaults.append(default)
        missing.append(ok)
    return keys, kinds, types, shapes, defaults, missing


def _parse_sequence(serialized, context_features, sequence_features, scalar):
    if not context_features and not sequence_features:
        raise ValueError("Missing features.")
    s = serialized_tensor(serialized, scalar)
    context = _parse(s, context_features, scalar) if context_features else {}
    seq, lengths = {}, {}
    if sequence_features:
        keys, kinds, types, shapes, defaults, missing = _sequence_features(sequence_features)
        attrs = {"keys": tuple(keys), "kinds": tuple(kinds), "types": tuple(types), "shapes": tuple(shapes),
                 "defaults": tuple(defaults), "missing_ok": tuple(missing), "scalar": bool(scalar)}
        outs = bind(PARSE_SEQUENCE_EXAMPLE, [s], attrs)
        outs = outs if isinstance(outs, list) else [outs]
        from ..ops import composite
        from .parsing import _sparse
        for i, (k, kind) in enumerate(zip(keys, kinds)):
            a, b, c = outs[3 * i:3 * i + 3]
            if kind == "dense":
                seq[k] = a
                lengths[k] = b
            elif kind == "sparse":
                seq[k] = _sparse(a, b, c)
            else:
                rt = composite.kind("ragged")
                splits = sequence_features[k].row_splits_dtype
                from ..ops.math_ops import cast
                inner = rt.from_row_lengths(a, cast(b, splits), validate=False)
                seq[k] = inner if scalar else rt.from_row_lengths(inner, cast(c, splits), validate=False)
        seq = {k: seq[k] for k in sequence_features}
    return context, seq, lengths


def parse_single_sequence_example(serialized, context_features=None, sequence_features=None, example_name=None,
                                  name=None):
    """(context dict, feature list dict) of one serialized SequenceExample."""
    context, seq, _ = _parse_sequence(serialized, context_features, sequence_features, True)
    return context, seq


def parse_sequence_example(serialized, context_features=None, sequence_features=None, example_names=None,
                           name=None):
    """(context dict, feature list dict, lengths of the FixedLenSequenceFeature lists) of a batch."""
    return _parse_sequence(serialized, context_features, sequence_features, False)
