"""String ops (tf.strings). String tensors are NumPy object arrays of `bytes`; kernels loop in Python per
element (TensorFlow's string kernels are per-element too) and return object arrays again."""
import re

import numpy as np

from .. import dtypes as _dt
from ..core.dispatch import bind
from ..core.op import defop
from ..core.tensor import Tensor, convert_to_tensor
from ..errors import InvalidArgumentError
from ..shape import TensorShape
from . import composite
from ._rules import broadcast_shape, to_tensor
from .fingerprint import fingerprint64, hash64, siphash24
from .math_ops import reduction_axes, reduce_infer

_STR = frozenset([_dt.string])


def _strings(x):
    return to_tensor(x, dtype=None if isinstance(x, Tensor) else _dt.string)


def _map(fn, x, otype=object):
    """Applies fn to every element of an object array; 0-d stays 0-d."""
    a = np.asarray(x, dtype=object)
    out = np.empty(a.shape, dtype=otype)
    flat = out.reshape(-1)
    for i, s in enumerate(a.reshape(-1)):
        flat[i] = fn(s)
    return out


def _fmt(s):
    return "[" + ",".join("?" if d is None else str(d) for d in s) + "]" if s.rank is not None else "<unknown>"


def _check_unit(unit):
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise InvalidArgumentError(f"Value for attr 'unit' of \"{unit}\" is not in the list of allowed values: "
                                   f"\"BYTE\", \"UTF8_CHAR\"")


# ---------------------------------------------------------------- join
def _join_shape(shapes):
    """Non-scalar inputs must share one shape (scalars broadcast): TensorFlow's StringJoin rule."""
    out = None
    for s in shapes:
        if s.rank == 0:
            continue
        if out is not None and not out.is_compatible_with(s):
            raise ValueError(f"Input shapes do not match: {_fmt(out)} vs. {_fmt(s)}")
        out = s if out is None else out.merge_with(s)
    return TensorShape(()) if out is None else out


def _join_kernel(*xs, separator=b""):
    if not xs:
        return np.array(b"", dtype=object)  # joining nothing: TensorFlow's empty string
    _join_shape([TensorShape(np.shape(x)) for x in xs])
    parts = np.broadcast_arrays(*[np.asarray(x, dtype=object) for x in xs])
    out = np.empty(parts[0].shape, dtype=object)
    flat = out.reshape(-1)
    cols = [p.reshape(-1) for p in parts]
    for i in range(flat.size):
        flat[i] = separator.join(c[i] for c in cols)
    return out


STRING_JOIN = defop("StringJoin", _join_kernel, lambda *xs, separator=b"": (_join_shape([x.shape for x in xs]),
                                                                             _dt.string), allowed=_STR)


def join(inputs, separator="", name=None):
    xs = tuple(_strings(x) for x in inputs)
    for x in xs:
        if x.dtype is not _dt.string:
            raise TypeError(f"Input 'inputs' of 'StringJoin' Op has type {x.dtype.name} that does not match "
                            f"expected type of string.")
    return bind(STRING_JOIN, xs, {"separator": _bytes(separator)}, name=name or "StringJoin")


def _bytes(s):
    return s.encode("utf-8") if isinstance(s, str) else bytes(s)


# ---------------------------------------------------------------- length, upper, lower
def _utf8_len(b):
    # Count the bytes that do not continue a UTF-8 sequence (0b10xxxxxx), as TensorFlow does.
    return sum(1 for c in b if c & 0xC0 != 0x80)


STRING_LENGTH = defop(
    "StringLength", lambda x, unit="BYTE": _map(len if unit == "BYTE" else _utf8_len, x, np.int32),
    lambda x, unit="BYTE": (x.shape, _dt.int32), allowed=_STR)


def length(input, unit="BYTE", name=None):  # noqa: A002
    _check_unit(unit)
    return bind(STRING_LENGTH, (_strings(input),), {} if unit == "BYTE" else {"unit": unit},
                name=name or "StringLength")


