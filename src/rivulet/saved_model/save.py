"""tf.saved_model.save: an object's variables and traced functions, written as docs/SAVED_MODEL_FORMAT.md says.

The object is walked through its attributes (sorted by name, lists, tuples and dicts included, as
tf.Module does); variables, tf.functions (every traced ConcreteFunction) and objects holding them are
saved. Graphs are written node by node with their ops' exact attrs; control-flow sub-graphs go into the
same graph library, referenced by name.
"""
import errno
import inspect
import json
import os

from ..core.tensor import EagerTensor, SymbolicTensor, Tensor
from ..function.concrete import ConcreteFunction
from ..function.polymorphic import PolymorphicFunction
from ..function.trace_type import Literal, ObjectRef
from ..shape import TensorSpec
from .. import nest
from . import format as fmt
from .restore import RestoredFunction, _SignatureMap

DEFAULT_SIGNATURE = "serving_default"


def save(obj, export_dir, signatures=None, options=None):
    """Writes `obj` (a tf.Module or any object with tf.function / tf.Variable attributes) to export_dir."""
    s = _Saver(custom_gradients=getattr(options, "experimental_custom_gradients", True))
    if s.object(obj) is None:
        raise ValueError(f"Expected an object with tf.Variable or tf.function attributes, such as a `tf.Module`, "
                         f"for export. Got {obj!r} with type {type(obj)}.")
    meta = {
        "format": fmt.FORMAT, "version": fmt.VERSION,
        "objects": s.objects, "variables": s.variables, "functions": s.functions,
        "concrete_functions": s.concretes, "signatures": s.signatures(obj, signatures), "graphs": s.graphs,
    }
    text = _dumps(meta) + "\n"
    export_dir = os.fspath(export_dir)
    try:
        _not_a_directory(export_dir)
        os.makedirs(export_dir, exist_ok=True)
        s.constants.write(os.path.join(export_dir, fmt.TENSORS))
        s.values.write(os.path.join(export_dir, fmt.VARIABLES))
        tmp = os.path.join(export_dir, fmt.META + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, os.path.join(export_dir, fmt.META))  # the model is complete once this file exists
    except OSError as e:
        raise _op_error(e) from None


def _not_a_directory(path):
    """TensorFlow's FailedPreconditionError naming the first part of `path` that is a file, if any."""
    from ..errors import FailedPreconditionError
    part = os.path.abspath(path)
    parts = []
    while True:
        parts.append(part)
        parent = os.path.dirname(part)
        if parent == part:
            break
        part = parent
    for part in reversed(parts):
        if os.path.exists(part) and not os.path.isdir(part):
            shown = os.path.relpath(part) if not os.path.isabs(path) else part
            raise FailedPreconditionError(f"{shown} is not a directory")


def _op_error(e):
    """An OSError as the tf.errors class TensorFlow's file system gives its errno."""
    from .. import errors
    cls = {errno.ENOENT: errors.NotFoundError, errno.ENODEV: errors.NotFoundError, errno.ENXIO: errors.NotFoundError,
           errno.EEXIST: errors.AlreadyExistsError, errno.EPERM: errors.PermissionDeniedError,
           errno.EACCES: errors.PermissionDeniedError, errno.EROFS: errors.PermissionDeniedError,
           errno.ENOTDIR: errors.FailedPreconditionError, errno.EISDIR: errors.FailedPreconditionError,
           errno.ENOTEMPTY: errors.FailedPreconditionError, errno.EBUSY: errors.FailedPreconditionError,
           errno.ENOSPC: errors.ResourceExhaustedError, errno.EDQUOT: errors.ResourceExhaustedError,
           errno.EMFILE: errors.ResourceExhaustedError, errno.ENFILE: errors.ResourceExhaustedError,
           errno.ENOMEM: errors.ResourceExhaustedError, errno.ENAMETOOLONG: errors.InvalidArgumentError,
           errno.EINVAL: errors.InvalidArgumentError, errno.EFBIG: errors.OutOfRangeError}.get(e.errno,
                                                                                               errors.UnknownError)
    where = e.filename if e.filename is not None else ""
    return cls(f"{where}; {e.strerror or e}" if where else str(e))


