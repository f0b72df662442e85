"""tf.keras.callbacks: hooks fit/evaluate/predict call around epochs and batches; History and the progress bar;
ModelCheckpoint, BackupAndRestore, CSVLogger and TensorBoard, which write files."""
import csv
import logging
import os
import shutil

import numpy as np

from .progbar import Progbar


class Callback:
    def __init__(self):
        self.model = None
        self.params = {}

    def set_model(self, model):
        self.model = model

    def set_params(self, params):
        self.params = params

    def on_train_begin(self, logs=None): pass
    def on_train_end(self, logs=None): pass
    def on_epoch_begin(self, epoch, logs=None): pass
    def on_epoch_end(self, epoch, logs=None): pass
    def on_train_batch_begin(self, batch, logs=None): pass
    def on_train_batch_end(self, batch, logs=None): pass
    def on_test_begin(self, logs=None): pass
    def on_test_end(self, logs=None): pass
    def on_test_batch_begin(self, batch, logs=None): pass
    def on_test_batch_end(self, batch, logs=None): pass
    def on_predict_begin(self, logs=None): pass
    def on_predict_end(self, logs=None): pass
    def on_predict_batch_begin(self, batch, logs=None): pass
    def on_predict_batch_end(self, batch, logs=None): pass


class CallbackList:
    """Forwards every hook to each callback in order."""

    def __init__(self, callbacks, model, **params):
        self.callbacks = list(callbacks)
        for cb in self.callbacks:
            cb.set_model(model)
            cb.set_params(params)

    def __getattr__(self, hook):
        if not hook.startswith("on_"):
            raise AttributeError(hook)

        # every hook gets its logs positionally, {} when there are none, as tf_keras passes them: a callback
        # may declare `def on_train_begin(self, logs)` without a default
        n = 1 if hook.endswith(("train_begin", "train_end", "test_begin", "test_end", "predict_begin",
                                "predict_end")) else 2

        def call(*args):
            if len(args) < n:
                args = args + ({},)
            elif args[-1] is None:
                args = args[:-1] + ({},)
            for cb in self.callbacks:
                getattr(cb, hook)(*args)
        return call


class History(Callback):
    """Records each epoch's logs: `history.history['loss']` is the loss per epoch."""

    def __init__(self):
        super().__init__()
        self.history = {}
        self.epoch = []

    def on_train_begin(self, logs=None):
        self.epoch = []

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for k, v in (logs or {}).items():
            self.history.setdefault(k, []).append(v)


class ProgbarLogger(Callback):
    """`Epoch 3/5` (when there is more than one epoch), then a bar per epoch (verbose=1) or a line (verbose=2)."""

    def __init__(self, verbose=1, mode="train"):
        super().__init__()
        self.verbose, self.mode = verbose, mode
        self._bar = None

    def on_epoch_begin(self, epoch, logs=None):
        epochs = self.params.get("epochs", 1)
        if self.verbose and epochs > 1:
            print(f"Epoch {epoch + 1}/{epochs}")
        self._bar = Progbar(self.params.get("steps"), verbose=self.verbose)
        self._seen = 0

    def on_train_batch_end(self, batch, logs=None):
        steps = self.params.get("steps")
        self._seen = batch + 1
        if steps is None or batch + 1 < steps:  # the last step is drawn with the epoch's final logs
            self._bar.update(batch + 1, list((logs or {}).items()))

    def _finalize(self, logs):
        # steps unknown beforehand (a dataset of unknown cardinality): the bar ends as 'N/N [====]' with the
        # batches seen, as tf_keras's ProgbarLogger finalizes it (it drew 'N/Unknown' while running)
        steps = self.params.get("steps") or self._seen
        if not self._bar.target:
            self._bar.target = steps
        self._bar.update(steps, list((logs or {}).items()), finalize=True)

    def on_epoch_end(self, epoch, logs=None):
        self._finalize(logs)

    def on_test_begin(self, logs=None):
        if self.mode == "test":
            self._bar = Progbar(self.params.get("steps"), verbose=self.verbose)
            self._seen = 0

    def on_test_batch_end(self, batch, logs=None):
        steps = self.params.get("steps")
        if self.mode == "test":
            self._seen = batch + 1
            if steps is None or batch + 1 < steps:
                self._bar.update(batch + 1, list((logs or {}).items()))

    def on_test_end(self, logs=None):
        if self.mode == "test":
            self._finalize(logs)


