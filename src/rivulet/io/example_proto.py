"""tf.train.Example and its parts, read and written in the protobuf wire format by hand (no protobuf
dependency). Field numbers are those of TensorFlow's example.proto / feature.proto:

    Example   { Features features = 1; }
    Features  { map<string, Feature> feature = 1; }      (map entry: key = 1, value = 2)
    Feature   { oneof kind { BytesList bytes_list = 1; FloatList float_list = 2; Int64List int64_list = 3; } }
    BytesList { repeated bytes value = 1; }   FloatList { repeated float value = 1 [packed]; }
    Int64List { repeated int64 value = 1 [packed]; }

Decoding never executes or evaluates anything; malformed bytes raise DecodeError.
"""
import struct

import numpy as np

from ..formats.wire import bytes_field, encode_varint as _varint, varint_tables
from ..formats.wire import decode_varints as _decode_varints, fields as _fields, read_varint as _read_varint


class DecodeError(Exception):
    """The bytes are not a valid message of this type (protobuf's message.DecodeError)."""


# -- wire reading ---------------------------------------------------------------------------------------------
def _fail(kind, detail=None):
    what = {"varint": "truncated varint", "field 0": "field number 0", "truncated": f"truncated {detail}",
            "wire type": f"unsupported wire type {detail}"}[kind]
    return DecodeError(f"Wire format was corrupt: {what}")


def read_varint(b, i):
    return _read_varint(b, i, len(b), _fail)


def fields(b):
    """Yields (field number, wire type, value) of a message: ints for varints, bytes for the rest."""
    return _fields(b, _fail)


_ONE_BYTE = [bytes([i]) for i in range(128)]
_TABLES = []  # (varints of 0 .. 16383, 14-bit groups with continuation bits): formats.wire's, on first use


def _tables():
    _TABLES.extend(varint_tables())
    return _TABLES


_F32_MAX = float(np.finfo(np.float32).max)
_F32_CODECS = {}  # n -> struct.Struct("<nf")


def _f32_codec(n):
    codec = _F32_CODECS[n] = struct.Struct(f"<{n}f")
    return codec


def _delimited(tag, b):
    """A length-delimited field: its one-byte key `tag`, the length, the bytes."""
    n = len(b)
    return tag + (_ONE_BYTE[n] if n < 128 else _varint(n)) + b


_LENS = {}  # length (128 or more) -> its varint


def _len_varint(n):
    v = _LENS.get(n)
    if v is None:
        v = _varint(n)
        if len(_LENS) < 65536:
            _LENS[n] = v
    return v


def _signed64(v):
    return v - (1 << 64) if v >= 1 << 63 else v


# -- messages ----------------------------------------------------------------------------------------------
class _Message:
    def SerializeToString(self, deterministic=None):
        return self._encode()

    def ParseFromString(self, data):
        fresh = type(self).FromString(data)
        self._become(fresh)
        return len(data)

    def _become(self, fresh):
        """Takes `fresh`'s state (nothing of its own kept but its link to a parent, as protobuf's)."""
        parent = self.__dict__.get("_parent")
        self.__dict__.clear()
        self.__dict__.update(fresh.__dict__)
        if parent is not None:
            self._parent = parent

    @classmethod
    def FromString(cls, data):
        try:
            return cls._decode(bytes(data))
        except DecodeError as e:
            raise DecodeError(f"Error parsing message with type 'tensorflow.{cls.__name__}': {e}") from None

    def ByteSize(self):
        return len(self._encode())

    def CopyFrom(self, other):
        """Becomes a copy of `other` (this type, or any message with the same wire format)."""
        self.ParseFromString(other.SerializeToString())

    def MergeFrom(self, other):
        self.ParseFromString(self.SerializeToString() + other.SerializeToString())

    def SetInParent(self):
        """Marks this sub-message as set in the message that handed it out (protobuf's, for text_format)."""
        parent = self.__dict__.pop("_parent", None)
        if parent is not None:
            parent[0]._adopt(parent[1], self)

    def Clear(self):
        self._become(type(self)())

    def __eq__(self, other):
        return type(self) is type(other) and self._encode() == other._encode()

    def __str__(self):
        return "".join(ln + "\n" for ln in self._text())

    def __repr__(self):
        return str(self)


