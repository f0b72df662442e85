"""Fuzzing of the byte decoders of tf.io / tf.audio (ops/codec_ops.py, ops/serialize_ops.py): PNG (8-bit through
Pillow, 16-bit unfiltered by rivulet), BMP (rivulet's reader), GIF and JPEG (Pillow, sizes checked first), WAV,
CSV records, tf.io.parse_tensor and decode_raw.

A bad input may raise only InvalidArgumentError, TensorFlow's error for each of them. What comes out has the
dtype asked for and a shape its header allows, and:
- a PNG whose bytes were damaged without fixing a chunk CRC decodes to exactly the original pixels or fails
  (every chunk the bases hold is critical: libpng's contract, a CRC error in IHDR/PLTE/IDAT is fatal);
- a WAV, BMP or CSV record decodes to values the bytes hold (checked against a second reading of the header);
- parse_tensor gives the dtype asked for, never a cast, and the serialized bytes of a value it accepts hold
  exactly that value.
Each case runs in 2 s and 200 MB.
"""
import io
import os
import struct
import zlib

import numpy as np
import pytest

from tests.fuzz.harness import FuzzTarget, fuzz_cases, mutate_bytes, run_fuzz

SEED = 20261127
_BASE = {}


class Undocumented(Exception):
    """A decode that returned wrong data: never an allowed outcome."""


def _tf():
    import rivulet as tf
    return tf


def _chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def _filtered(rows, bpp, rng):
    """PNG scanlines (h, w*bpp) uint8 with a filter chosen per row (0-4), as an encoder may write them."""
    out = []
    prev = np.zeros(rows.shape[1], np.int32)
    for y in range(rows.shape[0]):
        cur = rows[y].astype(np.int32)
        f = int(rng.integers(0, 5))
        left = np.concatenate([np.zeros(bpp, np.int32), cur[:-bpp]])
        up_left = np.concatenate([np.zeros(bpp, np.int32), prev[:-bpp]])
        if f == 0:
            line = cur
        elif f == 1:
            line = cur - left
        elif f == 2:
            line = cur - prev
        elif f == 3:
            line = cur - (left + prev) // 2
        else:
            p = left + prev - up_left
            pa, pb, pc = np.abs(p - left), np.abs(p - prev), np.abs(p - up_left)
            line = cur - np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, prev, up_left))
        out.append(bytes([f]) + (line % 256).astype(np.uint8).tobytes())
        prev = cur
    return b"".join(out)


def png_file(arr, rng, depth=8, split=2, interlace=0):
    """A PNG of (h, w, c) pixels (uint8, or uint16 for depth 16), IDAT split in `split` chunks; no ancillary
    chunks. interlace=1 writes Adam7 passes."""
    h, w, c = arr.shape
    ctype = {1: 0, 2: 4, 3: 2, 4: 6}[c]
    bpp = c * depth // 8
    data = arr.astype(">u2").tobytes() if depth == 16 else arr.astype(np.uint8).tobytes()
    px = np.frombuffer(data, np.uint8).reshape(h, w * bpp)
    if interlace:
        raw = b""
        for x0, y0, dx, dy in ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4),
                               (1, 0, 2, 2), (0, 1, 1, 2)):
            part = px.reshape(h, w, bpp)[y0::dy, x0::dx]
            if part.size:
                raw += _filtered(part.reshape(part.shape[0], -1), bpp, rng)
    else:
        raw = _filtered(px, bpp, rng)
    z = zlib.compress(raw, 9)
    cuts = sorted(int(v) for v in rng.integers(0, len(z) + 1, max(0, split - 1)))
    parts = [z[a:b] for a, b in zip([0] + cuts, cuts + [len(z)])]
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, ctype, 0, 0, interlace))
            + b"".join(_chunk(b"IDAT", p) for p in parts) + _chunk(b"IEND", b""))


def _png_base(key):
    if key not in _BASE:
        rng = np.random.default_rng(7)
        depth = 16 if key.startswith("png16") else 8
        c = {"g": 1, "ga": 2, "rgb": 3, "rgba": 4}[key.split("-")[1]]
        interlace = int(key.endswith("-i"))
        top = 65536 if depth == 16 else 256
        arr = rng.integers(0, top, (9, 11, c)).astype(np.uint16 if depth == 16 else np.uint8)
        arr[3:6] = arr[3:6] // 7  # some smooth rows, so every filter is worth writing
        _BASE[key] = png_file(arr, rng, depth, split=3, interlace=interlace), arr
    return _BASE[key]


_PNG_KEYS = ["png8-g", "png8-ga", "png8-rgb", "png8-rgba", "png16-g", "png16-ga", "png16-rgb", "png16-rgba",
             "png8-rgb-i", "png16-rgba-i"]


