"""TensorFlow's tracing rules: which calls reuse a graph and which retrace."""
import collections
import functools
import threading

import numpy as np
import pytest

import rivulet as tf


def counting(fn=None, **kw):
    calls = []

    def wrap(f):
        @functools.wraps(f)
        def inner(*a, **k):
            calls.append(1)
            return f(*a, **k)
        pf = tf.function(inner, **kw)
        pf.traces = calls
        return pf
    return wrap(fn) if fn else wrap


def test_tensors_keyed_by_dtype_and_shape():
    f = counting(lambda x: x + x)
    f(tf.constant(1)); f(tf.constant(2))
    assert len(f.traces) == 1
    f(tf.constant(1.0))
    assert len(f.traces) == 2
    f(tf.constant([1.0])); f(tf.constant([2.0]))
    assert len(f.traces) == 3
    assert f.experimental_get_tracing_count() == 3


def test_numpy_arrays_are_tensors_by_dtype_and_shape():
    f = counting(lambda x: x * 2)
    out = f(np.arange(3, dtype=np.float64))
    assert out.dtype == tf.float64 and out.numpy().tolist() == [0, 2, 4]
    f(np.ones(3))
    assert len(f.traces) == 1


def test_python_scalars_keyed_by_value_and_1_equals_true():
    f = counting(lambda x: tf.constant(2) * x)
    assert f(2).numpy() == 4
    assert f(3).numpy() == 6
    assert len(f.traces) == 2
    f(2)
    assert len(f.traces) == 2
    g = counting(lambda x: tf.constant(5))
    g(1); g(1.0); g(True)
    assert len(g.traces) == 1


def test_strings_and_none_by_value():
    f = counting(lambda x, mode: x if mode is None else x + 1)
    f(tf.constant(1), None); f(tf.constant(1), None)
    f(tf.constant(1), "a"); f(tf.constant(1), "a"); f(tf.constant(1), "b")
    assert len(f.traces) == 3


def test_structures_and_dict_order_ignored():
    f = counting(lambda d: d["a"] + d["b"])
    f({"a": tf.constant(1), "b": tf.constant(2)})
    assert f({"b": tf.constant(5), "a": tf.constant(7)}).numpy() == 12
    assert len(f.traces) == 1
    g = counting(lambda xs: xs[0] * xs[1])
    g([tf.constant(2), tf.constant(3)]); g((tf.constant(2), tf.constant(3)))
    assert len(g.traces) == 2  # list and tuple are different structures
    P = collections.namedtuple("P", "x y")
    h = counting(lambda p: p.x - p.y)
    assert h(P(tf.constant(5), tf.constant(3))).numpy() == 2
    h(P(tf.constant(9), tf.constant(3)))
    assert len(h.traces) == 1


def test_other_objects_by_identity():
    class Cfg:
        scale = 3

    f = counting(lambda c, x: x * c.scale)
    a, b = Cfg(), Cfg()
    f(a, tf.constant(1)); f(a, tf.constant(2))
    assert len(f.traces) == 1
    f(b, tf.constant(1))
    assert len(f.traces) == 2


def test_unhashable_argument_rejected():
    f = tf.function(lambda x: x)

    class Bad:
        __hash__ = None
    with pytest.raises(TypeError, match="hashable"):
        f(Bad())


def test_input_signature_relaxes_and_rejects():
    f = counting(input_signature=[tf.TensorSpec([None], tf.int32)])(lambda x: x + 1)
    assert f(tf.constant([1, 2])).numpy().tolist() == [2, 3]
    f(tf.constant([1, 2, 3]))
    assert len(f.traces) == 1
    with pytest.raises(TypeError, match=r"Can not cast TensorSpec\(shape=\(1,\), dtype=tf.float32"):
        f(tf.constant([1.0]))
    with pytest.raises(TypeError, match="too many positional arguments"):
        f(tf.constant([1]), tf.constant(2))
    assert f(np.array([4], dtype=np.int32)).numpy().tolist() == [5]
    assert f([7]).numpy().tolist() == [8]


def test_reduce_retracing_generalizes_shapes():
    f = counting(reduce_retracing=True)(lambda x: x * 2)
    f(tf.constant([1.0])); f(tf.constant([1.0, 2.0]))
    f(tf.constant([1.0, 2.0, 3.0])); f(tf.constant([1.0] * 7))
    assert len(f.traces) == 2
    shapes = [cf.structured_input_signature[0][0].shape for cf in f._list_all_concrete_functions()]
    assert tf.TensorShape([None]) in shapes


