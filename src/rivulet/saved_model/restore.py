"""tf.saved_model.load: rebuilds the saved objects, variables and functions from the files alone.

Nothing the file says is executed: graphs are rebuilt op by op from registered op types through
`Graph.create_op` (which re-runs every shape rule), values are decoded by `format.Decoder`, tensors come
from `format.read_npz`. Any problem with the files raises SavedModelError naming the file.
"""
import importlib
import inspect
import json
import os

import numpy as np

from .. import dtypes as _dt
from .. import nest
from ..core import context
from ..core.tensor import Tensor, convert_to_tensor
from ..function.concrete import ConcreteFunction
from ..function.trace_type import Literal, VariableSpec, is_composite_spec, type_of
from ..function.tracing import FuncGraph
from ..graph.graph_def import NodeDef
from ..core.op import REGISTRY
from ..ops import codec_ops, image_ops, resize_ops, signal_ops  # noqa: F401  (ops of lazily loaded namespaces)
from ..graph.graph_util import build_nodes
from ..shape import TensorSpec
from . import custom_gradients
from . import format as fmt
from . import validate
from .format import Invalid, SavedModelError, short

_P = inspect.Parameter
_KINDS = {k.name: k for k in (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD, _P.VAR_POSITIONAL, _P.KEYWORD_ONLY,
                              _P.VAR_KEYWORD)}
_MAX_NAME = 512


def load(export_dir, tags=None, options=None):
    """Loads what tf.saved_model.save wrote to export_dir. Raises OSError if export_dir holds no saved model,
    SavedModelError (a tf.errors.DataLossError) if its files are truncated, corrupted or not valid."""
    meta_path = os.path.join(export_dir, fmt.META)
    from . import tf_import
    if not os.path.isfile(meta_path) and tf_import.is_tf_saved_model(export_dir):  # written by TensorFlow
        return tf_import.load(export_dir, tags)
    if not os.path.isfile(meta_path):
        raise OSError(f"SavedModel file does not exist at: {meta_path}")
    with open(meta_path, "rb") as f:
        raw = f.read()
    try:
        meta = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except (ValueError, RecursionError) as e:
        raise SavedModelError(meta_path, f"not valid JSON ({e})") from None
    arrays = {name: _npz(os.path.join(export_dir, name)) for name in (fmt.TENSORS, fmt.VARIABLES)}
    try:
        with context.init_scope():
            return _Loader(meta, arrays[fmt.TENSORS], arrays[fmt.VARIABLES]).root
    except Invalid as e:
        raise SavedModelError(meta_path, str(e)) from None
    except RecursionError:  # every walk is iterative or bounded; this is the backstop
        raise SavedModelError(meta_path, "structures are nested too deeply") from None


def _no_constant(c):
    raise ValueError(f"{c} is not allowed")


def _npz(path):
    if not os.path.isfile(path):
        raise SavedModelError(path, "file is missing")
    try:
        return fmt.read_npz(path)
    except Invalid as e:
        raise SavedModelError(path, str(e)) from None


# ---------------------------------------------------------------------------------------- validation
def _get(d, key, *types, where="saved model"):
    if not isinstance(d, dict) or key not in d:
        raise Invalid(f"{where}: missing '{key}'")
    v = d[key]
    if types and not isinstance(v, types) or isinstance(v, bool) and bool not in types:
        raise Invalid(f"{where}: '{key}' should be {' or '.join(t.__name__ for t in types)}, got {short(v)}")
    return v


def _str(v):
    """v if it is a string, else None (JSON lists and dicts are unhashable: never use them as keys)."""
    return v if isinstance(v, str) else None


def _index(v, table, what):
    if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < len(table):
        raise Invalid(f"bad {what} reference {short(v)}")
    return v


def _name(v, what):
    if not isinstance(v, str) or not v or len(v) > _MAX_NAME:
        raise Invalid(f"bad {what} name {short(v)}")
    return v


