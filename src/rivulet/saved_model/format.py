"""The on-disk format (docs/SAVED_MODEL_FORMAT.md): JSON metadata, tensors in uncompressed .npz files.

Values are written as JSON with tags for what JSON cannot say ({"tuple": [...]}, {"dtype": "float32"} ...),
and read back by a strict decoder: every value is checked against what it may be, so a damaged or hostile
file fails here with SavedModelError naming the file, never later and never by running anything.
"""
import base64
import collections.abc
import keyword
import math
import operator
import re
import zipfile

import numpy as np

from .. import dtypes as _dt
from ..errors import DataLossError
from ..shape import TensorShape, TensorSpec

FORMAT = "rivulet.saved_model"
VERSION = 1
META = "saved_model.json"
VARIABLES = "variables.npz"
TENSORS = "tensors.npz"

MAX_DEPTH = 64  # nesting of values; deeper is refused rather than risking a RecursionError
# Classes of attr values a saved graph may hold (control-flow ops keep their sub-graphs in them): a
# "subgraph" is written as a graph-library reference, an "object" as its fields. Nothing else is rebuilt.
# The keys are names in files: they stay as first written wherever the classes live now (ATTR_HOMES).
ATTR_CLASSES = {
    "rivulet.ops.control_flow_ops:SubGraph": "subgraph",
    "rivulet.ops.control_flow_ops:Branches": "object",
    "rivulet.ops.control_flow_ops:LoopBody": "object",
}
ATTR_HOMES = {
    "rivulet.ops.control_flow_ops:SubGraph": ("rivulet.function.control_flow", "SubGraph"),
    "rivulet.ops.control_flow_ops:Branches": ("rivulet.function.control_flow", "Branches"),
    "rivulet.ops.control_flow_ops:LoopBody": ("rivulet.function.control_flow", "LoopBody"),
}
_ATTR_KEYS = {home: key for key, home in ATTR_HOMES.items()}


def attr_class_key(cls):
    """The file's name for an attr value's class, or None when it is not one a file may hold."""
    return _ATTR_KEYS.get((cls.__module__, cls.__qualname__))
_KEY = re.compile(r"^[A-Za-z0-9_]{1,64}$")
_NUMERIC = {d for d in _dt._BY_NP if d != np.dtype(object)}


class SavedModelError(DataLossError):
    """A saved model file is truncated, corrupted or not something rivulet wrote. `path` names the file."""

    def __init__(self, path, problem):
        super().__init__(None, None, f"{path}: {problem}")
        self.path, self.problem = path, problem


class Invalid(Exception):
    """Raised by decoders; the loader turns it into SavedModelError naming the file."""


