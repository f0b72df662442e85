"""Post-training quantisation of a lowered model, the three kinds TensorFlow's converter makes.

- dynamic range (`optimizations=[Optimize.DEFAULT]`): the weights of FULLY_CONNECTED, CONV_2D and
  DEPTHWISE_CONV_2D with at least 1024 elements become int8, symmetric per output channel; the kernels
  quantise their float activations on the fly (the "hybrid" kernels). An embedding's GATHER of a large
  constant table reads int8 rows, DEQUANTIZEd after it.
- float16 (`target_spec.supported_types = [tf.float16]`): every float32 constant is stored as float16 and
  DEQUANTIZEd to float32 when the model starts.
- full integer (`representative_dataset`): each activation tensor's range is calibrated by running the float
  model over the samples (in LiteRT, every intermediate tensor kept, as TensorFlow's calibrator does); then
  activations are int8 per tensor (asymmetric: scale = (max - min) / 255 over a range holding 0), weights
  int8 per channel (symmetric, zero point 0), biases int32 at input scale * weight scale. SOFTMAX/LOGISTIC
  outputs are at 1/256 (zero point -128) and TANH's at 1/128 (0); pools, reshapes and slices keep their
  input's scale; CONCATENATION's inputs are requantised to its output's. Ops without an int8 kernel stay
  float between DEQUANTIZE and QUANTIZE (refused when `supported_ops` is TFLITE_BUILTINS_INT8 only).
  The model's inputs and outputs stay float32 (QUANTIZE/DEQUANTIZE at its edges) unless
  inference_input_type/inference_output_type are tf.int8 or tf.uint8.
"""
import numpy as np

from . import schema

FLOAT32, FLOAT16, INT32, UINT8, INT8 = 0, 1, 2, 3, 9
MIN_ELEMENTS = 1024  # TensorFlow's converter leaves smaller weights float in dynamic-range quantisation

# op: (weights input, bias input, activation input, channel axis of the weights)
_WEIGHTED = {"FULLY_CONNECTED": (1, 2, 0, 0), "CONV_2D": (1, 2, 0, 0), "DEPTHWISE_CONV_2D": (1, 2, 0, 3),
             "TRANSPOSE_CONV": (1, 3, 2, 0)}
_HYBRID_VERSION = {"FULLY_CONNECTED": 12, "CONV_2D": 5, "DEPTHWISE_CONV_2D": 6}
# outputs quantised like their (first float) input: the kernels move int8 values without rescaling them
_SAME_SCALE = {"RESHAPE", "SQUEEZE", "EXPAND_DIMS", "MAX_POOL_2D", "AVERAGE_POOL_2D", "TRANSPOSE",
               "STRIDED_SLICE", "SLICE", "GATHER", "PAD", "RESIZE_NEAREST_NEIGHBOR", "RESIZE_BILINEAR",
               "SPACE_TO_DEPTH", "DEPTH_TO_SPACE", "UNPACK", "REDUCE_MAX", "REDUCE_MIN", "SPLIT", "SPLIT_V", "TILE",
               "BROADCAST_TO"}
# outputs at a fixed scale and zero point
_FIXED = {"SOFTMAX": (1 / 256, -128), "LOGISTIC": (1 / 256, -128), "TANH": (1 / 128, 0),
          "LOG_SOFTMAX": (16 / 256, 127)}
# outputs at their calibrated range; the kernels rescale each input
_FREE = {"ADD", "SUB", "MUL", "MEAN", "RELU", "RELU6", "RELU_N1_TO_1", "LEAKY_RELU", "HARD_SWISH", "SUM", "GELU",
         "ELU", "BATCH_MATMUL", "SQUARED_DIFFERENCE", "RSQRT"}
# outputs at their calibrated range, and every input requantised to it
_JOINED = {"CONCATENATION", "PACK", "MAXIMUM", "MINIMUM"}
# the int8 kernels' operator versions (those TensorFlow's converter writes)
_INT8_VERSION = {"FULLY_CONNECTED": 4, "CONV_2D": 3, "DEPTHWISE_CONV_2D": 3, "TRANSPOSE_CONV": 2, "RESHAPE": 1,
                 "SQUEEZE": 1, "EXPAND_DIMS": 1, "HARD_SWISH": 1, "BROADCAST_TO": 3, "ELU": 1}
