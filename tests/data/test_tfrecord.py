"""TFRecord files, tf.train.Example and tf.io parsing, checked against bytes and files TensorFlow wrote."""
import gzip
import os
import re
import struct
import time
import zlib

import numpy as np
import pytest

import rivulet as tf
from rivulet.errors import DataLossError, InvalidArgumentError, NotFoundError
from rivulet.formats.records import masked_crc

HERE = os.path.dirname(__file__)
TF_FILE = os.path.join(HERE, "fixtures", "tf_written.tfrecord")
FEATURES = {"id": tf.io.FixedLenFeature([2], tf.int64), "x": tf.io.FixedLenFeature([], tf.float32),
            "name": tf.io.VarLenFeature(tf.string)}
# tf.train.Example(...).SerializeToString() from TensorFlow 2.21 (the map entry order is TensorFlow's)
TF_EXAMPLE = (b'\nF\n\x14\n\x01a\x12\x0f\x1a\r\n\x0b\x01\xfe\xff\xff\xff\xff\xff\xff\xff\xff\x01\n\x13\n\x01c\x12\x0e'
              b'\n\x0c\n\x06hi\x00\xff\'"\n\x02\xc3\xa9\n\x19\n\x01b\x12\x14\x12\x12\n\x10\x00\x00\x80?\xcd\xcc\xcc='
              b'\x95\xbf\xd62v\x84\xdfP')


def _example():
    return tf.train.Example(features=tf.train.Features(feature={
        "a": tf.train.Feature(int64_list=tf.train.Int64List(value=[1, -2])),
        "c": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"hi\x00\xff'\"", "é".encode()])),
        "b": tf.train.Feature(float_list=tf.train.FloatList(value=[1.0, 0.1, 2.5e-8, 3e10]))}))


def test_example_wire_format_matches_tensorflow():
    assert _example().SerializeToString() == TF_EXAMPLE
    ex = tf.train.Example.FromString(TF_EXAMPLE)
    assert ex == _example()
    f = ex.features.feature
    assert f["a"].int64_list.value == [1, -2] and f["a"].WhichOneof("kind") == "int64_list"
    assert f["c"].bytes_list.value == [b"hi\x00\xff'\"", b"\xc3\xa9"]
    assert np.allclose(f["b"].float_list.value, np.float32([1.0, 0.1, 2.5e-8, 3e10]))
    assert 'value: "hi\\000\\377\\\'\\""' in str(ex) and "value: 2.5e-08" in str(ex) and "value: 3e+10" in str(ex)
    assert str(tf.train.Int64List(value=[3])) == "value: 3\n"
    with pytest.raises(Exception, match="Error parsing message"):
        tf.train.Example.FromString(b"\x0a\x05abc")
    with pytest.raises(TypeError):
        tf.train.Int64List(value=[1.5])


def test_parse_single_example_and_errors():
    out = tf.io.parse_single_example(TF_EXAMPLE, {"a": tf.io.FixedLenFeature([2], tf.int64),
                                                  "b": tf.io.VarLenFeature(tf.float32),
                                                  "d": tf.io.FixedLenFeature([], tf.int64, default_value=7)})
    assert out["a"].numpy().tolist() == [1, -2] and int(out["d"]) == 7
    assert out["b"].indices.numpy().tolist() == [[0], [1], [2], [3]]
    assert out["b"].dense_shape.numpy().tolist() == [4]
    assert np.allclose(out["b"].values.numpy(), np.float32([1.0, 0.1, 2.5e-8, 3e10]))
    with pytest.raises(InvalidArgumentError, match="Key: a.  Data types don't match. Data type: int64 but "
                                                   "expected type: float"):
        tf.io.parse_single_example(TF_EXAMPLE, {"a": tf.io.FixedLenFeature([2], tf.float32)})
    with pytest.raises(InvalidArgumentError, match=r"Feature: z \(data type: int64\) is required but could not "
                                                   r"be found."):
        tf.io.parse_single_example(TF_EXAMPLE, {"z": tf.io.FixedLenFeature([], tf.int64)})
    with pytest.raises(InvalidArgumentError, match="Key: a.  Can't parse serialized Example"):
        tf.io.parse_single_example(TF_EXAMPLE, {"a": tf.io.FixedLenFeature([3], tf.int64)})
    with pytest.raises(InvalidArgumentError, match="Could not parse example input"):
        tf.io.parse_single_example(b"\xff\xff", {"a": tf.io.FixedLenFeature([2], tf.int64)})
    batch = tf.io.parse_example([TF_EXAMPLE, TF_EXAMPLE], {"a": tf.io.FixedLenFeature([2], tf.int64)})
    assert batch["a"].numpy().tolist() == [[1, -2], [1, -2]]
    assert repr(tf.io.FixedLenFeature([2], tf.int64)) == "FixedLenFeature(shape=[2], dtype=tf.int64, default_value=None)"
    # TF 2.21 prints the shape as it was given (feature_column.make_parse_example_spec gives tuples)
    assert repr(tf.io.FixedLenFeature((2,), tf.int64)) == "FixedLenFeature(shape=(2,), dtype=tf.int64, default_value=None)"
    assert repr(tf.feature_column.make_parse_example_spec([tf.feature_column.numeric_column("a", shape=[2])])) == \
        "{'a': FixedLenFeature(shape=(2,), dtype=tf.float32, default_value=None)}"
    assert repr(tf.io.VarLenFeature(tf.float32)) == "VarLenFeature(dtype=tf.float32)"


