"""The tensor bundle (.index + .data) against files TensorFlow 2.21 wrote (tests/checkpoint/data)."""
import os
import shutil
import struct
import time

import numpy as np
import pytest

from rivulet.formats import crc32c
from rivulet.checkpoint import BundleReader, BundleWriter, bundle, read_bundle
from rivulet.formats import sstable as table
from rivulet.errors import DataLossError, NotFoundError

DATA = os.path.join(os.path.dirname(__file__), "data")
NET = os.path.join(DATA, "net")
MIXED = os.path.join(DATA, "mixed")
NET_KEYS = ["step/.ATTRIBUTES/VARIABLE_VALUE", "net/l1/.ATTRIBUTES/VARIABLE_VALUE",
            "net/b/.ATTRIBUTES/VARIABLE_VALUE", "_CHECKPOINTABLE_OBJECT_GRAPH"]  # the order TF wrote them


def _mixed_values():
    with np.load(MIXED + ".values.npz", allow_pickle=False) as z:
        out = {}
        for k in z.files:
            v = z[k]
            out[k.replace("__", "/")] = v.astype(object) if v.dtype.kind == "S" else v
        return out


def test_crc32c_known_values():
    assert crc32c.value(b"123456789") == 0xE3069283
    assert crc32c.value(b"") == 0
    assert crc32c.value(bytes(32)) == 0x8A9136AA  # RFC 3720's test vector
    big = np.random.default_rng(1).integers(0, 256, 300_000, dtype=np.uint8).tobytes()
    assert crc32c.value(big) == crc32c._update_py(0xFFFFFFFF, big) ^ 0xFFFFFFFF  # chunked path == bytewise
    assert crc32c.extend(crc32c.value(big[:1000]), big[1000:]) == crc32c.value(big)
    assert crc32c.unmask(crc32c.mask(0x12345678)) == 0x12345678


def test_reads_tensorflow_checkpoint():
    r = BundleReader(NET)
    assert r.keys() == sorted(NET_KEYS)
    assert r.shape_map() == {"step/.ATTRIBUTES/VARIABLE_VALUE": [], "net/l1/.ATTRIBUTES/VARIABLE_VALUE": [4, 2],
                             "net/b/.ATTRIBUTES/VARIABLE_VALUE": [2], "_CHECKPOINTABLE_OBJECT_GRAPH": []}
    assert {k: v.name for k, v in r.dtype_map().items()} == {
        "step/.ATTRIBUTES/VARIABLE_VALUE": "int64", "net/l1/.ATTRIBUTES/VARIABLE_VALUE": "float32",
        "net/b/.ATTRIBUTES/VARIABLE_VALUE": "float32", "_CHECKPOINTABLE_OBJECT_GRAPH": "string"}
    with np.load(NET + ".values.npz", allow_pickle=False) as z:
        np.testing.assert_array_equal(r.get_tensor("net/l1/.ATTRIBUTES/VARIABLE_VALUE"), z["l1"])
        np.testing.assert_array_equal(r.get_tensor("net/b/.ATTRIBUTES/VARIABLE_VALUE"), z["b"])
    step = r.get_tensor("step/.ATTRIBUTES/VARIABLE_VALUE")
    assert step.dtype == np.int64 and step.shape == () and step == 42
    graph = r.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH")
    assert graph.shape == () and isinstance(graph.item(), bytes) and b"net/l1/.ATTRIBUTES" in graph.item()
    with pytest.raises(NotFoundError, match="Key nope not found in checkpoint"):
        r.get_tensor("nope")


def test_reads_every_dtype_and_restart_points():
    r = BundleReader(MIXED)
    want = _mixed_values()
    got = read_bundle(MIXED)
    assert sorted(got) == sorted(want)
    for k, v in want.items():
        assert got[k].shape == v.shape, k
        assert got[k].dtype == v.dtype, k
        np.testing.assert_array_equal(got[k], v)
    assert r.shape_map()["empty"] == [0, 3]


def _rewrite_matches(tmp_path, name, values, order):
    w = BundleWriter(tmp_path / name)
    for k in order:
        w.add(k, values[k])
    w.finish()
    for suffix in (".index", ".data-00000-of-00001"):
        assert (tmp_path / (name + suffix)).read_bytes() == open(os.path.join(DATA, name + suffix), "rb").read()


