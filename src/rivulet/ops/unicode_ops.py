"""tf.strings.unicode_encode (UnicodeEncode), unicode_transcode (UnicodeTranscode), unicode_decode_with_offsets /
unicode_split_with_offsets (UnicodeDecodeWithOffsets) and unsorted_segment_join (UnsortedSegmentJoin).

Encodings: TensorFlow encodes to UTF-8, UTF-16-BE and UTF-32-BE; it decodes any ICU encoding, here those
Python's codecs know (UTF-8/16/32, ISO-8859-*, windows-125x ...). Invalid input follows `errors`: 'replace'
puts `replacement_char` for each bad code point or undecodable byte, 'ignore' drops it, 'strict' raises
InvalidArgumentError as TensorFlow does."""
import codecs

import numpy as np

from .. import dtypes as _dt
from ..core.dispatch import bind
from ..core.op import defop
from ..errors import InvalidArgumentError
from ..shape import TensorShape
from . import array_ops as _a, composite, math_ops as _m
from ._rules import same_shape, static_value, to_tensor

_OUT_ENCODINGS = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}


def _check_errors(errors):
    if errors not in ("replace", "ignore", "strict"):
        raise ValueError(f"Value for attr 'errors' of \"{errors}\" is not in the list of allowed values: \"strict\", "
                         f"\"replace\", \"ignore\"")


def _out_codec(encoding):
    codec = _OUT_ENCODINGS.get(encoding)
    if codec is None:
        raise InvalidArgumentError(f"Value for attr 'output_encoding' of \"{encoding}\" is not in the list of "
                                   f"allowed values: \"UTF-8\", \"UTF-16-BE\", \"UTF-32-BE\"")
    return codec


def _in_codec(encoding):
    try:
        return codecs.lookup(str(encoding)).name
    except LookupError:
        raise InvalidArgumentError(f"Could not create converter for input encoding: {encoding}") from None


def _valid(cp):
    return 0 <= cp <= 0x10FFFF and not 0xD800 <= cp <= 0xDFFF


def _encode_chars(cps, codec, errors, replacement_char):
    out = []
    for cp in cps:
        if not _valid(cp):
            if errors == "strict":
                raise InvalidArgumentError("Code point is out of range for Unicode, or is a surrogate.")
            if errors == "ignore":
                continue
            cp = replacement_char
        out.append(chr(cp))
    return "".join(out).encode(codec)


# ---------------------------------------------------------------- unicode_encode
def _encode_kernel(values, splits, output_encoding, errors, replacement_char):
    codec = _out_codec(output_encoding)
    vals = values.tolist()
    out = np.empty(len(splits) - 1, dtype=object)
    for i in range(len(splits) - 1):
        out[i] = _encode_chars(vals[splits[i]:splits[i + 1]], codec, errors, replacement_char)
    return out


UNICODE_ENCODE = defop("UnicodeEncode", _encode_kernel,
                       lambda values, splits, **a: (TensorShape([None if splits.shape[0] is None
                                                                 else splits.shape[0] - 1]), _dt.string),
                       allowed=frozenset([_dt.int32]), attrs=("output_encoding", "errors", "replacement_char"))


def unicode_encode(input, output_encoding, errors="replace", replacement_char=65533, name=None):  # noqa: A002
    """Code points (int32; the last dimension, dense or ragged, one string each) encoded as strings."""
    _out_codec(output_encoding)
    _check_errors(errors)
    attrs = {"output_encoding": output_encoding, "errors": errors, "replacement_char": int(replacement_char)}
    if composite.is_kind(input, "ragged"):
        if input.ragged_rank > 1:
            return input.with_values(unicode_encode(input.values, output_encoding, errors, replacement_char, name))
        return bind(UNICODE_ENCODE, (input.values, input.row_splits), attrs, name=name or "UnicodeEncode")
    x = to_tensor(input)
    if x.shape.rank == 0:
        raise ValueError("input_tensor's rank must be at least 1.")
    shape = _a.shape(x, out_type=_dt.int64)
    last = _m.reduce_prod(shape[-1:])
    rows = _m.reduce_prod(shape[:-1])
    splits = _m.multiply(_a.range(rows + 1, dtype=_dt.int64), last)
    flat = bind(UNICODE_ENCODE, (_a.reshape(x, [-1]), splits), attrs, name=name or "UnicodeEncode")
    return _a.reshape(flat, shape[:-1])


