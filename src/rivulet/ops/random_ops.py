"""Random ops (tf.random) and TensorFlow's seed semantics.

Seeds. Every random op carries attrs (seed, seed2), fixed when the op is created (eager call or trace):
- no global seed and no op seed: (0, 0), meaning "nondeterministic": the kernel draws from one generator
  seeded from OS entropy;
- a global seed (`tf.random.set_seed(g)`, or `graph.seed` of the graph being traced when set): (g, op seed),
  where a missing op seed comes from a counter: eagerly a `random.Random(g)` stream (as TensorFlow's eager
  context), while tracing the graph's own `_seed_offset` (TensorFlow uses the graph's op count), so a
  retrace gets the same seeds;
- only an op seed s: (87654321, s), TensorFlow's default graph seed.
The kernel draws from a NumPy PCG64 generator kept in `_STREAMS`, keyed by (seed, seed2) and created on first
use. Successive calls of one op (an eager call with an op seed, or the op inside a traced function) therefore
continue one stream and give new values each time; `set_seed` clears the table and the counter, so the same
program replays the same values. The values are NumPy's, not TensorFlow's Philox bits.

Random ops are `stateful=True`: never folded or deduplicated, and run in program order.
"""
import random as _pyrandom
from collections import OrderedDict

import numpy as np

from .. import dtypes as _dt
from ..core import context
from ..core.dispatch import bind
from ..core.op import FLOATS, defop
from ..core.tensor import Tensor
from ..errors import InvalidArgumentError
from ..shape import TensorShape
from ._rules import broadcast_shape, static_value, to_tensor
from . import math_ops as _m

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2 ** 31 - 1
_MAX_STREAMS = 10000  # eager calls under a global seed each make a stream: keep the newest ones

_global_seed = [None]
_op_seed_rng = [None]
_STREAMS = OrderedDict()
_ENTROPY = np.random.default_rng()


def set_seed(seed):
    """tf.random.set_seed: makes the following random ops reproducible; calling it again replays them."""
    s = None if seed is None else int(seed)
    _global_seed[0] = s
    _op_seed_rng[0] = None if s is None else _pyrandom.Random(s)
    _STREAMS.clear()


def get_global_seed():
    return _global_seed[0]


def op_seeds(op_seed=None):
    """(seed, seed2) attrs for a random op created now (TensorFlow's get_seed)."""
    g = context.current_graph()
    global_seed = g.seed if g is not None and g.seed is not None else _global_seed[0]
    if op_seed is not None:
        op_seed = int(static_value(op_seed) if isinstance(op_seed, Tensor) else op_seed)
    if global_seed is not None:
        if op_seed is None:
            if g is not None:
                op_seed = g._seed_offset
                g._seed_offset += 1
            else:
                op_seed = _op_seed_rng[0].randint(0, _MAXINT32)
        seeds = (int(global_seed), op_seed)
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, op_seed)
    else:
        return 0, 0
    return seeds if seeds != (0, 0) else (0, _MAXINT32)  # (0, 0) is reserved for "nondeterministic"


def generator(seed, seed2):
    """The NumPy generator behind the attrs (seed, seed2) of a random op."""
    if not seed and not seed2:
        return _ENTROPY
    key = (seed, seed2)
    g = _STREAMS.get(key)
    if g is None:
        g = _STREAMS[key] = np.random.Generator(np.random.PCG64([seed & 0xFFFFFFFFFFFFFFFF,
                                                                 seed2 & 0xFFFFFFFFFFFFFFFF]))
        if len(_STREAMS) > _MAX_STREAMS:
            _STREAMS.popitem(last=False)
    else:
        _STREAMS.move_to_end(key)
    return g


# ---------------------------------------------------------------- shapes
def _shape_tensor(shape):
    """The `shape` argument as an int tensor input (it may be computed in the graph, like tf.shape(x))."""
    if isinstance(shape, TensorShape):
        shape = shape.as_list()
    if isinstance(shape, Tensor):
        if shape.dtype not in (_dt.int32, _dt.int64):
            raise InvalidArgumentError(f"shape must be a vector of {{int32,int64}}, got {shape.dtype.name}")
        return shape
    dims = np.asarray([int(d) for d in shape] if isinstance(shape, (list, tuple)) else shape).reshape(-1)
    return to_tensor(dims.astype(np.int32))


