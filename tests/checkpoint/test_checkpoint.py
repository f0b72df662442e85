"""tf.train.Checkpoint, CheckpointManager and friends, against checkpoints TensorFlow 2.21 wrote
(tests/checkpoint/data: net = Checkpoint(net=Net(l1, b), step).write; nested = a Module with a list, a dict
with "/" and "." in a key, an alias and an empty submodule; keras_seq = tf_keras Sequential + Adam after
fit, Checkpoint(model, optimizer).write; keras_func = functional Dense/BatchNormalization save_weights).
TensorFlow 2.21 was also checked by hand to restore what these tests write (Module, Keras model + Adam
slots, string variables): values and optimizer state matched."""
import os

import numpy as np
import pytest

import rivulet as tf
from rivulet.errors import NotFoundError

keras = tf.keras
DATA = os.path.join(os.path.dirname(__file__), "data")


def data(name):
    return os.path.join(DATA, name)


def same_bytes(prefix_a, prefix_b):
    return all(open(prefix_a + s, "rb").read() == open(prefix_b + s, "rb").read()
               for s in (".index", ".data-00000-of-00001"))


class Net(tf.Module):
    def __init__(self):
        super().__init__()
        self.l1 = tf.Variable(tf.zeros([4, 2]), name="l1")
        self.b = tf.Variable(tf.ones([2]), name="b")


