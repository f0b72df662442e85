"""Compiles a Graph into straight-line Python: one line per operation calling its NumPy kernel directly.

Everything static was decided when the graph was built (dtypes, shapes, attrs, which ops are needed), so
the compiled function only binds arguments, calls kernels and returns values. The source is registered
with linecache under a fake filename so tracebacks show the generated lines, and a failing line is mapped
back to its Operation and to the user's source line that created it.

The source is made only of this module's own text: names derived from op ids (`v12`, `k12`, `t12_0`),
and attr keywords only where the op declares that attr (`Op.attr_names`, identifiers of our code). Attr
values, constants, graph and node names, which may come from a file (saved models), never become source
text: values are globals of the compiled function, and the function is named after it is compiled.
"""
import itertools
import linecache
import weakref

import numpy as np

from ..core.context import unquiet
from ..errors import InvalidArgumentError, OpError, ResourceExhaustedError
from . import dense_chain, parallel
from .plan import needed_ops

_ids = itertools.count()
_DEF = "graph_fn"  # the name every generated function is compiled under (renamed afterwards)
# Values above this many elements are dropped right after their last use (memory planning).
_FREE_ABOVE = 1 << 16


def _attr_args(op, glob):
    """The keyword arguments passing op's attrs to its kernel, each value a global of the compiled code.
    A keyword is written only when it is one of the op's declared attr names (identifiers of our code);
    anything else (never made by our own ops) travels in a dict, so no attr key becomes source text."""
    names = op.opdef.attr_names
    out, extra = [], None
    for j, (key, val) in enumerate(op.attrs.items()):
        g = f"t{op._id}_{j}"
        if key in names:
            glob[g] = val
            out.append(f"{key}={g}")
        else:
            extra = extra or {}
            extra[key] = val
    if extra is not None:
        glob[f"t{op._id}_kw"] = extra
        out.append(f"**t{op._id}_kw")
    return out


class CompiledGraph:
    """A callable over flat input values returning a tuple of flat output values."""
    __slots__ = ("fn", "source", "ops", "line_ops", "filename", "onednn")

    def __call__(self, *values):
        return self.fn(*values)


