"""MultiWorkerMirroredStrategy on Ray worker processes: two workers end with the weights one process reaches
on the same global batches (Keras fit, and a custom loop with strategy.run inside a tf.function); a worker
that dies makes the run fail with an error naming it instead of hanging, and BackupAndRestore then resumes
training from the chief's last epoch; without Ray the message says what to install."""
import os
import sys
import time

import numpy as np
import pytest

import rivulet as tf
import training_case
from rivulet.distribute import ray_runtime
from training_case import data as _data

ray = pytest.importorskip("ray")

RESOLVER = tf.distribute.cluster_resolver.RayClusterResolver(num_workers=2, timeout=240)
GLOBAL_BATCH = 16


def _model():
    return training_case.model(compiled=True)


def _custom_loop(strategy):
    x, y = _data()
    with strategy.scope():
        model = _model()
        opt = tf.keras.optimizers.SGD(0.1)
        loss_obj = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True,
                                                                 reduction=tf.keras.losses.Reduction.NONE)

    def step(inputs):
        xb, yb = inputs
        with tf.GradientTape() as tape:
            loss = tf.nn.compute_average_loss(loss_obj(yb, model(xb, training=True)), global_batch_size=GLOBAL_BATCH)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    @tf.function
    def distributed_step(d):
        return strategy.reduce("SUM", strategy.run(step, args=(d,)), axis=None)
    batches = [(x[i:i + GLOBAL_BATCH], y[i:i + GLOBAL_BATCH]) for i in range(0, 64, GLOBAL_BATCH)]
    losses = [float(distributed_step(d)) for _ in range(3) for d in strategy.experimental_distribute_dataset(batches)]
    return model.get_weights(), losses


def _fit(strategy):
    x, y = _data()
    with strategy.scope():
        m = _model()
    m.fit(x, y, batch_size=GLOBAL_BATCH, epochs=3, verbose=0, shuffle=False)
    return m.get_weights(), m.predict(x[:10])


def _unseeded(strategy):
    """Unseeded initializers differ per process; the workers' variables must still start as worker 0's,
    whether made in the scope or built by the first training step."""
    x, y = _data()
    with strategy.scope():
        eager = tf.keras.Sequential([tf.keras.layers.Dense(4, input_shape=(8,))])
        lazy = tf.keras.Sequential([tf.keras.layers.Dense(4), tf.keras.layers.Dense(3)])
        lazy.compile("sgd", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    lazy.fit(x, y, batch_size=GLOBAL_BATCH, epochs=1, verbose=0)
    return eager.get_weights() + lazy.get_weights()


def _worker_program():
    strategy = tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=RESOLVER)
    gathered = strategy.gather(tf.constant([float(RESOLVER.task_id)]), axis=0)
    return dict(task=RESOLVER.task_id, replicas=strategy.num_replicas_in_sync, gathered=gathered,
                chief=strategy.extended.should_checkpoint, fit=_fit(strategy), loop=_custom_loop(strategy),
                unseeded=_unseeded(strategy))


@pytest.fixture(scope="module", autouse=True)
def _shutdown_ray():
    yield
    RESOLVER.shutdown()


def test_two_ray_workers_train_like_one_process():
    one = tf.distribute.OneDeviceStrategy("/cpu:0")
    fit_w, fit_pred = _fit(one)
    loop_w, loop_losses = _custom_loop(one)
    results = RESOLVER.run(_worker_program)
    assert [r["task"] for r in results] == [0, 1] and [r["replicas"] for r in results] == [2, 2]
    assert [r["chief"] for r in results] == [True, False]
    for a, b in zip(results[0]["unseeded"], results[1]["unseeded"]):
        np.testing.assert_array_equal(a, b)
    for r in results:
        assert r["gathered"].tolist() == [0.0, 1.0]
        for a, b in zip(fit_w, r["fit"][0]):
            np.testing.assert_allclose(a, b, atol=1e-5)
        np.testing.assert_allclose(fit_pred, r["fit"][1], atol=1e-5)  # predictions gathered in batch order
        for a, b in zip(loop_w, r["loop"][0]):
            np.testing.assert_allclose(a, b, atol=1e-5)
        np.testing.assert_allclose(loop_losses, r["loop"][1], rtol=1e-5)


