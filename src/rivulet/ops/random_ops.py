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
    if isinstance(shape, (list, tuple)):
        for d in shape:
            if isinstance(d, (list, tuple)) or np.ndim(d) > 0:
                raise InvalidArgumentError(f"`shape` must be a vector (rank 1) of integers, got {shape!r}")
            if isinstance(d, (float, np.floating, str, bytes)) or d is None:
                raise InvalidArgumentError(f"`shape` must be integers (int32 or int64), got {shape!r}")
        dims = np.asarray([int(d) for d in shape])
    else:
        dims = np.asarray(shape)
        if dims.ndim > 1:
            raise InvalidArgumentError(f"`shape` must be a vector (rank 1) of integers, got shape {list(dims.shape)}")
        if dims.size and dims.dtype.kind not in "iu":
            raise InvalidArgumentError(f"`shape` must be integers (int32 or int64), got {shape!r}")
    return to_tensor(dims.reshape(-1).astype(np.int32))


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


# ---------------------------------------------------------------- stateless random ops
# The values are a pure function of (shape, seed): a fresh NumPy PCG64 generator keyed by the two seed
# integers. They are NOT TensorFlow's Philox values (same seed, different numbers), only as deterministic.
_STATELESS_SALT = 0x5EED5EED


def _stateless_gen(seed):
    s = np.asarray(seed).reshape(-1)
    if s.shape != (2,):
        raise InvalidArgumentError(f"seed must have shape [2], not {list(np.shape(seed))}")
    return np.random.Generator(np.random.PCG64([int(s[0]) & 0xFFFFFFFFFFFFFFFF, int(s[1]) & 0xFFFFFFFFFFFFFFFF,
                                                _STATELESS_SALT]))


def _stateless_infer(shape, seed, *rest, dtype):
    if seed.shape.rank is not None and not seed.shape.is_compatible_with([2]):
        raise ValueError(f"seed must have shape [2], not {seed.shape.as_list()}")
    return _shape_of(shape), dtype


def _stateless_kernel_of(draw):
    def kernel(shape, seed, dtype):
        return draw(_stateless_gen(seed), _dims(shape), dtype._np)
    return kernel


def _stateless_int_kernel(shape, seed, minval, maxval, dtype):
    if minval >= maxval:
        raise InvalidArgumentError(f"Need minval < maxval, got {minval} >= {maxval}")
    return _stateless_gen(seed).integers(minval, maxval, _dims(shape), dtype=dtype._np)


def _stateless_full_int_kernel(shape, seed, dtype):
    info = np.iinfo(dtype._np)
    return _stateless_gen(seed).integers(info.min, info.max, _dims(shape), dtype=dtype._np, endpoint=True)


STATELESS_UNIFORM = defop("StatelessRandomUniform", _stateless_kernel_of(_unit_uniform), _stateless_infer)
STATELESS_NORMAL = defop("StatelessRandomNormal", _stateless_kernel_of(_normal_draw), _stateless_infer)
STATELESS_TRUNCATED_NORMAL = defop("StatelessTruncatedNormal", _stateless_kernel_of(_truncated_draw),
                                   _stateless_infer)
STATELESS_UNIFORM_INT = defop("StatelessRandomUniformInt", _stateless_int_kernel, _stateless_infer)
STATELESS_UNIFORM_FULL_INT = defop("StatelessRandomUniformFullInt", _stateless_full_int_kernel, _stateless_infer)


def _seed_tensor(seed):
    s = seed if isinstance(seed, Tensor) else to_tensor(np.asarray(seed))
    if s.dtype not in (_dt.int32, _dt.int64):
        raise TypeError(f"seed must be an int32 or int64 tensor of shape [2], got {s.dtype.name}")
    if s.shape.rank is not None and not s.shape.is_compatible_with([2]):
        raise ValueError(f"seed must have shape [2], not {s.shape.as_list()}")
    return s


def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=_dt.float32, name=None, alg="auto_select"):
    """Uniform values in [minval, maxval), a deterministic function of `shape` and the 2-integer `seed`.

    Same seed and shape, same values (eagerly and in tf.function); the values are not TensorFlow's (NumPy's
    PCG64 keyed by the seed, not Philox). Integer dtypes need both bounds, or neither (the full range)."""
    dtype = _dt.as_dtype(dtype)
    if dtype not in _UNIFORM_TYPES + (_dt.uint32, _dt.uint64):
        raise ValueError(f"Argument `dtype` got invalid value {dtype}.")
    shape_t, seed_t = _shape_tensor(shape), _seed_tensor(seed)
    if dtype.is_integer:
        if minval is None and maxval is None:
            return bind(STATELESS_UNIFORM_FULL_INT, (shape_t, seed_t), {"dtype": dtype},
                        name=name or "stateless_random_uniform")
        if minval is None or maxval is None:
            raise ValueError(f"For integer dtype {dtype!r}, minval and maxval must be both `None` or both "
                             "non-`None`.")
        lo, hi = to_tensor(minval, dtype=dtype), to_tensor(maxval, dtype=dtype)
        return bind(STATELESS_UNIFORM_INT, (shape_t, seed_t, lo, hi), {"dtype": dtype},
                    name=name or "stateless_random_uniform")
    if dtype not in (_dt.float16, _dt.float32, _dt.float64):
        raise ValueError(f"Argument `dtype` got invalid value {dtype}.")
    lo = to_tensor(minval, dtype=dtype)
    hi = to_tensor(1 if maxval is None else maxval, dtype=dtype)
    r = bind(STATELESS_UNIFORM, (shape_t, seed_t), {"dtype": dtype}, name="StatelessRandomUniform")
    return _m.add(_m.multiply(r, _m.subtract(hi, lo)), lo, name=name or "stateless_random_uniform")