def test_reads_a_file_tensorflow_wrote():
    ds = tf.data.TFRecordDataset(TF_FILE).map(lambda s: tf.io.parse_single_example(s, FEATURES))
    got = [(e["id"].numpy().tolist(), float(e["x"]), e["name"].values.numpy().tolist()) for e in ds]
    assert got == [([0, 0], 0.0, []), ([1, -1], 0.5, [b"n1"]), ([2, -2], 1.0, [b"n2", b"n2"])]
    gz = os.path.join(HERE, "fixtures", "tf_written.gz.tfrecord")
    assert list(tf.data.TFRecordDataset(gz, compression_type="GZIP").as_numpy_iterator()) == [b"hello", b""]
    assert repr(tf.data.TFRecordDataset(TF_FILE)) == \
        "<_TFRecordDataset element_spec=TensorSpec(shape=(), dtype=tf.string, name=None)>"


@pytest.mark.parametrize("compression", ["", "GZIP", "ZLIB"])
def test_round_trip(tmp_path, compression):
    path = str(tmp_path / "f.tfrecord")
    records = [b"", b"a", bytes(range(256)) * 3, _example().SerializeToString()]
    with tf.io.TFRecordWriter(path, options=tf.io.TFRecordOptions(compression_type=compression)) as w:
        for r in records:
            w.write(r)
    ds = tf.data.TFRecordDataset([path, path], compression_type=compression)
    assert list(ds.as_numpy_iterator()) == records * 2
    if not compression:
        assert open(path, "rb").read() == open(path, "rb").read()  # byte-for-byte TF's framing
        with open(TF_FILE, "rb") as f:
            data = f.read()
        out = str(tmp_path / "copy.tfrecord")
        with tf.io.TFRecordWriter(out) as w:
            for r in tf.data.TFRecordDataset(TF_FILE).as_numpy_iterator():
                w.write(r)
        assert open(out, "rb").read() == data  # rewriting TF's records reproduces its file exactly


def test_corruption_raises_data_loss(tmp_path):
    path = str(tmp_path / "f.tfrecord")
    with tf.io.TFRecordWriter(path) as w:
        w.write(b"hello world")
        w.write(b"second")
    good = open(path, "rb").read()
    for pos, what in ((3, "length"), (14, "data"), (len(good) - 1, "data crc")):
        bad = bytearray(good)
        bad[pos] ^= 0x01
        with open(path, "wb") as f:
            f.write(bytes(bad))
        with pytest.raises(DataLossError):
            list(tf.data.TFRecordDataset(path))
    with open(path, "wb") as f:
        f.write(good[:-3])  # truncated
    it = iter(tf.data.TFRecordDataset(path))
    assert next(it).numpy() == b"hello world"
    with pytest.raises(DataLossError, match="truncated"):
        next(it)
    with pytest.raises(NotFoundError):
        list(tf.data.TFRecordDataset(str(tmp_path / "missing")))


def test_text_lines_and_list_files(tmp_path):
    for i in range(2):
        (tmp_path / f"t{i}.txt").write_bytes(b"a%d\nb%d\r\nlast" % (i, i))
    files = tf.data.Dataset.list_files(str(tmp_path / "*.txt"), shuffle=False)
    assert [f.decode().rsplit("/", 1)[1] for f in files.as_numpy_iterator()] == ["t0.txt", "t1.txt"]
    lines = tf.data.TextLineDataset(files)
    assert list(lines.as_numpy_iterator()) == [b"a0", b"b0", b"last", b"a1", b"b1", b"last"]
    with pytest.raises(InvalidArgumentError, match="to match at least one file"):
        tf.data.Dataset.list_files(str(tmp_path / "*.none"))


