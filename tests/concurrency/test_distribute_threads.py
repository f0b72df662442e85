"""State a strategy keeps, used from plain threads beside strategy.run: a strategy's tf.random.Generator (its
per-replica offsets) drawn from threads gives disjoint counters, a tf.function keyed on the replica's device
traces once per replica and once for plain threads, and aggregated / ON_READ variables read from another thread
while replicas update them never raise and end exact."""
import threading

import numpy as np

import rivulet as tf
from tests.concurrency.threads import run_in_threads

CPUS = ["/cpu:0", "/cpu:1"]


def _threads(targets):
    run_in_threads(list(targets))


def test_strategy_generator_drawn_from_plain_threads_eagerly_and_in_functions():
    strategy = tf.distribute.MirroredStrategy(CPUS)
    with strategy.scope():
        g = tf.random.Generator.from_seed(3)
    strategy.run(lambda: g.normal([tf.distribute.get_replica_context().replica_id_in_sync_group + 1]))
    offsets = g._offsets.numpy().tolist()  # the replicas drew different amounts: their copies differ
    start = g.state.numpy()[0]
    draw = tf.function(lambda: g.uniform_full_int([1], dtype=tf.int64))
    draw()
    out, lock = [], threading.Lock()

    def eager():
        for _ in range(40):
            v = g.uniform_full_int([1], dtype=tf.int64).numpy()[0]
            with lock:
                out.append(v)

    def traced():
        for _ in range(40):
            v = draw().numpy()[0]
            with lock:
                out.append(v)

    run = lambda: strategy.run(lambda: g.uniform_full_int([1], dtype=tf.int64))  # noqa: E731
    runs = [run, tf.function(run)]

    def replicas():  # strategy.run beside them (eager and in a tf.function): both replicas draw one value a run
        for k in range(20):
            r = runs[k % 2]()
            with lock:
                out.extend(v.numpy()[0] for v in strategy.experimental_local_results(r))

    _threads([eager, eager, traced, traced, replicas])
    assert len(set(out)) == 200  # disjoint counters: no two threads drew from the same one
    assert g.state.numpy().tolist() == [start + 181 * 256, 0, 0]  # no lost update
    assert g._offsets.numpy().tolist() == offsets  # plain draws advance every copy alike


def test_function_keyed_on_the_replica_device_from_threads_beside_strategy_run():
    strategy = tf.distribute.MirroredStrategy(CPUS)
    traces = []

    @tf.function
    def f(x):
        traces.append(1)
        return x * 10 + tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32)

    x = tf.constant([1.0, 2.0])

    def plain():
        for _ in range(60):
            np.testing.assert_array_equal(f(x).numpy(), [10.0, 20.0])

    def replicas():
        for _ in range(15):
            r = strategy.run(lambda: f(x))
            got = [v.numpy().tolist() for v in strategy.experimental_local_results(r)]
            assert got == [[10.0, 20.0], [11.0, 21.0]], got

    _threads([plain, plain, plain, replicas])
    assert len(traces) == 3  # plain threads once, each replica once


def test_aggregated_and_on_read_variables_read_from_a_thread_during_run():
    strategy = tf.distribute.MirroredStrategy(CPUS)
    with strategy.scope():
        m = tf.Variable(0.0, aggregation=tf.VariableAggregation.SUM)
        r = tf.Variable(0.0, synchronization=tf.VariableSynchronization.ON_READ,
                        aggregation=tf.VariableAggregation.SUM)
    done, seen = threading.Event(), []

    def step():
        rid = tf.distribute.get_replica_context().replica_id_in_sync_group
        m.assign_add(1.0 + tf.cast(rid, tf.float32))  # 1 and 2: summed, applied once (+3 a run)
        r.assign_add(1.0)  # each replica's own component

    def runs():
        try:
            for _ in range(40):
                strategy.run(step)
        finally:
            done.set()

    def reader():
        while not done.is_set():
            before = sum(float(v.numpy()) for v in strategy.experimental_local_results(r))
            seen.append((float(m.numpy()), float(r.numpy()),
                         [float(v.numpy()) for v in strategy.experimental_local_results(r)], before))

    _threads([runs, reader])
    assert seen
    ms = [a for a, _, _, _ in seen]
    assert ms == sorted(ms) and all(a % 3 == 0 for a in ms)  # a mirrored update is applied whole
    # a read from the plain thread is the cross-replica one (the components summed), not a replica's own
    assert all(before <= b <= sum(c) and len(c) == 2 for _, b, c, before in seen)
    assert float(m.numpy()) == 120.0 and float(r.numpy()) == 80.0
    assert [float(v.numpy()) for v in strategy.experimental_local_results(r)] == [40.0, 40.0]
