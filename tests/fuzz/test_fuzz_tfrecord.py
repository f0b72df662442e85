"""Fuzzing of the TFRecord readers (plain, GZIP, ZLIB: read whole through tf.data.TFRecordDataset) and of
tf.train.Example parsing (tf.io.parse_single_example with a feature spec, and tf.train.Example.FromString).
A bad file may only raise what TensorFlow raises for it: DataLossError for a damaged record file,
InvalidArgumentError ("Could not parse example input", a key of the wrong type or size) for a bad Example."""
import gzip
import os
import struct
import zlib

import numpy as np
import pytest

from rivulet.errors import DataLossError, InvalidArgumentError
from rivulet.io.example_proto import DecodeError
from tests.fuzz.harness import FuzzTarget, fuzz_cases, mutate_bytes, run_fuzz

SEED = 20261125
_BASE = {}  # the valid inputs, built once per process


def _example():
    import rivulet as tf
    f = tf.train.Feature
    return tf.train.Example(features=tf.train.Features(feature={
        "ids": f(int64_list=tf.train.Int64List(value=[0, 1, -1, 300, 2 ** 63 - 1, -2 ** 63, 7])),
        "x": f(float_list=tf.train.FloatList(value=[0.5])),
        "xs": f(float_list=tf.train.FloatList(value=[1.0, -2.5, 1e30])),
        "name": f(bytes_list=tf.train.BytesList(value=[b"rivulet", b"", b"\xff\x00"])),
        "label": f(int64_list=tf.train.Int64List(value=[3])),
        # long enough (over 256 bytes) to be decoded by NumPy rather than one varint at a time
        "big": f(int64_list=tf.train.Int64List(value=[(-1) ** i * 7 ** (i % 23) for i in range(120)]))})
    ).SerializeToString()


def _records():
    """The framed records of a small file: empty, short, an Example, and one over a compression block."""
    from rivulet.formats.records import record
    if "records" not in _BASE:
        _BASE["records"] = [b"", b"a", _example(), bytes(range(256)) * 40, b"last record"]
    return b"".join(record(r) for r in _BASE["records"])


def _relength(rng, data):
    """Sets a random record header's length to a random or extreme value with a correct header CRC, as a
    crafted file would (the CRC is no defence against one)."""
    from rivulet.formats.records import masked_crc
    starts, pos = [], 0
    for r in _BASE["records"]:
        starts.append(pos)
        pos += 16 + len(r)
    at = starts[int(rng.integers(0, len(starts)))]
    lengths = [0, 1, 2 ** 31, 2 ** 40, 2 ** 63, 2 ** 64 - 1, int(rng.integers(0, 20000))]
    n = lengths[int(rng.integers(0, len(lengths)))]  # (rng.choice would make them floats)
    hdr = struct.pack("<Q", n)
    return data[:at] + hdr + struct.pack("<I", masked_crc(hdr)) + data[at + 12:]


def _build_records(compress):
    def build(rng, case_dir):
        data = _records()
        mode = int(rng.integers(0, 3))
        if mode == 0:  # mutate the records, then compress them soundly
            data = compress(mutate_bytes(rng, data))
        elif mode == 1:  # a crafted length, maybe with more damage
            data = _relength(rng, data)
            data = compress(mutate_bytes(rng, data) if rng.random() < 0.5 else data)
        else:  # damage the compressed stream itself
            data = mutate_bytes(rng, compress(data))
        path = os.path.join(case_dir, "f.tfrecord")
        with open(path, "wb") as f:
            f.write(data)
        return path
    return build


def _load_records(kind):
    def load(path):
        import rivulet as tf
        return sum(len(r) for r in tf.data.TFRecordDataset(path, compression_type=kind).as_numpy_iterator())
    return load


def _spec():
    import rivulet as tf
    return {"ids": tf.io.FixedLenFeature([7], tf.int64), "x": tf.io.FixedLenFeature([], tf.float32),
            "xs": tf.io.VarLenFeature(tf.float32), "name": tf.io.VarLenFeature(tf.string),
            "label": tf.io.VarLenFeature(tf.int64), "big": tf.io.VarLenFeature(tf.int64),
            "missing": tf.io.FixedLenFeature([2], tf.string, default_value=[b"a", b"b"])}


