"""The restored object tree of a TensorFlow SavedModel: SavedObjectGraph -> rivulet objects.

user objects become `_UserObject`s (signature maps `_SignatureMap`s, list/dict wrappers lists/dicts),
variables rivulet Variables holding their checkpointed values (keys from the TrackableObjectGraph stored in
the variables bundle), functions `RestoredFunction`s whose ConcreteFunctions are traced by rivulet from the
FunctionDefs (functions.Library), bare concrete functions ConcreteFunctions, constants eager tensors.
"""
import inspect
import os
import threading

from ... import nest
from ...core import context
from ...core.tensor import EagerTensor, Tensor
from ...errors import OpError
from ...shape import TensorSpec
from ...function.concrete import ConcreteFunction
from ..format import Invalid, SavedModelError
from ..restore import RestoredFunction, _SignatureMap, _UserObject
from . import error, proto
from .functions import Library

_P = inspect.Parameter
_CHECKPOINT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
_VARIABLE_VALUE = "VARIABLE_VALUE"
_WRAPPERS = {"trackable_list_wrapper": list, "trackable_tuple_wrapper": tuple, "trackable_dict_wrapper": dict}


class Loader:
    def __init__(self, meta_graph, export_dir, path):
        self.meta, self.path = meta_graph, path
        self.graph = meta_graph.object_graph_def
        self.nodes = self.graph.nodes
        if not len(self.nodes):
            raise Invalid("the SavedModel has no object graph (a TensorFlow 1 SavedModel?)")
        self.library = Library(meta_graph.graph_def, meta_graph.meta_info_def.stripped_op_list)
        self.export_dir = export_dir
        self._bundle = None
        self._checkpoint_keys = None
        self._concretes = {}
        self._objects, self._building = {}, set()
        self._names = {}  # node id -> the name its parent gives it (names RestoredFunctions)
        for node in self.nodes:
            for c in node.children:
                self._names.setdefault(c.node_id, c.local_name)
        self.root = self._object(0)
        if not isinstance(self.root, _UserObject):
            raise Invalid("the root of the object graph is not an object")
        signatures = vars(self.root).get("signatures")
        if signatures is None:
            self.root.signatures = _SignatureMap()
        elif not isinstance(signatures, _SignatureMap):  # what serving would look up in
            raise Invalid("the root's 'signatures' is not a signature map")
        # What serving runs is checked and traced now, so its problems show at load. Other functions (a
        # Keras model's training-mode calls, say) are checked when first traced: an op rivulet lacks there
        # does not stop the model from serving.
        serving = [cf for cf in self.root.signatures.values() if isinstance(cf, _LazyConcreteFunction)]
        self.library.check([cf._function_name for cf in serving])
        for cf in serving:
            cf._materialize()

    # -- objects ----------------------------------------------------------------------------------------
    def _object(self, i):
        if not isinstance(i, int) or not 0 <= i < len(self.nodes):
            raise Invalid(f"bad object reference {i}")
        if i in self._objects:
            return self._objects[i]
        if i in self._building:
            raise Invalid(f"object {i} contains itself")
        self._building.add(i)
        node = self.nodes[i]
        kind = node.WhichOneof("kind")
        if kind == "user_object":
            obj = self._user_object(i, node)
        elif kind == "variable":
            obj = self._variable(i, node.variable)
        elif kind == "function":
            obj = self._function(i, node.function)
        elif kind == "bare_concrete_function":
            obj = self._bare(node.bare_concrete_function)
        elif kind == "constant":
            obj = self._constant(node.constant.operation)
        else:
            raise Invalid(f"objects of kind '{kind}' (node {i}) are not supported by rivulet")
        self._building.discard(i)
        self._objects[i] = obj
        return obj

    def _user_object(self, i, node):
        container = _WRAPPERS.get(node.user_object.identifier)
        if container is not None:
            items = [(c.local_name, self._object(c.node_id)) for c in node.children]
            if container is dict:
                return dict(items)
            items.sort(key=lambda kv: int(kv[0]) if kv[0].isdigit() else len(items))
            return container(v for _, v in items)
        obj = _SignatureMap() if node.user_object.identifier == "signature_map" else _UserObject()
        self._objects[i] = obj  # before the children: they may refer back to it
        for c in node.children:
            name = c.local_name
            if not name or name.startswith("__") and name != "__call__" or len(name) > 512:
                raise Invalid(f"bad attribute name {name[:80]!r}")
            child = self._object(c.node_id)
            if isinstance(obj, _SignatureMap):
                if not isinstance(child, ConcreteFunction):
                    raise Invalid(f"signature {name!r} is not a concrete function")
                obj[name] = child
            else:
                setattr(obj, name, child)
        return obj

    def _variable(self, i, sv):
        from ...state.variables import Variable
        dtype, shape = proto.dtype(sv.dtype, "variable"), proto.shape(sv.shape)
        key = self._checkpoint_key(i)
        value = self._read(key)
        if proto.dtype(_dtype_enum(value), key) != dtype or not shape.is_compatible_with(value.shape):
            raise Invalid(f"variable '{sv.name}' is {dtype.name}{shape} but its checkpointed value is "
                          f"{value.dtype}{list(value.shape)}")
        with context.init_scope():  # created eagerly even if load() runs while a function is traced
            return Variable(value, trainable=sv.trainable, name=sv.name or "Variable", dtype=dtype)

    def _constant(self, operation):
        for n in self.meta.graph_def.node:
            if n.name == operation and n.op == "Const" and "value" in n.attr:
                what = f"constant '{operation}'"
                value = proto.tensor(n.attr["value"].tensor, what)
                return EagerTensor(proto.const_value(value, proto.dtype(n.attr["dtype"].type, what), what))
        raise Invalid(f"constant '{operation}' is not a Const node of the graph")

    # -- variables bundle -------------------------------------------------------------------------------
    def _reader(self):
        if self._bundle is None:
            from ...formats import object_graph
            from ...formats.bundle import BundleReader
            prefix = os.path.join(self.export_dir, "variables", "variables")
            try:
                self._bundle = BundleReader(prefix)
                raw = self._bundle.get_tensor(_CHECKPOINT_GRAPH_KEY)
                if not hasattr(raw, "reshape") or raw.size != 1 or not isinstance(raw.reshape(-1)[0], bytes):
                    raise Invalid("variables: the object graph is not one string")
                nodes = object_graph.decode(raw.reshape(-1)[0])  # the one decoder checkpoints use too
            except OpError as e:
                raise Invalid(f"variables: {e.message}") from None
            self._checkpoint_keys = {i: key for i, n in enumerate(nodes) for name, _, key in n.attributes
                                     if name == _VARIABLE_VALUE}
        return self._bundle

    def _checkpoint_key(self, i):
        self._reader()
        key = self._checkpoint_keys.get(i)
        if key is None:
            raise Invalid(f"variable (object {i}) has no value in the variables checkpoint")
        return key

    def _read(self, key):
        try:
            return self._reader().get_tensor(key)
        except OpError as e:
            raise Invalid(f"variables: {e.message}") from None

    def _capture(self, node_id):
        obj = self._object(node_id)
        if isinstance(obj, ConcreteFunction) or not (  # (asking a lazy one for an attr traces it)
                getattr(obj, "_is_resource", False) or isinstance(obj, EagerTensor)):
            raise Invalid(f"a function captures object {node_id}, which is not a variable or constant")
        return obj

    # -- functions ----------------------------------------------------------------------------------------
    def _function(self, i, fn):
        sig = _signature(fn.function_spec) if fn.HasField("function_spec") else None
        cfs = [self._concrete(name, sig) for name in fn.concrete_functions]
        return RestoredFunction(self._names.get(i, "function"), sig, cfs)

    def _bare(self, bare):
        sig = _signature(bare.function_spec) if bare.HasField("function_spec") else None
        return self._concrete(bare.concrete_function_name, sig)

    def _concrete(self, name, sig):
        """The ConcreteFunction `name`, traced from its FunctionDef when it is first used."""
        cf = self._concretes.get(name)
        if cf is None:
            cf = self._concretes[name] = _LazyConcreteFunction(name, lambda: self._trace(name, sig), self.path)
        return cf

    def _trace(self, name, sig):
        self.library.check([name])
        saved = self.graph.concrete_functions.get(name)
        if saved is None:
            raise Invalid(f"concrete function '{name}' is not described in the object graph")
        structure = proto.structure(saved.canonicalized_input_signature)
        if not (isinstance(structure, tuple) and len(structure) == 2 and isinstance(structure[0], tuple)
                and isinstance(structure[1], dict)):
            raise Invalid(f"function '{name}': bad input signature")
        args, kwargs = structure
        outputs = proto.structure(saved.output_signature)
        if sig is None or not _fits(sig, args, kwargs):
            sig = inspect.Signature([_P(f"arg_{k}", _P.POSITIONAL_OR_KEYWORD) for k in range(len(args))] +
                                    [_P(k, _P.KEYWORD_ONLY) for k in sorted(kwargs)])
        captured = [self._capture(n) for n in saved.bound_inputs]
        library = self.library

        def body(*a, **k):
            flat = [x for x in nest.flatten((a, k)) if isinstance(x, Tensor)]
            result = library.call(name, flat + captured)
            return _pack(outputs, result, name)
        body.__signature__ = sig.replace(parameters=[p.replace(default=_P.empty) for p in sig.parameters.values()])
        body.__name__ = name
        from ...function.polymorphic import PolymorphicFunction
        cf = PolymorphicFunction(body, name=name, autograph=False).get_concrete_function(*args, **kwargs)
        cf._name = name
        return cf


