"""Name scopes (tf.name_scope): a graph's own scope while tracing, a per-thread prefix when eager.

TensorFlow does not make eager scope names unique (two `tf.Variable(1.0)` are both 'Variable:0'),
so the eager scope is just a string prefix like 'outer/inner/'.
"""
import threading

from ..core import context


class _Eager(threading.local):
    prefix = ""


_eager = _Eager()


def eager_prefix():
    return _eager.prefix


class name_scope:
    """tf.name_scope(name): `with` yields the full scope name ('a/b/'); a name ending in '/' is absolute."""

    def __init__(self, name, default_name=None, values=None):
        if name is None:
            name = default_name
        if not isinstance(name, str):
            raise ValueError(f"name for name_scope must be a string, got {name!r}")
        self._name = name
        self._exits = []  # one per active `with`: the same scope object may be re-entered

    @property
    def name(self):
        return self._name

    def __enter__(self):
        g = context.current_graph()
        if g is not None:
            cm = g.name_scope(self._name)
            scope = cm.__enter__()
            self._exits.append(cm.__exit__)
            return scope
        old = _eager.prefix
        name = self._name
        new = name if name.endswith("/") or not name else old + name + "/"
        _eager.prefix = new
        self._exits.append(lambda *exc: setattr(_eager, "prefix", old))
        return new

    def __exit__(self, *exc):
        self._exits.pop()(*exc)
        return False