_NO_INT8_INPUTS = {"SHAPE"}  # ops that take an int8 tensor as well as a float one (only its shape is read)


class Params:
    """Quantisation parameters of an int8 tensor: one scale and zero point (per tensor) or one per channel."""
    __slots__ = ("scale", "zero_point", "dim")

    def __init__(self, scale, zero_point, dim=0):
        self.scale = np.atleast_1d(np.asarray(scale, np.float32))
        self.zero_point = np.atleast_1d(np.asarray(zero_point, np.int64))
        self.dim = dim

    def key(self):
        return self.scale.tobytes(), self.zero_point.tobytes(), self.dim

    def as_tuple(self):
        return self.scale, self.zero_point, self.dim


def activation_params(lo, hi):
    """Asymmetric int8 parameters for values in [lo, hi] (widened to hold 0, so 0 is exact)."""
    lo, hi = min(float(lo), 0.0), max(float(hi), 0.0)
    if hi == lo:
        return Params(1.0, -128)
    scale = (hi - lo) / 255.0
    zp = -128 - lo / scale
    return Params(scale, int(np.clip(np.round(zp), -128, 127)))


def symmetric_per_channel(w, axis):
    """int8 weights and their per-channel scales (max |w| of each channel at 127, zero point 0)."""
    axis = axis % w.ndim
    other = tuple(i for i in range(w.ndim) if i != axis)
    amax = np.max(np.abs(w), axis=other) if other else np.abs(w)
    scales = np.where(amax > 0, amax / 127.0, 1.0).astype(np.float32)
    shape = [1] * w.ndim
    shape[axis] = -1
    q = np.clip(np.round(w / scales.reshape(shape)), -127, 127).astype(np.int8)
    return q, Params(scales, np.zeros(len(scales), np.int64), axis)


def quantize_values(x, params):
    q = np.round(np.asarray(x, np.float64) / params.scale[0]) + params.zero_point[0]
    return np.clip(q, -128, 127).astype(np.int8)


class _Graph:
    """Helpers over one subgraph: constants, new tensors, operator names."""

    def __init__(self, model, sub):
        self.model, self.sub = model, sub
        names = {code: name for name, code in vars(schema.enum("BuiltinOperator")).items()
                 if not name.startswith("_")}
        self.opname = lambda op: names[model.opcodes[op.opcode]]

    def const(self, index):
        """The float32 constant at tensor `index`, or None."""
        if index < 0:
            return None
        t = self.sub.tensors[index]
        if t.buffer == 0 or t.type != FLOAT32 or not self.model.buffers[t.buffer]:
            return None
        return np.frombuffer(self.model.buffers[t.buffer], dtype=np.float32).reshape(t.shape)

    def is_const(self, index):
        return index >= 0 and self.sub.tensors[index].buffer != 0

    def new_const(self, value, name, type_, params=None):
        value = np.asarray(value, order="C")  # (ascontiguousarray would make a 0-d value 1-d)
        self.model.buffers.append(value.tobytes())
        return self.new_tensor(name, value.shape, type_, len(self.model.buffers) - 1, params)

    def new_tensor(self, name, shape, type_, buffer=0, params=None):
        proto = self.sub.tensors[0] if self.sub.tensors else None
        cls = type(proto)
        self.sub.tensors.append(cls(name, shape, type_, buffer, params.as_tuple() if params is not None else None))
        return len(self.sub.tensors) - 1

    def op(self, name, inputs, outputs, version=None):
        from .lower import LiteOp
        return LiteOp(self.model.opcode(name, version), list(inputs), list(outputs), None, {})