def _dies_on_worker_one():
    strategy = tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=RESOLVER)
    if RESOLVER.task_id == 1:
        os._exit(3)
    # worker 0 waits at the all-reduce for a worker that will never come
    return strategy.reduce("SUM", strategy.run(lambda: tf.constant(1.0)), axis=None)


def test_a_dead_worker_fails_the_run_instead_of_hanging():
    with pytest.raises(RuntimeError, match="Ray worker 1 of 2 died"):
        RESOLVER.run(_dies_on_worker_one)


def _raises():
    if RESOLVER.task_id == 0:
        raise KeyError("bad key on worker 0")
    strategy = tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=RESOLVER)
    return strategy.reduce("SUM", strategy.run(lambda: tf.constant(1.0)), axis=None)


# a bound for the tests below: the old code waited in the collective until the driver gave up after this long
QUICK = tf.distribute.cluster_resolver.RayClusterResolver(num_workers=2, timeout=30)


def _worker_one_finishes_early():
    strategy = tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=QUICK)
    if QUICK.task_id == 1:
        return "done"
    return strategy.reduce("SUM", strategy.run(lambda: tf.constant(1.0)), axis=None)


def test_a_worker_that_finishes_early_fails_the_collective_the_others_wait_in():
    start = time.monotonic()
    with pytest.raises(tf.errors.UnavailableError, match=r"worker 1 of 2 finished while worker 0 waits in "
                                                         r"all_reduce #1"):
        QUICK.run(_worker_one_finishes_early)
    assert time.monotonic() - start < 20  # at once, not at a timeout


def _worker_one_is_late(timeout_seconds):
    strategy = tf.distribute.MultiWorkerMirroredStrategy(
        cluster_resolver=QUICK,
        communication_options=tf.distribute.experimental.CommunicationOptions(timeout_seconds=timeout_seconds))
    strategy.gather(tf.constant([1.0]), axis=0)
    if QUICK.task_id == 1:
        time.sleep(60)
    return strategy.reduce("SUM", strategy.run(lambda: tf.constant(1.0)), axis=None)


def test_a_collective_past_its_timeout_raises_deadline_exceeded():
    start = time.monotonic()
    with pytest.raises(tf.errors.DeadlineExceededError, match=r"all_reduce #2 timed out after 1 s: worker 1 of 2 "
                                                              r"did not arrive"):
        QUICK.run(_worker_one_is_late, args=(1,))
    assert time.monotonic() - start < 20
    with pytest.raises(ValueError, match="timeout_seconds"):
        tf.distribute.experimental.CommunicationOptions(timeout_seconds=-1)


def test_a_worker_error_is_raised_in_the_driver():
    with pytest.raises(KeyError, match="bad key on worker 0"):
        RESOLVER.run(_raises)


class _SlowToStart(ray_runtime.Worker):
    """Worker 1's actor starts a second late: worker 0 would fail before it existed."""

    def __init__(self, rank, size, reducer):
        if rank == 1:
            time.sleep(1.0)
        super().__init__(rank, size, reducer)


def _task_id():
    return QUICK.task_id


def test_a_worker_failing_before_another_has_started_leaves_nothing_running(monkeypatch):
    # Ray ignored the kill of an actor whose process had not started it yet: that worker lived on holding its
    # CPU and every later run waited forever to be scheduled (CI: two runs hung until their 240 s timeout)
    monkeypatch.setattr(ray_runtime, "Worker", _SlowToStart)
    with pytest.raises(KeyError, match="bad key on worker 0"):
        RESOLVER.run(_raises)
    monkeypatch.undo()
    assert QUICK.run(_task_id) == [0, 1]