def _dumps(v, indent=""):
    """JSON laid out for people: values that fit, and everything four levels deep (a graph node), on one line."""
    flat = json.dumps(v, allow_nan=False, separators=(", ", ": "))
    if len(flat) + len(indent) <= 110 or len(indent) >= 4 or not isinstance(v, (dict, list)) or not v:
        return flat
    inner = indent + " "
    if isinstance(v, dict):
        items = [f"{inner}{json.dumps(k)}: {_dumps(x, inner)}" for k, x in v.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    return "[\n" + ",\n".join(inner + _dumps(x, inner) for x in v) + "\n" + indent + "]"


def is_variable(v):
    return getattr(v, "_is_resource", False) and hasattr(v, "trainable") and hasattr(v, "numpy")


def _is_module(v):
    from ..state.module import Module
    return isinstance(v, Module)


def _trackable(v):
    """Objects whose attributes are searched for variables and functions: containers, tf.Modules, Keras-style
    objects (they have trainable_variables) and objects with @tf.function methods."""
    if isinstance(v, (list, tuple, dict)) or _is_module(v):
        return True
    if isinstance(v, type) or inspect.ismodule(v) or inspect.isroutine(v) or not hasattr(v, "__dict__"):
        return False
    return hasattr(type(v), "trainable_variables") or bool(_class_functions(v))


def _class_functions(obj):
    """Names of tf.functions defined on the object's class (methods decorated with @tf.function)."""
    return [n for n in dir(type(obj)) if _saved_name(n)
            and isinstance(inspect.getattr_static(type(obj), n, None), PolymorphicFunction)]


def _saved_name(name):
    return not name.startswith("__") or name == "__call__"


class _Saver:
    def __init__(self, custom_gradients=True):
        self.custom_gradients = bool(custom_gradients)
        self.objects, self.variables, self.functions, self.concretes = [], [], [], []
        self.graphs = {}
        self.constants = fmt.TensorStore("c")
        self.values = fmt.TensorStore("v")
        self._ids, self._keep = {}, []

    def _memo(self, table, key_obj, make):
        key = (table, id(key_obj))
        hit = self._ids.get(key)
        if hit is None:
            self._keep.append(key_obj)  # ids stay unique while saving
            hit = self._ids[key] = make()
        return hit

    # -- the object tree -------------------------------------------------------------------------------
    def object(self, obj, depth=0):
        """Index of obj's node in `objects`, or None when it holds nothing worth saving."""
        hit = self._ids.get(("object", id(obj)))
        if hit is not None:
            return hit
        if is_variable(obj):
            return self._node(obj, {"kind": "variable", "variable": self.variable(obj)})
        if isinstance(obj, (PolymorphicFunction, ConcreteFunction, RestoredFunction)):
            return self._node(obj, {"kind": "function", "function": self.function(obj)})
        if depth > fmt.MAX_DEPTH // 2 or depth and not _trackable(obj):
            return None
        node = {"kind": "list" if isinstance(obj, list) else "tuple" if isinstance(obj, tuple) else
                "dict" if isinstance(obj, dict) else "object"}
        index = self._node(obj, node)
        if isinstance(obj, (list, tuple)):
            node["items"] = children = [i for i in (self.object(x, depth + 1) for x in obj) if i is not None]
        else:
            items = obj.items() if isinstance(obj, dict) else self._attributes(obj)
            children = [[k, i] for k, i in ((k, self.object(v, depth + 1)) for k, v in items if isinstance(k, str))
                        if i is not None]
            node["items" if isinstance(obj, dict) else "children"] = children
        if not children and not _is_module(obj) and not (depth == 0 and hasattr(type(obj), "trainable_variables")):
            # (the object saved, a Keras model not built yet, is kept: TensorFlow saves it with no variables)
            # Nothing saved below: forget the node (children found nothing either, so it is the last one).
            self.objects.pop()
            del self._ids[("object", id(obj))]
            return None
        return index

    def _node(self, obj, node):
        self._keep.append(obj)
        self._ids[("object", id(obj))] = len(self.objects)
        self.objects.append(node)
        return len(self.objects) - 1

    def _attributes(self, obj):
        names = set(getattr(obj, "__dict__", {})) | set(_class_functions(obj))
        # a loaded model's signatures are saved as its signatures again, not as an attribute
        out = [(n, getattr(obj, n)) for n in sorted(names) if _saved_name(n) and not (
            n == "signatures" and isinstance(getattr(obj, n), _SignatureMap))]
        call = self._model_call(obj)
        if call is not None and "__call__" not in names:
            out.append(("__call__", call))
        return out

    def _model_call(self, obj, hook="_default_save_signature"):
        """A Keras model's call as a tf.function over its known inputs (saved as `__call__`), or None. (With
        hook `_default_serving_signature`: the call whose outputs are a dict, for its serving signature.)"""
        make = getattr(type(obj), hook, None)
        if make is None or isinstance(obj, type):
            return None
        key = (hook, id(obj))
        if key not in self._ids:
            self._keep.append(obj)
            self._ids[key] = make(obj)
        return self._ids[key]

    def variable(self, v):
        def make():
            self.variables.append({"name": v.name[:-2] if v.name.endswith(":0") else v.name,
                                   "trainable": bool(v.trainable), "value": self.values.put(v.numpy())})
            return len(self.variables) - 1
        return self._memo("variable", v, make)

    # -- functions -------------------------------------------------------------------------------------
    def function(self, f):
        def make():
            if isinstance(f, ConcreteFunction):
                entry = {"name": f.name, "parameters": None, "concrete": [self.concrete(f)]}
            else:
                cfs = f._list_all_concrete_functions()
                if not cfs and getattr(f, "input_signature", None) is not None:
                    cfs = [f.get_concrete_function()]
                entry = {"name": f.__name__, "parameters": _parameters(f.function_spec),
                         "concrete": [self.concrete(cf) for cf in cfs]}
            self.functions.append(entry)
            return len(self.functions) - 1
        return self._memo("function", f, make)

    def concrete(self, cf, signature_keys=None):
        def make():
            g = cf.graph
            index = {id(t): i for i, t in enumerate(g.outputs)}
            for (name, _), t in zip(cf._params, cf._arg_types):
                for x in nest.flatten(t):
                    if isinstance(x, ObjectRef) or (isinstance(x, Literal) and not isinstance(
                            x.value, (bool, int, float, str, bytes, type(None)))):  # an object kept by value
                        raise ValueError(f"Cannot save function '{cf.name}': its argument '{name}' was traced for "
                                         f"a Python object ({x!r}); only tensors and Python scalars can be "
                                         f"saved.")

            def out_leaf(v):
                return {"out": index[id(v)]} if isinstance(v, Tensor) else None
            entry = {"name": cf.name, "graph": self.graph(g),
                     "params": [[n, k.name] for n, k in cf._params],
                     "arg_types": self._encode(tuple(cf._arg_types), cf.name),
                     "structured_outputs": self._encode(g.structured_outputs, cf.name, out_leaf)}
            self.concretes.append(entry)
            return len(self.concretes) - 1
        return self._memo("concrete", cf, make)

    def _encode(self, v, where, leaf=None):
        try:
            return fmt.encode(v, self.constants, leaf)
        except ValueError as e:
            raise ValueError(f"Cannot save '{where}': {e}") from None

    # -- graphs ----------------------------------------------------------------------------------------
    def graph(self, g, args=None, outputs=None):
        """Name of g's entry in the graph library (written once however often it is used)."""
        def make():
            name = f"g{len(self.graphs)}"
            self.graphs[name] = None  # reserved: sub-graphs encoded below take the next names
            ops = g.get_operations()
            nodes = [{"name": op.name, "op": op.type,
                      "inputs": [_ref(t) for t in op.inputs] + ["^" + c.name for c in op.control_inputs],
                      "attrs": {k: self._op_attr(g, op, k, v) for k, v in op.attrs.items()}} for op in ops]
            self.graphs[name] = {
                "name": g.name, "nodes": nodes,
                "args": [t.op.name for t in (args if args is not None else g.arg_placeholders)],
                "captures": [[ph.op.name, self._capture(v, g)] for v, ph in g.captures],
                "outputs": [_ref(t) for t in (outputs if outputs is not None else g.outputs)]}
            return name
        return self._memo("graph", g, make)

    def _op_attr(self, g, op, key, v):
        if key == "grad_fn" and op.type == "IdentityN":
            return self._custom_gradient(g, op, v)
        return self._encode(v, f"{g.name}/{op.name}", self._attr_leaf)

    def _custom_gradient(self, g, op, grad_fn):
        """A tf.custom_gradient's gradient function, traced into a graph nested in g (custom_gradients.py);
        null when saved without custom gradients."""
        from .custom_gradients import TAG, MissingGradient
        if grad_fn is None or isinstance(grad_fn, MissingGradient) or not self.custom_gradients:
            return None
        from ..execute.replay import trace_backward
        try:
            bg, dys, grads = trace_backward(g, op)
        except Exception as exc:  # noqa: BLE001  (whatever the user's gradient function raised)
            raise ValueError(
                "Error when tracing gradients for SavedModel.\n\nCheck the error log to see the error that was "
                "raised when converting a gradient function to a concrete function. You may need to update the "
                "custom gradient, or disable saving gradients with the option "
                "tf.saved_model.SaveOptions(experimental_custom_gradients=False).\n"
                f"\tProblematic op name: {op.name}\n\tGradient inputs: {op.inputs}") from exc
        outs = [t for t in grads if t is not None]
        return {TAG: [self.graph(bg, dys, outs), [t is not None for t in grads]]}

    def _capture(self, v, g):
        if is_variable(v):
            return {"variable": self.variable(v)}
        if isinstance(v, EagerTensor):
            return {"constant": fmt.encode(v._v, self.constants)}
        if isinstance(v, SymbolicTensor):
            return {"outer": _ref(v)}
        raise ValueError(f"Cannot save graph '{g.name}': it captures {v!r}, which is neither a tensor nor a "
                         f"tf.Variable.")

    def _attr_leaf(self, v):
        """Attr values holding sub-graphs (control-flow ops); see format.ATTR_CLASSES."""
        key = fmt.attr_class_key(type(v))
        if key is None:
            return None
        if fmt.ATTR_CLASSES[key] == "subgraph":
            return {"subgraph": self.graph(v.graph, v.params, v.outputs)}
        fields = {k: fmt.encode(x, self.constants, self._attr_leaf) for k, x in vars(v).items()}
        return {"object": [key, fields]}

    # -- signatures ------------------------------------------------------------------------------------
    def signatures(self, obj, signatures):
        if signatures is None and isinstance(getattr(obj, "signatures", None), _SignatureMap):
            signatures = dict(obj.signatures)  # a loaded model: the signatures it was saved with
        if signatures is None:
            call = self._model_call(obj)
            found = [f for _, f in self._attributes(obj)
                     if isinstance(f, PolymorphicFunction) and f.input_signature is not None and f is not call]
            if not found and call is not None:
                # a Keras model serves its own call by default (its outputs keyed by the output layers' names)
                found = [self._model_call(obj, "_default_serving_signature") or call]
            # As TensorFlow: a function returning no tensors (an update step) is saved, but serves no signature.
            signatures = {DEFAULT_SIGNATURE: found[0]} if len(found) == 1 and any(
                _output_leaf(v) for v in nest.flatten(found[0].get_concrete_function().graph
                                                      .structured_outputs)) else {}
        elif not isinstance(signatures, dict):
            signatures = {DEFAULT_SIGNATURE: signatures}
        return {key: self._signature(key, f) for key, f in signatures.items()}

    def _signature(self, key, f):
        if isinstance(f, PolymorphicFunction):
            if f.input_signature is None:
                raise ValueError(f"Function '{f.__name__}' used for signature '{key}' has no input_signature: pass "
                                 f"a ConcreteFunction (f.get_concrete_function(...)) or give it one.")
            f = f.get_concrete_function()
        if not isinstance(f, ConcreteFunction):
            raise ValueError(f"Signature '{key}' must be a tf.function with an input_signature or a "
                             f"ConcreteFunction, got {f!r}.")
        g = f.graph
        names = [ph.op.name for ph in g.arg_placeholders]
        outputs = _signature_outputs(f, key)
        index = {id(t): i for i, t in enumerate(g.outputs)}

        def out_leaf(v):
            return {"out": index[id(v)]} if isinstance(v, Tensor) else None
        entry = {"name": key, "graph": self.graph(g),
                 "params": [[n, inspect.Parameter.KEYWORD_ONLY.name] for n in names],
                 "arg_types": self._encode(tuple(TensorSpec(ph.shape, ph.dtype, n)
                                                 for n, ph in zip(names, g.arg_placeholders)), key),
                 "structured_outputs": {"dict": [[k, self._encode(v, key, out_leaf)] for k, v in outputs]}}
        self.concretes.append(entry)
        return len(self.concretes) - 1


def _output_leaf(v):
    """A value a signature returns: a tensor, or a composite (RaggedTensor, SparseTensor) of graph outputs."""
    return isinstance(v, Tensor) or (hasattr(v, "_to_components") and hasattr(type(v), "__tf_tracing_type__"))


def _signature_outputs(cf, key):
    """[(output key, tensor or composite)]: a dict's keys, else output_0, output_1 ..."""
    so = cf.graph.structured_outputs
    if isinstance(so, dict) and all(isinstance(k, str) for k in so) and all(_output_leaf(v) for v in so.values()):
        return [(k, so[k]) for k in sorted(so)]
    leaves = [v for v in nest.flatten(so) if _output_leaf(v)]
    if not leaves:
        raise ValueError(f"Signature '{key}' returns no tensors.")
    return [(f"output_{i}", t) for i, t in enumerate(leaves)]


def _parameters(sig):
    """The Python signature: [name, kind, default?] per parameter (defaults only when they can be saved)."""
    if sig is None:
        return None
    out = []
    for p in sig.parameters.values():
        item = [p.name, p.kind.name]
        if p.default is not inspect.Parameter.empty and isinstance(p.default, (type(None), bool, int, float, str)):
            item.append(fmt.encode(p.default, None))
        out.append(item)
    return out


def _ref(t):
    return t.op.name if t.value_index == 0 else f"{t.op.name}:{t.value_index}"