# ------------------------------------------------------------------------------------------ encoding
def encode(v, tensors, leaf=None):
    """A JSON-able form of an attr, trace type or structure. `tensors` stores arrays (TensorStore);
    `leaf(v)` may encode values of its own (returns None to decline)."""
    if leaf is not None:
        out = leaf(v)
        if out is not None:
            return out
    if isinstance(v, (np.ndarray, np.generic)):  # before float: np.float64 is a float too
        return tensors.put(v)
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else {"float": repr(v)}
    if isinstance(v, bytes):
        return {"bytes": _b64(v)}
    if isinstance(v, _dt.DType):
        return {"dtype": v.name}
    if isinstance(v, TensorShape):
        return {"shape": _shape(v)}
    if isinstance(v, TensorSpec):
        return {"spec": [_shape(v.shape), v.dtype.name, v.name]}
    if isinstance(v, tuple) and hasattr(v, "_fields"):
        return {"namedtuple": [type(v).__name__, list(v._fields), [encode(x, tensors, leaf) for x in v]]}
    if isinstance(v, tuple):
        return {"tuple": [encode(x, tensors, leaf) for x in v]}
    if isinstance(v, list):
        return {"list": [encode(x, tensors, leaf) for x in v]}
    if isinstance(v, dict) or (isinstance(v, collections.abc.Mapping) and hasattr(type(v), "_d")):
        return {"dict": [[encode(k, tensors, leaf), encode(x, tensors, leaf)] for k, x in v.items()]}
    from ..function.trace_type import Literal, VariableSpec, is_composite_spec
    if isinstance(v, Literal):
        return {"literal": encode(v.value, tensors)}
    if isinstance(v, VariableSpec):
        return {"varspec": [_shape(v.shape), v.dtype.name, bool(v.trainable)]}
    kind = _composite_kind(v) if is_composite_spec(v) else None
    if kind == "extension_type":  # a tf.experimental.ExtensionType's spec: its registered name and fields
        name = composite_spec_class(kind).name_of(v.value_type)
        if name is None:
            raise ValueError(f"No encoder for object {v!r} of type {type(v)}: an ExtensionType is saved under the "
                             f"name it is registered by (give {v.value_type.__qualname__} a `__name__`).")
        return {"extension_spec": [name, [[k, encode(x, tensors, leaf)] for k, x in v._fields_items()]]}
    if kind == "ragged":
        flat = getattr(v, "_flat_shape", None)
        return {"ragged_spec": [_shape(v.shape), v.dtype.name, int(v.ragged_rank),
                                None if flat is None else _shape(flat)]}
    if kind == "sparse":
        return {"sparse_spec": [_shape(v.shape), v.dtype.name]}
    spec = type(v).__tf_tracing_type__(v, None) if hasattr(v, "_to_components") else None
    if spec is not None and _composite_kind(spec) is not None:
        # a composite value (a function's RaggedTensor output): its spec and its component tensors
        return {"composite": [encode(spec, tensors), [encode(c, tensors, leaf) for c in v._to_components()]]}
    raise ValueError(f"cannot save a value of type {type(v).__name__}: {v!r}")


def _shape(s):
    return None if s.rank is None else [d for d in s.as_list()]


COMPOSITE_KINDS = ("ragged", "sparse")  # composite tensors whose specs a file may hold


def composite_spec_class(kind):
    """The spec class of a composite kind (tf.RaggedTensorSpec for "ragged"), through ops/composite.py's
    loaders: the composites are a subsystem beside this one."""
    from ..ops import composite
    return composite.kind(kind)._type_spec_class


def _composite_kind(spec):
    for kind in COMPOSITE_KINDS:
        if type(spec) is composite_spec_class(kind):
            return kind
    if hasattr(type(spec), "_tf_extension_type_fields") and hasattr(spec, "_component_specs"):
        return "extension_type"  # (composite_spec_class("extension_type"): extension_type/'s saving hooks)
    return None


def _b64(b):
    return base64.b64encode(b).decode("ascii")


class TensorStore:
    """Collects arrays for one .npz file; numeric arrays by key, strings inline as base64."""

    def __init__(self, prefix):
        self.prefix, self.arrays, self._ids, self._keep = prefix, {}, {}, []

    def put(self, v):
        scalar = isinstance(v, np.generic)
        a = np.asarray(v)
        if a.dtype == object or a.dtype.kind in "SU":
            items = [_b64(x if isinstance(x, bytes) else str(x).encode()) for x in a.reshape(-1)]
            return {"strings": {"shape": list(a.shape), "items": items}}
        key = self._ids.get(id(v))
        if key is None:
            key = f"{self.prefix}{len(self.arrays)}"
            self.arrays[key] = np.array(a, order="C")  # ascontiguousarray would make 0-d arrays 1-d
            self._ids[id(v)] = key
            self._keep.append(v)  # a value shared by several nodes is written once; ids stay unique
        return {"tensor": key, "scalar": True} if scalar else {"tensor": key}

    def write(self, path):
        np.savez(path, **self.arrays)