def test_most_specific_concrete_function_wins():
    f = tf.function(lambda x: x + 1)
    specific = f.get_concrete_function(tf.TensorSpec([2], tf.float32))
    general = f.get_concrete_function(tf.TensorSpec([None], tf.float32))
    assert general is not specific
    # A signature the general trace already covers reuses it, as TensorFlow does.
    assert f.get_concrete_function(tf.TensorSpec([7], tf.float32)) is general
    assert f._lookup((tf.TensorSpec([2], tf.float32),)) is specific
    assert f._lookup((tf.TensorSpec([5], tf.float32),)) is general
    f(tf.constant([1.0, 2.0, 3.0]))
    assert f.experimental_get_tracing_count() == 2


def test_python_side_effects_only_while_tracing(capsys):
    @tf.function
    def get_mse(y_true, y_pred):
        print("Calculating MSE!")
        return tf.reduce_mean(tf.pow(y_true - y_pred, 2))
    y1, y2 = tf.constant([1, 4, 3, 1, 3]), tf.constant([0, 3, 8, 0, 6])
    for _ in range(3):
        err = get_mse(y1, y2)
    assert capsys.readouterr().out == "Calculating MSE!\n"
    assert err.numpy() == 7 and err.dtype == tf.int32
    tf.config.run_functions_eagerly(True)
    assert tf.config.functions_run_eagerly()
    for _ in range(3):
        get_mse(y1, y2)
    assert capsys.readouterr().out == "Calculating MSE!\n" * 3


def test_closures_capture_eager_tensors_by_value_at_trace_time():
    c = tf.constant(2.0)

    @tf.function
    def f(x):
        return x * c
    assert f(tf.constant(3.0)).numpy() == 6.0
    c = tf.constant(100.0)  # rebinding the global does not retrace: the traced value stays
    assert f(tf.constant(3.0)).numpy() == 6.0
    cf = f.get_concrete_function(tf.constant(1.0))
    assert len(cf.captured_inputs) == 1


def test_nested_functions_and_structured_outputs():
    @tf.function
    def inner(x):
        return {"double": x * 2, "n": 3, "pair": (x, x + 1)}

    @tf.function
    def outer(x):
        r = inner(x)
        return r["double"] + r["pair"][1], r["n"]
    v, n = outer(tf.constant(1.0))
    assert v.numpy() == 4.0 and n == 3
    r = inner(tf.constant(2.0))
    assert r["n"] == 3 and r["pair"][1].numpy() == 3.0 and r["double"].numpy() == 4.0


def test_leaked_tensor_is_out_of_scope():
    leaked = []

    @tf.function
    def f(x):
        y = x + 1
        leaked.append(y)
        return y
    f(tf.constant(1))
    with pytest.raises(TypeError, match="out of scope|Graph tensor"):
        leaked[0] + tf.constant(1)

    @tf.function
    def g(x):
        return x + leaked[0]
    with pytest.raises(TypeError, match="out of scope"):
        g(tf.constant(1))


def test_non_strict_execution_skips_unneeded_ops():
    def unused_return(x):
        x // tf.zeros_like(x)  # fails at run time (integer division by zero), result unused
        return x
    with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
        unused_return(tf.constant([3]))
    out = tf.function(unused_return)(tf.constant([3]))
    assert out.numpy().tolist() == [3]


def test_runtime_error_in_graph_names_node_and_user_line():
    @tf.function
    def f(x):
        return x // tf.zeros_like(x)
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        f(tf.constant([3]))
    msg = str(e.value)
    assert "Integer division by zero" in msg and "node" in msg and "test_tracing_rules.py" in msg


def test_methods_trace_per_instance():
    class M:
        def __init__(self, k):
            self.k = k
            self.n = 0

        @tf.function
        def scale(self, x):
            self.n += 1
            return x * self.k
    a, b = M(2.0), M(3.0)
    assert a.scale(tf.constant(1.0)).numpy() == 2.0
    assert b.scale(tf.constant(1.0)).numpy() == 3.0
    a.scale(tf.constant(5.0))
    assert (a.n, b.n) == (1, 1)


def test_callable_objects_and_lambdas():
    class Adder:
        def __call__(self, x):
            return x + 10
    assert tf.function(Adder())(tf.constant(1)).numpy() == 11
    assert tf.function(lambda x: x - 1)(tf.constant(1)).numpy() == 0


