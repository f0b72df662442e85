"""Keras backend state: default float type, fuzz factor, unique layer names, the `training` call context."""
import re

_FLOATX = ["float32"]
_EPSILON = [1e-7]
_UIDS = {}
# The `training` value of the layer call being run, inherited by nested layers that were not given one.
CALL_TRAINING = [None]


def floatx():
    return _FLOATX[0]


def set_floatx(value):
    _FLOATX[0] = str(value)


def epsilon():
    return _EPSILON[0]


def set_epsilon(value):
    _EPSILON[0] = float(value)


def get_uid(prefix=""):
    """1, 2, 3 ... per prefix (Keras numbers default names per class: dense, dense_1, dense_2)."""
    _UIDS[prefix] = _UIDS.get(prefix, 0) + 1
    return _UIDS[prefix]


def unique_name(prefix):
    n = get_uid(prefix)
    return prefix if n == 1 else f"{prefix}_{n - 1}"


def clear_session():
    """Resets the default-name counters (the only global Keras state rivulet keeps)."""
    _UIDS.clear()


def to_snake_case(name):
    s = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    s = re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()
    return s if not s.startswith("_") else "private" + s


def learning_phase():
    return 1 if CALL_TRAINING[0] else 0
