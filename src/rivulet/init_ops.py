"""TensorFlow's own initializers (tf.zeros_initializer, tf.random_normal_initializer ...): callables
`init(shape, dtype=tf.float32)`. Seeded random ones draw the stateless ops with seed [seed, 0] (the same values
on every call); unseeded ones draw the stateful ops, which follow tf.random.set_seed. Values are TensorFlow's."""
from . import dtypes as _dt
from .ops import random_ops as _r


class Initializer:
    def __call__(self, shape, dtype=None, **kwargs):
        raise NotImplementedError

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config.pop("dtype", None)
        return cls(**config)


class Zeros(Initializer):
    def __call__(self, shape, dtype=_dt.float32, **kwargs):
        from .ops.array_ops import zeros
        return zeros(shape, dtype=dtype)


class Ones(Initializer):
    def __call__(self, shape, dtype=_dt.float32, **kwargs):
        from .ops.array_ops import ones
        return ones(shape, dtype=dtype)


class Constant(Initializer):
    def __init__(self, value=0, support_partition=False):
        self.value, self.support_partition = value, support_partition

    def __call__(self, shape, dtype=None, **kwargs):
        from .ops.constant_op import constant
        return constant(self.value, dtype=dtype, shape=shape)

    def get_config(self):
        return {"value": self.value}


def _float(dtype):
    dtype = _dt.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {dtype}.")
    return dtype


class RandomUniform(Initializer):
    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape, dtype=_dt.float32, **kwargs):
        dtype = _dt.as_dtype(dtype)
        if not (dtype.is_floating or dtype.is_integer):
            raise ValueError(f"Expected float or integer dtype, got {dtype}.")
        if self.seed is None:
            return _r.uniform(shape, self.minval, self.maxval, dtype=dtype)
        return _r.stateless_uniform(shape, [self.seed, 0], self.minval, self.maxval, dtype=dtype)

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}


class RandomNormal(Initializer):
    _stateful, _stateless = staticmethod(_r.normal), staticmethod(_r.stateless_normal)

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype=_dt.float32, **kwargs):
        dtype = _float(dtype)
        if self.seed is None:
            return self._stateful(shape, self.mean, self.stddev, dtype=dtype)
        return self._stateless(shape, [self.seed, 0], self.mean, self.stddev, dtype=dtype)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


class TruncatedNormal(RandomNormal):
    _stateful, _stateless = staticmethod(_r.truncated_normal), staticmethod(_r.stateless_truncated_normal)


zeros_initializer, ones_initializer, constant_initializer = Zeros, Ones, Constant
random_uniform_initializer, random_normal_initializer = RandomUniform, RandomNormal
TOPLEVEL = ["zeros_initializer", "ones_initializer", "constant_initializer", "random_uniform_initializer",
            "random_normal_initializer"]
