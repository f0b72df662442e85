"""tf.keras.initializers: callables `init(shape, dtype)` returning a tensor of initial values.

The random initializers draw as Keras 2 (tf_keras) does: a stateless op seeded with [seed, 0], so a seeded
initializer gives TensorFlow's exact values, the same on every call. An unseeded one picks its seed on first
use, from the generator `tf.keras.utils.set_random_seed` makes, else from Python's `random` (so
`tf.random.set_seed` alone does not make Keras weights reproducible, as in TensorFlow), and keeps it.
"""
import math
import random
import threading
import warnings

import rivulet as tf
from rivulet.init_ops import Initializer  # noqa: F401  (the base: __call__, get_config, from_config)

from . import backend


def _dtype(dtype):
    return tf.as_dtype(dtype or backend.floatx())


def _fans(shape):
    """(fan_in, fan_out): a conv kernel [..., in, out] counts every position of its receptive field."""
    shape = tuple(shape)
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = math.prod(shape[:-2])
    return shape[-2] * receptive, shape[-1] * receptive


_SEED_GENERATOR = threading.local()  # .generator: a random.Random set by keras.utils.set_random_seed


def set_seed_generator(seed):
    _SEED_GENERATOR.generator = random.Random(seed)


def _new_seed():
    gen = getattr(_SEED_GENERATOR, "generator", None)
    return (gen or random).randint(1, int(1e9))


class Zeros(Initializer):
    def __call__(self, shape, dtype=None, **kwargs):
        return tf.zeros(shape, dtype=_dtype(dtype))


class Ones(Initializer):
    def __call__(self, shape, dtype=None, **kwargs):
        return tf.ones(shape, dtype=_dtype(dtype))


class Constant(Initializer):
    def __init__(self, value=0):
        self.value = value

    def __call__(self, shape, dtype=None, **kwargs):
        return tf.constant(self.value, dtype=_dtype(dtype), shape=shape)

    def get_config(self):
        return {"value": self.value}


class _Random(Initializer):
    """Draws with stateless ops seeded [seed, 0]; `seed` None: one chosen on first use and kept."""
    seed = None
    _auto_seed = None
    _used = False

    def _stateless_seed(self):
        if self._used and self.seed is None:
            warnings.warn(f"The initializer {type(self).__name__} is unseeded and being called multiple times, "
                          "which will return identical values each time (even if the initializer is unseeded). "
                          "Please update your code to provide a seed to the initializer, or avoid using the same "
                          "initializer instance more than once.")
        self._used = True
        if self.seed is not None:
            return [self.seed, 0]
        if self._auto_seed is None:
            self._auto_seed = _new_seed()
        return [self._auto_seed, 0]

    def _uniform(self, shape, minval, maxval, dtype):
        return tf.random.stateless_uniform(shape, self._stateless_seed(), minval, maxval, dtype=dtype)

    def _normal(self, shape, mean, stddev, dtype, truncated=False):
        f = tf.random.stateless_truncated_normal if truncated else tf.random.stateless_normal
        return f(shape, self._stateless_seed(), mean, stddev, dtype=dtype)


class RandomUniform(_Random):
    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape, dtype=None, **kwargs):
        return self._uniform(shape, self.minval, self.maxval, _dtype(dtype))

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}


class RandomNormal(_Random):
    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype=None, **kwargs):
        return self._normal(shape, self.mean, self.stddev, _dtype(dtype))

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


class TruncatedNormal(RandomNormal):
    def __call__(self, shape, dtype=None, **kwargs):
        return self._normal(shape, self.mean, self.stddev, _dtype(dtype), truncated=True)