def _rechunk(rng, data):
    """The PNG with one chunk's body edited and its CRC made sound again (the damage reaches the decoder):
    IHDR fields forged (huge or zero sizes, other depths and colour types, interlace), or the IDAT stream
    edited, cut, extended or recompressed from other scanlines."""
    chunks, i = [], 8
    while i + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[i:i + 8])
        chunks.append([kind, data[i + 8:i + 8 + size]])
        i += 12 + size
    k = int(rng.integers(len(chunks) - 1))
    kind, body = chunks[k]
    if kind == b"IHDR":
        w, h, depth, ctype, comp, filt, lace = struct.unpack(">IIBBBBB", body)
        field = int(rng.integers(7))
        sizes = [0, 1, 2, 3, w + 1, w - 1, 255, 4096, 30000, 65535, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1]
        vals = list(body and struct.unpack(">IIBBBBB", body))
        if field < 2:
            vals[field] = int(sizes[int(rng.integers(len(sizes)))]) & 0xFFFFFFFF
        else:
            vals[field] = int(rng.choice([0, 1, 2, 3, 4, 6, 7, 8, 16, 32, 255]))
        body = struct.pack(">IIBBBBB", *vals)
    elif kind == b"IDAT":
        how = rng.random()
        if how < 0.5:
            body = mutate_bytes(rng, body)
        else:  # a whole new stream for the image: other filter bytes, too short or too long
            z = zlib.decompress(b"".join(b for kk, b in chunks if kk == b"IDAT"))
            z = mutate_bytes(rng, z, 1 + int(rng.integers(3)))
            for kk in range(len(chunks)):
                if chunks[kk][0] == b"IDAT":
                    chunks[kk][1] = b""
            body = zlib.compress(z)
    else:
        body = mutate_bytes(rng, body)
    chunks[k][1] = body
    return b"\x89PNG\r\n\x1a\n" + b"".join(_chunk(kk, b) for kk, b in chunks)


def build_png(rng, case_dir):
    key = _PNG_KEYS[int(rng.integers(len(_PNG_KEYS)))]
    data, _ = _png_base(key)
    forged = rng.random() < 0.5
    data = _rechunk(rng, data) if forged else mutate_bytes(rng, data)
    channels = int(rng.choice([0, 0, 1, 2, 3, 4]))
    dtype = ["uint8", "uint16"][int(rng.integers(2))]
    return _write(case_dir, data, f"{key} {int(forged)} {channels} {dtype}")


def _write(case_dir, data, meta):
    path = os.path.join(case_dir, "f")
    with open(path, "wb") as f:
        f.write(data)
    with open(path + ".meta", "w") as f:
        f.write(meta)
    return path


def _read(path):
    with open(path, "rb") as f, open(path + ".meta") as m:
        return f.read(), m.read().split(" ")


def _expected_png(arr, channels, dtype):
    """The pixels TensorFlow gives for the base PNG (no tRNS, all from the samples): grey from RGB with
    libpng's weights, an alpha of the maximum added, widened or cut to the dtype."""
    bits = 16 if arr.dtype == np.uint16 else 8
    c = arr.shape[-1]
    color, alpha = (arr[..., :-1], arr[..., -1:]) if c in (2, 4) else (arr, None)
    channels = channels or c
    if channels < 3 and color.shape[-1] == 3:
        r, g, b = (color[..., i:i + 1].astype(np.int64) for i in range(3))
        m = 9797 * r + 19234 * g + 3737 * b
        gray = (m + 16384) >> 15 if bits == 16 else m >> 15
        color = np.where((r == g) & (r == b), r, gray).astype(arr.dtype)
    elif channels >= 3 and color.shape[-1] == 1:
        color = np.repeat(color, 3, axis=-1)
    parts = [color]
    if channels % 2 == 0:
        parts.append(alpha if alpha is not None else np.full(color.shape[:2] + (1,), (1 << bits) - 1, arr.dtype))
    out = np.concatenate(parts, -1)
    if dtype == "uint8":
        return (out >> 8).astype(np.uint8) if bits == 16 else out
    wide = out.astype(np.uint16) * np.uint16(257) if bits == 8 else out.astype(np.uint16)
    return wide if dtype == "uint16" else wide.astype(np.float32) * np.float32(1.0 / 65535)


def load_png(path):
    tf = _tf()
    data, (key, forged, channels, dtype) = _read(path)
    channels = int(channels)
    out = tf.io.decode_png(data, channels=channels, dtype=getattr(tf, dtype)).numpy()
    if out.dtype != np.dtype(dtype) or out.ndim != 3 or (channels and out.shape[-1] != channels):
        raise Undocumented(f"decode_png gave {out.dtype} {out.shape} for channels={channels} dtype={dtype}")
    if forged == "0":  # damaged bytes, CRCs not fixed: the original pixels or an error
        want = _expected_png(_png_base(key)[1], channels, dtype)
        if out.shape != want.shape or not np.array_equal(out, want):
            raise Undocumented(f"a PNG damaged behind its CRCs decoded to other pixels: {out.shape} vs "
                               f"{want.shape}")
    return out


# ---- BMP ---------------------------------------------------------------------------------------------------------