_SCALAR_BELOW = 256  # bytes


def decode_varints(b):
    """Every varint of a packed field at once, as uint64 (formats.wire.decode_varints). Raises DecodeError where
    read_varint would: a varint cut short or over ten bytes long."""
    if len(b) < _SCALAR_BELOW:  # a few values: NumPy's per-call cost exceeds a plain loop's
        out, i = [], 0
        while i < len(b):
            x, i = read_varint(b, i)
            out.append(x)
        return np.array(out, dtype=np.uint64)
    got = _decode_varints(np.frombuffer(b, dtype=np.uint8))
    if got is None:
        raise _fail("varint")
    return got[0]


class _List(_Message):
    """A repeated field. Decoding keeps the values as a NumPy array (what parse_example reads); `value`
    turns them into a Python list, as protobuf's repeated field reads, on first use. Int64List and FloatList
    built from a usual list keep its packed payload too (made while the values were checked), which
    serialising writes as it is; `value` hands the list out to be changed, so it drops the payload."""

    _payload = None

    def __init__(self, value=()):
        self._vals, self._arr = self._convert_all(value), None

    @classmethod
    def _convert_all(cls, value):
        """[_convert(v) for v in value]: each list's fast form for the usual values, the check else."""
        return [cls._convert(v) for v in value]

    @property
    def value(self):
        vals = self._vals
        if vals is None:
            vals = self._vals = self._arr.tolist() if self._arr is not None else self._unpacked()
            self._arr = None
        self._payload = None
        return vals

    @value.setter
    def value(self, v):
        self._vals, self._arr, self._payload = self._convert_all(v), None, None

    def _count(self):
        if self._vals is not None:
            return len(self._vals)
        return len(self._arr) if self._arr is not None else len(self._unpacked())

    def _array(self):
        """The values as a NumPy array of the list's dtype."""
        if self._arr is not None:
            return self._arr
        return self._to_array(self._vals if self._vals is not None else self._unpacked())

    @classmethod
    def _from_array(cls, arr):
        out = cls()
        out._vals, out._arr = None, arr
        return out

    @classmethod
    def _decode(cls, b):
        """Numeric lists: field 1, packed (wire type 2) or one value per field, as protobuf accepts both."""
        parts, singles = [], []
        for f, w, v in fields(b):
            if f == 1 and w == 2:
                if singles:
                    parts.append(cls._to_array(singles))
                    singles = []
                parts.append(cls._packed(v))
            elif f == 1 and w == cls._single_wire:
                singles.append(cls._single(v))
        if singles or not parts:
            parts.append(cls._to_array(singles))
        return cls._from_array(parts[0] if len(parts) == 1 else np.concatenate(parts))

    def _text(self):
        return [f"value: {self._show(v)}" for v in self.value]


class BytesList(_List):
    def __init__(self, value=()):
        if type(value) is list and len(value) == 1 and type(value[0]) is bytes:  # the usual: one value, which
            self._vals, self._arr, self._payload = [value[0]], None, value[0]  # is the list's payload as it is
        else:
            self._vals, self._arr = self._convert_all(value), None

    @staticmethod
    def _convert(v):
        if isinstance(v, str):
            return v.encode()
        if not isinstance(v, (bytes, bytearray, np.bytes_)):
            raise TypeError(f"{v!r} has type {type(v).__name__}, but expected one of: bytes")
        return bytes(v)

    @classmethod
    def _convert_all(cls, value):
        vals = list(value)
        for v in vals:
            if type(v) is not bytes:
                return [cls._convert(v) for v in vals]
        return vals

    @staticmethod
    def _show(v):
        return '"' + "".join(_escape(c) for c in v) + '"'

    def _encode(self):
        vals = self.value
        if len(vals) == 1:
            return _delimited(b"\x0a", vals[0])
        return b"".join([_delimited(b"\x0a", v) for v in vals])

    @staticmethod
    def _to_array(vals):
        a = np.empty(len(vals), dtype=object)
        a[:] = vals
        return a

    @classmethod
    def _decode(cls, b):
        return cls._from_array(cls._to_array([bytes(v) for f, w, v in fields(b) if f == 1 and w == 2]))


