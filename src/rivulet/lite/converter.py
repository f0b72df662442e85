"""tf.lite.TFLiteConverter: a ConcreteFunction, a Keras model or a saved model as a .tflite flatbuffer.

    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    tflite_bytes = converter.convert()

Each function becomes one subgraph with a signature (TensorFlow's names: "serving_default" for a single
function or a Keras model, the saved model's signature keys, the functions' names for several concrete
functions). Models built from builtin operators (lower.py lists them) convert as float32, or quantised
(quantize.py: dynamic range, float16, full integer with a representative dataset); tf.cond and
tf.while_loop (AutoGraph's if/while/for on tensors, Keras' recurrent layers) become IF and WHILE operators
with subgraphs of their own; tf.switch_case and TensorArrays raise NotImplementedError. Keras' LSTM stays a
WHILE loop (as TensorFlow 2.21's converter writes Keras 3's): TFLite's fused UNIDIRECTIONAL_SEQUENCE_LSTM,
which TensorFlow's converter gives tf_keras' LSTM, keeps its states in variable tensors that carry over to
the next invoke unless the caller resets them (tensorflow/tensorflow#47813), so its second invoke would not
equal the model.
"""
import enum
import os

import numpy as np

from .. import dtypes as _dt
from .. import nest
from ..function.concrete import signature_output_names
from . import fuse, lower, quantize, schema

SERVING = "serving_default"


class Optimize(enum.Enum):
    """tf.lite.Optimize: what the converter should optimise for. DEFAULT (and its deprecated aliases
    OPTIMIZE_FOR_SIZE and OPTIMIZE_FOR_LATENCY) quantises: quantize.py says how."""
    DEFAULT = "DEFAULT"
    OPTIMIZE_FOR_SIZE = "OPTIMIZE_FOR_SIZE"
    OPTIMIZE_FOR_LATENCY = "OPTIMIZE_FOR_LATENCY"
    EXPERIMENTAL_SPARSITY = "EXPERIMENTAL_SPARSITY"

    def __str__(self):
        return str(self.value)


class OpsSet(enum.Enum):
    """tf.lite.OpsSet: the operator sets a converted model may use."""
    TFLITE_BUILTINS = "TFLITE_BUILTINS"
    SELECT_TF_OPS = "SELECT_TF_OPS"
    TFLITE_BUILTINS_INT8 = "TFLITE_BUILTINS_INT8"
    EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8 = \
        "EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8"

    def __str__(self):
        return str(self.value)


class TargetSpec:
    """tf.lite.TargetSpec: supported_ops (a set of OpsSet) and supported_types (a set of dtypes)."""

    def __init__(self, supported_ops=None, supported_types=None, experimental_select_user_tf_ops=None,
                 experimental_supported_backends=None):
        self.supported_ops = set(supported_ops) if supported_ops is not None else {OpsSet.TFLITE_BUILTINS}
        self.supported_types = set(supported_types) if supported_types is not None else set()
        self.experimental_select_user_tf_ops = experimental_select_user_tf_ops or set()
        self.experimental_supported_backends = experimental_supported_backends


class RepresentativeDataset:
    """tf.lite.RepresentativeDataset(input_gen): the samples full-integer quantisation calibrates on; input_gen()
    yields each sample (a list of the model's inputs in order, or a dict by input name)."""

    def __init__(self, input_gen):
        self.input_gen = input_gen


class ConverterError(Exception):
    """Raised by convert() when some ops have no TensorFlow Lite builtin; `.problems` lists each of them
    (op type, op name, reason and the user's source line)."""

    def __init__(self, message, problems=()):
        super().__init__(message)
        self.problems = list(problems)


class _Entry:
    """One function to convert: its signature key and the names of its inputs and outputs."""

    def __init__(self, key, cf, input_names=None, output_names=None):
        self.key, self.cf = key, cf
        n_args = len(cf.graph.arg_placeholders)
        self.input_names = list(input_names) if input_names else _arg_names(cf)
        if len(self.input_names) != n_args:
            self.input_names = _arg_names(cf)
        self.output_names = list(output_names) if output_names else signature_output_names(cf.graph)
        if len(self.output_names) != len(cf.graph.outputs):
            self.output_names = signature_output_names(cf.graph)