def test_serialize_tensor_matches_tensorflow():
    assert tf.io.serialize_tensor(tf.constant([1, 2])).numpy() == \
        b'\x08\x03\x12\x04\x12\x02\x08\x02"\x08\x01\x00\x00\x00\x02\x00\x00\x00'
    back = tf.io.parse_tensor(tf.io.serialize_tensor(tf.constant([[1.5, 2.0]])), tf.float32)
    assert back.numpy().tolist() == [[1.5, 2.0]]
    with pytest.raises(InvalidArgumentError, match="Type mismatch"):
        tf.io.parse_tensor(tf.io.serialize_tensor(tf.constant([1, 2])), tf.float32)


def _framed(length, data=b"abcd"):
    """A record header declaring `length` (with a correct header CRC: CRCs guard against accidents, not
    against a crafted file), followed by `data`."""
    hdr = struct.pack("<Q", length)
    return hdr + struct.pack("<I", masked_crc(hdr)) + data


def _write(path, data, compression):
    if compression == "GZIP":
        data = gzip.compress(data)
    elif compression == "ZLIB":
        data = zlib.compress(data)
    with open(path, "wb") as f:
        f.write(data)


@pytest.mark.parametrize("compression", ["", "GZIP", "ZLIB"])
def test_huge_declared_length_is_data_loss(tmp_path, compression):
    # the length was allocated before reading: MemoryError / OverflowError instead of TF's DataLossError
    path = str(tmp_path / "f.tfrecord")
    ok = _framed(5, b"hello") + struct.pack("<I", masked_crc(b"hello"))
    for n in (2 ** 31, 2 ** 40, 2 ** 63, 2 ** 64 - 1):
        _write(path, ok + _framed(n), compression)
        it = tf.io.tf_record_iterator(path, tf.io.TFRecordOptions(compression))
        assert next(it) == b"hello"
        with pytest.raises(DataLossError, match=rf"truncated record at 21 in {re.escape(path)}.*declares {n} "):
            next(it)
        with pytest.raises(DataLossError, match="truncated record at 21"):
            list(tf.data.TFRecordDataset(path, compression_type=compression))


def _gzip_records(path, n=5, size=20000):
    with tf.io.TFRecordWriter(path, options=tf.io.TFRecordOptions(compression_type="GZIP")) as w:
        for i in range(n):
            w.write(bytes([i]) * size)
    return open(path, "rb").read()


