"""Keras 2.13+'s weights layout (`model.weights.h5` inside a .keras zip, and `*.weights.h5` files), through
h5py (an optional extra: `pip install h5py`, or `pip install rivulet[h5]`).

Each object's own variables are datasets "0", "1" ... in a group `PATH/vars`; PATH follows the objects:
a model's `layers` (each named by its class in snake case, numbered when repeated: dense, dense_1), a
plain layer's sublayers by attribute name (lists by class name again), and `optimizer` (iterations, then
slots).
"""
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


def load_weights_h5(model, source, skip_optimizer=False):
    """Assigns the variables saved in `source`; a layer whose variable count or shapes differ raises
    ValueError before anything is assigned. Datasets are read as plain arrays (no object types)."""
    h5py = require_h5py("Loading weights from the .weights.h5 format")
    with h5py.File(source, "r") as f:
        if not skip_optimizer and getattr(model, "optimizer", None) is not None and "optimizer/vars" in f and \
                len(f["optimizer/vars"]) > 1:
            model.optimizer._create_slots(model.trainable_variables)
        plan = []
        for path, variables in variable_paths(model, not skip_optimizer).items():
            group = f.get(path)
            stored = len(group) if isinstance(group, h5py.Group) else 0
            if path.startswith("optimizer") and stored != len(variables):
                continue  # an optimizer of another kind or not yet used: keep its state
            if stored != len(variables):
                raise ValueError(f"Layer '{path.rsplit('/vars', 1)[0] or model.name}' expected {len(variables)} "
                                 f"variables, but received {stored} variables during loading. "
                                 f"Expected: {[v.name for v in variables]}")
            for i, v in enumerate(variables):
                ds = group[str(i)]
                if not isinstance(ds, h5py.Dataset) or ds.dtype.kind not in "biufc":
                    raise ValueError(f"{path}/{i} in the weights file is not a numeric array")
                value = np.asarray(ds[()])
                if tuple(value.shape) != tuple(v.shape):
                    raise ValueError(f"Shape mismatch in {path}/{i} for {v.name}: the file has {value.shape}, the "
                                     f"model {tuple(v.shape)}")
                plan.append((v, value))
        for v, value in plan:
            v.assign(value.astype(v.dtype.as_numpy_dtype, copy=False))