def _check_type(t, depth=0):
    """A trace type (what a parameter was traced for), as function/trace_type.py makes them."""
    if depth > fmt.MAX_DEPTH:
        raise Invalid("argument types are nested too deeply")
    if isinstance(t, (TensorSpec, Literal, VariableSpec)) or is_composite_spec(t):
        return  # (a composite spec only as the decoder makes them: RaggedTensorSpec, SparseTensorSpec)
    ok = isinstance(t, tuple) and len(t) >= 2
    if ok and t[0] in ("list", "tuple") and len(t) == 2 and isinstance(t[1], tuple):
        items = t[1]
    elif ok and t[0] == "dict" and len(t) == 2 and isinstance(t[1], tuple) and all(
            isinstance(kv, tuple) and len(kv) == 2 and isinstance(kv[0], (str, int)) for kv in t[1]):
        items = [v for _, v in t[1]]
    elif ok and t[0] == "namedtuple" and len(t) == 4 and isinstance(t[2], tuple) and isinstance(t[3], tuple) \
            and len(t[2]) == len(t[3]):
        fmt.namedtuple_type(t[1], list(t[2]))
        items = t[3]
    else:
        raise Invalid(f"bad argument type {short(t)}")
    for x in items:
        _check_type(x, depth + 1)


def _attr_class(key, kind):
    if not isinstance(key, str) or fmt.ATTR_CLASSES.get(key) != kind:
        raise Invalid(f"attr values of class {short(key)} cannot be loaded")
    module, qualname = fmt.ATTR_HOMES[key]
    return getattr(importlib.import_module(module), qualname)