def compile_graph(graph, inputs, outputs, name="fn", wrap=None, split=True, kernels=None):
    """inputs: placeholders fed in order; outputs: tensors returned. `wrap` (optional) is applied to each
    output inside the generated code (e.g. EagerTensor), saving a Python-level loop per call. `kernels`
    (optional): {op: kernel} run in place of those ops' own kernels (a loop's in-place accumulator)."""
    from . import options
    kernels = {op._id: k for op, k in (kernels or {}).items()}
    if kernels:
        split = False
    if split and options.enabled("parallel_execution"):
        groups = parallel.components(graph, outputs)
        if groups:
            return _compile_branches(graph, inputs, outputs, name, wrap, groups)
    ops = needed_ops(graph, outputs)
    names = {}  # id(tensor) -> expression
    glob = {"_np": np, "_asarray": np.asarray, "_like": _shape_like}
    lines = []
    line_ops = {}
    params = []
    for i, t in enumerate(inputs):
        p = f"a{i}"
        params.append(p)
        names[id(t)] = p
    uses = {}
    shapes = _shape_only_uses(ops, outputs)  # (op id, input index) of inputs read for their shape alone
    standins = {id(op._inputs[i]) for op in ops for i in _SHAPE_ONLY.get(op.type, ()) if (op._id, i) in shapes}
    for op in ops:
        for i, t in enumerate(op._inputs):
            if (op._id, i) not in shapes:
                uses[id(t)] = uses.get(id(t), 0) + 1
    for t in outputs:
        uses[id(t)] = uses.get(id(t), 0) + 1 << 20  # never freed
    remaining = dict(uses)
    # Memory planning by value, not by tensor: an Identity's output names its input's value, and a
    # multi-output op's outputs are items of one tuple (`v12[0]`), dropped once none is needed any more.
    base = {}  # id(tensor) -> the name holding its value
    live = {}  # that name -> uses still to come, of every tensor it holds
    big = set()  # names worth a `del`: a value of unknown or large size, or a variable's read
    fresh = set()  # tensors whose buffers this function allocated (safe to overwrite once dead)
    held = _held_by_lists(ops)  # values a TensorList keeps: never overwritten, even once dead here
    reuse = options.enabled("buffer_reuse")
    groups, grouped = {}, set()
    scalars = {}  # (NumPy scalar type, bytes) -> the name of that constant
    if options.enabled("parallel_execution"):
        ops, groups = parallel.schedule(ops)
        grouped = {m._id for g in groups.values() for m in g}
        glob["_par"] = parallel.run_together
    # Chains of small dense layers run as one call on oneDNN where it is installed (execute/dense_chain.py)
    chains = dense_chain.plan(ops, uses, grouped | set(kernels), standins | held)
    chained = {m._id for _, members in chains.values() for m in members[:-1]}

    def produced(op, v):
        """Starts counting the uses of op's outputs, held by the name v."""
        outs = op.outputs
        if len(outs) == 1:
            t = outs[0]
            live[v] = n = uses.get(id(t), 0)
            base[id(t)] = v
            free = _worth_freeing(t)
        else:
            live[v] = n = sum(uses.get(id(t), 0) for t in outs)
            base.update((id(t), v) for t in outs)
            free = any(_worth_freeing(t) for t in outs)
        # A variable's value is dropped after its last read too: an update later in the function then
        # finds the array held by the variable alone and writes it in place. A value of unknown size (a
        # batch left open, as Keras traces its steps) is as big as any: dropped too.
        if free or op.type == "ReadVariableOp":
            big.add(v)
            if not n:  # nothing reads it (a stateful op's output): dropped at once
                lines.append(f"    del {v}")

    def stand_in(op):
        """After op: a stand-in of each output read for its shape alone (a broadcast zero of its shape and
        dtype, holding none of its memory), so that the value itself is dropped after its last real use."""
        for j, t in enumerate(op.outputs):
            if id(t) in standins:
                lines.append(f"    s{op._id}_{j} = _like({names[id(t)]})")

    def arg(op, i, t):
        return f"s{t.op._id}_{t.value_index}" if (op._id, i) in shapes else names[id(t)]

    def release(op):
        """Memory planning: drop big intermediates once their last consumer has run."""
        for i, t in enumerate(op._inputs):
            if shapes and (op._id, i) in shapes:
                continue
            k = id(t)
            r = remaining.get(k)
            if r is None:
                continue
            remaining[k] = r - 1
            v = base.get(k)
            if v is None:
                continue
            left = live[v] = live[v] - 1
            if not left and v in big:
                lines.append(f"    del {v}")

    # An infix value that cannot fail and is read once, by the next op that writes a line, is written into
    # that line as an expression instead of a line of its own: less source for Python's compile(), most of
    # a big graph's compile time. A failure on the line can then only be its own op's.
    pending = None  # (tensor id, name, expression, ops in it, op)

    def flush():
        nonlocal pending
        tid, v, expr, _, p = pending
        pending = None
        lines.append(f"    {v} = {expr}")
        line_ops[len(lines)] = p
        names[tid] = v

    for op in ops:
        typ = op.type
        if pending is not None and typ != "Const" and (
                op._id in grouped or typ == "Identity" or pending[0] not in map(id, op._inputs)):
            flush()
        if op._id in chained:
            continue  # computed by its chain's last op
        if op._id in chains:
            if pending is not None:
                flush()
            chain, members = chains[op._id]
            glob[f"k{op._id}"] = chain
            cargs = [arg(members[0], 0, members[0]._inputs[0])] + [arg(m, i, t) for m in members
                                                                   for i, t in enumerate(m._inputs) if i]
            v = f"v{op._id}"
            lines.append(f"    {v} = k{op._id}({', '.join(cargs)})")
            line_ops[len(lines)] = op
            names[id(op.outputs[0])] = v
            fresh.add(id(op.outputs[0]))
            stand_in(op)
            produced(op, v)
            for m in members:
                release(m)
            continue
        if op._id in grouped:
            group = groups.get(op._id)
            if group is None:
                continue  # emitted with its group
            calls = []
            for m in group:
                glob[f"k{m._id}"] = unquiet(m.opdef.kernel)
                margs = "".join(arg(m, i, t) + ", " for i, t in enumerate(m.inputs))
                glob[f"t{m._id}_kw"] = dict(m.attrs)  # the attrs as an object: no key becomes text
                calls.append(f"(k{m._id}, ({margs}), t{m._id}_kw)")
            lines.append(f"    {', '.join(f'v{m._id}' for m in group)}, = _par({', '.join(calls)})")
            for m in group:
                line_ops[len(lines)] = m if m is group[0] else line_ops.get(len(lines), m)
                names[id(m.outputs[0])] = f"v{m._id}"
                stand_in(m)
                produced(m, f"v{m._id}")
            for m in group:
                release(m)
            continue
        if typ == "Placeholder":
            if id(op.outputs[0]) not in names:
                raise ValueError(f"Placeholder '{op.name}' is needed but not fed: the graph's inputs are "
                                 f"{[t.name for t in inputs]}")
            continue
        if typ == "Const":
            val = op.attrs["value"]
            g = f"c{op._id}"
            if type(val) in _SCALARS:  # equal scalars (a traced graph's per-use constants) share one name
                g = scalars.setdefault((type(val), val.tobytes()), g)
            glob[g] = val
            names[id(op.outputs[0])] = g
            continue
        args = [arg(op, i, t) for i, t in enumerate(op._inputs)] if shapes else [names[id(t)] for t in op._inputs]
        if typ == "Identity":
            names[id(op.outputs[0])] = args[0]
            v = base.get(id(op._inputs[0]))
            if v is not None:  # the output's uses are the value's: the Identity's own use is not one
                base[id(op.outputs[0])] = v
                live[v] += uses.get(id(op.outputs[0]), 0) - 1
                # `remaining` (buffer reuse) still counts the Identity's use: the alias reads the same buffer
                if not live[v] and v in big:
                    lines.append(f"    del {v}")
            continue
        k = f"k{op._id}"
        if op.attrs:
            args.extend(_attr_args(op, glob))
        v = f"v{op._id}"
        buf = _reusable(op, fresh, remaining, names) if reuse else None
        infix = _INFIX.get(typ) if not op.attrs and op.inputs and op.inputs[0].dtype.is_numeric else None
        if typ == "MatMul" and infix is not None:  # a plain product oneDNN runs faster, with the onednn extra
            infix = _inline_gemm(op, glob, "", "") or infix
        if infix is None or buf is not None:  # (an infix line calls no kernel)
            glob[k] = unquiet(kernels.get(op._id, op.opdef.kernel))
        if infix is None and typ in _INLINE:
            infix = _INLINE[typ](op, glob)
        depth = 1
        if pending is not None:  # this op reads it
            depth += pending[3]
            pending = None
        if buf is None and infix is not None:
            # Python operators on NumPy values dispatch to the same ufuncs, without the ufunc call overhead
            # that dominates on scalars (about 5x).
            expr = infix.format(*args)
            out = op.outputs[0] if op.outputs else None  # (an inline update has none)
            if depth < _CHAIN and typ in _INFIX and uses.get(id(out)) == 1 and id(out) not in standins and \
                    _static(op) and not _worth_freeing(out) and not (reuse and typ in _FRESH and _plain_array(out)):
                pending = (id(out), v, expr, depth, op)
                names[id(out)] = f"({expr})"
                produced(op, v)
                n = len(lines)
                release(op)
                if len(lines) > n:  # a value it reads is dropped here: written now, before the `del`
                    lines.insert(n, f"    {v} = {expr}")
                    line_ops[n + 1] = op
                    names[id(out)] = v
                    pending = None
                continue
            lines.append(f"    {v} = {expr}")
        elif buf is not None:
            # Buffer reuse: a temporary consumed only here, already of the output's shape, takes the result.
            glob[f"u{op._id}"] = _INPLACE[typ]
            lines.append(f"    {v} = u{op._id}({', '.join(args)}, out={buf})")
        else:
            lines.append(f"    {v} = {k}({', '.join(args)})")
        if typ in _FRESH and _plain_array(op.outputs[0]) and id(op.outputs[0]) not in held:
            fresh.add(id(op.outputs[0]))
        line_ops[len(lines)] = op
        if op.opdef.num_outputs == 1:  # as bind(): kernels of multi-output ops always return a tuple
            names[id(op.outputs[0])] = v
        else:
            for j, t in enumerate(op.outputs):
                names[id(t)] = f"{v}[{j}]"
        stand_in(op)
        produced(op, v)
        release(op)
    if pending is not None:
        flush()
    if wrap is not None:
        glob["_W"] = wrap
        glob["_Ws"] = lambda v: wrap(v if hasattr(v, "dtype") else np.array(v, dtype=object))
        # Object-dtype kernels give bare bytes for 0-d results; only string outputs need the check.
        rets = [f"{'_Ws' if t.dtype.name == 'string' else '_W'}({names[id(t)]})" for t in outputs]
    else:
        rets = [names[id(t)] for t in outputs]
    ret = "(" + "".join(r + ", " for r in rets) + ")"
    body = lines or ["    pass"]
    src = (f"def {_DEF}({', '.join(params)}):\n    try:\n" +
           "\n".join("    " + ln for ln in body) + f"\n        return {ret}\n"
           "    except _OpErrors as e:\n        _fail(e, _cg)\n")
    # line numbers of ops shift by the two header lines
    cg = CompiledGraph()
    cg.line_ops = {ln + 2: op for ln, op in line_ops.items()}
    glob["_OpErrors"] = _TRANSLATED
    glob["_fail"] = _fail
    glob["_cg"] = cg
    cg.fn, cg.filename = _load(src, name, glob)
    cg.source, cg.ops = src, ops
    # the products oneDNN runs (a Gemm or a chain of them): OpenBLAS's threads do not concern them (blas_threads.limit)
    cg.onednn = frozenset(op._id for op in ops if isinstance(glob.get(f"g{op._id}"), dense_chain.Gemm)) | chained \
        | frozenset(chains)
    return cg


