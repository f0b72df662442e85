"""tf.io.RaggedFeature in parse_example / parse_single_example, and tf.train.Example filled by protobuf's
text_format (through DESCRIPTOR), as TensorFlow's RaggedTensor guide does: values recorded from TensorFlow 2.21."""
import pytest

import rivulet as tf

_TEXTS = [
    'features { feature {key: "colors" value {bytes_list {value: ["red", "blue"]} } } '
    'feature {key: "lengths" value {int64_list {value: [7]} } } }',
    'features { feature {key: "colors" value {bytes_list {value: ["orange"]} } } '
    'feature {key: "lengths" value {int64_list {value: []} } } }',
    'features { feature {key: "colors" value {bytes_list {value: ["black", "yellow"]} } } '
    'feature {key: "lengths" value {int64_list {value: [1, 3]} } } }',
    'features { feature {key: "colors" value {bytes_list {value: ["green"]} } } '
    'feature {key: "lengths" value {int64_list {value: [3, 5, 2]} } } }']


def _example(colors, lengths):
    return tf.train.Example(features=tf.train.Features(feature={
        "colors": tf.train.Feature(bytes_list=tf.train.BytesList(value=colors)),
        "lengths": tf.train.Feature(int64_list=tf.train.Int64List(value=lengths))})).SerializeToString()


def _batch():
    return [_example([b"red", b"blue"], [7]), _example([b"orange"], []), _example([b"black", b"yellow"], [1, 3]),
            _example([b"green"], [3, 5, 2])]


SPEC = {'colors': tf.io.RaggedFeature(tf.string), 'lengths': tf.io.RaggedFeature(tf.int64)}


def test_parse_example_gives_ragged_tensors():
    out = tf.io.parse_example(_batch(), SPEC)
    assert str(out['colors']) == \
        "<tf.RaggedTensor [[b'red', b'blue'], [b'orange'], [b'black', b'yellow'], [b'green']]>"
    assert str(out['lengths']) == "<tf.RaggedTensor [[7], [], [1, 3], [3, 5, 2]]>"
    assert out['lengths'].dtype == tf.int64
    renamed = tf.io.parse_example(_batch(), {'c': tf.io.RaggedFeature(tf.string, value_key='colors')})
    assert renamed['c'].to_list() == [[b'red', b'blue'], [b'orange'], [b'black', b'yellow'], [b'green']]


def test_parse_single_example_gives_the_values():
    out = tf.io.parse_single_example(_batch()[2], SPEC)
    assert repr(out['lengths']) == "<tf.Tensor: shape=(2,), dtype=int64, numpy=array([1, 3])>"
    assert out['colors'].numpy().tolist() == [b'black', b'yellow']


def test_text_format_fills_an_example():
    text_format = pytest.importorskip("google.protobuf.text_format")
    built = [text_format.Merge(t, tf.train.Example()).SerializeToString() for t in _TEXTS]
    for b, want in zip(built, _batch()):
        assert tf.train.Example.FromString(b) == tf.train.Example.FromString(want)
    assert tf.train.Example.DESCRIPTOR.full_name == "tensorflow.Example"
    ex = text_format.Merge('features { feature {key: "f" value {float_list {value: [1.5, 2]} } } }',
                           tf.train.Example())
    # TensorFlow's bytes for this Example
    assert ex.SerializeToString() == b'\n\x13\n\x11\n\x01f\x12\x0c\x12\n\n\x08\x00\x00\xc0?\x00\x00\x00@'


def test_partitions_are_refused_clearly():
    with pytest.raises(NotImplementedError, match="partitions"):
        tf.io.RaggedFeature(tf.int64, partitions=[object()])
