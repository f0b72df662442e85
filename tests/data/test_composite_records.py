"""SparseTensor and RaggedTensor elements read back from files (cache, snapshot, save/load): exactly what was
written, or DataLossError when a record, forged with sound CRCs, gives components that do not fit together.

Before, such components came back as a malformed value (a sparse index past its dense_shape, row splits that
decrease or end past the values), or as a ValueError from the SparseTensor constructor."""
import os

import numpy as np
import pytest

import rivulet as tf
from rivulet.formats.records import record
from rivulet.formats.tfrecord import read_records


def _sparse():
    st = tf.sparse.SparseTensor([[0, 1], [2, 0]], [1.5, 2.5], [3, 2])
    return tf.data.Dataset.from_tensor_slices(st)  # rows: indices [n, 1], values [n], dense_shape [1]


def _ragged(rank):
    if rank == 2:
        rt = tf.ragged.constant([[[1, 2], [3]], [[4]], [[5, 6, 7], [], [8]]])
    else:
        rt = tf.ragged.constant([[1, 2], [3], [4, 5, 6]])
    return tf.data.Dataset.from_tensor_slices(rt).batch(2)  # ragged_rank + 1 per batch


def _values(ds):
    out = []
    for x in ds:
        out.append(tf.sparse.to_dense(x).numpy().tolist() if isinstance(x, tf.SparseTensor) else x.to_list())
    return out


def _forge(tmp_path, make, element, component, value):
    """The cache of `make()` with one component of one element replaced by `value` (sound CRCs)."""
    prefix = str(tmp_path / "c")
    want = _values(make().cache(prefix))
    assert _values(make().cache(prefix)) == want == _values(make())  # read back as written
    path = prefix + ".rivulet-cache.tfrecord"
    recs = [bytes(r) for r in read_records(path)]
    per = (len(recs) - 1) // len(want)
    recs[1 + element * per + component] = tf.io.serialize_tensor(value).numpy()
    with open(path, "wb") as f:
        f.write(b"".join(record(r) for r in recs))
    return prefix


@pytest.mark.parametrize("component,value,problem", [
    (0, np.array([[5]], np.int64), "an index out of the dense_shape"),  # row 0's index 1 -> 5 (dense_shape [2])
    (0, np.array([[-1]], np.int64), "an index out of the dense_shape"),
    (1, np.array([1.5, 9.0], np.float32), "indices of shape"),  # two values for one index
    (2, np.array([-2], np.int64), "dense_shape"),
])
def test_forged_sparse_components_are_data_loss(tmp_path, component, value, problem):
    prefix = _forge(tmp_path, _sparse, 0, component, value)
    with pytest.raises(tf.errors.DataLossError, match=f"sparse components do not fit together: {problem}"):
        _values(_sparse().cache(prefix))


@pytest.mark.parametrize("rank,component,value", [
    (1, 1, np.array([0, 5, 3], np.int64)),  # splits that decrease
    (1, 1, np.array([0, 2, 9], np.int64)),  # ending past the 3 values
    (1, 1, np.array([1, 2, 3], np.int64)),  # not starting at 0
    (2, 1, np.array([0, 2, 4], np.int64)),  # outer splits ending past the 3 rows of the inner splits
    (2, 2, np.array([0, 2, 3, 9], np.int64)),
])
def test_forged_ragged_row_splits_are_data_loss(tmp_path, rank, component, value):
    prefix = _forge(tmp_path, lambda: _ragged(rank), 0, component, value)
    with pytest.raises(tf.errors.DataLossError, match="ragged components do not fit together: row splits"):
        _values(_ragged(rank).cache(prefix))


def test_forged_components_in_a_snapshot_or_a_saved_dataset_are_data_loss(tmp_path):
    _sparse().save(str(tmp_path / "d"))
    shard = str(tmp_path / "d" / "00000000.shard" / "00000000.snapshot")
    recs = [bytes(r) for r in read_records(shard)]
    recs[0] = tf.io.serialize_tensor(np.array([[7]], np.int64)).numpy()  # element 0's indices
    with open(shard, "wb") as f:
        f.write(b"".join(record(r) for r in recs))
    with pytest.raises(tf.errors.DataLossError, match="sparse components do not fit together"):
        list(tf.data.Dataset.load(str(tmp_path / "d")).as_numpy_iterator())
    assert os.path.exists(shard)