class TFLiteConverter:
    """Converts concrete functions (one subgraph and signature each) into a TensorFlow Lite model."""

    def __init__(self, funcs, trackable_obj=None):
        self._entries = funcs if funcs and isinstance(funcs[0], _Entry) else _entries_of(funcs)
        self._trackable_obj = trackable_obj
        self.optimizations = set()
        self.representative_dataset = None
        self.target_spec = TargetSpec()
        self.inference_input_type = _dt.float32
        self.inference_output_type = _dt.float32
        self.allow_custom_ops = False
        self.exclude_conversion_metadata = False
        self.experimental_new_converter = True
        self.experimental_enable_resource_variables = True

    # ---- constructors
    @classmethod
    def from_concrete_functions(cls, funcs, trackable_obj=None):
        """Converts ConcreteFunctions (`f.get_concrete_function(...)`); trackable_obj is the object they
        belong to (TensorFlow needs it to keep variables alive; accepted for compatibility)."""
        from ..function.concrete import ConcreteFunction
        funcs = list(funcs) if isinstance(funcs, (list, tuple)) else [funcs]
        if not funcs:
            raise ValueError("from_concrete_functions needs at least one ConcreteFunction")
        for f in funcs:
            if not isinstance(f, ConcreteFunction):
                raise ValueError("This function takes in a list of ConcreteFunction.")
        return cls(funcs, trackable_obj)

    @classmethod
    def from_keras_model(cls, model):
        """Converts a Keras model's call (training=False) over its input shapes; the signature
        "serving_default" takes the input layers' names and gives the output layers' names."""
        sig = getattr(model, "_default_save_signature", lambda: None)()
        if sig is None:
            raise ValueError(f"Model {getattr(model, 'name', model)!r} cannot be converted because its input shape "
                             f"is not available: build it with an Input layer, or call it on data first.")
        cf = sig.get_concrete_function()
        g = cf.graph
        # a subclassed model has no layer names for them: tf_keras says input_1 ..., output_1 ...
        inputs = _keras_names(getattr(model, "inputs", None)) or \
            [f"input_{i + 1}" for i in range(len(g.arg_placeholders))]
        outputs = _keras_names(getattr(model, "outputs", None))
        if outputs is None and not isinstance(g.structured_outputs, dict):
            outputs = [f"output_{i + 1}" for i in range(len(g.outputs))]
        return cls([_Entry(SERVING, cf, inputs, outputs)], model)

    @classmethod
    def from_saved_model(cls, saved_model_dir, signature_keys=None, tags=None):
        """Converts the signatures of a saved model (rivulet's, or TensorFlow's with the tf-interop extra);
        by default all of them, each a subgraph under its key."""
        from ..saved_model import load
        path = os.fspath(saved_model_dir)
        loaded = load(path)
        sigs = dict(loaded.signatures)
        if not sigs:
            raise ValueError(f"Only support at least one signature key. The saved model at {path} has none.")
        keys = list(signature_keys) if signature_keys else sorted(sigs)
        for k in keys:
            if k not in sigs:
                raise ValueError(f"Invalid signature key '{k}' found. Valid keys are '{','.join(sorted(sigs))}'.")
        return cls([_Entry(k, sigs[k]) for k in keys], loaded)

    def signature_inputs(self):
        """[(signature key, [(input name, shape as a list with None, NumPy dtype)])] of what convert() writes:
        what a representative sample of each signature holds."""
        out = []
        for e in self._entries:
            phs = e.cf.graph.arg_placeholders
            out.append((e.key, [(n, ph.shape.as_list() if ph.shape.rank is not None else [],
                                 ph.dtype.as_numpy_dtype) for n, ph in zip(e.input_names, phs)]))
        return out

    # ---- conversion
    def convert(self):
        """The converted model: the bytes of a .tflite flatbuffer."""
        mode = self._quantization_mode()
        model = lower.LiteModel()
        problems, control = [], []
        for i, entry in enumerate(self._entries):
            p, c = _lower_function(model, entry, i)
            problems += p
            control += c
        if control:
            lines = "\n".join(f"  {p}" for p in control)
            raise NotImplementedError(f"rivulet's TFLite converter does not convert this control flow (tf.switch_case, "
                                      f"tf.case, TensorArrays, nested function calls) yet:\n{lines}")
        if problems:
            n = len(problems)
            lines = "\n".join(f"  {p}" for p in problems)
            raise ConverterError(f"{n} op{'s' if n > 1 else ''} cannot be converted to TensorFlow Lite's builtin "
                                 f"operators:\n{lines}\n"
                                 f"(TensorFlow's SELECT_TF_OPS need TensorFlow's kernels and are not available.)",
                                 problems)
        if mode is not None:
            self._quantize(model, mode)
        fuse.prune_opcodes(model)  # (the codes of ops fused away)
        fuse.prune_buffers(model)
        return schema.write(model)

    def _quantize(self, model, mode):
        if mode == "dynamic":
            for sub in model.subgraphs:
                quantize.dynamic_range(model, sub)
        elif mode == "float16":
            for sub in model.subgraphs:
                quantize.float16(model, sub)
        else:
            dataset = self.representative_dataset
            if isinstance(dataset, RepresentativeDataset):
                dataset = dataset.input_gen
            ranges = quantize.calibrate(model, dataset, model.signatures)
            int8_only = self._ops() == {OpsSet.TFLITE_BUILTINS_INT8}
            io = {_dt.float32: quantize.FLOAT32, _dt.int8: quantize.INT8, _dt.uint8: quantize.UINT8}
            remap, refused = quantize.full_integer(model, ranges, int8_only, io[self.inference_input_type],
                                                   io[self.inference_output_type], model.signatures)
            if refused:
                names = ", ".join(sorted(set(refused)))
                raise ConverterError(f"target_spec.supported_ops is TFLITE_BUILTINS_INT8 only, and these ops have no "
                                     f"int8 kernel in TensorFlow Lite: {names}. Add tf.lite.OpsSet.TFLITE_BUILTINS "
                                     f"to keep them float.")
            for sig in model.signatures:
                sig.outputs = [(n, remap.get((sig.subgraph, i), i)) for n, i in sig.outputs]
        for s, sub in enumerate(model.subgraphs):
            kept = fuse._prune_tensors(sub)
            for sig in model.signatures:
                if sig.subgraph == s:
                    sig.inputs = [(n, kept[i]) for n, i in sig.inputs]
                    sig.outputs = [(n, kept[i]) for n, i in sig.outputs]
        fuse.prune_opcodes(model)

    def _ops(self):
        return {OpsSet(o) if isinstance(o, str) else o for o in self.target_spec.supported_ops}

    def _quantization_mode(self):
        """None (a float model), "dynamic", "float16" or "int8", from the settings as TensorFlow reads them."""
        ops = self._ops()
        extra = ops - {OpsSet.TFLITE_BUILTINS, OpsSet.TFLITE_BUILTINS_INT8}
        if extra:
            names = ", ".join(sorted(str(o) for o in extra))
            raise NotImplementedError(f"target_spec.supported_ops {names}: rivulet converts to TFLITE_BUILTINS and "
                                      f"TFLITE_BUILTINS_INT8 only (SELECT_TF_OPS need TensorFlow's kernels; int16 "
                                      f"activations are not supported).")
        types = {_dt.as_dtype(t) for t in self.target_spec.supported_types}
        int8_required = OpsSet.TFLITE_BUILTINS_INT8 in ops or _dt.int8 in types
        optimized = any(Optimize(o) in (Optimize.DEFAULT, Optimize.OPTIMIZE_FOR_SIZE, Optimize.OPTIMIZE_FOR_LATENCY)
                        for o in self.optimizations)
        if _dt.float16 in types and optimized and not int8_required:
            mode = "float16"
        elif int8_required or (optimized and self.representative_dataset is not None):
            if self.representative_dataset is None:
                raise ValueError("For full integer quantization, a `representative_dataset` must be specified.")
            mode = "int8"
        else:
            mode = "dynamic" if optimized else None
        io = (self.inference_input_type, self.inference_output_type)
        if mode == "int8":
            for name, t in zip(("inference_input_type", "inference_output_type"), io):
                if t not in (_dt.float32, _dt.int8, _dt.uint8):
                    raise ValueError(f"Unsupported `{name}` value. Expected to be in ('tf.uint8', 'tf.int8'), "
                                     f"instead got {t!r}.")
        elif any(t is not _dt.float32 for t in io):
            raise ValueError("The inference_input_type and inference_output_type must be tf.float32.")
        return mode


