"""flatten_with_paths, which tf.Module needs and rivulet.nest does not have (yet): lists, tuples and dicts
(by sorted key) are structure, everything else is a leaf, as in tf.nest."""


def _sorted_keys(d):
    try:
        return sorted(d)
    except TypeError:
        return list(d)


def flatten_with_paths(x, path=()):
    """[(path tuple, leaf)], paths made of list indices and dict keys."""
    if isinstance(x, dict):
        keys = _sorted_keys(x)
    elif isinstance(x, (list, tuple)):
        keys = range(len(x))
    else:
        return [(path, x)]
    out = []
    for k in keys:
        out.extend(flatten_with_paths(x[k], path + (k,)))
    return out