def test_writer_is_byte_identical_to_tensorflow(tmp_path):
    _rewrite_matches(tmp_path, "net", read_bundle(NET), NET_KEYS)
    # SaveV2 adds tensors in the order given: the 49-tensor file (restart points every 16 keys) too
    names = ["str2x2", "str_scalar", "bools", "half", "i8", "u16", "c64", "f64", "empty"] + \
        [f"layer/w{i:02d}" for i in range(40)]
    _rewrite_matches(tmp_path, "mixed", _mixed_values(), names)


def test_multi_block_index_round_trip(tmp_path, monkeypatch):
    monkeypatch.setattr(table, "_BLOCK_SIZE", 200)  # force many data blocks and index separators
    items = [(f"k{i:04d}/\xff{i}".encode(), bytes([i % 256]) * (i % 50)) for i in range(300)]
    raw = table.write_table(items)
    assert table.read_table(raw) == items
    assert table._shortest_separator(b"abcd", b"abzz") == b"abd"
    assert table._shortest_separator(b"abc", b"abcd") == b"abc"
    assert table._short_successor(b"\xff\xffa") == b"\xff\xffb"


def test_missing_files(tmp_path):
    with pytest.raises(NotFoundError, match="Failed to find any matching files"):
        BundleReader(tmp_path / "none")
    shutil.copy(NET + ".index", tmp_path / "net.index")
    r = BundleReader(tmp_path / "net")
    with pytest.raises(NotFoundError, match="Data file"):
        r.get_tensor("net/b/.ATTRIBUTES/VARIABLE_VALUE")


def _copy(tmp_path, name="net"):
    for suffix in (".index", ".data-00000-of-00001"):
        shutil.copy(os.path.join(DATA, name + suffix), tmp_path / (name + suffix))
    return tmp_path / name


def test_bad_data_checksum_and_truncation(tmp_path):
    prefix = _copy(tmp_path)
    data = bytearray((tmp_path / "net.data-00000-of-00001").read_bytes())
    data[10] ^= 1  # inside l1
    (tmp_path / "net.data-00000-of-00001").write_bytes(bytes(data))
    r = BundleReader(prefix)
    with pytest.raises(DataLossError, match="checksum does not match.*net/l1"):
        r.get_tensor("net/l1/.ATTRIBUTES/VARIABLE_VALUE")
    np.testing.assert_array_equal(r.get_tensor("net/b/.ATTRIBUTES/VARIABLE_VALUE"), [0, 0])
    (tmp_path / "net.data-00000-of-00001").write_bytes(bytes(data[:100]))
    r = BundleReader(prefix)
    with pytest.raises(DataLossError, match="runs past the end"):
        r.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH")


def _entry_table(entries):
    header = bundle.varint_field(1, 1) + bundle.bytes_field(3, bundle.varint_field(1, 1))
    return table.write_table([(b"", header)] + sorted(entries))


def test_hostile_entries(tmp_path):
    def entry(dtype=1, dims=(2,), offset=0, size=8, shard=0):
        shape = b"".join(bundle.bytes_field(2, bundle.varint_field(1, d)) for d in dims)
        return (bundle.varint_field(1, dtype) + bundle.bytes_field(2, shape) + bundle.varint_field(3, shard) +
                bundle.varint_field(4, offset) + bundle.varint_field(5, size))
    (tmp_path / "x.data-00000-of-00001").write_bytes(bytes(8))
    cases = {
        "huge shape": entry(dims=(1 << 30, 1 << 30, 1 << 30)),
        "size mismatch": entry(dims=(1 << 40,)),
        "negative dim": entry(dims=(-5,)),
        "shard": entry(shard=3),
    }
    for what, e in cases.items():
        (tmp_path / "x.index").write_bytes(_entry_table([(b"v", e)]))
        with pytest.raises(DataLossError):
            BundleReader(tmp_path / "x")
    (tmp_path / "x.index").write_bytes(_entry_table([(b"v", entry(offset=1 << 50))]))
    with pytest.raises(DataLossError, match="runs past the end"):
        BundleReader(tmp_path / "x").get_tensor("v")
    # a string tensor claiming a billion elements in 8 bytes
    (tmp_path / "x.index").write_bytes(_entry_table([(b"s", entry(dtype=7, dims=(10 ** 9,)))]))
    with pytest.raises(DataLossError, match="too short"):
        BundleReader(tmp_path / "x").get_tensor("s")


def test_index_corruption_is_data_loss(tmp_path):
    prefix = _copy(tmp_path)
    raw = (tmp_path / "net.index").read_bytes()
    for bad in (raw[:-1], raw[:20], b"", raw[:-8] + b"\0" * 8):
        (tmp_path / "net.index").write_bytes(bad)
        with pytest.raises(DataLossError):
            BundleReader(prefix)
    flipped = bytearray(raw)
    flipped[40] ^= 0x20
    (tmp_path / "net.index").write_bytes(bytes(flipped))
    with pytest.raises(DataLossError, match="checksum"):
        BundleReader(prefix)


