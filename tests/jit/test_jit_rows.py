"""A row-wise recurrent step (each result row from its argument row alone: jit/rows.py) runs a big batch in
chunks of rows on two threads; anything mixing rows runs whole. Results equal the NumPy executor's."""
import warnings

import numpy as np
import pytest

import rivulet as tf

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")
pytestmark = pytest.mark.usefixtures("compile_at_once")  # tests/jit/conftest.py

layers = tf.keras.layers


class Worker:
    """Stands in for the worker thread, at either extreme: one that takes every chunk as soon as it is handed
    the job (eager), or one that a loaded machine never runs (the caller then runs every chunk)."""
    def __init__(self):
        self.eager, self.jobs = False, 0

    def submit(self, job):
        self.jobs += 1
        if self.eager:
            job()


@pytest.fixture
def worker(monkeypatch):
    from rivulet.jit import tier
    w = Worker()
    monkeypatch.setattr(tier, "_pool", [w])
    monkeypatch.setattr(tier.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(tier, "_ALONE", 0.0)  # the machine never looks busy (see test_a_busy_machine_...)
    return w


def text_model(rnn, seed=0):
    rs = np.random.default_rng(seed)
    inp = tf.keras.Input((7,), dtype="int32")
    out = rnn(layers.Embedding(40, 5)(inp))
    out = [layers.Dense(2, activation="sigmoid")(o) for o in out] if isinstance(out, list) else \
        layers.Dense(2, activation="sigmoid")(out)
    m = tf.keras.Model(inp, out)
    m.set_weights([rs.standard_normal(w.shape).astype(np.float32) * 0.5 for w in m.get_weights()])
    return m


def run_both(fn, batches, seed=1):
    spec = [tf.TensorSpec([None, 7], tf.int32)]
    jit = tf.function(fn, jit_compile=True, input_signature=spec)
    plain = tf.function(fn, input_signature=spec)
    rs = np.random.default_rng(seed)
    for b in batches:
        x = tf.constant(rs.integers(0, 40, (b, 7)).astype(np.int32))
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # nothing falls back
            got = tf.nest.flatten(jit(x))
        want = tf.nest.flatten(plain(x))
        assert [g.shape for g in got] == [w.shape for w in want]
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5, atol=1e-6)
    assert tf.jit.tier_of(jit) == ["onnxruntime"]
    (cf,) = jit._list_all_concrete_functions()
    return cf._jit_function


@pytest.mark.parametrize("rnn", [lambda: layers.LSTM(6), lambda: layers.GRU(6, reset_after=False),
                                 lambda: layers.LSTM(6, return_sequences=True, return_state=True)])
@pytest.mark.parametrize("eager", [True, False])
def test_big_batches_run_in_chunks_on_two_threads(rnn, eager, worker):
    worker.eager = eager
    m = text_model(rnn())
    jf = run_both(lambda a: m(a), [301, 1000, 100, 128, 127])
    assert worker.jobs == 3  # 301 and 128 rows: 2 chunks, 1000: 3 (256 rows at least); 100 and 127 ran whole
    assert jf.session.get_session_options().intra_op_num_threads == 1  # the chunks are the parallelism


@pytest.mark.parametrize("mix", [
    lambda h, a: h - tf.reduce_mean(h, axis=0),  # a reduction over the batch
    lambda h, a: h / tf.cast(tf.shape(a)[0], tf.float32),  # the batch size as a number
    lambda h, a: tf.concat([h[1:], h[:1]], axis=0),  # rows moved
])
def test_steps_mixing_rows_run_whole(mix, worker):
    m = text_model(layers.LSTM(6))
    run_both(lambda a: mix(m(a), a), [300])
    assert worker.jobs == 0
    run_both(lambda a: m(a), [300])
    assert worker.jobs == 1  # the model's own step


def test_a_fixed_batch_runs_whole(worker):
    # traced for one batch size, the zero state is a constant of that many rows: no halves
    m = text_model(layers.GRU(6))
    jit = tf.function(lambda a: m(a), jit_compile=True)
    x = tf.constant(np.random.default_rng(2).integers(0, 40, (256, 7)).astype(np.int32))
    np.testing.assert_allclose(jit(x).numpy(), tf.function(lambda a: m(a))(x).numpy(), rtol=1e-5, atol=1e-6)
    assert tf.jit.tier_of(jit) == ["onnxruntime"] and worker.jobs == 0
    run_both(lambda a: m(a), [256])  # traced for any batch: chunks
    assert worker.jobs == 1