def _escape(c):
    if c in b'"\'\\':
        return "\\" + chr(c)
    if c == 10:
        return "\\n"
    if c == 13:
        return "\\r"
    if c == 9:
        return "\\t"
    if 32 <= c < 127:
        return chr(c)
    return f"\\{c:03o}"


class FloatList(_List):
    def __init__(self, value=()):
        if type(value) is list and len(value) <= 64:  # the usual: a short list, packed (so rounded to float32)
            codec = _F32_CODECS.get(len(value))  # at once; its values are read back from the payload when asked
            if codec is not None:
                try:
                    self._payload = codec.pack(*value)
                except Exception:
                    pass
                else:
                    self._vals = self._arr = None
                    return
        self._vals, self._arr = self._convert_all(value), None

    def _unpacked(self):
        p = self._payload
        return list(_F32_CODECS[len(p) >> 2].unpack(p))

    @staticmethod
    def _convert(v):
        if isinstance(v, (str, bytes)):
            raise TypeError(f"{v!r} has type {type(v).__name__}, but expected one of: int, float")
        with np.errstate(over="ignore"):  # past float32's range is inf, as protobuf's FloatList stores it
            return float(np.float32(v))

    @classmethod
    def _convert_all(cls, value):
        vals = value.tolist() if isinstance(value, np.ndarray) and value.dtype.kind == "f" else list(value)
        if len(vals) <= 64:  # a short list: rounded to float32 by one struct pack/unpack, which takes what float()
            # takes; anything else (a str, a value past float32's range, which NumPy makes inf) goes the ways
            codec = _F32_CODECS.get(len(vals)) or _f32_codec(len(vals))  # below, with their errors
            try:
                return list(codec.unpack(codec.pack(*vals)))
            except Exception:
                pass
        for v in vals:
            if type(v) is not float and type(v) is not int:
                return [cls._convert(v) for v in vals]
        if not vals:
            return vals
        try:
            total = sum(vals)
            if total == total and -_F32_MAX <= min(vals) and max(vals) <= _F32_MAX:  # no NaN, nothing to overflow
                return np.array(vals, dtype=np.float32).tolist()
            with np.errstate(over="ignore"):  # as np.float32(v) gives inf
                return np.array(vals, dtype=np.float32).tolist()
        except OverflowError:  # an int too large for a float
            return [cls._convert(v) for v in vals]

    @staticmethod
    def _show(v):
        s = "%.6g" % v  # protobuf's text format: the shorter %g form that reads back as the same float32
        return s if np.float32(float(s)) == np.float32(v) else "%.9g" % v

    def _encode(self):
        if self._payload is not None:
            return _delimited(b"\x0a", self._payload) if self._payload else b""
        vals = self._vals
        if vals is not None and len(vals) <= 64:  # a short list of (float32-exact) floats: one struct.pack
            if not vals:
                return b""
            return _delimited(b"\x0a", (_F32_CODECS.get(len(vals)) or _f32_codec(len(vals))).pack(*vals))
        if not self._count():
            return b""
        return _delimited(b"\x0a", self._array().astype("<f4", copy=False).tobytes())

    @staticmethod
    def _to_array(vals):
        return np.asarray(vals, dtype=np.float32).reshape(-1)

    @staticmethod
    def _packed(v):
        if len(v) % 4:
            raise DecodeError("Wire format was corrupt: packed floats")
        return np.frombuffer(v, dtype="<f4").astype(np.float32)

    @staticmethod
    def _single(v):
        return struct.unpack("<f", v)[0]

    _single_wire = 5


