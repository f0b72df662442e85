"""Damaged or hostile saved-model directories: load() raises only the documented errors (OSError when
there is no saved model, tf.errors.DataLossError naming the file otherwise), never runs anything."""
import io
import json
import os
import shutil
import tempfile
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import rivulet as tf
from rivulet.saved_model import SavedModelError

FILES = ["saved_model.json", "variables.npz", "tensors.npz"]
FUZZ = settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", 150)), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


class Model(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
        self.n = tf.Variable(2, trainable=False)

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    def __call__(self, x):
        y = tf.cond(tf.reduce_sum(x) > 0, lambda: tf.matmul(x, self.w), lambda: x * 2.0)
        _, y = tf.while_loop(lambda i, y: i < self.n, lambda i, y: (i + 1, y + 1.0), (tf.constant(0), y))
        return {"y": y, "label": tf.constant(["a", "b"])}


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("fuzz") / "model")
    m = Model()
    m(tf.constant([[1.0, 1.0]]))
    tf.saved_model.save(m, d)
    return d


def load_damaged(saved, damage):
    """Copies the model, applies damage(dir), loads: returns the loaded object or the documented error."""
    with tempfile.TemporaryDirectory() as tmp:
        d = os.path.join(tmp, "m")
        shutil.copytree(saved, d)
        damage(d)
        try:
            return tf.saved_model.load(d)
        except SavedModelError as e:
            assert isinstance(e, tf.errors.DataLossError)
            assert e.path.startswith(d) and os.path.basename(e.path) in FILES, e.path
            return e
        except OSError as e:
            assert "does not exist" in str(e)
            return e


def test_the_undamaged_model_loads(saved):
    m = load_damaged(saved, lambda d: None)
    np.testing.assert_array_equal(m(tf.constant([[1.0, 0.0]]))["y"].numpy(), [[3.0, 4.0]])


@FUZZ
@given(name=st.sampled_from(FILES), data=st.data())
def test_flipped_bytes(saved, name, data):
    size = os.path.getsize(os.path.join(saved, name))
    positions = data.draw(st.lists(st.integers(0, size - 1), min_size=1, max_size=4))
    values = data.draw(st.lists(st.integers(1, 255), min_size=len(positions), max_size=len(positions)))

    def damage(d):
        path = os.path.join(d, name)
        b = bytearray(open(path, "rb").read())
        for p, v in zip(positions, values):
            b[p] ^= v
        open(path, "wb").write(bytes(b))
    load_damaged(saved, damage)


@FUZZ
@given(name=st.sampled_from(FILES), fraction=st.floats(0, 1, exclude_max=True))
def test_truncated_files(saved, name, fraction):
    b = open(os.path.join(saved, name), "rb").read()
    keep = int(len(b) * fraction)

    def damage(d):
        open(os.path.join(d, name), "wb").write(b[:keep])
    result = load_damaged(saved, damage)
    assert isinstance(result, SavedModelError) or not b[keep:].strip()  # only the final newline went


@pytest.mark.parametrize("name", FILES)
def test_deleted_files(saved, name):
    err = load_damaged(saved, lambda d: os.remove(os.path.join(d, name)))
    assert isinstance(err, OSError if name == "saved_model.json" else SavedModelError)