class VarianceScaling(_Random):
    """Values with variance scale / n, n from the fans by `mode`; normal (truncated) or uniform."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None):
        if scale <= 0.0:
            raise ValueError(f"`scale` must be positive float. Received: scale={scale}.")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"Invalid `mode` argument: {mode}")
        if distribution == "normal":
            distribution = "truncated_normal"
        if distribution not in ("uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError(f"Invalid `distribution` argument: {distribution}")
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed

    def __call__(self, shape, dtype=None, **kwargs):
        fan_in, fan_out = _fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        var = self.scale / max(1.0, n)
        dtype = _dtype(dtype)
        if self.distribution == "uniform":
            limit = math.sqrt(3.0 * var)
            return self._uniform(shape, -limit, limit, dtype)
        if self.distribution == "truncated_normal":
            # 0.8796... is the stddev of a unit normal truncated to [-2, 2].
            return self._normal(shape, 0.0, math.sqrt(var) / 0.87962566103423978, dtype, truncated=True)
        return self._normal(shape, 0.0, math.sqrt(var), dtype)

    def get_config(self):
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution, "seed": self.seed}


def _preset(name, scale, mode, distribution):
    def __init__(self, seed=None):
        VarianceScaling.__init__(self, scale, mode, distribution, seed)

    def get_config(self):
        return {"seed": self.seed}
    return type(name, (VarianceScaling,), {"__init__": __init__, "get_config": get_config})


GlorotUniform = _preset("GlorotUniform", 1.0, "fan_avg", "uniform")
GlorotNormal = _preset("GlorotNormal", 1.0, "fan_avg", "truncated_normal")
HeUniform = _preset("HeUniform", 2.0, "fan_in", "uniform")
HeNormal = _preset("HeNormal", 2.0, "fan_in", "truncated_normal")
LecunUniform = _preset("LecunUniform", 1.0, "fan_in", "uniform")
LecunNormal = _preset("LecunNormal", 1.0, "fan_in", "truncated_normal")

class Orthogonal(_Random):
    """An orthogonal matrix (QR of a normal matrix, signs fixed by R's diagonal): Keras's default recurrent
    initializer."""

    def __init__(self, gain=1.0, seed=None):
        self.gain, self.seed = gain, seed

    def __call__(self, shape, dtype=None, **kwargs):
        if len(shape) < 2:
            raise ValueError(f"The tensor to initialize must be at least two-dimensional. Received: shape={shape} "
                             f"of rank {len(shape)}.")
        rows = 1
        for d in shape[:-1]:
            rows *= d
        cols = shape[-1]
        a = self._normal((max(rows, cols), min(rows, cols)), 0.0, 1.0, tf.float32)
        q, r = tf.linalg.qr(a)
        q = q * tf.sign(tf.linalg.diag_part(r))
        if rows < cols:
            q = tf.transpose(q)
        return tf.cast(self.gain * tf.reshape(q, shape), _dtype(dtype))

    def get_config(self):
        return {"gain": self.gain, "seed": self.seed}


class Identity(Initializer):
    """gain * the identity matrix of a 2-D shape (tf_keras's Identity; a non-square shape gets ones on its
    main diagonal)."""

    def __init__(self, gain=1.0):
        self.gain = gain

    def __call__(self, shape, dtype=None, **kwargs):
        dtype = _dtype(dtype)
        if not dtype.is_floating:
            raise ValueError(f"Expected floating point type, got {dtype.name}.")
        shape = tuple(shape)
        if len(shape) != 2:
            raise ValueError(f"Identity matrix initializer can only be used for 2D matrices. Received: "
                             f"shape={shape} of rank {len(shape)}.")
        return self.gain * tf.eye(*shape, dtype=dtype)

    def get_config(self):
        return {"gain": self.gain}


zeros, ones, constant = Zeros, Ones, Constant
orthogonal, identity = Orthogonal, Identity
random_uniform, random_normal, truncated_normal = RandomUniform, RandomNormal, TruncatedNormal
glorot_uniform, glorot_normal, he_uniform, he_normal = GlorotUniform, GlorotNormal, HeUniform, HeNormal
lecun_uniform, lecun_normal, variance_scaling = LecunUniform, LecunNormal, VarianceScaling

_BY_NAME = {n: c for n, c in globals().items()
            if isinstance(c, type) and issubclass(c, Initializer) and not n.startswith("_")}


def get(identifier):
    """A name ('glorot_uniform', 'Zeros'), a {'class_name', 'config'} dict, an instance or a callable."""
    if identifier is None:
        return None
    if isinstance(identifier, str):
        cls = _BY_NAME.get(identifier)
        if cls is None:
            raise ValueError(f"Unknown initializer: {identifier}. Please ensure this object is passed to the "
                             f"`custom_objects` argument.")
        return cls()
    if isinstance(identifier, dict):
        return _BY_NAME[identifier["class_name"]].from_config(identifier.get("config", {}))
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret initializer identifier: {identifier!r}")
