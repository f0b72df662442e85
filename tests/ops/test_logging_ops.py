"""tf.print, tf.Assert, tf.debugging asserts and check_numerics: text as TensorFlow 2.21 prints it."""
import sys

import numpy as np
import pytest

import rivulet as tf


def printed(capsys, *args, **kwargs):
    tf.print(*args, output_stream=sys.stdout, **kwargs)
    return capsys.readouterr().out


@pytest.mark.parametrize("args, kwargs, expected", [
    ((tf.constant([1, 2, 3]),), {}, "[1 2 3]\n"),
    ((tf.constant(1.5), 2, "str", tf.constant("hi"), tf.constant(["a", "b"])), {}, '1.5 2 str "hi" ["a" "b"]\n'),
    ((tf.constant("hi"),), {}, "hi\n"),  # a lone scalar string prints bare
    ((tf.range(10),), {}, "[0 1 2 ... 7 8 9]\n"),
    ((tf.range(10),), {"summarize": -1}, "[0 1 2 3 4 5 6 7 8 9]\n"),
    ((tf.range(7), tf.range(2)), {"summarize": 1}, "[0 ... 6] [0 1]\n"),
    ((tf.reshape(tf.range(24), [2, 3, 4]),), {},
     "[[[0 1 2 3]\n  [4 5 6 7]\n  [8 9 10 11]]\n\n [[12 13 14 15]\n  [16 17 18 19]\n  [20 21 22 23]]]\n"),
    ((tf.reshape(tf.range(64.0), [8, 8]),), {},
     "[[0 1 2 ... 5 6 7]\n [8 9 10 ... 13 14 15]\n [16 17 18 ... 21 22 23]\n ...\n [40 41 42 ... 45 46 47]\n"
     " [48 49 50 ... 53 54 55]\n [56 57 58 ... 61 62 63]]\n"),
    ((tf.constant([1.5, 2.0, 1e-7, 123456789.0]),), {}, "[1.5 2 1e-07 123456792]\n"),
    ((tf.constant([True, False]), tf.constant(3, tf.int64), tf.constant(2.0, tf.float64)), {}, "[1 0] 3 2\n"),
    (({"a": tf.constant([1, 2]), "b": 3}, [tf.constant(1), "x"], (1, 2)), {}, "{'a': [1 2], 'b': 3} [1, 'x'] (1, 2)\n"),
    (("a", "b"), {"sep": ",", "end": "!\n"}, "a,b!\n"),
    ((tf.Variable([1.0, 2.0]),), {}, "[1 2]\n"),
    ((tf.constant(np.nan), tf.constant([np.inf, -np.inf]), tf.constant(0.1), tf.constant(1 / 3)), {},
     "nan [inf -inf] 0.1 0.333333343\n"),
    ((tf.constant([1 / 3], tf.float64), tf.constant(-0.0), tf.constant(1e20)), {}, "[0.33333333333333331] -0 1e+20\n"),
    ((tf.zeros([0]),), {}, "[]\n"),
    ((), {}, "\n"),
    ((np.array([1, 2]), 1.5, None), {}, "array([1, 2]) 1.5 None\n"),
    ((tf.constant('q"u\'o\\te\n'),  tf.constant(["x"])), {}, '"q\\"u\\\'o\\\\te\\n" ["x"]\n'),
    (("x {} y", tf.constant(1)), {}, "x {} y 1\n"),
    ((["a" * 50, "b" * 50],), {}, "['" + "a" * 50 + "',\n '" + "b" * 50 + "']\n"),
])
def test_print_format(capsys, args, kwargs, expected):
    assert printed(capsys, *args, **kwargs) == expected


def test_print_goes_to_stderr_by_default(capsys):
    tf.print("to stderr", tf.constant([1, 2]))
    out = capsys.readouterr()
    assert out.err == "to stderr [1 2]\n" and out.out == ""


def test_print_bad_stream():
    with pytest.raises(ValueError, match="^Unsupported output stream, logging level, or file.bogus."):
        tf.print("x", output_stream="bogus")


def test_print_runs_each_call_inside_a_function(capsys):
    @tf.function
    def f(x):
        tf.print("in fn", x, output_stream=sys.stdout)
        return x + 1
    assert int(f(tf.constant(1))) == 2
    f(tf.constant(2))
    assert capsys.readouterr().out == "in fn 1\nin fn 2\n"


def raises(fn):
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        fn()
    return str(e.value)


def test_eager_assert_equal_messages():
    assert raises(lambda: tf.debugging.assert_equal(tf.constant([1, 2, 3]), tf.constant([1, 2, 4]))) == (
        "Condition x == y did not hold.\nIndices of first 1 different values:\n[[2]]\nCorresponding x values:\n[3]\n"
        "Corresponding y values:\n[4]\nFirst 3 elements of x:\n[1 2 3]\nFirst 3 elements of y:\n[1 2 4]")
    assert tf.debugging.assert_equal(tf.constant([1, 2]), tf.constant([1, 2])) is None
    assert raises(lambda: tf.debugging.assert_equal(tf.constant([1, 2, 3]), 4, message="custom")) == (
        "custom\nCondition x == y did not hold.\nFirst 3 elements of x:\n[1 2 3]\nFirst 1 elements of y:\n[4]")
    assert raises(lambda: tf.debugging.assert_less(tf.constant([1.5, 2, 3]), tf.constant([2.0, 2, 2]))) == (
        "Condition x < y did not hold.\nIndices of first 2 different values:\n[[1]\n [2]]\nCorresponding x values:\n"
        "[2. 3.]\nCorresponding y values:\n[2. 2.]\nFirst 3 elements of x:\n[1.5 2.  3. ]\nFirst 3 elements of y:\n"
        "[2. 2. 2.]")
    assert raises(lambda: tf.debugging.assert_greater(tf.constant([1, 2, 3]), 2)).startswith(
        "Condition x > y did not hold.\nFirst 3 elements of x:")


