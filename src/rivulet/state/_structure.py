"""A small tf.nest: lists, tuples (namedtuples too) and dicts (in sorted key order) are structure;
everything else, including variables and tensors, is a leaf."""


def _is_seq(x):
    return isinstance(x, (list, tuple, dict))


def _children(x):
    if isinstance(x, dict):
        return [x[k] for k in _sorted_keys(x)]
    return list(x)


def _sorted_keys(d):
    try:
        return sorted(d)
    except TypeError:  # keys of mixed types: tf.nest sorts by their str() then
        return sorted(d, key=str)


def flatten(x):
    if not _is_seq(x):
        return [x]
    out = []
    for c in _children(x):
        out.extend(flatten(c))
    return out


def flatten_with_paths(x, path=()):
    """[(path tuple, leaf)], paths made of list indices and dict keys."""
    if not _is_seq(x):
        return [(path, x)]
    keys = _sorted_keys(x) if isinstance(x, dict) else range(len(x))
    out = []
    for k in keys:
        out.extend(flatten_with_paths(x[k], path + (k,)))
    return out


def pack_sequence_as(structure, flat):
    it = iter(flat)
    out = _pack(structure, it)
    return out


def _pack(s, it):
    if not _is_seq(s):
        return next(it)
    if isinstance(s, dict):
        vals = {k: _pack(s[k], it) for k in _sorted_keys(s)}
        return type(s)((k, vals[k]) for k in s)
    items = [_pack(c, it) for c in s]
    if isinstance(s, tuple) and hasattr(s, "_fields"):
        return type(s)(*items)
    return type(s)(items)