def _lower_function(model, entry, index):
    from ..optimize.pipeline import optimize_traced
    cf = entry.cf
    g = cf.graph
    resources = [ph.op.name for ph in g.arg_placeholders if ph.dtype.name == "resource"]
    if resources:
        raise ValueError(f"Cannot convert {cf.name!r}: it takes tf.Variable arguments ({', '.join(resources)}); "
                         f"close over the variables instead (they are frozen into the model).")
    graph, inputs, outputs = optimize_traced(g)
    sub = lower.Subgraph("main" if index == 0 else entry.key)
    model.subgraphs.append(sub)
    sub_index = len(model.subgraphs) - 1  # (an earlier function's IF/WHILE subgraphs come before it)
    lw = lower.Lowering(model, sub)
    n_args = len(g.arg_placeholders)
    feeds, sig_inputs = {}, []
    for name, ph in zip(entry.input_names, inputs[:n_args]):
        if ph.dtype not in lower._TYPES:
            lw.problems.append(lower.Problem(ph.op, f"input dtype {ph.dtype.name} has no TensorFlow Lite type"))
            continue
        if ph.shape.rank is None:
            lw.problems.append(lower.Problem(ph.op, "an input of unknown rank"))
            continue
        idx = lw.new_tensor(f"{entry.key}_{name}:0", ph.shape.as_list(), lower._TYPES[ph.dtype])
        feeds[id(ph)] = idx
        sub.inputs.append(idx)
        sig_inputs.append((name, idx))
    for (value, _), ph in zip(g.captures, inputs[n_args:]):
        v = value.numpy() if hasattr(value, "numpy") else value
        feeds[id(ph)] = np.asarray(v)  # variables frozen, captured tensors constant
    values = lw.run(graph, feeds, outputs)
    if lw.problems or lw.control_flow:
        return lw.problems, lw.control_flow
    call = "StatefulPartitionedCall" if index == 0 else f"StatefulPartitionedCall_{index}"
    try:
        out_idx = lw.output_tensors(values, outputs)
    except lower.Unsupported as e:
        return [lower.Problem(lw.op, str(e))], []
    sig_outputs = []
    for i, (name, v) in enumerate(zip(entry.output_names, out_idx)):
        sub.tensors[v].name = f"{call}:{i}"
        sub.outputs.append(v)
        sig_outputs.append((name, v))
    remap = fuse.optimize(model, sub)
    sig_inputs = [(n, remap[i]) for n, i in sig_inputs]
    sig_outputs = [(n, remap[i]) for n, i in sig_outputs]
    model.signatures.append(lower.Signature(entry.key, sig_inputs, sig_outputs, sub_index))
    return [], []


def _entries_of(funcs):
    if len(funcs) == 1:
        return [_Entry(SERVING, funcs[0])]
    entries = [_Entry(f.name, f) for f in funcs]
    keys = [e.key for e in entries]
    for k in keys:
        if keys.count(k) > 1:
            raise ValueError(f"Several of the ConcreteFunctions are named {k!r} (traces of one tf.function): each "
                             f"function's signature is named after it, so they would share one. Convert them one "
                             f"at a time, or trace them from tf.functions of different names. (TensorFlow's "
                             f"converter says: This converter can only convert a single ConcreteFunction.)")
    return entries


def _arg_names(cf):
    return [ph.op.name for ph in cf.graph.arg_placeholders]


def _keras_names(tensors):
    if tensors is None:
        return None
    names = []
    for t in nest.flatten(tensors):
        n = getattr(t, "_creator", None)
        n = n if isinstance(n, str) else getattr(t, "name", None)
        if not isinstance(n, str):
            return None
        names.append(n.split(":")[0])
    return names if len(set(names)) == len(names) else None
