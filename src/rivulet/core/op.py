"""An Op is the one place an operation is defined: its shape/dtype rule, NumPy kernel and gradient.

    kernel(*values, **attrs) -> value (or a tuple of values when num_outputs != 1)
    infer(*specs, **attrs)   -> (TensorShape, DType) or a list of them; specs have .shape and .dtype
    grad(op, *dys)           -> one gradient (or None) per input; `op` exposes .inputs, .outputs, attrs
"""
import inspect
import keyword

import numpy as np

from .. import dtypes as _dt
from ..errors import InvalidArgumentError

REGISTRY = {}


class Op:
    __slots__ = ("name", "_kernel", "_quiet_inner", "infer", "grad", "num_outputs", "stateful", "allowed", "same", "doc",
                 "is_view", "cost", "_allowed_np", "_declared", "_calls")

    def __init__(self, name, kernel, infer, grad=None, num_outputs=1, stateful=False, allowed=None, same=0,
                 is_view=False, cost=None, attrs=None):
        self.name = name
        self.kernel = kernel
        self.infer = infer
        self.grad = grad
        self.num_outputs = num_outputs  # an int, or a callable(attrs) -> int
        self.stateful = stateful  # never folded, deduplicated or pruned; runs in program order
        self.allowed = allowed  # dtypes allowed for the typed inputs (None: any)
        self.same = same  # how many leading inputs must share one dtype
        self.is_view = is_view  # kernel may return a view of its input (matters for buffer reuse)
        self.cost = cost  # optional callable(in_shapes, attrs) -> flops estimate (parallel executor)
        self._allowed_np = None if allowed is None else frozenset(
            d._np if d._np is not None else np.dtype(object) for d in allowed)
        # attrs: the attr names, declared only where both the rule and the kernel take **kwargs
        if attrs is not None and not all(_identifier(a) for a in attrs):
            raise ValueError(f"Op {name!r}: attr names must be Python identifiers, got {attrs!r}")
        self._declared = None if attrs is None else frozenset(attrs)
        self._calls = None  # the rule's and kernel's call facts, worked out on first use

    @property
    def kernel(self):
        return self._kernel

    @kernel.setter
    def kernel(self, kernel):
        self._kernel = kernel
        # a `context.quiet` kernel's pure-NumPy body: eager dispatch enters the quiet context itself
        self._quiet_inner = getattr(kernel, "quiet_inner", None)

    @property
    def attr_names(self):
        """The attrs this op takes (frozenset of identifiers): those its rule and kernel both accept by
        keyword, or the explicit declaration. Input names of the signatures are included (a node may
        not pass them as attrs: `call_problem` checks a node's whole call)."""
        return self._facts()[0]

    def _facts(self):
        f = self._calls
        if f is None:
            calls = [_call_facts(fn) for fn in (self.infer, self.kernel)]
            names = self._declared
            if names is None:
                named = [c[1] for c in calls if c[1] is not None]  # None: takes any keyword
                names = frozenset.intersection(*named) if named else frozenset()
            f = self._calls = (names, calls)
        return f

    def attr_default(self, name):
        """The default the rule or kernel gives attr `name` (inspect.Parameter.empty if none)."""
        for sig, _named, _nin in self._facts()[1]:
            p = sig.parameters.get(name) if sig is not None else None
            if p is not None and p.default is not p.empty:
                return p.default
        return inspect.Parameter.empty

    def call_problem(self, n_inputs, attrs):
        """Why a node of this op with n_inputs inputs and these attrs could not be called (its rule and
        kernel bound as `fn(*inputs, **attrs)`), or None. For checking graphs read from files."""
        names, calls = self._facts()
        bad = sorted(k for k in attrs if k not in names)
        if bad:
            return f"op {self.name} has no attr {bad[0]!r} (its attrs: {', '.join(sorted(names)) or 'none'})"
        for fn, (sig, _named, nin) in zip((self.infer, self.kernel), calls):
            if nin is not None:
                if n_inputs != nin or attrs:
                    return f"op {self.name} takes {nin} input(s) and no attrs, got {n_inputs} input(s)"
                continue
            if sig is None:
                continue
            try:
                bound = sig.bind(*range(n_inputs), **attrs)
            except TypeError as e:
                return f"op {self.name} cannot be called with {n_inputs} input(s) and attrs " \
                       f"{sorted(attrs)}: {e}"
            for pname, value in bound.arguments.items():
                p = sig.parameters[pname]
                if p.kind is p.POSITIONAL_OR_KEYWORD and p.default is not p.empty and pname not in attrs:
                    # an input landing on an attr's parameter (Softmax's axis): attrs are never inputs
                    return f"op {self.name} takes {list(sig.parameters).index(pname)} input(s) before its " \
                           f"attr {pname!r}, got {n_inputs}"
        return None

    def n_outputs(self, attrs):
        n = self.num_outputs
        return n(attrs) if callable(n) else n

    def check_values(self, vals):
        """The eager dtype check on raw NumPy values; builds TensorFlow's message only on failure."""
        if not vals:
            return
        d0 = vals[0].dtype
        same = self.same
        if same == 2:
            if len(vals) > 1:
                d = vals[1].dtype
                if d is not d0 and d != d0:
                    self._values_error(vals)
        elif same > 2:
            for v in vals[1:same]:
                d = v.dtype
                if d is not d0 and d != d0:
                    self._values_error(vals)
        allowed = self._allowed_np
        if allowed is not None and d0 not in allowed:
            self._values_error(vals)

    def _values_error(self, vals):
        self.check_dtypes([_dt.from_numpy(v.dtype) for v in vals], eager=True)

    def check_dtypes(self, dts, eager):
        """Enforce the declared dtype constraints on input dtypes (DType objects)."""
        same = self.same
        if same > 1:
            d0 = dts[0]
            for i in range(1, min(same, len(dts))):
                if dts[i] is not d0:
                    if eager:
                        raise InvalidArgumentError(
                            f"cannot compute {self.name} as input #{i}(zero-based) was expected to be a "
                            f"{cpp_dtype_name(d0)} tensor but is a {cpp_dtype_name(dts[i])} tensor [Op:{self.name}]")
                    raise TypeError(f"Input {i} of '{self.name}' Op has type {dts[i].name} that does not match "
                                    f"type {d0.name} of argument 0.")
        if self.allowed is not None and dts and dts[0] not in self.allowed:
            if len(self.allowed) == 1:  # not type-polymorphic (LogicalAnd): TensorFlow names the one dtype
                (want,) = self.allowed
                if eager:
                    raise InvalidArgumentError(
                        f"cannot compute {self.name} as input #0(zero-based) was expected to be a {cpp_dtype_name(want)} "
                        f"tensor but is a {cpp_dtype_name(dts[0])} tensor [Op:{self.name}]")
                raise TypeError(f"Input 'x' of '{self.name}' Op has type {dts[0].name} that does not match expected "
                                f"type of {want.name}.")
            names = ", ".join(d.name for d in sorted(self.allowed, key=lambda d: d.as_datatype_enum))
            msg = (f"Value for attr 'T' of {dts[0].name} is not in the list of allowed values: {names}\n"
                   f"\t; NodeDef: {{{{node {self.name}}}}}; Op<name={self.name}>")
            if eager:
                raise InvalidArgumentError(msg + f" [Op:{self.name}]")
            raise TypeError(msg)

    def __repr__(self):
        return f"<Op {self.name}>"