def bmp_file(px, bottom_up=True, extra_header=0):
    """A BMP of (h, w, c) uint8 pixels: c=3 BGR 24-bit, c=4 BGRA 32-bit, c=1 8-bit (as TensorFlow reads it: no
    palette lookup)."""
    h, w, c = px.shape
    row = (c * w + 3) // 4 * 4
    rows = np.zeros((h, row), np.uint8)
    rows[:, :w * c] = (px[..., ::-1] if c > 1 else px).reshape(h, w * c) if c != 4 else \
        np.concatenate([px[..., 2::-1], px[..., 3:]], -1).reshape(h, w * c)
    if bottom_up:
        rows = rows[::-1]
    offset = 54 + extra_header
    head = b"BM" + struct.pack("<IHHI", offset + rows.size, 0, 0, offset)
    info = struct.pack("<IiiHHIIiiII", 40, w, h if bottom_up else -h, 1, 8 * c, 0, rows.size, 2835, 2835, 0, 0)
    return head + info + bytes(extra_header) + rows.tobytes()


def _bmp_base(key):
    if key not in _BASE:
        rng = np.random.default_rng(8)
        c, up = {"bmp24": (3, True), "bmp32": (4, True), "bmp8": (1, True), "bmp24-top": (3, False)}[key]
        px = rng.integers(0, 256, (5, 7, c)).astype(np.uint8)
        _BASE[key] = bmp_file(px, up, extra_header=4 if key == "bmp8" else 0), px
    return _BASE[key]


def _bmp_reference(data, channels):
    """The pixels the header says, read a second way (TensorFlow's rules, bounds checked by the caller)."""
    header_size, = struct.unpack("<i", data[10:14])
    width, height = struct.unpack("<ii", data[18:26])
    bpp, = struct.unpack("<h", data[28:30])
    c = int(bpp / 8)
    row = (c * width + 3) // 4 * 4
    out = []
    for y in range(abs(height)):
        src = (abs(height) - 1 - y) if height > 0 else y
        line = data[header_size + src * row:header_size + src * row + width * c]
        out.append(np.frombuffer(line, np.uint8).reshape(width, c))
    px = np.stack(out)
    oc = channels or c
    if oc == 1:
        return px[..., :1]
    rgb = np.repeat(px, 3, -1) if c == 1 else px[..., 2::-1]
    if oc == 3:
        return rgb
    a = px[..., 3:4] if c == 4 else np.full(rgb.shape[:2] + (1,), 255, np.uint8)
    return np.concatenate([rgb, a], -1)


def build_bmp(rng, case_dir):
    key = ["bmp24", "bmp32", "bmp8", "bmp24-top"][int(rng.integers(4))]
    data = bytearray(_bmp_base(key)[0])
    if rng.random() < 0.4:  # forged header fields with the file's length kept or refitted
        field = [(10, "<i"), (18, "<i"), (22, "<i"), (28, "<h"), (2, "<I")][int(rng.integers(5))]
        vals = [0, 1, -1, 2, 3, 7, 8, 24, 32, 54, 58, 64, -5, 2 ** 15 - 1, -2 ** 15, 2 ** 31 - 1, -2 ** 31,
                46341, 65536]
        v = int(vals[int(rng.integers(len(vals)))])
        try:
            struct.pack_into(field[1], data, field[0], v)
        except struct.error:
            pass
        if rng.random() < 0.5:  # and the pixel bytes made to fit what the header now says
            try:
                header_size, = struct.unpack("<i", data[10:14])
                width, height = struct.unpack("<ii", data[18:26])
                bpp, = struct.unpack("<h", data[28:30])
                need = header_size + (int(bpp / 8) * width + 3) // 4 * 4 * abs(height)
            except struct.error:
                need = len(data)
            if 0 <= need < 1 << 16:
                data = data[:need] + bytes(max(0, need - len(data)))
        data = bytes(data)
    else:
        data = mutate_bytes(rng, bytes(data))
    channels = int(rng.choice([0, 0, 1, 3, 4]))
    return _write(case_dir, data, f"{key} {channels}")


def load_bmp(path):
    tf = _tf()
    data, (_, channels) = _read(path)
    channels = int(channels)
    out = tf.io.decode_bmp(data, channels=channels).numpy()
    want = _bmp_reference(data, channels)
    if out.dtype != np.uint8 or out.shape != want.shape or not np.array_equal(out, want):
        raise Undocumented(f"decode_bmp gave {out.dtype} {out.shape}, the bytes hold {want.shape}")
    return out


# ---- GIF and JPEG (Pillow underneath; sizes checked first) ---------------------------------------------------