# ------------------------------------------------------------------------------------------ decoding
class Decoder:
    """Strict inverse of `encode`. `tensors` maps npz keys to arrays; `leaf(tag, body)` decodes tags the
    caller added (returns NotImplemented to decline)."""

    def __init__(self, tensors, leaf=None):
        self.tensors, self.leaf = tensors, leaf

    def __call__(self, v, depth=0):
        if depth > MAX_DEPTH:
            raise Invalid("values are nested too deeply")
        if v is None or isinstance(v, (bool, int, str)):
            return v
        if isinstance(v, float):
            return v
        if not isinstance(v, dict) or len(v) != 1 and set(v) != {"tensor", "scalar"}:
            raise Invalid(f"expected a tagged value, got {short(v)}")
        tag = "tensor" if "tensor" in v else next(iter(v))
        body = v[tag]
        if self.leaf is not None:
            out = self.leaf(tag, body, depth)
            if out is not NotImplemented:
                return out
        d = depth + 1
        if tag == "tuple":
            return tuple(self(x, d) for x in expect_list(body, tag))
        if tag == "list":
            return [self(x, d) for x in expect_list(body, tag)]
        if tag == "dict":
            out = {}
            for item in expect_list(body, tag):
                k, x = _pair(item, tag)
                k = self(k, d)
                if not isinstance(k, (str, int, bool, type(None), float, bytes)):
                    raise Invalid(f"dict key must be a plain value, got {short(k)}")
                out[k] = self(x, d)
            return out
        if tag == "namedtuple":
            name, fields, values = expect_list(body, tag, 3)
            return namedtuple_type(name, fields)(*[self(x, d) for x in expect_list(values, tag, len(fields))])
        if tag == "float":
            if body not in ("nan", "inf", "-inf"):
                raise Invalid(f"bad float {short(body)}")
            return float(body)
        if tag == "bytes":
            return b64(body)
        if tag == "dtype":
            return dtype(body)
        if tag == "shape":
            return shape(body)
        if tag == "spec":
            s, dt, name = expect_list(body, tag, 3)
            if name is not None and not isinstance(name, str):
                raise Invalid(f"bad TensorSpec name {short(name)}")
            return TensorSpec(shape(s), dtype(dt), name)
        if tag == "literal":
            from ..function.trace_type import Literal
            value = self(body, d)
            if not isinstance(value, (type(None), bool, int, float, str, bytes)):
                raise Invalid(f"a Literal must be a Python scalar, got {short(value)}")
            return Literal(value)
        if tag == "varspec":
            from ..function.trace_type import VariableSpec
            s, dt, trainable = expect_list(body, tag, 3)
            return VariableSpec(shape(s), dtype(dt), bool(trainable))
        if tag == "ragged_spec":
            s, dt, ragged_rank, flat = expect_list(body, tag, 4)
            s, dt = shape(s), dtype(dt)
            if dt == _dt.resource or dt == _dt.variant:
                raise Invalid(f"a RaggedTensorSpec cannot hold {dt.name} values")
            if not isinstance(ragged_rank, int) or isinstance(ragged_rank, bool) or ragged_rank < 0 or \
                    ragged_rank > (253 if s.rank is None else s.rank - 1):
                raise Invalid(f"bad ragged_rank {short(ragged_rank)} for a RaggedTensorSpec of shape {s}")
            flat = None if flat is None else shape(flat)
            if flat is not None and (flat.rank is None or ragged_rank + 1 + flat.rank > 254):
                raise Invalid(f"bad flat_values shape {flat} for a RaggedTensorSpec")
            return composite_spec_class("ragged")(s, dt, ragged_rank, flat)
        if tag == "sparse_spec":
            s, dt = expect_list(body, tag, 2)
            s, dt = shape(s), dtype(dt)
            if dt == _dt.resource or dt == _dt.variant:
                raise Invalid(f"a SparseTensorSpec cannot hold {dt.name} values")
            return composite_spec_class("sparse")(s, dt)
        if tag == "extension_spec":  # built by extension_type/ from a class registered under that name
            name, items = expect_list(body, tag, 2)
            if not isinstance(name, str):
                raise Invalid(f"bad ExtensionType name {short(name)}")
            fields = []
            for item in expect_list(items, tag):
                k, x = _pair(item, tag)
                if not isinstance(k, str):
                    raise Invalid(f"bad ExtensionType field name {short(k)}")
                fields.append((k, self(x, d)))
            try:
                return composite_spec_class("extension_type").make_spec(name, fields)
            except (TypeError, ValueError) as e:
                raise Invalid(str(e)) from None
        if tag == "composite":
            from ..core.tensor import SymbolicTensor
            spec, comps = expect_list(body, tag, 2)
            spec = self(spec, d)
            if _composite_kind(spec) is None:
                raise Invalid(f"a composite value needs a composite spec, got {short(spec)}")
            want = spec._component_specs
            comps = [self(c, d) for c in expect_list(comps, tag, len(want))]
            for c, w in zip(comps, want):
                if not isinstance(c, SymbolicTensor) or c.dtype != w.dtype or \
                        not c.shape.is_compatible_with(w.shape):
                    raise Invalid(f"the components of a {type(spec).__name__} must be graph outputs like {w}, "
                                  f"got {short(c)}")
            return spec._from_components(comps)
        if tag == "tensor":
            a = self.tensors.get(body) if isinstance(body, str) else None
            if a is None:
                raise Invalid(f"no tensor named {short(body)}")
            return a.reshape(-1)[0] if v.get("scalar") is True and a.ndim == 0 else a
        if tag == "strings":
            if not isinstance(body, dict) or set(body) != {"shape", "items"}:
                raise Invalid("bad string tensor")
            dims = [_dim(x) for x in expect_list(body["shape"], "shape")]
            items = [b64(x) for x in expect_list(body["items"], "items")]
            if len(items) != math.prod(dims):
                raise Invalid(f"string tensor of shape {dims} has {len(items)} items")
            a = np.empty(len(items), dtype=object)
            a[:] = items
            return a.reshape(dims)
        raise Invalid(f"unknown tag {short(tag)}")