def _assemble(parts):
    """Example bytes from (key, Feature field number, list message bytes), every length correct."""
    from rivulet.formats.wire import bytes_field
    return bytes_field(1, b"".join(bytes_field(1, bytes_field(1, k) + bytes_field(2, bytes_field(f, body)))
                                   for k, f, body in parts))


def _build_example(rng, case_dir):
    if "example" not in _BASE:
        from rivulet.io.example_proto import Example
        ex = Example.FromString(_example())
        _BASE["example"] = _example()
        _BASE["parts"] = [(k.encode(), {"bytes_list": 1, "float_list": 2, "int64_list": 3}[v.WhichOneof("kind")],
                           getattr(v, v.WhichOneof("kind")).SerializeToString())
                          for k, v in ex.features.feature.items()]
        assert _assemble(_BASE["parts"]) == _BASE["example"]
    if rng.random() < 0.5:  # damage anywhere: mostly caught by an outer length
        data = mutate_bytes(rng, _BASE["example"])
    else:  # damage inside one feature's list (or its key or kind), the framing around it rebuilt
        parts = list(_BASE["parts"])
        i = int(rng.integers(0, len(parts)))
        key, field, body = parts[i]
        what = rng.random()
        if what < 0.7:
            body = mutate_bytes(rng, body)
        elif what < 0.85:
            key = mutate_bytes(rng, key)
        else:
            field = int(rng.integers(1, 6))
        parts[i] = (key, field, body)
        data = _assemble(parts)
    path = os.path.join(case_dir, "example.pb")
    with open(path, "wb") as f:
        f.write(data)
    return path


def _load_parse(path):
    import rivulet as tf
    with open(path, "rb") as f:
        data = f.read()
    out = tf.io.parse_single_example(data, _spec())
    return [v.numpy() if hasattr(v, "numpy") else (v.indices.numpy(), v.values.numpy(), v.dense_shape.numpy())
            for v in out.values()]


def _load_from_string(path):
    import rivulet as tf
    with open(path, "rb") as f:
        ex = tf.train.Example.FromString(f.read())
    return str(ex), ex.SerializeToString(), [
        (k, v.WhichOneof("kind"), list(getattr(v, v.WhichOneof("kind")).value) if v.WhichOneof("kind") else None)
        for k, v in ex.features.feature.items()]


TARGETS = [
    FuzzTarget(name="tfrecord-plain", build=_build_records(lambda b: b), load=_load_records(""),
               allowed=(DataLossError,)),
    FuzzTarget(name="tfrecord-gzip", build=_build_records(gzip.compress), load=_load_records("GZIP"),
               allowed=(DataLossError,)),
    FuzzTarget(name="tfrecord-zlib", build=_build_records(zlib.compress), load=_load_records("ZLIB"),
               allowed=(DataLossError,)),
    FuzzTarget(name="example-parse", build=_build_example, load=_load_parse, allowed=(InvalidArgumentError,)),
    FuzzTarget(name="example-fromstring", build=_build_example, load=_load_from_string, allowed=(DecodeError,)),
]


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.name)
def test_fuzz(target):
    report = run_fuzz(target, n=fuzz_cases(200), seed=SEED)
    print(report.summary())  # the outcome counts, shown with -s
    assert not report.failures, report.summary()


def test_bases_are_valid(tmp_path):
    import rivulet as tf
    path = str(tmp_path / "base")
    with open(path, "wb") as f:
        f.write(_records())
    assert _load_records("")(path) == sum(len(r) for r in _BASE["records"])
    with open(path, "wb") as f:
        f.write(_example())
    assert _load_parse(path)[0].tolist() == [0, 1, -1, 300, 2 ** 63 - 1, -2 ** 63, 7]
    assert tf.train.Example.FromString(_example()).SerializeToString() == _example()