class LambdaCallback(Callback):
    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_batch_begin=None, on_batch_end=None,
                 on_train_begin=None, on_train_end=None, **kwargs):
        super().__init__()
        for name, fn in [("on_epoch_begin", on_epoch_begin), ("on_epoch_end", on_epoch_end),
                         ("on_train_batch_begin", on_batch_begin), ("on_train_batch_end", on_batch_end),
                         ("on_train_begin", on_train_begin), ("on_train_end", on_train_end), *kwargs.items()]:
            if fn is not None:
                setattr(self, name, fn)


class EarlyStopping(Callback):
    """Stops training once `monitor` has not improved by `min_delta` for `patience` epochs."""

    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0, mode="auto", baseline=None,
                 restore_best_weights=False, start_from_epoch=0):
        super().__init__()
        self.monitor, self.patience, self.verbose = monitor, patience, verbose
        self.baseline, self.restore_best_weights, self.start_from_epoch = baseline, restore_best_weights, start_from_epoch
        if mode == "auto":
            mode = "max" if "acc" in monitor else "min"
        self._better = np.greater if mode == "max" else np.less
        self.min_delta = abs(min_delta) * (1 if mode == "max" else -1)
        self.stopped_epoch = 0

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = self.baseline if self.baseline is not None else (-np.inf if self._better is np.greater else np.inf)
        self.best_weights = None

    def on_epoch_end(self, epoch, logs=None):
        current = (logs or {}).get(self.monitor)
        if current is None or epoch < self.start_from_epoch:
            return
        self.wait += 1
        if self._better(current - self.min_delta, self.best):
            self.best = current
            self.wait = 0
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True
            if self.restore_best_weights and self.best_weights is not None:
                self.model.set_weights(self.best_weights)

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")


class LearningRateScheduler(Callback):
    """Sets the optimizer's learning rate to `schedule(epoch, lr)` at the start of each epoch."""

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule, self.verbose = schedule, verbose

    def on_epoch_begin(self, epoch, logs=None):
        from ..core.tensor import Tensor
        lr = float(self.model.optimizer.learning_rate.numpy())
        try:
            lr = self.schedule(epoch, lr)
        except TypeError:  # a schedule of the epoch alone (`def decay(epoch)`), as tf_keras still accepts
            lr = self.schedule(epoch)
        if not isinstance(lr, (Tensor, np.float32, np.float64, float)):
            raise ValueError(f'The output of the "schedule" function should be float. Got: {lr}')
        if isinstance(lr, Tensor):
            if not lr.dtype.is_floating:
                raise ValueError(f"The dtype of `lr` Tensor should be float. Got: {lr.dtype}")
            lr = lr.numpy()
        lr = float(lr)
        self.model.optimizer.learning_rate = lr
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to {lr}.")

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["lr"] = float(self.model.optimizer.learning_rate.numpy())


# -- callbacks that write files --------------------------------------------------------------------------
def _monitor_op(mode, monitor):
    if mode not in ("auto", "min", "max"):
        logging.getLogger("rivulet").warning("ModelCheckpoint mode %s is unknown, fallback to auto mode.", mode)
        mode = "auto"
    if mode == "auto":
        mode = "max" if "acc" in monitor or monitor.startswith("fmeasure") else "min"
    return (np.greater, -np.inf) if mode == "max" else (np.less, np.inf)