def _case_kernel(method):
    def kernel(x, encoding=""):
        if encoding:  # Unicode-aware case mapping; without an encoding only ASCII letters change
            return _map(lambda s: getattr(s.decode(encoding), method)().encode(encoding), x)
        return _map(getattr(bytes, method), x)
    return kernel


STRING_UPPER = defop("StringUpper", _case_kernel("upper"), lambda x, encoding="": (x.shape, _dt.string),
                     allowed=_STR)
STRING_LOWER = defop("StringLower", _case_kernel("lower"), lambda x, encoding="": (x.shape, _dt.string),
                     allowed=_STR)


def upper(input, encoding="", name=None):  # noqa: A002
    return bind(STRING_UPPER, (_strings(input),), {"encoding": encoding} if encoding else {},
                name=name or "StringUpper")


def lower(input, encoding="", name=None):  # noqa: A002
    return bind(STRING_LOWER, (_strings(input),), {"encoding": encoding} if encoding else {},
                name=name or "StringLower")


# ---------------------------------------------------------------- strip
STRING_STRIP = defop("StringStrip", lambda x: _map(bytes.strip, x), lambda x: (x.shape, _dt.string), allowed=_STR)


def strip(input, name=None):  # noqa: A002
    """Leading and trailing ASCII whitespace removed from every string (TensorFlow's StringStrip)."""
    return bind(STRING_STRIP, (_strings(input),), name=name or "StringStrip")


# ---------------------------------------------------------------- substr
def _substr_kernel(x, pos, ln, unit="BYTE"):
    xa, pa, la = np.broadcast_arrays(np.asarray(x, dtype=object), np.asarray(pos), np.asarray(ln))
    out = np.empty(xa.shape, dtype=object)
    flat = out.reshape(-1)
    for i, (s, p, n) in enumerate(zip(xa.reshape(-1), pa.reshape(-1), la.reshape(-1))):
        units = s if unit == "BYTE" else s.decode("utf-8")
        size, p = len(units), int(p)
        if not -size <= p <= size:
            raise InvalidArgumentError(f"pos {p} out of range for string b'{s.decode('utf-8', 'replace')}' at "
                                       f"index {i}")
        if p < 0:
            p += size
        piece = units[p:p + max(int(n), 0)]
        flat[i] = piece if unit == "BYTE" else piece.encode("utf-8")
    return out


def _substr_infer(x, pos, ln, unit="BYTE"):
    return broadcast_shape(broadcast_shape(x.shape, pos.shape), ln.shape), _dt.string


SUBSTR = defop("Substr", _substr_kernel, _substr_infer, allowed=_STR)


def substr(input, pos, len, unit="BYTE", name=None):  # noqa: A002
    _check_unit(unit)
    x = _strings(input)
    p = to_tensor(pos, dtype=None if isinstance(pos, Tensor) else _dt.int32)
    n = to_tensor(len, dtype=None if isinstance(len, Tensor) else p.dtype)
    return bind(SUBSTR, (x, p, n), {} if unit == "BYTE" else {"unit": unit}, name=name or "Substr")


# ---------------------------------------------------------------- to_number, as_string
_TO_NUMBER_TYPES = (_dt.float32, _dt.float64, _dt.int32, _dt.int64, _dt.uint32, _dt.uint64)


def _parse(s, out_type):
    text = s.decode("utf-8", "replace").strip()
    try:
        if "_" in text:
            raise ValueError
        if out_type.is_integer:
            v = int(text, 10)
            info = np.iinfo(out_type._np)
            if not info.min <= v <= info.max:
                raise ValueError
            return v
        low = text.lower().lstrip("+-")
        if low.startswith("0x"):
            return float.fromhex(text)
        return float(text)
    except ValueError:
        raise InvalidArgumentError(f"StringToNumberOp could not correctly convert string: "
                                   f"{s.decode('utf-8', 'replace')}") from None


def _to_number_kernel(x, out_type):
    vals = _map(lambda s: _parse(s, out_type), x)
    with np.errstate(over="ignore"):
        return vals.astype(out_type._np)


STRING_TO_NUMBER = defop("StringToNumber", _to_number_kernel, lambda x, out_type: (x.shape, out_type),
                         allowed=_STR)