# ---------------------------------------------------------------- unicode_transcode
def _decode_chars(s, codec, errors, replacement_char, replace_control_characters):
    """(code points, byte offsets) of one string."""
    try:
        text = s.decode(codec, errors="strict" if errors == "strict" else "surrogateescape")
    except UnicodeDecodeError:
        raise InvalidArgumentError("Invalid formatting on input string") from None
    cps, offsets, pos = [], [], 0
    for ch in text:
        cp = ord(ch)
        if 0xDC80 <= cp <= 0xDCFF:  # one undecodable byte
            width = 1
            if errors != "ignore":
                cps.append(replacement_char)
                offsets.append(pos)
        else:
            width = len(ch.encode(codec, errors="surrogatepass"))
            if replace_control_characters and cp < 0x20:
                cp = replacement_char
            cps.append(cp)
            offsets.append(pos)
        pos += width
    return cps, offsets


def _transcode_kernel(x, input_encoding, output_encoding, errors, replacement_char, replace_control_characters):
    src, dst = _in_codec(input_encoding), _out_codec(output_encoding)
    flat = np.asarray(x, dtype=object).reshape(-1)
    out = np.empty(flat.shape, dtype=object)
    for i, s in enumerate(flat):
        cps, _ = _decode_chars(s, src, errors, replacement_char, replace_control_characters)
        out[i] = _encode_chars(cps, dst, errors, replacement_char)
    return out.reshape(np.shape(x))


UNICODE_TRANSCODE = defop("UnicodeTranscode", _transcode_kernel, same_shape, allowed=frozenset([_dt.string]),
                          attrs=("input_encoding", "output_encoding", "errors", "replacement_char",
                                 "replace_control_characters"))


def unicode_transcode(input, input_encoding, output_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                      replace_control_characters=False, name=None):
    """Each string decoded from input_encoding and encoded in output_encoding (UTF-8, UTF-16-BE, UTF-32-BE)."""
    _out_codec(output_encoding)
    _check_errors(errors)
    if composite.is_kind(input, "ragged"):
        return input.with_flat_values(unicode_transcode(input.flat_values, input_encoding, output_encoding, errors,
                                                        replacement_char, replace_control_characters, name))
    return bind(UNICODE_TRANSCODE, (to_tensor(input, _dt.string),),
                {"input_encoding": str(input_encoding), "output_encoding": output_encoding, "errors": errors,
                 "replacement_char": int(replacement_char),
                 "replace_control_characters": bool(replace_control_characters)}, name=name or "UnicodeTranscode")


# ---------------------------------------------------------------- unicode_decode / split with offsets
def _decode_offsets_kernel(x, input_encoding, errors, replacement_char, replace_control_characters, chars):
    codec = _in_codec(input_encoding)
    flat = np.asarray(x, dtype=object).reshape(-1)
    values, offsets, splits = [], [], [0]
    for s in flat:
        cps, offs = _decode_chars(s, codec, errors, replacement_char, replace_control_characters)
        if chars:  # the bytes of each character as they stand in the input (a replaced byte: that byte)
            ends = offs[1:] + [len(s)]
            cps = [s[o:e] for o, e in zip(offs, ends)]
        values.extend(cps)
        offsets.extend(offs)
        splits.append(len(values))
    out = np.empty(len(values), dtype=object) if chars else np.asarray(values, np.int32).reshape(-1)
    if chars:
        out[:] = values
    return np.asarray(splits, np.int64), out, np.asarray(offsets, np.int64).reshape(-1)


UNICODE_DECODE_WITH_OFFSETS = defop(
    "UnicodeDecodeWithOffsets", _decode_offsets_kernel,
    lambda x, chars, **a: [(TensorShape([None]), _dt.int64), (TensorShape([None]), _dt.string if chars else _dt.int32),
                           (TensorShape([None]), _dt.int64)],
    num_outputs=3, allowed=frozenset([_dt.string]),
    attrs=("input_encoding", "errors", "replacement_char", "replace_control_characters", "chars"))