# ---------------------------------------------------------------- dynamic range
def dynamic_range(model, sub):
    g = _Graph(model, sub)
    ops = []
    for op in sub.ops:
        name = g.opname(op)
        ops.append(op)
        if name in _HYBRID_VERSION:
            wi, _, _, axis = _WEIGHTED[name]
            w = g.const(op.inputs[wi])
            if w is None or w.size < MIN_ELEMENTS:
                continue
            q, params = symmetric_per_channel(w, axis)
            op.inputs = list(op.inputs)
            op.inputs[wi] = g.new_const(q, sub.tensors[op.inputs[wi]].name, INT8, params)
            op.opcode = model.opcode(name, _HYBRID_VERSION[name])
            if name == "FULLY_CONNECTED":
                op.fields["AsymmetricQuantizeInputs"] = True
        elif name == "GATHER":
            table = g.const(op.inputs[0])
            if table is None or table.size < MIN_ELEMENTS:
                continue
            amax = float(np.max(np.abs(table)))
            params = Params(amax / 127.0 if amax > 0 else 1.0, 0)
            q = np.clip(np.round(table / params.scale[0]), -127, 127).astype(np.int8)
            out = sub.tensors[op.outputs[0]]
            op.inputs = [g.new_const(q, sub.tensors[op.inputs[0]].name, INT8, params)] + list(op.inputs[1:])
            rows = g.new_tensor(out.name + "_int8", out.shape, INT8, params=params)
            ops.append(g.op("DEQUANTIZE", [rows], [op.outputs[0]], 2))
            op.outputs = [rows]
            op.opcode = model.opcode("GATHER", 2)
    sub.ops = ops


# ---------------------------------------------------------------- float16
def float16(model, sub):
    g = _Graph(model, sub)
    dequantize, done = [], {}
    for op in sub.ops:
        op.inputs = list(op.inputs)
        for j, t in enumerate(op.inputs):
            value = g.const(t)
            if value is None:
                continue
            if t not in done:
                half = g.new_const(value.astype(np.float16), sub.tensors[t].name, FLOAT16)
                full = g.new_tensor(sub.tensors[t].name + "_dequantized", sub.tensors[t].shape, FLOAT32)
                dequantize.append(g.op("DEQUANTIZE", [half], [full], 3))
                done[t] = full
            op.inputs[j] = done[t]
    sub.ops = dequantize + sub.ops


# ---------------------------------------------------------------- calibration
def calibrate(model, dataset, signatures):
    """{(subgraph, tensor): (min, max)} of every float32 op output over the representative dataset, the float
    model run in LiteRT with every intermediate tensor kept."""
    import warnings
    from .interpreter import _INSTALL
    if not callable(dataset):
        raise TypeError(f"'{type(dataset).__name__}' object is not callable")
    try:
        from ai_edge_litert.interpreter import Interpreter
    except ImportError:
        raise ImportError(f"Full integer quantisation calibrates the model in LiteRT (the ai-edge-litert package): "
                          f"{_INSTALL}") from None
    with warnings.catch_warnings():  # (LiteRT warns that keeping every tensor is for debugging)
        warnings.simplefilter("ignore")
        interp = Interpreter(model_content=schema.write(model), experimental_preserve_all_tensors=True)
    watched = {}
    for s, sub in enumerate(model.subgraphs):
        watched[s] = sorted({o for op in sub.ops for o in op.outputs if sub.tensors[o].type == FLOAT32})
    by_key = {sig.key: sig for sig in signatures}
    ranges, n = {}, 0
    for sample in dataset():
        key, inputs = _sample(sample, signatures, by_key)
        sig = by_key[key]
        runner = interp.get_signature_runner(key)
        runner(**inputs)
        for t in watched[sig.subgraph]:
            try:
                v = interp.get_tensor(t, sig.subgraph)
            except ValueError:  # a tensor LiteRT did not keep (a loop's carried value): left float
                continue
            if v.size == 0:
                continue
            lo, hi = float(np.min(v)), float(np.max(v))
            old = ranges.get((sig.subgraph, t))
            ranges[(sig.subgraph, t)] = (lo, hi) if old is None else (min(old[0], lo), max(old[1], hi))
        for name, t in sig.inputs:
            v = np.asarray(inputs[name])
            if v.dtype == np.float32 and v.size:
                old = ranges.get((sig.subgraph, t))
                lo, hi = float(v.min()), float(v.max())
                ranges[(sig.subgraph, t)] = (lo, hi) if old is None else (min(old[0], lo), max(old[1], hi))
        n += 1
    if not n:
        raise ValueError("The representative_dataset gave no samples: full integer quantization needs at least "
                         "one to calibrate the activations' ranges.")
    return ranges


