"""tf.map_fn: `fn` applied to each element (row) of `elems`, the results stacked.

Eagerly the rows are visited in a Python loop; while tracing, in a `tf.while_loop` whose results gather in
TensorArrays, as TensorFlow builds it. `elems` may be nested and hold RaggedTensors (each row of one reaches `fn`
as a tensor, or a RaggedTensor of one ragged dimension fewer); `fn_output_signature` (a DType, tf.TensorSpec or
tf.RaggedTensorSpec, or a structure of them; default: the signature of an element of `elems`) says what `fn`
returns. A RaggedTensorSpec result is stacked into a RaggedTensor of one more ragged dimension.

Gradients flow through the eager loop, and inside tf.function through the While loop and its TensorArrays (the
TensorList ops' gradients, carried backwards as gradient lists by the While gradient).

RaggedTensor sits above this layer: its values and specs are used through their own methods (`nrows`,
`flat_values`, `nested_row_lengths`, the spec's `value_type`), never imported."""
import numpy as np

from .. import dtypes as _dt, nest
from ..core import context
from ..core.tensor import Tensor, convert_to_tensor
from ..errors import InvalidArgumentError
from ..ops import array_ops as _a, math_ops as _m
from ..ops.tensor_array_ops import TensorArray
from ..shape import TensorShape, TensorSpec
from .control_flow import while_loop


def _is_ragged(x):
    return getattr(type(x), "_composite_kind", None) == "ragged"


def _is_ragged_spec(s):
    return hasattr(s, "ragged_rank") and hasattr(s, "value_type") and not isinstance(s, TensorSpec)


def _element_spec(e):
    """The signature of one row of `e` (a tensor or a RaggedTensor)."""
    if _is_ragged(e):
        spec = e.__tf_tracing_type__(None)
        return type(spec)(e.shape[1:], e.dtype, e.ragged_rank - 1)
    return TensorSpec(e.shape[1:], e.dtype)


def _normalize_spec(s):
    if isinstance(s, TensorSpec) or _is_ragged_spec(s):
        return s
    try:
        return TensorSpec(None, _dt.as_dtype(s))
    except (TypeError, ValueError):
        raise TypeError(f"fn_output_signature must be a DType, tf.TensorSpec or tf.RaggedTensorSpec (or a "
                        f"structure of them), got {s!r}") from None


def _row(e, i):
    return e[i] if _is_ragged(e) else _a.gather(e, i)


def _nrows(e):
    """(static number of rows or None, the number as an int32 scalar tensor)."""
    if _is_ragged(e):
        return e.shape[0], _m.cast(e.nrows(), _dt.int32)
    return e.shape[0], _a.shape(e, out_type=_dt.int32)[0]


def _check_dtype(value, spec):
    if spec.dtype is not None and value.dtype != spec.dtype:
        raise InvalidArgumentError(f"TensorArray dtype is {spec.dtype.name} but Op is trying to write dtype "
                                   f"{value.dtype.name} ")


def _as_output(value, spec):
    """fn's result for one row, checked against its spec: a tensor, or (for a RaggedTensorSpec) the parts a
    stacked RaggedTensor takes from it: (number of rows, [row lengths per ragged dimension], flat values)."""
    if not _is_ragged_spec(spec):
        if _is_ragged(value):
            raise TypeError(f"fn returned a RaggedTensor where fn_output_signature expects a tensor ({spec}); "
                            f"give fn_output_signature=tf.RaggedTensorSpec(...)")
        t = value if isinstance(value, Tensor) else convert_to_tensor(value, dtype=spec.dtype)
        _check_dtype(t, spec)
        return t
    r = spec.ragged_rank
    if _is_ragged(value):
        if value.ragged_rank != r:
            raise ValueError(f"fn returned a RaggedTensor of ragged_rank {value.ragged_rank}; "
                             f"fn_output_signature {spec} expects ragged_rank {r}")
        lengths, flat = list(value.nested_row_lengths()), value.flat_values
        n = value.nrows()
    else:
        t = value if isinstance(value, Tensor) else convert_to_tensor(value, dtype=spec.dtype)
        if r:
            rt = spec.value_type.from_tensor(t, ragged_rank=r)
            lengths, flat, n = list(rt.nested_row_lengths()), rt.flat_values, rt.nrows()
        else:
            if t.shape.rank == 0:
                raise ValueError("fn_output_signature is a RaggedTensorSpec but fn returned a scalar")
            lengths, flat, n = [], t, _a.shape(t, out_type=_dt.int64)[0]
    _check_dtype(flat, spec)
    return _m.cast(n, _dt.int64), lengths, flat


