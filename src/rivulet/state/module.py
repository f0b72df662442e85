"""tf.Module: a named container whose variables and submodules are found through its attributes."""
import functools
import re

from . import naming
from ._structure import flatten_with_paths
from .variables import Variable

UNTRACKED_ATTRIBUTES = frozenset(("_self_unconditional_checkpoint_dependencies", "_self_unconditional_dependency_names"))
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# An upper-case letter starts a new word after a lower-case letter or digit ("myLayer" -> "my_layer"),
# or when a lower-case letter follows it ("HTTPServer" -> "http_server").
_WORD_START = re.compile(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))")


def camel_to_snake(name):
    return _WORD_START.sub(r"_\1", name).lower()


_SETATTR_HOOKS = []  # checkpoint restores waiting for attributes that do not exist yet (checkpoint/)


def register_setattr_hook(fn):
    """fn(module) runs after every attribute set on a tf.Module (checkpoint/ applies deferred restores)."""
    _SETATTR_HOOKS.append(fn)


class Module:
    """Base class for objects that own variables: `variables`, `trainable_variables` and `submodules`
    walk the attributes (sorted by name; lists, tuples and dicts included) and list each object once."""

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        for hook in _SETATTR_HOOKS:
            hook(self)

    def __init__(self, name=None):
        if name is None:
            name = camel_to_snake(type(self).__name__)
        elif not _IDENTIFIER.match(name):
            raise ValueError(f"'{name}' is not a valid module name. Module names must be valid Python "
                             "identifiers (e.g. a valid class name).")
        self._name = name
        with naming.name_scope(name) as scope:
            self._scope_name = scope
        self._name_scope = naming.name_scope(self._scope_name)

    @property
    def name(self):
        return self._name

    @property
    def name_scope(self):
        """The scope this module's variables are created in: `with self.name_scope: ...`."""
        return self._name_scope

    @property
    def variables(self):
        return tuple(self._flatten(predicate=_is_variable))

    @property
    def trainable_variables(self):
        return tuple(self._flatten(predicate=lambda v: _is_variable(v) and v.trainable))

    @property
    def non_trainable_variables(self):
        return tuple(self._flatten(predicate=lambda v: _is_variable(v) and not v.trainable))

    @property
    def submodules(self):
        return tuple(self._flatten(predicate=_is_module))

    def _flatten(self, recursive=True, predicate=None, attribute_traversal_key=None, with_path=False,
                 expand_composites=False):
        predicate = predicate or (lambda _: True)
        return _walk(self, recursive, predicate, attribute_traversal_key, with_path, (), {id(self)}, [])

    @classmethod
    def with_name_scope(cls, method):
        """Decorator: runs the method inside the module's name scope."""
        @functools.wraps(method)
        def wrapped(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)
        return wrapped


def _is_variable(x):
    return isinstance(x, Variable)


def _is_module(x):
    return isinstance(x, Module)


def _walk(module, recursive, predicate, key, with_path, path, seen, stack):
    """Yields the matching leaves of this module's attributes, then those of its submodules (depth first,
    in the order they were found). Without paths each object is yielded once; with paths, once per path."""
    attrs = vars(module)
    found = []
    if id(module) in stack:  # a cycle: list this module's leaves but do not descend again
        recursive = False
    for name in sorted(attrs, key=key):
        if name in UNTRACKED_ATTRIBUTES:
            continue
        for leaf_path, leaf in flatten_with_paths(attrs[name]):
            leaf_path = path + (name,) + leaf_path
            if not with_path:
                if id(leaf) in seen:
                    continue
                seen.add(id(leaf))
            if predicate(leaf):
                yield (leaf_path, leaf) if with_path else leaf
            if recursive and _is_module(leaf):
                found.append((leaf_path, leaf))
    stack.append(id(module))
    for sub_path, sub in found:
        yield from _walk(sub, recursive, predicate, key, with_path, sub_path, seen, stack)
    stack.pop()