def _with_offsets(input, input_encoding, errors, replacement_char, replace_control_characters, chars, name):  # noqa: A002
    _in_codec(input_encoding)
    _check_errors(errors)
    if composite.is_kind(input, "ragged"):
        v, o = _with_offsets(input.flat_values, input_encoding, errors, replacement_char, replace_control_characters,
                             chars, name)
        return input.with_flat_values(v), input.with_flat_values(o)
    x = to_tensor(input, _dt.string)
    splits, vals, offs = bind(UNICODE_DECODE_WITH_OFFSETS, (x,), {
        "input_encoding": str(input_encoding), "errors": errors, "replacement_char": int(replacement_char),
        "replace_control_characters": bool(replace_control_characters), "chars": bool(chars)},
        name=name or "UnicodeDecodeWithOffsets")
    if x.shape.rank == 0:
        return vals, offs
    if x.shape.rank != 1:
        raise NotImplementedError(f"rivulet's unicode_*_with_offsets take a scalar, a vector or a RaggedTensor, got "
                                  f"shape {x.shape}")
    ragged = composite.kind("ragged")
    return (ragged.from_row_splits(vals, splits, validate=False), ragged.from_row_splits(offs, splits, validate=False))


def unicode_decode_with_offsets(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                                replace_control_characters=False, name=None):
    """(code points, the byte offset where each starts): RaggedTensors for a vector of strings."""
    return _with_offsets(input, input_encoding, errors, replacement_char, replace_control_characters, False, name)


def unicode_split_with_offsets(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                               name=None):
    """(each character's bytes, the byte offset where each starts): RaggedTensors for a vector of strings."""
    return _with_offsets(input, input_encoding, errors, replacement_char, False, True, name)


# ---------------------------------------------------------------- unsorted_segment_join
def _segment_join_kernel(inputs, segment_ids, num_segments, separator):
    n = int(num_segments)
    ids = np.asarray(segment_ids)
    if inputs.shape[:ids.ndim] != ids.shape:
        raise InvalidArgumentError(f"segment_ids.shape = [{','.join(map(str, ids.shape))}] does not match the "
                                   f"prefix of inputs.shape = [{','.join(map(str, inputs.shape))}]")
    if ids.size and (ids.min() < 0 or ids.max() >= n):
        raise InvalidArgumentError("segment_ids are not allowed to exceed num_segments or to have negative values.")
    inner = inputs.shape[ids.ndim:]
    width = int(np.prod(inner, dtype=np.int64))
    flat_in = np.asarray(inputs, dtype=object).reshape(ids.size, width)
    parts = [[[] for _ in range(width)] for _ in range(n)]
    for row, seg in enumerate(ids.reshape(-1).tolist()):
        for j in range(width):
            parts[seg][j].append(flat_in[row, j])
    out = np.empty((n,) + inner, dtype=object)
    flat_out = out.reshape(n, width)
    for seg in range(n):
        for j, pieces in enumerate(parts[seg]):
            flat_out[seg, j] = separator.join(pieces)
    return flat_out.reshape((n,) + inner)


def _segment_join_infer(inputs, segment_ids, num_segments, separator):
    v = static_value(num_segments)
    if inputs.shape.rank is None or segment_ids.shape.rank is None:
        return TensorShape(None), _dt.string
    return TensorShape([None if v is None else int(v)]).concatenate(inputs.shape[segment_ids.shape.rank:]), _dt.string


UNSORTED_SEGMENT_JOIN = defop("UnsortedSegmentJoin", _segment_join_kernel, _segment_join_infer,
                              allowed=frozenset([_dt.string]))


def unsorted_segment_join(inputs, segment_ids, num_segments, separator="", name=None):
    """Joins the strings of each segment (in input order) with `separator`; empty segments give ''."""
    sep = separator.encode("utf-8") if isinstance(separator, str) else bytes(separator)
    return bind(UNSORTED_SEGMENT_JOIN, (to_tensor(inputs, _dt.string), to_tensor(segment_ids),
                                        to_tensor(num_segments)), {"separator": sep},
                name=name or "UnsortedSegmentJoin")


def unicode_decode(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                   replace_control_characters=False, name=None):
    """tf.strings.unicode_decode: UTF-8 by string_ops' UnicodeDecode; other encodings and
    replace_control_characters through UnicodeDecodeWithOffsets (its code points)."""
    from .string_ops import unicode_decode as utf8_decode
    if str(input_encoding).upper().replace("-", "") == "UTF8" and not replace_control_characters:
        return utf8_decode(input, input_encoding, errors, replacement_char, name=name)
    return _with_offsets(input, input_encoding, errors, replacement_char, replace_control_characters, False,
                         name)[0]