def to_number(string_tensor, out_type=_dt.float32, name=None):
    out_type = _dt.as_dtype(out_type)
    if out_type not in _TO_NUMBER_TYPES:
        raise InvalidArgumentError(f"Value for attr 'out_type' of {out_type.name} is not in the list of allowed "
                                   f"values: float, double, int32, int64, uint32, uint64")
    return bind(STRING_TO_NUMBER, (_strings(string_tensor),), {"out_type": out_type}, name=name or "StringToNumber")


def _as_string_kernel(x, precision=-1, scientific=False, shortest=False, width=-1, fill=""):
    kind = x.dtype.kind
    if kind == "O":
        return np.asarray(x).copy()
    if kind == "b":
        return _map(lambda v: b"true" if v else b"false", x)
    flags = fill + (str(width) if width > -1 else "")
    if kind in "iu":
        spec = "%" + flags + "d"
        return _map(lambda v: (spec % int(v)).encode(), x)
    conv = "e" if scientific else "g" if shortest else "f"
    spec = "%" + flags + (f".{precision}" if precision > -1 else "") + conv
    if kind == "c":
        return _map(lambda v: f"({spec % v.real},{spec % v.imag})".encode(), x)
    return _map(lambda v: (spec % float(v)).encode(), x)


AS_STRING = defop("AsString", _as_string_kernel, lambda x, **a: (x.shape, _dt.string))


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="", name=None):  # noqa: A002
    if scientific and shortest:
        raise InvalidArgumentError("Cannot select both scientific and shortest notation")
    if len(fill) > 1:
        raise InvalidArgumentError(f"Fill string must be one or fewer characters: {fill}")
    attrs = {k: v for k, v, d in (("precision", precision, -1), ("scientific", scientific, False),
                                   ("shortest", shortest, False), ("width", width, -1), ("fill", fill, ""))
             if v != d}
    return bind(AS_STRING, (to_tensor(input),), attrs, name=name or "AsString")


# ---------------------------------------------------------------- reduce_join
def _reduce_join_kernel(x, axis=None, keepdims=False, separator=b""):
    a = np.asarray(x, dtype=object)
    axes = tuple(range(a.ndim)) if axis is None else axis
    keep = [i for i in range(a.ndim) if i not in axes]
    moved = np.transpose(a, keep + list(axes)).reshape([a.shape[i] for i in keep] + [-1])
    out = np.empty(moved.shape[:-1], dtype=object)
    flat_out, rows = out.reshape(-1), moved.reshape(-1, moved.shape[-1])
    for i in range(flat_out.size):
        flat_out[i] = separator.join(rows[i])
    if keepdims:
        out = out.reshape([1 if i in axes else d for i, d in enumerate(a.shape)])
    return out


REDUCE_JOIN = defop("ReduceJoin", _reduce_join_kernel,
                    lambda x, axis=None, keepdims=False, separator=b"": (reduce_infer(x, axis, keepdims)[0],
                                                                         _dt.string), allowed=_STR)


def reduce_join(inputs, axis=None, keepdims=False, separator="", name=None):
    x = _strings(inputs)
    return bind(REDUCE_JOIN, (x,), {"axis": reduction_axes(x, axis), "keepdims": bool(keepdims),
                                    "separator": _bytes(separator)}, name=name or "ReduceJoin")


# ---------------------------------------------------------------- regex_full_match
def _regex_kernel(x, pattern):
    try:
        rx = re.compile(pattern)
    except re.error as e:
        raise InvalidArgumentError(f"Invalid pattern: {pattern.decode('utf-8', 'replace')}, error: {e}") from None
    return _map(lambda s: rx.fullmatch(s) is not None, x, bool)


REGEX_FULL_MATCH = defop("RegexFullMatch", _regex_kernel, lambda x, pattern: (x.shape, _dt.bool), allowed=_STR)


def regex_full_match(input, pattern, name=None):  # noqa: A002
    return bind(REGEX_FULL_MATCH, (_strings(input),), {"pattern": _bytes(pattern)}, name=name or "RegexFullMatch")


