"""Fuzzing of SavedModels written by TensorFlow (saved_model.pb + the variables/ bundle), loaded with
tf.saved_model.load and served with the fixture's inputs.

Bases: the TensorFlow 2.21 fixtures of tests/tf_savedmodel (control_flow: a variable, a While and an If;
captures: constants held by the object graph; keras_mlp: a Keras model's many functions; rnn: Keras LSTM and
GRU layers, While loops over TensorLists), with every node of their functions renamed to hold the harness's
CANARY, so a node name pasted into generated code is caught. Each load also traces every saved function.
Mutations of saved_model.pb: raw bytes; one field of one message (a NodeDef, an AttrValue, a FunctionDef's
signature, an object-graph node, a concrete function, a SignatureDef ...) set to an interesting value, to
another name from the file (a function calling itself, a node reading another), dropped or duplicated; that
message's bytes mutated and parsed back; a node turned into another op the importer converts; an attr given
another attr's value. Mutations of variables/: raw bytes of the index or data file.

A bad model may raise the loader's documented errors: SavedModelError (a DataLossError; InvalidGraphError,
also an InvalidArgumentError, where TensorFlow refuses the graph), NotFoundError for an op rivulet lacks,
UnimplementedError for one it cannot run that way; running it, the ops' own tf.errors. Serving gets SERVE_CPU_S
of CPU time: a mutated loop bound (a range from -2**31) asks for billions of iterations, which TensorFlow would
run too (LongRun); loading itself has the harness's whole time limit.
"""
import os
import shutil
import signal

import numpy as np
import pytest

from rivulet.errors import OpError
from tests.fuzz.harness import CANARY, FuzzTarget, fuzz_cases, mutate_bytes, run_fuzz

SEED = 20261125
SERVE_CPU_S = 2.0
FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tf_savedmodel", "fixtures")
_BASE = {}  # fixture name -> its renamed saved_model.pb bytes; ("warm", name) once loaded in this process
_INTERESTING = [0, 1, 2, 3, 7, 10, 20, 21, 23, 24, 99, 127, 128, 255, 2 ** 16, 2 ** 31 - 1, 2 ** 32, 2 ** 40,
                2 ** 63 - 1]
_SIGNED = [-1, -2, -(2 ** 31), -(2 ** 63)]
_FLOATS = [0.0, -1.0, 1e30, float("inf"), float("-inf"), float("nan")]


# ---- bases ------------------------------------------------------------------------------------------------------

def _canary_names(sm):
    """Every function node renamed to hold CANARY (references follow), as test_hostile's names-are-data test."""
    for f in sm.meta_graphs[0].graph_def.library.function:
        new = {n.name: f"{CANARY}_{n.name}" for n in f.node_def}

        def ref(r):
            bang = r.startswith("^")
            name, _, rest = r.lstrip("^").partition(":")
            name = new.get(name, name)
            return ("^" if bang else "") + name + (":" + rest if rest else "")
        for n in f.node_def:
            n.name = new[n.name]
            n.input[:] = [ref(r) for r in n.input]
        for k in list(f.ret):
            f.ret[k] = ref(f.ret[k])
        for k in list(f.control_ret):
            f.control_ret[k] = new.get(f.control_ret[k], f.control_ret[k])
    return sm


def _base(name):
    if name not in _BASE:
        from rivulet.saved_model.tf_import import proto
        with open(os.path.join(FIXTURES, name, "saved_model.pb"), "rb") as f:
            _BASE[name] = _canary_names(proto.read_saved_model(f.read())).SerializeToString()
    return _BASE[name]


def _inputs(name):
    with np.load(os.path.join(FIXTURES, name + ".io.npz")) as f:
        return {k[3:]: f[k] for k in f.files if k.startswith("in_")}


# ---- mutations of saved_model.pb ----------------------------------------------------------------------------------

def _pick(rng, seq):
    return seq[int(rng.integers(0, len(seq)))]


def _messages(mg):
    """The messages of a MetaGraphDef a mutation may target."""
    out = [mg.object_graph_def, mg.meta_info_def]
    for f in mg.graph_def.library.function:
        out += [f, f.signature] + list(f.node_def) + [v for n in f.node_def for v in _values(n.attr)]
    out += list(mg.graph_def.node) + list(mg.object_graph_def.nodes)
    return out + _values(mg.object_graph_def.concrete_functions) + _values(mg.signature_def)