def _pil_base(key):
    if key not in _BASE:
        from PIL import Image
        rng = np.random.default_rng(9)
        b = io.BytesIO()
        if key == "gif":
            frames = [Image.fromarray(rng.integers(0, 256, (6, 8, 3)).astype(np.uint8)).convert("P")
                      for _ in range(3)]
            frames[0].save(b, "GIF", save_all=True, append_images=frames[1:], duration=10, loop=0)
        else:
            arr = rng.integers(0, 256, (16, 24, 3)).astype(np.uint8)
            arr = (arr // 32 * 32).astype(np.uint8)
            sub = {"jpeg444": 0, "jpeg420": 2, "jpeg-grey": 0, "jpeg-prog": 2}[key]
            img = Image.fromarray(arr[..., 0] if key == "jpeg-grey" else arr)
            img.save(b, "JPEG", quality=80, subsampling=sub, progressive=key == "jpeg-prog")
        _BASE[key] = b.getvalue()
    return _BASE[key]


def _forge_jpeg_sof(rng, data):
    """The SOF marker's height/width/components set to an odd value (a JPEG has no checksum)."""
    data = bytearray(data)
    for m in (b"\xff\xc0", b"\xff\xc2"):
        k = data.find(m)
        if k > 0:
            at = k + int(rng.choice([5, 7, 9]))
            if at == k + 9:
                data[at] = int(rng.choice([0, 1, 2, 3, 4, 5, 255]))
            else:
                data[at:at + 2] = struct.pack(">H", int(rng.choice([0, 1, 2, 17, 4097, 30000, 65535])))
            break
    return bytes(data)


def build_pil(rng, case_dir):
    key = ["gif", "jpeg444", "jpeg420", "jpeg-grey", "jpeg-prog"][int(rng.integers(5))]
    data = _pil_base(key)
    if key != "gif" and rng.random() < 0.3:
        data = _forge_jpeg_sof(rng, data)
    elif key == "gif" and rng.random() < 0.3:  # the logical screen or a frame's rectangle forged
        data = bytearray(data)
        at = int(rng.choice([6, 8] + [i + 1 + 2 * j for i in range(len(data)) if data[i] == 0x2C
                                      for j in range(4)][:12]))
        data[at:at + 2] = struct.pack("<H", int(rng.choice([0, 1, 7, 9, 255, 4096, 65535])))
        data = bytes(data)
    else:
        data = mutate_bytes(rng, data)
    op = ["decode_image", "decode_gif" if key == "gif" else "decode_jpeg"][int(rng.integers(2))]
    extra = ""
    if key != "gif":
        extra = f" {int(rng.choice([0, 0, 1, 3]))} {int(rng.choice([1, 2, 4, 8]))} {int(rng.integers(2))}"
    return _write(case_dir, data, f"{key} {op}{extra}")


def load_pil(path):
    tf = _tf()
    data, meta = _read(path)
    key, op = meta[:2]
    if op == "decode_gif":
        out = tf.io.decode_gif(data).numpy()
        ok = out.ndim == 4 and out.shape[-1] == 3
    elif op == "decode_jpeg":
        channels, ratio, recover = (int(v) for v in meta[2:])
        out = tf.io.decode_jpeg(data, channels=channels, ratio=ratio, try_recover_truncated=bool(recover)).numpy()
        ok = out.ndim == 3 and (not channels or out.shape[-1] == channels)
    else:
        out = tf.io.decode_image(data).numpy()
        ok = out.ndim in (3, 4)
    if out.dtype != np.uint8 or not ok:
        raise Undocumented(f"{op} gave {out.dtype} {out.shape}")
    return out


# ---- WAV ---------------------------------------------------------------------------------------------------------

def _wav_base(key):
    if key not in _BASE:
        rng = np.random.default_rng(10)
        c = 2 if key == "wav-stereo" else 1
        pcm = rng.integers(-32768, 32768, (13, c)).astype("<i2")
        body = pcm.tobytes()
        fmt = struct.pack("<HHIIHH", 1, c, 16000, 32000 * c, 2 * c, 16)
        chunks = b""
        if key == "wav-junk":
            chunks += b"JUNK" + struct.pack("<I", 6) + b"junk!!"
        chunks += b"fmt " + struct.pack("<I", 16) + fmt
        if key == "wav-junk":
            chunks += b"LIST" + struct.pack("<I", 4) + b"INFO"
        chunks += b"data" + struct.pack("<I", len(body)) + body
        _BASE[key] = b"RIFF" + struct.pack("<I", 4 + len(chunks)) + b"WAVE" + chunks, pcm
    return _BASE[key]


def build_wav(rng, case_dir):
    key = ["wav-mono", "wav-stereo", "wav-junk"][int(rng.integers(3))]
    data = _wav_base(key)[0]
    if rng.random() < 0.4:  # a header field or a chunk length forged
        data = bytearray(data)
        at = int(rng.choice([4, 16, 22, 24, 28, 32, 34, data.find(b"data") + 4]))
        width = 2 if at in (22, 32, 34) else 4
        v = int(rng.choice([0, 1, 2, 3, 4, 7, 16, 18, 26, 2 ** 15, 2 ** 16 - 1, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1]))
        data[at:at + width] = (v & ((1 << 8 * width) - 1)).to_bytes(width, "little")
        data = bytes(data)
    else:
        data = mutate_bytes(rng, data)
    desired = f"{int(rng.choice([-1, -1, 1, 2, 3]))} {int(rng.choice([-1, -1, 0, 5, 20]))}"
    return _write(case_dir, data, f"{key} {desired}")


def _wav_reference(data):
    """The int16 samples of the file's one data chunk, read a second way (the header already accepted)."""
    channels, = struct.unpack("<H", data[22:24])
    i = data.find(b"fmt ")
    i += 8 + struct.unpack("<I", data[i + 4:i + 8])[0]
    while i + 8 <= len(data):
        cid, size = data[i:i + 4], struct.unpack("<I", data[i + 4:i + 8])[0]
        if cid == b"data":
            frames = size // (2 * channels)
            return np.frombuffer(data[i + 8:i + 8 + 2 * frames * channels], "<i2").reshape(frames, channels)
        i += 8 + size
    return None


def load_wav(path):
    tf = _tf()
    data, (key, dc, ds) = _read(path)
    dc, ds = int(dc), int(ds)
    audio, rate = tf.audio.decode_wav(data, desired_channels=dc, desired_samples=ds)
    audio, rate = audio.numpy(), rate.numpy()
    if audio.dtype != np.float32 or rate.dtype != np.int32 or audio.ndim != 2:
        raise Undocumented(f"decode_wav gave {audio.dtype} {audio.shape} and {rate.dtype}")
    if data[12:16] == b"fmt " and data.count(b"data") == 1:  # a plain layout: the samples read again
        pcm = _wav_reference(data)
        if pcm is not None:
            want = pcm.astype(np.float32) / 32768
            k = min(len(want), audio.shape[0])
            c = audio.shape[1]
            src = np.minimum(np.arange(c), want.shape[1] - 1)
            if not np.array_equal(audio[:k], want[:k][:, src]) or np.any(audio[k:]):
                raise Undocumented(f"decode_wav's samples are not the file's: {audio.shape} vs {want.shape}")
    return audio


# ---- CSV records -------------------------------------------------------------------------------------------------

_CSV = [b'1,2.5,"a,b",x,7', b'-3,1e3,"",,-1', b'2147483647,-0.0,"q""uote",z,9223372036854775807', b',,,,']


def build_csv(rng, case_dir):
    recs = [mutate_bytes(rng, r) if rng.random() < 0.7 else r for r in _CSV]
    quote = int(rng.integers(2))
    blob = b"\n".join(r.replace(b"\\", b"\\\\").replace(b"\n", b"\\n") for r in recs)
    return _write(case_dir, blob, f"{quote}")


def load_csv(path):
    """The records decoded together (one bad record fails the batch), then each alone (more of them decode)."""
    tf = _tf()
    blob, (quote,) = _read(path)
    recs = [r.replace(b"\\n", b"\n").replace(b"\\\\", b"\\") for r in blob.split(b"\n")]
    defaults = [tf.constant(0, tf.int32), tf.constant(0.0, tf.float32), tf.constant("d"), tf.constant("e"),
                tf.constant(0, tf.int64)]
    want = ["int32", "float32", "object", "object", "int64"]
    results, error = [], None
    for batch in [recs] + [[r] for r in recs]:
        try:
            out = tf.io.decode_csv(batch, defaults, use_quote_delim=bool(int(quote)))
        except tf.errors.InvalidArgumentError as e:
            error = e
            continue
        got = [o.numpy() for o in out]
        if [str(g.dtype) for g in got] != want or any(g.shape != (len(batch),) for g in got):
            raise Undocumented(f"decode_csv gave {[(g.dtype, g.shape) for g in got]}")
        for g, r in zip(got[0], batch):  # an int32 field is the number the record spells, never wrapped or cut
            field = r.split(b",")[0] if not r.startswith(b'"') else None
            if field is not None and field.lstrip(b"-").isdigit() and len(field) < 12 and int(field) != g:
                raise Undocumented(f"decode_csv read {field!r} as {g}")
        results.append(got)
    if not results:
        raise error
    return results


# ---- tf.io.parse_tensor and decode_raw --------------------------------------------------------------------------

_TENSORS = {
    "f32": (lambda tf: tf.constant([[1.5, -2.0, 3.25]], tf.float32), "float32"),
    "i64": (lambda tf: tf.constant([2 ** 40, -1, 0, 7], tf.int64), "int64"),
    "u8": (lambda tf: tf.constant([[1, 2], [3, 255]], tf.uint8), "uint8"),
    "str": (lambda tf: tf.constant([b"ab", b"", b"\xff"]), "string"),
    "bool": (lambda tf: tf.constant([True, False, True]), "bool"),
    "scalar": (lambda tf: tf.constant(3.0, tf.float64), "float64"),
    "empty": (lambda tf: tf.zeros([0, 3], tf.int32), "int32"),
}


def _tensor_base(key):
    if key not in _BASE:
        tf = _tf()
        t = _TENSORS[key][0](tf)
        _BASE[key] = tf.io.serialize_tensor(t).numpy(), t.numpy()
    return _BASE[key]


def build_tensor(rng, case_dir):
    key = list(_TENSORS)[int(rng.integers(len(_TENSORS)))]
    data = _tensor_base(key)[0]
    data = mutate_bytes(rng, data) if rng.random() < 0.85 else data
    out = list(_TENSORS.values())[int(rng.integers(len(_TENSORS)))][1] if rng.random() < 0.2 else _TENSORS[key][1]
    return _write(case_dir, data, f"{key} {out}")


def load_tensor(path):
    tf = _tf()
    data, (key, out_type) = _read(path)
    out = tf.io.parse_tensor(data, getattr(tf, out_type)).numpy()
    if out_type == "string" and isinstance(out, bytes):  # a scalar string's numpy() is bytes, as TensorFlow's
        out = np.array(out, dtype=object)
    want = tf.as_dtype(out_type).as_numpy_dtype
    if out.dtype != (np.dtype(object) if out_type == "string" else np.dtype(want)):
        raise Undocumented(f"parse_tensor gave {out.dtype} for out_type {out_type}")
    if data == _tensor_base(key)[0]:
        orig = _tensor_base(key)[1]
        if out.shape != orig.shape or out.tolist() != orig.tolist():
            raise Undocumented("parse_tensor changed an undamaged tensor")
    return out


def build_raw(rng, case_dir):
    n = int(rng.integers(0, 5))
    recs = [rng.integers(0, 256, int(rng.integers(0, 17)), dtype=np.uint8).tobytes() for _ in range(n)]
    dtype = ["uint8", "int16", "float32", "int64", "float64", "complex64", "bool"][int(rng.integers(7))]
    fixed = int(rng.choice([0, 0, 1, 4, 8, 16])) if dtype not in ("complex64", "bool") else 0  # (DecodePaddedRaw's types)
    return _write(case_dir, b"\n".join(r.hex().encode() for r in recs), f"{dtype} {fixed} {int(rng.integers(2))}")


def load_raw(path):
    tf = _tf()
    blob, (dtype, fixed, little) = _read(path)
    recs = [bytes.fromhex(r.decode()) for r in blob.split(b"\n")] if blob else []
    out = tf.io.decode_raw(recs, getattr(tf, dtype), little_endian=bool(int(little)),
                           fixed_length=int(fixed) or None).numpy()
    if out.dtype != np.dtype(tf.as_dtype(dtype).as_numpy_dtype):
        raise Undocumented(f"decode_raw gave {out.dtype} for {dtype}")
    return out


def _allowed():
    from rivulet.errors import InvalidArgumentError
    return (InvalidArgumentError,)


_ALLOWED = _allowed()
_KW = dict(allowed=_ALLOWED, seconds=2.0, mem_mb=200)
TARGETS = [
    FuzzTarget(name="decode-png", build=build_png, load=load_png, **_KW),
    FuzzTarget(name="decode-bmp", build=build_bmp, load=load_bmp, **_KW),
    FuzzTarget(name="decode-gif-jpeg", build=build_pil, load=load_pil, **_KW),
    FuzzTarget(name="decode-wav", build=build_wav, load=load_wav, **_KW),
    FuzzTarget(name="decode-csv", build=build_csv, load=load_csv, **_KW),
    FuzzTarget(name="parse-tensor", build=build_tensor, load=load_tensor, **_KW),
    FuzzTarget(name="decode-raw", build=build_raw, load=load_raw, **_KW),
]


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.name)
def test_fuzz(target):
    pytest.importorskip("PIL")
    report = run_fuzz(target, n=fuzz_cases(60), seed=SEED)
    print(report.summary())
    assert not report.failures, report.summary()