class ModelCheckpoint(Callback):
    """Saves the model (or its weights) after each epoch, or every `save_freq` batches. `filepath` may hold
    `{epoch:02d}` and log keys (`{val_loss:.2f}`); the format follows its ending as in `model.save` /
    `model.save_weights` (.keras, a directory, .weights.h5, or a checkpoint prefix)."""

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False, save_weights_only=False,
                 mode="auto", save_freq="epoch", options=None, initial_value_threshold=None, **kwargs):
        super().__init__()
        self.filepath = os.fspath(filepath)
        self.monitor, self.verbose = monitor, verbose
        self.save_best_only, self.save_weights_only = save_best_only, save_weights_only
        if save_freq != "epoch" and not (isinstance(save_freq, int) and save_freq > 0):
            raise ValueError(f"Unrecognized save_freq: {save_freq}. Expected save_freq are 'epoch' or integer")
        self.save_freq = save_freq
        self.monitor_op, self.best = _monitor_op(mode, monitor)
        if initial_value_threshold is not None:
            self.best = initial_value_threshold
        self._batches = 0
        self._epoch = 0

    def on_epoch_begin(self, epoch, logs=None):
        self._epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if self.save_freq != "epoch":
            self._batches += 1
            if self._batches % self.save_freq == 0:
                self._save(self._epoch, logs, batch)

    def on_epoch_end(self, epoch, logs=None):
        if self.save_freq == "epoch":
            self._save(epoch, logs)

    def _path(self, epoch, logs, batch=None):
        try:
            if batch is None or "batch" not in self.filepath:
                return self.filepath.format(epoch=epoch + 1, **(logs or {}))
            return self.filepath.format(epoch=epoch + 1, batch=batch + 1, **(logs or {}))
        except KeyError as e:
            raise KeyError(f'Failed to format this callback filepath: "{self.filepath}". Reason: {e}') from None

    def _save(self, epoch, logs, batch=None):
        logs = logs or {}
        path = self._path(epoch, logs, batch)
        if self.save_best_only:
            current = logs.get(self.monitor)
            if current is None:
                logging.getLogger("rivulet").warning("Can save best model only with %s available, skipping.",
                                                     self.monitor)
                return
            if not self.monitor_op(current, self.best):
                if self.verbose > 0:
                    print(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {self.best:.5f}")
                return
            if self.verbose > 0:
                print(f"\nEpoch {epoch + 1}: {self.monitor} improved from {self.best:.5f} to {current:.5f}, saving "
                      f"model to {path}")
            self.best = current
        elif self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: saving model to {path}")
        if self.save_weights_only:
            self.model.save_weights(path, overwrite=True)
        else:
            self.model.save(path, overwrite=True)


class BackupAndRestore(Callback):
    """Backs the model, optimizer and epoch up to `backup_dir` (a TensorFlow checkpoint) after each epoch;
    a later `fit` with the same callback resumes after the last finished epoch. The backup is deleted when
    training ends normally (unless `delete_checkpoint=False`)."""

    def __init__(self, backup_dir, save_freq="epoch", delete_checkpoint=True, save_before_preemption=False):
        super().__init__()
        if not backup_dir:
            raise ValueError("Empty `backup_dir` argument passed")
        if save_freq != "epoch" and not (isinstance(save_freq, int) and save_freq > 0):
            raise ValueError(f"Unrecognized save_freq value: {save_freq}. Expected save_freq are 'epoch' or "
                             "a positive integer")
        self.backup_dir = os.fspath(backup_dir)
        self.save_freq, self.delete_checkpoint = save_freq, delete_checkpoint
        self._batches = 0

    def _manager(self):
        from ..checkpoint import Checkpoint, CheckpointManager
        import rivulet as tf
        if getattr(self, "_epoch_var", None) is None:
            with tf.init_scope():
                self._epoch_var = tf.Variable(-1, dtype=tf.int64, trainable=False, name="ckpt_saved_epoch")
        objects = {"model": self.model, "_ckpt_saved_epoch": self._epoch_var}
        opt = getattr(self.model, "optimizer", None)
        if opt is not None:
            objects["optimizer"] = opt
        return CheckpointManager(Checkpoint(**objects), self._own_dir(), max_to_keep=1)

    def _other_worker(self):
        """True on a multi-worker strategy's workers other than the chief."""
        strategy = getattr(self.model, "_distribution_strategy", None)
        return strategy is not None and not strategy.extended.should_checkpoint

    def _own_dir(self):
        """Where this process writes: `chief/`, or for the other workers of a multi-worker strategy a
        `workertemp_<id>/` of their own (as TensorFlow), so that only the chief's backup is restored."""
        if self._other_worker():
            return os.path.join(self.backup_dir, f"workertemp_{self.model._distribution_strategy.task_id}")
        return os.path.join(self.backup_dir, "chief")

    def _backup(self):
        self._mgr.save()
        if self._other_worker():  # every worker saves (the same program); only the chief's backup is kept
            shutil.rmtree(self._own_dir(), ignore_errors=True)

    def on_train_begin(self, logs=None):
        from ..checkpoint import latest_checkpoint
        self._mgr = self._manager()
        latest = latest_checkpoint(os.path.join(self.backup_dir, "chief"))  # every worker resumes from the chief's
        if latest is not None:
            self._mgr._checkpoint.restore(latest).expect_partial()
            # fit starts from the epoch after the last one backed up
            self.model._initial_epoch = int(self._epoch_var.numpy()) + 1

    def on_train_batch_end(self, batch, logs=None):
        if self.save_freq != "epoch":
            self._batches += 1
            if self._batches % self.save_freq == 0:
                self._backup()

    def on_epoch_end(self, epoch, logs=None):
        self._epoch_var.assign(epoch)
        if self.save_freq == "epoch":
            self._backup()

    def on_train_end(self, logs=None):
        if not self.delete_checkpoint or self._other_worker():
            return
        strategy = getattr(self.model, "_distribution_strategy", None)
        if strategy is not None and len(strategy._local_replica_ids) < strategy.num_replicas_in_sync:
            # other workers may still be writing their last backup under backup_dir: delete only chief/
            shutil.rmtree(self._own_dir(), ignore_errors=True)
        else:
            shutil.rmtree(self.backup_dir, ignore_errors=True)


class CSVLogger(Callback):
    """Streams each epoch's logs to a CSV file: `epoch` then the log keys in sorted order."""

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.filename, self.sep, self.append = os.fspath(filename), separator, append
        self.keys = None
        self._file = None

    def on_train_begin(self, logs=None):
        exists = self.append and os.path.exists(self.filename) and os.path.getsize(self.filename) > 0
        self._append_header = not exists
        self._file = open(self.filename, "a" if self.append else "w", newline="")
        self._writer = None

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}

        def value(v):
            if isinstance(v, (list, tuple, np.ndarray)) and not isinstance(v, str):
                return f"[{', '.join(map(str, v))}]"
            return v
        if self.keys is None:
            self.keys = sorted(logs)
        if self._writer is None:
            self._writer = csv.DictWriter(self._file, fieldnames=["epoch"] + self.keys, delimiter=self.sep,
                                          lineterminator="\n")
            if self._append_header:
                self._writer.writeheader()
        self._writer.writerow({"epoch": epoch, **{k: value(logs.get(k, "NA")) for k in self.keys}})
        self._file.flush()

    def on_train_end(self, logs=None):
        if self._file is not None:
            self._file.close()
            self._file = None
        self._writer = None


