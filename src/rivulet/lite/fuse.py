"""Peepholes on a lowered subgraph, the ones TensorFlow's converter makes: a per-channel MUL after a
convolution or FULLY_CONNECTED (inference BatchNormalization) folded into its weights and bias, a bias ADD
folded into its bias operand, and a RELU/RELU6 folded into the op before it as its
fused_activation_function; a bias of zeros left out; then the tensors and buffers nothing uses any more are
dropped."""
from collections import Counter

import numpy as np

from . import schema

_ACT = {"RELU": 1, "RELU_N1_TO_1": 2, "RELU6": 3}  # the activations every kernel below fuses
_TAKES_ACT = {"FullyConnectedOptions", "Conv2DOptions", "DepthwiseConv2DOptions", "AddOptions", "SubOptions",
              "MulOptions", "DivOptions", "Pool2DOptions"}
_BIAS_INPUT = {"CONV_2D": 2, "DEPTHWISE_CONV_2D": 2, "FULLY_CONNECTED": 2, "TRANSPOSE_CONV": 3}
_FLOAT32 = 0


def optimize(model, sub):
    """Fuses in place; returns {old tensor index: new index} for the tensors kept."""
    names = {code: name for name, code in vars(schema.enum("BuiltinOperator")).items() if not name.startswith("_")}
    opname = lambda op: names[model.opcodes[op.opcode]]  # noqa: E731
    while _fuse_once(model, sub, opname):
        pass
    _drop_dead_ops(sub, opname)
    _drop_zero_biases(model, sub, opname)
    return _prune_tensors(sub)


def _drop_dead_ops(sub, opname):
    """Drops the operators whose results nothing reads (what a pattern fused into one op left behind); the
    builtin operators are all free of side effects (IF and WHILE are kept: their subgraphs stay referenced)."""
    while True:
        used = set(sub.outputs)
        for op in sub.ops:
            used.update(op.inputs)
        live = [op for op in sub.ops if used.intersection(op.outputs) or opname(op) in ("IF", "WHILE")]
        if len(live) == len(sub.ops):
            return
        sub.ops = live


def _drop_zero_biases(model, sub, opname):
    """A bias of zeros (an untrained layer's) left out, its optional input -1, as TensorFlow's converter does."""
    for op in sub.ops:
        name = opname(op)
        if name == "FULLY_CONNECTED" and len(op.inputs) > 2 and op.inputs[2] >= 0:  # (CONV_2D needs one)
            bias = _const_array(model, sub, op.inputs[2])
            if bias is not None and not bias.any():
                op.inputs = list(op.inputs)
                op.inputs[2] = -1


def _fuse_once(model, sub, opname):
    producer, uses = {}, Counter(sub.outputs)
    for op in sub.ops:
        producer.update((o, op) for o in op.outputs)
        uses.update(i for i in op.inputs if i >= 0)
    for op in sub.ops:
        name = opname(op)
        if name in _ACT:
            t = op.inputs[0]
            p = producer.get(t)
            if (p is not None and uses[t] == 1 and p.options in _TAKES_ACT and len(p.outputs) == 1
                    and not p.fields.get("FusedActivationFunction")):
                p.fields["FusedActivationFunction"] = _ACT[name]
                p.outputs = list(op.outputs)
                sub.ops.remove(op)
                return True
        elif name == "ADD" and _fold_bias(model, sub, op, producer, uses, opname):
            return True
        elif name == "MUL" and _fold_scale(model, sub, op, producer, uses, opname):
            return True
    return False


def _const_array(model, sub, index):
    t = sub.tensors[index]
    if t.buffer == 0 or t.type != _FLOAT32 or not model.buffers[t.buffer]:
        return None
    return np.frombuffer(model.buffers[t.buffer], dtype=np.float32).reshape(t.shape)


