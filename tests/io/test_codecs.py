"""tf.io file, raw, CSV and image codecs and tf.audio's WAV codec (ops/codec_ops.py): values, dtypes, shapes and
TensorFlow's error types and messages, eagerly, inside tf.function and in tf.data map."""
import io
import os
import struct
import sys
import wave
import zlib

import numpy as np
import pytest

import rivulet as tf

PIL = pytest.importorskip("PIL")
from PIL import Image  # noqa: E402


def _pil_bytes(arr, fmt, **kw):
    b = io.BytesIO()
    Image.fromarray(arr).save(b, fmt, **kw)
    return b.getvalue()


def _chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _png_header_only(w, h, depth=8, ctype=2):
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, ctype, 0, 0, 0)) +
            _chunk(b"IDAT", zlib.compress(b"")) + _chunk(b"IEND", b""))


# ---------------------------------------------------------------- read_file / write_file
def test_write_then_read_file_creates_directories(tmp_path):
    path = str(tmp_path / "a" / "b" / "c.bin")
    assert tf.io.write_file(path, b"x\x00y") is None
    t = tf.io.read_file(path)
    assert t.dtype == tf.string and t.shape == () and t.numpy() == b"x\x00y"


def test_read_file_errors(tmp_path):
    missing = str(tmp_path / "nope")
    with pytest.raises(tf.errors.NotFoundError, match=f"{missing}; No such file or directory"):
        tf.io.read_file(missing)
    with pytest.raises(tf.errors.FailedPreconditionError, match="Is a directory"):
        tf.io.read_file(str(tmp_path))


def test_read_file_in_a_function_reads_at_every_call(tmp_path):
    path = str(tmp_path / "f.txt")
    tf.io.write_file(path, "one")

    @tf.function
    def f():
        return tf.io.read_file(path)

    assert f().numpy() == b"one"
    tf.io.write_file(path, "two")
    assert f().numpy() == b"two"  # not folded into a constant at trace time


# ---------------------------------------------------------------- decode_raw (values from TensorFlow's docs)
def test_decode_raw_documented_values():
    assert tf.io.decode_raw(tf.constant("1,2"), tf.uint8).numpy().tolist() == [49, 44, 50]
    assert tf.io.decode_raw(tf.constant(["1", "2"]), tf.uint8).shape == (2, 1)
    assert tf.io.decode_raw(tf.constant([["1"], ["2"]]), tf.uint8).shape == (2, 1, 1)
    assert tf.io.decode_raw(tf.constant("1234"), tf.uint16).numpy().tolist() == [12849, 13363]
    r = tf.io.decode_raw(tf.constant("12345678"), tf.int64)
    assert r.dtype == tf.int64 and r.numpy().tolist() == [4050765991979987505]
    r = tf.io.decode_raw(tf.constant(["1", "23"]), tf.uint8, fixed_length=4)
    assert r.numpy().tolist() == [[49, 0, 0, 0], [50, 51, 0, 0]]
    assert tf.io.decode_raw(tf.constant(["1234567"]), tf.uint16, fixed_length=2).numpy().tolist() == [[12849]]


def test_decode_raw_endianness_nuls_and_types():
    assert tf.io.decode_raw(b"\x00\x01", tf.uint16, little_endian=False).numpy().tolist() == [1]
    # a Python list of bytes keeps its trailing NULs, as in TensorFlow
    r = tf.io.decode_raw([b"\x01\x00\x02\x00", b"\x03\x00\x04\x00"], tf.int16)
    assert r.numpy().tolist() == [[1, 2], [3, 4]]
    f = tf.io.decode_raw(np.array([1.5, -2.0], np.float32).tobytes(), tf.float32)
    assert f.dtype == tf.float32 and f.numpy().tolist() == [1.5, -2.0]
    b = tf.io.decode_raw(b"\x00\x02", tf.bool)
    assert b.dtype == tf.bool and b.numpy().tolist() == [False, True]
    assert tf.io.decode_raw(tf.constant([], tf.string), tf.int32).shape == (0, 0)


def test_decode_raw_errors():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="DecodeRaw requires input strings to all be the same size, but element 1 has size 2 != 1"):
        tf.io.decode_raw(tf.constant(["1", "23"]), tf.uint8)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Input to DecodeRaw has length 3 that is not a multiple of 4, the size of float"):
        tf.io.decode_raw(b"abc", tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"fixed_length \(3\) must be a multiple of the size of "
                                                             r"out_type \(2\)"):
        tf.io.decode_raw(b"abc", tf.int16, fixed_length=3)
    with pytest.raises(TypeError, match="DataType string not in list of allowed values"):
        tf.io.decode_raw(b"abc", tf.string)