def _shape_of(shape_t):
    v = static_value(shape_t)
    if v is not None:
        return TensorShape([int(d) for d in np.asarray(v).reshape(-1)])
    n = shape_t.shape[0] if shape_t.shape.rank == 1 else None
    return TensorShape(None) if n is None else TensorShape([None] * n)


def _dims(shape):
    dims = tuple(int(d) for d in np.asarray(shape).reshape(-1))
    if any(d < 0 for d in dims):
        raise InvalidArgumentError(f"Shape [{','.join(map(str, dims))}] must have non-negative dimensions")
    return dims


def _scaled_infer(shape, a, b, **_):
    return broadcast_shape(broadcast_shape(_shape_of(shape), a.shape), b.shape), a.dtype


# ---------------------------------------------------------------- uniform
def _unit_uniform(gen, dims, np_dtype):
    if np_dtype == np.float16:
        # float32 draws can round up to 1.0 in half precision: draw on the half-precision grid instead.
        return (gen.integers(0, 1024, dims, dtype=np.int16) / np.float32(1024)).astype(np.float16)
    return gen.random(dims, dtype=np_dtype)


def _uniform_kernel(shape, minval, maxval, seed, seed2):
    r = _unit_uniform(generator(seed, seed2), _dims(shape), minval.dtype)
    return r * (maxval - minval) + minval  # TensorFlow's order of operations


def _uniform_grad(op, dy):
    shape, lo, hi = op.inputs
    r = _m.divide_(_m.subtract(op.outputs[0], lo), _m.subtract(hi, lo))
    return None, _m.sum_to(_m.subtract(dy, _m.multiply(dy, r)), lo), _m.sum_to(_m.multiply(dy, r), hi)


def _uniform_int_kernel(shape, minval, maxval, seed, seed2):
    if minval >= maxval:
        raise InvalidArgumentError(f"Need minval < maxval, got {minval} >= {maxval}")
    return generator(seed, seed2).integers(minval, maxval, _dims(shape), dtype=minval.dtype)


def _uniform_int_infer(shape, minval, maxval, **_):
    for t, what in ((minval, "minval"), (maxval, "maxval")):
        if t.shape.rank not in (None, 0):
            raise ValueError(f"{what} must be 0-D, got shape {t.shape}")
    return _shape_of(shape), minval.dtype


RANDOM_UNIFORM = defop("RandomUniform", _uniform_kernel, _scaled_infer, grad=_uniform_grad, stateful=True)
RANDOM_UNIFORM_INT = defop("RandomUniformInt", _uniform_int_kernel, _uniform_int_infer, stateful=True)

_UNIFORM_TYPES = (_dt.float16, _dt.float32, _dt.float64, _dt.int32, _dt.int64)


def uniform(shape, minval=0, maxval=None, dtype=_dt.float32, seed=None, name=None):
    dtype = _dt.as_dtype(dtype)
    if dtype not in _UNIFORM_TYPES:
        raise ValueError(f"Argument `dtype` got invalid value {dtype}. Accepted dtypes are (tf.float16, "
                         f"tf.bfloat16, tf.float32, tf.float64, tf.int32, tf.int64).")
    if maxval is None:
        if dtype.is_integer:
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
        maxval = 1
    shape_t = _shape_tensor(shape)
    lo, hi = to_tensor(minval, dtype=dtype), to_tensor(maxval, dtype=dtype)
    seed1, seed2 = op_seeds(seed)
    op = RANDOM_UNIFORM_INT if dtype.is_integer else RANDOM_UNIFORM
    return bind(op, (shape_t, lo, hi), {"seed": seed1, "seed2": seed2}, name=name or "random_uniform")


# ---------------------------------------------------------------- normal, truncated normal
def _normal_draw(gen, dims, np_dtype):
    if np_dtype == np.float16:
        return gen.standard_normal(dims, dtype=np.float32).astype(np.float16)
    return gen.standard_normal(dims, dtype=np_dtype)


