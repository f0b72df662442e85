"""TFRecord writing at the disk's speed (issue 26): the writer gathers framed records and writes them a megabyte
at a time, Example serialisation appends a long bytes value once after its framing, varints of 14 bits and more
come from tables, short FloatLists round through one struct call; the bytes stay TensorFlow's."""
import hashlib
import os
import struct

import numpy as np
import pytest

import rivulet as tf
from rivulet.formats import crc32c
from rivulet.formats.tfrecord import read_records
from rivulet.formats.wire import encode_varint

F = tf.train.Feature


def _framed(data):  # the TFRecord framing written out independently of the writer
    length = struct.pack("<Q", len(data))
    return (length + struct.pack("<I", crc32c.mask(crc32c.value(length))) + data
            + struct.pack("<I", crc32c.mask(crc32c.value(data))))


def test_records_are_gathered_until_flush_and_close(tmp_path):
    path = str(tmp_path / "a.tfrecord")
    recs = [bytes([i % 251]) * (i % 300) for i in range(2000)]  # many lengths (their headers are cached)
    w = tf.io.TFRecordWriter(path)
    for r in recs[:1000]:
        w.write(r)
    assert os.path.getsize(path) == 0  # ~150 KB gathered: nothing written yet, one write per megabyte
    w.flush()
    assert list(read_records(path)) == recs[:1000]
    for r in recs[1000:]:
        w.write(r)
    w.write(np.array(b"tensor", dtype=object))  # the general path goes through the same buffer, in order
    w.close()
    with open(path, "rb") as f:
        assert f.read() == b"".join(_framed(r) for r in recs + [b"tensor"])
    with pytest.raises(ValueError, match="closed"):
        w.write(b"x")


def test_a_megabyte_is_written_as_it_fills(tmp_path):
    path = str(tmp_path / "b.tfrecord")
    big = os.urandom(300_000)
    with tf.io.TFRecordWriter(path) as w:
        for _ in range(4):
            w.write(big)
        assert os.path.getsize(path) == 4 * (len(big) + 16)
        w.write(b"")
        w.write(b"")
    assert list(read_records(path)) == [big] * 4 + [b"", b""]


def test_empty_features_are_written_as_tensorflow_writes_them():
    # recorded from TensorFlow 2.21: features given (or read) but empty is still a field
    ex = tf.train.Example(features=tf.train.Features())
    assert ex.SerializeToString() == b"\n\x00"
    assert str(ex) == "features {\n}\n"
    assert tf.train.Example.FromString(b"\n\x00").SerializeToString() == b"\n\x00"
    assert tf.train.Example().SerializeToString() == b""
    assert str(tf.train.Example()) == ""


def test_long_bytes_values_framed_as_tensorflow_frames_them():
    # recorded from TensorFlow 2.21 (SerializeToString(deterministic=True): keys in this order): values of 200,
    # 20000 and 16000 bytes (two- and three-byte lengths), a 130-byte key, a second (empty) value in a list
    ex = tf.train.Example(features=tf.train.Features(feature={
        "a": F(bytes_list=tf.train.BytesList(value=[b"\x01" * 200])),
        "b" * 130: F(bytes_list=tf.train.BytesList(value=[b"\x02" * 20000])),
        "c": F(bytes_list=tf.train.BytesList(value=[b"\x03" * 16000, b""]))}))
    got = ex.SerializeToString()
    assert len(got) == 36385
    assert got[:16].hex() == "0a9d9c020ad4010a016112ce010acb01"
    assert got[212:230].hex() == "010101010101010ab19d010a820162626262"
    assert got[-16025:-16000].hex() == "02020202020202020a8e7d0a016312887d0a857d0a807d0303"
    assert hashlib.sha256(got).hexdigest() == "daaa932587732c33840172883e0fd72d3352c2fe20089d1895fde98e0822e1e0"
    assert tf.train.Example.FromString(got) == ex


@pytest.mark.parametrize("n, want", [
    (0, "00"), (127, "7f"), (128, "8001"), (16383, "ff7f"), (16384, "808001"), ((1 << 28) - 1, "ffffff7f"),
    (1 << 28, "8080808001"), ((1 << 39) + 5, "8580808080 10".replace(" ", "")), ((1 << 63) - 1, "ffffffffffffffff7f"),
    (-1, "ffffffffffffffffff01"), (-(1 << 63), "80808080808080808001"), (1 << 64, "00"),
    ((1 << 64) + 16384, "808001")])
