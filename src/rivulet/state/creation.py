"""Variable creator scopes (tf.variable_creator_scope), and the hook tf.function traces under.

Every `tf.Variable(...)` call goes through the active creators, innermost first; each is called as
`creator(next_creator, **kwargs)` and may change kwargs, refuse, or return a variable of its own.
"""
import contextlib
import threading

SINGLETON_ERROR = (
    "tf.function only supports singleton tf.Variables created on the first call. Make sure the tf.Variable is "
    "only created once or created outside tf.function. See "
    "https://www.tensorflow.org/guide/function#creating_tfvariables for more information.")


class _Stack(threading.local):
    creators = ()


_stack = _Stack()


def active():
    return _stack.creators


@contextlib.contextmanager
def variable_creator_scope(variable_creator):
    """tf.variable_creator_scope."""
    old = _stack.creators
    _stack.creators = old + (variable_creator,)
    try:
        yield
    finally:
        _stack.creators = old


def create(default, kwargs):
    """Runs the creator chain over kwargs, ending in `default(**kwargs)`."""
    nxt = default
    for c in _stack.creators:
        nxt = _chain(c, nxt)
    return nxt(**kwargs)


def _chain(creator, nxt):
    return lambda **kw: creator(nxt, **kw)


@contextlib.contextmanager
def function_variable_scope(function, allow):
    """tf.function traces under this. TensorFlow lets a function create variables only while tracing its
    first call, and traces that call again with creation forbidden when it did (`allow` False then, and on
    every later trace): creating a variable then raises its ValueError. Sets `function._created_variables`
    once a trace has created a variable."""
    def creator(next_creator, **kwargs):
        if not allow:
            raise ValueError(SINGLETON_ERROR)
        v = next_creator(**kwargs)
        function._created_variables = True
        return v
    with variable_creator_scope(creator):
        yield
