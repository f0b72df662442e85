"""TFRecord files are read a megabyte at a time: records that straddle the reads, records larger than a read,
and a corrupt record after many good ones (they are yielded first, then DataLossError) in plain and
compressed files."""
import gzip
import os

import numpy as np
import pytest

import rivulet as tf
from rivulet.errors import DataLossError
from rivulet.formats.tfrecord import read_records


def _payloads():
    rng = np.random.default_rng(0)
    out = [rng.bytes(int(n)) for n in rng.integers(0, 3000, 1500)]
    out.insert(700, rng.bytes(3 * (1 << 20) + 5))  # larger than a read
    out.append(b"")
    return out


@pytest.mark.parametrize("compression", ["", "GZIP", "ZLIB"])
def test_round_trip(tmp_path, compression):
    path = str(tmp_path / "f.tfrecord")
    recs = _payloads()
    with tf.io.TFRecordWriter(path, tf.io.TFRecordOptions(compression_type=compression)) as w:
        for r in recs:
            w.write(r)
    assert list(read_records(path, compression)) == recs
    got = [r.numpy() for r in tf.data.TFRecordDataset(path, compression_type=compression)]
    assert got == recs


def test_a_corrupt_record_after_many(tmp_path):
    path = str(tmp_path / "f.tfrecord")
    recs = _payloads()
    with tf.io.TFRecordWriter(path) as w:
        for r in recs:
            w.write(r)
    raw = bytearray(open(path, "rb").read())
    offset = sum(16 + len(r) for r in recs[:1200])
    raw[offset + 12] ^= 1  # the first data byte of record 1200
    open(path, "wb").write(bytes(raw))
    got = []
    with pytest.raises(DataLossError, match=f"corrupted record at {offset} in .*: the data's checksum"):
        for r in read_records(path):
            got.append(r)
    assert got == recs[:1200]
    # the same bytes gzipped: a corrupt record, then a stream cut short, after the records before them
    gz = str(tmp_path / "f.gz")
    with open(gz, "wb") as f:
        f.write(gzip.compress(bytes(raw)))
    got = []
    with pytest.raises(DataLossError, match=f"corrupted record at {offset}"):
        for r in read_records(gz, "GZIP"):
            got.append(r)
    assert got == recs[:1200]
    cut = gzip.compress(bytes(raw[:offset - 100]))
    with open(gz, "wb") as f:
        f.write(cut[:-20])
    got = []
    with pytest.raises(DataLossError, match="truncated GZIP data"):
        for r in read_records(gz, "GZIP"):
            got.append(r)
    assert 1000 < len(got) < 1200 and got == recs[:len(got)]


def test_truncated_last_record(tmp_path):
    path = str(tmp_path / "f.tfrecord")
    with tf.io.TFRecordWriter(path) as w:
        for r in [b"a" * 10, b"b" * 2000000]:
            w.write(r)
    os.truncate(path, 26 + 12 + 1000)
    got = []
    with pytest.raises(DataLossError, match="truncated record at 26 in .*: declares 2000000 bytes, only 1000 follow"):
        for r in read_records(path):
            got.append(r)
    assert got == [b"a" * 10]
