"""A lambda whose source is the last line of exec'd code with no newline after it (inspect's tokenizer raises
TokenError there): AutoGraph runs it as-is instead of failing, as TensorFlow does with source it cannot read."""
import linecache

import rivulet as tf


def test_a_lambda_on_a_last_line_without_newline_still_runs_in_a_dataset_map():
    code = "ds = tf.data.Dataset.range(3).map(\n  lambda x: x * 2)"
    name = "<exec'd cell without newline>"
    linecache.cache[name] = (len(code), None, code.splitlines(True), name)
    ns = {"tf": tf}
    exec(compile(code, name, "exec"), ns)
    assert list(ns["ds"].as_numpy_iterator()) == [0, 2, 4]