class Nested(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable([[0., 0.], [0., 0.]], name="w")
        self.empty = tf.Module()
        self.items = [tf.Variable(0., name="x"), {"a/b.c": tf.Variable([0, 0], dtype=tf.int32, name="y")}]
        self.alias = self.w
        self.flag = tf.Variable(False)


def test_restores_tensorflow_checkpoint_and_writes_identical_bytes(tmp_path):
    net, step = Net(), tf.Variable(0, dtype=tf.int64)
    ckpt = tf.train.Checkpoint(net=net, step=step)
    ckpt.read(data("net")).assert_consumed()
    with np.load(data("net.values.npz"), allow_pickle=False) as z:
        np.testing.assert_array_equal(net.l1.numpy(), z["l1"])
        np.testing.assert_array_equal(net.b.numpy(), z["b"])
    assert step.numpy() == 42
    assert ckpt.write(str(tmp_path / "net")) == str(tmp_path / "net")
    assert same_bytes(str(tmp_path / "net"), data("net"))  # TF's .index and .data, byte for byte


def test_nested_structures_aliases_and_escaped_names(tmp_path):
    m, s = Nested(), tf.Variable("")
    ckpt = tf.train.Checkpoint(mod=m, s=s)
    ckpt.read(data("nested")).assert_consumed()
    np.testing.assert_array_equal(m.w.numpy(), [[1, 2], [3, 4]])
    assert m.items[0].numpy() == 1.5 and m.items[1]["a/b.c"].numpy().tolist() == [2, 3]
    assert bool(m.flag.numpy()) and s.numpy() == b"hi"
    ckpt.write(str(tmp_path / "nested"))
    assert same_bytes(str(tmp_path / "nested"), data("nested"))
    assert "mod/items/1/a.Sb..c/.ATTRIBUTES/VARIABLE_VALUE" in dict(tf.train.list_variables(str(tmp_path / "nested")))


def _seq(input_shape=(4,)):
    kw = {"input_shape": input_shape} if input_shape else {}
    return keras.Sequential([keras.layers.Dense(3, activation="relu", **kw), keras.layers.Dense(2)])


def test_keras_model_and_adam_slots_from_tensorflow(tmp_path):
    z = np.load(data("keras_seq.values.npz"), allow_pickle=False)
    m = _seq()
    m.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
    status = tf.train.Checkpoint(model=m, optimizer=m.optimizer).read(data("keras_seq"))
    np.testing.assert_allclose(m.predict(z["x"], verbose=0), z["pred"], atol=1e-6)
    assert m.optimizer.iterations.numpy() == 4
    with pytest.raises(AssertionError, match=r"Unresolved object in checkpoint \(root\).optimizer"):
        status.assert_consumed()  # the slots do not exist until the first step...
    m.optimizer._create_slots(m.trainable_variables)  # ...which creates them and restores them (deferred)
    for i, v in enumerate(m.optimizer.variables):
        np.testing.assert_array_equal(v.numpy(), z[f"opt{i}"])
    status.assert_consumed()
    tf.train.Checkpoint(model=m, optimizer=m.optimizer).write(str(tmp_path / "k"))
    assert tf.train.list_variables(str(tmp_path / "k")) == tf.train.list_variables(data("keras_seq"))


def test_deferred_restoration_into_an_unbuilt_model():
    z = np.load(data("keras_seq.values.npz"), allow_pickle=False)
    m = _seq(input_shape=None)
    status = tf.train.Checkpoint(model=m).read(data("keras_seq"))
    assert m.weights == []
    with pytest.raises(AssertionError):
        status.assert_consumed()
    np.testing.assert_allclose(m(z["x"]).numpy(), z["pred"], atol=1e-6)  # built on this call, then restored
    status.expect_partial()


def test_functional_model_weights_from_tensorflow():
    z = np.load(data("keras_func.values.npz"), allow_pickle=False)
    inp = keras.Input((4,))
    h = keras.layers.Dense(3, name="d1")(inp)
    h = keras.layers.BatchNormalization(name="bn")(h)
    model = keras.Model(inp, keras.layers.Dense(1, name="d2")(h))
    tf.train.Checkpoint(root=model).read(data("keras_func")).assert_consumed()
    np.testing.assert_allclose(model.predict(z["x"], verbose=0), z["pred"], atol=1e-6)
    np.testing.assert_allclose(model.get_layer("bn").moving_mean.numpy(), [0.1, 0.2, 0.3])


def test_training_resumes_exactly(tmp_path):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((8, 4)).astype("f"), rng.standard_normal((8, 2)).astype("f")

    def make():
        m = _seq()
        m.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
        return m
    a = make()
    a.fit(x, y, epochs=2, batch_size=4, verbose=0, shuffle=False)
    tf.train.Checkpoint(model=a, optimizer=a.optimizer).save(str(tmp_path / "c"))
    a.fit(x, y, epochs=1, batch_size=4, verbose=0, shuffle=False)
    b = make()
    tf.train.Checkpoint(model=b, optimizer=b.optimizer).restore(tf.train.latest_checkpoint(str(tmp_path)))
    b.fit(x, y, epochs=1, batch_size=4, verbose=0, shuffle=False)
    for wa, wb in zip(a.weights, b.weights):
        np.testing.assert_allclose(wa.numpy(), wb.numpy(), rtol=1e-6)
    assert b.optimizer.iterations.numpy() == 6


def test_save_numbers_and_state_file(tmp_path):
    v = tf.Variable(1.0)
    ckpt = tf.train.Checkpoint(v=v)
    prefix = str(tmp_path / "ckpt")
    assert ckpt.save(prefix) == prefix + "-1"
    v.assign(2.0)
    assert ckpt.save(prefix) == prefix + "-2"
    assert ckpt.save_counter.numpy() == 2
    assert (tmp_path / "checkpoint").read_text() == \
        'model_checkpoint_path: "ckpt-2"\nall_model_checkpoint_paths: "ckpt-2"\n'  # as TF 2.21 writes it
    assert tf.train.latest_checkpoint(str(tmp_path)) == prefix + "-2"
    assert sorted(dict(tf.train.list_variables(str(tmp_path)))) == [
        "_CHECKPOINTABLE_OBJECT_GRAPH", "save_counter/.ATTRIBUTES/VARIABLE_VALUE", "v/.ATTRIBUTES/VARIABLE_VALUE"]
    other = tf.train.Checkpoint(v=tf.Variable(0.0))
    other.restore(prefix + "-1").assert_consumed()
    assert other.v.numpy() == 1.0 and other.save_counter.numpy() == 1
    other.restore(str(tmp_path))  # a directory: its latest checkpoint
    assert other.v.numpy() == 2.0
    reader = tf.train.load_checkpoint(str(tmp_path))
    assert reader.get_tensor("v/.ATTRIBUTES/VARIABLE_VALUE") == 2.0
    assert reader.get_variable_to_shape_map()["v/.ATTRIBUTES/VARIABLE_VALUE"] == []
    assert reader.get_variable_to_dtype_map()["save_counter/.ATTRIBUTES/VARIABLE_VALUE"] == tf.int64
    assert isinstance(reader.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH"), bytes)
    with pytest.raises(NotFoundError, match="Key nope not found in checkpoint"):
        reader.get_tensor("nope")


def test_status_errors(tmp_path):
    tf.train.Checkpoint(v=tf.Variable(1.0)).save(str(tmp_path / "c"))
    root = tf.train.Checkpoint(v=tf.Variable(0.0), w=tf.Variable(2.0))
    with pytest.raises(AssertionError, match="Found 1 Python objects that were not bound.*numpy=2.0"):
        root.restore(str(tmp_path / "c-1")).expect_partial().assert_consumed()
    root.restore(str(tmp_path / "c-1")).assert_nontrivial_match()
    with pytest.raises(AssertionError, match="No checkpoint specified"):
        root.restore(None).assert_consumed()
    root.restore(None).expect_partial()
    with pytest.raises(AssertionError, match="not bound"):
        tf.train.Checkpoint(q=tf.Variable(0.0)).read(data("net")).assert_existing_objects_matched()
    with pytest.raises(AssertionError, match="Nothing except the root"):
        tf.train.Checkpoint(q=tf.Variable(0.0)).read(data("net")).assert_nontrivial_match()
    wrong = Net()
    wrong.l1 = tf.Variable(tf.zeros([3]))
    with pytest.raises(ValueError, match=r"incompatible tensor with shape \(4, 2\).*variable with shape \(3,\)"):
        tf.train.Checkpoint(net=wrong).read(data("net"))
    with pytest.raises(ValueError, match="`Checkpoint` was expecting x to be a trackable object"):
        tf.train.Checkpoint(x=3)
    with pytest.raises(NotFoundError, match="Failed to find any matching files"):
        tf.train.Checkpoint(v=tf.Variable(0.0)).restore("/nonexistent/ckpt-1")
    with pytest.raises(ValueError, match="Couldn't find 'checkpoint' file"):
        tf.train.load_checkpoint(os.path.dirname(__file__))


def test_attributes_added_later_are_tracked(tmp_path):
    ckpt = tf.train.Checkpoint()
    ckpt.layer = keras.layers.Dense(2)
    ckpt.layer(np.ones((1, 3), "f"))
    path = ckpt.write(str(tmp_path / "x"))
    assert "layer/kernel/.ATTRIBUTES/VARIABLE_VALUE" in dict(tf.train.list_variables(path))


def test_checkpoint_manager(tmp_path):
    v = tf.Variable(0.0)
    ckpt = tf.train.Checkpoint(v=v)
    d = str(tmp_path / "mgr")
    mgr = tf.train.CheckpointManager(ckpt, d, max_to_keep=2)
    assert mgr.latest_checkpoint is None and mgr.checkpoints == []
    paths = [mgr.save() for _ in range(3)]
    assert paths == [os.path.join(d, f"ckpt-{i}") for i in (1, 2, 3)]
    assert mgr.checkpoints == paths[1:] and mgr.latest_checkpoint == paths[2]
    assert sorted(os.listdir(d)) == ["checkpoint", "ckpt-2.data-00000-of-00001", "ckpt-2.index",
                                     "ckpt-3.data-00000-of-00001", "ckpt-3.index"]
    lines = (tmp_path / "mgr" / "checkpoint").read_text().splitlines()
    assert lines[:3] == ['model_checkpoint_path: "ckpt-3"', 'all_model_checkpoint_paths: "ckpt-2"',
                         'all_model_checkpoint_paths: "ckpt-3"']
    assert [l.split(":")[0] for l in lines[3:]] == ["all_model_checkpoint_timestamps"] * 2 + \
        ["last_preserved_timestamp"]
    assert mgr.save(checkpoint_number=10) == os.path.join(d, "ckpt-10")
    assert tf.train.latest_checkpoint(d) == os.path.join(d, "ckpt-10")
    again = tf.train.CheckpointManager(ckpt, d, max_to_keep=2)  # picks up the directory's state
    assert again.checkpoints == [os.path.join(d, "ckpt-3"), os.path.join(d, "ckpt-10")]
    fresh = tf.train.Checkpoint(v=tf.Variable(5.0))
    assert tf.train.CheckpointManager(fresh, d, max_to_keep=1).restore_or_initialize() == \
        os.path.join(d, "ckpt-10")
    called = []
    empty = tf.train.CheckpointManager(fresh, str(tmp_path / "none"), 3, init_fn=lambda: called.append(1))
    assert empty.restore_or_initialize() is None and called == [1]


def test_checkpoint_manager_interval_and_keep_every(tmp_path, monkeypatch):
    step = tf.Variable(0, dtype=tf.int64)
    ckpt = tf.train.Checkpoint(step=step)
    mgr = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=None, step_counter=step,
                                     checkpoint_interval=5)
    assert mgr.checkpoint_interval == 5
    saved = []
    for i in range(12):
        step.assign(i)
        saved.append(mgr.save() is not None)
    assert saved == [i in (0, 5, 10) for i in range(12)]
    assert len(mgr.checkpoints) == 3  # max_to_keep=None keeps all
    clock = [1000.0]
    monkeypatch.setattr("rivulet.checkpoint.management.time.time", lambda: clock[0])
    keep = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)), str(tmp_path / "k"), max_to_keep=1,
                                      keep_checkpoint_every_n_hours=1)
    for _ in range(4):
        clock[0] += 1900.0  # ~0.53 h apart: every second one is preserved
        keep.save()
    left = sorted(f for f in os.listdir(tmp_path / "k") if f.endswith(".index"))
    assert left == ["ckpt-2.index", "ckpt-4.index"]


