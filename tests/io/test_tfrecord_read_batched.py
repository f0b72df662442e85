"""TFRecord reading's batched checksums (formats/tfrecord.py, read_records): the buffer's whole records with
headers known good are cut at once and their data checksums compared together. What comes back is exactly
what the record-by-record path gives: the records before a damaged one, then its DataLossError at its offset."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.errors import DataLossError
from rivulet.formats import tfrecord


def _write(path, records):
    with tf.io.TFRecordWriter(str(path)) as w:
        for r in records:
            w.write(r)
    return bytearray(path.read_bytes())


def _read(path, batched, monkeypatch):
    with monkeypatch.context() as m:
        if not batched:
            m.setattr(tfrecord, "_AT_ONCE", 1 << 62)
        out = []
        try:
            for r in tfrecord.read_records(str(path)):
                out.append(r)
        except DataLossError as e:
            return out, str(e)
        return out, None


@pytest.mark.parametrize("where", ["data", "stored crc", "length crc", "length", "cut"])
def test_a_damaged_record_in_a_batch(tmp_path, monkeypatch, where):
    rng = np.random.default_rng(0)
    records = [rng.bytes(24) for _ in range(40)]
    raw = _write(tmp_path / "r.tfrecord", records)
    at = 17 * (16 + 24)  # record 17's header
    if where == "data":
        raw[at + 12 + 5] ^= 1
    elif where == "stored crc":
        raw[at + 12 + 24 + 2] ^= 0x80
    elif where == "length crc":
        raw[at + 9] ^= 1
    elif where == "length":
        raw[at] ^= 2
    else:
        raw = raw[:at + 20]
    (tmp_path / "r.tfrecord").write_bytes(bytes(raw))
    seen = []
    real = tfrecord.np.fromiter
    monkeypatch.setattr(tfrecord.np, "fromiter", lambda *a, **k: seen.append(1) or real(*a, **k))
    got, err = _read(tmp_path / "r.tfrecord", True, monkeypatch)
    monkeypatch.undo()
    assert seen  # the batched path ran
    assert got == records[:17] and err is not None and f"record at {at} " in err
    assert (got, err) == _read(tmp_path / "r.tfrecord", False, monkeypatch)


def test_records_of_many_lengths_across_buffers(tmp_path, monkeypatch):
    """Lengths that repeat and lengths that do not, records straddling the megabyte buffers: every record, in
    order, as the record-by-record path reads them."""
    rng = np.random.default_rng(1)
    records = [rng.bytes(int(n)) for n in rng.choice([0, 3, 8, 100, 4096, 70000], 200)]
    _write(tmp_path / "m.tfrecord", records)
    got = _read(tmp_path / "m.tfrecord", True, monkeypatch)
    assert got == (records, None) == _read(tmp_path / "m.tfrecord", False, monkeypatch)