def _fold_bias(model, sub, add, producer, uses, opname):
    for t, c in (add.inputs, add.inputs[::-1]):
        p = producer.get(t)
        if p is None or opname(p) not in _BIAS_INPUT or uses[t] != 1 or p.fields.get("FusedActivationFunction"):
            continue
        bias = _const_array(model, sub, c)
        out = sub.tensors[t]
        if bias is None or out.type != _FLOAT32 or bias.ndim != 1 or bias.shape[0] != out.shape[-1]:
            continue
        j = _BIAS_INPUT[opname(p)]
        old = p.inputs[j] if len(p.inputs) > j else -1
        if old >= 0:
            prev = _const_array(model, sub, old)
            if prev is None:
                continue
            bias = prev + bias
        model.buffers.append(np.ascontiguousarray(bias, dtype=np.float32).tobytes())
        sub.tensors.append(type(out)(f"{sub.tensors[add.outputs[0]].name}/bias", bias.shape, _FLOAT32,
                                     len(model.buffers) - 1))
        p.inputs = list(p.inputs) + [-1] * (j + 1 - len(p.inputs))
        p.inputs[j] = len(sub.tensors) - 1
        p.fields["FusedActivationFunction"] = add.fields.get("FusedActivationFunction", 0)
        p.outputs = list(add.outputs)
        sub.ops.remove(add)
        return True
    return False


_WEIGHTS_CHANNEL_AXIS = {"CONV_2D": 0, "FULLY_CONNECTED": 0, "DEPTHWISE_CONV_2D": -1}


def _fold_scale(model, sub, mul, producer, uses, opname):
    if mul.fields.get("FusedActivationFunction"):
        return False
    for t, c in (mul.inputs, mul.inputs[::-1]):
        p = producer.get(t)
        if p is None or opname(p) not in _WEIGHTS_CHANNEL_AXIS or uses[t] != 1 or \
                p.fields.get("FusedActivationFunction"):
            continue
        scale, out = _const_array(model, sub, c), sub.tensors[t]
        if scale is None or out.type != _FLOAT32 or scale.ndim != 1 or scale.shape[0] != out.shape[-1]:
            continue
        weights = _const_array(model, sub, p.inputs[1])
        bias = _const_array(model, sub, p.inputs[2]) if len(p.inputs) > 2 and p.inputs[2] >= 0 else None
        if weights is None or (len(p.inputs) > 2 and p.inputs[2] >= 0 and bias is None):
            continue
        axis = _WEIGHTS_CHANNEL_AXIS[opname(p)]
        if weights.shape[axis] != scale.shape[0]:
            continue
        shape = [1] * weights.ndim
        shape[axis] = -1
        p.inputs = list(p.inputs)
        p.inputs[1] = _new_const(model, sub, weights * scale.reshape(shape), sub.tensors[p.inputs[1]].name)
        if bias is not None:
            p.inputs[2] = _new_const(model, sub, bias * scale, sub.tensors[p.inputs[2]].name)
        p.outputs = list(mul.outputs)
        sub.ops.remove(mul)
        return True
    return False


def _new_const(model, sub, value, name):
    value = np.ascontiguousarray(value, dtype=np.float32)
    model.buffers.append(value.tobytes())
    proto = sub.tensors[0]
    sub.tensors.append(type(proto)(name, value.shape, _FLOAT32, len(model.buffers) - 1))
    return len(sub.tensors) - 1


def _prune_tensors(sub):
    used = set(sub.inputs) | set(sub.outputs)
    for op in sub.ops:
        used.update(i for i in op.inputs + op.outputs if i >= 0)
    keep = sorted(used)
    remap = {old: new for new, old in enumerate(keep)}
    sub.tensors = [sub.tensors[i] for i in keep]
    for op in sub.ops:
        op.inputs = [remap[i] if i >= 0 else -1 for i in op.inputs]
        op.outputs = [remap[i] for i in op.outputs]
    sub.inputs = [remap[i] for i in sub.inputs]
    sub.outputs = [remap[i] for i in sub.outputs]
    return remap


def prune_buffers(model):
    """Drops the buffers no tensor refers to (buffer 0, the empty one, stays first)."""
    used = sorted({t.buffer for sub in model.subgraphs for t in sub.tensors} | {0})
    remap = {old: new for new, old in enumerate(used)}
    model.buffers = [model.buffers[i] for i in used]
    for sub in model.subgraphs:
        for t in sub.tensors:
            t.buffer = remap[t.buffer]


def prune_opcodes(model):
    """Drops the operator codes no operator uses (quantisation moves ops to other versions of a code)."""
    used = sorted({op.opcode for sub in model.subgraphs for op in sub.ops})
    remap = {old: new for new, old in enumerate(used)}
    model.opcodes = [model.opcodes[i] for i in used]
    model.versions = [model.versions[i] for i in used]
    for sub in model.subgraphs:
        for op in sub.ops:
            op.opcode = remap[op.opcode]
