"""tf.strings.format (StringFormat): tensors summarized as TensorFlow 2.21's print_v2 summary; outputs recorded
from TensorFlow 2.21."""
import sys

import numpy as np
import pytest

import rivulet as tf


@pytest.mark.parametrize("make, want", [
    (lambda: tf.strings.format("hello {}!", tf.constant(3)), b"hello 3!"),
    (lambda: tf.strings.format("x={}, y={}", [tf.constant([[1, 2], [3, 4]]), tf.constant([1.5, 2.25])]),
     b"x=[[1 2]\n [3 4]], y=[1.5 2.25]"),
    (lambda: tf.strings.format("{}", tf.range(10)), b"[0 1 2 ... 7 8 9]"),
    (lambda: tf.strings.format("{}", tf.range(10), summarize=2), b"[0 1 ... 8 9]"),
    (lambda: tf.strings.format("{}", tf.range(10), summarize=-1), b"[0 1 2 3 4 5 6 7 8 9]"),
    (lambda: tf.strings.format("{}", tf.range(10), summarize=0), b"[ ...]"),
    (lambda: tf.strings.format("{}", tf.reshape(tf.range(64), [8, 8])),
     b"[[0 1 2 ... 5 6 7]\n [8 9 10 ... 13 14 15]\n [16 17 18 ... 21 22 23]\n ...\n [40 41 42 ... 45 46 47]\n"
     b" [48 49 50 ... 53 54 55]\n [56 57 58 ... 61 62 63]]"),
    (lambda: tf.strings.format("{}", tf.reshape(tf.range(8), [2, 2, 2])), b"[[[0 1]\n  [2 3]]\n\n [[4 5]\n  [6 7]]]"),
    (lambda: tf.strings.format("{} and {}", [tf.constant("abc"), tf.constant(["x", "y"])]), b'"abc" and ["x" "y"]'),
    (lambda: tf.strings.format("{}", tf.constant([0.1, 1e-8, 123456789.0, np.nan, -np.inf])),
     b"[0.1 1e-08 123456792 nan -inf]"),
    (lambda: tf.strings.format("{}", tf.constant([0.1, 2.0], tf.float64)), b"[0.1 2]"),
    (lambda: tf.strings.format("{}", tf.constant([True, False])), b"[1 0]"),
    (lambda: tf.strings.format("{}", tf.zeros([0])), b"[]"),
    (lambda: tf.strings.format("{}", tf.zeros([2, 0])), b"[\n ...]"),
    (lambda: tf.strings.format("a %s b", tf.constant(1), placeholder="%s"), b"a 1 b"),
    (lambda: tf.strings.format("no placeholders", []), b"no placeholders"),
    (lambda: tf.strings.format("{}", [5]), b"5"),
    (lambda: tf.strings.format("{} {}", [[1, 2], "s"]), b'[1 2] "s"'),
    (lambda: tf.strings.format("{}", tf.constant([1.5], tf.float16)), b"[1.5]"),
    (lambda: tf.strings.format("{}", tf.constant([1 + 2j])), b"[?]"),
    (lambda: tf.strings.format("{}", tf.constant(["a\nb", 'q"uote'])), b'["a\\nb" "q\\"uote"]'),
])
def test_format_matches_tensorflow(make, want):
    y = make()
    assert y.dtype == tf.string and y.shape == ()
    assert y.numpy() == want


def test_format_in_tf_function():
    f = tf.function(lambda x: tf.strings.format("v={}", x))
    assert f(tf.constant([1.0, 2.0])).numpy() == b"v=[1 2]"
    g = tf.function(lambda x: tf.strings.format("{}", x, summarize=1), input_signature=[tf.TensorSpec([None])])
    assert g(tf.constant([1.0, 2.0, 3.0])).numpy() == b"[1 ... 3]"


def test_format_errors():
    with pytest.raises(ValueError, match="The template expects 2 tensors, but the inputs only has 1."):
        tf.strings.format("{} {}", tf.constant(1))
    with pytest.raises(TypeError, match="has no len"):
        tf.strings.format("{}", 5)


def test_tf_print_summarizes_as_strings_format(capfd):
    # one summary for both ops, as TensorFlow's PrintV2 and StringFormat share theirs: summarize=0 prints
    # "[ ...]" (tf.print printed "[...]")
    x = tf.reshape(tf.range(27), [3, 3, 3])
    for value, summarize in ((tf.constant([1, 2, 3]), 0), (tf.zeros([2, 0]), 0), (x, 1), (x, -1)):
        tf.print(value, summarize=summarize, output_stream=sys.stdout)
        printed = capfd.readouterr().out
        assert printed == tf.strings.format("{}", value, summarize=summarize).numpy().decode() + "\n"
    tf.print(tf.constant([1, 2, 3]), summarize=0, output_stream=sys.stdout)
    assert capfd.readouterr().out == "[ ...]\n"  # TF 2.21