def test_hostile_object_graph(tmp_path):
    from rivulet.checkpoint import BundleWriter
    from rivulet.formats.object_graph import encode, Node
    from rivulet.errors import DataLossError
    w = BundleWriter(str(tmp_path / "bad"))
    w.add("_CHECKPOINTABLE_OBJECT_GRAPH", np.array(encode([Node(children=[(7, "x")])]), dtype=object))
    w.finish()
    with pytest.raises(DataLossError, match="does not exist"):
        tf.train.Checkpoint(v=tf.Variable(0.0)).read(str(tmp_path / "bad"))
    w = BundleWriter(str(tmp_path / "bad2"))
    w.add("_CHECKPOINTABLE_OBJECT_GRAPH", np.array(b"\x0a\xff\xff\xff\x0f", dtype=object))
    w.finish()
    with pytest.raises(DataLossError):
        tf.train.Checkpoint(v=tf.Variable(0.0)).read(str(tmp_path / "bad2"))


def test_delayed_restoration_of_attributes_assigned_later(tmp_path):
    net = Net()
    path = tf.train.Checkpoint(net=net, step=tf.Variable(7, dtype=tf.int64)).write(str(tmp_path / "c"))
    # the checkpoint guide's pattern: restore into placeholders, attach the variables afterwards
    fake_net = tf.train.Checkpoint()
    root = tf.train.Checkpoint(net=fake_net)
    status = root.restore(path)
    b = tf.Variable(tf.zeros([2]))
    fake_net.b = b
    np.testing.assert_array_equal(b.numpy(), [1.0, 1.0])
    with pytest.raises(AssertionError, match="Unresolved object in checkpoint"):
        status.assert_consumed()  # net.l1 and step are still waiting

    class Later(tf.Module):
        pass
    holder = Later()
    tf.train.Checkpoint(net=holder).restore(path)
    holder.l1 = tf.Variable(tf.ones([4, 2]))  # restored on assignment
    np.testing.assert_array_equal(holder.l1.numpy(), np.zeros([4, 2]))


