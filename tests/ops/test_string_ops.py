"""tf.strings against Python references and TensorFlow's outputs and errors."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.errors import InvalidArgumentError
from rivulet.graph.graph import Graph


def _l(t):
    return t.numpy().tolist()


def test_join():
    assert tf.strings.join(["a", "b"], separator="-").numpy() == b"a-b"
    j = tf.strings.join([["a", "c"], "b"])
    assert j.dtype == tf.string and _l(j) == [b"ab", b"cb"]
    assert _l(tf.strings.join([["a", "c"], ["x", "y"], "!"], separator=" ")) == [b"a x !", b"c y !"]
    with pytest.raises(InvalidArgumentError, match=r"Input shapes do not match: \[2\] vs. \[1\]"):
        tf.strings.join([["a", "c"], ["b"]])
    assert _l(tf.constant(["a"]) + "b") == [b"ab"]
    # joining nothing is TensorFlow's scalar b"" (eagerly and in a graph)
    assert tf.strings.join([]).numpy() == b"" and tf.function(lambda: tf.strings.join([]))().shape == []


def test_length_upper_lower():
    assert _l(tf.strings.length(["héllo", ""])) == [6, 0]
    n = tf.strings.length("héllo", unit="UTF8_CHAR")
    assert n.dtype == tf.int32 and n.numpy() == 5
    with pytest.raises(InvalidArgumentError, match='Value for attr \'unit\' of "FOO"'):
        tf.strings.length("x", unit="FOO")
    with pytest.raises(TypeError, match="Cannot convert 1 to EagerTensor of dtype string"):
        tf.strings.length(1)
    assert _l(tf.strings.upper(["héllo"])) == ["HéLLO".encode()]  # ASCII only without an encoding
    assert _l(tf.strings.upper(["héllo"], encoding="utf-8")) == ["HÉLLO".encode()]
    assert tf.strings.lower("ABC").numpy() == b"abc"


def test_substr():
    assert tf.strings.substr("hello", 1, 3).numpy() == b"ell"
    assert _l(tf.strings.substr(["hello", "ab"], 1, 3)) == [b"ell", b"b"]
    assert tf.strings.substr("hello", -3, 2).numpy() == b"ll"
    assert tf.strings.substr("héllo", 1, 2, unit="UTF8_CHAR").numpy() == "él".encode()
    assert _l(tf.strings.substr(["hello", "world"], [1, 2], [2, 3])) == [b"el", b"rld"]
    with pytest.raises(InvalidArgumentError, match="pos 7 out of range for string b'hello' at index 0"):
        tf.strings.substr("hello", 7, 2)


def test_to_number():
    f = tf.strings.to_number([" 15", "0x10", "1e3", "inf", "-0", "1.5"])
    assert f.dtype == tf.float32
    np.testing.assert_array_equal(f.numpy(), np.array([15, 16, 1000, np.inf, -0.0, 1.5], np.float32))
    assert np.isnan(tf.strings.to_number("nan").numpy())
    i = tf.strings.to_number(["15", "-2"], out_type=tf.int32)
    assert i.dtype == tf.int32 and _l(i) == [15, -2]
    assert tf.strings.to_number(["15"], out_type=tf.int64).dtype == tf.int64
    assert tf.strings.to_number(["2.5"], out_type=tf.float64).numpy()[0] == 2.5
    for bad, t in (("abc", tf.float32), ("1.5", tf.int32), ("99999999999", tf.int32), ("1_0", tf.float32)):
        with pytest.raises(InvalidArgumentError,
                           match=f"StringToNumberOp could not correctly convert string: {bad} \\[Op:StringToNumber]"):
            tf.strings.to_number(bad, out_type=t)
    with pytest.raises(InvalidArgumentError, match="Value for attr 'out_type' of bool"):
        tf.strings.to_number("1", out_type=tf.bool)


def test_as_string():
    assert _l(tf.strings.as_string([1.5, 2.])) == [b"1.500000", b"2.000000"]
    assert _l(tf.strings.as_string([1, 2])) == [b"1", b"2"]
    assert _l(tf.strings.as_string([True, False])) == [b"true", b"false"]
    assert _l(tf.strings.as_string([1.5], precision=3, width=8, fill="0")) == [b"0001.500"]
    assert _l(tf.strings.as_string([1.5e20, 1e-5, 123456789.])) == [
        b"150000003006131601408.000000", b"0.000010", b"123456792.000000"]  # float32 values, printed exactly
    assert _l(tf.strings.as_string(tf.constant([1.5e20], tf.float64))) == [b"150000000000000000000.000000"]
    assert _l(tf.strings.as_string([1.5], scientific=True)) == [b"1.500000e+00"]
    assert _l(tf.strings.as_string([1.5], shortest=True)) == [b"1.5"]
    assert _l(tf.strings.as_string([10], width=5)) == [b"   10"]
    assert _l(tf.strings.as_string([1. + 2j])) == [b"(1.000000,2.000000)"]
    assert _l(tf.strings.as_string(["a"])) == [b"a"]


def test_reduce_join():
    x = [["a", "b"], ["c", "d"]]
    assert tf.strings.reduce_join(["a", "b", "c"]).numpy() == b"abc"
    assert tf.strings.reduce_join(x).numpy() == b"abcd"
    assert _l(tf.strings.reduce_join(x, axis=1, separator=".")) == [b"a.b", b"c.d"]
    k = tf.strings.reduce_join(x, axis=0, keepdims=True)
    assert k.shape == (1, 2) and _l(k) == [[b"ac", b"bd"]]
    assert _l(tf.strings.reduce_join(x, axis=-1)) == [b"ab", b"cd"]


def test_regex_full_match_and_split():
    m = tf.strings.regex_full_match(["abc", "xbc"], "a.*")
    assert m.dtype == tf.bool and _l(m) == [True, False]
    assert _l(tf.strings.split("a b  c")) == [b"a", b"b", b"c"]
    assert _l(tf.strings.split("a,b,,c", sep=",")) == [b"a", b"b", b"", b"c"]
    assert tf.strings.split(["a b", "c"]).to_list() == [[b"a", b"b"], [b"c"]]  # a vector: a RaggedTensor


def test_graph_shapes():
    g = Graph()
    with g.as_default():
        s = g.placeholder(tf.string, [None, 3])
        assert tf.strings.length(s).shape.as_list() == [None, 3] and tf.strings.length(s).dtype == tf.int32
        assert tf.strings.join([s, "x"]).shape.as_list() == [None, 3]
        assert tf.strings.reduce_join(s, axis=1).shape.as_list() == [None]
        assert tf.strings.to_number(s, out_type=tf.int64).dtype == tf.int64
        assert tf.strings.substr(s, 0, 1).shape.as_list() == [None, 3]
        assert tf.strings.regex_full_match(s, "a").dtype == tf.bool
        with pytest.raises(ValueError, match=r"Input shapes do not match: \[\?,3\] vs. \[2\]"):
            tf.strings.join([s, ["a", "b"]])