# ---------------------------------------------------------------------------------------- the loader
class _Loader:
    def __init__(self, meta, tensors, values):
        if not isinstance(meta, dict) or meta.get("format") != fmt.FORMAT:
            raise Invalid(f"not a rivulet saved model (format {short(meta.get('format') if isinstance(meta, dict) else meta)})")
        version = _get(meta, "version", int)
        if not 1 <= version <= fmt.VERSION:
            raise Invalid(f"format version {version} is not supported (this rivulet reads 1 to {fmt.VERSION})")
        self.tensors = tensors
        self.library = _get(meta, "graphs", dict)
        self._variable_of = {}  # id(resource placeholder) -> the Variable it is fed
        self._subgraphs = {}  # id(outer graph) -> {library key: its SubGraph there}
        self.variables = [self._variable(e, fmt.Decoder(values)) for e in _get(meta, "variables", list)]
        self.concretes = [self._concrete(e) for e in _get(meta, "concrete_functions", list)]
        self.functions = [self._function(e) for e in _get(meta, "functions", list)]
        sigs = _get(meta, "signatures", dict)
        self.signatures = _SignatureMap({_name(k, "signature"): self.concretes[_index(i, self.concretes, "function")]
                                         for k, i in sigs.items()})
        for k, cf in self.signatures.items():
            so = cf.graph.structured_outputs
            if not isinstance(so, dict) or not all(isinstance(x, str) and (isinstance(t, Tensor) or hasattr(
                    t, "_to_components")) for x, t in so.items()):  # (composites: checked when decoded)
                raise Invalid(f"signature {short(k)} does not return a dict of tensors")
        self.nodes = _get(meta, "objects", list)
        self._objects, self._building = {}, set()
        if not self.nodes or not isinstance(self.nodes[0], dict) or self.nodes[0].get("kind") != "object":
            raise Invalid("the root of the saved object tree must be an object")
        self.root = self._object(0)
        if "signatures" not in vars(self.root):
            self.root.signatures = self.signatures

    def _variable(self, e, decode):
        from ..state.variables import Variable
        name = _name(_get(e, "name", str, where="variable"), "variable")
        value = decode(_get(e, "value", dict, where="variable"))
        if not hasattr(value, "dtype"):
            raise Invalid(f"variable '{name}' has no tensor value")
        return Variable(value, name=name, trainable=_get(e, "trainable", bool, where="variable"))

    # -- functions -------------------------------------------------------------------------------------
    def _concrete(self, e):
        name = _name(_get(e, "name", str, where="function"), "function")
        where = f"function '{name}'"
        params = []
        for p in _get(e, "params", list, where=where):
            if not isinstance(p, list) or len(p) != 2 or _KINDS.get(_str(p[1])) is None:
                raise Invalid(f"{where}: bad parameter {short(p)}")
            params.append((_name(p[0], "parameter"), _KINDS[p[1]]))
        types = fmt.Decoder(self.tensors)(_get(e, "arg_types", dict, where=where))
        if not isinstance(types, tuple) or len(types) != len(params):
            raise Invalid(f"{where}: {len(params)} parameters but argument types {short(types)}")
        for t in types:
            _check_type(t)
        g, args, outputs = self._graph(_get(e, "graph", str, where=where), None, None, ())
        validate.arguments(where, types, args)

        def out(tag, body, depth):
            if tag != "out":
                return NotImplemented
            return outputs[_index(body, outputs, "output")]
        so = fmt.Decoder(self.tensors, out)(_get(e, "structured_outputs", where=where))
        g.structured_outputs = so
        try:
            flat = nest.flatten(so)
        except TypeError as e:  # a dict whose keys do not sort (None beside a string)
            raise Invalid(f"{where}: bad structured_outputs: {e}") from None
        g.outputs = [c for t in flat for c in (
            [t] if isinstance(t, Tensor) else t._to_components() if hasattr(t, "_to_components") else [])]
        return ConcreteFunction(g, params, types, name)

    def _function(self, e):
        name = _name(_get(e, "name", str, where="function"), "function")
        params = _get(e, "parameters", list, type(None), where=f"function '{name}'")
        sig = None
        if params is not None:
            decode = fmt.Decoder(self.tensors)
            try:
                sig = inspect.Signature([_parameter(p, decode) for p in params])
            except (ValueError, TypeError) as err:
                raise Invalid(f"function '{name}': bad parameters ({err})") from None
        cfs = [self.concretes[_index(i, self.concretes, "function")]
               for i in _get(e, "concrete", list, where=f"function '{name}'")]
        return RestoredFunction(name, sig, cfs)

    # -- graphs ----------------------------------------------------------------------------------------
    def _graph(self, key, outer, outer_tensor, stack):
        """Rebuilds library graph `key` (nested in `outer` for a sub-graph); returns (graph, args, outputs)."""
        if key in stack or len(stack) > 32:
            raise Invalid(f"graph {short(key)} refers to itself")
        entry = self.library.get(_str(key))
        where = f"graph {short(key)}"
        if not isinstance(entry, dict):
            raise Invalid(f"{where} is missing")
        g = FuncGraph(_name(_get(entry, "name", str, where=where), "graph"), outer_graph=outer)
        args = [_name(a, "argument") for a in _get(entry, "args", list, where=where)]
        captures = {}
        for c in _get(entry, "captures", list, where=where):
            if not isinstance(c, list) or len(c) != 2:
                raise Invalid(f"{where}: bad capture {short(c)}")
            captures[_name(c[0], "capture")] = c[1]
        nodes = []
        for n in _get(entry, "nodes", list, where=where):
            nodes.append(NodeDef(_name(_get(n, "name", str, where=where), "node"), _get(n, "op", str, where=where),
                                 [_name(r, "input") for r in _get(n, "inputs", list, where=where)],
                                 op_attrs=_get(n, "attrs", dict, where=where)))
        stack = stack + (key,)

        def placeholder(node):
            if node.name not in captures:
                return None
            value = self._capture_value(captures[node.name], outer_tensor)
            t = g.capture(value, name=node.name)
            var = value if getattr(value, "_is_resource", False) else self._variable_of.get(id(value))
            if var is not None:
                self._variable_of[id(t)] = var  # which variable a resource placeholder stands for
            return t

        def attrs_of(node, tensor):
            def leaf(tag, body, depth):
                if tag == "subgraph":  # built once per graph it is nested in, however often referred to
                    memo = self._subgraphs.setdefault(id(g), {})
                    mkey = body if isinstance(body, str) else None
                    if mkey is None or mkey not in memo:
                        sub, sub_args, sub_outputs = self._graph(body, g, tensor, stack)
                        built_sub = _attr_class(_SUBGRAPH, "subgraph")(sub, sub_args, sub_outputs)
                        if mkey is None:
                            return built_sub
                        memo[mkey] = built_sub
                    return memo[mkey]
                if tag == custom_gradients.TAG:  # a tf.custom_gradient's gradient, a graph nested in g
                    sub_key, mask = fmt.expect_list(body, tag, 2)
                    if not isinstance(mask, list) or not all(isinstance(m, bool) for m in mask):
                        raise Invalid(f"bad custom gradient mask {short(mask)}")
                    sub, sub_args, sub_outputs = self._graph(sub_key, g, tensor, stack)
                    return custom_gradients.SavedGradient(sub, sub_args, sub_outputs, mask)
                if tag == "object":
                    key, fields = fmt.expect_list(body, "object", 2)
                    cls = _attr_class(key, "object")
                    obj = cls.__new__(cls)  # plain data holders: fields are set, no __init__ runs
                    if not isinstance(fields, dict) or not all(f.isidentifier() and not f.startswith("__")
                                                               for f in fields):
                        raise Invalid(f"bad fields for {short(key)}")
                    obj.__dict__.update({f: decode(v, depth + 1) for f, v in fields.items()})
                    return obj
                return NotImplemented
            decode = fmt.Decoder(self.tensors, leaf)
            attrs = {_name(k, "attr"): decode(v) for k, v in node.op_attrs.items()}
            if node.op == "IdentityN" and "grad_fn" in attrs and attrs["grad_fn"] is None:
                attrs["grad_fn"] = custom_gradients.MissingGradient(node.name)  # saved without its gradient
            if node.op == "Const" and not _const_ok(attrs):
                raise Invalid(f"Const node '{node.name}' does not match its dtype")
            validate.node(node.name, REGISTRY[node.op], [tensor(r) for r in node.input if not r.startswith("^")],
                          attrs, self._variable_of)
            return attrs
        try:
            built = build_nodes(g, nodes, attrs_of=attrs_of, placeholder=placeholder)
        except Invalid as e:
            raise Invalid(f"{where}: {e}") from None
        except Exception as e:  # noqa: BLE001  shape rules may fail any way on hostile attrs
            raise Invalid(f"{where}: {type(e).__name__}: {e}") from None

        def tensor(ref):
            name, _, index = ref.rpartition(":")
            if not (name and index.isdigit()):
                name, index = ref, "0"
            op = built.get(name)
            if op is None or int(index) >= len(op.outputs):
                raise Invalid(f"{where}: no tensor {short(ref)}")
            return op.outputs[int(index)]
        arg_tensors = [tensor(a) for a in args]
        if any(t.op.type != "Placeholder" for t in arg_tensors) or len(set(map(id, arg_tensors))) != len(args) or \
                any(t.op.name in captures for t in arg_tensors):
            raise Invalid(f"{where}: the arguments are not distinct Placeholders")
        g.arg_placeholders = arg_tensors
        fed = {id(t) for t in arg_tensors + g.internal_captures}
        free = [op.name for op in built.values() if op.type == "Placeholder" and id(op.outputs[0]) not in fed]
        if free:
            raise Invalid(f"{where}: placeholder {short(free[0])} is neither an argument nor a capture")
        return g, arg_tensors, [tensor(_name(r, "output")) for r in _get(entry, "outputs", list, where=where)]

    def _capture_value(self, ref, outer_tensor):
        if isinstance(ref, dict) and len(ref) == 1:
            (kind, v), = ref.items()
            if kind == "variable":
                return self.variables[_index(v, self.variables, "variable")]
            if kind == "constant":
                value = fmt.Decoder(self.tensors)(v)
                if hasattr(value, "dtype"):
                    from ..core.tensor import EagerTensor
                    return EagerTensor(value)
            if kind == "outer" and outer_tensor is not None:
                return outer_tensor(_name(v, "tensor"))
        raise Invalid(f"bad capture {short(ref)}")

    # -- objects ---------------------------------------------------------------------------------------
    def _object(self, root):
        """The object tree from node `root`, walked with an explicit stack (a file may chain objects as
        deep as it likes). Objects and dicts exist before their children, so children may refer back to
        them; lists and tuples are made from finished children, so a list inside itself is refused."""
        done, building = self._objects, self._building
        stack = [_index(root, self.nodes, "object")]
        while stack:
            i = stack[-1]
            node = self.nodes[i]
            kind = _get(node, "kind", str, where="object")
            if i in building:  # second visit: every child is done
                stack.pop()
                building.discard(i)
                self._fill(i, node, kind)
                continue
            if i in done:
                stack.pop()
                continue
            if kind == "variable":
                done[i] = self.variables[_index(_get(node, "variable", int), self.variables, "variable")]
                stack.pop()
                continue
            if kind == "function":
                done[i] = self.functions[_index(_get(node, "function", int), self.functions, "function")]
                stack.pop()
                continue
            if kind not in ("list", "tuple", "dict", "object"):
                raise Invalid(f"unknown object kind {short(kind)}")
            building.add(i)
            if kind in ("dict", "object"):
                done[i] = {} if kind == "dict" else _UserObject()  # before the children: they may refer back
            for c in reversed(self._children(node, kind)):
                if c in building and c not in done:
                    raise Invalid(f"object {c} contains itself")
                if c not in done:
                    stack.append(c)
        return done[root]

    def _children(self, node, kind):
        if kind in ("list", "tuple"):
            return [_index(x, self.nodes, "object") for x in _get(node, "items", list, where="object")]
        out = []
        for item in _get(node, "items" if kind == "dict" else "children", list, where="object"):
            if not isinstance(item, list) or len(item) != 2 or not isinstance(item[0], str) or \
                    item[0].startswith("__") and item[0] != "__call__" or len(item[0]) > _MAX_NAME:
                raise Invalid(f"bad object child {short(item)}")
            out.append(_index(item[1], self.nodes, "object"))
        return out

    def _fill(self, i, node, kind):
        done = self._objects
        if kind in ("list", "tuple"):
            items = [done[c] for c in self._children(node, kind)]
            done[i] = tuple(items) if kind == "tuple" else items
            return
        obj = done[i]
        key = "items" if kind == "dict" else "children"
        for (name, _), c in zip(_get(node, key, list), self._children(node, kind)):
            if kind == "dict":
                obj[name] = done[c]
            else:
                setattr(obj, name, done[c])


