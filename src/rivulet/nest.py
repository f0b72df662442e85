"""tf.nest: flatten and rebuild nested structures (lists, tuples, namedtuples, dicts and other mappings, and
mapping views such as dict.values(), which pack back as lists).

The one order every flattener and packer in rivulet follows (datasets, tf.function arguments and results,
Keras models, saved signatures): a mapping's values flatten in sorted-key order, and packing puts them
back by sorted key into a mapping that keeps the template's own key order (as TensorFlow does). Keys that
do not sort are a TypeError, not some other order that a packer elsewhere might not share.
"""
import collections
import collections.abc

__all__ = ["flatten", "pack_sequence_as", "map_structure", "is_nested", "assert_same_structure"]


_LEAF, _SEQ, _NAMEDTUPLE, _MAP, _VIEW = range(5)
_KINDS = {dict: _MAP, list: _SEQ, tuple: _SEQ}  # type -> kind, filled as types are met (bounded below)


def _kind(x):
    t = type(x)
    k = _KINDS.get(t)
    if k is None:  # once per type: the Mapping ABC check is slow to repeat for every leaf
        if issubclass(t, collections.abc.Mapping):
            k = _MAP
        elif issubclass(t, tuple) and isinstance(getattr(t, "_fields", None), tuple):
            k = _NAMEDTUPLE
        elif issubclass(t, (list, tuple)):
            k = _SEQ
        elif issubclass(t, collections.abc.MappingView):  # dict.keys()/values()/items(): in their own order
            k = _VIEW
        else:
            k = _LEAF
        if len(_KINDS) > 4096:  # classes made on the fly must not pile up here
            _KINDS.clear()
            _KINDS.update({dict: _MAP, list: _SEQ, tuple: _SEQ})
        _KINDS[t] = k
    return k


def is_nested(x):
    return _kind(x) != _LEAF


def _is_mapping(x):
    return _kind(x) == _MAP


def _is_namedtuple(x):
    return _kind(x) == _NAMEDTUPLE


def _sorted_keys(d):
    """A mapping's keys in flattening order."""
    try:
        return sorted(d)
    except TypeError:
        raise TypeError(f"nest only supports dicts with sortable keys; got keys {list(d)!r}.") from None


def _children(s):
    """The direct children of a nested value, in flattening order."""
    if _kind(s) == _MAP:
        return [s[k] for k in _sorted_keys(s)]
    return list(s)


def _rebuild(template, children):
    """A container like `template` holding `children` (given in flattening order)."""
    kind = _kind(template)
    if kind == _MAP:
        by_key = dict(zip(_sorted_keys(template), children))
        if type(template) is dict:
            return {k: by_key[k] for k in template}  # the template's own key order
        pairs = [(k, by_key[k]) for k in template]
        if isinstance(template, collections.defaultdict):
            return type(template)(template.default_factory, pairs)
        return type(template)(pairs)
    if kind == _NAMEDTUPLE:
        return type(template)(*children)
    if kind == _VIEW:
        return list(children)  # a view cannot be made from values: TensorFlow packs it as a list
    return type(template)(children)  # lists, tuples and their subclasses that take an iterable


def flatten(structure, expand_composites=False):
    out = []
    if expand_composites:
        _flatten_expanded(structure, out)
    else:
        _flatten(structure, out)
    return out


# expand_composites: a composite tensor (tf.experimental.ExtensionType, RaggedTensor, SparseTensor: its type
# gives its trace type, the value its component tensors) and a composite's spec stand for their components
def _is_composite_value(x):
    return hasattr(type(x), "__tf_tracing_type__") and hasattr(x, "_to_components") and \
        not hasattr(x, "_component_specs")


def _is_composite_spec(x):
    return hasattr(x, "_component_specs") and hasattr(x, "_from_components") and not isinstance(x, type)


def _spec_of_composite(x):
    return x if _is_composite_spec(x) else type(x).__tf_tracing_type__(x, None)


def _flatten_expanded(s, out):
    kind = _kind(s)
    if kind == _LEAF:
        if _is_composite_value(s):
            for c in s._to_components():
                _flatten_expanded(c, out)
        elif _is_composite_spec(s):
            for c in s._component_specs:
                _flatten_expanded(c, out)
        else:
            out.append(s)
    elif kind == _MAP:
        for k in _sorted_keys(s):
            _flatten_expanded(s[k], out)
    else:
        for c in s:
            _flatten_expanded(c, out)


def _pack_expanded(s, it):
    kind = _kind(s)
    if kind == _LEAF:
        if _is_composite_value(s) or _is_composite_spec(s):
            spec = _spec_of_composite(s)
            return spec._from_components([next(it) for _ in range(len(spec._component_specs))])
        return next(it)
    return _rebuild(s, [_pack_expanded(c, it) for c in _children(s)])


