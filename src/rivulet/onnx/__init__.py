"""rivulet.onnx: export traced functions and saved models to ONNX, to run where there is no Python.

    report = rivulet.onnx.export(concrete_function_or_saved_model_dir, "model.onnx", opset=17)

Exporting needs the `onnx` package (the `onnx` extra: pip install 'rivulet[onnx]'), imported on the first
export; running the result needs an ONNX runtime such as onnxruntime. docs/ONNX.md says what is exported.
"""
from .export import DEFAULT_OPSET, export  # noqa: F401
from .report import ExportError, ExportReport, Problem  # noqa: F401
