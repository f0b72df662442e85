"""Updates of one variable are atomic, as TensorFlow's resource variables: concurrent assign_add / assign_sub /
assign from several threads, eagerly and inside compiled graphs, lose nothing."""
import sys
import threading

import pytest

import rivulet as tf


@pytest.fixture
def fast_switching():
    """Switch threads as often as possible, so a non-atomic read-modify-write would lose updates."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


def _run(target, n=8):
    ts = [threading.Thread(target=target) for _ in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


def test_eager_assign_add_from_8_threads(fast_switching):
    v = tf.Variable(0)

    def work():
        for _ in range(5000):
            v.assign_add(1)
    _run(work)
    assert v.numpy() == 40000


def test_eager_add_and_sub_interleaved(fast_switching):
    v = tf.Variable(0.0)

    def work():
        for _ in range(2000):
            v.assign_add(3.0, read_value=False)
            v.assign_sub(1.0)
    _run(work)
    assert v.numpy() == 8 * 2000 * 2.0


def test_graph_updates_from_8_threads(fast_switching):
    v, w = tf.Variable(0), tf.Variable(0.0)

    @tf.function
    def inc(x):  # a variable passed in
        x.assign_add(1)

    @tf.function
    def bump():  # a captured variable
        w.assign_add(1.0)
        w.assign_sub(0.5)
    inc(v)
    bump()
    v.assign(0)
    w.assign(0.0)

    def work():
        for _ in range(1000):
            inc(v)
            bump()
    _run(work)
    assert (v.numpy(), w.numpy()) == (8000, 4000.0)



def test_a_variable_still_pickles_with_a_lock_of_its_own():
    import pickle
    v = tf.Variable([1.0, 2.0], name="w")
    u = pickle.loads(pickle.dumps(v))
    u.assign_add([1.0, 1.0])
    assert u.name == "w:0" and u.numpy().tolist() == [2.0, 3.0] and v.numpy().tolist() == [1.0, 2.0]