_SCALARS = frozenset(np.dtype(c).type for c in "?bhilqBHILQefdgFDG")  # bool and numbers
_CHAIN = 12  # at most this many ops in one generated statement


def _static(op):
    """An op whose operands' and result's shapes are all static: its infix form cannot fail at run time."""
    for t in (op.outputs[0], *op._inputs):
        d = t._shape._dims
        if d is None or None in d:
            return False
    return True


def _load(src, name, glob):
    """Compiles generated source defining `name` into `glob`, registered with linecache so tracebacks and
    `inspect` show it; returns (the function, its file name)."""
    fname = f"<rivulet-graph {name}#{next(_ids)}>"
    code = compile(src, fname, "exec")
    linecache.cache[fname] = (len(src), None, src.splitlines(True), fname)
    exec(code, glob)
    fn = _named(glob[_DEF], name)
    # The source lives as long as the function: evicted or cleared functions leave nothing in linecache.
    weakref.finalize(fn, linecache.cache.pop, fname, None).atexit = False
    return fn, fname


_INFIX = {"AddV2": "{0} + {1}", "Sub": "{0} - {1}", "Mul": "{0} * {1}", "Neg": "-{0}",
          "MatMul": "{0} @ {1}", "Less": "{0} < {1}", "LessEqual": "{0} <= {1}", "Greater": "{0} > {1}",
          "GreaterEqual": "{0} >= {1}"}
