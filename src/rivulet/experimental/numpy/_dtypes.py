"""tnp's dtype names: NumPy's scalar types, as TensorFlow's tnp exports them (`tnp.float32 is np.float32`)."""
import numpy as np

bool_ = np.bool_
int_ = np.int64
float_ = np.float64
complex_ = np.complex128
object_ = np.object_
string_ = np.bytes_
unicode_ = np.str_
int8, int16, int32, int64 = np.int8, np.int16, np.int32, np.int64
uint8, uint16, uint32, uint64 = np.uint8, np.uint16, np.uint32, np.uint64
float16, float32, float64 = np.float16, np.float32, np.float64
complex64, complex128 = np.complex64, np.complex128
inexact = np.inexact


def _np_dtype(t):
    return np.dtype(getattr(t, "as_numpy_dtype", t))


def iinfo(int_type):
    return np.iinfo(_np_dtype(int_type))


def finfo(dtype):
    return np.finfo(_np_dtype(dtype))


def issubdtype(arg1, arg2):
    return np.issubdtype(_np_dtype(arg1) if not isinstance(arg1, type) else arg1,
                         arg2 if isinstance(arg2, type) else _np_dtype(arg2))
