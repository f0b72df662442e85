"""`python -m rivulet show|run|graph DIR`: saved_model_cli's show and run, and a picture of a graph."""
import ast
import os
import sys

import numpy as np

from . import command
from ..function.trace_type import Literal, describe
from ..saved_model.restore import restored_functions
from ..shape import TensorSpec


def _load(path):
    from ..saved_model import load
    return load(path)


def _dims(shape):
    if shape.rank is None:
        return "unknown_rank"
    return "(" + ", ".join("-1" if d is None else str(d) for d in shape) + ")"


def _tensor_info(kind, key, t):
    from .. import dtypes
    if hasattr(t, "_to_components"):  # a RaggedTensor/SparseTensor output: saved_model_cli shows no tensor
        return [f"    {kind}['{key}'] tensor_info:", "        dtype: DT_INVALID", "        shape: ()",
                "        name: "]
    return [f"    {kind}['{key}'] tensor_info:",
            f"        dtype: {dtypes.ENUM_NAMES[t.dtype.as_datatype_enum]}",
            f"        shape: {_dims(t.shape)}",
            f"        name: {t.name}"]


def _signature_lines(key, cf):
    lines = [f"signature_def['{key}']:",
             "  The given SavedModel SignatureDef contains the following input(s):"]
    for (name, _), ph in zip(cf._params, cf.graph.arg_placeholders):
        lines += _tensor_info("inputs", name, ph)
    lines.append("  The given SavedModel SignatureDef contains the following output(s):")
    for k, t in cf.graph.structured_outputs.items():
        lines += _tensor_info("outputs", k, t)
    return lines


def _argument_lines(i, name, t, keyword=False):
    head = f"        {'Named Argument' if keyword else 'Argument'} #{i}"
    if isinstance(t, TensorSpec):
        return [head, f"          {name}: {TensorSpec(t.shape, t.dtype, t.name or name)!r}"]
    if isinstance(t, Literal):
        return [head, f"          DType: {type(t.value).__name__}", f"          Value: {t.value!r}"]
    if hasattr(t, "_component_specs"):  # a RaggedTensorSpec / SparseTensorSpec, as saved_model_cli shows it
        return [head, f"          DType: {type(t).__name__}", f"          Value: {t!r}"]
    return [head, f"          {name}: {describe(t)}"]


def show_text(loaded):
    lines = []
    for key in sorted(loaded.signatures):
        lines += _signature_lines(key, loaded.signatures[key]) + [""]
    lines.append("Concrete Functions:")
    for path, fn in restored_functions(loaded):
        lines.append(f"  Function Name: '{path}'")
        for n, cf in enumerate(fn.concrete_functions, 1):
            lines += [f"    Option #{n}", "      Callable with:"]
            params = list(zip(cf._params, cf._arg_types))
            positional = [(n, t) for (n, k), t in params if k.name != "KEYWORD_ONLY"]
            keyword = [(n, t) for (n, k), t in params if k.name == "KEYWORD_ONLY"]
            for i, (name, t) in enumerate(positional, 1):
                lines += _argument_lines(i, name, t)
            for i, (name, t) in enumerate(keyword, 1):
                lines += _argument_lines(i, name, t, keyword=True)
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


@command("show", "show a saved model's signatures (inputs, outputs) and functions",
         lambda p: p.add_argument("dir", help="the saved model directory"))
def _show(args):
    from ..saved_model import tf_import
    if tf_import.is_tf_saved_model(args.dir):  # written by TensorFlow: shown from saved_model.pb
        from ..saved_model.tf_import.show import show_text as tf_show_text
        sys.stdout.write(tf_show_text(args.dir))
        return
    sys.stdout.write(show_text(_load(args.dir)))


def _parse_input(text, spec):
    """NAME=LITERAL (a Python literal: number, nested list) or NAME=@file.npy."""
    name, sep, value = text.partition("=")
    if not sep:
        raise SystemExit(f"--input must look like NAME=VALUE, got {text!r}")
    if value.startswith("@"):
        array = np.load(value[1:], allow_pickle=False)
    else:
        try:
            array = np.asarray(ast.literal_eval(value))
        except (ValueError, SyntaxError) as e:
            raise SystemExit(f"--input {name}: {value!r} is not a Python literal ({e})") from None
    if spec is not None and spec.dtype.name != "string":
        array = array.astype(spec.dtype.as_numpy_dtype)
    return name, array


@command("run", "run a saved model's signature on inputs given on the command line",
         lambda p: (p.add_argument("dir", help="the saved model directory"),
                    p.add_argument("--signature", default="serving_default", help="signature key"),
                    p.add_argument("--input", action="append", default=[], metavar="NAME=VALUE",
                                   help="an input: a Python literal ([[1, 2]]) or @file.npy; repeat per input")))
def _run(args):
    loaded = _load(args.dir)
    if args.signature not in loaded.signatures:
        raise SystemExit(f"Could not find signature \"{args.signature}\". Please choose from: "
                         f"{', '.join(sorted(loaded.signatures)) or '(none)'}")
    cf = loaded.signatures[args.signature]
    specs = {n: t for (n, _), t in zip(cf._params, cf._arg_types)}
    feeds = dict(_parse_input(text, specs.get(text.partition("=")[0])) for text in args.input)
    missing = sorted(set(specs) - set(feeds))
    if missing:
        raise SystemExit(f"missing --input for: {', '.join(missing)}")
    try:
        result = cf(**feeds)
    except TypeError as e:  # inputs that do not fit the signature (a ValueError or OpError says so itself)
        raise ValueError(str(e)) from None
    for key in sorted(result):
        print(f"Result for output key {key}:")
        print(np.asarray(result[key]))


def _pick_graph(loaded, name):
    """(title, graph, outputs) of a signature or function path; the default signature when name is None."""
    if name is None:
        name = "serving_default" if "serving_default" in loaded.signatures else next(iter(loaded.signatures), None)
    if name in loaded.signatures:
        cf = loaded.signatures[name]
        return f"signature {name}", cf.graph, cf.graph.outputs
    fns = dict(restored_functions(loaded))
    path, _, option = (name or "").partition("#")
    fn = fns.get(path) if name else next(iter(fns.values()), None)
    if fn is None or not fn.concrete_functions:
        raise SystemExit(f"No signature or traced function named {name!r}. Signatures: "
                         f"{sorted(loaded.signatures)}; functions: {sorted(fns)}")
    cfs = fn.concrete_functions
    n = int(option) if option.isdigit() and 0 < int(option) <= len(cfs) else 1
    return f"{path or fn.__name__} (option #{n})", cfs[n - 1].graph, cfs[n - 1].graph.outputs


@command("graph", "draw a saved model's graph (.svg, .dot or .html)",
         lambda p: (p.add_argument("dir", help="the saved model directory"),
                    p.add_argument("-o", "--output", required=True, help="graph.svg, graph.dot or graph.html"),
                    p.add_argument("--function", default=None,
                                   help="signature key, or function path with optional #option (f#2)")))
def _graph(args):
    from ..saved_model import render
    title, graph, outputs = _pick_graph(_load(args.dir), args.function)
    ext = os.path.splitext(args.output)[1].lower()
    draw = {".svg": render.to_svg, ".dot": render.to_dot, ".gv": render.to_dot, ".html": render.to_html}.get(ext)
    if draw is None:
        raise SystemExit(f"-o must end in .svg, .dot or .html, got {args.output!r}")
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(draw(graph, outputs, title))
    print(f"wrote {args.output} ({len(graph.get_operations())} ops)")