class _LazyConcreteFunction(ConcreteFunction):
    """A restored ConcreteFunction that traces its FunctionDef on first use (a Keras model saves many
    functions, of which a caller typically runs one). Tracing problems raise SavedModelError."""

    def __init__(self, name, build, path):  # noqa: super().__init__ runs in _materialize, on the traced function
        self.__dict__.update(_function_name=name, _build=build, _path=path, _lock=threading.RLock(),
                             _building=False)

    def __getattr__(self, name):
        if name.startswith("__") or "_build" not in self.__dict__:
            raise AttributeError(name)
        self._materialize()
        return getattr(self, name)

    def _materialize(self):
        with self._lock:
            build = self.__dict__.get("_build")
            if build is None:
                return
            if self._building:  # its own tracing needs it: an RLock lets the thread in, to be refused here
                raise SavedModelError(self._path, f"function '{self._function_name}' is needed to trace itself")
            self.__dict__["_building"] = True
            try:
                cf = build()
            except Invalid as e:
                raise error(self._path, e) from None
            except (ValueError, TypeError, IndexError, KeyError) as e:  # rules refusing hostile attrs or specs
                raise SavedModelError(self._path, f"{type(e).__name__}: {e}") from None
            except RecursionError:
                raise SavedModelError(self._path, "the model is nested too deeply") from None
            finally:
                self.__dict__["_building"] = False
            self.__dict__.update(cf.__dict__)
            del self.__dict__["_build"]

    def __repr__(self):
        if "_build" in self.__dict__:
            return f"<ConcreteFunction (not traced yet) at 0x{id(self):X}>"
        return ConcreteFunction.__repr__(self)

    def __call__(self, *args, **kwargs):
        if "_build" in self.__dict__:
            self._materialize()
        return ConcreteFunction.__call__(self, *args, **kwargs)