def short(v):
    s = repr(v)
    return s if len(s) <= 60 else s[:57] + "..."


def expect_list(v, what, n=None):
    if not isinstance(v, list) or (n is not None and len(v) != n):
        raise Invalid(f"bad {what}: expected a list{'' if n is None else f' of {n}'}, got {short(v)}")
    return v


def _pair(v, what):
    return expect_list(v, what, 2)


def b64(s):
    if not isinstance(s, str):
        raise Invalid(f"expected base64 text, got {short(s)}")
    try:
        return base64.b64decode(s.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError):
        raise Invalid(f"bad base64 {short(s)}") from None


def dtype(name):
    dt = _dt._BY_NAME.get(name) if isinstance(name, str) else None
    if dt is None:
        raise Invalid(f"unknown dtype {short(name)}")
    return dt


def _dim(d):
    if d is None:
        return None
    if not isinstance(d, int) or isinstance(d, bool) or not 0 <= d < 2 ** 62:
        raise Invalid(f"bad dimension {short(d)}")
    return d


def shape(v):
    if v is None:
        return TensorShape(None)
    dims = [_dim(d) for d in expect_list(v, "shape")]
    if len(dims) > 254:
        raise Invalid(f"shape of rank {len(dims)}")
    return TensorShape(dims)


_NAMEDTUPLES = {}


def namedtuple_type(name, fields):
    """A namedtuple class rebuilt from its name and fields (the defining code need not exist)."""
    if not isinstance(name, str) or not name.isidentifier() or not isinstance(fields, list) or not all(
            isinstance(f, str) and f.isidentifier() and not f.startswith("_") and not keyword.iskeyword(f)
            for f in fields) or len(set(fields)) != len(fields) or len(fields) > 255:
        raise Invalid(f"bad namedtuple {short(name)} {short(fields)}")
    key = (name, tuple(fields))
    cls = _NAMEDTUPLES.get(key)
    if cls is None:
        cls = _NAMEDTUPLES[key] = _namedtuple(name, tuple(fields))
    return cls


def _namedtuple(name, fields):
    """What collections.namedtuple makes, built without it: it compiles source made of the field names,
    and these come from the file, so here they stay data (attribute names, strings)."""
    n = len(fields)

    def __new__(cls, *args, **kwargs):
        if len(args) > n:
            raise TypeError(f"{name}() takes {n} positional arguments but {len(args)} were given")
        values = list(args)
        for f in fields[len(args):]:
            if f not in kwargs:
                raise TypeError(f"{name}() missing required argument: '{f}'")
            values.append(kwargs.pop(f))
        if kwargs:
            raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(kwargs))}'")
        return tuple.__new__(cls, values)

    def _replace(self, **kwargs):
        return type(self)(*[kwargs.pop(f, v) for f, v in zip(fields, self)], **kwargs)

    ns = {"__slots__": (), "_fields": fields, "_field_defaults": {}, "__match_args__": fields, "__new__": __new__,
          "_make": classmethod(lambda cls, iterable: cls(*iterable)), "_replace": _replace,
          "_asdict": lambda self: dict(zip(fields, self)), "__getnewargs__": lambda self: tuple(self),
          "__repr__": lambda self: f"{name}({', '.join(f'{f}={v!r}' for f, v in zip(fields, self))})"}
    for i, f in enumerate(fields):
        ns[f] = property(operator.itemgetter(i), doc=f"Alias for field number {i}")
    return type(name, (tuple,), ns)