def test_truncated_or_corrupt_compressed_files_are_data_loss(tmp_path):
    # a cut GZIP stream raised EOFError; its records before the cut are still read, as TF reads them
    path = str(tmp_path / "f.gz")
    raw = _gzip_records(path)
    cut = str(tmp_path / "cut.gz")
    _write(cut, raw[:len(raw) // 2], "")
    got = []
    with pytest.raises(DataLossError, match=rf"truncated GZIP data at offset \d+ in {re.escape(cut)}"):
        for r in tf.data.TFRecordDataset(cut, compression_type="GZIP").as_numpy_iterator():
            got.append(r)
    assert got and all(r == bytes([i]) * 20000 for i, r in enumerate(got))
    bad = bytearray(raw)
    bad[-6] ^= 0xFF  # the gzip trailer's CRC
    _write(cut, bytes(bad), "")
    with pytest.raises(DataLossError, match=rf"corrupted GZIP data at offset \d+ in {re.escape(cut)}: CRC check"):
        list(tf.data.TFRecordDataset(cut, compression_type="GZIP"))
    _write(cut, b"not gzip at all", "")
    with pytest.raises(DataLossError, match="corrupted GZIP data at offset 0"):
        list(tf.data.TFRecordDataset(cut, compression_type="GZIP"))
    # the same for the line reader, which shares the opening of compressed files
    _write(cut, raw[:len(raw) // 2], "")
    with pytest.raises(DataLossError, match="truncated GZIP data"):
        list(tf.data.TextLineDataset(cut, compression_type="GZIP"))


def test_zlib_files_are_read_incrementally(tmp_path):
    # a ZLIB file was inflated whole before its first record (a small file can inflate to gigabytes), so a
    # corrupt tail lost the records before it; now they are read, then DataLossError names the offset
    path = str(tmp_path / "f.zz")
    with tf.io.TFRecordWriter(path, options=tf.io.TFRecordOptions(compression_type="ZLIB")) as w:
        for i in range(3):
            w.write(bytes([i]) * 100000)
    raw = open(path, "rb").read()
    for data, match in ((raw[:len(raw) - 40], "truncated ZLIB data"),
                        (raw[:len(raw) // 2] + b"\xff" * 64 + raw[len(raw) // 2 + 64:], "corrupted ZLIB data"),
                        (raw[:3] + b"\xff" * 64, "corrupted ZLIB data at offset 0")):
        _write(path, data, "")
        got = []
        with pytest.raises(DataLossError, match=rf"{match}.* in {re.escape(path)}"):
            for r in tf.data.TFRecordDataset(path, compression_type="ZLIB").as_numpy_iterator():
                got.append(r)
        assert all(r == bytes([i]) * 100000 for i, r in enumerate(got))
    _write(path, raw[:len(raw) // 2] + b"\xff" * 64 + raw[len(raw) // 2 + 64:], "")
    with pytest.raises(DataLossError):  # the records before the damage come first
        it = tf.data.TFRecordDataset(path, compression_type="ZLIB").as_numpy_iterator()
        assert next(it) == b"\x00" * 100000
        list(it)
    _write(path, b"", "")
    assert list(tf.data.TFRecordDataset(path, compression_type="ZLIB")) == []


def _example_bytes(kind, payload, packed=True):
    """An Example {"v": Feature{<kind> {packed field 1: payload}}} (or {payload} itself), from wire bytes."""
    from rivulet.formats.wire import bytes_field
    feature = bytes_field({"float": 2, "int64": 3}[kind], bytes_field(1, payload) if packed else payload)
    return bytes_field(1, bytes_field(1, bytes_field(1, b"v") + bytes_field(2, feature)))


def _scalar_varints(b):
    from rivulet.io.example_proto import read_varint
    out, i = [], 0
    while i < len(b):
        x, i = read_varint(b, i)
        out.append(x)
    return out


@pytest.mark.parametrize("vectorised_from", [0, 256])  # bytes: short payloads take a plain loop by default
def test_packed_varints_decode_as_the_scalar_decoder(monkeypatch, vectorised_from):
    from rivulet.io import example_proto
    from rivulet.io.example_proto import DecodeError, decode_varints
    from rivulet.formats.wire import encode_varint as _varint
    monkeypatch.setattr(example_proto, "_SCALAR_BELOW", vectorised_from)
    rng = np.random.default_rng(7)
    vals = np.concatenate([[0, 1, -1, 127, 128, -128, 2 ** 31 - 1, -2 ** 31, 2 ** 63 - 1, -2 ** 63, 2 ** 62, 300],
                           rng.integers(-2 ** 63, 2 ** 63 - 1, 2000, dtype=np.int64, endpoint=True),
                           rng.integers(-300, 300, 2000), rng.integers(0, 1 << rng.integers(1, 63, 2000))])
    payload = b"".join(_varint(int(v)) for v in vals)
    assert decode_varints(payload).view(np.int64).tolist() == vals.tolist()
    ser = _example_bytes("int64", payload)
    assert tf.io.parse_single_example(ser, {"v": tf.io.VarLenFeature(tf.int64)})["v"].values.numpy().tolist() \
        == vals.tolist()
    dense = tf.io.parse_example([ser, ser], {"v": tf.io.FixedLenFeature([len(vals)], tf.int64)})["v"].numpy()
    assert dense.tolist() == [vals.tolist()] * 2
    ex = tf.train.Example.FromString(ser)
    listed = ex.features.feature["v"].int64_list.value
    assert listed == vals.tolist() and type(listed[0]) is int and ex.SerializeToString() == ser
    listed.append(5)  # the list is the message's own, as protobuf's repeated field is
    assert tf.train.Example.FromString(ex.SerializeToString()).features.feature["v"].int64_list.value[-1] == 5
    # arbitrary bytes, mostly continuation bytes: both decoders agree on the values or both refuse them
    for _ in range(400):
        n = int(rng.integers(1, 40))
        b = (np.where(rng.random(n) < 0.8, 0x80, 0) | rng.integers(0, 128, n)).astype(np.uint8).tobytes()
        try:
            want = _scalar_varints(b)
        except DecodeError:
            with pytest.raises(DecodeError, match="truncated varint"):
                decode_varints(b)
            with pytest.raises(InvalidArgumentError, match="Could not parse example input"):
                tf.io.parse_single_example(_example_bytes("int64", b), {"v": tf.io.VarLenFeature(tf.int64)})
        else:
            assert decode_varints(b).tolist() == want


@pytest.mark.parametrize("vectorised_from", [0, 256])
def test_ten_byte_varints_drop_the_bits_past_64(monkeypatch, vectorised_from):
    # protobuf keeps a 10-byte varint's low 64 bits; the high bits made a Python int past int64
    # (OverflowError out of parse_single_example)
    payload = b"\xff" * 9 + b"\x7f" + b"\x80" * 9 + b"\x02" + b"\x81" + b"\x80" * 8 + b"\x01"
    want = [-1, 0, -(2 ** 63) + 1]
    from rivulet.io import example_proto
    monkeypatch.setattr(example_proto, "_SCALAR_BELOW", vectorised_from)
    ser = _example_bytes("int64", payload)
    assert tf.io.parse_single_example(ser, {"v": tf.io.VarLenFeature(tf.int64)})["v"].values.numpy().tolist() == want
    assert tf.train.Example.FromString(ser).features.feature["v"].int64_list.value == want
    singles = b"".join(b"\x08" + payload[i:i + 10] for i in range(0, 30, 10))  # one value per field
    ser = _example_bytes("int64", singles, packed=False)
    assert tf.io.parse_single_example(ser, {"v": tf.io.VarLenFeature(tf.int64)})["v"].values.numpy().tolist() == want
    with pytest.raises(Exception, match="Error parsing message"):  # an eleventh byte is corrupt
        tf.train.Example.FromString(_example_bytes("int64", b"\xff" * 10 + b"\x01"))


def test_large_packed_lists_parse_quickly():
    # 2M int64s (2 MiB) took ~3 s one varint at a time (TF: 0.07 s); floats went through a Python list
    ser = _example_bytes("int64", b"\x01" * 1_000_000 + b"\xff\x01" * 500_000)
    floats = np.linspace(-1, 1, 500_000, dtype=np.float32)
    fser = _example_bytes("float", floats.astype("<f4").tobytes())
    t0 = time.perf_counter()
    v = tf.io.parse_single_example(ser, {"v": tf.io.VarLenFeature(tf.int64)})["v"]
    f = tf.io.parse_example([fser], {"v": tf.io.FixedLenFeature([500_000], tf.float32)})["v"]
    elapsed = time.perf_counter() - t0
    assert v.values.shape == [1_500_000] and int(v.values[-1]) == 255 and int(v.indices[-1][0]) == 1_499_999
    assert (f.numpy()[0] == floats).all()
    assert elapsed < 1.5, elapsed


def test_parse_example_keeps_a_list_of_records_whole():
    # a Python list went through a fixed-width bytes array, which cut each record's trailing NUL bytes:
    # an Example ending in an empty list or a zero became unparseable
    ex = tf.train.Example(features=tf.train.Features(feature={
        "n": tf.train.Feature(int64_list=tf.train.Int64List(value=[7, 0])),
        "tags": tf.train.Feature(bytes_list=tf.train.BytesList(value=[]))})).SerializeToString()
    assert ex.endswith(b"\x00")
    out = tf.io.parse_example([ex, ex], {"n": tf.io.FixedLenFeature([2], tf.int64),
                                         "tags": tf.io.VarLenFeature(tf.string)})
    assert out["n"].numpy().tolist() == [[7, 0], [7, 0]] and out["tags"].dense_shape.numpy().tolist() == [2, 0]


def test_parse_tensor_refuses_a_shape_past_its_content():
    # the element count was a wrapping int64 product: 2**32 x 2**32 counted 0 and failed in a reshape
    from rivulet.formats.wire import bytes_field, varint_field
    dims = bytes_field(2, b"".join(bytes_field(2, varint_field(1, 2 ** 32)) for _ in range(2)))
    for proto, dt in ((varint_field(1, 3) + dims + bytes_field(4, b""), tf.int32), (varint_field(1, 7) + dims,
                                                                                  tf.string)):
        with pytest.raises(InvalidArgumentError, match="Could not parse `serialized` as TensorProto: (content size|"
                                                       "wrong number)"):
            tf.io.parse_tensor(proto, dt)
