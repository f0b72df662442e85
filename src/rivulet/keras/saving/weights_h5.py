"""Keras 2.13+'s weights layout (`model.weights.h5` inside a .keras zip, and `*.weights.h5` files), through
h5py (an optional extra: `pip install h5py`, or `pip install rivulet[h5]`).

Each object's own variables are datasets "0", "1" ... in a group `PATH/vars`; PATH follows the objects:
a model's `layers` (each named by its class in snake case, numbered when repeated: dense, dense_1), a
plain layer's sublayers by attribute name (lists by class name again), and `optimizer` (iterations, then
slots).
"""
import contextlib
import os
import warnings

import numpy as np

from ..layers.base import Layer


def require_h5py(what):
    try:
        import h5py
    except ImportError:
        raise ImportError(f"{what} needs h5py, which is not installed: `pip install h5py` (or "
                          "`pip install rivulet[h5]`). Without it, save in TensorFlow's checkpoint format: "
                          "`model.save_weights('path/ckpt')`.") from None
    return h5py


def _snake(name):
    from ..backend import to_snake_case
    return to_snake_case(name)


def _own_variables(obj):
    from ..optimizers import Optimizer
    if isinstance(obj, Optimizer):
        return list(obj.variables)
    if isinstance(obj, Layer):
        out = list(obj._trainable_weights) + list(obj._non_trainable_weights)
        seen = {id(v) for v in out}
        for key, value in obj.__dict__.items():
            if key not in obj._UNTRACKED and _is_variable(value) and id(value) not in seen:
                seen.add(id(value))
                out.append(value)
        return out
    return []


def _is_variable(v):
    from ...state.variables import Variable
    return isinstance(v, Variable)


def _is_model(obj):
    from ..models import Model
    return isinstance(obj, Model)


def variable_paths(model, with_optimizer=True):
    """{group path: [variables]} for everything a model saves, in Keras's order."""
    out, visited = {}, set()

    def walk(obj, path):
        if id(obj) in visited:
            return
        visited.add(id(obj))
        out[(path + "/vars").lstrip("/")] = _own_variables(obj)
        if not isinstance(obj, Layer):
            return
        if _is_model(obj):  # a model's sublayers, as `model.layers` lists them; plain layers' by attribute
            container(obj.layers, path + "/layers")
        else:
            for name in sorted(obj.__dict__):
                value = obj.__dict__[name]
                if name in obj._UNTRACKED or name.startswith("__") or name in ("_inbound", "_keras_input"):
                    continue
                if isinstance(value, Layer):
                    walk(value, f"{path}/{name}")
                elif isinstance(value, (list, tuple)) and any(isinstance(v, Layer) for v in value):
                    container(value, f"{path}/{name}")
                elif isinstance(value, dict) and any(isinstance(v, Layer) for v in value.values()):
                    container(list(value.values()), f"{path}/{name}")

    def container(items, path):
        used = {}
        for item in items:
            if not isinstance(item, Layer):
                continue
            name = _snake(type(item).__name__)
            if name in used:
                used[name] += 1
                name = f"{name}_{used[name]}"
            else:
                used[name] = 0
            walk(item, f"{path}/{name}")
    walk(model, "")
    opt = getattr(model, "optimizer", None)
    if with_optimizer and opt is not None and hasattr(opt, "variables"):
        walk(opt, "/optimizer")
    return out


def save_weights_h5(model, target):
    """Writes the model's (and its optimizer's) variables to `target` (a path or file object)."""
    h5py = require_h5py("Saving weights in the .weights.h5 format")
    with h5py.File(target, "w") as f:
        for path, variables in variable_paths(model).items():
            group = f.require_group(path)
            for i, v in enumerate(variables):
                group.create_dataset(str(i), data=v.numpy())


def size_limit(model):
    """The most bytes a weights file for `model` can need: 8 bytes an element for each variable and three
    optimizer slots of it, plus room for HDF5's metadata. A larger .keras member is not this model's weights."""
    variables = {id(v): v for vs in variable_paths(model).values() for v in vs}.values()
    elements = sum(max(1, int(np.prod(v.shape))) for v in variables)
    return 32 * elements + (1 << 20) + (64 << 10) * len(variables)