def _values(pb_map):
    """A protobuf map's values in key order (its own order may change from one process to the next, and a
    case must replay alone)."""
    return [pb_map[k] for k in sorted(pb_map)]


def _names(mg):
    """Strings a mutated field may be set to: names and references found in the file."""
    names = {"", "x", "serving_default", "a:b:c", "^x", ":0"}
    for f in mg.graph_def.library.function:
        names.add(f.signature.name)
        names.update(a.name for a in f.signature.input_arg)
        for n in f.node_def:
            names.update([n.name, n.op, f"{n.name}:output:0"] + list(n.input))
    return sorted(names)


def _tweak(rng, msg, names, depth=0):
    """One field of `msg` (or of a message inside it) changed; False where nothing could be."""
    fields = msg.ListFields()
    if not fields:
        return False
    fd, value = _pick(rng, fields)
    if fd.message_type is not None and fd.message_type.GetOptions().map_entry:  # a map: drop or change one entry
        keys = sorted(value)
        key = _pick(rng, keys)
        if rng.random() < 0.3:
            del value[key]
            return True
        v = value[key]
        if hasattr(v, "ListFields"):
            return _tweak(rng, v, names, depth + 1)
        value[key] = _pick(rng, names) if isinstance(v, str) else _pick(rng, _INTERESTING) & 0x7FFFFFFF
        return True
    if _repeated(fd):
        if not len(value):
            return False
        i = int(rng.integers(0, len(value)))
        what = rng.random()
        if what < 0.25:
            del value[i]
            return True
        if what < 0.45:
            if fd.message_type is not None:
                value.add().CopyFrom(value[i])
            else:
                value.append(value[i])
            return True
        if fd.message_type is not None:
            return _tweak(rng, value[i], names, depth + 1)
        return _set(rng, fd, lambda v: value.__setitem__(i, v), names)
    if fd.message_type is not None:
        if rng.random() < 0.15 or depth > 8:
            msg.ClearField(fd.name)
            return True
        return _tweak(rng, value, names, depth + 1)
    return _set(rng, fd, lambda v: setattr(msg, fd.name, v), names)


def _repeated(fd):
    repeated = getattr(fd, "is_repeated", None)  # protobuf 6+; `label` before
    return repeated if repeated is not None else fd.label == fd.LABEL_REPEATED


def _set(rng, fd, assign, names):
    t = fd.cpp_type
    if t == fd.CPPTYPE_STRING:
        v = _pick(rng, names)
        candidates = [v.encode() if fd.type == fd.TYPE_BYTES else v]
    elif t == fd.CPPTYPE_BOOL:
        candidates = [bool(rng.integers(0, 2))]
    elif t in (fd.CPPTYPE_FLOAT, fd.CPPTYPE_DOUBLE):
        candidates = [_pick(rng, _FLOATS)]
    else:  # ints and enums (open enums take any int32)
        candidates = [_pick(rng, _INTERESTING + _SIGNED), _pick(rng, _INTERESTING[:14])]
    for v in candidates:
        try:
            assign(v)
            return True
        except (ValueError, TypeError):  # out of the field's range
            continue
    return False


def _mutate_pb(rng, data):
    from rivulet.saved_model.tf_import import proto
    if rng.random() < 0.2:
        return mutate_bytes(rng, data)
    sm = proto.read_saved_model(data)
    mg = sm.meta_graphs[0]
    messages = _messages(mg)
    nodes = [n for f in mg.graph_def.library.function for n in f.node_def]
    attrs = [v for n in nodes for v in _values(n.attr)]
    for _ in range(int(rng.integers(1, 4))):
        msg, what = _pick(rng, messages), rng.random()
        if what < 0.1:  # a node of another op (its inputs and attrs kept)
            _pick(rng, nodes).op = _pick(rng, _ops())
        elif what < 0.2:  # an attr holding another attr's value (another kind, dtype, list length ...)
            _pick(rng, attrs).CopyFrom(_pick(rng, attrs))
        elif what < 0.4:  # the message's own bytes, parsed back where they still parse
            new = type(msg)()
            try:
                new.ParseFromString(mutate_bytes(rng, msg.SerializeToString(), int(rng.integers(1, 4))))
            except Exception:  # noqa: BLE001 - protobuf's DecodeError (and RuntimeWarnings of upb)
                continue
            msg.CopyFrom(new)
        else:
            _tweak(rng, msg, _names(mg))
    return sm.SerializeToString()