def test_bases_decode_to_what_was_written():
    """The undamaged bases decode exactly (the fuzzing starts from files every reader accepts)."""
    pytest.importorskip("PIL")
    tf = _tf()
    for key in _PNG_KEYS:
        data, arr = _png_base(key)
        for dtype in ("uint8", "uint16"):
            out = tf.io.decode_png(data, dtype=getattr(tf, dtype)).numpy()
            np.testing.assert_array_equal(out, _expected_png(arr, 0, dtype), err_msg=key)
    for key in ("bmp24", "bmp32", "bmp8", "bmp24-top"):
        data, px = _bmp_base(key)
        np.testing.assert_array_equal(tf.io.decode_bmp(data, channels=0).numpy(), _bmp_reference(data, 0))
    for key in ("wav-mono", "wav-stereo", "wav-junk"):
        data, pcm = _wav_base(key)
        np.testing.assert_array_equal(tf.audio.decode_wav(data).audio.numpy(), pcm.astype(np.float32) / 32768)
    for key in _TENSORS:
        data, arr = _tensor_base(key)
        assert tf.io.parse_tensor(data, getattr(tf, _TENSORS[key][1])).numpy().tolist() == arr.tolist()


# ---- reproducers of what decode-png found (outcomes recorded from TensorFlow 2.21's decode_png) ------------------

