"""tf.lite.Interpreter: runs a .tflite model in LiteRT (the `ai-edge-litert` package, the `tflite` extra).

A thin layer over LiteRT's own interpreter: its allocate_tensors, get_input_details, get_output_details,
set_tensor, invoke, get_tensor, resize_tensor_input, get_signature_list and get_signature_runner, with
rivulet tensors accepted wherever arrays are.
"""
import os

import numpy as np

_INSTALL = "pip install 'rivulet[tflite]'  (or: pip install ai-edge-litert)"


def _litert():
    try:
        from ai_edge_litert.interpreter import Interpreter
    except ImportError:
        raise ImportError(f"Running TensorFlow Lite models needs LiteRT (the ai-edge-litert package): {_INSTALL}") \
            from None
    return Interpreter


def _array(v):
    return v if isinstance(v, np.ndarray) else np.asarray(v)


class Interpreter:
    """tf.lite.Interpreter(model_path=None, model_content=None, num_threads=None, ...)."""

    def __init__(self, model_path=None, model_content=None, experimental_delegates=None, num_threads=None,
                 experimental_preserve_all_tensors=False, **kwargs):
        base = _litert()
        if model_path is not None:
            model_path = os.fspath(model_path)
        if model_content is not None:
            model_content = bytes(model_content)
        self._interp = base(model_path=model_path, model_content=model_content,
                            experimental_delegates=experimental_delegates, num_threads=num_threads,
                            experimental_preserve_all_tensors=experimental_preserve_all_tensors, **kwargs)

    def set_tensor(self, tensor_index, value):
        self._interp.set_tensor(tensor_index, _array(value))

    def get_signature_runner(self, signature_key=None):
        return _SignatureRunner(self._interp.get_signature_runner(signature_key))

    def __getattr__(self, name):
        if name == "_interp":
            raise AttributeError(name)
        return getattr(self._interp, name)


class _SignatureRunner:
    """LiteRT's SignatureRunner, called with keyword tensors (rivulet tensors or arrays)."""

    def __init__(self, runner):
        self._runner = runner

    def __call__(self, **kwargs):
        return self._runner(**{k: _array(v) for k, v in kwargs.items()})

    def __getattr__(self, name):
        if name == "_runner":
            raise AttributeError(name)
        return getattr(self._runner, name)