# ---------------------------------------------------------------- ops returning one list per string
# A vector of strings gives a RaggedTensor (one row per string), a scalar a 1-D tensor, a RaggedTensor of
# strings a RaggedTensor one ragged dimension deeper; the kernels return (flat values, row_splits).
def _pieces_kernel_of(pieces, otype):
    def kernel(x, **attrs):
        rows = [pieces(s, **attrs) for s in np.asarray(x, dtype=object).reshape(-1)]
        splits = np.zeros(len(rows) + 1, np.int64)
        np.cumsum([len(r) for r in rows], out=splits[1:])
        flat = np.empty(int(splits[-1]), dtype=otype)
        if len(flat):
            flat[:] = [p for r in rows for p in r]
        return flat, splits
    return kernel


def _split_pieces(s, sep=None, maxsplit=-1):
    return s.split(sep, maxsplit) if sep is not None else s.split(None, maxsplit)


def _bytes_pieces(s):
    return [s[i:i + 1] for i in range(len(s))]


def _decode(s, errors, replacement_char):
    text = s.decode("utf-8", errors="surrogateescape" if errors != "strict" else "strict")
    out = []
    for ch in text:
        if 0xDC80 <= ord(ch) <= 0xDCFF:  # an undecodable byte
            if errors == "ignore":
                continue
            out.append(chr(replacement_char))
        else:
            out.append(ch)
    return out


def _unicode_pieces(s, errors="replace", replacement_char=0xFFFD):
    return [c.encode("utf-8") for c in _decode(s, errors, replacement_char)]


def _codepoint_pieces(s, errors="replace", replacement_char=0xFFFD):
    return [ord(c) for c in _decode(s, errors, replacement_char)]


def _pieces_infer_of(otype):
    return lambda x, **attrs: [(TensorShape([None]), otype), (TensorShape([None]), _dt.int64)]


# The kernels pass their attrs on to the per-string functions, so the attrs are declared (a saved model may
# name only these).
STRING_SPLIT_V2 = defop("StringSplitV2", _pieces_kernel_of(_split_pieces, object), _pieces_infer_of(_dt.string),
                        num_outputs=2, allowed=_STR, attrs=("sep", "maxsplit"))
BYTES_SPLIT = defop("StringBytesSplit", _pieces_kernel_of(_bytes_pieces, object), _pieces_infer_of(_dt.string),
                    num_outputs=2, allowed=_STR, attrs=())
UNICODE_SPLIT = defop("UnicodeSplit", _pieces_kernel_of(_unicode_pieces, object), _pieces_infer_of(_dt.string),
                      num_outputs=2, allowed=_STR, attrs=("errors", "replacement_char"))
UNICODE_DECODE = defop("UnicodeDecode", _pieces_kernel_of(_codepoint_pieces, np.int32), _pieces_infer_of(_dt.int32),
                       num_outputs=2, allowed=_STR, attrs=("errors", "replacement_char"))


def _pieces(op, input, attrs, name):  # noqa: A002
    if composite.is_kind(input, "ragged"):
        return input.with_flat_values(_pieces(op, input.flat_values, attrs, name))
    x = _strings(input)
    flat, splits = bind(op, (x,), attrs, name=name)
    if x.shape.rank == 0:
        return flat
    if x.shape.rank != 1:
        raise NotImplementedError(f"rivulet's tf.strings ops returning ragged results take a scalar, a vector or a "
                                  f"RaggedTensor, got shape {x.shape}")
    return composite.kind("ragged").from_row_splits(flat, splits, validate=False)


def _check_encoding(encoding, errors):
    if str(encoding).upper().replace("-", "") != "UTF8":
        raise NotImplementedError(f"rivulet decodes UTF-8 only, got input_encoding={encoding!r}")
    if errors not in ("replace", "ignore", "strict"):
        raise ValueError(f"errors must be 'replace', 'ignore' or 'strict', got {errors!r}")