_SUBGRAPH = next(k for k, v in fmt.ATTR_CLASSES.items() if v == "subgraph")


def _const_ok(attrs):
    """A Const's value is an array of its dtype, or a Python scalar the kernels combine as that dtype."""
    v, dt = attrs.get("value"), attrs.get("dtype")
    if not isinstance(dt, _dt.DType):
        return False
    if isinstance(v, bool):
        return dt == _dt.bool
    if isinstance(v, (int, float)):
        return dt.is_floating or dt.is_complex or isinstance(v, int) and dt.is_integer
    if isinstance(v, bytes):
        return dt == _dt.string
    if isinstance(v, np.ndarray) and v.dtype == object:  # a string tensor (decoded from base64 items)
        return dt == _dt.string and all(isinstance(x, bytes) for x in v.reshape(-1))
    return isinstance(v, (np.ndarray, np.generic)) and _dt.from_numpy(v.dtype) == dt


def _parameter(p, decode):
    if not isinstance(p, list) or len(p) not in (2, 3) or _KINDS.get(_str(p[1])) is None:
        raise Invalid(f"bad parameter {short(p)}")
    kw = {"default": decode(p[2])} if len(p) == 3 else {}
    return inspect.Parameter(_name(p[0], "parameter"), _KINDS[p[1]], **kw)