def _flatten(s, out):
    kind = _kind(s)
    if kind == _LEAF:
        out.append(s)
    elif kind == _MAP:
        for k in _sorted_keys(s):
            _flatten(s[k], out)
    else:
        for c in s:
            _flatten(c, out)


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    if isinstance(flat_sequence, (str, bytes)) or not hasattr(flat_sequence, "__iter__"):
        raise TypeError(f"Attempted to pack value:\n  {flat_sequence!r}\ninto a structure, but found "
                        f"incompatible type `{type(flat_sequence)}` instead.")
    flat = flat_sequence if isinstance(flat_sequence, (list, tuple)) else list(flat_sequence)
    it = iter(flat)
    try:
        packed = _pack_expanded(structure, it) if expand_composites else _pack(structure, it)
        left_over = next(it, it) is not it
    except StopIteration:
        left_over = True
    if left_over:
        raise ValueError(f"Could not pack sequence. Structure had {len(flatten(structure, expand_composites))} "
                         f"atoms, but "
                         f"flat_sequence had {len(flat)} items. Structure: {structure!r}, flat_sequence: "
                         f"{flat!r}.")
    return packed


def _pack(s, it):
    kind = _kind(s)
    if kind == _LEAF:
        return next(it)
    if kind == _SEQ and (type(s) is tuple or type(s) is list):
        return type(s)([_pack(c, it) for c in s])
    if type(s) is dict:
        by_key = {k: _pack(s[k], it) for k in _sorted_keys(s)}
        return {k: by_key[k] for k in s}
    return _rebuild(s, [_pack(c, it) for c in _children(s)])


def map_structure(func, *structures, check_types=True, expand_composites=False):
    if not callable(func):
        raise TypeError(f"func must be callable, got: {func!r}")
    if not structures:
        raise ValueError("Must provide at least one structure")
    for s in structures[1:]:
        assert_same_structure(structures[0], s, check_types=check_types, expand_composites=expand_composites)
    flats = [flatten(s, expand_composites) for s in structures]
    return pack_sequence_as(structures[0], [func(*xs) for xs in zip(*flats)], expand_composites=expand_composites)


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """ValueError when the nesting (lengths, mapping keys) differs; TypeError when, with check_types, a
    container's type differs (mappings compare alike, as do namedtuples with the same name and fields)."""
    problem = _difference(nest1, nest2, check_types)
    if problem is None and expand_composites:
        problem = _composite_difference(nest1, nest2)
    if problem is not None:
        cls, detail = problem
        raise cls(f"The two structures don't have the same nested structure.\n\nFirst structure: {nest1!r}\n\n"
                  f"Second structure: {nest2!r}\n\nMore specifically: {detail}")


def _difference(a, b, check_types):
    """(exception class, reason) for the first place a and b differ, or None."""
    na, nb = is_nested(a), is_nested(b)
    if not na or not nb:
        if na != nb:
            nested, atom = (a, b) if na else (b, a)
            return ValueError, f"Substructure {nested!r} is a sequence, while substructure {atom!r} is not"
        return None
    if check_types and not _same_type(a, b):
        return TypeError, (f"The two namedtuples don't have the same sequence type. First structure {a!r} has "
                           f"type {type(a).__name__}, while second structure {b!r} has type {type(b).__name__}")
    if _is_mapping(a) != _is_mapping(b):
        return ValueError, f"Substructure {a!r} and substructure {b!r} are not both mappings"
    if _is_mapping(a) and set(a) != set(b):
        return ValueError, (f"The two dictionaries don't have the same set of keys. First structure has keys "
                            f"{list(a)!r}, while second structure has keys {list(b)!r}.")
    if len(a) != len(b):
        return ValueError, f"Substructure {a!r} has length {len(a)}, while substructure {b!r} has length {len(b)}"
    for x, y in zip(_children(a), _children(b)):
        problem = _difference(x, y, check_types)
        if problem is not None:
            return problem
    return None


def _composite_difference(a, b):
    """(with expand_composites) where a composite meets a non-composite or a composite of another type."""
    fa, fb = flatten(a), flatten(b)
    for x, y in zip(fa, fb):
        cx = _is_composite_value(x) or _is_composite_spec(x)
        cy = _is_composite_value(y) or _is_composite_spec(y)
        if cx != cy:
            return ValueError, f"Substructure {x!r} is a composite tensor, while substructure {y!r} is not"
        if cx and type(_spec_of_composite(x)) is not type(_spec_of_composite(y)):
            return TypeError, (f"Incompatible CompositeTensor TypeSpecs: {type(_spec_of_composite(x)).__name__} "
                               f"vs. {type(_spec_of_composite(y)).__name__}")
    return None


def _same_type(a, b):
    ta, tb = type(a), type(b)
    if ta is tb or (_is_mapping(a) and _is_mapping(b)) or (isinstance(a, list) and isinstance(b, list)):
        return True
    return _is_namedtuple(a) and _is_namedtuple(b) and ta.__name__ == tb.__name__ and ta._fields == tb._fields
