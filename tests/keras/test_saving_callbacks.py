"""Callbacks that write files: ModelCheckpoint, BackupAndRestore, CSVLogger, TensorBoard."""
import csv
import os

import numpy as np
import pytest

import rivulet as tf

keras = tf.keras
layers = keras.layers
X = np.random.default_rng(0).standard_normal((16, 4)).astype("float32")
Y = np.random.default_rng(1).standard_normal((16, 1)).astype("float32")


def _model(seed=0):
    tf.keras.utils.set_random_seed(seed)
    m = keras.Sequential([layers.Dense(3, activation="relu", input_shape=(4,)), layers.Dense(1)])
    m.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse", metrics=["mae"])
    return m


def test_model_checkpoint_every_epoch_weights_only(tmp_path):
    m = _model()
    cb = keras.callbacks.ModelCheckpoint(str(tmp_path / "w-{epoch:02d}"), save_weights_only=True)
    m.fit(X, Y, epochs=3, batch_size=8, verbose=0, callbacks=[cb], shuffle=False)
    assert sorted(f for f in os.listdir(tmp_path) if f.endswith(".index")) == \
        ["w-01.index", "w-02.index", "w-03.index"]
    fresh = _model(seed=5)
    fresh.load_weights(str(tmp_path / "w-03"))
    np.testing.assert_allclose(fresh.predict(X, verbose=0), m.predict(X, verbose=0), rtol=1e-6)


def test_model_checkpoint_save_best_only(tmp_path, capsys):
    m = _model()
    losses = iter([0.5, 0.7, 0.3])
    orig = m.fit

    class Fake(keras.callbacks.Callback):  # sets a val_loss sequence so "best" is known in advance
        def on_epoch_end(self, epoch, logs=None):
            logs["val_loss"] = next(losses)
    path = str(tmp_path / "best.keras")
    cb = keras.callbacks.ModelCheckpoint(path, monitor="val_loss", save_best_only=True, verbose=1)
    saved = []

    class Spy(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            saved.append(os.path.getmtime(path) if os.path.exists(path) else None)
    orig(X, Y, epochs=3, batch_size=8, verbose=0, callbacks=[Fake(), cb, Spy()])
    out = capsys.readouterr().out
    assert "Epoch 1: val_loss improved from inf to 0.50000, saving model to " + path in out
    assert "Epoch 2: val_loss did not improve from 0.50000" in out
    assert "Epoch 3: val_loss improved from 0.50000 to 0.30000" in out
    assert cb.best == 0.3 and saved[0] is not None and saved[1] == saved[0]
    back = keras.models.load_model(path)
    np.testing.assert_allclose(back.predict(X, verbose=0), m.predict(X, verbose=0), rtol=1e-6)


def test_model_checkpoint_batch_frequency_and_errors(tmp_path):
    m = _model()
    cb = keras.callbacks.ModelCheckpoint(str(tmp_path / "b.weights.h5"), save_weights_only=True, save_freq=3,
                                         monitor="loss")
    m.fit(X, Y, epochs=2, batch_size=4, verbose=0, callbacks=[cb])  # 8 batches: saved after 3 and 6
    assert (tmp_path / "b.weights.h5").exists()
    with pytest.raises(ValueError, match="Unrecognized save_freq"):
        keras.callbacks.ModelCheckpoint("x", save_freq="sometimes")
    with pytest.raises(KeyError, match="Failed to format this callback filepath"):
        m.fit(X, Y, epochs=1, verbose=0, callbacks=[keras.callbacks.ModelCheckpoint(str(tmp_path / "{nope}"))])


def test_backup_and_restore_resumes_after_interruption(tmp_path):
    backup = str(tmp_path / "backup")

    class Interrupt(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            if epoch == 1:
                raise RuntimeError("preempted")
    m = _model()
    seen = []
    record = keras.callbacks.LambdaCallback(on_epoch_begin=lambda epoch, logs=None: seen.append(epoch))
    with pytest.raises(RuntimeError):
        m.fit(X, Y, epochs=4, batch_size=8, verbose=0, shuffle=False,
              callbacks=[keras.callbacks.BackupAndRestore(backup), Interrupt()])
    assert os.path.exists(os.path.join(backup, "chief", "checkpoint"))
    resumed = _model(seed=3)
    resumed.fit(X, Y, epochs=4, batch_size=8, verbose=0, shuffle=False,
                callbacks=[keras.callbacks.BackupAndRestore(backup), record])
    assert seen == [2, 3]  # epochs 0 and 1 were backed up (1 ended in the interruption after its backup)
    assert resumed.optimizer.iterations.numpy() == 8
    straight = _model()
    straight.fit(X, Y, epochs=4, batch_size=8, verbose=0, shuffle=False)
    for a, b in zip(straight.weights, resumed.weights):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5)
    assert not os.path.exists(backup)  # deleted after a normal end


def test_csv_logger(tmp_path):
    path = str(tmp_path / "log.csv")
    m = _model()
    h = m.fit(X, Y, epochs=2, batch_size=8, verbose=0, validation_data=(X, Y),
              callbacks=[keras.callbacks.CSVLogger(path)])
    with open(path) as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["epoch", "loss", "mae", "val_loss", "val_mae"]
    assert [r[0] for r in rows[1:]] == ["0", "1"]
    np.testing.assert_allclose([float(r[1]) for r in rows[1:]], h.history["loss"], rtol=1e-6)
    m.fit(X, Y, epochs=1, verbose=0, validation_data=(X, Y), callbacks=[keras.callbacks.CSVLogger(path, append=True)])
    with open(path) as f:
        rows = list(csv.reader(f))
    assert len(rows) == 4 and rows[3][0] == "0"  # appended without a second header


def test_tensorboard_writes_scalars_histograms_and_graph(tmp_path):
    ea = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    m = _model()
    m.fit(X, Y, epochs=2, batch_size=8, verbose=0, validation_data=(X, Y),
          callbacks=[keras.callbacks.TensorBoard(str(tmp_path), histogram_freq=1, update_freq="batch")])
    train = ea.EventAccumulator(str(tmp_path / "train"), size_guidance={"tensors": 0})
    train.Reload()
    tags = train.Tags()
    assert {"epoch_loss", "epoch_mae", "batch_loss"} <= set(tags["tensors"])
    assert any(t.startswith("dense") and "kernel" in t for t in tags["tensors"])  # weight histograms
    assert tags["graph"]
    assert [e.step for e in train.Tensors("epoch_loss")] == [0, 1]
    assert len(train.Tensors("batch_loss")) == 4
    val = ea.EventAccumulator(str(tmp_path / "validation"), size_guidance={"tensors": 0})
    val.Reload()
    assert {"epoch_loss", "evaluation_loss_vs_iterations"} <= set(val.Tags()["tensors"])