def test_varints(n, want):
    assert encode_varint(n).hex() == want


def test_short_float_lists_round_as_numpy_does():
    vals = [0.1, 7, True, np.float64(2.5), 3.4028235e38, 3.40282356e38, 3.4028236e38, -1e39, 1e-46, float("inf")]
    with np.errstate(over="ignore"):
        want = [float(np.float32(v)) for v in vals]
    got = tf.train.FloatList(value=vals).value
    assert got == want and got[6] == np.inf and got[5] == float(np.finfo(np.float32).max)
    nan = tf.train.FloatList(value=[float("nan"), 1.0]).value
    assert nan[0] != nan[0] and nan[1] == 1.0
    with pytest.raises(TypeError):
        tf.train.FloatList(value=[1.0, "x"])


@pytest.mark.parametrize("n, size, digest", [
    (31, 456, "1c24aa36820ce6dcf795bcc63c6618dca84e77ccbd3f8d4277ff2f8f35edd12c"),  # 124 float bytes: one-byte length
    (32, 472, "772250dca501ff5bf62e68bc419ec656f3204be1cf85b413ea3324b18e7b2693")])  # 128: two-byte length
def test_float_and_int64_lists_inline(n, size, digest):
    # recorded from TensorFlow 2.21 (SerializeToString(deterministic=True), keys in this order)
    ex = tf.train.Example(features=tf.train.Features(feature={
        "f": F(float_list=tf.train.FloatList(value=[i / 3 for i in range(n)])),
        "i": F(int64_list=tf.train.Int64List(value=[-i * 1000003 ** (i % 3) for i in range(n)]))}))
    got = ex.SerializeToString()
    assert len(got) == size and hashlib.sha256(got).hexdigest() == digest
    ex.features.feature["i"].int64_list.value.append(True)  # a list changed through .value is written as it is
    assert tf.train.Example.FromString(ex.SerializeToString()).features.feature["i"].int64_list.value[-1] == 1


def test_framings_at_length_boundaries():
    # one feature per Example (so that map order cannot differ), payload lengths around the one-, two- and
    # three-byte varint boundaries of every framing level; digest recorded from TensorFlow 2.21
    h, n = hashlib.sha256(), 0
    for key in ["k", "key" * 50]:
        for m in [0, 1, 2, 100, 113, 114, 115, 127, 128, 129, 16250, 16383, 16384, 16500]:
            for kind in range(3):
                if kind == 0:
                    f = F(bytes_list=tf.train.BytesList(value=[bytes([m % 256]) * m]))
                elif kind == 1:
                    f = F(int64_list=tf.train.Int64List(
                        value=[(i * 7919) % (1 << 40) - (i % 5 == 0) for i in range(1, m % 300 + 1)]))
                else:
                    f = F(float_list=tf.train.FloatList(value=[i / 7 for i in range(m % 70)]))
                h.update(tf.train.Example(features=tf.train.Features(feature={key: f})).SerializeToString())
                n += 1
    assert n == 84 and h.hexdigest() == "56ab1d2ea8be035c09c337f915fd74ba2c2c4a251a5ab9bc19a870268bca0107"


def test_threads_writing_one_writer(tmp_path):
    import sys
    import threading
    path = str(tmp_path / "t.tfrecord")
    w = tf.io.TFRecordWriter(path)

    def produce(t):
        for i in range(3000):
            w.write(b"%d:%d:" % (t, i) + b"x" * (i % 700))

    threads = [threading.Thread(target=produce, args=(t,)) for t in range(4)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch often: inside write() and inside the megabyte writes
    try:
        for th in threads:
            th.start()
        for th in threads:
            th.join()
    finally:
        sys.setswitchinterval(interval)
    w.close()
    got = list(read_records(path))  # every CRC checked: no record split by another thread's
    assert len(got) == 12000
    for t in range(4):  # each thread's records, once each, in its order
        mine = [r for r in got if r.startswith(b"%d:" % t)]
        assert [int(r.split(b":")[1]) for r in mine] == list(range(3000))


def test_records_of_a_writer_never_closed_are_written_at_exit(tmp_path):
    import subprocess
    import sys
    path = str(tmp_path / "x.tfrecord")
    code = ("import rivulet as tf, builtins\n"
            f"w = tf.io.TFRecordWriter({path!r})\n"
            "for i in range(100): w.write(b'r%d' % i)\n"
            "builtins.keep = w\n")  # still referenced when the interpreter exits
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "src")
    subprocess.run([sys.executable, "-c", code], check=True, env=dict(os.environ, PYTHONPATH=src))
    assert list(read_records(path)) == [b"r%d" % i for i in range(100)]