def _png_variants():
    rng = np.random.default_rng(1)
    arr = rng.integers(0, 256, (4, 5, 3)).astype(np.uint8)
    rows = b"".join(b"\x00" + arr[y].tobytes() for y in range(4))
    z = zlib.compress(rows)
    sig, iend = b"\x89PNG\r\n\x1a\n", _chunk(b"IEND", b"")

    def ihdr(depth=8, ctype=2, comp=0, filt=0, lace=0):
        return _chunk(b"IHDR", struct.pack(">IIBBBBB", 5, 4, depth, ctype, comp, filt, lace))

    def bad(c):
        return c[:-1] + bytes([c[-1] ^ 1])
    d = zlib.compressobj()
    unfinished = d.compress(rows) + d.flush(zlib.Z_SYNC_FLUSH)
    good = sig + ihdr() + _chunk(b"IDAT", z) + iend
    init, data = "Failed to initialize decoder", "Invalid PNG data"
    return arr, good, [  # (what, bytes, None for the pixels or the error TensorFlow raises)
        ("trailing bytes after IEND", good + b"garbage", None),
        ("an ancillary chunk with a bad CRC (dropped)", sig + ihdr() + bad(_chunk(b"tEXt", b"a\x00b")) +
         _chunk(b"IDAT", z) + iend, None),
        ("a tRNS with a bad CRC (dropped)", sig + ihdr() + bad(_chunk(b"tRNS", bytes(6))) + _chunk(b"IDAT", z) + iend,
         None),
        ("more scanline data than the image", sig + ihdr() + _chunk(b"IDAT", zlib.compress(rows + bytes(48))) + iend,
         None),
        ("an empty IDAT first", sig + ihdr() + _chunk(b"IDAT", b"") + _chunk(b"IDAT", z) + iend, None),
        ("no IEND", sig + ihdr() + _chunk(b"IDAT", z), data),
        ("cut inside IEND", good[:-6], data),
        ("IEND's CRC bad", sig + ihdr() + _chunk(b"IDAT", z) + bad(iend), data),
        ("the zlib stream cut before its checksum", sig + ihdr() + _chunk(b"IDAT", z[:-4]) + iend, data),
        ("the zlib stream never finished", sig + ihdr() + _chunk(b"IDAT", unfinished) + iend, data),
        ("the zlib checksum wrong", sig + ihdr() + _chunk(b"IDAT", bad(z)) + iend, data),
        ("IDATs split by another chunk", sig + ihdr() + _chunk(b"IDAT", z[:10]) + _chunk(b"tEXt", b"a\x00b") +
         _chunk(b"IDAT", z[10:]) + iend, data),
        ("compression method 1", sig + ihdr(comp=1) + _chunk(b"IDAT", z) + iend, init),
        ("filter method 1", sig + ihdr(filt=1) + _chunk(b"IDAT", z) + iend, init),
        ("interlace method 2", sig + ihdr(lace=2) + _chunk(b"IDAT", z) + iend, init),
        ("RGB at depth 4", sig + ihdr(depth=4) + _chunk(b"IDAT", z) + iend, init),
        ("grey+alpha at depth 2", sig + ihdr(depth=2, ctype=4) + _chunk(b"IDAT", z) + iend, init),
        ("a palette image without PLTE", sig + ihdr(ctype=3) + _chunk(b"IDAT", z) + iend, init),
        ("IHDR's CRC bad", sig + bad(ihdr()) + _chunk(b"IDAT", z) + iend, init),
        ("a second IHDR", sig + ihdr() + ihdr() + _chunk(b"IDAT", z) + iend, init),
        ("an unknown critical chunk", sig + ihdr() + _chunk(b"ABCD", b"x") + _chunk(b"IDAT", z) + iend, init),
        ("a chunk length over 2**31-1", sig + ihdr() + struct.pack(">I4s", 2 ** 31 + 5, b"IDAT") + z, init),
    ]