def _sample(sample, signatures, by_key):
    """(signature key, {input name: array}) of one representative sample: a list of the inputs in order, a
    dict by input name, or (signature key, dict) for a model of several signatures."""
    if isinstance(sample, tuple) and len(sample) == 2 and isinstance(sample[0], str) and isinstance(sample[1], dict):
        key, data = sample
        if key not in by_key:
            raise ValueError(f"Invalid signature key '{key}' in the representative_dataset. Valid keys are "
                             f"'{','.join(sorted(by_key))}'.")
    else:
        if len(signatures) != 1:
            raise ValueError("The model has several signatures: each representative sample must be a tuple "
                             "(signature_key, {input name: value}).")
        key, data = signatures[0].key, sample
    sig = by_key[key]
    names = [n for n, _ in sig.inputs]
    if isinstance(data, dict):
        missing = [n for n in names if n not in data]
        if missing:
            raise ValueError(f"The representative sample has no value for input(s) {missing} of signature "
                             f"'{key}' (it has {sorted(data)}).")
        return key, {n: _array(data[n]) for n in names}
    items = list(data) if isinstance(data, (list, tuple)) else [data]
    if len(items) != len(names):
        raise ValueError(f"Invalid input shapes: expected {len(names)} items got {len(items)} items.")
    return key, {n: _array(v) for n, v in zip(names, items)}


def _array(v):
    return np.asarray(v.numpy() if hasattr(v, "numpy") else v)


