"""tf.train.Example's lists convert a whole list at once (the usual Python values) and give TensorFlow's bytes
and values; anything else goes through the per-value checks, with their errors."""
import numpy as np
import pytest

import rivulet as tf

F = tf.train.Feature


def test_bytes_equal_tensorflows():
    ex = tf.train.Example(features=tf.train.Features(feature={
        "feats": F(float_list=tf.train.FloatList(value=[0.1, 2, -1e40, 1e-50])),
        "image": F(bytes_list=tf.train.BytesList(value=[b"\x00\xffab"])),
        "label": F(int64_list=tf.train.Int64List(value=[-1, 300, 2 ** 40]))}))
    # recorded from TensorFlow 2.21 (tf.train.Example(...).SerializeToString(), the same features)
    assert ex.SerializeToString() == (
        b'\nS\n\x1d\n\x05feats\x12\x14\x12\x12\n\x10\xcd\xcc\xcc=\x00\x00\x00@\x00\x00\x80\xff\x00\x00\x00\x00'
        b'\n\x11\n\x05image\x12\x08\n\x06\n\x04\x00\xffab\n\x1f\n\x05label\x12\x16\x1a\x14\n\x12\xff\xff\xff'
        b'\xff\xff\xff\xff\xff\xff\x01\xac\x02\x80\x80\x80\x80\x80 ')
    # TensorFlow reads the floats back as float32: [0.10000000149011612, 2.0, -inf, 0.0]
    assert ex.features.feature["feats"].float_list.value == [0.10000000149011612, 2.0, -np.inf, 0.0]


def test_whole_list_conversion_equals_per_value():
    rng = np.random.default_rng(0)
    floats = rng.normal(size=50).tolist() + [1, -3, 1e300, -1e300, 2 ** 70]
    with np.errstate(over="ignore"):
        assert tf.train.FloatList(value=floats).value == [tf.train.FloatList._convert(v) for v in floats]
    assert tf.train.FloatList(value=np.array(floats[:50])).value == [float(np.float32(v)) for v in floats[:50]]
    ints = rng.integers(-2 ** 63, 2 ** 63 - 1, 50, endpoint=True).tolist() + [np.int64(5)]  # (a bool: TypeError)
    assert tf.train.Int64List(value=ints).value == [int(v) for v in ints]


@pytest.mark.parametrize("cls,value,error", [
    (tf.train.Int64List, [1, 2 ** 63], ValueError), (tf.train.Int64List, [1, 2.5], TypeError),
    (tf.train.FloatList, [1.0, "x"], TypeError), (tf.train.BytesList, [b"a", 3], TypeError)])
def test_bad_values_still_raise(cls, value, error):
    with pytest.raises(error):
        cls(value=value)


def test_bytes_list_accepts_str():
    assert tf.train.BytesList(value=[b"a", "é"]).value == [b"a", "é".encode()]


def test_entries_equal_tensorflows():
    """One int (negative: ten bytes), two bytes values (one longer than 127), an empty list and no list at all.
    TensorFlow writes the map's entries in its own order (b, c, a, d, e here); each entry's bytes are the same."""
    ex = tf.train.Example(features=tf.train.Features(feature={
        "a": F(int64_list=tf.train.Int64List(value=[-5])),
        "b": F(bytes_list=tf.train.BytesList(value=[b"x" * 200, b""])),
        "c": F(float_list=tf.train.FloatList(value=[])),
        "d": F(int64_list=tf.train.Int64List(value=[7])),
        "e": F()}))
    # recorded from TensorFlow 2.21
    tf_bytes = (b"\n\x8a\x02\n\xd6\x01\n\x01b\x12\xd0\x01\n\xcd\x01\n\xc8\x01" + b"x" * 200 + b"\n\x00\n\x07\n\x01c"
                b"\x12\x02\x12\x00\n\x13\n\x01a\x12\x0e\x1a\x0c\n\n\xfb\xff\xff\xff\xff\xff\xff\xff\xff\x01\n\n\n"
                b"\x01d\x12\x05\x1a\x03\n\x01\x07\n\x05\n\x01e\x12\x00")
    ours = ex.SerializeToString()
    assert len(ours) == len(tf_bytes) and ours[:3] == tf_bytes[:3]
    for key in "abcde":
        one = tf.train.Example(features=tf.train.Features(feature={key: ex.features.feature[key]})).SerializeToString()
        i = 1
        while one[i] & 0x80:  # past the features field's key and length
            i += 1
        entry = one[i + 1:]
        assert entry in tf_bytes and entry in ours


def test_example_merge_from_merges_the_feature_maps():
    """Example.MergeFrom, and FromString of two serialized Examples one after the other (a message field sent
    twice: protobuf merges it), keep the features of both, a later entry of a key replacing the earlier
    (TensorFlow 2.21: a, b from each and c from the second; was: the second's features alone)."""
    T, F = tf.train, tf.train.Feature
    a = T.Example(features=T.Features(feature={"a": F(int64_list=T.Int64List(value=[1])),
                                               "c": F(int64_list=T.Int64List(value=[3]))}))
    b = T.Example(features=T.Features(feature={"b": F(int64_list=T.Int64List(value=[2])),
                                               "c": F(int64_list=T.Int64List(value=[4]))}))
    m = T.Example()
    m.CopyFrom(a)
    m.MergeFrom(b)
    want = [("a", [1]), ("b", [2]), ("c", [4])]
    assert sorted((k, list(v.int64_list.value)) for k, v in m.features.feature.items()) == want
    r = T.Example.FromString(a.SerializeToString() + b.SerializeToString())
    assert sorted((k, list(v.int64_list.value)) for k, v in r.features.feature.items()) == want
    assert list(a.features.feature) == ["a", "c"]  # the sources as they were