def test_decode_raw_in_a_function_has_an_unknown_last_dim():
    @tf.function(input_signature=[tf.TensorSpec([2], tf.string)])
    def f(x):
        out = tf.io.decode_raw(x, tf.uint8)
        assert out.shape.as_list() == [2, None]
        padded = tf.io.decode_raw(x, tf.int32, fixed_length=8)
        assert padded.shape.as_list() == [2, 2]
        return out

    assert f(tf.constant(["ab", "cd"])).numpy().tolist() == [[97, 98], [99, 100]]


# ---------------------------------------------------------------- decode_csv
def test_decode_csv_columns_defaults_and_quotes():
    cols = tf.io.decode_csv(["1,2.5,a,7", '4,,"b,""c""",'], [[0], [9.0], [""], tf.constant([5], tf.int64)])
    assert [c.dtype for c in cols] == [tf.int32, tf.float32, tf.string, tf.int64]
    assert cols[0].numpy().tolist() == [1, 4]
    assert cols[1].numpy().tolist() == [2.5, 9.0]
    assert cols[2].numpy().tolist() == [b"a", b'b,"c"']
    assert cols[3].numpy().tolist() == [7, 5]  # trailing delimiter: an empty last field takes the default


def test_decode_csv_options():
    a, b = tf.io.decode_csv("1;2;3;4", [[0], [0.0]], field_delim=";", select_cols=[1, 3])
    assert a.shape == () and a.numpy() == 2 and b.numpy() == 4.0
    a, = tf.io.decode_csv(["NA", "3"], [tf.constant([-1], tf.float64)], na_value="NA")
    assert a.dtype == tf.float64 and a.numpy().tolist() == [-1.0, 3.0]
    a, b = tf.io.decode_csv(['"x",y'], [[""], [""]], use_quote_delim=False)
    assert a.numpy().tolist() == [b'"x"']
    a, = tf.io.decode_csv([" 12 ", "+3", "1e3"], [tf.constant([0.0], tf.float32)])
    assert a.numpy().tolist() == [12.0, 3.0, 1000.0]


@pytest.mark.parametrize("records, defaults, message", [
    (["1,2"], [[0]], "Expect 1 fields but have 2 in record 0"),
    (["1", ""], [[0], [0]], "Expect 2 fields but have 1 in record 0"),
    ([","], [[0], tf.constant([], tf.int32)], "Field 1 is required but missing in record 0!"),
    (["x"], [[0]], "Field 0 in record 0 is not a valid int32: x"),
    (["1_0"], [[0]], "Field 0 in record 0 is not a valid int32: 1_0"),
    (["3000000000"], [[0]], "Field 0 in record 0 is not a valid int32: 3000000000"),
    (["1.5x"], [[0.0]], "Field 0 in record 0 is not a valid float: 1.5x"),
    (["1.5x"], [tf.constant([0.0], tf.float64)], "Field 0 in record 0 is not a valid double: 1.5x"),
    (['"ab'], [[""]], "Quoted field has to end with quote followed by delim or end"),
    (['"ab"c'], [[""]], "Quote inside a string has to be escaped by another quote"),
    (['a"b'], [[""]], "Unquoted fields cannot have quotes/CRLFs inside"),
    (['"a"b",'], [[""], [""]], "Quote inside a string has to be escaped by another quote"),
    (["1"], [[[0], [0]]], "Each record default should be at most rank 1"),
    (["1"], [[0, 1]], "There should only be 1 default per field but field 0 has 2"),
])
def test_decode_csv_errors(records, defaults, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message.replace("(", r"\(").replace(")", r"\)")):
        tf.io.decode_csv(records, defaults)


