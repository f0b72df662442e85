"""tf.nest: flatten and rebuild nested structures (lists, tuples, namedtuples, dicts by sorted key)."""

__all__ = ["flatten", "pack_sequence_as", "map_structure", "is_nested", "assert_same_structure"]


def is_nested(x):
    return isinstance(x, (list, tuple, dict))


def _sorted_keys(d):
    try:
        return sorted(d)
    except TypeError:
        return list(d)


def flatten(structure, expand_composites=False):
    out = []
    _flatten(structure, out)
    return out


def _flatten(s, out):
    if isinstance(s, dict):
        for k in _sorted_keys(s):
            _flatten(s[k], out)
    elif isinstance(s, (list, tuple)):
        for v in s:
            _flatten(v, out)
    else:
        out.append(s)


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    it = iter(flat_sequence)
    result = _pack(structure, it)
    rest = list(it)
    if rest:
        raise ValueError(f"Structure had fewer leaves than flat_sequence ({len(rest)} left over).")
    return result


def _pack(s, it):
    if isinstance(s, dict):
        vals = {k: _pack(s[k], it) for k in _sorted_keys(s)}
        return type(s)((k, vals[k]) for k in s) if type(s) is not dict else {k: vals[k] for k in s}
    if isinstance(s, tuple) and hasattr(s, "_fields"):
        return type(s)(*[_pack(v, it) for v in s])
    if isinstance(s, (list, tuple)):
        return type(s)(_pack(v, it) for v in s)
    try:
        return next(it)
    except StopIteration:
        raise ValueError("Structure had more leaves than flat_sequence.") from None


def map_structure(func, *structures, **kwargs):
    if not structures:
        raise ValueError("Must provide at least one structure")
    for s in structures[1:]:
        assert_same_structure(structures[0], s)
    flats = [flatten(s) for s in structures]
    return pack_sequence_as(structures[0], [func(*xs) for xs in zip(*flats)])


def _shape_of(s):
    if isinstance(s, dict):
        return ("dict", tuple((k, _shape_of(s[k])) for k in _sorted_keys(s)))
    if isinstance(s, (list, tuple)):
        return (type(s).__name__ if not isinstance(s, list) else "list", tuple(_shape_of(v) for v in s))
    return None


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    a, b = _shape_of(nest1), _shape_of(nest2)
    if not check_types:
        a, b = _untyped(a), _untyped(b)
    if a != b:
        raise ValueError(f"The two structures don't have the same nested structure.\n\nFirst structure: "
                         f"{nest1!r}\n\nSecond structure: {nest2!r}")


def _untyped(s):
    if s is None:
        return None
    kind, items = s
    if kind == "dict":
        return ("dict", tuple((k, _untyped(v)) for k, v in items))
    return ("seq", tuple(_untyped(v) for v in items))
