"""tf.keras.mixed_precision.Policy: a layer's compute dtype and variable dtype, and the global policy.

'mixed_float16' and 'mixed_bfloat16' compute in 16 bits and keep float32 variables; any dtype name
('float32', 'float64') is both. Layers take their policy from `dtype=` or, without one, the global policy
(`set_global_policy`), whose default is `backend.floatx()`.
"""
import contextlib

import rivulet as tf

from .. import backend

_MIXED = {"mixed_float16": ("float16", "float32"), "mixed_bfloat16": ("bfloat16", "float32")}
_REMOVED = {"infer_float32_vars": "mixed_float16' or 'mixed_bfloat16", "infer_with_float32_vars":
            "mixed_float16' or 'mixed_bfloat16", "float16_with_float32_vars": "mixed_float16",
            "bfloat16_with_float32_vars": "mixed_bfloat16"}


class Policy:
    """A dtype policy: `name`, `compute_dtype` (what a layer's computations and outputs use) and
    `variable_dtype` (what its weights are created in)."""

    def __init__(self, name):
        if isinstance(name, tf.DType):
            raise TypeError(f"'name' must be a string, not a DType. Instead, pass DType.name. Received: "
                            f"name={name.name}")
        if not isinstance(name, str):
            raise TypeError(f"'name' must be a string, but got: {name}")
        self._name = name
        self._compute_dtype, self._variable_dtype = _parse(name)

    name = property(lambda self: self._name)
    compute_dtype = property(lambda self: self._compute_dtype)
    variable_dtype = property(lambda self: self._variable_dtype)

    def __repr__(self):
        return f'<Policy "{self._name}">'

    def get_config(self):
        return {"name": self._name}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        config.pop("loss_scale", None)  # written by TensorFlow 2.3 and older: dropped, as tf_keras does
        return cls(**config)


def _parse(name):
    if name.endswith("_float32_vars"):
        message = "Policies ending in '_float32_vars' have been removed from TensorFlow."
        if name in _REMOVED:
            message += f" Please use the '{_REMOVED[name]}' policy instead."
        raise ValueError(message + f" Got policy name: '{name}'")
    if name in _MIXED:
        return _MIXED[name]
    if name == "bfloat16":
        return name, name
    try:
        dtype = tf.as_dtype(name).name
    except (TypeError, ValueError):
        raise ValueError(f"Cannot convert value {name} to a mixed precision Policy. Valid policies include "
                         f"'mixed_float16', 'mixed_bfloat16', and the name of any dtype such as 'float32'.") from None
    return dtype, dtype


_GLOBAL = [None]  # None: a policy made from backend.floatx()


def global_policy():
    """The policy layers get when none is passed (floatx's, until set_global_policy sets one)."""
    return _GLOBAL[0] if _GLOBAL[0] is not None else Policy(backend.floatx())


def set_global_policy(policy):
    """Sets the global policy (a Policy or its name; None goes back to floatx's). Only floating policies."""
    if policy is not None and not isinstance(policy, Policy):
        policy = Policy(policy)
    if policy is not None and policy.compute_dtype != "bfloat16" and \
            not tf.as_dtype(policy.compute_dtype).is_floating:
        raise ValueError("set_global_policy can only be used to set the global policy to floating-point "
                         f"policies, such as \"float32\" and \"mixed_float16\", but got policy: {policy.name}")
    _GLOBAL[0] = policy


@contextlib.contextmanager
def policy_scope(policy):
    """The global policy set to `policy` inside the block."""
    old = _GLOBAL[0]
    try:
        set_global_policy(policy)
        yield
    finally:
        _GLOBAL[0] = old


def get_policy(identifier):
    """A layer's `dtype=` argument as a Policy: a Policy, its serialized dict, a policy or dtype name, a
    DType, or None (the global policy)."""
    if isinstance(identifier, Policy):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str) and identifier in _MIXED:
        return Policy(identifier)
    if identifier:
        return Policy(tf.as_dtype(getattr(identifier, "name", identifier)).name)
    return global_policy()


def serialize(policy):
    """A layer config's `dtype`: the dtype name for a plain policy, {class_name: Policy ...} for a mixed one."""
    if type(policy) is Policy and policy.name not in _MIXED:
        return policy.name
    return {"module": "keras.mixed_precision", "class_name": "Policy", "config": policy.get_config(),
            "registered_name": None}


def deserialize(config, custom_objects=None):
    """The inverse of `serialize`. A dict must be a Policy's ({"class_name": "Policy", "config": {"name"}});
    nothing else is looked up."""
    if isinstance(config, str):
        return Policy(config)
    if not isinstance(config, dict) or config.get("class_name") not in ("Policy", "PolicyV1") or \
            not isinstance(config.get("config"), dict) or not isinstance(config["config"].get("name"), str):
        raise ValueError(f"Could not interpret dtype policy: {config!r}: expected a dtype name or "
                         f"{{'class_name': 'Policy', 'config': {{'name': ...}}}}")
    inner = {k: v for k, v in config["config"].items() if k == "name"}
    return Policy.from_config(inner)