# ------------------------------------------------------------------------------------------ npz files
def read_npz(path):
    """{key: array} from an .npz written by TensorStore.write, checked before anything is allocated: only
    uncompressed members named KEY.npy, numeric dtypes (nothing that could hold pickled objects), sizes
    that agree with the headers and the file, and each member's CRC."""
    arrays = {}
    try:
        with zipfile.ZipFile(path) as z:
            for info in z.infolist():
                key = info.filename[:-4] if info.filename.endswith(".npy") else ""
                if not _KEY.match(key) or key in arrays:
                    raise Invalid(f"unexpected member {short(info.filename)}")
                if info.compress_type != zipfile.ZIP_STORED or info.file_size != info.compress_size:
                    raise Invalid(f"member {key}.npy is compressed")
                if info.flag_bits & 0x1:
                    raise Invalid(f"member {key}.npy is encrypted")
                with z.open(info) as f:
                    arrays[key] = _read_member(f, key, info.file_size)
    except Invalid:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError, NotImplementedError, OSError) as e:
        raise Invalid(f"not a valid .npz file ({e})") from None
    return arrays


# The one header np.save writes (keys in this order, a trailing ", }", padding spaces, a newline), parsed
# here rather than by NumPy's reader, which compiles the header text (ast.literal_eval).
_HEADER = re.compile(r"\{'descr': '([<>|=]?[A-Za-z]\d{0,2})', 'fortran_order': (True|False), "
                     r"'shape': \(((?:\d{1,19}, )*(?:\d{1,19},?)?)\), \} *\n")


def _read_member(f, key, size):
    magic = f.read(8)
    if len(magic) != 8 or magic[:6] != b"\x93NUMPY":
        raise Invalid(f"member {key}.npy is not a .npy array")
    version = (magic[6], magic[7])
    if version not in ((1, 0), (2, 0)):
        raise Invalid(f"member {key}.npy has format version {version}")
    width = 2 if version == (1, 0) else 4
    raw = f.read(width)
    n = int.from_bytes(raw, "little")
    if len(raw) != width or n > 1024:
        raise Invalid(f"member {key}.npy has a header of {n} bytes")
    m = _HEADER.fullmatch(f.read(n).decode("latin-1"))
    if m is None:
        raise Invalid(f"member {key}.npy has a header that np.save does not write")
    try:
        dt = np.dtype(m.group(1))
    except TypeError:
        raise Invalid(f"member {key}.npy has an unknown dtype {m.group(1)!r}") from None
    shp = tuple(int(d) for d in m.group(3).split(",") if d.strip())
    fortran = m.group(2) == "True"
    if dt not in _NUMERIC or dt.hasobject:
        raise Invalid(f"member {key}.npy has dtype {dt}, which a saved model never holds")
    if len(shp) > 254 or not all(0 <= d < 2 ** 62 for d in shp):
        raise Invalid(f"member {key}.npy has a bad shape {shp}")
    nbytes = math.prod(shp) * dt.itemsize
    if nbytes != size - f.tell():
        raise Invalid(f"member {key}.npy holds {size - f.tell()} bytes of data, its header says {nbytes}")
    data = f.read(nbytes)
    if len(data) != nbytes or f.read(1):
        raise Invalid(f"member {key}.npy is truncated")
    a = np.frombuffer(data, dtype=dt).reshape(shp, order="F" if fortran else "C")
    return np.array(a, dtype=dt.newbyteorder("="), order="C")
