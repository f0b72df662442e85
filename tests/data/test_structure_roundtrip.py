"""Nested structures keep each value under its own key through every place that flattens and packs them.

tf.nest flattens a dict's values in sorted-key order and packs them back by sorted key into a dict with the
template's own key order; a dataset, a tf.function, a Keras functional model and a saved signature must all
agree with that, or a value lands under another key. The property tests build random structures of dicts
(keys in unsorted order), OrderedDicts, tuples, namedtuples (and lists, where lists are structure: tf.data
treats a list as one tensor) and compare with helpers of their own, not with the tf.nest under test.
"""
import collections

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rivulet as tf

Pair = collections.namedtuple("Pair", "zeta alpha")
Triple = collections.namedtuple("Triple", "c b a")
KEYS = ["b", "a", "c", "zz", "k10", "k2", "A", "_"]
DTYPES = [np.int32, np.int64, np.float32]
ROWS = 3
SETTINGS = settings(max_examples=40, deadline=None)


# -- random layouts, and values built from them -------------------------------------------------------------
@st.composite
def layouts(draw, lists=False, depth=0):
    kinds = ["leaf"] if depth >= 3 else ["leaf", "dict", "odict", "tuple", "namedtuple"] + (["list"] if lists else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "leaf":
        return ("leaf", draw(st.sampled_from(DTYPES)), draw(st.sampled_from([(), (2,)])))
    if kind in ("dict", "odict"):
        keys = draw(st.lists(st.sampled_from(KEYS), min_size=1, max_size=4, unique=True))
        return (kind, [(k, draw(layouts(lists, depth + 1))) for k in keys])
    if kind == "namedtuple":
        cls = draw(st.sampled_from([Pair, Triple]))
        return (kind, cls, [draw(layouts(lists, depth + 1)) for _ in cls._fields])
    return (kind, [draw(layouts(lists, depth + 1)) for _ in range(draw(st.integers(1, 3)))])


def build(layout, rows, counter=None):
    """Arrays of `rows` rows; every leaf's values differ from every other leaf's."""
    counter = counter if counter is not None else [0]
    kind = layout[0]
    if kind == "leaf":
        counter[0] += 1
        shape = (rows,) + layout[2]
        return (counter[0] * 1000 + np.arange(np.prod(shape)).reshape(shape)).astype(layout[1])
    if kind in ("dict", "odict"):
        cls = dict if kind == "dict" else collections.OrderedDict
        return cls((k, build(sub, rows, counter)) for k, sub in layout[1])
    if kind == "namedtuple":
        return layout[1](*[build(sub, rows, counter) for sub in layout[2]])
    return (tuple if kind == "tuple" else list)(build(sub, rows, counter) for sub in layout[1])


def rebuild(fn, s, flip=False):
    """fn applied to every leaf; containers rebuilt as themselves (dict keys reversed when flip)."""
    if isinstance(s, dict):
        keys = list(s)[::-1] if flip else list(s)
        return type(s)((k, rebuild(fn, s[k], flip)) for k in keys)
    if isinstance(s, tuple) and hasattr(s, "_fields"):
        return type(s)(*[rebuild(fn, v, flip) for v in s])
    if isinstance(s, (tuple, list)):
        return type(s)(rebuild(fn, v, flip) for v in s)
    return fn(s)


def check(got, want, ordered=True, path="element"):
    """Same container types, same keys (in the same order when `ordered`), and leaves equal to want's: arrays
    (same dtype, shape and values; got's leaves may be tensors) or TensorSpecs."""
    if isinstance(want, (np.ndarray, np.generic)):
        assert isinstance(got, (tf.Tensor, np.ndarray, np.generic)), f"{path}: {got!r} where a tensor was expected"
        g = np.asarray(got.numpy() if hasattr(got, "numpy") else got)
        assert g.dtype == want.dtype and g.shape == want.shape and np.array_equal(g, want), \
            f"{path}: {g!r} where {want!r} was expected"
        return
    if isinstance(want, tf.TensorSpec):
        assert got == want, f"{path}: {got!r} where {want!r} was expected"
        return
    assert type(got) is type(want), f"{path}: {type(got).__name__} where {type(want).__name__} was expected"
    if isinstance(want, dict):
        assert (list(got) if ordered else sorted(got)) == (list(want) if ordered else sorted(want)), path
        for k in want:
            check(got[k], want[k], ordered, f"{path}[{k!r}]")
    else:
        assert len(got) == len(want), path
        for i, (g, w) in enumerate(zip(got, want)):
            check(g, w, ordered, f"{path}[{i}]")


def row(s, i):
    return rebuild(lambda a: a[i], s)


def spec_of(s):
    return rebuild(lambda a: tf.TensorSpec(a.shape, tf.as_dtype(a.dtype)), s)


def check_all(elements, wants):
    elements = list(elements)
    assert len(elements) == len(wants)
    for got, w in zip(elements, wants):
        check(got, w)


def plus_one_flipped(x):
    return rebuild(lambda t: t + 1, x, flip=True)


# -- tf.data --------------------------------------------------------------------------------------------------
@SETTINGS
@given(layouts())
def test_datasets_keep_every_value_under_its_key(layout):
    s = build(layout, ROWS)
    want = [row(s, i) for i in range(ROWS)]
    ds = tf.data.Dataset.from_tensor_slices(s)
    check(ds.element_spec, spec_of(want[0]))
    check_all(ds, want)
    check_all(ds.as_numpy_iterator(), want)
    check_all(tf.data.Dataset.from_generator(lambda: iter(want), output_signature=ds.element_spec), want)
    check_all(ds.map(lambda *x: x) if type(s) is tuple else ds.map(lambda x: x), want)
    # a function returning a new structure: its own key order is the element's
    flipped = ds.map(lambda *x: plus_one_flipped(x) if type(s) is tuple else plus_one_flipped(x[0]))
    check_all(flipped, [rebuild(lambda a: a + 1, w, flip=True) for w in want])
    check(next(iter(ds.batch(2))), rebuild(lambda a: a[:2], s))
    check_all(ds.batch(2).unbatch(), want)
    check_all(tf.data.Dataset.zip({"z": ds, "a": flipped, "m": (ds, ds)}),
              [{"z": w, "a": rebuild(lambda a: a + 1, w, flip=True), "m": (w, w)} for w in want])


def test_dataset_reduce_with_a_dict_state_of_mixed_dtypes():
    ds = tf.data.Dataset.from_tensor_slices({"k2": [1, 2], "k10": [0.5, 1.5]})
    out = ds.reduce({"s": np.float32(0), "n": np.int32(0), "b": np.int64(0)},
                    lambda st_, e: {"s": st_["s"] + e["k10"], "n": st_["n"] + e["k2"], "b": st_["b"] + 1})
    check(out, {"s": np.float32(2.0), "n": np.int32(3), "b": np.int64(2)})


# -- tf.function ----------------------------------------------------------------------------------------------
@SETTINGS
@given(layouts(lists=True))
def test_tf_function_arguments_and_results_keep_every_value_under_its_key(layout):
    s = build(layout, 2)
    x = rebuild(tf.constant, s)
    same = tf.function(lambda v: v)
    check(same(x), s)
    f = tf.function(plus_one_flipped)
    want = rebuild(lambda a: a + 1, s, flip=True)
    check(f(x), want)
    check(f.get_concrete_function(x)(x), want)
    check(f(s), want)  # NumPy arguments
    # the same structure with its dict keys in another order: the same graph, each value still by key
    check(f(rebuild(lambda t: t, x, flip=True)), want, ordered=False)

    g = tf.function(plus_one_flipped, input_signature=[spec_of(s)])
    check(g(x), want)
    check(g.get_concrete_function()(x), want)


def test_a_concrete_function_refuses_containers_of_another_shape():
    f = tf.function(lambda v: v)
    d = {"b": tf.constant(1), "a": tf.constant(2.0)}
    cf = f.get_concrete_function(d)
    check(cf({"a": tf.constant(5.0), "b": tf.constant(7)}), {"b": np.int32(7), "a": np.float32(5.0)},
                 ordered=False)
    with pytest.raises(TypeError, match="Binding inputs"):  # was KeyError
        cf({"b": tf.constant(1)})
    with pytest.raises(TypeError, match="Binding inputs"):  # the extra key was dropped silently
        cf({"b": tf.constant(1), "a": tf.constant(2.0), "c": tf.constant(3)})
    cf = f.get_concrete_function((tf.constant(1), tf.constant(2)))
    with pytest.raises(TypeError, match="Binding inputs"):  # the extra item was dropped silently
        cf((tf.constant(1), tf.constant(2), tf.constant(3)))
    with pytest.raises(TypeError, match="Binding inputs"):
        cf((tf.constant(1),))


def test_input_signatures_with_dicts_and_namedtuples():
    spec = {"b": tf.TensorSpec([None], tf.int32), "a": tf.TensorSpec([None], tf.float32)}
    f = tf.function(lambda v: {"sum": tf.cast(v["b"], tf.float32) + v["a"], "b": v["b"]}, input_signature=[spec])
    assert f.input_signature == (spec,)
    out = f({"a": tf.constant([0.5, 0.25]), "b": tf.constant([1, 2])})
    check(out, {"sum": np.array([1.5, 2.25], np.float32), "b": np.array([1, 2], np.int32)})
    assert set(f.get_concrete_function().structured_input_signature[0][0]) == {"a", "b"}
    pair = tf.function(lambda p: Pair(p.alpha, p.zeta),
                       input_signature=[Pair(tf.TensorSpec([], tf.int32), tf.TensorSpec([], tf.float32))])
    check(pair(Pair(np.int32(1), np.float32(2))), Pair(np.float32(2), np.int32(1)))
    nested = tf.function(lambda t: t[1], input_signature=[(tf.TensorSpec([], tf.int32), tf.TensorSpec([], tf.int32))])
    assert int(nested.get_concrete_function()((tf.constant(1), tf.constant(2)))) == 2  # was TypeError


def test_nest_orders():
    packed = tf.nest.pack_sequence_as({"k3": 0, "k1": 0, "k2": 0}, [1, 2, 3])
    assert list(packed.items()) == [("k3", 3), ("k1", 1), ("k2", 2)]
    dd = collections.defaultdict(list, {"b": 0, "a": 0})
    out = tf.nest.pack_sequence_as(dd, [1, 2])  # was TypeError from defaultdict's constructor
    assert type(out) is collections.defaultdict and out.default_factory is list and dict(out) == {"a": 1, "b": 2}
    with pytest.raises(TypeError, match="sortable"):
        tf.nest.flatten({1: "x", "a": "y"})
    with pytest.raises(TypeError, match="sortable"):
        tf.function(lambda v: v)({1: tf.constant(1), "a": tf.constant(2)})
    with pytest.raises(ValueError, match="Structure had 2 atoms, but flat_sequence had 3 items"):
        tf.nest.pack_sequence_as([0, 0], [1, 2, 3])
    with pytest.raises(TypeError):
        tf.nest.assert_same_structure([1], (1,))
    with pytest.raises(ValueError, match="same set of keys"):
        tf.nest.assert_same_structure({"a": 1}, {"b": 1})


# -- Keras functional models ----------------------------------------------------------------------------------
def _dict_model():
    p = tf.keras.Input((1,), name="p")
    q = tf.keras.Input((1,), name="q")
    ones = tf.keras.initializers.Constant(1.0)
    hundred = tf.keras.initializers.Constant(100.0)
    return tf.keras.Model({"zeta": p, "alpha": q},
                          {"out_z": tf.keras.layers.Dense(1, kernel_initializer=ones, name="dz")(p),
                           "out_a": tf.keras.layers.Dense(1, kernel_initializer=hundred, name="da")(q)})


def test_keras_functional_models_map_dicts_by_key(tmp_path):
    m = _dict_model()
    x = {"alpha": np.full((2, 1), 2, np.float32), "zeta": np.ones((2, 1), np.float32)}
    want = {"out_z": np.ones((2, 1), np.float32), "out_a": np.full((2, 1), 200, np.float32)}
    check(m(x), want)
    check(m.predict(x, verbose=0), want)
    extra = dict(x, extra=np.zeros((2, 1), np.float32))  # shifted 'zeta' onto the 'extra' values before
    check(m(extra), want)
    with pytest.raises(ValueError, match="Missing data for input 'zeta'"):
        m({"alpha": x["alpha"]})
    m.save(str(tmp_path / "sm"))  # a dict input signature was a TypeError
    loaded = tf.saved_model.load(str(tmp_path / "sm"))
    check(loaded.signatures["serving_default"](p=tf.constant(x["zeta"]), q=tf.constant(x["alpha"])), want,
                 ordered=False)

    a = tf.keras.Input((1,), name="x2")
    b = tf.keras.Input((1,), name="x1")
    listed = tf.keras.Model([a, b], tf.keras.layers.Concatenate()([a, b]))
    got = listed({"x1": np.ones((1, 1), np.float32), "x2": np.full((1, 1), 2, np.float32)})
    assert got.numpy().tolist() == [[2.0, 1.0]]  # by Input name (was [[1.0, 2.0]], by sorted key)
    with pytest.raises(ValueError, match="expects 2 input"):
        listed([np.ones((1, 1), np.float32)] * 3)


def test_keras_dict_targets_must_name_the_outputs():
    m = _dict_model()
    m.compile(loss="mse", optimizer="sgd")
    x = {"alpha": np.full((2, 1), 2, np.float32), "zeta": np.ones((2, 1), np.float32)}
    y = {"out_a": np.full((2, 1), 200, np.float32), "out_z": np.ones((2, 1), np.float32)}
    assert m.evaluate(x, y, verbose=0) == pytest.approx([0.0, 0.0, 0.0])  # total, then each output's (tf_keras)
    with pytest.raises(ValueError, match="targets"):  # paired by position before
        m.evaluate(x, {"out_q": y["out_a"], "out_z": y["out_z"]}, verbose=0)


# -- saved-model signatures -----------------------------------------------------------------------------------
def test_saved_model_functions_and_signatures_take_and_return_dicts(tmp_path):
    spec = {"zz": tf.TensorSpec([None], tf.int32), "a": tf.TensorSpec([None], tf.float32),
            "k": {"y": tf.TensorSpec([], tf.int64), "b": tf.TensorSpec([], tf.int64)}}

    class M(tf.Module):
        @tf.function(input_signature=[spec])
        def f(self, v):
            return {"twice": v["zz"] * 2, "a": v["a"] + 1.0, "k": {"y": v["k"]["y"], "b": v["k"]["b"] + 1}}

        @tf.function(input_signature=[{"zz": spec["zz"], "a": spec["a"]}])
        def flat(self, v):
            return {"twice": v["zz"] * 2, "a": v["a"] + 1.0}

    arg = {"k": {"b": np.int64(5), "y": np.int64(7)}, "a": np.array([0.5], np.float32),
           "zz": np.array([3, 4], np.int32)}
    want = {"twice": np.array([6, 8], np.int32), "a": np.array([1.5], np.float32),
            "k": {"y": np.int64(7), "b": np.int64(6)}}
    m = M()
    check(m.f(arg), want)
    tf.saved_model.save(m, str(tmp_path), signatures={"flat": m.flat})
    loaded = tf.saved_model.load(str(tmp_path))
    check(loaded.f(arg), want)
    sig = loaded.signatures["flat"]
    names = sorted(sig.structured_input_signature[1])  # named after the argument and key: v_a, v_zz
    assert len(names) == 2
    feeds = dict(zip(names, [tf.constant(arg["a"]), tf.constant(arg["zz"])]))
    check(sig(**feeds), {"twice": want["twice"], "a": want["a"]}, ordered=False)