def load_weights_h5(model, source, skip_optimizer=False, where=None):
    """Assigns the variables saved in `source` (a path or file object; `where` names it in errors). Every
    dataset is checked against the variable it goes to (shape, numeric dtype, plain storage inside the file)
    before any is read; a mismatch raises ValueError and nothing is assigned."""
    h5py = require_h5py("Loading weights from the .weights.h5 format")
    where = where or (source if isinstance(source, str) else "the weights file")
    if isinstance(source, str) and os.path.exists(source) and not os.path.isfile(source):
        raise OSError(f"Unable to open {source}: not a regular file")
    with _corrupt_as_oserror(where), h5py.File(source, "r") as f:
        if not skip_optimizer and getattr(model, "optimizer", None) is not None and \
                _group_len(_resolve(h5py, f, "optimizer/vars", where)) > 1:
            model.optimizer._create_slots(model.trainable_variables)
        plan = []
        for path, variables in variable_paths(model, not skip_optimizer).items():
            group = _resolve(h5py, f, path, where)
            stored = _group_len(group)
            if path.startswith("optimizer") and stored != len(variables):
                # an optimizer of another kind or not yet used keeps its state, with tf_keras's warning
                warnings.warn(f"Skipping variable loading for optimizer '{model.optimizer.name}', because it has "
                              f"{len(variables)} variables whereas the saved optimizer has {stored} variables.",
                              stacklevel=3)
                continue
            if stored != len(variables):
                raise ValueError(f"Layer '{path.rsplit('/vars', 1)[0] or model.name}' expected {len(variables)} "
                                 f"variables, but received {stored} variables during loading. "
                                 f"Expected: {[v.name for v in variables]}")
            for i, v in enumerate(variables):
                ds = _resolve(h5py, f, f"{path}/{i}", where)
                what = f"{where}: dataset {path}/{i} (variable {v.name})"
                _check_dataset(h5py, ds, v, what)
                plan.append((v, ds, what))
        values = [(v, _cast(np.asarray(ds[()]), v, what)) for v, ds, what in plan]
    for v, value in values:
        v.assign(value)


@contextlib.contextmanager
def _corrupt_as_oserror(where):
    """h5py reports some damage in a file it opened as RuntimeError or KeyError; h5py's own type for a file
    it cannot read is OSError, which is what tf_keras's users see for a damaged file."""
    try:
        yield
    except (RuntimeError, KeyError) as e:
        raise OSError(f"{where} is damaged: {e}") from None


def _resolve(h5py, f, path, where):
    """The object at `path`, following hard links and soft links within the file only; None if it is missing.
    External links and soft links that do not resolve (dangling, or a cycle) are refused."""
    node = f
    for part in path.split("/"):
        if not isinstance(node, h5py.Group):
            return None
        link = node.get(part, getlink=True)
        if link is None:
            return None
        if isinstance(link, h5py.ExternalLink):
            raise ValueError(f"{where}: {path} goes through an external link (to {link.filename!r}): a weights "
                             "file must hold its own data")
        try:
            node = node[part]
        except (KeyError, RuntimeError) as e:  # what h5py raises for a dangling or cyclic soft link
            if not isinstance(link, h5py.SoftLink):
                raise
            raise ValueError(f"{where}: {path} is a soft link to {link.path!r}, which does not resolve (dangling "
                             f"or cyclic): {e}") from None
    return node


def _group_len(group):
    from h5py import Group
    return len(group) if isinstance(group, Group) else 0


def _check_dataset(h5py, ds, v, what):
    if not isinstance(ds, h5py.Dataset):
        raise ValueError(f"{what} is missing from the weights file (or is not a dataset)")
    if ds.is_virtual or ds.external:
        raise ValueError(f"{what} keeps its data outside the weights file ("
                         f"{'a virtual dataset' if ds.is_virtual else 'external storage'}): refused")
    want = np.dtype(v.dtype.as_numpy_dtype)
    if ds.dtype.kind not in "biufc" or not np.can_cast(ds.dtype, want, "same_kind"):
        raise ValueError(f"{what}: the weights file holds dtype {ds.dtype}, which does not load into the "
                         f"variable's {want}")
    if ds.shape is None or tuple(ds.shape) != tuple(v.shape):
        raise ValueError(f"Shape mismatch in {what}: the variable's shape is {tuple(v.shape)}, the weights file "
                         f"holds shape {ds.shape}")


def _cast(value, v, what):
    """`value` as the variable's dtype; a value that the narrower dtype cannot hold is refused, not wrapped."""
    want = np.dtype(v.dtype.as_numpy_dtype)
    if value.dtype == want:
        return value
    with np.errstate(over="ignore", invalid="ignore"):
        out = value.astype(want)
    if value.dtype.kind in "biu" and want.kind in "biu" and not np.array_equal(out.astype(value.dtype), value) or \
            value.dtype.kind in "fc" and np.any(np.isinf(out) & np.isfinite(value)):
        raise ValueError(f"{what}: a value in the weights file ({value.dtype}) is out of range for the "
                         f"variable's {want}")
    return out