def test_legacy_keras_optimizer_slot_variables():
    """keras_legacy_adam: tf_keras.optimizers.legacy.Adam, whose slots are the object graph's
    slot_variables (`.OPTIMIZER_SLOT/optimizer/m` keys) and whose step is `optimizer/iter`."""
    z = np.load(data("keras_legacy_adam.values.npz"), allow_pickle=False)
    m = keras.Sequential([keras.layers.Dense(2, input_shape=(4,))])
    m.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
    status = tf.train.Checkpoint(model=m, optimizer=m.optimizer).read(data("keras_legacy_adam"))
    np.testing.assert_allclose(m.predict(z["x"], verbose=0), z["pred"], atol=1e-6)
    assert m.optimizer.iterations.numpy() == z["iters"]
    m.optimizer._create_slots(m.trainable_variables)  # slots restored as they are created
    for i, v in enumerate(m.trainable_variables):
        np.testing.assert_array_equal(m.optimizer.get_slot(v, "m").numpy(), z[f"m_{i}"])
        np.testing.assert_array_equal(m.optimizer.get_slot(v, "v").numpy(), z[f"v_{i}"])
    status.assert_existing_objects_matched()


def test_random_structures_round_trip(tmp_path):
    """Random nests of lists, dicts (keys with '/' and '.') and variables of several dtypes: what is written
    reads back into a fresh copy of the same structure, value for value (bounded: 12 examples)."""
    hyp = pytest.importorskip("hypothesis")
    st = pytest.importorskip("hypothesis.strategies")
    dtypes = ["float32", "float64", "int32", "int64", "bool", "float16", "uint8", "complex64"]
    leaf = st.tuples(st.sampled_from(dtypes), st.lists(st.integers(0, 3), max_size=3))
    names = st.text("ab/._", min_size=1, max_size=4)
    tree = st.recursive(leaf, lambda kids: st.lists(kids, min_size=1, max_size=3) |
                        st.dictionaries(names, kids, min_size=1, max_size=3), max_leaves=8)
    rng = np.random.default_rng(0)

    def build(spec, fill):
        if isinstance(spec, tuple):
            dtype, shape = spec
            value = (rng.standard_normal(shape) * 10).astype(dtype) if fill else np.zeros(shape, dtype)
            return tf.Variable(value)
        if isinstance(spec, list):
            return [build(s, fill) for s in spec]
        return {k: build(v, fill) for k, v in spec.items()}

    def leaves(x):
        if isinstance(x, list):
            return [y for v in x for y in leaves(v)]
        if isinstance(x, dict):
            return [y for v in x.values() for y in leaves(v)]
        return [x]
    counter = iter(range(10 ** 6))

    @hyp.settings(max_examples=12, deadline=None, database=None)
    @hyp.given(tree)
    def check(spec):
        src, dst = tf.Module(), tf.Module()
        src.tree, dst.tree = build(spec, True), build(spec, False)
        path = tf.train.Checkpoint(m=src).write(str(tmp_path / f"c{next(counter)}"))
        tf.train.Checkpoint(m=dst).read(path).assert_consumed()
        for a, b in zip(leaves(src.tree), leaves(dst.tree)):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
            assert a.dtype == b.dtype
    check()


