"""tf.strings.unicode_encode, unicode_transcode, unicode_decode_with_offsets, unicode_split_with_offsets,
unicode_decode beyond UTF-8, unsorted_segment_join: outputs and errors recorded from TensorFlow 2.21."""
import pytest

import rivulet as tf
from rivulet import errors


@pytest.mark.parametrize("args, kwargs, want", [
    (([104, 233, 0x1F600], "UTF-8"), {}, b"h\xc3\xa9\xf0\x9f\x98\x80"),
    (([104, 0x1F600], "UTF-16-BE"), {}, b"\x00h\xd8=\xde\x00"),
    (([104], "UTF-32-BE"), {}, b"\x00\x00\x00h"),
    (([104, 0x110000, 0xD800, -1], "UTF-8"), {}, b"h\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"),
    (([104, 0x110000, 0xD800], "UTF-8"), {"errors": "ignore"}, b"h"),
    (([104, 0x110000], "UTF-8"), {"replacement_char": 63}, b"h?"),
])
def test_unicode_encode_vector(args, kwargs, want):
    y = tf.strings.unicode_encode(*args, **kwargs)
    assert y.shape == () and y.numpy() == want


def test_unicode_encode_shapes_and_errors():
    assert tf.strings.unicode_encode([[104, 105], [72, 73]], "UTF-8").numpy().tolist() == [b"hi", b"HI"]
    assert tf.strings.unicode_encode(tf.ragged.constant([[104, 105, 33], [20320]]), "UTF-8").numpy().tolist() == \
        [b"hi!", b"\xe4\xbd\xa0"]
    assert tf.strings.unicode_encode([[[104]]], "UTF-8").numpy().tolist() == [[b"h"]]
    assert tf.strings.unicode_encode(tf.zeros([2, 0], tf.int32), "UTF-8").numpy().tolist() == [b"", b""]
    with pytest.raises(errors.InvalidArgumentError, match="Code point is out of range for Unicode, or is a surrogate."):
        tf.strings.unicode_encode([104, 0x110000], "UTF-8", errors="strict")
    with pytest.raises(ValueError, match="input_tensor's rank must be at least 1."):
        tf.strings.unicode_encode(104, "UTF-8")
    with pytest.raises(errors.InvalidArgumentError, match="Value for attr 'output_encoding' of \"latin1\""):
        tf.strings.unicode_encode([104], "latin1")


def test_unicode_transcode():
    y = tf.strings.unicode_transcode(["héllo", "abc"], "UTF-8", "UTF-16-BE")
    assert y.numpy().tolist() == [b"\x00h\x00\xe9\x00l\x00l\x00o", b"\x00a\x00b\x00c"]
    assert tf.strings.unicode_transcode(tf.constant([b"\x00h\x00\xe9"]), "UTF-16-BE", "UTF-8").numpy().tolist() == \
        [b"h\xc3\xa9"]
    assert tf.strings.unicode_transcode([b"a\xffb"], "UTF-8", "UTF-8").numpy().tolist() == [b"a\xef\xbf\xbdb"]
    assert tf.strings.unicode_transcode([b"a\xffb"], "UTF-8", "UTF-8", errors="ignore").numpy().tolist() == [b"ab"]
    assert tf.strings.unicode_transcode([b"a\x01b"], "UTF-8", "UTF-8",
                                        replace_control_characters=True).numpy().tolist() == [b"a\xef\xbf\xbdb"]
    assert tf.strings.unicode_transcode([b"a\xe9"], "ISO-8859-1", "UTF-8").numpy().tolist() == [b"a\xc3\xa9"]
    with pytest.raises(errors.InvalidArgumentError, match="Invalid formatting on input string"):
        tf.strings.unicode_transcode([b"a\xffb"], "UTF-8", "UTF-8", errors="strict")
    with pytest.raises(errors.InvalidArgumentError, match="UTF-16-LE"):
        tf.strings.unicode_transcode([["a"], ["b"]], "UTF-8", "UTF-16-LE")


def test_decode_and_split_with_offsets():
    cps, offs = tf.strings.unicode_decode_with_offsets(["héllo", "😀a"], "UTF-8")
    assert cps.to_list() == [[104, 233, 108, 108, 111], [128512, 97]] and cps.dtype == tf.int32
    assert offs.to_list() == [[0, 1, 3, 4, 5], [0, 4]] and offs.dtype == tf.int64
    cps, offs = tf.strings.unicode_decode_with_offsets("hé", "UTF-8")
    assert cps.numpy().tolist() == [104, 233] and offs.numpy().tolist() == [0, 1]
    cps, offs = tf.strings.unicode_decode_with_offsets([b"a\xffb"], "UTF-8")
    assert cps.to_list() == [[97, 65533, 98]] and offs.to_list() == [[0, 1, 2]]
    cps, offs = tf.strings.unicode_decode_with_offsets([b"a\xffb"], "UTF-8", errors="ignore")
    assert cps.to_list() == [[97, 98]] and offs.to_list() == [[0, 2]]
    chars, offs = tf.strings.unicode_split_with_offsets(["héllo", "😀a"], "UTF-8")
    assert chars.to_list() == [[b"h", b"\xc3\xa9", b"l", b"l", b"o"], [b"\xf0\x9f\x98\x80", b"a"]]
    assert offs.to_list() == [[0, 1, 3, 4, 5], [0, 4]]
    chars, offs = tf.strings.unicode_split_with_offsets([b"\x00h\x00\xe9"], "UTF-16-BE")
    assert chars.to_list() == [[b"\x00h", b"\x00\xe9"]] and offs.to_list() == [[0, 2]]


def test_unicode_decode_other_encodings_and_control_characters():
    assert tf.strings.unicode_decode([b"\x00h\x00\xe9"], "UTF-16-BE").to_list() == [[104, 233]]
    assert tf.strings.unicode_decode([b"a\x01b"], "UTF-8", replace_control_characters=True).to_list() == \
        [[97, 65533, 98]]


def test_unsorted_segment_join():
    y = tf.strings.unsorted_segment_join(["a", "b", "c", "d"], [1, 0, 1, 3], 4, separator=":")
    assert y.numpy().tolist() == [b"b", b"a:c", b"", b"d"]
    y = tf.strings.unsorted_segment_join([["a", "b"], ["c", "d"]], [1, 1], 2)
    assert y.numpy().tolist() == [[b"", b""], [b"ac", b"bd"]]
    for ids in ([-1, 0], [2, 0]):
        with pytest.raises(errors.InvalidArgumentError,
                           match="segment_ids are not allowed to exceed num_segments or to have negative values."):
            tf.strings.unsorted_segment_join(["a", "b"], ids, 2)
    f = tf.function(lambda s, i: tf.strings.unsorted_segment_join(s, i, 2, separator="-"))
    assert f(tf.constant(["x", "y", "z"]), tf.constant([1, 1, 0])).numpy().tolist() == [b"z", b"x-y"]