def _truncated_draw(gen, dims, np_dtype):
    """Standard normals redrawn until within two standard deviations, as TensorFlow's TruncatedNormal."""
    z = _normal_draw(gen, dims, np_dtype)
    bad = np.abs(z) > 2
    while bad.any():
        z[bad] = _normal_draw(gen, (int(bad.sum()),), np_dtype)
        bad = np.abs(z) > 2
    return z


def _normal_kernel_of(draw):
    def kernel(shape, mean, stddev, seed, seed2):
        return draw(generator(seed, seed2), _dims(shape), mean.dtype) * stddev + mean
    return kernel


def _normal_grad(op, dy):
    shape, mean, stddev = op.inputs
    z = _m.divide_(_m.subtract(op.outputs[0], mean), stddev)
    return None, _m.sum_to(dy, mean), _m.sum_to(_m.multiply(dy, z), stddev)


RANDOM_NORMAL = defop("RandomStandardNormal", _normal_kernel_of(_normal_draw), _scaled_infer, grad=_normal_grad,
                      stateful=True)
TRUNCATED_NORMAL = defop("TruncatedNormal", _normal_kernel_of(_truncated_draw), _scaled_infer, grad=_normal_grad,
                         stateful=True)


def _normal(op, default):
    def f(shape, mean=0.0, stddev=1.0, dtype=_dt.float32, seed=None, name=None):
        dtype = _dt.as_dtype(dtype)
        mean_t, std_t = to_tensor(mean, dtype=dtype), to_tensor(stddev, dtype=dtype)
        if dtype not in FLOATS:
            raise InvalidArgumentError(f"Value for attr 'dtype' of {dtype.name} is not in the list of allowed "
                                       f"values: half, bfloat16, float, double")
        seed1, seed2 = op_seeds(seed)
        return bind(op, (_shape_tensor(shape), mean_t, std_t), {"seed": seed1, "seed2": seed2},
                    name=name or default)
    f.__name__ = default
    return f


normal = _normal(RANDOM_NORMAL, "random_normal")
truncated_normal = _normal(TRUNCATED_NORMAL, "truncated_normal")


# ---------------------------------------------------------------- categorical, shuffle
def _categorical_kernel(logits, num_samples, seed, seed2, output_dtype):
    # Gumbel-max: argmax(logits + Gumbel noise) samples from softmax(logits), one row per batch entry.
    b, k = logits.shape
    g = generator(seed, seed2).gumbel(size=(b, int(num_samples), k))
    with np.errstate(invalid="ignore"):
        return np.argmax(logits.astype(np.float64)[:, None, :] + g, axis=-1).astype(output_dtype._np)


def _categorical_infer(logits, num_samples, seed, seed2, output_dtype):
    s = logits.shape
    if s.rank is not None and s.rank != 2:
        raise ValueError(f"logits should be a matrix, got shape {s}")
    n = static_value(num_samples)
    return TensorShape([s[0] if s.rank else None, None if n is None else int(n)]), output_dtype


MULTINOMIAL = defop("Multinomial", _categorical_kernel, _categorical_infer, stateful=True)


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    logits = to_tensor(logits)
    seed1, seed2 = op_seeds(seed)
    attrs = {"seed": seed1, "seed2": seed2, "output_dtype": _dt.as_dtype(dtype or _dt.int64)}
    return bind(MULTINOMIAL, (logits, to_tensor(num_samples, dtype=_dt.int32)), attrs, name=name or "Multinomial")


def _shuffle_kernel(x, seed, seed2):
    if np.ndim(x) == 0:
        raise InvalidArgumentError("input must be at least 1-D, got shape []")
    return generator(seed, seed2).permutation(x, axis=0)


def _shuffle_infer(x, **_):
    if x.shape.rank == 0:
        raise ValueError("input must be at least 1-D, got shape []")
    return x.shape, x.dtype


RANDOM_SHUFFLE = defop("RandomShuffle", _shuffle_kernel, _shuffle_infer, stateful=True)


def shuffle(value, seed=None, name=None):
    seed1, seed2 = op_seeds(seed)
    return bind(RANDOM_SHUFFLE, (to_tensor(value),), {"seed": seed1, "seed2": seed2}, name=name or "RandomShuffle")