def _py(shape):
    return "<unknown>" if shape.rank is None else str(tuple(shape.as_list()))


def _stack_ragged(spec, nrows, lengths, flats):
    """The RaggedTensor whose row i is the i-th result: row lengths, then each ragged dimension's lengths."""
    return spec.value_type.from_nested_row_lengths(flats, [nrows] + list(lengths), validate=False)


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False,
           infer_shape=True, name=None, fn_output_signature=None):
    """tf.map_fn(fn, elems, fn_output_signature=None)."""
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {fn!r}")
    if fn_output_signature is None:
        fn_output_signature = dtype
    if any(_is_extension(x) for x in nest.flatten(elems)) or (fn_output_signature is not None and any(
            _is_extension_spec(x) for x in nest.flatten(fn_output_signature))):
        return _map_extension(fn, elems, fn_output_signature, name)
    flat = [e if _is_ragged(e) else convert_to_tensor(e) for e in nest.flatten(elems)]
    if not flat:
        raise ValueError("elems must be a Tensor or (possibly nested) sequence of Tensors. Got []")
    for e in flat:
        if e.shape.rank == 0:
            raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
    static_n, n = _nrows(flat[0])
    for e in flat[1:]:
        k = _nrows(e)[0]
        if static_n is not None and k is not None and k != static_n:
            raise ValueError(f"Dimensions {static_n} and {k} are not compatible")
        static_n = static_n if static_n is not None else k
    if fn_output_signature is None:
        out_sig = nest.pack_sequence_as(elems, [_element_spec(e) for e in flat]) if nest.is_nested(elems) \
            else _element_spec(flat[0])
    else:
        out_sig = nest.map_structure(_normalize_spec, fn_output_signature)
    specs = nest.flatten(out_sig)

    # In a graph the rows of a tensor are read from a TensorArray unstacked from it, as TensorFlow does: the
    # gradient of each read is one item of a gradient list (not a dense scatter into zeros per row).
    readers = [(lambda i, e=e: _row(e, i)) if _is_ragged(e) or e.shape.rank is None or
               context.current_graph() is None else
               TensorArray(e.dtype, size=n, element_shape=e.shape[1:]).unstack(e).read for e in flat]

    def element(i):
        rows = [read(i) for read in readers]
        return nest.pack_sequence_as(elems, rows) if nest.is_nested(elems) else rows[0]

    def outputs(i):
        result = fn(element(i))
        try:
            nest.assert_same_structure(out_sig, result, check_types=False)
        except (ValueError, TypeError) as err:
            raise TypeError(f"The structure of fn's result does not match fn_output_signature: {err}") from None
        return [_as_output(v, s) for v, s in zip(nest.flatten(result), specs)]

    if context.current_graph() is None:
        n_eager = int(np.asarray(n.numpy()))
        rows = [outputs(i) for i in range(n_eager)]
        results = []
        for k, spec in enumerate(specs):
            got = [r[k] for r in rows]
            if _is_ragged_spec(spec):
                if not got:
                    flat_shape = [0] + [d or 0 for d in spec.shape.as_list()[spec.ragged_rank + 1:]] \
                        if spec.shape.rank is not None else [0]
                    results.append(_stack_ragged(spec, _a.zeros([0], _dt.int64),
                                                 [_a.zeros([0], _dt.int64)] * spec.ragged_rank,
                                                 _a.zeros(flat_shape, spec.dtype)))
                    continue
                results.append(_stack_ragged(spec, _a.stack([g[0] for g in got]),
                                             [_a.concat([g[1][j] for g in got], 0) for j in range(spec.ragged_rank)],
                                             _a.concat([g[2] for g in got], 0)))
            elif got:
                first = got[0].shape
                for g in got[1:]:  # TensorFlow's TensorArray refuses rows of another shape
                    if not g.shape.is_compatible_with(first):
                        raise ValueError(f"Incompatible shape for value ({_py(g.shape)}), expected ({_py(first)})")
                results.append(_a.stack(got))
            else:
                shape = [0] + ([d or 0 for d in spec.shape.as_list()] if spec.shape.rank is not None else [])
                results.append(_a.zeros(shape, spec.dtype))
        return nest.pack_sequence_as(out_sig, results)
    return _map_graph(outputs, n, out_sig, specs, name)