def split(input, sep=None, maxsplit=-1, name=None):  # noqa: A002
    """tf.strings.split: a scalar gives a 1-D tensor, a vector a RaggedTensor (one row per string)."""
    attrs = {"maxsplit": int(maxsplit)}
    if sep is not None and sep != "":
        attrs["sep"] = _bytes(sep)
    return _pieces(STRING_SPLIT_V2, input, attrs, name or "StringSplit")


def bytes_split(input, name=None):  # noqa: A002
    return _pieces(BYTES_SPLIT, input, {}, name or "BytesSplit")


def unicode_split(input, input_encoding, errors="replace", replacement_char=65533, name=None):  # noqa: A002
    _check_encoding(input_encoding, errors)
    return _pieces(UNICODE_SPLIT, input, {"errors": errors, "replacement_char": int(replacement_char)},
                   name or "UnicodeSplit")


def unicode_decode(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                   replace_control_characters=False, name=None):
    _check_encoding(input_encoding, errors)
    return _pieces(UNICODE_DECODE, input, {"errors": errors, "replacement_char": int(replacement_char)},
                   name or "UnicodeDecode")


# ---------------------------------------------------------------- regex_replace
def _regex_replace_kernel(x, pattern, rewrite, replace_global):
    try:
        rx = re.compile(pattern)
    except re.error as e:
        raise InvalidArgumentError(f"Invalid pattern: {pattern.decode('utf-8', 'replace')}, error: {e}") from None
    count = 0 if replace_global else 1
    return _map(lambda s: rx.sub(rewrite, s, count=count), x)


REGEX_REPLACE = defop("StaticRegexReplace", _regex_replace_kernel,
                      lambda x, pattern, rewrite, replace_global: (x.shape, _dt.string), allowed=_STR)


def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002
    return bind(REGEX_REPLACE, (_strings(input),), {"pattern": _bytes(pattern), "rewrite": _bytes(rewrite),
                                                     "replace_global": bool(replace_global)},
                name=name or "StaticRegexReplace")


# ---------------------------------------------------------------- ngrams
def _ngram_rows(rows, width, sep, pad, padding_width, preserve_short):
    out = []
    for r in rows:
        r = list(r)
        if pad is not None:
            left, right = pad
            pw = width - 1 if padding_width is None or padding_width < 0 else padding_width
            r = [left] * pw + r + [right] * pw
        grams = [sep.join(r[i:i + width]) for i in range(len(r) - width + 1)]
        if not grams and preserve_short and r:
            grams = [sep.join(r)]
        out.append(grams)
    return out