class Int64List(_List):
    def __init__(self, value=()):
        if type(value) is list:  # the usual: a list of ints in range, copied, and its packed payload made as
            if len(value) == 1:  # each value is checked (the varints of up to 42 bits from the 14-bit tables)
                v = value[0]
                if type(v) is int and -0x8000000000000000 <= v <= 0x7FFFFFFFFFFFFFFF:
                    self._vals, self._arr, self._payload = [v], None, _ONE_BYTE[v] if 0 <= v < 128 else _varint(v)
                    return
            elif len(value) <= 64:
                small, pair = _TABLES or _tables()
                pieces = []
                for v in value:
                    if type(v) is not int:
                        break
                    if v >= 0:
                        if v < 16384:
                            pieces.append(small[v])
                        elif v < 268435456:
                            pieces += (pair[v & 16383], small[v >> 14])
                        elif v < 4398046511104:
                            pieces += (pair[v & 16383], pair[v >> 14 & 16383], small[v >> 28])
                        elif v <= 0x7FFFFFFFFFFFFFFF:
                            pieces.append(_varint(v))
                        else:
                            break
                    elif v >= -0x8000000000000000:
                        pieces.append(_varint(v))
                    else:
                        break
                else:
                    self._vals, self._arr, self._payload = value[:], None, b"".join(pieces)
                    return
            else:
                for v in value:
                    if type(v) is not int or not -0x8000000000000000 <= v <= 0x7FFFFFFFFFFFFFFF:
                        break
                else:
                    self._vals, self._arr = value[:], None
                    return
        self._vals, self._arr = self._convert_all(value), None

    @staticmethod
    def _convert(v):
        if isinstance(v, (float, str, bytes)) or isinstance(v, np.floating):
            raise TypeError(f"{v!r} has type {type(v).__name__}, but expected one of: int")
        if isinstance(v, bool):  # never stored as 1/0 (protobuf's refusal, as in TensorFlow 2.21)
            raise TypeError("Field tensorflow.Int64List.value: Expected an int, got a boolean.")
        if isinstance(v, np.bool_):
            raise TypeError(f"'{type(v).__module__}.{type(v).__name__}' object cannot be interpreted as an integer")
        v = int(v)
        if not -(1 << 63) <= v < 1 << 63:
            raise ValueError(f"Value out of range: {v}")
        return v

    @classmethod
    def _convert_all(cls, value):
        vals = list(value)
        for v in vals:
            if type(v) is not int or not -0x8000000000000000 <= v <= 0x7FFFFFFFFFFFFFFF:
                return [cls._convert(v) for v in vals]
        return vals

    _show = staticmethod(str)

    def _encode(self):
        if self._payload is not None:
            return _delimited(b"\x0a", self._payload) if self._payload else b""
        vals = self._vals if self._vals is not None else self.value
        if not vals:
            return b""
        return _delimited(b"\x0a", _varint(vals[0]) if len(vals) == 1 else b"".join([_varint(v) for v in vals]))

    @staticmethod
    def _to_array(vals):
        return np.asarray(vals, dtype=np.int64).reshape(-1)

    @staticmethod
    def _packed(v):
        return decode_varints(v).view(np.int64)

    _single = staticmethod(_signed64)
    _single_wire = 0


_KINDS = (("bytes_list", 1, BytesList), ("float_list", 2, FloatList), ("int64_list", 3, Int64List))
_CLASS_OF = {n: c for n, _, c in _KINDS}
_TAG_OF = {n: bytes([f << 3 | 2]) for n, f, _ in _KINDS}
_KEY_FIELDS = {}  # feature name -> its map entry's key field


