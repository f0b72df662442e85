"""File and media ops: tf.io.read_file/write_file, decode_raw, decode_csv, the image codecs (tf.io.decode_jpeg,
decode_png, decode_gif, decode_bmp, decode_image, encode_jpeg, encode_png) and tf.audio's WAV codec.

Each is one op in the registry (shape/dtype rule + NumPy kernel, no gradient). BMP, PNG encoding, WAV, CSV and
raw bytes are decoded here with NumPy and the standard library, following TensorFlow's kernels' rules and
messages. JPEG, GIF and (most) PNG decoding and JPEG encoding use Pillow (the optional `images` extra); 16-bit
colour PNGs are unfiltered here so no bits are lost. Nothing from a file is executed; a bad file is an
InvalidArgumentError, never a Pillow exception, and declared sizes are checked before any pixel is allocated.
"""
import collections
import io
import os
import re
import struct
import zlib

import numpy as np

from .. import dtypes as _dt
from ..core.dispatch import bind
from ..core.op import defop
from ..core.tensor import Tensor
from ..errors import (FailedPreconditionError, InvalidArgumentError, NotFoundError, PermissionDeniedError,
                      UnknownError)
from ..shape import TensorShape
from ._rules import to_tensor

_STR = frozenset([_dt.string])
UNKNOWN_FORMAT = "Unknown image file format. One of JPEG, PNG, GIF, BMP required."
# Decoded images are refused past this many output elements (TensorFlow's PNG bound: 2**29 pixels), checked
# on the declared size before any pixel is decoded: a small file declaring a huge image costs no memory.
MAX_ELEMENTS = 1 << 29
_TF_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def _pillow():
    try:
        from PIL import Image
    except ImportError:
        raise ImportError("Decoding and encoding JPEG, PNG and GIF images needs Pillow: "
                          "pip install 'rivulet[images]'") from None
    return Image