# ---------------------------------------------------------------------------------------- loaded objects
class _UserObject:
    """A loaded object: its saved attributes, plus `variables` / `trainable_variables` (every variable
    reachable from it, in tf.Module's order) unless it has attributes of those names."""

    def __call__(self, *args, **kwargs):
        fn = vars(self).get("__call__")
        if fn is None:
            raise TypeError("'_UserObject' object is not callable")
        return fn(*args, **kwargs)

    def __getattr__(self, name):
        if name == "variables":
            return tuple(_variables(self))
        if name == "trainable_variables":
            return tuple(v for v in _variables(self) if v.trainable)
        if name == "non_trainable_variables":
            return tuple(v for v in _variables(self) if not v.trainable)
        raise AttributeError(f"'_UserObject' object has no attribute '{name}'")


def _variables(root):
    from .save import is_variable
    out, seen, stack = [], set(), [root]
    while stack:
        x = stack.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if is_variable(x):
            out.append(x)
        elif isinstance(x, _UserObject):
            stack.extend(reversed([v for k, v in sorted(vars(x).items()) if k != "signatures"]))
        elif isinstance(x, dict):
            stack.extend(reversed([x[k] for k in sorted(x)]))
        elif isinstance(x, (list, tuple)):
            stack.extend(reversed(x))
    return out