BLAS_FLOATS = ("float32", "float64")  # np.dot and np.matmul both call BLAS on these


def _inline_matmul(op, glob):
    """A 2-D MatMul with transpose attrs (a gradient's): np.dot on transposed views, no kernel call."""
    a, b = op.inputs
    if a.shape.rank != 2 or b.shape.rank != 2 or not a.dtype.is_numeric or a.dtype.is_complex:
        return None
    if any(op.attrs.get(k) for k in ("adjoint_a", "adjoint_b")) or set(op.attrs) - _MATMUL_ATTRS:
        return None
    ta, tb = (".T" if op.attrs.get(k) else "" for k in ("transpose_a", "transpose_b"))
    g = _inline_gemm(op, glob, ta, tb)
    if g is not None:
        return g
    if a.dtype.name in BLAS_FLOATS:  # BLAS either way; np.dot's entry is the cheaper
        glob["_dot"] = np.dot
        return f"_dot({{0}}{ta}, {{1}}{tb})"
    if a.dtype.name == "float16":  # the kernel itself, on the views (it sums in float32, as TensorFlow)
        glob["_matmul16"] = op.opdef.kernel
        return f"_matmul16({{0}}{ta}, {{1}}{tb})"
    glob["_matmul"] = np.matmul  # integers: NumPy's own loops
    return f"_matmul({{0}}{ta}, {{1}}{tb})"


