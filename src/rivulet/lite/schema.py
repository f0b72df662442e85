"""Writes a lowered model (lower.LiteModel) as a .tflite flatbuffer in TensorFlow Lite's schema.

The tables are built with the `tflite` package's generated flatbuffers code (one module per schema table,
with its `<Table>Start/Add<Field>/End` builders) on the `flatbuffers` runtime; nothing here lays out bytes.
"""
import importlib

import numpy as np

_INSTALL = "pip install 'rivulet[tflite]'  (or: pip install tflite flatbuffers)"
FILE_IDENTIFIER = b"TFL3"
SCHEMA_VERSION = 3


def _modules():
    try:
        import flatbuffers
        importlib.import_module("tflite.Model")
    except ImportError:
        raise ImportError(f"Converting to TensorFlow Lite needs the tflite and flatbuffers packages: {_INSTALL}") from None
    return flatbuffers


def schema(name):
    """The generated module of one schema table or enum (`tflite.Tensor`, `tflite.BuiltinOperator` ...)."""
    _modules()
    return importlib.import_module(f"tflite.{name}")


def enum(name):
    return getattr(schema(name), name)


def table(b, name, **fields):
    """Builds table `name` from fields already built (offsets) or scalars; None fields are left out."""
    mod = schema(name)
    getattr(mod, f"{name}Start")(b)
    for field, value in fields.items():
        if value is not None:
            getattr(mod, f"{name}Add{field}")(b, value)
    return getattr(mod, f"{name}End")(b)


def offsets(b, items):
    """A vector of tables (offsets already built)."""
    b.StartVector(4, len(items), 4)
    for o in reversed(items):
        b.PrependUOffsetTRelative(o)
    return b.EndVector()


def ints(b, values):
    return b.CreateNumpyVector(np.asarray(list(values), dtype=np.int32))


def write(model):
    """The .tflite bytes of a lower.LiteModel."""
    flatbuffers = _modules()
    b = flatbuffers.Builder(1024)
    buffers = []
    for data in model.buffers:
        vec = b.CreateNumpyVector(np.frombuffer(data, dtype=np.uint8)) if data else None
        buffers.append(table(b, "Buffer", Data=vec))
    codes = []
    for code, version in zip(model.opcodes, model.versions):
        codes.append(table(b, "OperatorCode", DeprecatedBuiltinCode=min(code, 127), BuiltinCode=code,
                           Version=version))
    subgraphs = [_subgraph(b, sg) for sg in model.subgraphs]
    sigs = []
    for sig in model.signatures:
        ins = [table(b, "TensorMap", Name=b.CreateString(n), TensorIndex=i) for n, i in sig.inputs]
        outs = [table(b, "TensorMap", Name=b.CreateString(n), TensorIndex=i) for n, i in sig.outputs]
        ins, outs = offsets(b, ins), offsets(b, outs)
        sigs.append(table(b, "SignatureDef", Inputs=ins, Outputs=outs, SignatureKey=b.CreateString(sig.key),
                          SubgraphIndex=sig.subgraph))
    fields = dict(Version=SCHEMA_VERSION, OperatorCodes=offsets(b, codes), Subgraphs=offsets(b, subgraphs),
                  Description=b.CreateString(model.description), Buffers=offsets(b, buffers),
                  SignatureDefs=offsets(b, sigs))
    root = table(b, "Model", **fields)
    b.Finish(root, file_identifier=FILE_IDENTIFIER)
    return bytes(b.Output())


def _subgraph(b, sg):
    tensors = []
    for t in sg.tensors:
        name = b.CreateString(t.name)
        shape = ints(b, [1 if d is None else d for d in t.shape])
        sig = ints(b, [-1 if d is None else d for d in t.shape]) if None in t.shape else None
        quant = _quantization(b, t.quant) if t.quant is not None else None
        tensors.append(table(b, "Tensor", Shape=shape, Type=t.type, Buffer=t.buffer, Name=name, ShapeSignature=sig,
                             Quantization=quant))
    ops = []
    for op in sg.ops:
        fields = {k: ints(b, v) if isinstance(v, list) else v for k, v in op.fields.items()}  # (vectors first)
        opts = table(b, op.options, **fields) if op.options else None
        opts_type = getattr(enum("BuiltinOptions"), op.options) if op.options else None
        ins, outs = ints(b, op.inputs), ints(b, op.outputs)
        ops.append(table(b, "Operator", OpcodeIndex=op.opcode, Inputs=ins, Outputs=outs,
                         BuiltinOptionsType=opts_type, BuiltinOptions=opts))
    return table(b, "SubGraph", Tensors=offsets(b, tensors), Inputs=ints(b, sg.inputs), Outputs=ints(b, sg.outputs),
                 Operators=offsets(b, ops), Name=b.CreateString(sg.name))


def _quantization(b, quant):
    """QuantizationParameters: real = scale * (q - zero_point), per tensor or per channel along `dim`."""
    scales, zero_points, dim = quant
    scale = b.CreateNumpyVector(np.asarray(scales, dtype=np.float32).reshape(-1))
    zp = b.CreateNumpyVector(np.asarray(zero_points, dtype=np.int64).reshape(-1))
    return table(b, "QuantizationParameters", Scale=scale, ZeroPoint=zp, QuantizedDimension=dim)
