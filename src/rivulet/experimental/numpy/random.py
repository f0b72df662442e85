"""tnp.random: NumPy's random functions on TensorFlow's global-seeded random ops (tnp.random.seed sets it)."""
import numpy as _np

from ... import dtypes as _dt
from ...ops import np_behavior as _nb
from ...ops import random_ops as _ro

_POISSON = [None]  # a NumPy generator for poisson (no TensorFlow op here), made from the seed


def _float():
    return _dt.float32 if _nb.STATE["mode"] in ("all", "safe") else _dt.float64


def _size(size):
    if size is None:
        return []
    if isinstance(size, (int, _np.integer)):
        return [int(size)]
    return [int(s) for s in size]


def seed(s):
    """Sets the global random seed (tf.random.set_seed), as TensorFlow's tnp.random.seed."""
    from ...ops.random_ops import set_seed
    set_seed(int(s))
    _POISSON[0] = _np.random.default_rng(int(s))


def standard_normal(size=None):
    return _ro.normal(_size(size), dtype=_float())


def randn(*args):
    return standard_normal(args)


def uniform(low=0.0, high=1.0, size=None):
    d = _float()
    return _ro.uniform(_size(size), minval=_nb.to_dtype(low, d), maxval=_nb.to_dtype(high, d), dtype=d)


def rand(*size):
    return uniform(0.0, 1.0, size)


def random(size=None):  # noqa: A001
    return uniform(0.0, 1.0, size)


def randint(low, high=None, size=None, dtype=_np.int64):
    if high is None:
        low, high = 0, low
    d = _dt.as_dtype(_np.dtype(dtype))
    if not d.is_integer:
        raise ValueError(f"dtype must be an integer type, got {dtype}")
    return _ro.uniform(_size(size), minval=int(low), maxval=int(high), dtype=d)


def poisson(lam=1.0, size=None):
    from ...core.tensor import EagerTensor
    if _POISSON[0] is None:
        _POISSON[0] = _np.random.default_rng()
    lam = _np.asarray(getattr(lam, "_v", lam), dtype=_np.float64)
    return EagerTensor(_np.asarray(_POISSON[0].poisson(lam, size=None if size is None else tuple(_size(size))),
                                   dtype=_np.int64))