def test_png_files_damaged_or_forged_fail_as_in_tensorflow():
    """Before, decode_png returned pixels for most of the failing ones: 8-bit files go to Pillow, which checks no
    IDAT CRC, never reads to IEND or the zlib checksum, ignores IHDR's method bytes and fills rows a file lacks
    (a height forged from 9 to 255 gave 246 rows of zeros)."""
    pytest.importorskip("PIL")
    tf = _tf()
    arr, good, cases = _png_variants()
    np.testing.assert_array_equal(tf.io.decode_png(good).numpy(), arr)
    for what, data, error in cases:
        if error is None:
            np.testing.assert_array_equal(tf.io.decode_png(data).numpy(), arr, err_msg=what)
        else:
            with pytest.raises(tf.errors.InvalidArgumentError, match=error):
                tf.io.decode_png(data)
                pytest.fail(what)
    forged = bytearray(good)  # a height forged to 255 with a sound CRC: the rows are not there
    forged[20:24] = struct.pack(">I", 255)
    forged[29:33] = struct.pack(">I", zlib.crc32(bytes(forged[12:29])) & 0xFFFFFFFF)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid PNG data"):
        tf.io.decode_png(bytes(forged))


def test_gif_frame_past_the_screen_is_refused_before_pillow_composites_it(monkeypatch):
    """What decode-gif-jpeg found (seed 11, cases 165 and 691, over 2 s on a loaded machine): a frame whose
    rectangle reaches past the logical screen made Pillow grow its canvas to hold it (a 2x9476 frame at
    x=2064: a 2066x9796 canvas composited) before rivulet's size check refused it. The descriptors are now read
    first; Pillow never seeks to such a frame."""
    pytest.importorskip("PIL")
    from PIL import GifImagePlugin
    tf = _tf()
    data = bytearray(_pil_base("gif"))
    from rivulet.ops.codec_ops import _gif_rects
    for at in (i for i in range(len(data) - 9) if data[i] == 0x2C):  # the third frame's image descriptor
        forged = data[:at + 1] + struct.pack("<HHHH", 2064, 320, 2, 65000) + data[at + 9:]
        try:
            rects = _gif_rects(bytes(forged))
        except tf.errors.InvalidArgumentError:  # not a descriptor: the walk went astray
            continue
        if rects[2:3] == [(2064, 320, 2, 65000)]:
            data = forged
            break
    assert tf.io.decode_gif(_pil_base("gif")).shape == (3, 6, 8, 3)
    seek = GifImagePlugin.GifImageFile._seek

    def watched(self, frame, update_image=True):
        assert frame < 2 or not update_image, "Pillow was asked for the frame past the screen"
        return seek(self, frame, update_image)
    monkeypatch.setattr(GifImagePlugin.GifImageFile, "_seek", watched)
    with pytest.raises(tf.errors.InvalidArgumentError, match="frame 2 has another size"):
        tf.io.decode_gif(bytes(data))