class Feature(_Message):
    def __init__(self, bytes_list=None, float_list=None, int64_list=None):
        if bytes_list is not None:
            kind, value, cls = "bytes_list", bytes_list, BytesList
            others = float_list is not None or int64_list is not None
        elif int64_list is not None:
            kind, value, cls = "int64_list", int64_list, Int64List
            others = float_list is not None
        elif float_list is not None:
            kind, value, cls, others = "float_list", float_list, FloatList, False
        else:
            self._kind = self._value = None
            return
        if others:
            raise ValueError("A Feature holds one of bytes_list, float_list, int64_list.")
        if type(value) is not cls and not isinstance(value, cls):
            raise TypeError(f"Message must be initialized with a dict or a {kind} message")
        self._kind, self._value = kind, value

    def WhichOneof(self, name):
        return self._kind

    def HasField(self, name):
        return self._kind == name

    def _get(self, name):
        if self._kind == name:
            return self._value
        child = _CLASS_OF[name]()
        child._parent = (self, name)  # set in this Feature by SetInParent (protobuf's text_format does)
        return child

    def _adopt(self, name, child):
        if self._kind is None:
            self._kind, self._value = name, child

    bytes_list = property(lambda self: self._get("bytes_list"))
    float_list = property(lambda self: self._get("float_list"))
    int64_list = property(lambda self: self._get("int64_list"))

    def _encode(self):
        if self._kind is None:
            return b""
        return _delimited(_TAG_OF[self._kind], self._value._encode())

    @classmethod
    def _decode(cls, b):
        out = cls()
        for f, w, v in fields(b):
            for name, num, c in _KINDS:
                if f == num and w == 2:
                    out._kind, out._value = name, c._decode(v)
        return out

    def _text(self):
        if self._kind is None:
            return []
        return [self._kind + " {"] + ["  " + ln for ln in self._value._text()] + ["}"]


class _FeatureMap(dict):
    """Features.feature: a missing key reads as a new empty Feature, stored (protobuf's message maps do)."""

    def __missing__(self, key):
        self[key] = value = Feature()
        return value

    @staticmethod
    def GetEntryClass():
        return _FeatureEntry


class _FeatureEntry:
    """One (key, value) entry of Features.feature, as protobuf's text_format fills it."""

    DESCRIPTOR = property(lambda self: descriptor("Features").nested_types_by_name["FeatureEntry"])

    def __init__(self):
        self.key, self.value = "", Feature()

    def HasField(self, name):
        return False

    def SetInParent(self):
        return None


_FRAMES = {}  # (feature name, list type, payload length) -> (framing bytes, framing + payload length)
_TAG_OF_TYPE = {BytesList: b"\x0a", FloatList: b"\x12", Int64List: b"\x1a"}


def _frame(k, t, m):
    """The bytes of a map entry (key `k`, a Feature of one list of type `t`) before its list's payload of `m`
    bytes: entry length, key, Feature length, the list's field and length, the value's (or the packed
    field's) key and length."""
    key = _KEY_FIELDS.get(k)
    if key is None:
        key = bytes_field(1, k)
    inner = _varint(m)
    ll = 1 + len(inner) + m
    lh = _varint(ll)
    fl = 1 + len(lh) + ll
    fh = _varint(fl)
    el = len(key) + 1 + len(fh) + fl
    tag = next(v for c, v in _TAG_OF_TYPE.items() if issubclass(t, c))
    framing = b"\x0a" + _varint(el) + key + b"\x12" + fh + tag + lh + b"\x0a" + inner
    frame = (framing, len(framing) + m)
    if len(_FRAMES) < 4096:
        _FRAMES[k, t, m] = frame
    return frame


def map_entries(b, what):
    """The (name, value bytes) entries of a proto map<string, message> in field 1 of `b`, in wire order (a
    Features' feature, a FeatureLists' feature_list); a name that is not UTF-8 is a DecodeError naming `what`."""
    for f, w, v in fields(b):
        if f != 1 or w != 2:
            continue
        key, value = b"", b""
        for ef, ew, ev in fields(v):
            if ef == 1 and ew == 2:
                key = ev
            elif ef == 2 and ew == 2:
                value = ev
        try:
            name = key.decode()
        except UnicodeDecodeError:
            raise DecodeError(f"Wire format was corrupt: {what} name is not UTF-8") from None
        yield name, value


