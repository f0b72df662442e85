"""AutoGraph finds a function's source as inspect.getsourcelines does (decorators, lambdas, nested defs), without
inspect.getmodule's walk over every loaded module, which resolves each module's path on a process's first
conversion (autograph/pyct/parser.py)."""
import functools
import inspect

import numpy as np

import rivulet as tf
from rivulet.autograph.pyct import parser


def _noted(fn):
    @functools.wraps(fn)
    def wrapper(*a):
        return fn(*a)
    return wrapper


@_noted
def _decorated(x):
    return x


def _outer():
    @tf.function
    def inner(x):
        if x > 0:
            x = x * 2.0
        return x
    return inner


_square = lambda x: x * x  # noqa: E731


def test_the_source_found_is_inspects():
    for fn in (_decorated.__wrapped__, _decorated, _outer, _outer().python_function, _square):
        code = fn.__code__
        lines, first, filename = parser._file_source(fn, code)
        assert (lines, first) == inspect.getsourcelines(code) and filename == inspect.getsourcefile(code)


def test_a_converted_function_traces_without_the_module_walk(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("inspect.getmodule was called")

    @tf.function
    def f(x):
        if tf.reduce_sum(x) > 0:
            x = x * 2.0
        else:
            x = -x
        return x

    monkeypatch.setattr(inspect, "getmodule", refuse)
    np.testing.assert_array_equal(f(tf.constant([1.0, 2.0])).numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(f(tf.constant([-1.0, -2.0])).numpy(), [1.0, 2.0])