def _shape_text(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _scalar_bytes(v, message):
    a = np.asarray(v, dtype=object)
    if a.ndim != 0:
        raise InvalidArgumentError(f"{message}{_shape_text(a.shape)}")
    s = a.item()
    return s.encode() if isinstance(s, str) else bytes(s)


def _rank0(x, what):
    if x.shape.rank is not None and x.shape.rank != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {x.shape.rank} for {what}")


def _strings(x, name):
    t = to_tensor(x, dtype=None if isinstance(x, Tensor) else _dt.string)
    if t.dtype is not _dt.string:
        raise TypeError(f"Value passed to parameter '{name}' has DataType {t.dtype.name} not in list of allowed "
                        "values: string")
    return t


# ---------------------------------------------------------------- read_file / write_file
def _path_of(v):
    return os.fsdecode(_scalar_bytes(v, "filename must be a scalar, got shape "))


def _read_file_kernel(filename):
    path = _path_of(filename)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise NotFoundError(f"{path}; No such file or directory") from None
    except IsADirectoryError:
        raise FailedPreconditionError(f"{path}; Is a directory") from None
    except PermissionError:
        raise PermissionDeniedError(f"{path}; Permission denied") from None
    except OSError as e:
        raise UnknownError(f"{path}; {e.strerror or e}") from None
    return np.array(data, dtype=object)


def _write_file_kernel(filename, contents):
    path = _path_of(filename)
    data = _scalar_bytes(contents, "Contents tensor must be scalar, but had shape: ")
    try:
        parent = os.path.dirname(path)
        if parent:
            os.makedirs(parent, exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    except PermissionError:
        raise PermissionDeniedError(f"{path}; Permission denied") from None
    except IsADirectoryError:
        raise FailedPreconditionError(f"{path}; Is a directory") from None
    except OSError as e:
        raise UnknownError(f"{path}; {e.strerror or e}") from None
    return ()


def _read_file_infer(filename):
    _rank0(filename, "'ReadFile'")
    return TensorShape([]), _dt.string


def _write_file_infer(filename, contents):
    _rank0(filename, "'WriteFile' (filename)")
    _rank0(contents, "'WriteFile' (contents)")
    return []


# stateful: a file is read (written) at every call, never folded into a constant at trace time
READ_FILE = defop("ReadFile", _read_file_kernel, _read_file_infer, allowed=_STR, stateful=True)
WRITE_FILE = defop("WriteFile", _write_file_kernel, _write_file_infer, num_outputs=0, stateful=True)


def read_file(filename, name=None):
    """tf.io.read_file: the whole file as a scalar string tensor."""
    return bind(READ_FILE, [_strings(filename, "filename")], name=name)


def write_file(filename, contents, name=None):
    """tf.io.write_file: writes `contents` to `filename`, creating missing parent directories."""
    bind(WRITE_FILE, [_strings(filename, "filename"), _strings(contents, "contents")], name=name)


# ---------------------------------------------------------------- decode_raw
_RAW_TYPES = (_dt.float16, _dt.float32, _dt.float64, _dt.int32, _dt.uint16, _dt.uint8, _dt.int16, _dt.int8,
              _dt.int64, _dt.complex64, _dt.complex128, _dt.bool)
_PADDED_RAW_TYPES = (_dt.float16, _dt.float32, _dt.float64, _dt.int32, _dt.uint16, _dt.uint8, _dt.int16, _dt.int8,
                     _dt.int64)


def _from_bytes(buf, out_type, little_endian):
    npd = np.dtype(out_type._np)
    if npd == np.bool_:
        return np.frombuffer(buf, np.uint8) != 0
    return np.frombuffer(buf, npd.newbyteorder("<" if little_endian else ">")).astype(npd)


def _decode_raw_kernel(x, out_type, little_endian=True):
    a = np.asarray(x, dtype=object)
    flat = a.reshape(-1)
    size = np.dtype(out_type._np).itemsize
    if flat.size == 0:
        return np.zeros(a.shape + (0,), out_type._np)
    n = len(flat[0])
    if n % size:
        raise InvalidArgumentError(f"Input to DecodeRaw has length {n} that is not a multiple of {size}, the size "
                                   f"of {_TF_TYPE_NAMES.get(out_type.name, out_type.name)}")
    for i, s in enumerate(flat):
        if len(s) != n:
            raise InvalidArgumentError(f"DecodeRaw requires input strings to all be the same size, but element {i} "
                                       f"has size {len(s)} != {n}")
    return _from_bytes(b"".join(flat), out_type, little_endian).reshape(a.shape + (n // size,))


def _decode_raw_infer(x, out_type, little_endian=True):
    dims = None if x.shape.rank is None else list(x.shape) + [None]
    return TensorShape(dims), out_type


def _decode_padded_raw_kernel(x, out_type, fixed_length, little_endian=True):
    a = np.asarray(x, dtype=object)
    flat = a.reshape(-1)
    buf = bytearray(flat.size * fixed_length)
    for i, s in enumerate(flat):
        k = min(len(s), fixed_length)
        buf[i * fixed_length:i * fixed_length + k] = s[:k]
    size = np.dtype(out_type._np).itemsize
    return _from_bytes(bytes(buf), out_type, little_endian).reshape(a.shape + (fixed_length // size,))


def _decode_padded_raw_infer(x, out_type, fixed_length, little_endian=True):
    size = np.dtype(out_type._np).itemsize
    dims = None if x.shape.rank is None else list(x.shape) + [fixed_length // size]
    return TensorShape(dims), out_type


DECODE_RAW = defop("DecodeRaw", _decode_raw_kernel, _decode_raw_infer, allowed=_STR)
DECODE_PADDED_RAW = defop("DecodePaddedRaw", _decode_padded_raw_kernel, _decode_padded_raw_infer, allowed=_STR)


def _type_in(dtype, allowed, param):
    dtype = _dt.as_dtype(dtype)
    if dtype not in allowed:
        raise TypeError(f"Value passed to parameter '{param}' has DataType {dtype.name} not in list of allowed "
                        f"values: {', '.join(d.name for d in allowed)}")
    return dtype


def decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None, name=None):
    """tf.io.decode_raw: reinterprets the bytes of each string as a vector of `out_type` (a new last axis).
    With fixed_length, every string is cut or zero-padded to that many bytes first."""
    x = _strings(input_bytes, "bytes")
    little_endian = bool(little_endian)
    if fixed_length is None:
        out_type = _type_in(out_type, _RAW_TYPES, "out_type")
        return bind(DECODE_RAW, [x], {"out_type": out_type, "little_endian": little_endian}, name=name)
    out_type = _type_in(out_type, _PADDED_RAW_TYPES, "out_type")
    if isinstance(fixed_length, Tensor):
        if not hasattr(fixed_length, "_v"):
            raise TypeError("decode_raw: fixed_length must be a Python int or an eager tensor (it decides the "
                            "output's static shape)")
        fixed_length = fixed_length._v
    fixed_length = int(fixed_length)
    size = np.dtype(out_type._np).itemsize
    if fixed_length % size:
        raise InvalidArgumentError(f"fixed_length ({fixed_length}) must be a multiple of the size of out_type "
                                   f"({size}) [Op:DecodePaddedRaw]")
    if fixed_length <= 0:
        raise InvalidArgumentError(f"fixed_length ({fixed_length}) must be positive [Op:DecodePaddedRaw]")
    return bind(DECODE_PADDED_RAW, [x], {"out_type": out_type, "fixed_length": fixed_length,
                                         "little_endian": little_endian}, name=name)


# ---------------------------------------------------------------- decode_csv
_CSV_TYPES = (_dt.float32, _dt.float64, _dt.int32, _dt.int64, _dt.string)
_INT_RE = re.compile(rb"[ \t\n\v\f\r]*[+-]?[0-9]+[ \t\n\v\f\r]*\Z")
_FLOAT_RE = re.compile(rb"[ \t\n\v\f\r]*[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)"
                       rb"[ \t\n\v\f\r]*\Z", re.IGNORECASE)
_INT_RANGE = {"int32": (-2 ** 31, 2 ** 31 - 1), "int64": (-2 ** 63, 2 ** 63 - 1)}


def _csv_fields(rec, delim, quote, select):
    """TensorFlow's DecodeCSV field splitter (same quirks: CR/LF between fields are skipped, a quoted field
    must end with a quote followed by the delimiter or the end, a trailing delimiter adds an empty field)."""
    out, i, n, parsed, sel = [], 0, len(rec), 0, 0
    if not rec:
        return out
    if b"\n" not in rec and b"\r" not in rec and not (quote and b'"' in rec):  # the common case, same fields
        parts = rec.split(bytes((delim,)))
        return parts if select is None else [parts[c] for c in select if c < len(parts)]
    while i < n:
        c = rec[i]
        if c in (10, 13):
            i += 1
            continue
        include = select is None or select[sel] == parsed
        field = bytearray()
        if quote and c == 34:
            i += 1
            while i < n - 1 and (rec[i] != 34 or rec[i + 1] != delim):
                if rec[i] != 34:
                    field.append(rec[i])
                    i += 1
                else:
                    if rec[i + 1] != 34:
                        raise InvalidArgumentError("Quote inside a string has to be escaped by another quote")
                    field.append(34)
                    i += 2
            if not (i < n and rec[i] == 34 and (i == n - 1 or rec[i + 1] == delim)):
                raise InvalidArgumentError("Quoted field has to end with quote followed by delim or end")
            i += 2
        else:
            while i < n and rec[i] != delim:
                if (quote and rec[i] == 34) or rec[i] in (10, 13):
                    raise InvalidArgumentError("Unquoted fields cannot have quotes/CRLFs inside")
                field.append(rec[i])
                i += 1
            i += 1
        parsed += 1
        if include:
            out.append(bytes(field))
            sel += 1
            if select is not None and sel == len(select):
                return out
    if (select is None or select[sel] == parsed) and rec[-1] == delim:
        out.append(b"")
    return out


def _csv_value(field, dtype, f, i):
    if dtype == "string":
        return field
    if dtype in _INT_RANGE:
        lo, hi = _INT_RANGE[dtype]
        if _INT_RE.match(field):
            v = int(field)
            if lo <= v <= hi:
                return v
        raise InvalidArgumentError(f"Field {f} in record {i} is not a valid {dtype}: {field.decode('latin-1')}")
    if _FLOAT_RE.match(field):
        return float(field)
    kind = "float" if dtype == "float32" else "double"
    raise InvalidArgumentError(f"Field {f} in record {i} is not a valid {kind}: {field.decode('latin-1')}")


def _check_csv_defaults(defaults, shape_of):
    for i, d in enumerate(defaults):
        shape = shape_of(d)
        if shape is None:
            continue
        if len(shape) > 1:
            raise InvalidArgumentError("Each record default should be at most rank 1")
        n = int(np.prod(shape)) if None not in shape else None
        if n is not None and n >= 2:
            raise InvalidArgumentError(f"There should only be 1 default per field but field {i} has {n}")


def _decode_csv_kernel(records, *defaults, out_types, field_delim, use_quote_delim, na_value, select_cols):
    _check_csv_defaults(defaults, np.shape)
    a = np.asarray(records, dtype=object)
    delim = field_delim[0]
    na = na_value.encode() if isinstance(na_value, str) else na_value
    outs = [np.empty(a.shape, dtype=object if t == "string" else np.dtype(t)) for t in out_types]
    flats = [o.reshape(-1) for o in outs]
    for i, rec in enumerate(a.reshape(-1)):
        fields = _csv_fields(rec, delim, use_quote_delim, select_cols or None)
        if len(fields) != len(out_types):
            raise InvalidArgumentError(f"Expect {len(out_types)} fields but have {len(fields)} in record {i}")
        for f, (field, t) in enumerate(zip(fields, out_types)):
            if not field or field == na:
                d = np.asarray(defaults[f]).reshape(-1)
                if d.size != 1:
                    raise InvalidArgumentError(f"Field {f} is required but missing in record {i}!")
                flats[f][i] = d[0]
            else:
                flats[f][i] = _csv_value(field, t, f, i)
    return tuple(outs)


def _decode_csv_infer(records, *defaults, out_types, field_delim, use_quote_delim, na_value, select_cols):
    try:
        _check_csv_defaults(defaults, lambda d: None if d.shape.rank is None else list(d.shape))
    except InvalidArgumentError as e:
        raise ValueError(e.message) from None
    return [(records.shape, _dt.as_dtype(t)) for t in out_types]


DECODE_CSV = defop("DecodeCSV", _decode_csv_kernel, _decode_csv_infer,
                   num_outputs=lambda attrs: len(attrs["out_types"]))


def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, na_value="", select_cols=None,
               name=None):
    """tf.io.decode_csv: one tensor per column, each shaped like `records`. An empty record default makes its
    column required; select_cols picks (strictly increasing) columns."""
    if select_cols is not None:
        select_cols = [int(c) for c in select_cols]
        if any(select_cols[i] >= select_cols[i + 1] for i in range(len(select_cols) - 1)):
            raise ValueError("select_cols is not strictly increasing.")
        if select_cols and select_cols[0] < 0:
            raise ValueError("select_cols contains negative values.")
        if len(select_cols) != len(record_defaults):
            raise ValueError("Length of select_cols and record_defaults do not match.")
    recs = _strings(records, "records")
    defaults = []
    for d in record_defaults:
        t = d if isinstance(d, Tensor) else to_tensor(d)
        _type_in(t.dtype, _CSV_TYPES, "record_defaults")
        defaults.append(t)
    delim = field_delim.encode() if isinstance(field_delim, str) else bytes(field_delim)
    if len(delim) != 1:
        raise InvalidArgumentError("field_delim should be only 1 char [Op:DecodeCSV]")
    na = na_value.encode() if isinstance(na_value, str) else bytes(na_value)
    attrs = {"out_types": tuple(t.dtype.name for t in defaults), "field_delim": delim,
             "use_quote_delim": bool(use_quote_delim), "na_value": na, "select_cols": tuple(select_cols or ())}
    outs = bind(DECODE_CSV, [recs] + defaults, attrs, name=name)
    return list(outs) if isinstance(outs, (list, tuple)) else [outs]


# ---------------------------------------------------------------- WAV
def _wav_error(msg):
    raise InvalidArgumentError(msg)


class _Reader:
    """Bounds-checked reads over WAV bytes, with TensorFlow's wav_io messages."""

    def __init__(self, data):
        self.data, self.off = data, 0

    def take(self, n):
        if self.off > len(self.data):
            _wav_error(f"Initial offset is outside data range: {self.off}")
        if self.off + n > len(self.data):
            _wav_error("Data too short when trying to read string")
        s = self.data[self.off:self.off + n]
        self.off += n
        return s

    def expect(self, text):
        found = self.take(len(text))
        if found != text:
            _wav_error(f"Header mismatch: Expected {text.decode()} but found {found.decode('latin-1')}")

    def u32(self):
        return struct.unpack("<I", self.take(4))[0]

    def u16(self):
        return struct.unpack("<H", self.take(2))[0]


_WAV_SKIPPABLE = {b"JUNK", b"bext", b"iXML", b"qlty", b"mext", b"levl", b"link", b"axml"}


def _parse_wav(data):
    """16-bit PCM WAV -> (int16 samples (frames, channels), sample_rate), as TensorFlow's wav_io reads it."""
    r = _Reader(data)
    r.expect(b"RIFF")
    r.u32()
    r.expect(b"WAVE")
    chunk = r.take(4)
    while chunk != b"fmt ":
        if chunk not in _WAV_SKIPPABLE:
            _wav_error(f"Unexpected field {chunk.decode('latin-1')}")
        size = r.u32()
        r.take(size)
        chunk = r.take(4)
    fmt_size = r.u32()
    if fmt_size not in (16, 18):
        _wav_error(f"Bad format chunk size for WAV: Expected 16 or 18, but got{fmt_size}")
    audio_format = r.u16()
    if audio_format != 1:
        _wav_error(f"Bad audio format for WAV: Expected 1 (PCM), but got{audio_format}")
    channels = r.u16()
    if channels < 1:
        _wav_error(f"Bad number of channels for WAV: Expected at least 1, but got {channels}")
    rate, bytes_per_second, bytes_per_frame, bits = r.u32(), r.u32(), r.u16(), r.u16()
    if bits != 16:
        _wav_error(f"Can only read 16-bit WAV files, but received {bits}")
    expected = (bits * channels + 7) // 8
    if bytes_per_frame != expected:
        _wav_error(f"Bad bytes per sample in WAV header: Expected {expected} but got {bytes_per_frame}")
    if bytes_per_second != bytes_per_frame * rate:
        _wav_error(f"Bad bytes per second in WAV header: Expected {bytes_per_frame * rate} but got "
                   f"{bytes_per_second} (sample_rate={rate}, bytes_per_sample={bytes_per_frame})")
    if fmt_size == 18:
        r.off += 2
    samples = None
    while r.off < len(data):
        cid = r.take(4)
        size = r.u32()
        if size > 2 ** 31 - 1:
            _wav_error(f"WAV data chunk '{cid.decode('latin-1')}' is too large: {size} bytes, but the limit is "
                       f"{2 ** 31 - 1}")
        if cid == b"data":
            if samples is not None:
                _wav_error("More than one data chunk found in WAV")
            frames = size // bytes_per_frame
            raw = r.take(2 * frames * channels)
            samples = np.frombuffer(raw, "<i2").reshape(frames, channels)
        else:
            r.off += size
    if samples is None:
        _wav_error("No data chunk found in WAV")
    return samples, rate


def _decode_wav_kernel(contents, desired_channels=-1, desired_samples=-1):
    data = _scalar_bytes(contents, "contents must be scalar, got shape ")
    samples, rate = _parse_wav(data)
    if desired_channels < -1:
        _wav_error(f"desired_channels must be >= -1, got {desired_channels}")
    if desired_samples < -1:
        _wav_error(f"desired_samples must be >= -1, got {desired_samples}")
    audio = samples.astype(np.float32) * np.float32(1.0 / 32768)
    frames, chans = audio.shape
    n = frames if desired_samples == -1 else desired_samples
    c = chans if desired_channels == -1 else desired_channels
    src = np.minimum(np.arange(c), chans - 1)  # missing channels repeat the file's last one
    out = np.zeros((n, c), np.float32)
    k = min(n, frames)
    out[:k] = audio[:k][:, src]
    return out, np.int32(np.uint32(rate).astype(np.int32))


def _decode_wav_infer(contents, desired_channels=-1, desired_samples=-1):
    _rank0(contents, "'DecodeWav'")
    return [(TensorShape([None if desired_samples == -1 else desired_samples,
                          None if desired_channels == -1 else desired_channels]), _dt.float32),
            (TensorShape([]), _dt.int32)]


def _encode_wav_kernel(audio, sample_rate):
    a = np.asarray(audio)
    if a.ndim != 2:
        raise InvalidArgumentError(f"audio must be 2-dimensional{_shape_text(a.shape)}")
    if np.ndim(sample_rate) != 0:
        raise InvalidArgumentError(f"Input sample_rate should be a scalar tensor, got "
                                   f"{_shape_text(np.shape(sample_rate))} instead.")
    rate = int(sample_rate)
    frames, channels = a.shape
    if rate <= 0 or rate > 2 ** 32 - 1:
        raise InvalidArgumentError(f"sample_rate must be in (0, 2^32), got: {rate}")
    if channels == 0 or channels > 65535:
        raise InvalidArgumentError(f"num_channels must be in (0, 2^16), got: {channels}")
    size = 44 + 2 * frames * channels
    if size > 2 ** 32 - 1:
        raise InvalidArgumentError("Provided channels and frames cannot be encoded as a WAV.")
    scaled = a.astype(np.float32) * np.float32(32768.0)
    rounded = np.sign(scaled) * np.floor(np.abs(scaled) + np.float32(0.5))  # roundf: halves away from zero
    pcm = np.clip(np.nan_to_num(rounded, nan=0.0), -32768, 32767).astype("<i2")
    header = struct.pack("<4sI4s4sIHHIIHH4sI", b"RIFF", size - 8, b"WAVE", b"fmt ", 16, 1, channels, rate,
                         rate * 2 * channels, 2 * channels, 16, b"data", 2 * frames * channels)
    return np.array(header + pcm.tobytes(), dtype=object)


def _encode_wav_infer(audio, sample_rate):
    if audio.shape.rank is not None and audio.shape.rank != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {audio.shape.rank} for 'EncodeWav'")
    _rank0(sample_rate, "'EncodeWav' (sample_rate)")
    return TensorShape([]), _dt.string


DECODE_WAV = defop("DecodeWav", _decode_wav_kernel, _decode_wav_infer, num_outputs=2, allowed=_STR)
ENCODE_WAV = defop("EncodeWav", _encode_wav_kernel, _encode_wav_infer, allowed=frozenset([_dt.float32]))


DecodeWav = collections.namedtuple("DecodeWav", ["audio", "sample_rate"])


def decode_wav(contents, desired_channels=-1, desired_samples=-1, name=None):
    """tf.audio.decode_wav: 16-bit PCM WAV -> (float32 audio in [-1, 1) shaped (samples, channels), int32
    sample_rate). desired_samples cuts or zero-pads; desired_channels drops channels or repeats the last."""
    audio, rate = bind(DECODE_WAV, [_strings(contents, "contents")],
                       {"desired_channels": int(desired_channels), "desired_samples": int(desired_samples)},
                       name=name)
    return DecodeWav(audio, rate)


def encode_wav(audio, sample_rate, name=None):
    """tf.audio.encode_wav: float32 (frames, channels) in [-1, 1] -> a 16-bit PCM WAV file (scalar string)."""
    a = to_tensor(audio)
    if a.dtype is not _dt.float32:
        raise TypeError(f"Value passed to parameter 'audio' has DataType {a.dtype.name} not in list of allowed "
                        "values: float32")
    rate = to_tensor(sample_rate, dtype=None if isinstance(sample_rate, Tensor) else _dt.int32)
    return bind(ENCODE_WAV, [a, rate], name=name)


# ---------------------------------------------------------------- images: common
_JPEG_MAGIC, _PNG_MAGIC, _GIF_MAGIC, _BMP_MAGIC = b"\xff\xd8\xff", b"\x89PNG\r\n\x1a\n", b"GIF8", b"BM"


def _classify(data):
    for magic, fmt in ((_JPEG_MAGIC, "jpeg"), (_PNG_MAGIC, "png"), (_GIF_MAGIC, "gif"), (_BMP_MAGIC, "bmp")):
        if data.startswith(magic):
            return fmt
    return None


def _check_size(elements, what):
    if elements >= MAX_ELEMENTS:
        raise InvalidArgumentError(f"{what} too large: {elements} values decoded would be more than "
                                   f"{MAX_ELEMENTS - 1}")


def _from_uint8(arr, dtype):
    """TensorFlow's widening of 8-bit decoders' output: uint16 = v * 256, float32 = v * (1/255)."""
    if dtype == "uint8":
        return arr
    if dtype == "uint16":
        return arr.astype(np.uint16) * np.uint16(256)
    return arr.astype(np.float32) * np.float32(1.0 / 255)


def _open(Image, data, fmt):
    """A Pillow image for these bytes (header only), every Pillow failure an InvalidArgumentError."""
    try:  # (no warnings.catch_warnings here: it is not thread-safe, and tf.data maps decode on threads)
        return Image.open(io.BytesIO(data), formats=[fmt])
    except Exception as e:  # Pillow raises many kinds (OSError, SyntaxError, DecompressionBombError ...)
        raise _bad(fmt, data, e) from None


def _bad(fmt, data, e=None):
    if fmt == "JPEG":
        return InvalidArgumentError("jpeg::Uncompress failed. Invalid JPEG data or crop window.")
    if fmt == "PNG":
        return InvalidArgumentError(f"Invalid PNG data, size {len(data)}")
    why = "not a GIF Pillow can read" if type(e).__name__ == "UnidentifiedImageError" else f"{e}"
    return InvalidArgumentError(f"Invalid GIF data (size {len(data)}), {why}")


def _load(img, fmt, data):
    try:
        img.load()
    except Exception as e:
        raise _bad(fmt, data, e) from None


# ---------------------------------------------------------------- JPEG
def _jpeg_pixels(data, channels, ratio=1, fancy_upscaling=True, dct_method="", crop=None,
                 try_recover_truncated=False):
    """The decode below; with try_recover_truncated, a file cut short is decoded again with the end-of-image
    marker TensorFlow's reader inserts where the data runs out (libjpeg then fills the missing blocks)."""
    try:
        return _jpeg_decode(data, channels, ratio, fancy_upscaling, dct_method, crop)
    except InvalidArgumentError:
        if not try_recover_truncated or data.endswith(b"\xff\xd9"):
            raise
        return _jpeg_decode(data + b"\xff\xd9", channels, ratio, fancy_upscaling, dct_method, crop)


def _jpeg_decode(data, channels, ratio, fancy_upscaling, dct_method, crop):
    """libjpeg(-turbo) through Pillow: channels=1 asks libjpeg for grayscale (the Y plane, as TensorFlow's
    JCS_GRAYSCALE), ratio scales in the DCT, and libjpeg gets TensorFlow's DCT method and upsampling where
    Pillow can ask for them: JDCT_IFAST (TensorFlow's default) for grey and 4:4:4 files, grey output, and whenever
    fancy_upscaling=False; JDCT_ISLOW with fancy upsampling for dct_method='INTEGER_ACCURATE', and (the one
    approximation) for the default settings on chroma-subsampled files, where Pillow cannot combine IFAST with
    fancy upsampling."""
    Image = _pillow()
    from PIL import ImageFile
    try:  # the declared size, checked before Pillow sees the file
        dh, dw, dc = _jpeg_header(data)
    except InvalidArgumentError:
        pass
    else:
        _check_size(dh * dw * (channels or (1 if dc == 1 else 3)), "JPEG image")
    img = _open(Image, data, "JPEG")
    w, h = img.size
    comps = {"L": 1, "RGB": 3, "CMYK": 4}.get(img.mode, 3)
    out_c = channels or (1 if comps == 1 else 3)
    _check_size(w * h * max(out_c, comps), "JPEG image")
    # Pillow's draft flag is libjpeg's JDCT_IFAST without fancy upsampling. Upsampling only happens to
    # subsampled chroma, so for grey and 4:4:4 files the flag is exactly TensorFlow's default (IFAST).
    layers = getattr(img, "layer", None) or []
    upsampled = len({(h_, v_) for _, h_, v_, _ in layers}) > 1 and out_c != 1  # grey output: luma only
    fast = dct_method in ("", "INTEGER_FAST") and (not fancy_upscaling or not upsampled)
    try:
        if ratio > 1 and w >= ratio and h >= ratio:
            img.draft("L" if out_c == 1 and img.mode == "RGB" else None, (w // ratio, h // ratio))
        elif out_c == 1 and img.mode == "RGB":
            img.draft("L", None)
        elif ratio > 1:  # an image smaller than the ratio: libjpeg still scales it (to 1 pixel)
            d, e, o, a = img.tile[0]
            s = ratio
            if out_c == 1 and a[0] == "RGB":
                a = ("L", "")
                img._mode = "L"
            extent = (e[0], e[1], (e[2] - e[0] + s - 1) // s + e[0], (e[3] - e[1] + s - 1) // s + e[1])
            tile = getattr(ImageFile, "_Tile", None)  # Pillow >= 11 names its tiles; older ones use tuples
            img.tile = [tile(d, extent, o, a) if tile else (d, extent, o, a)]
            img._size = ((w + s - 1) // s, (h + s - 1) // s)
            img.decoderconfig = (s, 0)
        scale = img.decoderconfig[0] if img.decoderconfig else 1
        img.decoderconfig = (scale, 1 if fast else 0)
    except InvalidArgumentError:
        raise
    except Exception as e:
        raise _bad("JPEG", data, e) from None
    _load(img, "JPEG", data)
    try:
        if img.mode == "CMYK":
            # TensorFlow asks libjpeg for CMYK and makes RGB itself (libjpeg has no CMYK -> grey): Pillow's values
            # are inverted ("CMYK;I"), so an Adobe file's r = raw_c * raw_k / 255 is (255 - C) * (255 - K) // 255
            if out_c == 1:
                raise _bad("JPEG", data)
            cmyk = np.asarray(img, np.uint8).astype(np.int32)
            ink = 255 - cmyk if "adobe" in img.info else cmyk
            return np.ascontiguousarray(_crop((ink[..., :3] * ink[..., 3:] // 255).astype(np.uint8), crop))
        if img.mode not in ("RGB", "L"):
            img = img.convert("RGB")
        if out_c == 3 and img.mode != "RGB":
            img = img.convert("RGB")
        elif out_c == 1 and img.mode != "L":
            img = img.convert("L")
        arr = np.asarray(img, dtype=np.uint8)
    except Exception as e:
        raise _bad("JPEG", data, e) from None
    return np.ascontiguousarray(_crop(arr.reshape(arr.shape[0], arr.shape[1], out_c), crop))


def _crop(arr, crop):
    if crop is None:
        return arr
    y, x, ch, cw = crop
    if y < 0 or x < 0 or ch <= 0 or cw <= 0 or y + ch > arr.shape[0] or x + cw > arr.shape[1]:
        raise InvalidArgumentError("jpeg::Uncompress failed. Invalid JPEG data or crop window.")
    return arr[y:y + ch, x:x + cw]


def _jpeg_header(data):
    """(height, width, components) from the first SOFn marker, without decoding."""
    i, n = 2, len(data)
    while i + 4 <= n:
        if data[i] != 0xFF:
            break
        marker = data[i + 1]
        if marker == 0xFF:
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
            if i + 10 > n:
                break
            h, w = struct.unpack(">HH", data[i + 5:i + 9])
            return h, w, data[i + 9]
        i += 2 + length
    raise InvalidArgumentError("Invalid JPEG data or crop window.")


# ---------------------------------------------------------------- PNG
_PNG_DEPTHS = {0: (1, 2, 4, 8, 16), 2: (8, 16), 3: (1, 2, 4, 8), 4: (8, 16), 6: (8, 16)}
_PNG_INIT = "Invalid PNG. Failed to initialize decoder."


def _png_header(data):
    if len(data) < 33 or data[12:16] != b"IHDR" or data[8:12] != b"\x00\x00\x00\x0d":
        raise InvalidArgumentError(_PNG_INIT)
    w, h, depth, ctype, comp, filt, interlace = struct.unpack(">IIBBBBB", data[16:29])
    if w == 0 or h == 0 or depth not in _PNG_DEPTHS.get(ctype, ()) or comp or filt or interlace > 1 or \
            struct.unpack(">I", data[29:33])[0] != zlib.crc32(data[12:29]) & 0xFFFFFFFF:
        raise InvalidArgumentError(_PNG_INIT)
    return w, h, depth, ctype, interlace


def _png_stream(data, w, h, depth, ctype, interlace):
    """The file checked as libpng reads it, and (the file with only its sound chunks, the inflated scanlines):
    chunks walked to a sound IEND (a cut file fails), a critical chunk with a bad CRC, an unknown critical chunk,
    a second IHDR, a chunk over 2**31-1 bytes, IDATs not in one run or a palette image without PLTE fail, an
    ancillary chunk with a bad CRC is dropped; the zlib stream must hold every scanline and, unless more data
    follows them, end with its checksum."""
    size = len(data)
    init, i, kept, idat, run = True, 33, [data[:33]], [], 0  # run: 0 before IDAT, 1 in it, 2 after
    seen_plte = False
    while True:
        if i + 8 > size:
            raise InvalidArgumentError(_PNG_INIT if init else f"Invalid PNG data, size {size}")
        n, kind = struct.unpack(">I4s", data[i:i + 8])
        critical = kind[:1].isupper()
        if n > 0x7FFFFFFF or i + 12 + n > size:
            raise InvalidArgumentError(_PNG_INIT if init and (kind != b"IDAT" or n > 0x7FFFFFFF)
                                       else f"Invalid PNG data, size {size}")
        body = data[i + 8:i + 8 + n]
        sound = struct.unpack(">I", data[i + 8 + n:i + 12 + n])[0] == zlib.crc32(kind + body) & 0xFFFFFFFF
        if kind == b"IDAT":
            if run == 2:
                raise InvalidArgumentError(f"Invalid PNG data, size {size}")
            if ctype == 3 and not seen_plte:
                raise InvalidArgumentError(_PNG_INIT)
            run, init = 1, False
        elif run == 1:
            run = 2
        if not sound and (critical or kind == b"IEND"):
            raise InvalidArgumentError(_PNG_INIT if init else f"Invalid PNG data, size {size}")
        if critical and kind not in (b"PLTE", b"IDAT", b"IEND"):  # a second IHDR, or one libpng does not know
            raise InvalidArgumentError(_PNG_INIT if init else f"Invalid PNG data, size {size}")
        seen_plte |= kind == b"PLTE"
        if sound:
            kept.append(data[i:i + 12 + n])
            if kind == b"IDAT":
                idat.append(body)
        i += 12 + n
        if kind == b"IEND":
            break
    if not idat:
        raise InvalidArgumentError(f"Invalid PNG data, size {size}")
    samples = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
    passes = _ADAM7 if interlace else ((0, 0, 1, 1),)
    need = 0
    for x0, y0, dx, dy in passes:
        ph, pw = -(-(h - y0) // dy), -(-(w - x0) // dx)
        if ph > 0 and pw > 0:
            need += ph * (1 + (pw * samples * depth + 7) // 8)
    z = zlib.decompressobj()
    try:
        raw = z.decompress(b"".join(idat), need)
        more = z.decompress(z.unconsumed_tail, 1) if len(raw) == need else b""
    except zlib.error:
        raise InvalidArgumentError(f"Invalid PNG data, size {size}") from None
    if len(raw) < need or (not more and not z.eof):  # too few scanlines, or the stream cut before its checksum
        raise InvalidArgumentError(f"Invalid PNG data, size {size}")
    return b"".join(kept), raw


def _png_chunks(data):
    """(kind, body) of each chunk. As libpng: a critical chunk with a bad CRC fails the file, an ancillary one
    is dropped."""
    i, out = 8, []
    while i + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[i:i + 8])
        body = data[i + 8:i + 8 + size]
        crc = data[i + 8 + size:i + 12 + size]
        if len(body) != size or len(crc) != 4:
            break
        if struct.unpack(">I", crc)[0] != zlib.crc32(kind + body) & 0xFFFFFFFF:
            if kind[:1].isupper():
                raise InvalidArgumentError(f"Invalid PNG data, size {len(data)}")
        else:
            out.append((kind, body))
        i += 12 + size
        if kind == b"IEND":
            break
    return out


def _paeth(a, b, c):
    p = a.astype(np.int32) + b - c
    pa, pb, pc = np.abs(p - a), np.abs(p - b), np.abs(p - c)
    return np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))


_ADAM7 = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2))


def _unfilter(rows, w, bpp, size):
    """PNG scanline filters undone: rows is (h, 1 + w*bpp) uint8 as inflated; returns (h, w*bpp)."""
    h, stride = rows.shape[0], w * bpp
    out = np.zeros((h, stride), np.uint8)
    prev = np.zeros(stride, np.uint8)
    for y in range(h):
        f, line = rows[y, 0], rows[y, 1:]
        if f == 0:
            cur = line.copy()
        elif f == 1:
            cur = (np.cumsum(line.reshape(w, bpp).astype(np.int64), axis=0) % 256).astype(np.uint8).reshape(-1)
        elif f == 2:
            cur = line + prev
        elif f in (3, 4):
            cur = np.zeros(stride, np.uint8)
            left = np.zeros(bpp, np.uint8)
            up_left = np.zeros(bpp, np.uint8)
            for x in range(w):
                sl = slice(x * bpp, (x + 1) * bpp)
                up = prev[sl]
                pred = ((left.astype(np.int32) + up) // 2) if f == 3 else _paeth(left, up, up_left)
                cur[sl] = (line[sl] + pred.astype(np.uint8)).astype(np.uint8)
                left, up_left = cur[sl], up
        else:
            raise InvalidArgumentError(f"Invalid PNG data, size {size}")
        out[y] = cur
        prev = cur
    return out


def _png16(raw, w, h, ctype, interlace, size):
    """A 16-bit grey/colour PNG unfiltered here (Pillow keeps only 8 of its bits): uint16 (h, w, samples), from
    the inflated scanlines (_png_stream, which bounds them by what the header declares). Interlaced files are put
    together from their seven Adam7 passes."""
    samples = {0: 1, 2: 3, 4: 2, 6: 4}[ctype]
    bpp = 2 * samples
    passes = _ADAM7 if interlace else ((0, 0, 1, 1),)
    shapes = [(-(-(h - y0) // dy), -(-(w - x0) // dx)) for x0, y0, dx, dy in passes]
    out = np.zeros((h, w * bpp), np.uint8)
    at = 0
    for (x0, y0, dx, dy), (ph, pw) in zip(passes, shapes):
        if ph <= 0 or pw <= 0:
            continue
        n = ph * (1 + pw * bpp)
        part = _unfilter(np.frombuffer(raw, np.uint8, n, at).reshape(ph, 1 + pw * bpp), pw, bpp, size)
        at += n
        out.reshape(h, w, bpp)[y0::dy, x0::dx] = part.reshape(ph, pw, bpp)
    return out.view(">u2").astype(np.uint16).reshape(h, w, samples)


def _trns(data):
    for kind, body in _png_chunks(data):
        if kind == b"tRNS":
            return body
        if kind == b"IDAT":
            return None
    return None


def _png_native(data, depth, ctype, interlace, want16, raw):
    """The image as stored (palette expanded, tRNS as alpha for palettes): (array, bits, has_alpha, trns_key)."""
    w, h = struct.unpack(">II", data[16:24])
    if depth == 16 and ctype in (0, 2, 4, 6):
        arr = _png16(raw, w, h, ctype, interlace, len(data))
        key = _trns(data) if ctype in (0, 2) else None
        n = 1 if ctype == 0 else 3
        key = None if key is None or len(key) < 2 * n else np.array(struct.unpack(f">{n}H", key[:2 * n]), np.uint16)
        return arr, 16, ctype in (4, 6), key
    Image = _pillow()
    img = _open(Image, data, "PNG")
    _load(img, "PNG", data)
    try:
        mode, info = img.mode, img.info
        if ctype == 3:
            has = "transparency" in info
            arr = np.asarray(img.convert("RGBA" if has else "RGB"), np.uint8)
            return arr, 8, has, None
        if mode in ("I;16", "I;16B", "I;16L", "I", "I;16N"):
            arr = np.asarray(img).astype(np.uint16)[..., None]
            bits = 16
        elif mode == "1":
            arr = (np.asarray(img, np.uint8) * 255).astype(np.uint8)[..., None]
            bits = 8
        else:
            arr = np.asarray(img, np.uint8)
            if arr.ndim == 2:
                arr = arr[..., None]
            bits = 8
        key = info.get("transparency")
        if key is not None and ctype in (0, 2) and not isinstance(key, bytes):
            key = np.atleast_1d(np.array(key, np.int64))
            if bits == 8 and depth < 8:
                key = key * (255 // (2 ** depth - 1))
            elif bits == 8 and depth == 16:
                key = key >> 8
        else:
            key = None
        return arr, bits, ctype in (4, 6), key
    except InvalidArgumentError:
        raise
    except Exception as e:
        raise _bad("PNG", data, e) from None


def _png_pixels(data, channels, want16):
    """PNG decoded with TensorFlow's libpng transforms: channels 0 keeps the file's (palette: RGB, RGBA with
    tRNS), alpha added as the maximum or taken from tRNS, RGB -> grey with libpng's fixed-point 0.299/0.587
    weights, 16-bit files cut to their high byte for uint8 and 8-bit files widened by 257 for uint16."""
    w, h, depth, ctype, interlace = _png_header(data)
    if w >= (1 << 27) or h >= (1 << 27) or w * h >= (1 << 29):
        raise InvalidArgumentError(f"PNG size too large for int: {w} by {h}")
    if not channels:
        channels = {0: 1, 2: 3, 3: 4 if _trns(data) is not None else 3, 4: 2, 6: 4}[ctype]
    _check_size(w * h * channels, "PNG image")
    data, raw = _png_stream(data, w, h, depth, ctype, interlace)  # checked; bad ancillary chunks dropped
    arr, bits, has_alpha, key = _png_native(data, depth, ctype, interlace, want16, raw)
    top = (1 << bits) - 1
    color, alpha = arr[..., :-1] if has_alpha else arr, arr[..., -1:] if has_alpha else None
    if alpha is None and key is not None and channels % 2 == 0:
        alpha = np.where(np.all(color == key.reshape(1, 1, -1), axis=-1, keepdims=True), 0, top).astype(arr.dtype)
    if channels < 3 and color.shape[-1] == 3:
        r, g, b = (color[..., i:i + 1].astype(np.int64) for i in range(3))
        mixed = 9797 * r + 19234 * g + 3737 * b
        gray = (mixed + 16384) >> 15 if bits == 16 else mixed >> 15
        color = np.where((r == g) & (r == b), r, gray).astype(arr.dtype)
    elif channels >= 3 and color.shape[-1] == 1:
        color = np.repeat(color, 3, axis=-1)
    parts = [color]
    if channels % 2 == 0:
        parts.append(alpha if alpha is not None else np.full(color.shape[:2] + (1,), top, arr.dtype))
    out = np.concatenate(parts, axis=-1) if len(parts) > 1 else color
    if want16:
        return out.astype(np.uint16) * np.uint16(257) if bits == 8 else out.astype(np.uint16)
    return (out >> 8).astype(np.uint8) if bits == 16 else out.astype(np.uint8)


# ---------------------------------------------------------------- GIF
def _gif_rects(data):
    """(left, top, width, height) of each frame's image descriptor, from the block structure alone (no pixel is
    decoded); the trailer ends the walk, a byte that starts no record fails it (giflib's DGifSlurp)."""
    n, rects = len(data), []
    i = 13 + (3 << ((data[10] & 7) + 1) if data[10] & 0x80 else 0)
    while i < n:
        kind = data[i]
        if kind == 0x21:  # an extension: its label, then sub-blocks
            i += 2
        elif kind == 0x2C:
            if i + 10 > n:
                break
            rects.append(struct.unpack("<HHHH", data[i + 1:i + 9]))
            packed = data[i + 9]
            i += 10 + (3 << ((packed & 7) + 1) if packed & 0x80 else 0) + 1  # descriptor, local table, code size
        elif kind == 0x3B:
            break
        else:  # giflib (TensorFlow's reader) refuses a byte that starts no record; Pillow would skip it
            raise InvalidArgumentError(f"Invalid GIF data (size {n}), failed to slurp gif file: Wrong record type "
                                       "detected")
        while i < n and data[i]:  # sub-blocks up to the empty one
            i += 1 + data[i]
        i += 1
    return rects


def _gif_frames(data, first_only):
    """Every frame of a GIF as RGB uint8 (frames, h, w, 3). As TensorFlow documents: the first frame is black
    where it leaves the canvas uncovered (and, as its decoder does, where it is transparent); later frames show
    the previous frame there (Pillow's compositing, which also applies disposal methods TensorFlow ignores)."""
    Image = _pillow()
    if len(data) >= 13:  # the logical screen, checked before Pillow sees the file
        sw, sh = struct.unpack("<HH", data[6:10])
        _check_size(sw * sh * 3, "GIF image")
        # a frame reaching past the screen: Pillow would grow its canvas to hold it (up to 65535**2 pixels,
        # composited frame by frame) before the size check below refused it; refused here first
        for k, (left, top, fw, fh) in enumerate(_gif_rects(data)[:1 if first_only else None]):
            if left + fw > sw or top + fh > sh:
                raise InvalidArgumentError(f"Invalid GIF data (size {len(data)}), frame {k} has another size")
    img = _open(Image, data, "GIF")
    try:
        w, h = img.size
        n = 1 if first_only else getattr(img, "n_frames", 1)
        _check_size(n * w * h * 3, "GIF image")
        frames = []
        for k in range(n):
            img.seek(k)
            box = img.tile[0][1] if k == 0 and img.tile else None
            frame = np.array(img.convert("RGB"), np.uint8)
            if k == 0 and img.mode == "P":
                # TensorFlow: the first frame is black where it is transparent or outside its rectangle
                # (later frames keep the previous frame there, as Pillow composites them)
                index = np.asarray(img)
                black = np.ones(index.shape, bool)
                if box is not None:
                    black[box[1]:box[3], box[0]:box[2]] = False
                if img.info.get("transparency") is not None:
                    black |= index == img.info["transparency"]
                frame[black] = 0
            if frame.shape[:2] != (h, w):
                raise InvalidArgumentError(f"Invalid GIF data (size {len(data)}), frame {k} has another size")
            frames.append(frame)
    except InvalidArgumentError:
        raise
    except Exception as e:
        raise _bad("GIF", data, e) from None
    if not frames:
        raise InvalidArgumentError(f"Invalid GIF data (size {len(data)}), no frames")
    return np.stack(frames)


# ---------------------------------------------------------------- BMP (TensorFlow's own reader)
def _bmp_pixels(data, channels):
    if len(data) < 32:
        raise InvalidArgumentError("Incomplete bmp content, requires at least 32 bytes to find the header size, "
                                   f"width, height, and bpp, got {len(data)} bytes")
    header_size, = struct.unpack("<i", data[10:14])
    width, height = struct.unpack("<ii", data[18:26])
    bpp, = struct.unpack("<h", data[28:30])
    img_c = int(bpp / 8) if bpp >= 0 else -((-bpp) // 8)
    if img_c not in (1, 3, 4):
        raise InvalidArgumentError(f"Number of channels inherent in the image must be 1, 3 or 4, was {img_c}")
    out_c = channels or img_c
    if width <= 0:
        raise InvalidArgumentError("Width must be positive")
    if height == 0:
        raise InvalidArgumentError("Height must be nonzero")
    if header_size < 0:
        raise InvalidArgumentError("header size must be nonnegative")
    if width * abs(height) >= (2 ** 31 - 1) // 8:
        raise InvalidArgumentError("Total possible pixel bytes must be less than 2^30")
    abs_h = abs(height)
    row = (img_c * width + 3) // 4 * 4
    diff = len(data) - header_size - row * abs_h
    if diff != 0:
        raise InvalidArgumentError(f"Input size should match (header_size + row_size * abs_height) but they "
                                   f"differ by {diff}")
    _check_size(width * abs_h * out_c, "BMP image")
    px = np.frombuffer(data, np.uint8, row * abs_h, header_size).reshape(abs_h, row)[:, :width * img_c]
    px = px.reshape(abs_h, width, img_c)
    if height > 0:
        px = px[::-1]  # bottom-up rows
    if img_c == 1:
        rgb = np.repeat(px, 3, axis=-1)
        alpha = None
    else:
        rgb, alpha = px[..., 2::-1], (px[..., 3:4] if img_c == 4 else None)
    if out_c == 1:
        return np.ascontiguousarray(px[..., :1])
    if out_c == 3:
        return np.ascontiguousarray(rgb)
    return np.concatenate([rgb, alpha if alpha is not None else np.full(rgb.shape[:2] + (1,), 255, np.uint8)],
                          axis=-1)


# ---------------------------------------------------------------- the decoders, as TensorFlow's DecodeImageV2
def _decode(contents, op_type, channels=0, dtype=_dt.uint8, expand_animations=True, ratio=1, fancy_upscaling=True,
            dct_method="", crop=None, try_recover_truncated=False):
    dtype = dtype.name
    data = _scalar_bytes(contents, "`contents` must be scalar but got shape")
    if not data:
        raise InvalidArgumentError("Input is empty.")
    fmt = _classify(data)
    if fmt is None:
        raise InvalidArgumentError(UNKNOWN_FORMAT)
    if fmt == "jpeg":
        if channels == 4:
            raise InvalidArgumentError("JPEG does not support 4 channels")
        if op_type == "DecodeBmp":
            raise InvalidArgumentError("Trying to decode JPEG format using DecodeBmp op. Use `decode_jpeg` or "
                                       "`decode_image` instead.")
        arr = _from_uint8(_jpeg_pixels(data, channels, ratio, fancy_upscaling, dct_method, crop, try_recover_truncated), dtype)
        return arr[None] if op_type == "DecodeGif" else arr
    if fmt == "png":
        if op_type == "DecodeBmp":
            _png_header(data)
            raise InvalidArgumentError("Trying to decode PNG format using DecodeBmp op. Use `decode_png` or "
                                       "`decode_image` instead.")
        if op_type == "DecodeAndCropJpeg":
            raise InvalidArgumentError("DecodeAndCropJpeg operation can run on JPEG only, but detected PNG.")
        arr = _png_pixels(data, channels, dtype != "uint8")
        if dtype == "float32":
            arr = arr.astype(np.float32) * np.float32(1.0 / 65535)
        return arr[None] if op_type == "DecodeGif" else arr
    if fmt == "gif":
        if channels not in (0, 3):
            raise InvalidArgumentError(f"channels must be 0 or 3 for GIF, got {channels}")
        if op_type == "DecodeBmp":
            raise InvalidArgumentError("Trying to decode GIF format using DecodeBmp op. Use `decode_gif` or "
                                       "`decode_image` instead.")
        if op_type == "DecodeAndCropJpeg":
            raise InvalidArgumentError("DecodeAndCropJpeg operation can run on JPEG only, but detected GIF.")
        frames = _gif_frames(data, op_type == "DecodeImage" and not expand_animations)
        if op_type in ("DecodePng", "DecodeJpeg"):
            if len(frames) != 1:
                raise InvalidArgumentError(f"Got {len(frames)} frames, but animated gifs can only be decoded by "
                                           "tf.io.decode_gif or tf.io.decode_image")
            frames = frames[0]
        elif op_type == "DecodeImage" and not expand_animations:
            frames = frames[0]
        return _from_uint8(frames, dtype)
    if channels == 1:
        raise InvalidArgumentError(f"`channels` must be 0, 3 or 4 for BMP, but got {channels}")
    if op_type not in ("DecodeBmp", "DecodeImage"):
        if op_type == "DecodeAndCropJpeg":
            raise InvalidArgumentError("DecodeAndCropJpeg operation can run on JPEG only, but detected BMP.")
        raise InvalidArgumentError("Trying to decode BMP format using a wrong op. Use `decode_bmp` or "
                                   f"`decode_image` instead. Op used: {op_type}")
    return _from_uint8(_bmp_pixels(data, channels), dtype)


def _image_infer(contents, *rest, op_type, channels=0, dtype=_dt.uint8, expand_animations=True, **_):
    _rank0(contents, f"'{op_type}'")
    c = channels or None
    if op_type == "DecodeGif":
        shape = TensorShape([None, None, None, 3])
    elif op_type == "DecodeImage" and expand_animations:
        shape = TensorShape(None)
    else:
        shape = TensorShape([None, None, c])
    return shape, dtype


def _decode_kernel(contents, op_type, **attrs):
    return _decode(contents, op_type, **attrs)


def _decode_crop_kernel(contents, crop_window, op_type, **attrs):
    cw = np.asarray(crop_window)
    if cw.ndim != 1:
        raise InvalidArgumentError(f"crop_window must be 1-D, got shape {_shape_text(cw.shape)}")
    if cw.shape[0] != 4:
        raise InvalidArgumentError(f"crop_size must have four elements {_shape_text(cw.shape)}")
    return _decode(contents, op_type, crop=tuple(int(v) for v in cw), **attrs)


_ATTRS = ("op_type", "channels", "dtype", "expand_animations", "ratio", "fancy_upscaling", "dct_method",
          "try_recover_truncated")
DECODE_JPEG = defop("DecodeJpeg", _decode_kernel, _image_infer, allowed=_STR, attrs=_ATTRS)
DECODE_AND_CROP_JPEG = defop("DecodeAndCropJpeg", _decode_crop_kernel, _image_infer, attrs=_ATTRS)
DECODE_PNG = defop("DecodePng", _decode_kernel, _image_infer, allowed=_STR, attrs=_ATTRS)
DECODE_GIF = defop("DecodeGif", _decode_kernel, _image_infer, allowed=_STR, attrs=_ATTRS)
DECODE_BMP = defop("DecodeBmp", _decode_kernel, _image_infer, allowed=_STR, attrs=_ATTRS)
DECODE_IMAGE = defop("DecodeImage", _decode_kernel, _image_infer, allowed=_STR, attrs=_ATTRS)


def _channels(channels):
    channels = 0 if channels is None else int(channels)
    if channels not in (0, 1, 3, 4):
        raise InvalidArgumentError(f"`channels` must be 0, 1, 3 or 4 but got {channels}")
    return channels


def _jpeg_attrs(channels, ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction, dct_method):
    ratio = int(ratio)
    if ratio not in (1, 2, 4, 8):
        raise InvalidArgumentError(f"ratio must be 1, 2, 4, or 8, got {ratio}")
    dct_method = dct_method.decode() if isinstance(dct_method, bytes) else str(dct_method)
    if dct_method not in ("", "INTEGER_FAST", "INTEGER_ACCURATE"):
        raise InvalidArgumentError("dct_method must be one of {'', 'INTEGER_FAST', 'INTEGER_ACCURATE'}")
    attrs = {"op_type": "DecodeJpeg", "channels": _channels(channels), "ratio": ratio,
             "fancy_upscaling": bool(fancy_upscaling), "dct_method": dct_method}
    if try_recover_truncated:
        attrs["try_recover_truncated"] = True
    return attrs


def decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True, try_recover_truncated=False,
                acceptable_fraction=1, dct_method="", name=None):
    """tf.io.decode_jpeg: uint8 (height, width, channels); also decodes PNGs and one-frame GIFs, as TensorFlow."""
    attrs = _jpeg_attrs(channels, ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction, dct_method)
    return bind(DECODE_JPEG, [_strings(contents, "contents")], attrs, name=name)


def decode_and_crop_jpeg(contents, crop_window, channels=0, ratio=1, fancy_upscaling=True,
                         try_recover_truncated=False, acceptable_fraction=1, dct_method="", name=None):
    """tf.io.decode_and_crop_jpeg: decode_jpeg, then the window [y, x, height, width]."""
    attrs = _jpeg_attrs(channels, ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction, dct_method)
    attrs["op_type"] = "DecodeAndCropJpeg"
    window = to_tensor(crop_window, dtype=None if isinstance(crop_window, Tensor) else _dt.int32)
    return bind(DECODE_AND_CROP_JPEG, [_strings(contents, "contents"), window], attrs, name=name)


def decode_png(contents, channels=0, dtype=_dt.uint8, name=None):
    """tf.io.decode_png: uint8 or uint16 (height, width, channels); also decodes JPEGs and one-frame GIFs."""
    dtype = _dt.as_dtype(dtype)
    if dtype not in (_dt.uint8, _dt.uint16):
        raise TypeError(f"Value passed to parameter 'dtype' has DataType {dtype.name} not in list of allowed "
                        "values: uint8, uint16")
    return bind(DECODE_PNG, [_strings(contents, "contents")],
                {"op_type": "DecodePng", "channels": _channels(channels), "dtype": dtype}, name=name)


def decode_gif(contents, name=None):
    """tf.io.decode_gif: uint8 (frames, height, width, 3)."""
    return bind(DECODE_GIF, [_strings(contents, "contents")], {"op_type": "DecodeGif"}, name=name)


def decode_bmp(contents, channels=0, name=None):
    """tf.io.decode_bmp: uint8 (height, width, channels) of an uncompressed 8/24/32-bit BMP."""
    return bind(DECODE_BMP, [_strings(contents, "contents")],
                {"op_type": "DecodeBmp", "channels": _channels(channels)}, name=name)


def decode_image(contents, channels=None, dtype=_dt.uint8, name=None, expand_animations=True):
    """tf.io.decode_image: any of BMP, GIF, JPEG, PNG. GIFs are 4-D (frames first) unless
    expand_animations=False (their first frame). float32 is scaled to [0, 1]; other dtypes are decoded as
    uint16 and converted with tf.image.convert_image_dtype."""
    dtype = _dt.as_dtype(dtype)
    attrs = {"op_type": "DecodeImage", "channels": _channels(channels), "expand_animations": bool(expand_animations)}
    x = _strings(contents, "contents")
    if dtype in (_dt.uint8, _dt.uint16, _dt.float32):
        return bind(DECODE_IMAGE, [x], dict(attrs, dtype=dtype), name=name)
    from .image_ops import convert_image_dtype
    return convert_image_dtype(bind(DECODE_IMAGE, [x], dict(attrs, dtype=_dt.uint16), name=name), dtype)


def _is_jpeg_kernel(contents):
    return np.bool_(_scalar_bytes(contents, "contents must be scalar, got shape ").startswith(_JPEG_MAGIC))


def _extract_jpeg_shape_kernel(contents, output_type):
    data = _scalar_bytes(contents, "contents must be scalar, got shape ")
    if not data.startswith(_JPEG_MAGIC):
        raise InvalidArgumentError("Invalid JPEG data, size " + str(len(data)))
    h, w, c = _jpeg_header(data)
    return np.array([h, w, c], output_type._np)


IS_JPEG = defop("IsJpeg", _is_jpeg_kernel, lambda contents: (TensorShape([]), _dt.bool), allowed=_STR)
EXTRACT_JPEG_SHAPE = defop("ExtractJpegShape", _extract_jpeg_shape_kernel,
                           lambda contents, output_type: (TensorShape([3]), output_type), allowed=_STR)


def is_jpeg(contents, name=None):
    """tf.io.is_jpeg: whether the bytes start like a JPEG."""
    return bind(IS_JPEG, [_strings(contents, "contents")], name=name)


def extract_jpeg_shape(contents, output_type=_dt.int32, name=None):
    """tf.io.extract_jpeg_shape: [height, width, channels] from the JPEG header, nothing decoded."""
    output_type = _dt.as_dtype(output_type)
    return bind(EXTRACT_JPEG_SHAPE, [_strings(contents, "contents")], {"output_type": output_type}, name=name)


# ---------------------------------------------------------------- encoders
def _png_chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def _encode_png_kernel(image, compression=-1):
    a = np.asarray(image)
    if a.ndim != 3:
        raise InvalidArgumentError(f"image must be 3-dimensional{_shape_text(a.shape)}")
    h, w, c = a.shape
    if not 1 <= c <= 4:
        raise InvalidArgumentError(f"image must have 1, 2, 3, or 4 channels, got {c}")
    if h == 0 or w == 0:
        raise InvalidArgumentError("PNG encoding failed")
    bits = 16 if a.dtype == np.uint16 else 8
    rows = a.astype(">u2" if bits == 16 else np.uint8).reshape(h, -1).view(np.uint8)
    raw = np.concatenate([np.zeros((h, 1), np.uint8), rows], axis=1).tobytes()  # filter 0 on every row
    ihdr = struct.pack(">IIBBBBB", w, h, bits, {1: 0, 2: 4, 3: 2, 4: 6}[c], 0, 0, 0)
    body = zlib.compress(raw, compression if compression >= 0 else zlib.Z_DEFAULT_COMPRESSION)
    out = _PNG_MAGIC + _png_chunk(b"IHDR", ihdr) + _png_chunk(b"IDAT", body) + _png_chunk(b"IEND", b"")
    return np.array(out, dtype=object)


def _encode_image_infer(image, **_):
    if image.shape.rank is not None and image.shape.rank != 3:
        raise ValueError(f"Shape must be rank 3 but is rank {image.shape.rank} for 'Encode'")
    return TensorShape([]), _dt.string


def _encode_jpeg_kernel(image, format="", quality=95, progressive=False, optimize_size=False,
                        chroma_downsampling=True, density_unit="in", x_density=300, y_density=300, xmp_metadata=b""):
    a = np.asarray(image)
    if a.ndim != 3:
        raise InvalidArgumentError(f"image must be 3-dimensional{_shape_text(a.shape)}")
    c = a.shape[2]
    if format == "" and c not in (1, 3):
        raise InvalidArgumentError(f"image must have 1 or 3 channels, got {_shape_text(a.shape)}")
    if format == "grayscale" and c != 1:
        raise InvalidArgumentError(f"Output format grayscale but image has {c} channels")
    if format == "rgb" and c != 3:
        raise InvalidArgumentError(f"Output format rgb but image has {c} channels")
    if a.shape[0] == 0 or a.shape[1] == 0:
        raise InvalidArgumentError("Invalid image provided.")
    Image = _pillow()
    img = Image.fromarray(np.ascontiguousarray(a[..., 0] if c == 1 else a), "L" if c == 1 else "RGB")
    dpi = (x_density, y_density) if density_unit == "in" else (x_density * 2.54, y_density * 2.54)
    buf = io.BytesIO()
    extra = {"xmp": xmp_metadata} if xmp_metadata else {}
    try:
        img.save(buf, "JPEG", quality=quality, progressive=progressive, optimize=optimize_size,
                 subsampling="4:2:0" if chroma_downsampling else "4:4:4", dpi=dpi, **extra)
    except Exception as e:
        raise InvalidArgumentError(f"JPEG encoding failed: {e}") from None
    return np.array(buf.getvalue(), dtype=object)


ENCODE_PNG = defop("EncodePng", _encode_png_kernel, _encode_image_infer,
                   allowed=frozenset([_dt.uint8, _dt.uint16]))
ENCODE_JPEG = defop("EncodeJpeg", _encode_jpeg_kernel, _encode_image_infer, allowed=frozenset([_dt.uint8]))


def encode_png(image, compression=-1, name=None):
    """tf.io.encode_png: uint8 or uint16 (height, width, 1-4 channels) -> PNG bytes (written here with zlib)."""
    x = to_tensor(image)
    if x.dtype not in (_dt.uint8, _dt.uint16):
        raise TypeError(f"Value passed to parameter 'image' has DataType {x.dtype.name} not in list of allowed "
                        "values: uint8, uint16")
    compression = int(compression)
    if not -1 <= compression <= 9:
        raise InvalidArgumentError(f"compression should be in [-1,9], got {compression}")
    return bind(ENCODE_PNG, [x], {"compression": compression}, name=name)


def encode_jpeg(image, format="", quality=95, progressive=False, optimize_size=False, chroma_downsampling=True,
                density_unit="in", x_density=300, y_density=300, xmp_metadata="", name=None):
    """tf.io.encode_jpeg: uint8 (height, width, 1 or 3) -> JPEG bytes, encoded by Pillow's libjpeg."""
    x = to_tensor(image)
    if x.dtype is not _dt.uint8:
        raise TypeError(f"Value passed to parameter 'image' has DataType {x.dtype.name} not in list of allowed "
                        "values: uint8")
    if format not in ("", "grayscale", "rgb"):
        raise InvalidArgumentError(f"format must be one of '', 'grayscale', 'rgb', got {format}")
    quality = int(quality)
    if not 0 <= quality <= 100:
        raise InvalidArgumentError(f"quality must be in [0,100], got {quality}")
    if density_unit not in ("in", "cm"):
        raise InvalidArgumentError(f"density_unit must be one of 'in', 'cm', got {density_unit}")
    attrs = {"format": format, "quality": quality, "progressive": bool(progressive),
             "optimize_size": bool(optimize_size), "chroma_downsampling": bool(chroma_downsampling),
             "density_unit": density_unit, "x_density": int(x_density), "y_density": int(y_density)}
    if xmp_metadata:
        attrs["xmp_metadata"] = xmp_metadata.encode() if isinstance(xmp_metadata, str) else bytes(xmp_metadata)
    return bind(ENCODE_JPEG, [x], attrs, name=name)