_MATMUL_ATTRS = {"transpose_a", "transpose_b", "adjoint_a", "adjoint_b"}


def _inline_gemm(op, glob, ta, tb):
    """A 2-D float32 MatMul of a size oneDNN pays for, with the onednn extra: one oneDNN matmul
    (execute/dense_chain.Gemm); else None."""
    g = dense_chain.gemm(op, lambda a, b: np.dot(a.T if ta else a, b.T if tb else b))
    if g is None:
        return None
    glob[f"g{op._id}"] = g
    return f"g{op._id}({{0}}, {{1}})"


def zeros_like(t):
    """Relu's zero: an array of the output's static shape where it is known, which np.maximum takes about
    twice as fast as a scalar on small operands (no broadcasting); shared read-only by every call."""
    dt = t.dtype.as_numpy_dtype
    if not t.shape.is_fully_defined() or t.shape.num_elements() > _ZEROS_UP_TO:
        return dt(0)
    key = (tuple(t.shape.as_list()), np.dtype(dt).str)
    z = _ZEROS.get(key)
    if z is None:
        z = np.zeros(key[0], dt)
        z.flags.writeable = False
        if len(_ZEROS) < 256:  # one array per shape, shared by every layer and function using it
            _ZEROS[key] = z
    return z


_ZEROS_UP_TO = 1 << 14
_ZEROS = {}


def _inline_reshape(op, glob):
    """A Reshape whose input and output shapes are static was checked when it was traced: a method call."""
    x, out = op.inputs[0], op.outputs[0]
    if len(op.inputs) != 1 or not (x.shape.is_fully_defined() and out.shape.is_fully_defined()):
        return None
    s = f"t{op._id}_s"
    glob[s] = tuple(out.shape.as_list())
    return "_asarray({0}).reshape(" + s + ")"


def _inline_sum_to(op, glob):
    """A broadcasting op's gradient summed back to an operand's shape (SumToShapeOf): mostly the shapes
    already agree (a loop body's gradient of [batch, units] values), so the kernel is called only when they
    do not. Arrays of a known rank of at least 1 only, where `.shape` is there to compare."""
    g, ref = op.inputs
    if op.attrs or g.shape.rank in (None, 0) or ref.shape.rank != g.shape.rank or not g.dtype.is_numeric:
        return None
    return f"({{0}} if {{0}}.shape == {{1}}.shape else k{op._id}({{0}}, {{1}}))"


def _inline_mean(op, glob):
    """A float32/64 Mean over every axis of a static, non-empty input (a training step's loss): the kernel's own
    sum and division (ops/math_ops.py _mean_kernel: a pairwise sum in the input's dtype, then / the count) without
    its checks and wrapper, 2.1 -> ~1 us on w5's 64 losses."""
    x = op.inputs[0]
    if op.attrs.get("axis") is not None or op.attrs.get("keepdims") or set(op.attrs) - {"axis", "keepdims"} \
            or x.dtype.name not in ("float32", "float64") or not x.shape.is_fully_defined() \
            or not x.shape.num_elements():
        return None
    glob["_sum"] = np.add.reduce
    glob[f"t{op._id}_n"] = x.dtype.as_numpy_dtype(x.shape.num_elements())
    return f"_sum({{0}}, axis=None) / t{op._id}_n"


def _inline_split(op, glob):
    """An even Split along an axis of static length (an RNN cell's gates): a tuple of basic slices, the views
    np.split makes, without its per-piece Python (about 10x less on [64, 256])."""
    x = op.inputs[0]
    num, axis = op.attrs.get("num_split"), op.attrs.get("axis")
    rank = x.shape.rank
    if rank is None or not isinstance(num, int) or not isinstance(axis, int) or not -rank <= axis < rank:
        return None
    axis %= rank
    d = x.shape[axis]
    if d is None or num < 1 or d % num:
        return None
    n = d // num
    names = []
    for i in range(num):
        key = f"t{op._id}_k{i}"
        glob[key] = (slice(None),) * axis + (slice(i * n, (i + 1) * n),)
        names.append("{0}[" + key + "]")
    return "(" + ", ".join(names) + ",)"