def _stateless_normal_fn(op, default):
    def f(shape, seed, mean=0.0, stddev=1.0, dtype=_dt.float32, name=None, alg="auto_select"):
        dtype = _dt.as_dtype(dtype)
        if dtype not in (_dt.float16, _dt.float32, _dt.float64):
            raise InvalidArgumentError(f"Value for attr 'dtype' of {dtype.name} is not in the list of allowed "
                                       f"values: half, bfloat16, float, double")
        mean_t, std_t = to_tensor(mean, dtype=dtype), to_tensor(stddev, dtype=dtype)
        z = bind(op, (_shape_tensor(shape), _seed_tensor(seed)), {"dtype": dtype}, name=op.name)
        return _m.add(_m.multiply(z, std_t), mean_t, name=name or default)
    f.__name__ = default
    f.__doc__ = (f"tf.random.{default}: a deterministic function of `shape` and the 2-integer `seed`; the values "
                 "are not TensorFlow's (NumPy PCG64 keyed by the seed, not Philox).")
    return f


stateless_normal = _stateless_normal_fn(STATELESS_NORMAL, "stateless_normal")
stateless_truncated_normal = _stateless_normal_fn(STATELESS_TRUNCATED_NORMAL, "stateless_truncated_normal")


# ---------------------------------------------------------------- tf.random.Generator
class Generator:
    """A random generator whose state is a tf.Variable (int64, shape [3]: counter, 0, key).

    Each draw increments the counter (inside tf.function too, where the update is part of the graph) and
    draws the stateless op seeded with (key, counter): a new value per call, reproducible from the seed.
    The values are not TensorFlow's Philox values."""

    def __init__(self, copy_from=None, state=None, alg=None):
        from ..state.variables import Variable
        if copy_from is not None:
            state = copy_from.state.numpy()
        if state is None:
            raise ValueError("tf.random.Generator needs `copy_from` or `state` (or use from_seed)")
        st = np.asarray(state.numpy() if isinstance(state, Tensor) else state, dtype=np.int64).reshape(-1)
        if st.shape != (3,):
            raise ValueError(f"Generator state must have shape [3], got {list(st.shape)}")
        self._alg = alg or "philox"
        self._state_var = Variable(st, dtype=_dt.int64, trainable=False, name="StatefulRandomGenerator")

    @classmethod
    def from_seed(cls, seed, alg=None):
        s = int(np.asarray(seed.numpy() if isinstance(seed, Tensor) else seed))
        return cls(state=[0, 0, s], alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        return cls(state=[0, 0, int(_ENTROPY.integers(0, 2 ** 63 - 1))], alg=alg)

    @classmethod
    def from_state(cls, state, alg=None):
        return cls(state=state, alg=alg)

    state = property(lambda self: self._state_var)
    algorithm = property(lambda self: self._alg)

    def reset_from_seed(self, seed):
        self._state_var.assign(np.array([0, 0, int(seed)], np.int64))

    def _next_seed(self):
        from .array_ops import stack
        new = self._state_var.assign_add(np.array([1, 0, 0], np.int64))
        return stack([new[2], new[0]])

    def uniform(self, shape, minval=0, maxval=None, dtype=_dt.float32, name=None):
        return stateless_uniform(shape, self._next_seed(), minval=minval, maxval=maxval, dtype=dtype, name=name)

    def uniform_full_int(self, shape, dtype=_dt.uint64, name=None):
        return stateless_uniform(shape, self._next_seed(), minval=None, maxval=None, dtype=dtype, name=name)

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=_dt.float32, name=None):
        return stateless_normal(shape, self._next_seed(), mean=mean, stddev=stddev, dtype=dtype, name=name)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=_dt.float32, name=None):
        return stateless_truncated_normal(shape, self._next_seed(), mean=mean, stddev=stddev, dtype=dtype,
                                          name=name)

    def make_seeds(self, count=1):
        """[2, count] int64 seeds for the stateless ops, drawn from this generator."""
        return stateless_uniform([2, count], self._next_seed(), minval=None, maxval=None, dtype=_dt.int64)

    def split(self, count=1):
        """`count` new generators seeded from this one (this one's state advances)."""
        seeds = self.make_seeds(count).numpy()
        return [Generator(state=[0, 0, int(seeds[0, i]) ^ int(seeds[1, i])], alg=self._alg) for i in range(count)]