def test_workers_the_cluster_cannot_place_fail_naming_what_they_ask_for():
    greedy = tf.distribute.cluster_resolver.RayClusterResolver(num_workers=2, cpus_per_worker=1000, timeout=3)
    with pytest.raises(TimeoutError, match=r"Ray did not start workers 0, 1 of 2 within 3 s: each worker asks "
                                           r"for 1000 CPU .* CPUs free"):
        greedy.run(_task_id)
    assert QUICK.run(_task_id) == [0, 1]  # nothing was left waiting for CPUs


def test_strategy_made_in_the_driver_or_without_ray(monkeypatch):
    with pytest.raises(RuntimeError, match="inside the function"):
        tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=RESOLVER)
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ImportError, match=r"pip install 'rivulet\[distribute\]'"):
        ray_runtime._ray()


class _DieAtEpoch(tf.keras.callbacks.Callback):
    """Kills worker 1's process when epoch `epoch` begins (a crashed machine)."""

    def __init__(self, epoch):
        super().__init__()
        self.epoch = epoch

    def on_epoch_begin(self, epoch, logs=None):
        if epoch == self.epoch and RESOLVER.task_id == 1:
            os._exit(3)


def _fit_with_backup(backup_dir, die_at):
    x, y = _data()
    strategy = tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=RESOLVER)
    with strategy.scope():
        m = _model()
    callbacks = [tf.keras.callbacks.BackupAndRestore(backup_dir)]
    if die_at is not None:
        callbacks.append(_DieAtEpoch(die_at))
    hist = m.fit(x, y, batch_size=GLOBAL_BATCH, epochs=3, verbose=0, shuffle=False, callbacks=callbacks)
    return m.get_weights(), len(hist.history["loss"])


def test_backup_and_restore_resumes_multi_worker_training_after_a_worker_dies(tmp_path):
    fit_w, _ = _fit(tf.distribute.OneDeviceStrategy("/cpu:0"))
    backup = str(tmp_path / "backup")
    with pytest.raises(RuntimeError, match="Ray worker 1 of 2 died"):
        RESOLVER.run(_fit_with_backup, args=(backup, 2))
    results = RESOLVER.run(_fit_with_backup, args=(backup, None))
    for weights, epochs_run in results:
        assert epochs_run == 1  # epochs 0 and 1 were backed up: only epoch 2 is left
        for a, b in zip(fit_w, weights):
            np.testing.assert_allclose(a, b, atol=1e-5)


class _HoldLastBackup(tf.keras.callbacks.Callback):
    """On worker 1, holds the last epoch's backup between creating its directory and writing its files until
    the chief has finished fit (and cleaned up): the interleaving of a flaky failure, made certain."""

    def __init__(self, marker):
        super().__init__()
        self.marker = marker

    def on_epoch_begin(self, epoch, logs=None):
        from rivulet.checkpoint import bundle
        if epoch != 2 or RESOLVER.task_id != 1:
            return
        write = bundle._atomic_write

        def held(path, chunks):
            bundle._atomic_write = write
            deadline = time.monotonic() + 20
            while not os.path.exists(self.marker) and time.monotonic() < deadline:
                time.sleep(0.05)
            write(path, chunks)
        bundle._atomic_write = held


def _fit_while_the_chief_cleans_up(backup_dir, marker):
    x, y = _data()
    strategy = tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=RESOLVER)
    with strategy.scope():
        m = _model()
    m.fit(x, y, batch_size=GLOBAL_BATCH, epochs=3, verbose=0, shuffle=False,
          callbacks=[_HoldLastBackup(marker), tf.keras.callbacks.BackupAndRestore(backup_dir)])
    if RESOLVER.task_id == 0:
        open(marker, "w").close()
    return m.get_weights()


def test_the_chief_ending_training_leaves_the_other_workers_backups_alone(tmp_path):
    # the chief deleted the whole backup directory at the end of fit while worker 1 still wrote its last
    # backup under it: FileNotFoundError on worker 1
    backup = str(tmp_path / "backup")
    first, second = RESOLVER.run(_fit_while_the_chief_cleans_up, args=(backup, str(tmp_path / "chief_done")))
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    assert os.listdir(backup) == []  # the chief's backup deleted; a worker's own is deleted after each backup
