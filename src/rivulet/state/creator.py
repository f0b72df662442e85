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
def function_variable_scope(allow_creation):
    """Used by tf.function around a trace. TensorFlow lets a function create variables only on its
    first call: trace that call with allow_creation=True (the list yielded collects the variables it
    created, for the function to keep alive); later traces with False raise TensorFlow's ValueError."""
    created = []

    def creator(next_creator, **kwargs):
        if not allow_creation:
            raise ValueError(SINGLETON_ERROR)
        v = next_creator(**kwargs)
        created.append(v)
        return v
    with variable_creator_scope(creator):
        yield created