def test_decode_csv_argument_errors():
    with pytest.raises(ValueError, match="select_cols is not strictly increasing."):
        tf.io.decode_csv(["1,2"], [[0], [0]], select_cols=[1, 0])
    with pytest.raises(ValueError, match="select_cols contains negative values."):
        tf.io.decode_csv(["1,2"], [[0]], select_cols=[-1])
    with pytest.raises(ValueError, match="Length of select_cols and record_defaults do not match."):
        tf.io.decode_csv(["1,2"], [[0], [0]], select_cols=[0])
    with pytest.raises(TypeError, match="DataType bool not in list of allowed values"):
        tf.io.decode_csv(["1"], [[True]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="field_delim should be only 1 char"):
        tf.io.decode_csv(["1"], [[0]], field_delim=";;")


def test_decode_csv_in_dataset_map():
    ds = tf.data.Dataset.from_tensor_slices(["1,a", "2,b", "3,"]).map(
        lambda line: tf.io.decode_csv(line, [[0], ["z"]]))
    assert ds.element_spec == (tf.TensorSpec([], tf.int32), tf.TensorSpec([], tf.string))
    assert [(int(a), b.numpy()) for a, b in ds] == [(1, b"a"), (2, b"b"), (3, b"z")]


# ---------------------------------------------------------------- WAV
def test_encode_wav_bytes_and_rounding():
    audio = np.array([[0.0, 0.5], [-1.0, 1.0], [0.25, -0.5000153]], np.float32)
    wav = tf.audio.encode_wav(audio, 16000).numpy()
    assert wav[:4] == b"RIFF" and struct.unpack("<I", wav[4:8])[0] == len(wav) - 8 and len(wav) == 44 + 12
    assert struct.unpack("<4sIHHIIHH4sI", wav[12:44]) == (b"fmt ", 16, 1, 2, 16000, 64000, 4, 16, b"data", 12)
    # TensorFlow's roundf(x * 32768) clamped to int16: 1.0 -> 32767, -0.5000153 -> -16385 (halves away from 0)
    assert np.frombuffer(wav[44:], "<i2").tolist() == [0, 16384, -32768, 32767, 8192, -16385]
    with wave.open(io.BytesIO(wav)) as w:  # the standard library reads it
        assert (w.getnchannels(), w.getsampwidth(), w.getframerate(), w.getnframes()) == (2, 2, 16000, 3)


def test_decode_wav_values_channels_and_samples():
    b = io.BytesIO()
    with wave.open(b, "wb") as w:
        w.setnchannels(2), w.setsampwidth(2), w.setframerate(8000)
        w.writeframes(np.array([[100, -200], [32767, -32768]], "<i2").tobytes())
    audio, rate = tf.audio.decode_wav(b.getvalue())
    assert audio.dtype == tf.float32 and rate.dtype == tf.int32 and int(rate) == 8000
    np.testing.assert_array_equal(audio.numpy(), np.array([[100, -200], [32767, -32768]], np.float32) / 32768)
    out = tf.audio.decode_wav(b.getvalue(), desired_channels=3, desired_samples=3)
    assert out.audio.shape == (3, 3)
    np.testing.assert_array_equal(out.audio.numpy()[:, 2], out.audio.numpy()[:, 1])  # the last channel repeats
    assert out.audio.numpy()[2].tolist() == [0, 0, 0]  # zero-padded
    assert tf.audio.decode_wav(b.getvalue(), desired_channels=1, desired_samples=1).audio.numpy().tolist() == \
        [[100 / 32768]]


def test_decode_wav_errors():
    b = io.BytesIO()
    with wave.open(b, "wb") as w:
        w.setnchannels(1), w.setsampwidth(1), w.setframerate(8000)
        w.writeframes(b"\x80\x81")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Can only read 16-bit WAV files, but received 8"):
        tf.audio.decode_wav(b.getvalue())
    with pytest.raises(tf.errors.InvalidArgumentError, match="Header mismatch: Expected RIFF but found RIFX"):
        tf.audio.decode_wav(b"RIFX" + b"\x00" * 40)
    wav = tf.audio.encode_wav(np.zeros((4, 1), np.float32), 100).numpy()
    with pytest.raises(tf.errors.InvalidArgumentError, match="Data too short when trying to read string"):
        tf.audio.decode_wav(wav[:-2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="audio must be 2-dimensional"):
        tf.audio.encode_wav(np.zeros(4, np.float32), 100)


def test_wav_in_a_function():
    @tf.function
    def f(x):
        audio, rate = tf.audio.decode_wav(x, desired_channels=1)
        assert audio.shape.as_list() == [None, 1] and rate.shape == ()
        return tf.audio.encode_wav(audio, rate)

    wav = tf.audio.encode_wav(np.array([[0.5], [-0.25]], np.float32), 22050)
    assert f(wav).numpy() == wav.numpy()


# ---------------------------------------------------------------- PNG
def test_png_round_trip_uint8_and_uint16():
    rs = np.random.RandomState(0)
    for c in (1, 2, 3, 4):
        img = rs.randint(0, 256, (5, 7, c)).astype(np.uint8)
        png = tf.io.encode_png(img)
        assert png.dtype == tf.string and png.shape == ()
        out = tf.io.decode_png(png)
        assert out.dtype == tf.uint8 and out.shape == (5, 7, c)
        np.testing.assert_array_equal(out.numpy(), img)
        img16 = rs.randint(0, 65536, (3, 4, c)).astype(np.uint16)
        out16 = tf.io.decode_png(tf.io.encode_png(img16), dtype=tf.uint16)
        assert out16.dtype == tf.uint16
        np.testing.assert_array_equal(out16.numpy(), img16)  # all 16 bits, colour ones too
        np.testing.assert_array_equal(tf.io.decode_png(tf.io.encode_png(img16)).numpy(), img16 >> 8)
        # Pillow reads what encode_png wrote
        assert Image.open(io.BytesIO(tf.io.encode_png(img).numpy())).size == (7, 5)


def test_png_channel_conversions_as_libpng():
    rgb = np.array([[[255, 0, 0], [0, 255, 0], [0, 0, 255], [10, 10, 10]]], np.uint8)
    png = tf.io.encode_png(rgb)
    # RGB -> grey with libpng's fixed-point 0.299/0.587 weights (truncated), grey pixels kept
    assert tf.io.decode_png(png, channels=1).numpy()[0, :, 0].tolist() == [76, 149, 29, 10]
    with pytest.raises(tf.errors.InvalidArgumentError, match="`channels` must be 0, 1, 3 or 4 but got 2"):
        tf.io.decode_png(png, channels=2)
    rgba = tf.io.decode_png(png, channels=4).numpy()
    assert rgba[0, :, 3].tolist() == [255] * 4 and rgba[0, :, :3].tolist() == rgb[0].tolist()
    gray = np.array([[[7], [200]]], np.uint8)
    assert tf.io.decode_png(tf.io.encode_png(gray), channels=3).numpy().tolist() == [[[7] * 3, [200] * 3]]
    # 8-bit PNGs widen by 257 for uint16 (libpng), and decode_image's float32 is value / 65535
    assert tf.io.decode_png(tf.io.encode_png(gray), dtype=tf.uint16).numpy().ravel().tolist() == [7 * 257, 200 * 257]
    f = tf.io.decode_image(tf.io.encode_png(gray), dtype=tf.float32)
    assert f.dtype == tf.float32
    np.testing.assert_allclose(f.numpy().ravel(), np.array([7, 200]) / 255, rtol=1e-6)


def test_png_palette_with_transparency():
    p = Image.new("P", (2, 1))
    p.putpalette([10, 20, 30, 40, 50, 60] + [0] * 762)
    p.putpixel((0, 0), 0), p.putpixel((1, 0), 1)
    b = io.BytesIO()
    p.save(b, "PNG", transparency=1)
    out = tf.io.decode_png(b.getvalue())
    assert out.shape == (1, 2, 4)  # palette + tRNS: RGBA, as TensorFlow's channels=0
    assert out.numpy().tolist() == [[[10, 20, 30, 255], [40, 50, 60, 0]]]
    assert tf.io.decode_png(b.getvalue(), channels=3).numpy().tolist() == [[[10, 20, 30], [40, 50, 60]]]


# ---------------------------------------------------------------- JPEG
def test_jpeg_flat_image_decodes_exactly():
    """A flat image at quality 100 has only DC coefficients: every DCT method and libjpeg give its pixels back,
    so these values are TensorFlow's too."""
    flat = np.full((16, 24, 3), [200, 100, 50], np.uint8)
    jpg = tf.io.encode_jpeg(flat, quality=100, chroma_downsampling=False)
    for kw in ({}, {"dct_method": "INTEGER_ACCURATE"}, {"fancy_upscaling": False}):
        out = tf.io.decode_jpeg(jpg, **kw)
        assert out.dtype == tf.uint8 and out.shape == (16, 24, 3)
        assert np.all(np.abs(out.numpy().astype(int) - [200, 100, 50]) <= 1)
    gray = np.full((8, 8, 1), 77, np.uint8)
    g = tf.io.encode_jpeg(gray, quality=100)
    assert tf.io.decode_jpeg(g).shape == (8, 8, 1) and tf.io.decode_jpeg(g).numpy().ravel().tolist() == [77] * 64
    assert tf.io.decode_jpeg(g, channels=3).numpy()[0, 0].tolist() == [77, 77, 77]
    assert tf.io.decode_image(g, dtype=tf.uint16).numpy()[0, 0, 0] == 77 * 256  # TensorFlow's 8 -> 16 bits
    np.testing.assert_array_equal(tf.io.decode_image(g, dtype=tf.float32).numpy()[0, 0],
                                  np.float32(77) * np.float32(1 / 255))


def test_jpeg_channels_ratio_and_shape():
    img = np.random.RandomState(3).randint(0, 256, (37, 45, 3)).astype(np.uint8)
    jpg = tf.io.encode_jpeg(img, quality=90)
    assert tf.io.decode_jpeg(jpg, channels=1).shape == (37, 45, 1)
    for ratio, shape in ((2, (19, 23, 3)), (4, (10, 12, 3)), (8, (5, 6, 3))):  # libjpeg rounds up
        assert tf.io.decode_jpeg(jpg, ratio=ratio).shape == shape
    cmyk = io.BytesIO()
    Image.new("CMYK", (4, 2), (0, 0, 255, 100)).save(cmyk, "JPEG", quality=100)
    # TensorFlow's RGB of an (Adobe) CMYK file: (255 - C) * (255 - K) // 255 per channel: yellow ink, 100 black
    out = tf.io.decode_jpeg(cmyk.getvalue())
    assert out.shape == (2, 4, 3) and np.all(np.abs(out.numpy()[0, 0].astype(int) - [155, 155, 0]) <= 1)
    with pytest.raises(tf.errors.InvalidArgumentError):  # libjpeg has no CMYK -> grey conversion
        tf.io.decode_jpeg(cmyk.getvalue(), channels=1)
    tiny = tf.io.encode_jpeg(np.zeros((3, 5, 3), np.uint8))
    assert tf.io.decode_jpeg(tiny, ratio=8).shape == (1, 1, 3)
    assert tf.io.extract_jpeg_shape(jpg).numpy().tolist() == [37, 45, 3]
    assert bool(tf.io.is_jpeg(jpg)) and not bool(tf.io.is_jpeg(tf.io.encode_png(img)))
    crop = tf.io.decode_and_crop_jpeg(jpg, [2, 3, 4, 5])
    np.testing.assert_array_equal(crop.numpy(), tf.io.decode_jpeg(jpg).numpy()[2:6, 3:8])
    # the decoders also read each other's formats, as TensorFlow's
    np.testing.assert_array_equal(tf.io.decode_png(jpg).numpy(), tf.io.decode_jpeg(jpg).numpy())
    assert tf.io.decode_jpeg(tf.io.encode_png(img)).shape == (37, 45, 3)


def test_jpeg_errors():
    jpg = tf.io.encode_jpeg(np.zeros((4, 4, 3), np.uint8))
    with pytest.raises(tf.errors.InvalidArgumentError, match="JPEG does not support 4 channels"):
        tf.io.decode_jpeg(jpg, channels=4)
    with pytest.raises(tf.errors.InvalidArgumentError, match="ratio must be 1, 2, 4, or 8, got 3"):
        tf.io.decode_jpeg(jpg, ratio=3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="dct_method must be one of"):
        tf.io.decode_jpeg(jpg, dct_method="FLOAT")
    with pytest.raises(tf.errors.InvalidArgumentError, match="jpeg::Uncompress failed. Invalid JPEG data"):
        tf.io.decode_jpeg(jpg.numpy()[:40])
    with pytest.raises(tf.errors.InvalidArgumentError, match="image must have 1 or 3 channels"):
        tf.io.encode_jpeg(np.zeros((2, 2, 4), np.uint8))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"quality must be in \[0,100\], got 101"):
        tf.io.encode_jpeg(np.zeros((2, 2, 3), np.uint8), quality=101)


# ---------------------------------------------------------------- GIF and BMP
def _animated_gif():
    frames = [Image.fromarray(np.full((4, 6, 3), v, np.uint8)) for v in ((255, 0, 0), (0, 0, 255))]
    b = io.BytesIO()
    frames[0].save(b, "GIF", save_all=True, append_images=frames[1:], duration=10, loop=0)
    return b.getvalue()


def test_gif_frames_and_decode_image():
    gif = _animated_gif()
    out = tf.io.decode_gif(gif)
    assert out.dtype == tf.uint8 and out.shape == (2, 4, 6, 3)
    assert out.numpy()[0, 0, 0].tolist() == [255, 0, 0] and out.numpy()[1, 0, 0].tolist() == [0, 0, 255]
    assert tf.io.decode_image(gif).shape == (2, 4, 6, 3)
    assert tf.io.decode_image(gif, expand_animations=False).shape == (4, 6, 3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Got 2 frames, but animated gifs can only be decoded "
                                                             "by tf.io.decode_gif or tf.io.decode_image"):
        tf.io.decode_png(gif)
    with pytest.raises(tf.errors.InvalidArgumentError, match="channels must be 0 or 3 for GIF, got 1"):
        tf.io.decode_image(gif, channels=1)
    assert tf.io.decode_gif(tf.io.encode_png(np.zeros((2, 3, 3), np.uint8))).shape == (1, 2, 3, 3)


def test_bmp_as_tensorflow_reads_it():
    img = np.random.RandomState(4).randint(0, 256, (3, 5, 3)).astype(np.uint8)
    bmp = _pil_bytes(img, "BMP")
    np.testing.assert_array_equal(tf.io.decode_bmp(bmp).numpy(), img)
    rgba = tf.io.decode_bmp(bmp, channels=4).numpy()
    assert rgba.shape == (3, 5, 4) and (rgba[..., 3] == 255).all()
    # a top-down 32-bit BGRA file written by hand
    px = np.array([[[1, 2, 3, 4], [5, 6, 7, 8]]], np.uint8)
    header = b"BM" + struct.pack("<IHHI", 54 + 8, 0, 0, 54) + struct.pack("<IiiHHIIiiII", 40, 2, -1, 1, 32, 0, 8,
                                                                             0, 0, 0, 0)
    out = tf.io.decode_image(header + px.tobytes())
    assert out.numpy().tolist() == [[[3, 2, 1, 4], [7, 6, 5, 8]]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="`channels` must be 0, 3 or 4 for BMP, but got 1"):
        tf.io.decode_bmp(bmp, channels=1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Trying to decode BMP format using a wrong op. Use "
                                                             "`decode_bmp` or `decode_image` instead. Op used: "
                                                             "DecodePng"):
        tf.io.decode_png(bmp)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input size should match .* but they differ by -1"):
        tf.io.decode_bmp(bmp[:-1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Trying to decode PNG format using DecodeBmp op"):
        tf.io.decode_bmp(tf.io.encode_png(img))


# ---------------------------------------------------------------- bad and hostile files
def test_unknown_and_empty_input():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Unknown image file format. One of JPEG, PNG, GIF, BMP required. \[Op:DecodeImage\]"):
        tf.io.decode_image(b"hello")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input is empty."):
        tf.io.decode_jpeg(b"")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"`contents` must be scalar but got shape\[2\]"):
        tf.io.decode_png([b"a", b"b"])


def test_declared_sizes_are_checked_before_decoding():
    with pytest.raises(tf.errors.InvalidArgumentError, match="PNG size too large for int: 100000 by 100000"):
        tf.io.decode_png(_png_header_only(100000, 100000))
    with pytest.raises(tf.errors.InvalidArgumentError, match="too large"):
        tf.io.decode_png(_png_header_only(30000, 10000, depth=16, ctype=6), dtype=tf.uint16)
    jpg = bytearray(tf.io.encode_jpeg(np.zeros((8, 8, 3), np.uint8)).numpy())
    k = jpg.find(b"\xff\xc0")
    jpg[k + 5:k + 9] = struct.pack(">HH", 15000, 15000)  # 225M pixels declared in a few hundred bytes
    with pytest.raises(tf.errors.InvalidArgumentError, match="JPEG image too large"):
        tf.io.decode_jpeg(bytes(jpg))
    gif = bytearray(_pil_bytes(np.zeros((2, 2, 3), np.uint8), "GIF"))
    gif[6:10] = struct.pack("<HH", 65535, 65535)
    with pytest.raises(tf.errors.InvalidArgumentError, match="GIF image too large"):
        tf.io.decode_gif(bytes(gif))


def test_damaged_files_raise_invalid_argument_only():
    rs = np.random.RandomState(5)
    img = rs.randint(0, 256, (6, 7, 3)).astype(np.uint8)
    files = [tf.io.encode_png(img).numpy(), tf.io.encode_jpeg(img).numpy(), _pil_bytes(img, "GIF"),
             _pil_bytes(img, "BMP"), tf.io.encode_png(img.astype(np.uint16) * 257).numpy()]
    for data in files:
        for _ in range(25):
            b = bytearray(data)
            if rs.rand() < 0.5:
                b = b[:rs.randint(4, len(b))]
            else:
                for i in rs.randint(3, len(b), 4):
                    b[i] = rs.randint(256)
            try:
                tf.io.decode_image(bytes(b))
            except tf.errors.InvalidArgumentError:
                pass


def test_without_pillow_the_error_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)
    jpg_bytes = b"\xff\xd8\xff\xe0" + b"\x00" * 20
    with pytest.raises(ImportError, match=r"pip install 'rivulet\[images\]'"):
        tf.io.decode_jpeg(jpg_bytes)
    img = np.zeros((2, 3, 3), np.uint8)
    assert tf.io.decode_png(tf.io.encode_png(np.zeros((2, 3, 3), np.uint16))).shape == (2, 3, 3)  # no Pillow used
    bmp = b"BM" + struct.pack("<IHHI", 54 + 24, 0, 0, 54) + struct.pack("<IiiHHIIiiII", 40, 3, 2, 1, 24, 0, 24,
                                                                        0, 0, 0, 0) + bytes(24)
    assert tf.io.decode_bmp(bmp).numpy().tolist() == img[:, :, :].tolist()


# ---------------------------------------------------------------- graphs, datasets, namespaces
def test_static_shapes_in_functions():
    @tf.function(input_signature=[tf.TensorSpec([], tf.string)])
    def f(x):
        assert tf.io.decode_jpeg(x, channels=3).shape.as_list() == [None, None, 3]
        assert tf.io.decode_png(x).shape.as_list() == [None, None, None]
        assert tf.io.decode_png(x, dtype=tf.uint16).dtype == tf.uint16
        assert tf.io.decode_gif(x).shape.as_list() == [None, None, None, 3]
        assert tf.io.decode_image(x).shape.rank is None
        img = tf.io.decode_image(x, channels=3, expand_animations=False, dtype=tf.float32)
        assert img.shape.as_list() == [None, None, 3] and img.dtype == tf.float32
        return img

    png = tf.io.encode_png(np.full((2, 3, 1), 255, np.uint8))
    np.testing.assert_array_equal(f(png).numpy(), np.ones((2, 3, 3), np.float32))


def test_image_files_through_a_dataset(tmp_path):
    rs = np.random.RandomState(6)
    for i in range(3):
        tf.io.write_file(str(tmp_path / f"{i}.png"), tf.io.encode_png(rs.randint(0, 256, (4 + i, 6, 3))
                                                                      .astype(np.uint8)))

    def load(path):
        return tf.image.resize(tf.io.decode_png(tf.io.read_file(path), channels=3), (4, 4))

    ds = tf.data.Dataset.list_files(str(tmp_path / "*.png"), shuffle=False).map(load).batch(3)
    assert ds.element_spec == tf.TensorSpec([None, 4, 4, 3], tf.float32)
    batches = [b.numpy() for b in ds]
    assert len(batches) == 1 and batches[0].shape == (3, 4, 4, 3)


def test_namespaces():
    for name in ("decode_jpeg", "decode_png", "decode_gif", "decode_bmp", "decode_image", "encode_jpeg",
                 "encode_png", "decode_and_crop_jpeg", "extract_jpeg_shape", "is_jpeg"):
        assert getattr(tf.image, name) is getattr(tf.io, name)
    assert callable(tf.audio.decode_wav) and callable(tf.audio.encode_wav)
    assert tf.io.read_file.__module__ == "rivulet.ops.codec_ops" and os.sep


def test_jpeg_dct_methods_reach_libjpeg():
    """TensorFlow decodes with JDCT_IFAST unless dct_method='INTEGER_ACCURATE' (JDCT_ISLOW): on a 4:4:4 file the
    default matches libjpeg's IFAST decode (Pillow's draft flag) and INTEGER_ACCURATE its ISLOW decode."""
    img = np.random.RandomState(7).randint(0, 256, (24, 24, 3)).astype(np.uint8)
    data = _pil_bytes(img, "JPEG", quality=90, subsampling="4:4:4")
    islow = np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))
    fast = Image.open(io.BytesIO(data))
    fast.decoderconfig = (1, 1)
    fast.load()
    ifast = np.asarray(fast)
    assert (ifast != islow).any()
    np.testing.assert_array_equal(tf.io.decode_jpeg(data).numpy(), ifast)
    np.testing.assert_array_equal(tf.io.decode_jpeg(data, dct_method="INTEGER_FAST").numpy(), ifast)
    np.testing.assert_array_equal(tf.io.decode_jpeg(data, dct_method="INTEGER_ACCURATE").numpy(), islow)
    np.testing.assert_array_equal(tf.io.decode_image(data).numpy(), ifast)  # DecodeImage: TensorFlow's IFAST too