def test_a_busy_machine_runs_big_batches_whole_on_two_threads(worker, monkeypatch):
    # a chunked call whose thread waited for a core: the next big batches run whole on a two-thread session,
    # until one of them has a core's worth to itself (or _BUSY_CALLS of them have run)
    from rivulet.jit import tier
    monkeypatch.setattr(tier, "_ALONE", 2.0)  # never alone: busy from the first call on
    monkeypatch.setattr(tier, "_BUSY_CALLS", 3)
    m = text_model(layers.LSTM(6))
    jf = run_both(lambda a: m(a), [300] * 6)
    assert worker.jobs == 2  # calls 1 and 5 in chunks, 2-4 and 6 whole
    assert jf.whole_session.get_session_options().intra_op_num_threads == 2
    monkeypatch.setattr(tier, "_ALONE", 0.0)  # alone: whole once more, then chunks
    run_both_again = [jf.call_args(tf.constant(np.zeros((300, 7), np.int32))) for _ in range(3)]
    assert worker.jobs == 4 and len(run_both_again) == 3


def test_threads_calling_a_chunked_step_at_once_get_their_own_rows(monkeypatch):
    # the real worker thread, shared by two callers whose chunks it takes in turn
    import threading
    from rivulet.jit import tier
    monkeypatch.setattr(tier.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(tier, "_ALONE", 0.0)
    m = text_model(layers.GRU(6))
    spec = [tf.TensorSpec([None, 7], tf.int32)]
    jit, plain = (tf.function(lambda a: m(a), jit_compile=j, input_signature=spec) for j in (True, False))
    rs = np.random.default_rng(3)
    xs = [tf.constant(rs.integers(0, 40, (256 + 8 * i, 7)).astype(np.int32)) for i in range(6)]
    jit(xs[0])
    got = {}

    def caller(i):
        got[i] = [jit(x).numpy() for x in xs[i::2]]
    threads = [threading.Thread(target=caller, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(2):
        for g, x in zip(got[i], xs[i::2]):
            np.testing.assert_allclose(g, plain(x).numpy(), rtol=1e-5, atol=1e-6)
    (cf,) = jit._list_all_concrete_functions()
    assert cf._jit_function.whole_session is not None  # (a chunked step)


def _graph(nodes, out_rank=2, inits=()):
    from onnx import TensorProto, helper, numpy_helper
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4, 6])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                          [numpy_helper.from_array(np.asarray(v), k) for k, v in inits])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def _n(op, ins, **kw):
    from onnx import helper
    return helper.make_node(op, ins, ["y"], **kw)


W = ("w", np.ones((6, 3), np.float32))


@pytest.mark.parametrize("nodes, inits, rows", [
    ([_n("MatMul", ["x", "w"])], [W], [True]),
    ([_n("Einsum", ["x", "w"], equation="btf,fk->btk")], [W], [True]),
    ([_n("Einsum", ["x", "w"], equation="btf,fk->tbk")], [W], None),  # the batch moved to axis 1
    ([_n("ReduceSum", ["x", "a"], keepdims=0)], [("a", np.array([1, 2]))], [True]),
    ([_n("ReduceSum", ["x", "a"], keepdims=0)], [("a", np.array([0]))], None),  # over the batch
    ([_n("Reshape", ["x", "s"])], [("s", np.array([-1, 6]))], None),  # the batch merged with time
    ([_n("Transpose", ["x"], perm=[1, 0, 2])], [], None),  # rows on axis 1
    ([_n("Add", ["x", "c"])], [("c", np.ones((5, 1, 6), np.float32))], None),  # a constant spanning the batch axis
    ([_n("Add", ["x", "c"])], [("c", np.ones((1, 4, 1), np.float32))], [True]),
    ([_n("Softmax", ["x"], axis=0)], [], None),
    ([_n("Gather", ["x", "i"], axis=0)], [("i", np.array([1, 0]))], None),  # rows picked by a constant
])
def test_row_wise_check_on_small_graphs(nodes, inits, rows):
    from rivulet.jit.rows import row_wise
    assert row_wise(_graph(nodes, inits=inits), 1) == rows
