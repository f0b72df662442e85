"""The DType table: TensorFlow's dtypes, their NumPy counterparts and their conversion rules."""

import numpy as np

__all__ = ["DType", "as_dtype", "float16", "half", "float32", "float64", "double", "int8", "int16", "int32",
           "int64", "uint8", "uint16", "uint32", "uint64", "bool", "string", "complex64", "complex128",
           "resource", "variant"]


class DType:
    """A tensor element type. `repr` is `tf.float32`, `str` is `<dtype: 'float32'>`, like TensorFlow."""
    __slots__ = ("name", "_np", "as_datatype_enum", "_kind")

    def __init__(self, name, np_dtype, enum, kind):
        self.name, self._np, self.as_datatype_enum, self._kind = name, np_dtype, enum, kind

    @property
    def as_numpy_dtype(self):
        return self._np.type if self._np is not None else object

    @property
    def base_dtype(self):
        return self

    @property
    def real_dtype(self):
        return {"complex64": float32, "complex128": float64}.get(self.name, self)

    is_floating = property(lambda self: self._kind == "f")
    is_integer = property(lambda self: self._kind in "iu")
    is_unsigned = property(lambda self: self._kind == "u")
    is_complex = property(lambda self: self._kind == "c")
    is_bool = property(lambda self: self._kind == "b")
    is_numeric = property(lambda self: self._kind in "fiuc")
    is_quantized = property(lambda self: False)

    @property
    def size(self):
        return self._np.itemsize if self._np is not None else 1

    @property
    def min(self):
        if self.is_floating:
            return np.finfo(self._np).min
        if self.is_integer:
            return np.iinfo(self._np).min
        if self.is_bool:
            return False
        raise TypeError(f"Cannot find minimum value of {self}.")

    @property
    def max(self):
        if self.is_floating:
            return np.finfo(self._np).max
        if self.is_integer:
            return np.iinfo(self._np).max
        if self.is_bool:
            return True
        raise TypeError(f"Cannot find maximum value of {self}.")

    def is_compatible_with(self, other):
        return self is as_dtype(other)

    def __repr__(self):
        return "tf." + self.name

    def __str__(self):
        return f"<dtype: '{self.name}'>"

    def __eq__(self, other):
        if other is self:
            return True
        if other is None:
            return False
        try:
            return self is as_dtype(other)
        except TypeError:
            return False

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self.name)

    def __reduce__(self):
        return as_dtype, (self.name,)


# name, numpy dtype, TensorFlow DataType enum, numpy kind
_TABLE = [
    ("float16", np.float16, 19, "f"), ("float32", np.float32, 1, "f"), ("float64", np.float64, 2, "f"),
    ("int8", np.int8, 6, "i"), ("int16", np.int16, 5, "i"), ("int32", np.int32, 3, "i"), ("int64", np.int64, 9, "i"),
    ("uint8", np.uint8, 4, "u"), ("uint16", np.uint16, 17, "u"), ("uint32", np.uint32, 22, "u"),
    ("uint64", np.uint64, 23, "u"), ("bool", np.bool_, 10, "b"), ("complex64", np.complex64, 8, "c"),
    ("complex128", np.complex128, 18, "c"), ("string", None, 7, "S"), ("resource", None, 20, "r"),
    ("variant", None, 21, "v"),
]
_BY_NAME = {}
_BY_NP = {}
_BY_ENUM = {}
for _name, _npt, _enum, _kind in _TABLE:
    _dt = DType(_name, np.dtype(_npt) if _npt is not None else None, _enum, _kind)
    globals()[_name] = _dt
    _BY_NAME[_name] = _BY_ENUM[_enum] = _dt
    if _npt is not None:
        _BY_NP[np.dtype(_npt)] = _dt
_BY_NP[np.dtype(object)] = string
half, double = float16, float64  # noqa: F821  (defined by the loop above)
_BY_NAME.update(half=float16, double=float64)  # noqa: F821
# TensorFlow's enum names, used by GraphDef text (DT_FLOAT ...).
ENUM_NAMES = {1: "DT_FLOAT", 2: "DT_DOUBLE", 3: "DT_INT32", 4: "DT_UINT8", 5: "DT_INT16", 6: "DT_INT8",
              7: "DT_STRING", 8: "DT_COMPLEX64", 9: "DT_INT64", 10: "DT_BOOL", 17: "DT_UINT16", 18: "DT_COMPLEX128",
              19: "DT_HALF", 20: "DT_RESOURCE", 21: "DT_VARIANT", 22: "DT_UINT32", 23: "DT_UINT64"}
_BY_PY = {float: float32, int: int32, bool: bool, str: string, bytes: string, complex: complex128}  # noqa: F821


def from_numpy(np_dtype):
    """The DType for a NumPy dtype (string kinds map to tf.string)."""
    dt = _BY_NP.get(np_dtype)
    if dt is None:
        if np_dtype.kind in "SUO":
            return string  # noqa: F821
        raise TypeError(f"Cannot convert the NumPy dtype {np_dtype} to a TensorFlow DType.")
    return dt


_pybool = type(True)  # this module's `bool` is tf.bool


def as_dtype(type_value):
    """Converts a DType, name, NumPy dtype/type, Python type or enum into a DType (TypeError otherwise)."""
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, str):
        dt = _BY_NAME.get(type_value)
        if dt is not None:
            return dt
    elif isinstance(type_value, int) and type_value.__class__ is not _pybool and type_value in _BY_ENUM:
        return _BY_ENUM[type_value]
    elif isinstance(type_value, type) and type_value in _BY_PY:
        return _BY_PY[type_value]
    else:
        dt_attr = getattr(type_value, "dtype", None)
        if isinstance(dt_attr, DType):
            return dt_attr
    if type_value is not None:  # np.dtype(None) is float64; TensorFlow refuses None
        try:
            return from_numpy(np.dtype(type_value))
        except (TypeError, ValueError):
            pass
    raise TypeError(f"Cannot convert the argument `type_value`: {type_value!r} to a TensorFlow DType.")
