"""tf.data.Options: settings a pipeline carries (`with_options`). rivulet honours `deterministic`-free
semantics only through the arguments of map/interleave; the option objects exist so code that sets them
runs unchanged."""
import enum


class AutoShardPolicy(enum.IntEnum):
    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class ExternalStatePolicy(enum.Enum):
    WARN = 0
    IGNORE = 1
    FAIL = 2


class _OptionGroup:
    _fields = {}

    def __init__(self):
        for k, v in self._fields.items():
            object.__setattr__(self, k, v() if isinstance(v, type) else v)

    def __setattr__(self, name, value):
        if name not in self._fields:
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
        object.__setattr__(self, name, value)

    def __eq__(self, other):
        return type(self) is type(other) and all(getattr(self, k) == getattr(other, k) for k in self._fields)

    def __hash__(self):
        return id(self)

    def _merge(self, other):
        out = type(self)()
        for k, default in self._fields.items():
            a, b = getattr(self, k), getattr(other, k)
            if isinstance(a, _OptionGroup):
                object.__setattr__(out, k, a._merge(b))
            else:
                unset = default if not isinstance(default, type) else None
                object.__setattr__(out, k, b if b != unset else a)
        return out

    def __repr__(self):
        return f"<rivulet.data.{type(self).__name__} object at 0x{id(self):x}>"


class OptimizationOptions(_OptionGroup):
    _fields = {"apply_default_optimizations": None, "filter_fusion": None, "map_and_batch_fusion": None,
               "map_and_filter_fusion": None, "map_fusion": None, "map_parallelization": None,
               "noop_elimination": None, "parallel_batch": None, "shuffle_and_repeat_fusion": None,
               "inject_prefetch": None, "warm_start": None}


class ThreadingOptions(_OptionGroup):
    _fields = {"max_intra_op_parallelism": None, "private_threadpool_size": None}


class DistributeOptions(_OptionGroup):
    _fields = {"auto_shard_policy": AutoShardPolicy.AUTO, "num_devices": None}


class AutotuneOptions(_OptionGroup):
    _fields = {"enabled": None, "cpu_budget": None, "ram_budget": None, "autotune_algorithm": None}


class Options(_OptionGroup):
    _fields = {"deterministic": None, "experimental_deterministic": None, "experimental_slack": None,
               "experimental_external_state_policy": None, "experimental_symbolic_checkpoint": None,
               "experimental_warm_start": None, "autotune": AutotuneOptions,
               "experimental_optimization": OptimizationOptions, "threading": ThreadingOptions,
               "experimental_threading": ThreadingOptions, "experimental_distribute": DistributeOptions}

    def merge(self, options):
        return self._merge(options)