def test_gif_first_frame_is_black_where_transparent_or_uncovered():
    a = Image.new("P", (4, 3))
    a.putpalette([10, 20, 30, 200, 0, 0] + [0] * 762)
    for x in range(4):
        for y in range(3):
            a.putpixel((x, y), 1 if x < 2 else 0)
    b = io.BytesIO()
    a.save(b, "GIF", transparency=0)
    out = tf.io.decode_gif(b.getvalue()).numpy()
    assert out[0, 0].tolist() == [[200, 0, 0], [200, 0, 0], [0, 0, 0], [0, 0, 0]]


def test_codec_ops_in_a_saved_model(tmp_path):
    class M(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([], tf.string)])
        def img(self, x):
            return tf.io.decode_image(x, channels=3, expand_animations=False, dtype=tf.uint16)

        @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
        def csv(self, x):
            return tf.io.decode_csv(x, [[0], ["z"]], field_delim=";", na_value="NA")

    tf.saved_model.save(M(), str(tmp_path))
    m = tf.saved_model.load(str(tmp_path))
    png = tf.io.encode_png(np.full((2, 2, 1), 9, np.uint8))
    assert m.img(png).numpy().tolist() == [[[9 * 257] * 3] * 2] * 2
    a, b = m.csv(tf.constant(["1;NA", "NA;x"]))
    assert a.numpy().tolist() == [1, 0]
    assert b.numpy().tolist() == [b"z", b"x"]