def _row(x, i, kernel, spec):
    """x[i] of an integer i (a time loop's read of its input: seq[t]) as the view StridedSlice's kernel
    gives, without its key building; out of range, the kernel raises TensorFlow's error."""
    try:
        return x[int(i)]
    except IndexError:
        return kernel(x, i, spec=spec)


def _inline_row(op, glob):
    """A StridedSlice x[i] of one dynamic integer index on an array of known rank (spec (("i", "?"),))."""
    x = op.inputs[0]
    if len(op.inputs) != 2 or set(op.attrs) != {"spec"} or op.attrs["spec"] != (("i", "?"),) or \
            x.shape.rank in (None, 0) or not x.dtype.is_numeric:
        return None
    glob["_row"] = _row
    return "_row({0}, {1}, k" + str(op._id) + ", {2})"


# Ops whose compiled form is an expression rather than a kernel call: a variable read is an attribute
# load (same place in program order, so the automatic control dependencies still hold).
_INLINE = {"ReadVariableOp": lambda op, glob: "{0}._value", "Reshape": _inline_reshape, "MatMul": _inline_matmul,
           "SumToShapeOf": _inline_sum_to, "Split": _inline_split, "StridedSlice": _inline_row, "Mean": _inline_mean}


def register_inline(op_type, form):
    """Ops defined above the executor (optimize/fusion.py's _FusedMatMul) give their compiled form here:
    form(op, glob) returns an expression template over the inputs ({0}, {1} ...), or None for a kernel call."""
    _INLINE[op_type] = form
# Elementwise ops computed in place (ufunc with out=), and ops whose kernels always return a new array.
# BiasAdd without attrs is NHWC: the bias broadcasts on the last axis, as np.add does.
_INPLACE = {"AddV2": np.add, "Sub": np.subtract, "Mul": np.multiply, "Maximum": np.maximum,
            "Minimum": np.minimum, "Neg": np.negative, "BiasAdd": np.add}
_FRESH = set(_INPLACE) | {"MatMul", "_FusedMatMul", "BatchMatMulV2", "Conv2D", "_FusedConv2D"}


def _held_by_lists(ops):
    """The values an op with a variant output (a TensorList write) takes in, through identities: the list
    keeps the array, so no later op may take its buffer."""
    held = set()
    for op in reversed(ops):
        if any(t.dtype._kind == "v" for t in op.outputs) or \
                op.type == "Identity" and any(id(t) in held for t in op.outputs):
            held.update(id(t) for t in op._inputs)
    return held


# Inputs whose values these ops never read, only their shape (and dtype): gradient plumbing mostly, as a
# broadcasting op's gradient summed back to its operand's shape, which would otherwise keep the operand (a
# batch of activations) alive until the backward pass reaches it.
_SHAPE_ONLY = {"SumToShapeOf": (1,), "BroadcastLike": (1,), "ReshapeLike": (1,), "Shape": (0,), "Size": (0,),
               "Rank": (0,), "ReducedCount": (0, 1)}


def _shape_like(a):
    """A read-only array of a's shape and dtype that holds one element, not a's buffer."""
    return np.broadcast_to(np.zeros((), a.dtype), a.shape)


def _shape_only_uses(ops, outputs):
    """The (op id, input index) of the shape-only inputs worth a stand-in: big numeric arrays computed here
    by a single-output op (not fed, constant, or an identity's alias), never returned."""
    out = {id(t) for t in outputs}
    found = set()
    for op in ops:
        for i in _SHAPE_ONLY.get(op.type, ()):
            if i >= len(op._inputs):
                continue
            t = op._inputs[i]
            src = t.op
            if src.type in ("Placeholder", "Const", "Identity") or src.opdef.num_outputs != 1 or id(t) in out:
                continue
            if t.dtype.is_numeric and _worth_freeing(t):
                found.add((op._id, i))
    return found


