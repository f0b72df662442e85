"""rivulet.onnx: export traced functions and saved models to ONNX, to run where there is no Python.

    report = rivulet.onnx.export(concrete_function_or_saved_model_dir, "model.onnx", opset=17)

Needs the `onnx` package (the `onnx` extra); running the result needs an ONNX runtime such as onnxruntime.
See docs/ONNX.md for what is exported and how.
"""
try:
    import onnx as _onnx  # noqa: F401
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError("rivulet.onnx needs the onnx package: pip install 'rivulet[onnx]' (or pip install onnx)") \
        from e

from . import ops_array, ops_control, ops_math, ops_nn  # noqa: F401,E402  (register the converters)
from .export import DEFAULT_OPSET, export  # noqa: F401,E402
from .report import ExportError, ExportReport, Problem  # noqa: F401,E402
