"""convert() on the kinds of callables tf.function meets, and recursive conversion of callees."""
import pytest

import rivulet as tf
from rivulet.autograph import impl
from .helpers import staged


def test_lambda_with_conditional_expression():
    f = lambda x: x * 2 if x > 0 else -x  # noqa: E731
    assert tf.function(f)(tf.constant(-3)).numpy() == 3
    assert staged(f, tf.constant(1)) == ["StatelessIf"]


def test_bound_methods_keep_self():
    class Counter:
        def __init__(self):
            self.scale = 3

        def __call__(self, x):
            if x > 0:
                x = x * self.scale
            return x

        def method(self, x):
            return self(x) + 1
    c = Counter()
    assert tf.function(c.method)(tf.constant(2)).numpy() == 7
    assert tf.function(c)(tf.constant(-2)).numpy() == -2


def test_closures_see_current_cell_values():
    k = 2

    def f(x):
        if x > 0:
            x = x * k
        return x
    g = impl.convert(f)
    assert g(tf.constant(3)).numpy() == 6
    k = 5
    assert g(tf.constant(3)).numpy() == 15


def test_super_call_in_method():
    class Base:
        def f(self, x):
            return x + 1

    class Child(Base):
        def f(self, x):
            if x > 0:
                x = super().f(x)
            return x
    assert tf.function(Child().f)(tf.constant(1)).numpy() == 2


def test_do_not_convert():
    @tf.autograph.experimental.do_not_convert
    def raw(x):
        if x > 0:
            return x
        return -x
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        tf.function(lambda x: raw(x))(tf.constant(1))
    assert impl.convert(raw) is raw


def test_library_functions_are_not_converted():
    import numpy as np
    assert impl.convert(tf.reduce_sum) is tf.reduce_sum
    assert impl.convert(np.sum) is np.sum
    import json
    assert impl.convert(json.dumps) is json.dumps


def test_recursive_function():
    def fact(n):
        if n <= 1:
            return 1
        return n * fact(n - 1)
    assert tf.function(fact)(5) == 120


def test_nested_function_definitions_are_converted():
    def f(x):
        def inner(y):
            if y > 0:
                return y
            return -y
        return inner(x) + 1
    assert tf.function(f)(tf.constant(-3)).numpy() == 4


def test_source_unavailable_runs_as_is():
    ns = {}
    exec("def f(x):\n    return x + 1\n", ns)
    assert impl.convert(ns["f"]) is ns["f"]
    assert tf.function(ns["f"])(tf.constant(1)).numpy() == 2


def test_tf_function_called_inside_converted_code():
    @tf.function
    def inner(x):
        if x > 0:
            return x
        return -x

    def outer(x):
        return inner(x) * 2
    assert tf.function(outer)(tf.constant(-2)).numpy() == 4


def test_verbosity_and_trace(capsys):
    tf.autograph.set_verbosity(0)
    tf.autograph.trace("hello", 1)
    assert capsys.readouterr().out == "hello 1\n"


def _doubled(f):
    import functools

    @functools.wraps(f)
    def wrapper(*args):
        if args[0] > 0:  # converted too: this is the wrapper's own code
            return f(*args) * 2
        return f(*args)
    return wrapper


@_doubled
def _plus_one(x):
    return x + 1


def test_functools_wraps_decorators_convert_their_own_code():
    # The wrapper's source is converted, not the wrapped function's that functools.wraps points to.
    assert float(tf.function(_plus_one)(tf.constant(2.0))) == 6.0
    assert float(tf.function(_plus_one)(tf.constant(-2.0))) == -1.0
    assert float(tf.function(lambda x: _plus_one(x) + 0)(tf.constant(2.0))) == 6.0


def test_library_wrappers_are_not_converted_with_the_user_module_globals():
    @tf.custom_gradient  # functools.wraps gives the library wrapper this module's name
    def triple_grad(x):
        return tf.identity(x), lambda dy: dy * 3.0
    assert impl.is_library_code(triple_grad)
    assert float(tf.function(lambda x: triple_grad(x) * x)(tf.constant(2.0))) == 4.0