def _dtype_enum(value):
    from ... import dtypes
    return dtypes.from_numpy(value.dtype).as_datatype_enum


def _fits(sig, args, kwargs):
    try:
        sig.bind(*args, **kwargs)
    except TypeError:
        return False
    return True


def _signature(spec):
    """FunctionSpec.fullargspec -> inspect.Signature (None if it cannot be made into one)."""
    if not spec.HasField("fullargspec"):
        return None
    try:
        full = proto.structure(spec.fullargspec)
    except Invalid:
        return None
    if not isinstance(full, dict):
        return None
    names = full.get("args") or []
    defaults = list(full.get("defaults") or ())
    params = []
    try:
        first_default = len(names) - len(defaults)
        for k, n in enumerate(names):
            kw = {"default": defaults[k - first_default]} if k >= first_default else {}
            params.append(_P(n, _P.POSITIONAL_OR_KEYWORD, **kw))
        if full.get("varargs"):
            params.append(_P(full["varargs"], _P.VAR_POSITIONAL))
        kwdefaults = full.get("kwonlydefaults") or {}
        for n in full.get("kwonlyargs") or []:
            kw = {"default": kwdefaults[n]} if n in kwdefaults else {}
            params.append(_P(n, _P.KEYWORD_ONLY, **kw))
        if full.get("varkw"):
            params.append(_P(full["varkw"], _P.VAR_KEYWORD))
        return inspect.Signature(params)
    except (ValueError, TypeError):
        raise Invalid(f"bad function argument names {names!r}") from None


def _pack(structure, flat, name):
    """The function's outputs (flat) put back into its output signature's structure."""
    it = iter(flat)

    def fill(s):
        if isinstance(s, TensorSpec):
            try:
                return next(it)
            except StopIteration:
                raise Invalid(f"function '{name}' returns fewer tensors than its output signature has") from None
        if isinstance(s, (list, tuple)):
            return type(s)(fill(x) for x in s)
        if isinstance(s, dict):
            return {k: fill(s[k]) for k in sorted(s)}
        return s
    out = fill(structure)
    if next(it, None) is not None:
        raise Invalid(f"function '{name}' returns more tensors than its output signature has")
    return out