class Features(_Message):
    def __init__(self, feature=None):
        fm = self.feature = _FeatureMap(feature or ())  # copied at C speed, then checked
        for k, v in fm.items():
            if type(v) is not Feature and not isinstance(v, Feature):
                raise TypeError(f"Features.feature values must be tf.train.Feature, got {type(v).__name__}")
            if type(k) is not str:
                self.feature = _FeatureMap((str(k), v) for k, v in fm.items())
                break

    def _encode(self):
        parts = []
        self._encode_into(parts)
        return b"".join(parts)

    def _encode_into(self, parts):
        """Appends the map entries' bytes to `parts` and returns their total length. The usual Feature (one
        bytes value, or a non-empty short numeric list) is its payload after a framing that depends only on the
        key, the list's type and the payload's length: that framing is cached, the payload appended as it is
        (a long bytes value's one copy is the final join)."""
        total = 0
        for k, v in self.feature.items():
            if type(v) is Feature and v._kind is not None:
                lst = v._value
                payload, vals = lst._payload, lst._vals
                t = type(lst)
                if payload is None and vals:  # no payload kept (made another way, or handed out by .value)
                    if t is BytesList:
                        if len(vals) == 1:
                            payload = vals[0]
                    elif t is Int64List:
                        if len(vals) == 1:
                            x = vals[0]
                            payload = _ONE_BYTE[x] if 0 <= x < 128 else _varint(x)
                        else:
                            payload = b"".join([_ONE_BYTE[x] if 0 <= x < 128 else _varint(x) for x in vals])
                    elif t is FloatList and len(vals) <= 64:
                        payload = (_F32_CODECS.get(len(vals)) or _f32_codec(len(vals))).pack(*vals)
                elif not payload:  # an empty payload kept by the list: the general way below
                    payload = None
                if payload is not None:
                    m = len(payload)
                    frame = _FRAMES.get((k, t, m))
                    if frame is None:
                        frame = _frame(k, t, m)
                    parts.append(frame[0])
                    parts.append(payload)
                    total += frame[1]
                    continue
            key = _KEY_FIELDS.get(k)
            if key is None:
                key = bytes_field(1, k)
                if len(_KEY_FIELDS) < 4096:
                    _KEY_FIELDS[k] = key
            kind = v._kind if type(v) is Feature else 0
            if kind is None:
                entry = key + b"\x12\x00"
            else:
                body = v._value._encode() if kind else None
                if kind:
                    n = len(body)
                    body = _TAG_OF[kind] + (_ONE_BYTE[n] if n < 128 else _len_varint(n)) + body
                else:
                    body = v._encode()
                n = len(body)
                entry = key + b"\x12" + (_ONE_BYTE[n] if n < 128 else _len_varint(n)) + body
            n = len(entry)
            head = b"\x0a" + (_ONE_BYTE[n] if n < 128 else _len_varint(n))
            parts.append(head)
            parts.append(entry)
            total += len(head) + n
        return total

    @classmethod
    def _decode(cls, b, out=None, keep_earlier=False):
        """The Features of `b`, its entries added to `out`'s where given (protobuf merges a message field sent
        twice: a later entry of a key replaces the earlier). keep_earlier: an empty Feature (no list) leaves an
        earlier entry of its key in place, as TensorFlow's Example parser reads duplicated keys."""
        out = cls() if out is None else out
        fm = out.feature
        for name, value in map_entries(b, "feature"):
            feature = Feature._decode(value)
            if keep_earlier and feature._kind is None and name in fm:
                continue
            fm[name] = feature
        return out

    def _text(self):
        lines = []
        for k, v in self.feature.items():
            lines += ["feature {", f'  key: "{k}"', "  value {"] + ["    " + ln for ln in v._text()] + ["  }", "}"]
        return lines


_HEADS = {}  # length -> an Example's features field key and that length


def _head(n):
    head = b"\x0a" + _varint(n)
    if len(_HEADS) < 65536:
        _HEADS[n] = head
    return head


class Example(_Message):
    def __init__(self, features=None):
        if type(features) is Features:  # the usual
            self.features, self._set = features, True
            return
        if features is not None and not isinstance(features, Features):
            raise TypeError(f"Example.features must be tf.train.Features, got {type(features).__name__}")
        self.features = features if features is not None else Features()
        self._set = features is not None  # features given (or read): written even when empty, as protobuf does

    def _encode(self, deterministic=None):
        features = self.features
        if not features.feature:
            return b"\x0a\x00" if self._set else b""
        parts = [b""]
        n = features._encode_into(parts)
        head = _HEADS.get(n)
        parts[0] = head if head is not None else _head(n)
        return b"".join(parts)

    SerializeToString = _encode  # (one call, not two: an Example is serialised once per record written)

    @classmethod
    def _decode(cls, b, keep_earlier=False):
        """keep_earlier: Features._decode's (parse_example's reading of duplicated keys)."""
        out = cls()
        for f, w, v in fields(b):
            if f == 1 and w == 2:  # (sent twice, as by MergeFrom: the maps merge)
                out.features, out._set = Features._decode(v, out.features, keep_earlier), True
        return out

    def _text(self):
        if not self.features.feature:
            return ["features {", "}"] if self._set else []
        return ["features {"] + ["  " + ln for ln in self.features._text()] + ["}"]