class _SignatureMap(dict):
    def __repr__(self):
        return f"_SignatureMap({dict.__repr__(self)})"


class RestoredFunction:
    """A loaded tf.function: dispatches each call to the saved ConcreteFunction whose signature accepts the
    arguments (tensors by dtype and shape, Python values by value), as TensorFlow's loaded functions do."""

    def __init__(self, name, signature, concrete_functions):
        self.__name__ = self._name = name
        self._sig = signature
        self.concrete_functions = list(concrete_functions)

    function_spec = property(lambda self: self._sig)

    def _list_all_concrete_functions(self):
        return list(self.concrete_functions)

    def __call__(self, *args, **kwargs):
        cf, args, kwargs = self._find(args, kwargs, call=True)
        return cf(*args, **kwargs)

    def get_concrete_function(self, *args, **kwargs):
        if not args and not kwargs and len(self.concrete_functions) == 1:
            return self.concrete_functions[0]
        return self._find(args, kwargs, call=False)[0]

    def _bind(self, args, kwargs):
        """[(parameter name, value)] as tf.function binds a call (defaults applied, *args expanded)."""
        if self._sig is None:
            return None
        try:
            bound = self._sig.bind(*args, **kwargs)
        except TypeError:
            return None
        bound.apply_defaults()
        out = []
        for name, value in bound.arguments.items():
            kind = self._sig.parameters[name].kind
            if kind == inspect.Parameter.VAR_POSITIONAL:
                out.extend((f"{name}_{i}", v) for i, v in enumerate(value))
            elif kind == inspect.Parameter.VAR_KEYWORD:
                out.extend(value.items())
            else:
                out.append((name, value))
        return out

    def _find(self, args, kwargs, call):
        bound = self._bind(args, kwargs)
        for convert in (False, True):
            for cf in self.concrete_functions:
                params = cf._params
                pairs = bound if bound is not None else _bind_concrete(cf, args, kwargs)
                if pairs is None or [n for n, _ in pairs] != [n for n, _ in params]:
                    continue
                values = [_match(v, t, convert, call) for (_, v), t in zip(pairs, cf._arg_types)]
                if any(v is _NO for v in values):
                    continue
                pos = [v for (_, k), v in zip(params, values) if k != inspect.Parameter.KEYWORD_ONLY]
                kw = {n: v for (n, k), v in zip(params, values) if k == inspect.Parameter.KEYWORD_ONLY}
                return cf, pos, kw
        raise ValueError(self._no_match(bound, args, kwargs))

    def _no_match(self, bound, args, kwargs):
        if bound is not None:
            kinds = {n: p.kind for n, p in self._sig.parameters.items()}
            pos = [(n, v) for n, v in bound if kinds.get(n) != inspect.Parameter.KEYWORD_ONLY]
            kw = {n: v for n, v in bound if kinds.get(n) == inspect.Parameter.KEYWORD_ONLY}
        else:
            pos, kw = [(f"arg{i}", v) for i, v in enumerate(args)], dict(kwargs)
        lines = ["Could not find matching concrete function to call loaded from the SavedModel. Got:"]
        lines += _arguments([_show(v, n) for n, v in pos], {k: _show(v, k) for k, v in kw.items()})
        n = len(self.concrete_functions)
        lines += ["", f" Expected these arguments to match one of the following {n} option(s):"]
        for i, cf in enumerate(self.concrete_functions, 1):
            a, k = cf.structured_input_signature
            lines += ["", f"Option {i}:"] + _arguments(list(a), k)
        return "\n".join(lines)

    def __repr__(self):
        return f"<rivulet.saved_model.RestoredFunction {self._name} at 0x{id(self):x}>"