def _interlaced_png16(img):
    """An Adam7-interlaced 16-bit PNG written by hand (each pass's rows with filter 1, Sub)."""
    h, w, c = img.shape
    raw = b""
    for x0, y0, dx, dy in ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
                           (0, 1, 1, 2)):
        sub = img[y0::dy, x0::dx]
        if sub.size == 0:
            continue
        for row in sub.astype(">u2").reshape(sub.shape[0], -1).view(np.uint8).reshape(sub.shape[0], -1, 2 * c):
            diff = row.astype(np.int64).copy()
            diff[1:] -= row[:-1]
            raw += b"\x01" + (diff % 256).astype(np.uint8).tobytes()
    ihdr = struct.pack(">IIBBBBB", w, h, 16, {1: 0, 2: 4, 3: 2, 4: 6}[c], 0, 0, 1)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", zlib.compress(raw)) + _chunk(b"IEND", b"")


def test_png16_interlaced_and_grey():
    rs = np.random.RandomState(8)
    for c in (1, 3, 4):
        img = rs.randint(0, 65536, (5, 7, c)).astype(np.uint16)
        data = _interlaced_png16(img)
        np.testing.assert_array_equal(tf.io.decode_png(data, dtype=tf.uint16).numpy(), img)
        np.testing.assert_array_equal(tf.io.decode_png(data).numpy(), (img >> 8).astype(np.uint8))
    grey = rs.randint(0, 65536, (3, 4)).astype(np.uint16)
    b = io.BytesIO()
    Image.fromarray(grey).save(b, "PNG")  # mode I;16: a 16-bit grey file
    np.testing.assert_array_equal(tf.io.decode_png(b.getvalue(), dtype=tf.uint16).numpy()[..., 0], grey)
    # RGB -> grey on 16-bit data happens before the cut to 8 bits (libpng's order), rounded
    rgb = np.array([[[65535, 0, 0]]], np.uint16)
    assert tf.io.decode_png(tf.io.encode_png(rgb), channels=1, dtype=tf.uint16).numpy().item() == \
        (9797 * 65535 + 16384) >> 15


