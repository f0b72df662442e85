"""tf.keras.callbacks: hooks fit/evaluate/predict call around epochs and batches; History and the progress bar."""
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

        def call(*args):
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

    def on_train_batch_end(self, batch, logs=None):
        steps = self.params.get("steps")
        if steps is None or batch + 1 < steps:  # the last step is drawn with the epoch's final logs
            self._bar.update(batch + 1, list((logs or {}).items()))

    def on_epoch_end(self, epoch, logs=None):
        self._bar.update(self.params.get("steps") or 0, list((logs or {}).items()), finalize=True)

    def on_test_begin(self, logs=None):
        if self.mode == "test":
            self._bar = Progbar(self.params.get("steps"), verbose=self.verbose)

    def on_test_batch_end(self, batch, logs=None):
        steps = self.params.get("steps")
        if self.mode == "test" and (steps is None or batch + 1 < steps):
            self._bar.update(batch + 1, list((logs or {}).items()))

    def on_test_end(self, logs=None):
        if self.mode == "test":
            self._bar.update(self.params.get("steps") or 0, list((logs or {}).items()), finalize=True)


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
        lr = float(self.model.optimizer.learning_rate.numpy())
        lr = float(self.schedule(epoch, lr))
        self.model.optimizer.learning_rate = lr
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to {lr}.")

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["lr"] = float(self.model.optimizer.learning_rate.numpy())