def test_bounded_cache_and_clear():
    f = counting(lambda x: x)
    f.set_cache_size(2)
    for n in range(4):
        f(tf.constant([0] * (n + 1)))
    assert len(f._list_all_concrete_functions()) == 2
    f(tf.constant([0]))  # evicted: traces again
    assert len(f.traces) == 5
    f.clear_cache()
    f(tf.constant([0]))
    assert len(f.traces) == 6


def test_retrace_warning_names_the_changed_argument(caplog):
    f = tf.function(lambda x, n: x * n)
    f(tf.constant([1.0]), 2)
    with caplog.at_level("WARNING", logger="rivulet"):
        f(tf.constant([1.0, 2.0]), 2)
        f(tf.constant([1.0, 2.0]), 3)
        f(tf.constant([1, 2]), 3)
    msgs = [r.getMessage() for r in caplog.records]
    assert any("x: shape (1,) -> (2,)" in m for m in msgs)
    assert any("n: Python value 2 -> 3" in m for m in msgs)
    assert any("x: dtype float32 -> int32" in m for m in msgs)
    assert all("test_tracing_rules.py" in m for m in msgs)


def test_frequent_retracing_warning(caplog):
    f = tf.function(lambda x: x)
    with caplog.at_level("WARNING", logger="rivulet"):
        for i in range(6):
            f(tf.constant([0.0] * i))
    assert any("5 out of the last 5 calls" in r.getMessage() for r in caplog.records)


def test_frequent_retracing_warning_counts_calls_as_tensorflow_and_stops_after_two(caplog):
    f = tf.function(lambda x: x)
    with caplog.at_level("WARNING", logger="rivulet"):
        for n in [1, 1, 2, 3, 4, 5, 5, 6, 7, 7, 8, 9]:  # cached calls join the previous trace's group
            f(tf.constant([0.0] * n))
    msgs = [r.getMessage().split(" calls")[0] for r in caplog.records if "out of the last" in r.getMessage()]
    assert msgs == ["5 out of the last 6", "6 out of the last 8"]


def test_kwargs_names_select_the_graph_and_their_order_does_not():
    f = counting(lambda x, **kw: x * kw.get("a", 0) + kw.get("b", 0) * 10)
    c = tf.constant(2)
    assert int(f(c, a=1)) == 2 and int(f(c, b=1)) == 10 and f.experimental_get_tracing_count() == 2
    assert int(f(c, a=1, b=2)) == 22 and int(f(c, b=2, a=1)) == 22 and f.experimental_get_tracing_count() == 3
    assert int(f(c, b=c, a=c)) == 24 and int(f(c, a=c, b=c)) == 24 and f.experimental_get_tracing_count() == 4
    assert [n for n, _ in f.get_concrete_function(c, b=c, a=c)._params] == ["x", "a", "b"]


def test_python_results_come_back_as_tensors():
    f = tf.function(lambda: (1, 2.5, True, "s", None, [tf.constant(3)]))
    got = f()
    assert [(t.dtype, t.numpy()) for t in got[:4]] == [(tf.int32, 1), (tf.float32, 2.5), (tf.bool, True),
                                                               (tf.string, b"s")]
    assert got[4] is None and int(got[5][0]) == 3
    with pytest.raises(TypeError, match="must return zero or more Tensors or None values.*found return value of "
                                        "type object"):
        tf.function(lambda: object())()


def test_input_signature_binding_names_a_missing_argument_first():
    g = tf.function(lambda x: x, input_signature=[tf.TensorSpec([None], tf.float32)])
    with pytest.raises(TypeError, match="missing a required argument: 'x'"):
        g(y=tf.constant([1.0]))
    with pytest.raises(TypeError, match="got an unexpected keyword argument 'y'"):
        g(x=tf.constant([1.0]), y=tf.constant([1.0]))


def test_concurrent_calls_of_cached_and_tracing_function():
    f = counting(lambda x: x * 2)
    errors, results = [], []

    def work(i):
        try:
            for j in range(50):
                results.append(f(tf.constant([float(i)] * (1 + j % 3))).numpy()[0] == 2 * i)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)
    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors and all(results) and len(results) == 200
    assert len(f.traces) == 3


def test_activation_gradients_trace_inside_functions():
    @tf.function
    def step(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.nn.relu(x) + tf.nn.elu(x))
        return tape.gradient(y, x)
    g = step(tf.constant([-1.0, 2.0]))
    np.testing.assert_allclose(g.numpy(), [np.exp(-1.0), 2.0], rtol=1e-6)


