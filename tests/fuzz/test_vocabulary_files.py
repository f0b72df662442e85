"""Vocabulary files read by the lookup layers (`StringLookup(vocabulary=path)`): lines as TensorFlow's text-file
initializer reads them, which tf_keras uses for a vocabulary path."""
import numpy as np


def test_vocabulary_file_lines_end_at_newline_only(tmp_path):
    """A token holding a lone carriage return was split in two (Python's universal newlines), shifting the index
    of every token after it; a Windows line end's \\r is dropped, as TensorFlow's line reader drops it. Vocabulary
    and lookups from TensorFlow 2.21's tf.keras on the same files (Keras 3.15 in the scratch venv)."""
    import rivulet as tf
    path = tmp_path / "vocab.txt"
    path.write_bytes(b"a\r\nb\nd\re\nf\n")
    layer = tf.keras.layers.StringLookup(vocabulary=str(path))
    assert layer.get_vocabulary() == ["[UNK]", "a", "b", "d\re", "f"]
    assert layer(tf.constant(["f", "e", "d\re"])).numpy().tolist() == [4, 0, 3]
    ints = tmp_path / "ints.txt"
    ints.write_bytes(b"7\r\n3\n")
    assert tf.keras.layers.IntegerLookup(vocabulary=str(ints)).get_vocabulary() == [-1, 7, 3]
    np.testing.assert_array_equal(tf.keras.layers.IntegerLookup(vocabulary=str(ints))(tf.constant([3, 7])), [2, 1])