class TensorBoard(Callback):
    """Event files TensorBoard opens: `log_dir/train` (epoch_* scalars, batch_* with update_freq="batch" or
    an int, weight histograms every `histogram_freq` epochs, the traced train function's graph) and
    `log_dir/validation` (epoch_* of the val_ logs, evaluation_*_vs_iterations)."""

    def __init__(self, log_dir="logs", histogram_freq=0, write_graph=True, write_images=False,
                 write_steps_per_second=False, update_freq="epoch", profile_batch=0, embeddings_freq=0,
                 embeddings_metadata=None, **kwargs):
        super().__init__()
        self.log_dir = os.fspath(log_dir)
        self.histogram_freq, self.write_graph = histogram_freq, write_graph
        self.update_freq = 1 if update_freq == "batch" else update_freq
        self._writers = {}
        self._step = 0
        self._tracing = False

    def _writer(self, which):
        from .. import summary
        if which not in self._writers:
            self._writers[which] = summary.create_file_writer(os.path.join(self.log_dir, which))
        return self._writers[which]

    def on_train_begin(self, logs=None):
        self._step = int(self.model.optimizer.iterations.numpy()) if getattr(self.model, "optimizer", None) else 0
        self._graphs = []
        if self.write_graph and not self.model.run_eagerly:
            from ..function.concrete import add_call_observer
            self._observer = lambda cf: self._graphs.append(cf) if not self._graphs else None
            add_call_observer(self._observer)
            self._tracing = True

    def _stop_tracing(self):
        if self._tracing:
            from ..function.concrete import remove_call_observer
            remove_call_observer(self._observer)
            self._tracing = False

    def on_train_batch_end(self, batch, logs=None):
        from .. import summary
        self._step += 1
        if self._tracing:  # the train function's graph, as Keras writes it after the first batch
            self._stop_tracing()
            if self._graphs:
                with self._writer("train").as_default():
                    summary.graph(self._graphs[0].graph)
        if isinstance(self.update_freq, int) and self._step % self.update_freq == 0:
            with self._writer("train").as_default():
                for k, v in (logs or {}).items():
                    summary.scalar("batch_" + k, v, step=self._step)

    def on_epoch_end(self, epoch, logs=None):
        from .. import summary
        logs = logs or {}
        train = {k: v for k, v in logs.items() if not k.startswith("val_")}
        val = {k[4:]: v for k, v in logs.items() if k.startswith("val_")}
        with self._writer("train").as_default():
            for k, v in train.items():
                summary.scalar("epoch_" + k, v, step=epoch)
            if self.histogram_freq and epoch % self.histogram_freq == 0:
                for w in self.model.weights:
                    summary.histogram(w.name.replace(":", "_"), w.numpy(), step=epoch)
        if val:
            with self._writer("validation").as_default():
                for k, v in val.items():
                    summary.scalar("epoch_" + k, v, step=epoch)
                    summary.scalar(f"evaluation_{k}_vs_iterations", v, step=self._step)
        for w in self._writers.values():
            w.flush()

    def on_train_end(self, logs=None):
        self._stop_tracing()
        for w in self._writers.values():
            w.close()
        self._writers = {}
