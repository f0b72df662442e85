"""Dataset.save / Dataset.load (tf.data.experimental.save/load) in rivulet's data-only format: structures,
strings, SparseTensors and compression round-trip; the loaded dataset knows its cardinality and prints as
TensorFlow's _LoadDataset; hostile spec files raise DataLossError, a missing one NotFoundError."""
import collections
import json
import os

import numpy as np
import pytest

import rivulet as tf


def test_round_trip_of_structured_elements(tmp_path):
    ds = tf.data.Dataset.range(5).map(lambda x: {"a": x, "b": tf.strings.as_string(x)})
    path = str(tmp_path / "a")
    assert ds.save(path) is None
    loaded = tf.data.Dataset.load(path)
    assert repr(loaded).startswith("<_LoadDataset element_spec={")
    assert int(loaded.cardinality()) == 5  # TensorFlow: 5
    assert list(loaded.take(2).as_numpy_iterator()) == [{"a": 0, "b": b"0"}, {"a": 1, "b": b"1"}]
    assert loaded.element_spec == ds.element_spec


def test_namedtuples_sparse_gzip_and_experimental_names(tmp_path):
    Point = collections.namedtuple("Point", ["x", "y"])
    sp = tf.SparseTensor([[0, 1], [2, 0]], [1.5, 2.5], [3, 2])
    ds = tf.data.Dataset.from_tensor_slices((Point(np.arange(3.0), np.arange(3)), sp)).batch(2)
    path = str(tmp_path / "b")
    tf.data.experimental.save(ds, path, compression="GZIP")
    loaded = tf.data.experimental.load(path)
    assert repr(loaded.element_spec) == repr(ds.element_spec)
    got = list(loaded)
    assert type(got[0][0]).__name__ == "Point" and got[0][0].x.numpy().tolist() == [0.0, 1.0]
    assert got[1][1].indices.numpy().tolist() == [[0, 0]] and got[1][1].values.numpy().tolist() == [2.5]
    again = tf.data.Dataset.load(path, element_spec=ds.element_spec)
    assert len(list(again)) == 2
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not match"):
        tf.data.Dataset.load(path, element_spec=tf.TensorSpec([], tf.int64))


def test_missing_and_hostile_spec_files(tmp_path):
    with pytest.raises(tf.errors.NotFoundError, match="element_spec file not found"):
        tf.data.Dataset.load(str(tmp_path / "none"))
    path = str(tmp_path / "c")
    tf.data.Dataset.range(3).save(path)
    spec_file = os.path.join(path, "dataset_spec.json")
    good = json.load(open(spec_file))
    bad = [b"\xff\xfe", b"[]", json.dumps(dict(good, format="x")).encode(),
           json.dumps(dict(good, cardinality=-1)).encode(),
           json.dumps(dict(good, element_spec={"t": "tensor", "shape": [], "dtype": "nope"})).encode(),
           json.dumps(dict(good, element_spec={"t": "namedtuple", "name": "os.system", "fields": [], "items": []})
                      ).encode(),
           json.dumps(dict(good, element_spec={"t": "tensor", "shape": [-5], "dtype": "int64"})).encode(),
           json.dumps(dict(good, element_spec={"t": "namedtuple", "name": "P", "fields": ["class", "a"],
                                               "items": [good["element_spec"]] * 2})).encode(),
           json.dumps(dict(good, cardinality=10)).encode()]
    for raw in bad:
        with open(spec_file, "wb") as f:
            f.write(raw)
        with pytest.raises(tf.errors.DataLossError):
            list(tf.data.Dataset.load(path))