# -- protobuf descriptors --------------------------------------------------------------------------------------------
# DESCRIPTOR: these messages' descriptors as protobuf describes them (package tensorflow), for code that reads
# messages through protobuf's reflection: google.protobuf.text_format.Merge(text, tf.train.Example()) fills one.
# Built on first use from a FileDescriptorProto (protobuf is needed only then).
_DESCRIPTORS = {}


def descriptor(name):
    """The protobuf Descriptor of message `name` (tensorflow.NAME)."""
    if not _DESCRIPTORS:
        try:
            from google.protobuf import descriptor_pb2, descriptor_pool
        except ImportError:
            raise ImportError("tf.train.Example's DESCRIPTOR (protobuf reflection, text_format) needs the protobuf "
                              "package: pip install protobuf") from None
        F = descriptor_pb2.FieldDescriptorProto
        f = descriptor_pb2.FileDescriptorProto(name="rivulet/tensorflow/core/example/example.proto",
                                               package="tensorflow", syntax="proto3")

        def message(name, *fields, nested=()):
            m = f.message_type.add(name=name)
            for n, num, kind, label, type_name, oneof in fields:
                fd = m.field.add(name=n, number=num, type=kind, label=label, json_name=n)
                if type_name:
                    fd.type_name = type_name
                if oneof is not None:
                    fd.oneof_index = oneof
                if kind in (F.TYPE_FLOAT, F.TYPE_INT64) and label == F.LABEL_REPEATED:
                    fd.options.packed = True
            return m
        rep, opt = F.LABEL_REPEATED, F.LABEL_OPTIONAL
        message("BytesList", ("value", 1, F.TYPE_BYTES, rep, None, None))
        message("FloatList", ("value", 1, F.TYPE_FLOAT, rep, None, None))
        message("Int64List", ("value", 1, F.TYPE_INT64, rep, None, None))
        feature = message("Feature", ("bytes_list", 1, F.TYPE_MESSAGE, opt, ".tensorflow.BytesList", 0),
                          ("float_list", 2, F.TYPE_MESSAGE, opt, ".tensorflow.FloatList", 0),
                          ("int64_list", 3, F.TYPE_MESSAGE, opt, ".tensorflow.Int64List", 0))
        feature.oneof_decl.add(name="kind")
        features = message("Features", ("feature", 1, F.TYPE_MESSAGE, rep, ".tensorflow.Features.FeatureEntry",
                                        None))
        entry = features.nested_type.add(name="FeatureEntry")
        entry.options.map_entry = True
        entry.field.add(name="key", number=1, type=F.TYPE_STRING, label=opt, json_name="key")
        entry.field.add(name="value", number=2, type=F.TYPE_MESSAGE, label=opt, type_name=".tensorflow.Feature",
                        json_name="value")
        message("Example", ("features", 1, F.TYPE_MESSAGE, opt, ".tensorflow.Features", None))
        pool = descriptor_pool.DescriptorPool()
        fd = pool.Add(f) if hasattr(pool, "Add") else None
        fd = pool.FindFileByName(f.name) if fd is None or not hasattr(fd, "message_types_by_name") else fd
        _DESCRIPTORS.update(fd.message_types_by_name)
    return _DESCRIPTORS[name]


class _Descriptor:
    def __get__(self, obj, cls):
        return descriptor(cls.__name__)


for _cls in (BytesList, FloatList, Int64List, Feature, Features, Example):
    _cls.DESCRIPTOR = _Descriptor()