def _paths(v, path=()):
    yield path
    if isinstance(v, dict):
        for k, x in v.items():
            yield from _paths(x, path + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from _paths(x, path + (i,))


TAGS = ["tuple", "list", "dict", "namedtuple", "float", "bytes", "dtype", "shape", "spec", "literal", "varspec",
        "tensor", "strings", "subgraph", "object", "out", "variable", "constant", "outer"]
HOSTILE = st.one_of(
    st.none(), st.booleans(), st.integers(-2 ** 70, 2 ** 70), st.floats(allow_nan=False), st.text(max_size=12),
    st.sampled_from(["../../etc/passwd", "/etc/passwd", "..", "NoSuchOp", "Placeholder", "Const", "If", "c0", "v0",
                     "g0", "g1", "x", "x:7", "^x", "float32", "resource", "string", "object", "POSITIONAL_ONLY",
                     "VAR_KEYWORD", "os:system", "rivulet.ops.control_flow_ops:SubGraph", "__class__"]),
    st.sampled_from([{"shape": [2 ** 40, 2 ** 40, 2 ** 40]}, {"shape": [-1]}, {"dtype": "object"},
                     {"tensor": "../../x"}, {"tensor": "v0"}, {"strings": {"shape": [10 ** 12], "items": []}},
                     {"object": ["os:system", {"x": 1}]}, {"subgraph": "g0"}, {"namedtuple": ["os", ["__x"], [1]]},
                     {"out": 99}, {"variable": 5}, {"outer": "nowhere"}, {"bytes": "!!"}]),
)
JSON = st.recursive(HOSTILE, lambda c: st.lists(c, max_size=3) | st.dictionaries(st.sampled_from(TAGS), c,
                                                                                  max_size=2), max_leaves=6)


@FUZZ
@given(data=st.data())
def test_hostile_json(saved, data):
    meta = json.load(open(os.path.join(saved, "saved_model.json")))
    paths = list(_paths(meta))
    edits = data.draw(st.lists(st.tuples(st.integers(0, len(paths) - 1), JSON), min_size=1, max_size=3))

    def damage(d):
        m = json.load(open(os.path.join(d, "saved_model.json")))
        for i, value in edits:
            path = paths[i]
            if not path:
                m = value
                continue
            target = m
            try:
                for k in path[:-1]:
                    target = target[k]
                target[path[-1]] = value
            except (KeyError, IndexError, TypeError):
                pass  # an earlier edit removed this place
        json.dump(m, open(os.path.join(d, "saved_model.json"), "w"))
    load_damaged(saved, damage)


def _edit_meta(fn):
    def damage(d):
        path = os.path.join(d, "saved_model.json")
        m = json.load(open(path))
        fn(m)
        json.dump(m, open(path, "w"))
    return damage


def _nodes(m):
    return [n for g in m["graphs"].values() for n in g["nodes"]]


@pytest.mark.parametrize("damage, problem", [
    (_edit_meta(lambda m: _nodes(m)[3].update(op="NoSuchOp")), "Op type not registered 'NoSuchOp'"),
    (_edit_meta(lambda m: _nodes(m)[0]["attrs"].update(shape={"shape": [2 ** 70]})), "bad dimension"),
    (_edit_meta(lambda m: m["variables"][0].update(value={"tensor": "../../../etc/passwd"})), "no tensor named"),
    (_edit_meta(lambda m: m.update(version=99)), "format version 99 is not supported"),
    (_edit_meta(lambda m: m.update(format="something else")), "not a rivulet saved model"),
    (_edit_meta(lambda m: _nodes(m)[1]["attrs"].update(x={"object": ["os:system", {}]})), "cannot be loaded"),
    (lambda d: open(os.path.join(d, "saved_model.json"), "w").write("[" * 100000), "not valid JSON"),
])
def test_hostile_edits_are_named(saved, damage, problem):
    err = load_damaged(saved, damage)
    assert isinstance(err, SavedModelError) and problem in str(err), str(err)


def _npz_member(name, payload):
    def damage(d):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as z:
            z.writestr(name, payload)
        open(os.path.join(d, "variables.npz"), "wb").write(buf.getvalue())
    return damage


def _npy(array, **header):
    buf = io.BytesIO()
    np.lib.format.write_array(buf, array, allow_pickle=True)
    raw = buf.getvalue()
    if header:  # rewrite the header's shape without the data that would go with it
        h = {"descr": np.lib.format.dtype_to_descr(array.dtype), "fortran_order": False, **header}
        out = io.BytesIO()
        np.lib.format.write_array_header_1_0(out, h)
        return out.getvalue() + raw[-array.nbytes:]
    return raw


@pytest.mark.parametrize("damage, problem", [
    (_npz_member("../../evil.npy", _npy(np.zeros(2))), "unexpected member"),
    (_npz_member("v0.npy", _npy(np.array([{"pickled": 1}], dtype=object))), "which a saved model never holds"),
    (_npz_member("v0.npy", _npy(np.zeros(2, np.float32), shape=(10 ** 12, 10 ** 6))), "header says"),
    (_npz_member("v0.npy", b"\x93NUMPY\x09\x00garbage"), "format version"),
])
def test_hostile_npz(saved, damage, problem):
    err = load_damaged(saved, damage)
    assert isinstance(err, SavedModelError) and problem in str(err) and err.path.endswith("variables.npz"), str(err)


def test_branches_sharing_one_library_graph_load_in_linear_time(tmp_path):
    """A hostile file whose nested conds all send both branches to the same library graph: each graph is
    rebuilt once per graph it is nested in, not once per reference (2**depth)."""
    import json
    import time

    def make(d):
        if d == 0:
            return lambda x: x + 1.0
        inner = make(d - 1)
        return lambda x: tf.cond(x > 0, lambda: inner(x), lambda: inner(-x))

    class M(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def f(self, x):
            return make(3)(x)
    path = str(tmp_path / "m")
    tf.saved_model.save(M(), path)
    meta_path = os.path.join(path, "saved_model.json")
    with open(meta_path) as f:
        meta = json.load(f)
    graphs = meta["graphs"]
    def subs(g):
        return [s["subgraph"] for n in g["nodes"] if n["op"] in ("If", "StatelessIf")
                for s in n["attrs"]["branches"]["object"][1]["subs"]["list"]]
    top = next(k for k, g in graphs.items() if subs(g))
    # the innermost cond (its branches are leaves): every link of the chain is a copy of it
    inner = next(k for k, g in graphs.items() if subs(g) and not any(subs(graphs[b]) for b in subs(g)))
    template = graphs[inner]
    leaf = subs(template)[0]
    depth = 24
    chain = [f"chain{i}" for i in range(depth)] + [leaf]
    for i in range(depth):
        g = json.loads(json.dumps(template))
        for n in g["nodes"]:
            if n["op"] in ("If", "StatelessIf"):
                for s in n["attrs"]["branches"]["object"][1]["subs"]["list"]:
                    s["subgraph"] = chain[i + 1]
        graphs[chain[i]] = g
    for k in subs(graphs[top]):  # the top function's branches now enter the chain
        for n in graphs[k]["nodes"]:
            if n["op"] in ("If", "StatelessIf"):
                for s in n["attrs"]["branches"]["object"][1]["subs"]["list"]:
                    s["subgraph"] = chain[0]
    with open(meta_path, "w") as f:
        json.dump(meta, f)
    t0 = time.monotonic()
    loaded = tf.saved_model.load(path)
    assert time.monotonic() - t0 < 30  # 2**24 rebuilds would never finish
    assert float(loaded.f(tf.constant(2.0))) == 3.0