def test_fuzz_index_and_data(tmp_path):
    """Random byte flips and truncations give DataLossError/NotFoundError or correct data, never anything
    else (bounded: one second)."""
    prefix = _copy(tmp_path, "mixed")
    index = (tmp_path / "mixed.index").read_bytes()
    data = (tmp_path / "mixed.data-00000-of-00001").read_bytes()
    rng = np.random.default_rng(7)
    want = _mixed_values()
    deadline = time.monotonic() + 1.0
    n = 0
    while time.monotonic() < deadline:
        n += 1
        idx, dat = bytearray(index), bytearray(data)
        target = idx if rng.random() < 0.6 else dat
        for _ in range(rng.integers(1, 4)):
            target[rng.integers(len(target))] = rng.integers(256)
        if rng.random() < 0.2:
            del target[rng.integers(len(target)):]
        (tmp_path / "mixed.index").write_bytes(bytes(idx))
        (tmp_path / "mixed.data-00000-of-00001").write_bytes(bytes(dat))
        try:
            got = read_bundle(prefix)
        except (DataLossError, NotFoundError):
            continue
        for k, v in got.items():  # whatever reads back without error must be what was written
            if k in want:
                np.testing.assert_array_equal(v, want[k])
    assert n > 10


def test_string_lengths_are_checked(tmp_path):
    w = BundleWriter(tmp_path / "s")
    w.add("s", np.array([b"ab", b"", b"xyz"], dtype=object))
    w.finish()
    np.testing.assert_array_equal(BundleReader(tmp_path / "s").get_tensor("s"), [b"ab", b"", b"xyz"])
    path = tmp_path / "s.data-00000-of-00001"
    raw = bytearray(path.read_bytes())
    raw[0] = 3  # first length 2 -> 3
    path.write_bytes(bytes(raw))
    with pytest.raises(DataLossError, match="string lengths"):
        BundleReader(tmp_path / "s").get_tensor("s")
    assert struct.unpack("<I", bytes(raw[3:7]))[0] != 0


def test_big_tensors_are_read_in_parts_by_threads(tmp_path, monkeypatch):
    """A tensor of at least two parts' bytes is read by as many threads (positional reads into its array); the
    values, the checksum check and a file cut short after the index was written are as for one read."""
    from rivulet.formats import bundle as fbundle
    if not hasattr(os, "preadv"):
        pytest.skip("no positional vector reads on this platform")
    monkeypatch.setattr(fbundle, "_PART", 4096)
    monkeypatch.setattr(fbundle.os, "cpu_count", lambda: 4)
    rng = np.random.default_rng(0)
    values = {"big": rng.random(10_000, dtype=np.float32), "odd": rng.random(3_001).astype(np.float64),
              "small": np.arange(5, dtype=np.int64)}
    prefix = str(tmp_path / "ck")
    w = BundleWriter(prefix)
    for k, v in values.items():
        w.add(k, v)
    w.finish()
    reads = []
    real = fbundle._read_in_parts
    monkeypatch.setattr(fbundle, "_read_in_parts", lambda *a: reads.append(a[3]) or real(*a))
    r = BundleReader(prefix)
    for k, v in values.items():
        got = r.get_tensor(k)
        assert got.dtype == v.dtype and np.array_equal(got, v)
        got[0] = 1  # writable, as one readinto made it
    assert sorted(reads) == [4, 4]  # big (40,000 bytes) and odd (24,008) in four parts each; small at once
    data_file = fbundle.data_filename(prefix, 0, 1)
    raw = bytearray(open(data_file, "rb").read())
    e = r._entries["big"]
    raw[e.offset + e.size - 1] ^= 1  # the last part's last byte
    open(data_file, "wb").write(bytes(raw))
    with pytest.raises(DataLossError, match="checksum does not match"):
        BundleReader(prefix).get_tensor("big")
    r = BundleReader(prefix)
    with open(data_file, "r+b") as f:  # cut after the reader checked the file's size: a short part
        f.truncate(e.offset + e.size - 100)
    monkeypatch.setattr(fbundle.os, "fstat", lambda fd: os.stat_result((0o100644,) + (0,) * 5 + (1 << 40,) + (0,) * 3))
    with pytest.raises(DataLossError, match="truncated"):
        r.get_tensor("big")
