"""TensorFlow's AutoGraph rules, their error types and messages, and where the errors point."""
import traceback

import pytest

import rivulet as tf


def undefined_in_else(x):
    if x > 0:
        y = 1
    return y


def test_variable_defined_in_one_branch_only():
    with pytest.raises(ValueError, match="'y' must also be initialized in the else branch"):
        tf.function(undefined_in_else)(tf.constant(1))

    def f(x):
        if x > 0:
            pass
        else:
            y = 1
        return y
    with pytest.raises(ValueError, match="'y' must also be initialized in the main branch"):
        tf.function(f)(tf.constant(1))


def test_python_condition_leaves_the_variable_undefined():
    assert tf.function(undefined_in_else)(1) == 1
    with pytest.raises(UnboundLocalError, match="'y' is used before assignment"):
        tf.function(undefined_in_else)(-1)


def test_dtype_mismatch_between_branches():
    def f(x):
        if x > 0:
            y = 1
        else:
            y = 1.0
        return y
    with pytest.raises(TypeError, match="'y' has dtype int32 in the main branch, but dtype float32 in the else "
                                        "branch"):
        tf.function(f)(tf.constant(1))


def test_structure_mismatch_between_branches():
    def f(x):
        if x > 0:
            y = (1, 2)
        else:
            y = 1
        return y
    with pytest.raises(TypeError, match="'y' must have the same nested structure in the main and else branches"):
        tf.function(f)(tf.constant(1))


def test_loop_dtype_and_shape_changes():
    def f(x):
        s = tf.constant(0)
        for i in tf.range(x):
            s = tf.cast(s, tf.float32)
        return s
    with pytest.raises(TypeError, match="'s' has dtype int32 before the loop, but dtype float32 after one "
                                        "iteration"):
        tf.function(f)(tf.constant(3))


def test_loop_must_iterate_to_define():
    def f(n):
        for i in tf.range(n):
            s = i
        return s
    with pytest.raises(tf.errors.InvalidArgumentError, match="loop must iterate at least once to initialize s"):
        tf.function(f)(tf.constant(0))


def test_tensor_as_python_bool_outside_autograph():
    def f(x):
        return bool(x > 0)
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        tf.function(f)(tf.constant(1))
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        tf.function(f, autograph=False)(tf.constant(1))


def test_iterating_unknown_length_tensor_in_python_loop():
    def f(x):
        return [v for v in x]
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        tf.function(f)(tf.TensorSpec([None], tf.int32))


def test_errors_point_at_the_user_line():
    with pytest.raises(ValueError) as info:
        tf.function(undefined_in_else)(tf.constant(1))
    frames = [f for f in traceback.extract_tb(info.value.__traceback__) if f.filename == __file__]
    assert frames and frames[-1].lineno == undefined_in_else.__code__.co_firstlineno + 1
    assert frames[-1].line == "if x > 0:"


def test_runtime_error_inside_converted_code_points_at_user_line():
    def f(x):
        y = x + 1
        return undefined_name_here + y  # noqa: F821
    with pytest.raises(NameError) as info:
        tf.function(f)(tf.constant(1))
    last = traceback.extract_tb(info.value.__traceback__)[-1]
    assert last.filename == __file__ and last.lineno == f.__code__.co_firstlineno + 2


def test_traceback_frames_of_converted_code_carry_the_users_function_name():
    def bad_reshape(x):
        if x[0] > 0:
            x = x + 1
        return tf.reshape(x, [5])
    with pytest.raises(ValueError) as info:
        tf.function(bad_reshape)(tf.constant([1, 2, 3]))
    frames = traceback.extract_tb(info.value.__traceback__)
    mine = [f for f in frames if f.filename == __file__ and not f.name.startswith("test_")]
    assert mine and all(f.name == "bad_reshape" for f in mine), frames
    assert "tf.reshape(x, [5])" in mine[-1].line