def test_tracing_errors_point_at_the_users_line():
    import traceback

    @tf.function
    def bad(x):
        return x + tf.ones([3])  # the failing line
    with pytest.raises(ValueError, match=r"Incompatible shapes: \[2\] vs. \[3\]") as e:
        bad(tf.ones([2]))
    frames = traceback.extract_tb(e.value.__traceback__)
    inner = [f for f in frames if "rivulet" not in f.filename]
    assert inner[-1].line.strip() == "return x + tf.ones([3])  # the failing line"
    assert sum("rivulet" in f.filename for f in frames) <= 1
    assert any("raised while tracing tf.function 'bad'" in n for n in e.value.__notes__)


@pytest.mark.parametrize("autograph", [True, False])
@pytest.mark.parametrize("body", [lambda x: [i for i in x], lambda x: list(x), lambda x: tuple(x)[0]])
def test_iterating_a_symbolic_tensor_is_not_allowed_whatever_its_shape(autograph, body):
    f = tf.function(body, autograph=autograph)
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match="Iterating over a symbolic `tf.Tensor`"):
        f(tf.constant([1, 2, 3]))


def test_unpacking_a_symbolic_tensor_is_not_allowed_but_autograph_loops_and_unstack_work():
    @tf.function
    def unpack(x):
        a, b = x
        return a
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        unpack(tf.constant([1, 2]))

    @tf.function
    def loop(x):
        s = 0
        for i in x:  # AutoGraph stages the loop
            s += i
        return s
    assert loop(tf.constant([1, 2, 3])).numpy() == 6
    twice = tf.function(lambda x: tf.stack([i * 2 for i in tf.unstack(x)]))
    assert twice(tf.constant([1, 2, 3])).numpy().tolist() == [2, 4, 6]


def test_leaked_tensor_has_no_numpy_and_is_out_of_scope_elsewhere():
    leaked = []

    @tf.function
    def f(x):
        leaked.append(x * 2)
        return x
    f(tf.constant(1.0))
    t = leaked[0]
    with pytest.raises(AttributeError, match="'SymbolicTensor' object has no attribute 'numpy'"):
        t.numpy()
    assert not hasattr(t, "numpy")
    with pytest.raises(NotImplementedError, match="Cannot convert a symbolic tf.Tensor"):
        np.asarray(t)
    assert repr(t) == "<tf.Tensor 'mul:0' shape=() dtype=float32>"
    with pytest.raises(TypeError, match="is out of scope and cannot be used here"):
        tf.function(lambda y: y + t)(tf.constant(1.0))


def test_input_signature_must_be_a_tuple_or_list():
    with pytest.raises(TypeError, match=r"^input_signature must be either a tuple or a list, got <class 'dict'>\.$"):
        tf.function(lambda x: x, input_signature={"x": tf.TensorSpec([], tf.float32)})


def test_unknown_rank_placeholder_prints_without_a_shape():
    seen = []

    @tf.function(input_signature=[tf.TensorSpec(None, tf.int32, name="x")])
    def f(x):
        seen.append((str(x), repr(x)))
        return x

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.int32, name="x")])
    def g(x):
        seen.append((str(x), repr(x)))
        return x
    f.get_concrete_function()
    g.get_concrete_function()
    assert seen == [('Tensor("x:0", dtype=int32)', "<tf.Tensor 'x:0' shape=<unknown> dtype=int32>"),
                    ('Tensor("x:0", shape=(None, 3), dtype=int32)', "<tf.Tensor 'x:0' shape=(None, 3) dtype=int32>")]


def test_retrace_warnings_thin_out_after_the_frequent_retracing_warning(caplog):
    f = tf.function(lambda x: x)
    with caplog.at_level("INFO", logger="rivulet"):
        for i in range(120):
            f(i)
    retrace = [r for r in caplog.records if "is retracing" in r.getMessage()]
    warned = [r.getMessage() for r in retrace if r.levelname == "WARNING"]
    # Every explanation is on the logger; as warnings: traces #2-#5, up to the frequent-retracing warning
    # (after trace #5), then one in 50 (#55, #105).
    assert len(retrace) == 119 and all("Python value" in r.getMessage() for r in retrace)
    assert [m.split("(trace #")[1].split(")")[0] for m in warned] == ["2", "3", "4", "5", "55", "105"]
    assert "49 retraces since the last such warning were logged at INFO" in warned[-1]
    assert sum("triggered tf.function retracing" in r.getMessage() for r in caplog.records) == 2