def _proto(dtype_enum, dims, *fields):
    """A TensorProto's bytes: dtype, shape, then (field, wire type, value) entries (value: int or bytes)."""
    from rivulet.formats.wire import encode_varint
    def key(f, w):
        return encode_varint(f << 3 | w)

    def ld(f, b):
        return key(f, 2) + encode_varint(len(b)) + b
    shape = b"".join(ld(2, key(1, 0) + encode_varint(d)) for d in dims)
    out = key(1, 0) + encode_varint(dtype_enum) + ld(2, shape)
    for f, w, v in fields:
        out += ld(f, v) if w == 2 else key(f, w) + (encode_varint(v) if w == 0 else v)
    return out


def test_parse_tensor_reads_typed_value_fields_as_tensorflow():
    """parse-tensor, side by side with TensorFlow 2.21: 8 of 400 mutated protos that TensorFlow reads were refused
    (a TensorProto without tensor_content holds its values in the dtype's typed field: the last repeats to fill
    the shape, none gives zeros, values past the shape are ignored). Values from TensorFlow 2.21."""
    tf = _tf()
    f4 = lambda *v: np.array(v, "<f4").tobytes()  # noqa: E731
    cases = [  # (proto, out_type, TensorFlow's value)
        (_proto(1, [3], (5, 2, f4(1.5))), tf.float32, [1.5, 1.5, 1.5]),
        (_proto(1, [3]), tf.float32, [0.0, 0.0, 0.0]),
        (_proto(1, [2], (5, 2, f4(1, 2, 3))), tf.float32, [1.0, 2.0]),
        (_proto(1, [2], (5, 5, f4(1)), (5, 5, f4(4))), tf.float32, [1.0, 4.0]),  # unpacked entries
        (_proto(7, [3], (8, 2, b"a")), tf.string, [b"a", b"a", b"a"]),
        (_proto(6, [2], (7, 2, b"\xac\x02" + b"\xff" * 9 + b"\x01")), tf.int8, [44, -1]),  # 300 keeps its low bits
        (_proto(10, [2], (11, 0, 1)), tf.bool, [True, True]),
        (_proto(19, [1], (13, 0, 15360)), tf.float16, [1.0]),
        (_proto(1, [2], (5, 2, f4(1.0)), (4, 2, bytes(8))), tf.float32, [0.0, 0.0]),  # the content wins
        (_proto(8, [2], (9, 2, f4(1, 2, 3))), tf.complex64, [1 + 2j, 1 + 2j]),
        (_proto(9, [2], (10, 0, 5)), tf.int64, [5, 5]),
        (_proto(22, [1], (16, 0, 7)), tf.uint32, [7]),
    ]
    for proto, out_type, want in cases:
        got = tf.io.parse_tensor(proto, out_type)
        assert got.dtype == out_type and got.numpy().tolist() == want, (proto, got)
    with pytest.raises(tf.errors.InvalidArgumentError):  # a content of the wrong size: TensorFlow refuses it
        tf.io.parse_tensor(_proto(1, [2], (4, 2, bytes(4))), tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="more than this reader accepts"):
        tf.io.parse_tensor(_proto(1, [2 ** 40], (5, 2, f4(1))), tf.float32)  # a few values filling 2**40


def test_gif_with_a_byte_that_starts_no_record_fails_as_in_tensorflow():
    """Side by side with TensorFlow 2.21 (249 mutated GIFs/JPEGs), 5 GIFs TensorFlow refuses ('failed to slurp gif
    file: Wrong record type detected', giflib) were decoded: Pillow skips a byte that starts no record. One byte
    (0x07) put before the third block of a valid 3-frame GIF: TensorFlow's error."""
    pytest.importorskip("PIL")
    tf = _tf()
    data = _pil_base("gif")
    n, i, starts = len(data), 13 + (3 << ((data[10] & 7) + 1) if data[10] & 0x80 else 0), []
    while i < n and data[i] in (0x21, 0x2C):  # the blocks' starts
        starts.append(i)
        i += 2 if data[i] == 0x21 else 10 + (3 << ((data[i + 9] & 7) + 1) if data[i + 9] & 0x80 else 0) + 1
        while i < n and data[i]:
            i += 1 + data[i]
        i += 1
    junk = data[:starts[2]] + b"\x07" + data[starts[2]:]
    assert tf.io.decode_gif(data).shape == (3, 6, 8, 3)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Invalid GIF data \(size 844\), failed to slurp gif file: Wrong record type detected"):
        tf.io.decode_gif(junk)