BOUNDS = [0, 1, 127, 128, 16383, 16384, (1 << 28) - 1, 1 << 28, (1 << 35) - 1, 1 << 35, (1 << 42) - 1, 1 << 42,
          (1 << 63) - 1, -1, -16384, -(1 << 42), -(1 << 63)]


def test_lists_keep_their_payload_from_construction():
    """Int64List and FloatList made from a list keep the packed payload made while their values were checked
    (Int64List: varints of up to 42 bits from the 14-bit tables); it is what serialising writes, equal to the
    varints and floats written one by one (both checked against TensorFlow above)."""
    il = tf.train.Int64List(value=BOUNDS)
    assert il._payload == b"".join(encode_varint(v) for v in BOUNDS)
    assert tf.train.Int64List(value=[300])._payload == encode_varint(300)
    fl = tf.train.FloatList(value=[0.1, 2, -3.5])
    assert fl._payload == struct.pack("<3f", 0.1, 2, -3.5)
    assert fl.value == [float(np.float32(0.1)), 2.0, -3.5]  # read back from the payload
    ex = tf.train.Example(features=tf.train.Features(feature={"i": F(int64_list=il), "f": F(float_list=fl)}))
    back = tf.train.Example.FromString(ex.SerializeToString()).features.feature
    assert back["i"].int64_list.value == BOUNDS
    assert back["f"].float_list.value == fl.value
    with pytest.raises(ValueError, match="out of range"):
        tf.train.Int64List(value=[1, 1 << 63])
    with pytest.raises(TypeError):
        tf.train.Int64List(value=[1, 2.0])


def _fresh(ints, floats):
    return tf.train.Example(features=tf.train.Features(feature={
        "i": F(int64_list=tf.train.Int64List(value=list(ints))),
        "f": F(float_list=tf.train.FloatList(value=list(floats)))})).SerializeToString()


def test_a_payload_never_outlives_a_change():
    """`value` hands the list out to be changed, so the payload made at construction is dropped; setting
    `value`, ParseFromString, Clear, CopyFrom and MergeFrom leave no stale payload either."""
    ex = tf.train.Example(features=tf.train.Features(feature={
        "i": F(int64_list=tf.train.Int64List(value=[1, 2])), "f": F(float_list=tf.train.FloatList(value=[0.5]))}))
    feats = ex.features.feature
    ints = feats["i"].int64_list.value
    assert feats["i"].int64_list._payload is None
    floats = feats["f"].float_list.value
    ints.append(1 << 40)
    floats[0] = 2.0
    assert ex.SerializeToString() == _fresh([1, 2, 1 << 40], [2.0])
    ints.clear()
    assert ex.SerializeToString() == _fresh([], [2.0])
    feats["i"].int64_list.value = [7]
    feats["f"].float_list.value = [1.5, 3]
    assert ex.SerializeToString() == _fresh([7], [1.5, 3])
    lst = tf.train.Int64List(value=[5, 6])
    lst.ParseFromString(tf.train.Int64List(value=[9]).SerializeToString())
    assert lst.SerializeToString() == tf.train.Int64List(value=[9]).SerializeToString() and lst.value == [9]
    lst = tf.train.FloatList(value=[5.0])
    lst.Clear()
    assert lst.SerializeToString() == b"" and lst.value == []
    lst.CopyFrom(tf.train.FloatList(value=[1.0, 2.0]))
    lst.MergeFrom(tf.train.FloatList(value=[3.0]))
    assert lst.value == [1.0, 2.0, 3.0] and lst.SerializeToString() == tf.train.FloatList(value=[1, 2, 3]).SerializeToString()