def test_concurrent_saves_are_consistent(tmp_path):
    import threading
    v = tf.Variable(0.0)
    ckpt = tf.train.Checkpoint(v=v)
    mgr = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=3)
    errors = []

    def work():
        try:
            for _ in range(5):
                mgr.save()
        except Exception as e:  # noqa: BLE001
            errors.append(e)
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert ckpt.save_counter.numpy() == 20
    assert [os.path.basename(p) for p in mgr.checkpoints] == ["ckpt-18", "ckpt-19", "ckpt-20"]
    assert sorted(f for f in os.listdir(tmp_path) if f.endswith(".index")) == \
        ["ckpt-18.index", "ckpt-19.index", "ckpt-20.index"]
    tf.train.Checkpoint(v=tf.Variable(1.0)).restore(mgr.latest_checkpoint).assert_consumed()


def test_name_based_checkpoint_restores_by_variable_name(tmp_path):
    from rivulet.checkpoint import write_bundle
    # what tf.compat.v1.train.Saver writes: keys are the variables' names, and there is no object graph
    write_bundle(str(tmp_path / "v1"), {"l1": np.full((4, 2), 3.0, "f"), "b": np.array([5.0, 6.0], "f")})
    net = Net()
    status = tf.train.Checkpoint(net=net).restore(str(tmp_path / "v1"))
    np.testing.assert_array_equal(net.l1.numpy(), np.full((4, 2), 3.0))
    np.testing.assert_array_equal(net.b.numpy(), [5.0, 6.0])
    status.assert_consumed().assert_nontrivial_match()
    extra = Net()
    extra.c = tf.Variable(1.0, name="c")
    with pytest.raises(AssertionError, match="matches variables by name"):
        tf.train.Checkpoint(net=extra).restore(str(tmp_path / "v1")).assert_consumed()


def test_nadam_slots_by_their_lists():
    """keras_nadam (tf_keras Nadam, one epoch): its `_variables` list has an extra `_u_product` that rivulet's
    Nadam does not keep, so slots are matched through `_momentums`/`_velocities` only."""
    z = np.load(data("keras_nadam.values.npz"), allow_pickle=False)
    m = keras.Sequential([keras.layers.Dense(2, input_shape=(4,))])
    m.compile(optimizer=keras.optimizers.Nadam(0.01), loss="mse")
    status = tf.train.Checkpoint(model=m, optimizer=m.optimizer).read(data("keras_nadam"))
    m.optimizer._create_slots(m.trainable_variables)
    np.testing.assert_allclose(m.predict(z["x"], verbose=0), z["pred"], atol=1e-6)
    assert m.optimizer.iterations.numpy() == z["iters"]
    kernel = m.trainable_variables[0]
    np.testing.assert_array_equal(m.optimizer.get_slot(kernel, "m").numpy(), z["m0"])
    np.testing.assert_array_equal(m.optimizer.get_slot(kernel, "v").numpy(), z["v0"])
    status.assert_existing_objects_matched()
