"""Random ops (tf.random) with TensorFlow's seed semantics and TensorFlow's numbers (Philox, see philox.py).

Seeds. Every stateful random op carries attrs (seed, seed2), fixed when the op is created (eager call or trace):
- no global seed and no op seed: (0, 0), meaning "nondeterministic": each draw's words are random (TensorFlow
  draws them under a key from OS entropy; rivulet takes them from an OS-seeded PCG64, see philox.entropy_stream);
- a global seed (`tf.random.set_seed(g)`, or `graph.seed` of the graph being traced when set): (g, op seed),
  where a missing op seed comes from a counter: eagerly a `random.Random(g)` stream (as TensorFlow's eager
  context), while tracing the graph's own `_seed_offset`, so a retrace gets the same seeds;
- only an op seed s: (87654321, s), TensorFlow's default graph seed.

Streams. A kernel with attrs (seed, seed2) draws Philox with key `seed` from counter `seed2 << 64`; each draw of
n values reserves 256 n calls of it (TensorFlow's reservation), so the next draw of the same kernel continues
where it left off. TensorFlow keeps that position in the kernel object: eagerly one kernel per (op type, dtype,
seed, seed2), cached; in a graph one per node. rivulet keeps it in `_STREAMS`, keyed the same way (a graph node
gets a unique `stream` attr when created); `set_seed` clears it, so the same program replays the same values.

Random ops are `stateful=True`: never folded or deduplicated, and run in program order.
"""
import itertools
import random as _pyrandom
import threading
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
from . import philox

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2 ** 31 - 1
_M64 = 0xFFFFFFFFFFFFFFFF
_MAX_STREAMS = 10000  # eager calls under a global seed each make a stream: keep the newest ones

_global_seed = [None]
_op_seed_rng = [None]
_STREAMS = OrderedDict()
_STREAMS_LOCK = threading.Lock()
_NODE_IDS = itertools.count(1)
_ENTROPY = np.random.default_rng()


def set_seed(seed):
    """tf.random.set_seed: makes the following random ops reproducible; calling it again replays them."""
    s = None if seed is None else int(seed)
    _global_seed[0] = s
    _op_seed_rng[0] = None if s is None else _pyrandom.Random(s)
    with _STREAMS_LOCK:
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


def stream_attr():
    """The `stream` attr of a stateful random op created now: None eagerly (the kernel is shared by every call
    with the same op type, dtype and seeds), a fresh id for a graph node (its own kernel)."""
    return None if context.current_graph() is None else next(_NODE_IDS)


def reserve(kernel, seed, seed2, values):
    """(key, counter) of the next draw by `kernel` (an op's `stream` attr, or its eager identity) with attrs
    (seed, seed2), reserving 256 calls per value for it. A nondeterministic draw (attrs (0, 0)): (None, None),
    which philox's functions take as "random words"."""
    if not seed and not seed2:
        return None, None
    with _STREAMS_LOCK:
        used = _STREAMS.pop(kernel, 0)
        _STREAMS[kernel] = used + philox.CALLS_PER_VALUE * values
        if len(_STREAMS) > _MAX_STREAMS:
            _STREAMS.popitem(last=False)
    return seed & _M64, (((seed2 & _M64) << 64) + used) & ((1 << 128) - 1)


def _kernel_id(name, dtype, seed, seed2, stream):
    return (name, dtype, seed, seed2) if stream is None else stream


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


def static_shape_of(shape_t):
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
    return broadcast_shape(broadcast_shape(static_shape_of(shape), a.shape), b.shape), a.dtype


# ---------------------------------------------------------------- uniform
def uniform_values(kernel, seed, seed2, dims, np_dtype):
    """Unit uniforms in `dims` as TensorFlow's RandomUniform kernel `kernel` draws them next (also used by
    dropout, whose eager kernel TensorFlow shares with tf.random.uniform's)."""
    n = int(np.prod(dims, dtype=np.int64))
    key, counter = reserve(kernel, seed, seed2, n)
    return philox.uniform(key, counter, n, np_dtype).reshape(dims)


def uniform_at_least(kernel, seed, seed2, dims, np_dtype, threshold):
    """uniform_values(kernel, seed, seed2, dims, np_dtype) >= threshold, as bools, without making the floats
    (dropout's keep mask; the same draw, so the kernel's stream advances alike)."""
    n = int(np.prod(dims, dtype=np.int64))
    key, counter = reserve(kernel, seed, seed2, n)
    return philox.uniform_at_least(key, counter, n, np_dtype, threshold).reshape(dims)