def test_eager_sign_asserts():
    assert raises(lambda: tf.debugging.assert_positive(tf.constant([1, -2, 3]))) == (
        "\nCondition x > 0 did not hold element-wise:\nx (shape=(3,) dtype=int32) = \n['1', '-2', '3']")
    assert raises(lambda: tf.debugging.assert_non_negative(tf.constant([1.0, -2, 3, 4]))) == (
        "\nCondition x >= 0 did not hold element-wise:\nx (shape=(4,) dtype=float32) = \n['1.0', '-2.0', '3.0', '...']")
    assert tf.debugging.assert_positive(tf.constant([1, 2])) is None


def test_eager_assert_near_and_rank():
    assert raises(lambda: tf.debugging.assert_near(tf.constant([1.0, 2, 3]), tf.constant([1.0, 2, 3.1]))) == (
        "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: b''\n"
        "b'x and y not equal to tolerance rtol = tf.Tensor(1.1920929e-06, shape=(), dtype=float32), atol = "
        "tf.Tensor(1.1920929e-06, shape=(), dtype=float32)'\nb'x (shape=(3,) dtype=float32) = '\n1.0, 2.0, 3.0\n"
        "b'y (shape=(3,) dtype=float32) = '\n1.0, 2.0, 3.1")
    assert tf.debugging.assert_near(tf.constant([1.0]), tf.constant([1.0])) is None
    with pytest.raises(ValueError, match=r"^Tensor  must have rank 2.  Received rank 1, shape \(3,\)$"):
        tf.debugging.assert_rank(tf.constant([1, 2, 3]), 2)
    assert tf.debugging.assert_rank(tf.constant([1, 2, 3]), 1) is None


def test_eager_Assert():
    assert raises(lambda: tf.Assert(tf.constant(False), [tf.constant([1, 2]), "msg"])) == (
        "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: 1, 2\nb'msg'")
    assert raises(lambda: tf.Assert(False, ["x", 1])) == "Expected 'False' to be true. Summarized data: b'x'\n1"
    assert raises(lambda: tf.Assert(False, [tf.range(10)], summarize=2)).endswith("Summarized data: 0, 1, ...")
    assert tf.Assert(tf.constant(True), [tf.constant([1, 2])]) is None


def graph_error(fn, arg):
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.function(fn)(arg)
    return str(e.value)


def test_asserts_inside_functions():
    def f(x):
        tf.Assert(x > 0, ["msg", x])
        return x
    assert "assertion failed: [msg] [-1]" in graph_error(f, tf.constant(-1))

    def g(x):
        tf.debugging.assert_equal(x, 2, message="mm")
        return x
    assert ("assertion failed: [mm] [Condition x == y did not hold element-wise:] [x (x:0) = ] [1 2 3] [y ("
            in graph_error(g, tf.constant([1, 2, 3])))

    def h(x):
        tf.debugging.assert_positive(x)
        return x
    assert ("assertion failed: [] [Condition x > 0 did not hold element-wise:] [x (x:0) = ] [1 -2 3]"
            in graph_error(h, tf.constant([1, -2, 3])))
    assert int(tf.function(h)(tf.constant(1))) == 1


def test_graph_assert_summaries():
    def f(x):
        tf.Assert(False, [tf.range(10), tf.reshape(tf.range(6), [2, 3]), tf.reshape(tf.range(24), [2, 3, 4]),
                          tf.constant(["a", "b"]), tf.constant([1.5, 1 / 3]), tf.constant(True), tf.zeros([0])])
        return x
    assert ("assertion failed: [0 1 2...] [[0 1 2]...] [[[0 1 2...]]...] [a b] [1.5 0.333333343] [1] []"
            in graph_error(f, 1))


def test_check_numerics():
    assert raises(lambda: tf.debugging.check_numerics(tf.constant([1.0, np.nan]), "bad")) == \
        "bad : Tensor had NaN values [Op:CheckNumerics] name: "  # TensorFlow 2.21's eager suffix
    assert raises(lambda: tf.debugging.check_numerics(tf.constant([1.0, np.inf]), "bad")) == \
        "bad : Tensor had Inf values [Op:CheckNumerics] name: "
    assert tf.debugging.check_numerics(tf.constant([1.0, 2.0]), "ok").numpy().tolist() == [1, 2]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'T' of int32"):
        tf.debugging.check_numerics(tf.constant([1, 2]), "ok")
    assert "bad : Tensor had NaN values" in graph_error(lambda x: tf.debugging.check_numerics(x, "bad"),
                                                        tf.constant([np.nan]))
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(tf.debugging.check_numerics(x * x, "m"))
    assert t.gradient(y, x).numpy().tolist() == [2, 4]
