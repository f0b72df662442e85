"""tf.train.SequenceExample and tf.io.parse_single_sequence_example / parse_sequence_example, with the bytes and
values TensorFlow 2.21 gives (found missing by tools/roundtrip_formats.py)."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.errors import InvalidArgumentError

# TF 2.21: SequenceExample(context={"c": int64 [7, 8]}, feature_lists={"s": [[1, 2], [3, 4], [5, 6]],
# "b": bytes [[b"a\0"], [b"\xff", b""]], "v": int64 [[1], [], [2, 3]]}).SerializeToString()
TF_BYTES = (b"\n\r\n\x0b\n\x01c\x12\x06\x1a\x04\n\x02\x07\x08\x12Q\n\x1d\n\x01s\x12\x18\n\x06\x1a\x04\n\x02\x01\x02"
            b"\n\x06\x1a\x04\n\x02\x03\x04\n\x06\x1a\x04\n\x02\x05\x06\n\x16\n\x01b\x12\x11\n\x06\n\x04\n\x02a\x00"
            b"\n\x07\n\x05\n\x01\xff\n\x00\n\x18\n\x01v\x12\x13\n\x05\x1a\x03\n\x01\x01\n\x02\x1a\x00\n\x06\x1a\x04"
            b"\n\x02\x02\x03")
SEQ = {"s": tf.io.FixedLenSequenceFeature([2], tf.int64), "v": tf.io.VarLenFeature(tf.int64),
       "r": tf.io.RaggedFeature(tf.int64), "b": tf.io.RaggedFeature(tf.string),
       "m": tf.io.FixedLenSequenceFeature([], tf.float32, allow_missing=True)}


def _ints(f, *lists):
    return tf.train.FeatureList(feature=[tf.train.Feature(int64_list=tf.train.Int64List(value=v)) for v in lists])


def test_message_reads_tensorflows_bytes_and_writes_them_back():
    se = tf.train.SequenceExample.FromString(TF_BYTES)
    assert list(se.context.feature["c"].int64_list.value) == [7, 8]
    fl = se.feature_lists.feature_list
    assert [list(f.int64_list.value) for f in fl["s"].feature] == [[1, 2], [3, 4], [5, 6]]
    assert [list(f.bytes_list.value) for f in fl["b"].feature] == [[b"a\x00"], [b"\xff", b""]]
    assert se.SerializeToString() == TF_BYTES
    made = tf.train.SequenceExample(
        context=tf.train.Features(feature={"c": tf.train.Feature(int64_list=tf.train.Int64List(value=[7, 8]))}),
        feature_lists=tf.train.FeatureLists(feature_list={"s": _ints(None, [1, 2], [3, 4], [5, 6])}))
    assert tf.train.SequenceExample.FromString(made.SerializeToString()) == made


def test_parse_single_sequence_example_as_tensorflow():
    ctx, seq = tf.io.parse_single_sequence_example(
        TF_BYTES, context_features={"c": tf.io.FixedLenFeature([2], tf.int64), "cv": tf.io.VarLenFeature(tf.int64)},
        sequence_features=SEQ)
    assert ctx["c"].numpy().tolist() == [7, 8] and ctx["cv"].dense_shape.numpy().tolist() == [0]
    assert seq["s"].dtype == tf.int64 and seq["s"].numpy().tolist() == [[1, 2], [3, 4], [5, 6]]
    assert seq["v"].indices.numpy().tolist() == [[0, 0], [2, 0], [2, 1]]
    assert seq["v"].values.numpy().tolist() == [1, 2, 3] and seq["v"].dense_shape.numpy().tolist() == [3, 2]
    assert seq["b"].to_list() == [[b"a\x00"], [b"\xff", b""]]
    assert seq["r"].to_list() == [] and seq["m"].shape == (0,) and seq["m"].dtype == tf.float32


def test_parse_sequence_example_pads_and_gives_lengths_as_tensorflow():
    other = tf.train.SequenceExample(feature_lists=tf.train.FeatureLists(
        feature_list={"s": _ints(None, [1, 2]), "v": _ints(None, [9, 9, 9], [1])})).SerializeToString()
    c, s, lengths = tf.io.parse_sequence_example(
        [TF_BYTES, other], context_features={"cv": tf.io.VarLenFeature(tf.int64)},
        sequence_features={k: SEQ[k] for k in ("s", "v", "r")})
    assert c["cv"].dense_shape.numpy().tolist() == [2, 0]
    assert s["s"].numpy().tolist() == [[[1, 2], [3, 4], [5, 6]], [[1, 2], [0, 0], [0, 0]]]
    assert s["v"].indices.numpy().tolist() == [[0, 0, 0], [0, 2, 0], [0, 2, 1], [1, 0, 0], [1, 0, 1], [1, 0, 2],
                                               [1, 1, 0]]
    assert s["v"].values.numpy().tolist() == [1, 2, 3, 9, 9, 9, 1]
    assert s["v"].dense_shape.numpy().tolist() == [2, 3, 3]
    assert s["r"].to_list() == [[], []]
    assert list(lengths) == ["s"] and lengths["s"].numpy().tolist() == [3, 1]


def test_float_steps_keep_their_bits_and_work_in_a_dataset_map():
    bits = np.array([0x7FC0002B, 0x80000000, 0x00000001, 0xFF800000], np.uint32)
    vals = bits.view(np.float32)
    se = tf.train.SequenceExample(feature_lists=tf.train.FeatureLists(feature_list={"f": tf.train.FeatureList(
        feature=[tf.train.Feature(float_list=tf.train.FloatList(value=vals[:2])),
                 tf.train.Feature(float_list=tf.train.FloatList(value=vals[2:]))])})).SerializeToString()
    ds = tf.data.Dataset.from_tensors(se).map(
        lambda x: tf.io.parse_single_sequence_example(x, sequence_features={
            "f": tf.io.FixedLenSequenceFeature([2], tf.float32)})[1]["f"])
    got = next(iter(ds)).numpy()
    assert got.shape == (2, 2) and got.view(np.uint32).reshape(-1).tolist() == bits.tolist()


@pytest.mark.parametrize("features, message", [
    ({"s": tf.io.FixedLenSequenceFeature([3], tf.int64)},
     r"Name: <unknown>, Key: s, Index: 0.  Number of values != expected.  values size: 2 but output shape: \[3\]"),
    ({"zz": tf.io.FixedLenSequenceFeature([3], tf.int64)},
     "Name: <unknown>, Feature list 'zz' is required but could not be found."),
    ({"s": tf.io.FixedLenSequenceFeature([2], tf.float32)},
     "Name: <unknown>, Feature list: s, Index: 0.  Data types don't match. Expected type: float"),
])
def test_errors_as_tensorflow(features, message):
    with pytest.raises(InvalidArgumentError, match=message):
        tf.io.parse_single_sequence_example(TF_BYTES, sequence_features=features)


def test_bad_input_and_bad_configurations():
    with pytest.raises(InvalidArgumentError, match="Invalid protocol message input, example id: <unknown>"):
        tf.io.parse_single_sequence_example(b"\xff\xff", sequence_features={"s": tf.io.VarLenFeature(tf.int64)})
    with pytest.raises(ValueError, match="Unsupported FixedLenFeature"):
        tf.io.parse_single_sequence_example(TF_BYTES, sequence_features={"s": tf.io.FixedLenFeature([2], tf.int64)})


def _ex(**feats):
    return tf.train.Example(features=tf.train.Features(feature=feats)).SerializeToString()


def test_fixed_len_sequence_feature_in_parse_example_as_tensorflow():
    """FixedLenSequenceFeature(allow_missing=True) in parse_(single_)example: rows of its shape, a batch padded with
    its default (it was refused as an unsupported configuration). Values from TensorFlow 2.21."""
    F = tf.train.Feature
    a = _ex(x=F(int64_list=tf.train.Int64List(value=[1, 2, 3, 4])), s=F(bytes_list=tf.train.BytesList(value=[b"a"])))
    b = _ex(x=F(int64_list=tf.train.Int64List(value=[5, 6])))
    c = _ex()
    spec = {"x": tf.io.FixedLenSequenceFeature([2], tf.int64, allow_missing=True)}
    got = tf.io.parse_example([a, b, c], spec)["x"]
    assert got.shape == (3, 2, 2) and got.numpy().tolist() == [[[1, 2], [3, 4]], [[5, 6], [0, 0]], [[0, 0], [0, 0]]]
    assert tf.io.parse_single_example(a, spec)["x"].numpy().tolist() == [[1, 2], [3, 4]]
    assert tf.io.parse_single_example(c, spec)["x"].shape == (0, 2)
    spec = {"x": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True, default_value=-1)}
    assert tf.io.parse_example([a, b, c], spec)["x"].numpy().tolist() == [[1, 2, 3, 4], [5, 6, -1, -1],
                                                                          [-1, -1, -1, -1]]
    spec = {"s": tf.io.FixedLenSequenceFeature([], tf.string, allow_missing=True)}
    assert tf.io.parse_example([a, b, c], spec)["s"].numpy().tolist() == [[b"a"], [b""], [b""]]
    ds = tf.data.Dataset.from_tensor_slices([a, b, c]).batch(3).map(lambda r: tf.io.parse_example(r, {
        "x": tf.io.FixedLenSequenceFeature([2], tf.int64, allow_missing=True)})["x"])
    assert next(iter(ds)).numpy().tolist() == [[[1, 2], [3, 4]], [[5, 6], [0, 0]], [[0, 0], [0, 0]]]


@pytest.mark.parametrize("single, message", [
    (False, r"Name: <unknown>, Key: x, Index: 0.  Number of int64 values is not a multiple of stride length. Saw 4 "
            r"values but output shape is: \[\?,3\]"),
    (True, "Error while parsing feature with key x: number of elements should be divisible by 3, found 4 instead"),
])
def test_fixed_len_sequence_feature_errors_as_tensorflow(single, message):
    a = _ex(x=tf.train.Feature(int64_list=tf.train.Int64List(value=[1, 2, 3, 4])))
    spec = {"x": tf.io.FixedLenSequenceFeature([3], tf.int64, allow_missing=True)}
    with pytest.raises(InvalidArgumentError, match=message):
        tf.io.parse_single_example(a, spec) if single else tf.io.parse_example([a], spec)
    with pytest.raises(ValueError, match="FixedLenSequenceFeature requires allow_missing to be True"):
        tf.io.parse_example([a], {"x": tf.io.FixedLenSequenceFeature([2], tf.int64)})