def _uniform_kernel(shape, minval, maxval, seed, seed2, stream=None):
    dims = _dims(shape)
    r = uniform_values(_kernel_id("RandomUniform", minval.dtype, seed, seed2, stream), seed, seed2, dims,
                       minval.dtype)
    if np.ndim(minval) == 0 == np.ndim(maxval) and minval == 0 and maxval == 1:  # r * 1 + 0 is r (r >= +0)
        return r
    return r * (maxval - minval) + minval  # TensorFlow's order of operations


def _uniform_grad(op, dy):
    shape, lo, hi = op.inputs
    r = _m.divide_(_m.subtract(op.outputs[0], lo), _m.subtract(hi, lo))
    return None, _m.sum_to(_m.subtract(dy, _m.multiply(dy, r)), lo), _m.sum_to(_m.multiply(dy, r), hi)


def _uniform_int_kernel(shape, minval, maxval, seed, seed2, stream=None):
    if minval >= maxval:
        raise InvalidArgumentError(f"Need minval < maxval, got {minval} >= {maxval}")
    dims = _dims(shape)
    n = int(np.prod(dims, dtype=np.int64))
    key, counter = reserve(_kernel_id("RandomUniformInt", minval.dtype, seed, seed2, stream), seed, seed2, n)
    return philox.uniform_int(key, counter, n, minval, maxval, minval.dtype).reshape(dims)


def _uniform_int_infer(shape, minval, maxval, **_):
    for t, what in ((minval, "minval"), (maxval, "maxval")):
        if t.shape.rank not in (None, 0):
            raise ValueError(f"{what} must be 0-D, got shape {t.shape}")
    return static_shape_of(shape), minval.dtype


RANDOM_UNIFORM = defop("RandomUniform", _uniform_kernel, _scaled_infer, grad=_uniform_grad, stateful=True)
RANDOM_UNIFORM_INT = defop("RandomUniformInt", _uniform_int_kernel, _uniform_int_infer, stateful=True)

_UNIFORM_TYPES = (_dt.float16, _dt.float32, _dt.float64, _dt.int32, _dt.int64)


def _seed_attrs(seed):
    seed1, seed2 = op_seeds(seed)
    return {"seed": seed1, "seed2": seed2, "stream": stream_attr()}


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
    op = RANDOM_UNIFORM_INT if dtype.is_integer else RANDOM_UNIFORM
    return bind(op, (shape_t, lo, hi), _seed_attrs(seed), name=name or "random_uniform")


# ---------------------------------------------------------------- normal, truncated normal
def _normal_kernel_of(name, draw):
    def kernel(shape, mean, stddev, seed, seed2, stream=None):
        dims = _dims(shape)
        n = int(np.prod(dims, dtype=np.int64))
        key, counter = reserve(_kernel_id(name, mean.dtype, seed, seed2, stream), seed, seed2, n)
        z = draw(key, counter, n, mean.dtype).reshape(dims)
        # z * 1 + 0 is z: the draws are never -0.0 (a float16 one can be: tiny values round to zero)
        if np.ndim(stddev) == 0 == np.ndim(mean) and stddev == 1 and mean == 0 and z.dtype != np.float16:
            return z
        return z * stddev + mean
    return kernel


def _normal_grad(op, dy):
    shape, mean, stddev = op.inputs
    z = _m.divide_(_m.subtract(op.outputs[0], mean), stddev)
    return None, _m.sum_to(dy, mean), _m.sum_to(_m.multiply(dy, z), stddev)


RANDOM_NORMAL = defop("RandomStandardNormal", _normal_kernel_of("RandomStandardNormal", philox.normal),
                      _scaled_infer, grad=_normal_grad, stateful=True)
TRUNCATED_NORMAL = defop("TruncatedNormal", _normal_kernel_of("TruncatedNormal", philox.truncated_normal),
                         _scaled_infer, grad=_normal_grad, stateful=True)


def _normal(op, default):
    def f(shape, mean=0.0, stddev=1.0, dtype=_dt.float32, seed=None, name=None):
        dtype = _dt.as_dtype(dtype)
        mean_t, std_t = to_tensor(mean, dtype=dtype), to_tensor(stddev, dtype=dtype)
        if dtype not in FLOATS:
            raise InvalidArgumentError(f"Value for attr 'dtype' of {dtype.name} is not in the list of allowed "
                                       f"values: half, bfloat16, float, double")
        return bind(op, (_shape_tensor(shape), mean_t, std_t), _seed_attrs(seed), name=name or default)
    f.__name__ = default
    return f


normal = _normal(RANDOM_NORMAL, "random_normal")
truncated_normal = _normal(TRUNCATED_NORMAL, "truncated_normal")