def _map_graph(outputs, n, out_sig, specs, name):
    """The loop as a tf.while_loop writing each row's results into TensorArrays."""
    arrays = []
    for spec in specs:
        if _is_ragged_spec(spec):
            arrays.append([TensorArray(_dt.int64, size=n, element_shape=TensorShape([]))] +
                          [TensorArray(_dt.int64, size=n, infer_shape=False) for _ in range(spec.ragged_rank)] +
                          [TensorArray(spec.dtype, size=n, infer_shape=False)])
        else:
            arrays.append([TensorArray(spec.dtype, size=n, element_shape=spec.shape)])
    tas = [ta for group in arrays for ta in group]

    def body(i, *tas):
        got = outputs(i)
        out, k = [], 0
        for value, spec in zip(got, specs):
            if _is_ragged_spec(spec):
                nrows, lengths, flat = value
                for v in [nrows] + lengths + [flat]:
                    out.append(tas[k].write(i, v))
                    k += 1
            else:
                out.append(tas[k].write(i, value))
                k += 1
        return [_m.add(i, 1)] + out

    result = while_loop(lambda i, *_: _m.less(i, n), body, [convert_to_tensor(0)] + tas,
                        name=name or "map")
    tas = result[1:]
    results, k = [], 0
    for spec in specs:
        if _is_ragged_spec(spec):
            parts = tas[k:k + spec.ragged_rank + 2]
            k += spec.ragged_rank + 2
            results.append(_stack_ragged(spec, parts[0].stack(), [p.concat() for p in parts[1:-1]],
                                         parts[-1].concat()))
        else:
            results.append(tas[k].stack())
            k += 1
    return nest.pack_sequence_as(out_sig, results)


# -- tf.experimental.BatchableExtensionType elements and results: mapped as their component tensors ------------


def _is_extension(x):
    return hasattr(type(x), "_tf_extension_type_fields") and hasattr(x, "_to_components") and \
        not hasattr(x, "_component_specs")


def _is_extension_spec(s):
    return hasattr(type(s), "_tf_extension_type_fields") and hasattr(s, "_component_specs")


def _unbatch(spec):
    if not hasattr(spec, "_unbatch"):
        raise TypeError(f"tf.map_fn maps over the rows of a tf.experimental.BatchableExtensionType, got a "
                        f"{spec.value_type.__name__}, which is not batchable.")
    return spec._unbatch()


def _map_extension(fn, elems, fn_output_signature, name):
    """map_fn over elems holding ExtensionTypes (each row: the value of the unbatched spec) or giving them
    (fn_output_signature: an ExtensionType's Spec of one row; by default the rows' own signature): the
    components are mapped, each result rebuilt by the batched spec."""
    from .control_flow import _collapsed, _expanded
    exp_elems, in_specs = _expanded(elems)
    row_specs = None if in_specs is None else [None if s is None else _unbatch(s) for s in in_specs]
    if fn_output_signature is None:
        leaves = nest.flatten(elems)
        out_sig = [rs if rs is not None else _element_spec(convert_to_tensor(x) if not _is_ragged(x) else x)
                   for x, rs in zip(leaves, row_specs)]
        out_sig = nest.pack_sequence_as(elems, out_sig) if nest.is_nested(elems) else out_sig[0]
    else:
        out_sig = fn_output_signature
    sig_leaves = nest.flatten(out_sig)
    exp_sig = [list(x._component_specs) if _is_extension_spec(x) else x for x in sig_leaves]
    exp_sig = nest.pack_sequence_as(out_sig, exp_sig) if nest.is_nested(out_sig) else exp_sig[0]

    def mapped(row):
        value = _collapsed(elems, row, row_specs) if row_specs is not None else row
        result = fn(value)
        res_exp, _ = _expanded(result)
        return res_exp

    out = map_fn(mapped, exp_elems, fn_output_signature=exp_sig, name=name)
    firsts = [c for c in nest.flatten(out)]
    n = firsts[0].shape[0] if firsts and firsts[0].shape.rank else None
    specs = [x._batch(n) if _is_extension_spec(x) else None for x in sig_leaves]
    return _collapsed(out_sig, out, specs)