def _bind_concrete(cf, args, kwargs):
    """Binding for a saved bare ConcreteFunction (no Python signature was saved): by its parameters."""
    names = [n for n, _ in cf._params]
    if len(args) > len(names) or any(k not in names[len(args):] for k in kwargs):
        return None
    values = dict(zip(names, args), **kwargs)
    return [(n, values[n]) for n in names] if len(values) == len(names) else None


def _arguments(pos, kw):
    return ([f"  Positional arguments ({len(pos)} total):"] + [f"    * {v}" for v in pos] +
            [f"  Keyword arguments: {kw}"])


class _Shown:
    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text

    __str__ = __repr__


def _show(v, name):
    # TensorFlow shows the call's tensors as its restored function's graph placeholders.
    if isinstance(v, Tensor):
        return _Shown(f"<tf.Tensor '{name}:0' shape={v.shape} dtype={v.dtype.name}>")
    return v


_NO = object()


def _match(v, t, convert, call):
    """v (converted where `convert` allows) if it fits trace type t, else _NO."""
    if isinstance(t, TensorSpec):
        if not call and isinstance(v, TensorSpec):
            return v if v.is_subtype_of(t) else _NO
        if not isinstance(v, Tensor):
            if not convert:
                return _NO
            try:  # a Python number takes the spec's dtype where it fits it (5 for a float32 spec), as in TF
                v = convert_to_tensor(v, dtype_hint=t.dtype)
            except (TypeError, ValueError):
                return _NO
        return v if v.dtype == t.dtype and v.shape.is_subtype_of(t.shape) else _NO
    if is_composite_spec(t):  # a RaggedTensor / SparseTensor of a compatible spec (never converted)
        if not call and is_composite_spec(v):
            return v if v.is_subtype_of(t) else _NO
        if not hasattr(type(v), "__tf_tracing_type__") or not hasattr(v, "_to_components"):
            return _NO
        return v if type(v).__tf_tracing_type__(v, None).is_subtype_of(t) else _NO
    if isinstance(t, VariableSpec):
        ok = getattr(v, "_is_resource", False) and v.dtype == t.dtype and v.shape == t.shape
        return v if ok else _NO
    if isinstance(t, Literal):
        try:
            return v if type_of(v) == t else _NO
        except TypeError:
            return _NO
    kind = t[0]
    if kind in ("list", "tuple"):
        if not isinstance(v, list if kind == "list" else tuple) or hasattr(v, "_fields") or len(v) != len(t[1]):
            return _NO
        items = [_match(x, s, convert, call) for x, s in zip(v, t[1])]
        return _NO if any(x is _NO for x in items) else type(v)(items)
    if kind == "dict":
        if not isinstance(v, dict) or sorted(map(repr, v)) != sorted(repr(k) for k, _ in t[1]):
            return _NO
        items = {k: _match(v[k], s, convert, call) for k, s in t[1]}
        return _NO if any(x is _NO for x in items.values()) else items
    if not (hasattr(v, "_fields") and type(v).__name__ == t[1] and tuple(v._fields) == t[2]):
        return _NO
    items = [_match(x, s, convert, call) for x, s in zip(v, t[3])]
    return _NO if any(x is _NO for x in items) else type(v)(*items)


def restored_functions(obj):
    """[(attribute path, RestoredFunction)] reachable from a loaded object, depth first in attribute order
    (an explicit stack: a loaded object tree may be arbitrarily deep)."""
    out, seen, stack = [], set(), [("", obj)]
    while stack:
        prefix, obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, RestoredFunction):
            out.append((prefix, obj))
            continue
        if isinstance(obj, _UserObject):
            items = [(f"{prefix}.{k}" if prefix else k, v) for k, v in sorted(vars(obj).items()) if k != "signatures"]
        elif isinstance(obj, dict):
            items = [(f"{prefix}[{k!r}]", obj[k]) for k in sorted(obj)]
        elif isinstance(obj, (list, tuple)):
            items = [(f"{prefix}[{i}]", v) for i, v in enumerate(obj)]
        else:
            continue
        stack.extend(reversed(items))
    return out