# ---------------------------------------------------------------- categorical, shuffle
def _sample_rows(logits, num_samples, key, counter, out_dtype):
    """TensorFlow's CPU multinomial: row b's samples read words from 2 * num_samples * b on, two per sample (a
    double in [0, 1) scaled by the row's total), looked up in the row's cumulative exp(logit - max), in double;
    non-finite logits get probability 0."""
    b, k = logits.shape
    ns = int(num_samples)
    w = philox.stream(key, counter, (2 * b * ns + 3) // 4)[:2 * b * ns].reshape(b, ns, 2)
    x = logits.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        p = np.where(np.isfinite(x), np.exp(x - x.max(axis=1, keepdims=True)), 0.0) if k else x
    cdf = np.cumsum(p, axis=1)
    out = np.empty((b, ns), out_dtype._np)
    for i in range(b):
        u = philox.to_float64(w[i, :, 0], w[i, :, 1]) * (cdf[i, -1] if k else 0.0)
        out[i] = np.searchsorted(cdf[i], u, side="right")
    return out


def _categorical_kernel(logits, num_samples, seed, seed2, output_dtype, stream=None):
    b, ns = logits.shape[0], int(num_samples)
    kernel = _kernel_id("Multinomial", logits.dtype, seed, seed2, stream)
    key, counter = reserve(kernel, seed, seed2, b * ((ns + 3) // 4 * 4) * 2)  # doubles: 2 words per sample
    return _sample_rows(logits, ns, key, counter, output_dtype)


def _categorical_infer(logits, num_samples, seed=None, seed2=None, output_dtype=None, stream=None):
    s = logits.shape
    if s.rank is not None and s.rank != 2:
        raise ValueError(f"logits should be a matrix, got shape {s}")
    n = static_value(num_samples)
    return TensorShape([s[0] if s.rank else None, None if n is None else int(n)]), output_dtype


MULTINOMIAL = defop("Multinomial", _categorical_kernel, _categorical_infer, stateful=True)


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    logits = to_tensor(logits)
    attrs = {**_seed_attrs(seed), "output_dtype": _dt.as_dtype(dtype or _dt.int64)}
    return bind(MULTINOMIAL, (logits, to_tensor(num_samples, dtype=_dt.int32)), attrs, name=name or "Multinomial")


def _shuffle_kernel(x, seed, seed2, stream=None):
    if np.ndim(x) == 0:
        raise InvalidArgumentError("input must be at least 1-D, got shape []")
    n = len(x)
    kernel = _kernel_id("RandomShuffle", x.dtype, seed, seed2, stream)
    if not seed and not seed2:
        key, counter = reserve(kernel, seed, seed2, 0)
    else:  # this kernel reserves one word per swap, not 256 calls per value
        with _STREAMS_LOCK:
            used = _STREAMS.pop(kernel, 0)
            _STREAMS[kernel] = used + (max(n - 1, 0) + 3) // 4
        key, counter = seed & _M64, (((seed2 & _M64) << 64) + used) & ((1 << 128) - 1)
    # Fisher-Yates from the front: position i swaps with i + word % (n - i).
    w = philox.stream(key, counter, (max(n - 1, 0) + 3) // 4).astype(np.int64)
    perm = list(range(n))
    for i, r in enumerate((w[:max(n - 1, 0)] % np.arange(n, 1, -1)).tolist()):
        j = i + r
        perm[i], perm[j] = perm[j], perm[i]
    return x[np.asarray(perm, np.intp)] if n else x.copy()


def _shuffle_infer(x, **_):
    if x.shape.rank == 0:
        raise ValueError("input must be at least 1-D, got shape []")
    return x.shape, x.dtype


RANDOM_SHUFFLE = defop("RandomShuffle", _shuffle_kernel, _shuffle_infer, stateful=True)


def shuffle(value, seed=None, name=None):
    return bind(RANDOM_SHUFFLE, (to_tensor(value),), _seed_attrs(seed), name=name or "RandomShuffle")


# ---------------------------------------------------------------- stateless random ops
# The values are a pure function of (shape, seed): Philox with the key and counter scrambled from the seed
# (philox.stateless_key_counter), the numbers TensorFlow's stateless ops give on the CPU.
def _key_counter(seed):
    s = np.asarray(seed).reshape(-1)
    if s.shape != (2,):
        raise InvalidArgumentError(f"seed must have shape [2], not {list(np.shape(seed))}")
    return philox.stateless_key_counter(int(s[0]), int(s[1]))


def _stateless_infer(shape, seed, *rest, dtype):
    if seed.shape.rank is not None and not seed.shape.is_compatible_with([2]):
        raise ValueError(f"seed must have shape [2], not {seed.shape.as_list()}")
    return static_shape_of(shape), dtype


def _stateless_kernel_of(draw):
    def kernel(shape, seed, dtype):
        dims = _dims(shape)
        return draw(*_key_counter(seed), int(np.prod(dims, dtype=np.int64)), dtype._np).reshape(dims)
    return kernel


def _check_bounds(minval, maxval):
    if minval >= maxval:
        raise InvalidArgumentError(f"Need minval < maxval, got {minval} >= {maxval}")


def _stateless_int_kernel(shape, seed, minval, maxval, dtype):
    _check_bounds(minval, maxval)
    dims = _dims(shape)
    n = int(np.prod(dims, dtype=np.int64))
    return philox.uniform_int(*_key_counter(seed), n, minval, maxval, dtype._np).reshape(dims)


def _stateless_full_int_kernel(shape, seed, dtype):
    dims = _dims(shape)
    return philox.full_int(*_key_counter(seed), int(np.prod(dims, dtype=np.int64)), dtype._np).reshape(dims)


STATELESS_UNIFORM = defop("StatelessRandomUniform", _stateless_kernel_of(philox.uniform), _stateless_infer)
STATELESS_NORMAL = defop("StatelessRandomNormal", _stateless_kernel_of(philox.normal), _stateless_infer)
STATELESS_TRUNCATED_NORMAL = defop("StatelessTruncatedNormal", _stateless_kernel_of(philox.truncated_normal),
                                   _stateless_infer)
STATELESS_UNIFORM_INT = defop("StatelessRandomUniformInt", _stateless_int_kernel, _stateless_infer)
STATELESS_UNIFORM_FULL_INT = defop("StatelessRandomUniformFullInt", _stateless_full_int_kernel, _stateless_infer)


def _stateless_categorical_kernel(logits, num_samples, seed, output_dtype):
    return _sample_rows(logits, int(num_samples), *_key_counter(seed), output_dtype)


STATELESS_MULTINOMIAL = defop("StatelessMultinomial", _stateless_categorical_kernel,
                              lambda logits, num_samples, seed, output_dtype:
                              _categorical_infer(logits, num_samples, output_dtype=output_dtype))


def _check_alg(alg):
    a = alg.value if hasattr(alg, "value") else alg
    if a in ("philox", "auto_select", 1, 3, None):
        return
    if a in ("threefry", 2):
        raise NotImplementedError("rivulet implements the Philox random algorithm only (TensorFlow's default on "
                                  "the CPU); use alg='philox' or 'auto_select'")
    raise ValueError(f"Argument `alg` got unsupported value {alg}. Supported values are "
                     "Algorithm.PHILOX, Algorithm.THREEFRY, Algorithm.AUTO_SELECT.")


def _seed_tensor(seed):
    s = seed if isinstance(seed, Tensor) else to_tensor(seed)  # Python ints: int32, as TensorFlow converts them
    if s.dtype not in (_dt.int32, _dt.int64):
        raise TypeError(f"seed must be an int32 or int64 tensor of shape [2], got {s.dtype.name}")
    if s.shape.rank is not None and not s.shape.is_compatible_with([2]):
        raise ValueError(f"seed must have shape [2], not {s.shape.as_list()}")
    return s


def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=_dt.float32, name=None, alg="auto_select"):
    """Uniform values in [minval, maxval), a deterministic function of `shape` and the 2-integer `seed`: the
    values TensorFlow gives. Integer dtypes need both bounds, or neither (the full range)."""
    _check_alg(alg)
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
        _check_alg(alg)
        dtype = _dt.as_dtype(dtype)
        if dtype not in (_dt.float16, _dt.float32, _dt.float64):
            raise InvalidArgumentError(f"Value for attr 'dtype' of {dtype.name} is not in the list of allowed "
                                       f"values: half, bfloat16, float, double")
        mean_t, std_t = to_tensor(mean, dtype=dtype), to_tensor(stddev, dtype=dtype)
        z = bind(op, (_shape_tensor(shape), _seed_tensor(seed)), {"dtype": dtype}, name=op.name)
        return _m.add(_m.multiply(z, std_t), mean_t, name=name or default)
    f.__name__ = default
    f.__doc__ = f"tf.random.{default}: a deterministic function of `shape` and the 2-integer `seed` (TensorFlow's values)."
    return f


stateless_normal = _stateless_normal_fn(STATELESS_NORMAL, "stateless_normal")
stateless_truncated_normal = _stateless_normal_fn(STATELESS_TRUNCATED_NORMAL, "stateless_truncated_normal")


def stateless_categorical(logits, num_samples, seed, dtype=_dt.int64, name=None):
    logits = to_tensor(logits)
    return bind(STATELESS_MULTINOMIAL, (logits, to_tensor(num_samples, dtype=_dt.int32), _seed_tensor(seed)),
                {"output_dtype": _dt.as_dtype(dtype)}, name=name or "stateless_categorical")


def stateless_split(seed, num=2, alg="auto_select"):
    """tf.random.experimental.stateless_split: `num` new seeds ([num, 2]) derived from `seed`."""
    seed_t = _seed_tensor(seed)
    return stateless_uniform([num, 2], seed_t, minval=None, maxval=None, dtype=seed_t.dtype, alg=alg)


def stateless_fold_in(seed, data, alg="auto_select"):
    """tf.random.experimental.stateless_fold_in: a new seed from `seed` and the integer `data`."""
    from .array_ops import stack
    seed_t = _seed_tensor(seed)
    first = stateless_uniform([], seed_t, minval=None, maxval=None, dtype=seed_t.dtype, alg=alg)
    return stack([first, to_tensor(data, dtype=seed_t.dtype)])


# ---------------------------------------------------------------- Philox from an explicit key and counter
# TensorFlow's Stateless*V2 ops: what tf.random.Generator draws with, the key and counter read from its state.
def _kc(key, counter):
    k = np.asarray(key).reshape(-1).astype(np.uint64)
    c = np.asarray(counter).reshape(-1).astype(np.uint64)
    if k.shape != (1,) or c.shape != (2,):
        raise InvalidArgumentError(f"key must have shape [1] and counter shape [2], got {list(np.shape(key))} "
                                   f"and {list(np.shape(counter))}")
    return int(k[0]), int(c[0]) | int(c[1]) << 64


def _v2_infer(shape, key, counter, *rest, dtype):
    return static_shape_of(shape), dtype


def _v2_kernel_of(draw):
    def kernel(shape, key, counter, dtype):
        dims = _dims(shape)
        return draw(*_kc(key, counter), int(np.prod(dims, dtype=np.int64)), dtype._np).reshape(dims)
    return kernel


def _v2_int_kernel(shape, key, counter, minval, maxval, dtype):
    _check_bounds(minval, maxval)
    dims = _dims(shape)
    return philox.uniform_int(*_kc(key, counter), int(np.prod(dims, dtype=np.int64)), minval, maxval,
                              dtype._np).reshape(dims)


V2_OPS = {
    "uniform": defop("StatelessRandomUniformV2", _v2_kernel_of(philox.uniform), _v2_infer),
    "normal": defop("StatelessRandomNormalV2", _v2_kernel_of(philox.normal), _v2_infer),
    "truncated_normal": defop("StatelessTruncatedNormalV2", _v2_kernel_of(philox.truncated_normal), _v2_infer),
    "full_int": defop("StatelessRandomUniformFullIntV2", _v2_kernel_of(philox.full_int), _v2_infer),
    "int": defop("StatelessRandomUniformIntV2", _v2_int_kernel, _v2_infer),
}


# ---------------------------------------------------------------- tf.random.Generator
class Algorithm:
    """tf.random.Algorithm."""

    class _Alg(int):
        def __new__(cls, name, value):
            self = int.__new__(cls, value)
            self.name, self.value = name, value
            return self

        def __repr__(self):
            return f"<Algorithm.{self.name}: {self.value}>"

        __str__ = lambda self: f"Algorithm.{self.name}"  # noqa: E731

    PHILOX = _Alg("PHILOX", 1)
    THREEFRY = _Alg("THREEFRY", 2)
    AUTO_SELECT = _Alg("AUTO_SELECT", 3)


def _alg_int(alg):
    _check_alg(alg)
    return 1  # Philox (auto_select picks it on the CPU)


def _state_from_seed(seed):
    """A Generator state from a seed: an int is cut into 64-bit words, low first; a list is padded on the left."""
    if isinstance(seed, Tensor):
        seed = seed.numpy()
    if isinstance(seed, (int, np.integer)):
        seed, words = int(seed), []
        for _ in range(3):
            words.append(seed & _M64)
            seed >>= 64
    else:
        words = [int(v) & _M64 for v in np.asarray(seed).reshape(-1)][:3]
        words = [0] * (3 - len(words)) + words
    return np.array(words, np.uint64).view(np.int64)


# The replica a generator draws in. tf.distribute (a higher layer) registers, when it loads, a function giving the
# calling thread's innermost (strategy, replica context or None in cross-replica context), or None outside every
# strategy. A replica context has `_replica_id` (its id in the sync group) and `_replica`: None when the strategy
# runs its one local replica inline, else the replica's thread, with `index` (0 for the first local replica) and
# `_run` (one object per `strategy.run`).
_replica_context_fn = [None]


def register_replica_context(fn):
    """Called by rivulet.distribute: `fn()` -> None or (strategy, replica context or None)."""
    _replica_context_fn[0] = fn


def _current_distribution():
    fn = _replica_context_fn[0]
    return fn() if fn is not None else None


def _hash_key(key, replica_id):
    """A replica's key: one uint64 drawn with the generator's key from counter [replica_id, 0]."""
    return philox.full_int(int(np.asarray(key).reshape(-1).astype(np.uint64)[0]), int(replica_id), 1,
                           np.uint64)


_STATE_CLASS = {}


def _mirrored_state_class(base):
    """The class of a strategy's generator's state variable: a subclass of its class `base` (a
    ResourceVariable, or the distribution layer's MirroredVariable), named as `base` is, where an assign in
    cross-replica context (a checkpoint restoring it too) sets every replica's copy, as on TensorFlow's
    mirrored state; in a replica, where TensorFlow would set that replica's copy alone, it is refused."""
    cls = _STATE_CLASS.get(base)
    if cls is None:
        from ..state.resource_ops import ASSIGN

        class MirroredState(base):
            def _update(self, op, value, name, read_value):
                if op is not ASSIGN:
                    return super()._update(op, value, name, read_value)
                where = _current_distribution()
                if where is not None and where[1] is not None:
                    raise NotImplementedError(
                        f"assigning the state '{self.name}' of a tf.random.Generator that belongs to a strategy "
                        f"inside a replica (TensorFlow sets that replica's copy alone) is not supported: assign "
                        f"it in cross-replica context, which sets every replica's copy")
                out = super()._update(op, value, name, read_value)
                offsets = self._generator_offsets
                offsets.assign(np.zeros(offsets.shape[0], np.int64))
                return out
        MirroredState.__name__ = MirroredState.__qualname__ = base.__name__
        cls = _STATE_CLASS.setdefault(base, MirroredState)
    return cls


class Generator:
    """tf.random.Generator: a Philox stream whose state is a tf.Variable (int64 [3]: the 128-bit counter, low
    word first, then the key). A draw of n values uses the counter as it is and advances it by 256 n, as
    TensorFlow's stateful kernels do, so the values are TensorFlow's, eagerly and inside tf.function.

    A generator made under a tf.distribute strategy (in its scope, or in `strategy.run`) belongs to it, as
    TensorFlow's: its state is mirrored, so in `strategy.run` every replica starts from the same counter and
    the state advances once per draw, not once per replica; and each replica draws with its own key, the
    generator's key hashed with the replica's id (replica 0 too, and with one replica too). In cross-replica
    context the draw is the plain one.

    As TensorFlow's mirrored state, each local replica has a copy of the state of its own: a replica's draws
    advance only its copy, so replicas that draw different amounts (other shapes, an untaken tf.cond branch)
    drift apart, and stay apart in later runs; a cross-replica draw or skip advances every copy, a reset sets
    them all. The state variable is replica 0's copy; `_offsets` (int64 [local replicas], made with the
    generator) holds each other copy's counter less replica 0's."""

    def __init__(self, copy_from=None, state=None, alg=None):
        from ..state.variables import Variable
        if copy_from is not None:
            state, alg = copy_from.state.numpy(), copy_from.algorithm
        if state is None:
            raise ValueError("Must provide one of `copy_from` and `state`")
        st = np.asarray(state.numpy() if isinstance(state, Tensor) else state).reshape(-1)
        if st.shape != (3,):
            raise ValueError(f"The size of `state` ({st.shape[0]}) must equal to the state size of the algorithm "
                             f"(3)")
        st = np.array([int(v) & _M64 for v in st], np.uint64).view(np.int64)
        self._alg = _alg_int(alg if alg is not None else "auto_select")
        self._state_var = Variable(st, dtype=_dt.int64, trainable=False, name="StateVar")
        self._lock = threading.Lock()  # eager draws from several threads get disjoint counters
        where = _current_distribution()
        strategy = where[0] if where is not None else None
        self._distribution_strategy = strategy
        local = len(getattr(strategy, "_local_replica_ids", ())) if strategy is not None else 0
        # (made after the state, in the same order by every replica of a strategy.run: they share both)
        self._offsets = Variable(np.zeros(local, np.int64), dtype=_dt.int64, trainable=False,
                                 name="StateVar/replica_offsets") if local > 1 else None
        if self._offsets is not None:
            # replica i's copy, for strategy.experimental_local_results(g.state)
            self._state_var._replica_value = lambda i: self._state_var._value + np.array(
                [self._offsets.numpy()[i], 0, 0], np.int64)
            base = type(self._state_var)
            if not base.__module__ == __name__:  # an assign sets every copy
                self._state_var.__class__ = _mirrored_state_class(base)
                self._state_var._generator_offsets = self._offsets

    def _checkpoint_children(self):  # trackable as TensorFlow's: the state variable under `_state_var`
        return [("_state_var", self._state_var)]

    @classmethod
    def from_seed(cls, seed, alg=None):
        return cls(state=_state_from_seed(seed), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        return cls(state=_ENTROPY.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max, 3, dtype=np.int64,
                                           endpoint=True), alg=alg)

    @classmethod
    def from_state(cls, state, alg):
        return cls(state=state, alg=alg)

    @classmethod
    def from_key_counter(cls, key, counter, alg):
        k = np.asarray(key.numpy() if isinstance(key, Tensor) else key).reshape(-1)
        c = np.asarray(counter.numpy() if isinstance(counter, Tensor) else counter).reshape(-1)
        return cls(state=np.concatenate([c, k]), alg=alg)

    state = property(lambda self: self._state_var)
    algorithm = property(lambda self: self._alg)
    key = property(lambda self: self._state_var[-1])

    def _reset(self, state):
        self._state_var.assign(state)
        if self._offsets is not None:  # every replica's copy of the state is set
            self._offsets.assign(np.zeros(self._offsets.shape[0], np.int64))

    def reset(self, state):
        self._reset(np.asarray(state, np.int64))

    def reset_from_seed(self, seed):
        self._reset(_state_from_seed(seed))

    def reset_from_key_counter(self, key, counter):
        self._reset(np.concatenate([np.asarray(counter).reshape(-1), np.asarray(key).reshape(-1)]).astype(np.int64))

    def skip(self, delta):
        """Advances the counter as `delta` values' draws would (in a replica, that replica's counter)."""
        calls = int(delta) * philox.CALLS_PER_VALUE
        if context.current_graph() is None:
            with self._lock:
                self._advance_eager(calls, self._replica())
        else:
            self._advance_graph(to_tensor(np.int64(calls)), self._replica())

    def _replica(self):
        """None for a plain draw, else (replica id, local index; 0: the first local replica, whose copy of the
        state is the variable): where a generator that belongs to a strategy draws."""
        if self._distribution_strategy is None:
            return None
        where = _current_distribution()
        if where is None:  # TensorFlow enters the generator's strategy's scope: cross-replica context
            return None
        strategy, rc = where
        if strategy is not self._distribution_strategy:
            raise RuntimeError(f"Mixing different tf.distribute.Strategy objects: {strategy} is not "
                               f"{self._distribution_strategy}")
        if rc is None:
            return None
        thread = getattr(rc, "_replica", None)
        return rc._replica_id, (0 if thread is None else thread.index)

    def _advance_eager(self, calls, replica):
        """The state (numpy int64 [3]) this draw of `calls` Philox calls uses; advances the replica's copy (in
        cross-replica context, every copy)."""
        step = np.array([calls, 0, 0], np.int64)
        if replica is not None and self._offsets is not None:
            index = replica[1]
            offsets = self._offsets.numpy().copy()
            if index != 0:
                state = self._state_var.numpy() + np.array([offsets[index], 0, 0], np.int64)
                offsets[index] += calls
                self._offsets.assign(offsets)
                return state
            offsets[1:] -= calls  # the other copies stay where they are
            self._offsets.assign(offsets)
        old = self._state_var.numpy()
        self._state_var.assign_add(step)  # (not assign: on a strategy's generator that sets every copy)
        return old

    def _advance_graph(self, calls, replica):
        """The state (int64 [3] tensor) this draw of `calls` (an int64 scalar tensor) uses; advances the
        replica's copy (in cross-replica context, every copy)."""
        from .array_ops import concat, reshape
        zeros = to_tensor(np.zeros(2, np.int64))
        if replica is not None and self._offsets is not None:
            index, n = replica[1], self._offsets.shape[0]
            if index != 0:
                new = self._offsets.assign_add(_m.multiply(to_tensor(np.eye(n, dtype=np.int64)[index]), calls))
                offset = _m.subtract(new[index], calls)
                return _m.add(self._state_var.read_value(), concat([reshape(offset, [1]), zeros], 0))
            others = np.ones(n, np.int64)
            others[0] = 0
            self._offsets.assign_sub(_m.multiply(to_tensor(others), calls))
        delta = concat([reshape(calls, [1]), zeros], 0)
        new = self._state_var.assign_add(delta)  # atomic: concurrent draws get disjoint counters
        return _m.subtract(new, delta)

    def _draw(self, kind, shape, dtype, extra=(), name=None):
        shape_t = _shape_tensor(shape)
        v = static_value(shape_t)
        replica = self._replica()
        if v is not None and context.current_graph() is None:
            calls = int(np.prod(np.asarray(v), dtype=np.int64)) * philox.CALLS_PER_VALUE
            with self._lock:
                old = self._advance_eager(calls, replica)
            key = old[2:3] if replica is None else _hash_key(old[2:3], replica[0])
            return bind(V2_OPS[kind], (shape_t, to_tensor(key), to_tensor(old[0:2])) + tuple(extra),
                        {"dtype": dtype}, name=name or V2_OPS[kind].name)
        if v is not None:
            n = to_tensor(np.int64(int(np.prod(np.asarray(v), dtype=np.int64)) * philox.CALLS_PER_VALUE))
        else:
            n = _m.multiply(_m.cast(_m.reduce_prod(shape_t), _dt.int64), np.int64(philox.CALLS_PER_VALUE))
        state = self._advance_graph(n, replica)
        key = state[2:3]
        if replica is not None:
            key = bind(V2_OPS["full_int"], (to_tensor(np.array([1], np.int32)), key,
                                            to_tensor(np.array([replica[0], 0], np.uint64))),
                       {"dtype": _dt.uint64}, name="StatelessRandomUniformFullIntV2")
        return bind(V2_OPS[kind], (shape_t, key, state[0:2]) + tuple(extra), {"dtype": dtype},
                    name=name or V2_OPS[kind].name)

    def uniform(self, shape, minval=0, maxval=None, dtype=_dt.float32, name=None):
        dtype = _dt.as_dtype(dtype)
        if dtype.is_integer:
            if maxval is None:
                raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
            return self._draw("int", shape, dtype, (to_tensor(minval, dtype=dtype), to_tensor(maxval, dtype=dtype)),
                              name)
        if dtype not in (_dt.float16, _dt.float32, _dt.float64):
            raise ValueError(f"Argument `dtype` got invalid value {dtype}.")
        r = self._draw("uniform", shape, dtype)
        lo, hi = to_tensor(minval, dtype=dtype), to_tensor(1 if maxval is None else maxval, dtype=dtype)
        return _m.add(_m.multiply(r, _m.subtract(hi, lo)), lo, name=name or "stateful_uniform")

    def uniform_full_int(self, shape, dtype=_dt.uint64, name=None):
        return self._draw("full_int", shape, _dt.as_dtype(dtype), name=name)

    def _normal_like(self, kind, shape, mean, stddev, dtype, name):
        dtype = _dt.as_dtype(dtype)
        if dtype not in (_dt.float16, _dt.float32, _dt.float64):
            raise InvalidArgumentError(f"Value for attr 'dtype' of {dtype.name} is not in the list of allowed "
                                       f"values: half, bfloat16, float, double")
        z = self._draw(kind, shape, dtype)
        return _m.add(_m.multiply(z, to_tensor(stddev, dtype=dtype)), to_tensor(mean, dtype=dtype),
                      name=name or "stateful_" + kind)

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=_dt.float32, name=None):
        return self._normal_like("normal", shape, mean, stddev, dtype, name)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=_dt.float32, name=None):
        return self._normal_like("truncated_normal", shape, mean, stddev, dtype, name)

    def make_seeds(self, count=1):
        """[2, count] int64 seeds for the stateless ops (the second row is zeros, as TensorFlow's)."""
        from .array_ops import stack, zeros_like
        first = self.uniform_full_int([count], dtype=_dt.int64)
        return stack([first, zeros_like(first)])

    def split(self, count=1):
        """`count` new generators, each keyed by a value drawn from this one (whose state advances)."""
        keys = self.uniform_full_int([count], dtype=_dt.int64).numpy()
        return [Generator(state=[0, 0, int(k)], alg=self._alg) for k in keys]


_global_generator = [None]


def get_global_generator():
    """tf.random.get_global_generator: made on first use, from OS entropy."""
    if _global_generator[0] is None:
        _global_generator[0] = Generator.from_non_deterministic_state()
    return _global_generator[0]


def set_global_generator(generator):
    """tf.random.set_global_generator: replaces the global generator (tf.functions that captured the old one
    keep using it)."""
    _global_generator[0] = generator