def _ngrams_kernel(data, splits, widths, sep, pad, padding_width, preserve_short):
    values = np.asarray(data, dtype=object).reshape(-1).tolist()
    bounds = np.asarray(splits).tolist()
    rows = [values[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    result = [[] for _ in rows]
    for w in widths:
        for acc, grams in zip(result, _ngram_rows(rows, w, sep, pad, padding_width, preserve_short)):
            acc.extend(grams)
    flat = np.empty(sum(len(r) for r in result), dtype=object)
    flat[:] = [g for r in result for g in r]
    return flat, np.cumsum([0] + [len(r) for r in result]).astype(np.asarray(splits).dtype)


# TensorFlow's op computes n-grams of each row of (values, row splits); a graph op, so it runs in tf.function
# and in datasets' map too.
STRING_NGRAMS = defop("StringNGrams", _ngrams_kernel,
                      lambda data, splits, **_: [(TensorShape([None]), _dt.string),
                                                 (TensorShape([None if splits.shape[0] is None else splits.shape[0]]),
                                                  splits.dtype)],
                      num_outputs=2)


def ngrams(data, ngram_width, separator=" ", pad_values=None, padding_width=None, preserve_short_sequences=False,
           name=None):
    """tf.strings.ngrams of a 1-D tensor (a 1-D result) or a RaggedTensor (one row of n-grams per row)."""
    ragged = composite.is_kind(data, "ragged")
    widths = (int(ngram_width),) if isinstance(ngram_width, int) else tuple(int(w) for w in ngram_width)
    if isinstance(pad_values, (str, bytes)):
        pad_values = (pad_values, pad_values)
    pad = None if pad_values is None else tuple(_bytes(p) for p in pad_values)
    attrs = {"widths": widths, "sep": _bytes(separator), "pad": pad, "padding_width": padding_width,
             "preserve_short": bool(preserve_short_sequences)}
    if ragged:
        if data.ragged_rank != 1:
            raise NotImplementedError("rivulet's tf.strings.ngrams takes a RaggedTensor of ragged_rank 1")
        grams, splits = bind(STRING_NGRAMS, (_strings(data.flat_values), data.row_splits), attrs,
                             name=name or "StringNGrams")
        return type(data).from_row_splits(grams, splits, validate=False)
    x = _strings(data)
    if x.shape.rank != 1:
        raise NotImplementedError("rivulet's tf.strings.ngrams takes a vector or a RaggedTensor of strings")
    from .array_ops import shape as _shape, stack as _stack
    splits = _stack([to_tensor(0, _dt.int64), _shape(x, out_type=_dt.int64)[0]])
    return bind(STRING_NGRAMS, (x, splits), attrs, name=name or "StringNGrams")[0]


# ---------------------------------------------------------------- hash buckets (TensorFlow's fingerprints)
def _check_buckets(num_buckets, op_name):
    if isinstance(num_buckets, bool) or not isinstance(num_buckets, (int, np.integer)) or num_buckets < 1:
        raise InvalidArgumentError(f"Value for attr 'num_buckets' of {num_buckets} must be at least minimum 1 "
                                   f"[Op:{op_name}]")
    return int(num_buckets)


def _hash_buckets_kernel(x, num_buckets, key=None, legacy=False):
    if legacy:
        return _map(lambda s: hash64(_bytes(s)) % num_buckets, x, np.int64)
    if key is None:
        return _map(lambda s: fingerprint64(_bytes(s)) % num_buckets, x, np.int64)
    k0, k1 = (int(k) & 0xFFFFFFFFFFFFFFFF for k in key)
    return _map(lambda s: siphash24(k0, k1, _bytes(s)) % num_buckets, x, np.int64)


STRING_TO_HASH_BUCKET_FAST = defop("StringToHashBucketFast", _hash_buckets_kernel,
                                   lambda x, num_buckets: (x.shape, _dt.int64), allowed=_STR)
STRING_TO_HASH_BUCKET_STRONG = defop("StringToHashBucketStrong", _hash_buckets_kernel,
                                     lambda x, num_buckets, key: (x.shape, _dt.int64), allowed=_STR)


STRING_TO_HASH_BUCKET = defop("StringToHashBucket",
                              lambda x, num_buckets: _hash_buckets_kernel(x, num_buckets, legacy=True),
                              lambda x, num_buckets: (x.shape, _dt.int64), allowed=_STR)


def to_hash_bucket(input, num_buckets, name=None):  # noqa: A002
    """TensorFlow's legacy string hash (its Hash64) of each string modulo num_buckets (int64)."""
    n = _check_buckets(num_buckets, "StringToHashBucket")
    return bind(STRING_TO_HASH_BUCKET, (_strings(input),), {"num_buckets": n}, name=name or "StringToHashBucket")


def to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002
    """FarmHash Fingerprint64 of each string modulo num_buckets (int64), as TensorFlow computes it."""
    n = _check_buckets(num_buckets, "StringToHashBucketFast")
    return bind(STRING_TO_HASH_BUCKET_FAST, (_strings(input),), {"num_buckets": n},
                name=name or "StringToHashBucketFast")


def to_hash_bucket_strong(input, num_buckets, key, name=None):  # noqa: A002
    """SipHash-2-4 of each string under the 128-bit `key` (two ints) modulo num_buckets (int64)."""
    n = _check_buckets(num_buckets, "StringToHashBucketStrong")
    key = tuple(int(k) for k in (key.numpy().tolist() if hasattr(key, "numpy") else key))
    if len(key) != 2:
        raise InvalidArgumentError("Key must have 2 elements [Op:StringToHashBucketStrong]")
    return bind(STRING_TO_HASH_BUCKET_STRONG, (_strings(input),), {"num_buckets": n, "key": key},
                name=name or "StringToHashBucketStrong")
