"""RaggedTensors in tf.data, as TensorFlow's RaggedTensor guide uses them: element specs, printed elements
and batches recorded from TensorFlow 2.21."""
import rivulet as tf


def _features():
    return {'colors': tf.ragged.constant([[b'red', b'blue'], [b'orange'], [b'black', b'yellow'], [b'green']]),
            'lengths': tf.ragged.constant([[7], [], [1, 3], [3, 5, 2]], dtype=tf.int64)}


def _lines(dataset):
    out = []
    for i, element in enumerate(dataset):
        out.append("Element {}:".format(i))
        for name, value in element.items():
            out.append('{:>14} = {}'.format(name, value))
    return out


ROWS = ["Element 0:", "        colors = [b'red' b'blue']", "       lengths = [7]",
        "Element 1:", "        colors = [b'orange']", "       lengths = []",
        "Element 2:", "        colors = [b'black' b'yellow']", "       lengths = [1 3]",
        "Element 3:", "        colors = [b'green']", "       lengths = [3 5 2]"]


def test_from_tensor_slices_batch_and_unbatch_of_ragged():
    ds = tf.data.Dataset.from_tensor_slices(_features())
    assert repr(ds.element_spec['colors']) == "RaggedTensorSpec(TensorShape([None]), tf.string, 0, tf.int64)"
    assert _lines(ds) == ROWS
    batched = ds.batch(2)
    assert repr(batched.element_spec['lengths']) == "RaggedTensorSpec(TensorShape([None, None]), tf.int64, 1, tf.int64)"
    assert _lines(batched) == [
        "Element 0:", "        colors = <tf.RaggedTensor [[b'red', b'blue'], [b'orange']]>",
        "       lengths = <tf.RaggedTensor [[7], []]>",
        "Element 1:", "        colors = <tf.RaggedTensor [[b'black', b'yellow'], [b'green']]>",
        "       lengths = <tf.RaggedTensor [[1, 3], [3, 5, 2]]>"]
    assert _lines(batched.unbatch()) == ROWS


def test_map_over_ragged_elements():
    def transform_lengths(features):
        return {'mean_length': tf.math.reduce_mean(features['lengths']),
                'length_ranges': tf.ragged.range(features['lengths'])}
    out = list(tf.data.Dataset.from_tensor_slices(_features()).map(transform_lengths))
    assert [int(e['mean_length']) for e in out] == [7, 0, 2, 3]
    assert [str(e['length_ranges']) for e in out] == [
        "<tf.RaggedTensor [[0, 1, 2, 3, 4, 5, 6]]>", "<tf.RaggedTensor []>", "<tf.RaggedTensor [[0], [0, 1, 2]]>",
        "<tf.RaggedTensor [[0, 1, 2], [0, 1, 2, 3, 4], [0, 1]]>"]


def test_ragged_batch_and_dense_to_ragged_batch():
    ds = tf.data.Dataset.from_tensor_slices([1, 5, 3, 2, 8]).map(tf.range)
    got = [str(e) for e in ds.apply(tf.data.experimental.dense_to_ragged_batch(2))]
    assert got == ["<tf.RaggedTensor [[0], [0, 1, 2, 3, 4]]>", "<tf.RaggedTensor [[0, 1, 2], [0, 1]]>",
                   "<tf.RaggedTensor [[0, 1, 2, 3, 4, 5, 6, 7]]>"]
    assert repr(ds.ragged_batch(2, drop_remainder=True).element_spec) == \
        "RaggedTensorSpec(TensorShape([2, None]), tf.int32, 1, tf.int64)"
    fixed = tf.data.Dataset.from_tensor_slices([[1, 2], [3, 4], [5, 6]]).ragged_batch(2)
    assert repr(fixed.element_spec) == "TensorSpec(shape=(None, 2), dtype=tf.int32, name=None)"
    inner = tf.data.Dataset.from_tensor_slices([1, 2]).map(lambda x: tf.zeros([x, 2])).ragged_batch(2)
    assert repr(inner.element_spec) == "RaggedTensorSpec(TensorShape([None, None, 2]), tf.float32, 1, tf.int64)"
    square = tf.data.Dataset.from_tensor_slices([1, 2]).map(lambda x: tf.zeros([x, x])).ragged_batch(2)
    assert repr(square.element_spec) == "RaggedTensorSpec(TensorShape([None, None, None]), tf.float32, 2, tf.int64)"
    assert next(iter(square)).to_list() == [[[0.0]], [[0.0, 0.0], [0.0, 0.0]]]
    assert [t.numpy().tolist() for t in ds.ragged_batch(2).unbatch()] == [[0], [0, 1, 2, 3, 4], [0, 1, 2], [0, 1],
                                                                          list(range(8))]


def _example(colors, lengths):
    return tf.train.Example(features=tf.train.Features(feature={
        "colors": tf.train.Feature(bytes_list=tf.train.BytesList(value=colors)),
        "lengths": tf.train.Feature(int64_list=tf.train.Int64List(value=lengths))})).SerializeToString()


def test_parse_example_with_ragged_features_in_a_dataset_map():
    spec = {'colors': tf.io.RaggedFeature(tf.string), 'lengths': tf.io.RaggedFeature(tf.int64)}
    records = [_example([b"red", b"blue"], [7]), _example([b"orange"], []), _example([b"black", b"yellow"], [1, 3]),
               _example([b"green"], [3, 5, 2])]
    ds = tf.data.Dataset.from_tensor_slices(records).batch(2).map(lambda s: tf.io.parse_example(s, spec))
    rows = [(e['colors'].to_list(), e['lengths'].to_list()) for e in ds]
    assert rows == [([[b'red', b'blue'], [b'orange']], [[7], []]),
                    ([[b'black', b'yellow'], [b'green']], [[1, 3], [3, 5, 2]])]