def test_png_critical_chunk_crc_is_checked():
    for data in (tf.io.encode_png(np.ones((2, 2, 3), np.uint16)).numpy(),
                 tf.io.encode_png(np.ones((2, 2, 3), np.uint8)).numpy()):
        k = data.find(b"IDAT") + 4
        bad = data[:k] + bytes([data[k] ^ 1]) + data[k + 1:]
        with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid PNG"):
            tf.io.decode_png(bad)


def test_jpeg_grey_output_of_a_subsampled_file_uses_tensorflows_dct():
    img = np.random.RandomState(9).randint(0, 256, (24, 24, 3)).astype(np.uint8)
    data = _pil_bytes(img, "JPEG", quality=90, subsampling="4:2:0")
    fast = Image.open(io.BytesIO(data))
    fast.draft("L", None)
    fast.decoderconfig = (1, 1)
    fast.load()
    np.testing.assert_array_equal(tf.io.decode_jpeg(data, channels=1).numpy()[..., 0], np.asarray(fast))


def test_jpeg_try_recover_truncated():
    img = np.random.RandomState(10).randint(0, 256, (32, 32, 3)).astype(np.uint8)
    full = tf.io.encode_jpeg(img).numpy()
    cut = full[:len(full) * 4 // 5]
    with pytest.raises(tf.errors.InvalidArgumentError, match="jpeg::Uncompress failed"):
        tf.io.decode_jpeg(cut)
    # TensorFlow's reader inserts an end-of-image marker where the data ends and lets libjpeg finish
    out = tf.io.decode_jpeg(cut, try_recover_truncated=True)
    expected = np.asarray(Image.open(io.BytesIO(cut + b"\xff\xd9")).convert("RGB"))
    assert out.shape == (32, 32, 3)
    np.testing.assert_array_equal(out.numpy(), expected)


def test_encode_jpeg_options_reach_the_file():
    img = np.random.RandomState(11).randint(0, 256, (16, 16, 3)).astype(np.uint8)
    data = tf.io.encode_jpeg(img, quality=80, progressive=True, x_density=72, y_density=96,
                             xmp_metadata="<x:xmpmeta/>").numpy()
    im = Image.open(io.BytesIO(data))
    assert im.info.get("progressive") and im.info["dpi"] == (72, 96) and im.info["xmp"] == b"<x:xmpmeta/>"
    assert [layer[1:3] for layer in im.layer] == [(2, 2), (1, 1), (1, 1)]  # 4:2:0 by default
    im444 = Image.open(io.BytesIO(tf.io.encode_jpeg(img, chroma_downsampling=False).numpy()))
    assert [layer[1:3] for layer in im444.layer] == [(1, 1)] * 3
    g = Image.open(io.BytesIO(tf.io.encode_jpeg(img[..., :1]).numpy()))
    assert g.mode == "L"