def _ops():
    """The TensorFlow ops the importer converts (a node may be turned into any of them)."""
    if "ops" not in _BASE:
        from rivulet.saved_model.tf_import.convert import CONVERTERS
        _BASE["ops"] = sorted(CONVERTERS)
    return _BASE["ops"]


class LongRun(Exception):
    """Serving ran past SERVE_CPU_S: the model asks for that much work."""


def _long_run(*_):
    raise LongRun(f"serving ran past {SERVE_CPU_S} s of CPU time")


# ---- targets ----------------------------------------------------------------------------------------------------

def _warm(name):
    """Loads the base and a broken copy once per process, so that what a load imports lazily is imported
    before the audited loads (importing reads .pyc files with marshal)."""
    key = ("warm", name)
    if key not in _BASE:
        import tempfile
        from rivulet.saved_model import SavedModelError
        with tempfile.TemporaryDirectory() as d:
            _load(name)(_copy(name, d, _base(name)))
            try:
                _load(name)(_copy(name, d, _base(name)[:-7]))
            except SavedModelError:
                pass
        _BASE[key] = True


def _copy(name, case_dir, pb, variables=None):
    d = os.path.join(case_dir, "m")
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(os.path.join(FIXTURES, name), d)
    with open(os.path.join(d, "saved_model.pb"), "wb") as f:
        f.write(pb)
    if variables is not None:
        file, data = variables
        with open(os.path.join(d, "variables", file), "wb") as f:
            f.write(data)
    return d


def _build(name, part):
    def build(rng, case_dir):
        _warm(name)
        if part == "pb":
            return _copy(name, case_dir, _mutate_pb(rng, _base(name)))
        file = _pick(rng, ["variables.index", "variables.data-00000-of-00001"])
        with open(os.path.join(FIXTURES, name, "variables", file), "rb") as f:
            return _copy(name, case_dir, _base(name), (file, mutate_bytes(rng, f.read())))
    return build


def _load(name):
    inputs = _inputs(name)

    def load(path):
        import rivulet as tf
        from rivulet.saved_model.restore import restored_functions
        m = tf.saved_model.load(path)
        for _, fn in restored_functions(m):  # the other functions are traced when first used: now
            for cf in fn.concrete_functions:
                cf.structured_input_signature
        sig = m.signatures.get("serving_default")
        if sig is None:  # a renamed signature: there is nothing to serve
            return None
        _, specs = sig.structured_input_signature
        if sorted(specs) != sorted(inputs) or any(  # another signature than the inputs fit: not served
                specs[k].dtype != tf.as_dtype(v.dtype) or not specs[k].shape.is_compatible_with(v.shape)
                for k, v in inputs.items()):
            return None
        args = {k: tf.constant(v) for k, v in inputs.items()}
        previous = signal.signal(signal.SIGVTALRM, _long_run)
        signal.setitimer(signal.ITIMER_VIRTUAL, SERVE_CPU_S)
        try:
            out = sig(**args)
            return [v.numpy() for v in tf.nest.flatten(out) if isinstance(v, tf.Tensor)]
        finally:
            signal.setitimer(signal.ITIMER_VIRTUAL, 0)
            signal.signal(signal.SIGVTALRM, previous)
    return load


TARGETS = [FuzzTarget(name=f"tf-savedmodel-{name}-{part}", build=_build(name, part), load=_load(name),
                      allowed=(OpError, LongRun))
           for name, part in [("control_flow", "pb"), ("captures", "pb"), ("keras_mlp", "pb"), ("rnn", "pb"),
                              ("control_flow", "variables")]]


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.name)
def test_fuzz(target):
    report = run_fuzz(target, n=fuzz_cases(150), seed=SEED)
    print(report.summary())  # the outcome counts, shown with -s
    assert not report.failures, report.summary()


@pytest.mark.parametrize("name", ["control_flow", "captures", "keras_mlp", "rnn"])
def test_bases_serve_as_tensorflow(tmp_path, name):
    """The renamed bases load and serve what TensorFlow served (the fuzzing starts from working models)."""
    out = _load(name)(_copy(name, str(tmp_path), _base(name)))
    with np.load(os.path.join(FIXTURES, name + ".io.npz")) as f:
        want = [f[k] for k in sorted(f.files) if k.startswith("out_")]
    assert len(out) == len(want)
    for got, w in zip(out, want):
        np.testing.assert_allclose(got, w, rtol=1e-4, atol=1e-6)