def _worth_freeing(t):
    """A value dropped after its last use: more than _FREE_ABOVE elements, or an unknown number of them
    (a known rank of 0, a scalar, never)."""
    dims = t._shape._dims
    if dims is None:
        return True
    n = 1
    for d in dims:
        if d is None:
            return True
        n *= d
    return n > _FREE_ABOVE


def _plain_array(t):
    dims = t._shape._dims  # a known rank of at least 1, every dim known
    return bool(dims) and None not in dims and t._dtype._kind == "f"


def _reusable(op, fresh, remaining, names):
    if op.type not in _INPLACE or op.attrs or len(op.outputs) != 1:
        return None
    out = op.outputs[0]
    if not _plain_array(out):
        return None
    for t in op.inputs:
        if id(t) in fresh and remaining.get(id(t)) == 1 and t.shape == out.shape and t.dtype is out.dtype:
            return names[id(t)]
    return None


def _compile_branches(graph, inputs, outputs, name, wrap, groups):
    """Independent branches of the graph, each compiled on its own and run concurrently: no
    synchronisation between their ops, one hand-off per branch."""
    branches = [compile_graph(graph, inputs, [outputs[i] for i in g], f"{name}_branch{k}", wrap, split=False)
                for k, g in enumerate(groups)]
    where = {}
    for k, g in enumerate(groups):
        for j, i in enumerate(g):
            where[i] = (k, j)
    glob = {"_par": parallel.run_together}
    params = ", ".join(f"a{i}" for i in range(len(inputs)))
    calls = []
    for k, b in enumerate(branches):
        glob[f"b{k}"] = b.fn
        calls.append(f"(b{k}, ({params}{',' if len(inputs) == 1 else ''}), {{}})")
    rets = "".join(f"r[{where[i][0]}][{where[i][1]}], " for i in range(len(outputs)))
    src = f"def {_DEF}({params}):\n    r = _par({', '.join(calls)})\n    return ({rets})\n"
    cg = CompiledGraph()
    cg.fn, cg.filename = _load(src, name, glob)
    cg.source, cg.line_ops = src, {}
    cg.ops = [op for b in branches for op in b.ops]
    return cg


def _named(fn, name):
    """fn shown as `name` in tracebacks and reprs: set on the code object, never written into source."""
    name = str(name)[:200]
    fn.__code__ = fn.__code__.replace(co_name=name, co_qualname=name)
    fn.__name__ = fn.__qualname__ = name
    return fn


_TRANSLATED = (ValueError, IndexError, TypeError, ZeroDivisionError, FloatingPointError, OverflowError,
               OpError, MemoryError)


def _fail(exc, cg):
    """Re-raises a kernel failure as TensorFlow would: the op's name and where the user created it."""
    tb = exc.__traceback__
    op = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == cg.filename:
            op = cg.line_ops.get(tb.tb_lineno, op)
        tb = tb.tb_next
    if op is None:
        raise exc
    msg = exc.message if isinstance(exc, OpError) else str(exc)
    where = ""
    if op.user_frame is not None:
        fn, line, func = op.user_frame
        where = f"\n\nDetected at node '{op.name}' defined at (most recent call last):\n  File \"{fn}\", line {line}, in {func}"
    cls = type(exc) if isinstance(exc, OpError) else ResourceExhaustedError if isinstance(exc, MemoryError) \
        else InvalidArgumentError
    err = cls(None, op, f"Graph execution error:{where}\n\n{msg}\n\t [[{{{{node {op.name}}}}}]]")
    raise err.with_traceback(None) from None


def run_reference(graph, inputs, outputs, values):
    """The reference interpreter: same semantics as compile_graph, one dict lookup per edge."""
    env = {id(t): v for t, v in zip(inputs, values)}
    for op in needed_ops(graph, outputs):
        if op.type == "Placeholder":
            continue
        if op.type == "Const":
            env[id(op.outputs[0])] = op.attrs["value"]
            continue
        out = op.opdef.kernel(*[env[id(t)] for t in op.inputs], **op.attrs)
        if op.opdef.num_outputs == 1:
            env[id(op.outputs[0])] = out
        else:
            for t, o in zip(op.outputs, out):
                env[id(t)] = o
    return tuple(env[id(t)] for t in outputs)