# ---------------------------------------------------------------- full integer
class FullInteger:
    """Quantises one subgraph's ops to int8 with the calibrated ranges; returns {old output: new output}."""

    def __init__(self, model, sub, index, ranges, int8_only, input_type, output_type):
        self.g = _Graph(model, sub)
        self.model, self.sub, self.index = model, sub, index
        self.ranges = ranges
        self.int8_only = int8_only
        self.input_type, self.output_type = input_type, output_type
        self.ops = []
        self.int8 = {}  # activation tensor -> its int8 tensor (itself when the op producing it was quantised)
        self.float_of = {}  # int8 activation -> its DEQUANTIZEd float copy
        self.requant = {}
        self.refused = []

    def params_of(self, t):
        r = self.ranges.get((self.index, t))
        return None if r is None else activation_params(*r)

    def run(self):
        sub, g = self.sub, self.g
        self._inputs()
        for op in sub.ops:
            name = g.opname(op)
            plan = self._plan(op, name)
            if plan is None:
                if name not in _NO_INT8_INPUTS:
                    if self.int8_only and self._has_float_activation(op):
                        self.refused.append(name)
                    op.inputs = [self._as_float(t) for t in op.inputs]
                self.ops.append(op)
                continue
            self._quantize_op(op, name, plan)
        remap = self._outputs()
        sub.ops = self.ops
        return remap

    def _has_float_activation(self, op):
        return any(t >= 0 and self.sub.tensors[t].type == FLOAT32 for t in list(op.inputs) + list(op.outputs))

    # -- the model's inputs and outputs
    def _inputs(self):
        sub = self.sub
        for t in sub.inputs:
            tensor = sub.tensors[t]
            params = self.params_of(t)
            if tensor.type != FLOAT32 or params is None or self.input_type == FLOAT32:
                continue
            if self.input_type == INT8:
                tensor.type, tensor.quant = INT8, params.as_tuple()
                self.int8[t] = t
            else:  # uint8 in, int8 inside: the same scale, the zero point 128 higher
                tensor.type = UINT8
                tensor.quant = Params(params.scale, params.zero_point + 128).as_tuple()
                q = self.g.new_tensor("tfl.quantize", tensor.shape, INT8, params=params)
                self.ops.append(self.g.op("QUANTIZE", [t], [q], 1))
                self.int8[t] = q

    def _outputs(self):
        sub, remap = self.sub, {}
        new_outputs = []
        for t in sub.outputs:
            tensor = sub.tensors[t]
            out = t
            if self.output_type == FLOAT32:
                if tensor.type == INT8 and t in self.int8:
                    out = self._dequantize_output(t)
            elif tensor.type == FLOAT32 and self.params_of(t) is not None:
                out = self._quantize_output(t)
            elif tensor.type == INT8 and self.output_type == UINT8:
                out = self._quantize_output(t)
            remap[t] = out
            new_outputs.append(out)
        sub.outputs = new_outputs
        return remap

    def _dequantize_output(self, t):
        """The float output keeps its name; the int8 tensor before it gets another."""
        tensor = self.sub.tensors[t]
        out = self.g.new_tensor(tensor.name, tensor.shape, FLOAT32)
        tensor.name = tensor.name + "_int8"
        self.ops.append(self.g.op("DEQUANTIZE", [t], [out], 2))
        return out

    def _quantize_output(self, t):
        tensor = self.sub.tensors[t]
        q = self._as_int8(t, None) if tensor.type == FLOAT32 else t
        params = Params(*self.sub.tensors[q].quant)
        if self.output_type == INT8:
            if q != t:
                self.sub.tensors[q].name, tensor.name = tensor.name, tensor.name + "_float"
            return q
        out = self.g.new_tensor(tensor.name, tensor.shape, UINT8, params=Params(params.scale, params.zero_point + 128))
        tensor.name = tensor.name + "_int8"
        self.ops.append(self.g.op("QUANTIZE", [q], [out], 1))
        return out

    # -- conversions between float and int8 activations
    def _as_float(self, t):
        if t < 0 or t not in self.int8 or self.sub.tensors[t].type == FLOAT32:
            return t
        if t not in self.float_of:
            tensor = self.sub.tensors[t]
            f = self.g.new_tensor(f"{tensor.name}_dequantized", tensor.shape, FLOAT32)
            self.ops.append(self.g.op("DEQUANTIZE", [t], [f], 2))
            self.float_of[t] = f
        return self.float_of[t]

    def _as_int8(self, t, params):
        """An int8 tensor holding activation t, at `params` when given (requantised if t's differ)."""
        tensor = self.sub.tensors[t]
        if tensor.type == FLOAT32 and t not in self.int8:
            own = self.params_of(t)
            q = self.g.new_tensor("tfl.quantize", tensor.shape, INT8, params=own)
            self.ops.append(self.g.op("QUANTIZE", [t], [q], 1))
            self.int8[t] = q
        q = self.int8.get(t, t)
        if params is None or Params(*self.sub.tensors[q].quant).key() == params.key():
            return q
        key = (q, params.key())
        if key not in self.requant:
            r = self.g.new_tensor(f"{self.sub.tensors[q].name}_requantized", tensor.shape, INT8, params=params)
            self.ops.append(self.g.op("QUANTIZE", [q], [r], 1))
            self.requant[key] = r
        return self.requant[key]

    # -- one op
    def _plan(self, op, name):
        """How op's outputs are quantised (None: it stays float)."""
        sub, g = self.sub, self.g
        if not op.outputs or any(sub.tensors[o].type != FLOAT32 for o in op.outputs):
            return None
        if name in _WEIGHTED:
            wi, bi, xi, _ = _WEIGHTED[name]
            if g.const(op.inputs[wi]) is None or (len(op.inputs) > bi and op.inputs[bi] >= 0
                                                   and g.const(op.inputs[bi]) is None):
                return None
            if g.is_const(op.inputs[xi]) or not self._known(op.inputs[xi]):
                return None
            kind = "weighted"
        elif name in _SAME_SCALE:
            kind = "same"
        elif name in _FIXED:
            kind = "fixed"
        elif name in _FREE:
            kind = "free"
        elif name in _JOINED:
            kind = "joined"
        else:
            return None
        for t in op.inputs:
            if g.is_const(t):
                if sub.tensors[t].type == INT8:
                    return None
            elif self._activation(t) and not self._known(t):
                return None
        if kind != "same" and any(self.params_of(o) is None for o in op.outputs):
            return None
        if kind in ("same",) and not any(self._activation(t) for t in op.inputs) and \
                not any(g.is_const(t) and sub.tensors[t].type == FLOAT32 for t in op.inputs):
            return None
        return kind

    def _known(self, t):
        return t in self.int8 or self.params_of(t) is not None

    def _activation(self, t):
        """A float tensor computed by the model, or one already int8 (a uint8 input's is its QUANTIZE)."""
        return t >= 0 and not self.g.is_const(t) and (t in self.int8 or self.sub.tensors[t].type == FLOAT32)

    def _const_int8(self, t, params=None):
        value = self.g.const(t)
        params = params or activation_params(float(value.min(initial=0)), float(value.max(initial=0)))
        return self.g.new_const(quantize_values(value, params), self.sub.tensors[t].name, INT8, params)

    def _quantize_op(self, op, name, kind):
        sub, g = self.sub, self.g
        ins = list(op.inputs)
        if kind == "weighted":
            wi, bi, xi, axis = _WEIGHTED[name]
            ins[xi] = self._as_int8(ins[xi], None)
            x_scale = float(sub.tensors[ins[xi]].quant[0][0])
            q, wp = symmetric_per_channel(g.const(ins[wi]), axis)
            ins[wi] = g.new_const(q, sub.tensors[ins[wi]].name, INT8, wp)
            if len(ins) > bi and ins[bi] >= 0:
                bias = g.const(ins[bi])
                bscale = (x_scale * wp.scale).astype(np.float32)
                qb = np.round(bias.reshape(-1) / bscale).astype(np.int32)
                ins[bi] = g.new_const(qb, sub.tensors[ins[bi]].name, INT32, Params(bscale, np.zeros(len(bscale)), 0))
            outs = [self.params_of(o) for o in op.outputs]
        elif kind == "same":
            src = next((j for j, t in enumerate(ins) if self._activation(t)), None)
            if src is None:  # a constant table (an embedding): quantised by its own range
                src = next(j for j, t in enumerate(ins) if g.const(t) is not None)
                ins[src] = self._const_int8(ins[src])
            else:
                ins[src] = self._as_int8(ins[src], None)
            params = Params(*sub.tensors[ins[src]].quant)
            for j, t in enumerate(ins):
                if j != src and g.const(t) is not None:
                    ins[j] = self._const_int8(t, params)  # PADV2's value
            outs = [params] * len(op.outputs)
        else:
            outs = [Params(*_FIXED[name]) if kind == "fixed" else self.params_of(o) for o in op.outputs]
            for j, t in enumerate(ins):
                target = outs[0] if kind == "joined" else None
                if g.const(t) is not None:
                    ins[j] = self._const_int8(t, target)
                elif self._activation(t):
                    ins[j] = self._as_int8(t, target)
        op.inputs = ins
        for o, params in zip(op.outputs, outs):
            tensor = sub.tensors[o]
            tensor.type, tensor.quant = INT8, params.as_tuple()
            self.int8[o] = o
        if name == "FULLY_CONNECTED":
            op.fields["AsymmetricQuantizeInputs"] = False
        op.opcode = self.model.opcode(name, _INT8_VERSION.get(name, 2))
        self.ops.append(op)


def full_integer(model, ranges, int8_only, input_type, output_type, signatures):
    """Quantises the signatures' subgraphs (IF/WHILE subgraphs stay float); returns
    ({(subgraph, old output): new output}, [op names left float])."""
    remap, refused = {}, []
    for s in sorted({sig.subgraph for sig in signatures}):
        sub = model.subgraphs[s]
        fi = FullInteger(model, sub, s, ranges, int8_only, input_type, output_type)
        for old, new in fi.run().items():
            remap[(s, old)] = new
        refused += fi.refused
    return remap, refused
