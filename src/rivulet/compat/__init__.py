"""tf.compat: TensorFlow's Python 2/3 string helpers, shape-dimension helpers and forward-compatibility dates,
and the API versions: `v2` is rivulet's (TensorFlow 2) API, `v1` the part of TensorFlow 1's API that rivulet
provides with TensorFlow 1's meaning (compat/v1.py)."""
import contextlib
import datetime
import importlib
import numbers
import os

import numpy as np

bytes_or_text_types = (bytes, str)
complex_types = (numbers.Complex, np.number)
integral_types = (numbers.Integral, np.integer)
real_types = (numbers.Real, np.integer, np.floating)


def as_bytes(bytes_or_text, encoding="utf-8"):
    """`bytes_or_text` as bytes: text encoded with `encoding`, bytes (and bytearrays) as they are."""
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


def as_text(bytes_or_text, encoding="utf-8"):
    """`bytes_or_text` as str: bytes decoded with `encoding`, text as it is."""
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


as_str = as_text


def as_str_any(value, encoding="utf-8"):
    """str(value), bytes decoded first."""
    if isinstance(value, bytes):
        return as_str(value, encoding=encoding)
    return str(value)


def path_to_str(path):
    """An os.PathLike's path as a str; anything else as it is."""
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    return path


class Dimension:
    """One dimension of a shape as TensorFlow 1 gave it (dimension_at_index): its `value` is an int or None,
    printed as the int or '?'."""

    __slots__ = ("_value",)

    def __init__(self, value):
        if value is not None:
            if isinstance(value, Dimension):
                value = value.value
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise TypeError(f"Dimension value must be integer or None or have an __index__ method, got "
                                f"value '{value!r}' with type '{type(value)}'")
            value = int(value)
            if value < 0:
                raise ValueError(f"Dimension {value} must be >= 0")
        self._value = value

    value = property(lambda self: self._value)

    def __repr__(self):
        return f"Dimension({self._value!r})"

    def __str__(self):
        return "?" if self._value is None else str(self._value)

    def __int__(self):
        if self._value is None:
            raise TypeError("Cannot convert an unknown Dimension to an int")
        return self._value

    __index__ = __int__

    def __eq__(self, other):
        other = other.value if isinstance(other, Dimension) else other
        if self._value is None or other is None:
            return None
        return self._value == other

    def __ne__(self, other):
        eq = self.__eq__(other)
        return None if eq is None else not eq

    def __hash__(self):
        return hash(self._value)


def dimension_value(dimension):
    """The int (or None) of a shape's dimension, whether given as an int, None or a Dimension."""
    if isinstance(dimension, Dimension):
        return dimension.value
    return dimension


def dimension_at_index(shape, index):
    """shape[index] as a Dimension; Dimension(None) for a shape of unknown rank."""
    from ..shape import TensorShape
    shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)
    if shape.rank is None:
        return Dimension(None)
    return Dimension(shape[index])


# forward_compatible: TensorFlow 2.21's horizon (what its kernels are known to read), moved on by
# TF_FORWARD_COMPATIBILITY_DELTA_DAYS as TensorFlow does, and by forward_compatibility_horizon in a block.
_HORIZON = datetime.date(2026, 1, 16)
_horizon = [None]


def _date_number(date):
    return date.year << 9 | date.month << 5 | date.day


def _current_horizon():
    if _horizon[0] is not None:
        return _horizon[0]
    days = os.environ.get("TF_FORWARD_COMPATIBILITY_DELTA_DAYS")
    return _HORIZON + datetime.timedelta(days=int(days)) if days else _HORIZON


def forward_compatible(year, month, day):
    """True when the date (year, month, day) is before the forward-compatibility horizon."""
    return _date_number(_current_horizon()) > _date_number(datetime.date(year, month, day))


@contextlib.contextmanager
def forward_compatibility_horizon(year, month, day):
    """forward_compatible() answers as if the horizon were (year, month, day) inside the block."""
    old = _horizon[0]
    _horizon[0] = datetime.date(year, month, day)
    try:
        yield
    finally:
        _horizon[0] = old


def __getattr__(name):
    if name in ("v1", "v2"):  # (not `from . import v1`: that looks the name up here first, endlessly)
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'rivulet.compat' has no attribute '{name}'")


def __dir__():
    return sorted(list(globals()) + ["v1", "v2"])
