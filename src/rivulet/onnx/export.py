"""rivulet.onnx.export: a traced function (or a saved model's signature) as an ONNX model file.

The graph exported is the one rivulet runs: the optimiser's output (constants folded, arithmetic simplified,
common subexpressions merged, MatMul+BiasAdd+Relu fused), so what onnxruntime computes is what rivulet
computes. Control-flow sub-graphs are exported as traced. Variables become initializers holding their
current values; captured eager tensors become constants.
"""
import itertools
import os

import numpy as np

from ..function.concrete import signature_output_names
from .report import ExportError, ExportReport, Problem

DEFAULT_OPSET = 17
OPSETS = range(13, 22)
SERVING = "serving_default"


def export(source, path=None, opset=DEFAULT_OPSET, signature=None, strict=True):
    """Writes `source` as an ONNX model to `path` (if given) and returns the ExportReport (`.model` holds
    the ModelProto).

    source: a ConcreteFunction; a tf.function with an input_signature or exactly one traced signature; or a
    saved model directory (its `signature`, by default "serving_default").
    Raises ExportError listing every op that cannot be exported (with its source line), unless
    strict=False: then the report is returned and nothing is written.
    """
    if opset not in OPSETS:
        raise ValueError(f"opset must be between {OPSETS[0]} and {OPSETS[-1]}, got {opset}")
    cf = concrete_function(source, signature)
    resources = [ph.name.split(":")[0] for ph in cf.graph.arg_placeholders if ph.dtype.name == "resource"]
    if resources:
        # an ONNX model has no variable inputs; variables the function closes over export as initializers
        raise ValueError(f"Cannot export {cf.name!r} to ONNX: it takes tf.Variable arguments ({', '.join(resources)}), "
                         f"and ONNX models have no variable inputs. Close over the variables instead (they are "
                         f"exported as initializers), or pass their values as tensors.")
    report = build(cf, opset)
    if not report.ok:
        if strict:
            raise ExportError(report)
        return report
    if path is not None:
        from onnx import save_model
        save_model(report.model, os.fspath(path))
        report.path = os.fspath(path)
    return report


def concrete_function(source, signature=None):
    """The ConcreteFunction to export from whatever `source` is (see export)."""
    from ..function.concrete import ConcreteFunction
    if isinstance(source, (str, os.PathLike)):
        from ..saved_model import load
        sigs = load(os.fspath(source)).signatures
        key = signature or SERVING
        if key not in sigs:
            have = ", ".join(sorted(sigs)) or "none"
            raise ValueError(f"The saved model at {os.fspath(source)} has no signature '{key}' (it has: {have})")
        return sigs[key]
    if signature is not None:
        raise ValueError("signature= selects a saved model's signature; pass a directory")
    if isinstance(source, ConcreteFunction):
        return source
    if getattr(source, "input_signature", None) is not None:
        return source.get_concrete_function()
    traced = getattr(source, "_list_all_concrete_functions", lambda: None)()
    if traced is None:
        raise TypeError(f"Cannot export {source!r}: pass a ConcreteFunction, a tf.function or a saved model "
                        f"directory")
    if len(traced) != 1:
        raise ValueError(f"{getattr(source, '__name__', source)!r} has {len(traced)} traced signatures; export one "
                         f"of them with f.get_concrete_function(...), or give the tf.function an input_signature")
    return traced[0]


def build(cf, opset):
    """Converts the ConcreteFunction's optimised graph; returns the report (with .model when it is ok)."""
    try:
        from onnx import checker, helper
    except ImportError:
        raise ImportError("Exporting to ONNX needs the onnx package: pip install 'rivulet[onnx]'") from None
    from ..optimize.pipeline import optimize_traced
    from . import ops_array, ops_control, ops_math, ops_nn, ops_sort  # noqa: F401  (register the converters)
    from .builder import Model, Scope, VarRef, value_info
    from .convert import convert_ops
    from .prune import prune
    report = ExportReport()
    model = Model(opset, report)
    g = cf.graph
    graph, inputs, outputs = optimize_traced(g)
    n_args = len(g.arg_placeholders)
    scope = Scope(model)
    feeds, in_infos, unknown = {}, [], itertools.count()
    for ph in inputs[:n_args]:
        name = model.fresh(ph.op.name)
        feeds[id(ph)] = name
        in_infos.append(value_info(name, ph, symbolic=lambda: f"unk__{next(unknown)}"))
        report.input_names.append(name)
    for (value, _), ph in zip(g.captures, inputs[n_args:]):
        if getattr(value, "_is_resource", False):
            feeds[id(ph)] = VarRef(value)
        else:  # not folded away (for example fed to a stateful op)
            feeds[id(ph)] = model.initializer(np.asarray(value._v), ph.op.name)
    out_names = [model.fresh(n) for n in signature_output_names(g)]  # claimed first: they are the user's names
    values = convert_ops(scope, graph, feeds, outputs)
    if not report.ok:
        report.problems.sort(key=lambda p: p.frame[:2] if p.frame else ("", 0))
        return report
    out_infos = []
    for name, value, t in zip(out_names, values, outputs):
        if not isinstance(value, str):
            report.problems.append(Problem("Output", name, "is not a tensor (a variable handle?)", None))
            return report
        scope.nodes.append(helper.make_node("Identity", [value], [name], name=name))
        out_infos.append(value_info(name, t))
        report.output_names.append(name)
    onnx_graph = helper.make_graph(scope.nodes, cf.name, in_infos, out_infos)
    live = prune(onnx_graph)
    onnx_graph.initializer.extend(t for t in model.initializers if t.name in live)
    opsets = [helper.make_opsetid("", opset)]
    m = helper.make_model(onnx_graph, opset_imports=opsets, producer_name="rivulet",
                          ir_version=helper.find_min_ir_version_for(opsets))
    checker.check_model(m)
    report.model = m
    return report