def _identifier(name):
    return isinstance(name, str) and name.isidentifier() and name.isascii() and not keyword.iskeyword(name)


def _call_facts(fn):
    """(signature or None, names it takes by keyword or None for any, input count or None) of a rule or
    kernel. A NumPy ufunc takes exactly its `nin` inputs and no attrs (its out=/where= are not attrs)."""
    base = inspect.unwrap(fn)
    if isinstance(base, np.ufunc):
        return None, frozenset(), base.nin
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None, frozenset(), None
    params = sig.parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return sig, None, None
    return sig, frozenset(p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
                          and _identifier(p.name)), None


def cpp_dtype_name(dt):
    # TensorFlow names dtypes by their C++ spelling in this message: "float", "double", "int32".
    return {"float32": "float", "float64": "double", "float16": "half"}.get(dt.name, dt.name)


def defop(name, kernel, infer, **kw):
    """Registers and returns an Op. Names are TensorFlow's op type names (AddV2, MatMul ...)."""
    if name in REGISTRY:
        raise ValueError(f"Op {name!r} is defined twice")
    op = Op(name, kernel, infer, **kw)
    REGISTRY[name] = op
    return op


def get_op(name):
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"No op named {name!r} is registered") from None


# Common dtype sets.
FLOATS = frozenset([_dt.float16, _dt.float32, _dt.float64])
INTS = frozenset([_dt.int8, _dt.int16, _dt.int32, _dt.int64, _dt.uint8, _dt.uint16, _dt.uint32, _dt.uint64])
COMPLEX = frozenset([_dt.complex64, _dt.complex128])
NUMERIC = FLOATS | INTS | COMPLEX
REAL = FLOATS | INTS
