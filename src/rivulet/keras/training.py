"""compile / fit / evaluate / predict for tf.keras.Model.

fit runs `train_step` through one `tf.function` per compile (unless run_eagerly), so it traces once per
distinct batch shape: a dataset whose size is not a multiple of batch_size traces twice, as in TensorFlow.
"""
import math

import numpy as np

import rivulet as tf
from rivulet import nest
from rivulet.core.tensor import Tensor

from . import backend, callbacks as cbks, losses as _losses, metrics as _metrics, optimizers


# -- compiled loss and metrics ------------------------------------------------------------------------------
class LossesContainer:
    """The compiled loss: `loss(y, y_pred, sample_weight, regularization_losses)`; tracks its running mean."""

    def __init__(self, loss, loss_weights=None, output_names=None):
        if isinstance(loss, dict):  # by output name (a dict output's keys, or a functional model's output_names)
            self._loss = {k: _loss_object(l) for k, l in loss.items()}
        else:
            self._loss = [_loss_object(l) for l in loss] if isinstance(loss, (list, tuple)) else _loss_object(loss)
        self._weights = loss_weights
        self._output_names = list(output_names) if output_names else None
        self._tracker = _metrics.Mean(name="loss")
        self._output_trackers = None  # several outputs: each one's (unweighted) loss, `rate_loss`, as tf_keras

    def _by_output(self, struct, names, n, default):
        """A dict or list given per output (losses, loss_weights), as a list over the flattened outputs."""
        if isinstance(struct, dict):
            if names is None or len(names) != n:
                names = [None] * n
            unknown = [k for k in struct if k not in names]
            if unknown:
                raise ValueError(f"Found unexpected losses or metrics that do not correspond to any Model output: "
                                 f"{unknown}. Valid mode output names: {[k for k in names if k is not None]}. "
                                 f"Received struct is: {struct}.")
            return [struct.get(k, default) for k in names]
        if isinstance(struct, (list, tuple)):
            if len(struct) != n:
                raise ValueError(f"The model has {n} outputs, but got {len(struct)} losses or loss weights.")
            return list(struct)
        return [struct] * n

    @property
    def metrics(self):
        return [self._tracker] + [t for t in self._output_trackers or () if t is not None]

    def __call__(self, y_true, y_pred, sample_weight=None, regularization_losses=None):
        if self._loss is None:
            raise ValueError("No loss to compute. Provide a `loss` argument in `compile()`.")
        if nest.is_nested(y_pred):
            # Several outputs: one loss each (the same one, or one per output, by position or by output
            # name), weighted by `loss_weights`, summed. Dict targets pair with dict outputs by key (both
            # flatten in sorted-key order), so their keys must agree.
            if isinstance(y_pred, dict) and isinstance(y_true, dict) and set(y_pred) != set(y_true):
                raise ValueError(f"The model's outputs are {nest._sorted_keys(y_pred)}, but the targets `y` have "
                                 f"the keys {list(y_true)}: give one target per output, keyed by output name.")
            preds, trues = nest.flatten(y_pred), nest.flatten(y_true)
            names = nest._sorted_keys(y_pred) if isinstance(y_pred, dict) else self._output_names
            fns = self._by_output(self._loss, names, len(preds), None)
            weights = self._by_output(self._weights, names, len(preds), None)
            if not (len(fns) == len(preds) == len(trues)):
                raise ValueError(f"The model has {len(preds)} outputs, but got {len(trues)} targets and "
                                 f"{len(fns)} losses.")
            if self._output_trackers is None:
                shown = names if names is not None and len(names) == len(preds) else [
                    f"output_{i + 1}" for i in range(len(preds))]
                self._output_trackers = [None if fn is None else _metrics.Mean(name=f"{name}_loss")
                                         for fn, name in zip(fns, shown)]
            terms = []
            batch = tf.shape(preds[0])[0]
            for fn, w, t, p, tracker in zip(fns, weights, trues, preds, self._output_trackers):
                if fn is None:  # an output given no loss
                    continue
                term = fn(*match_dtype_and_rank(t, p, sample_weight))
                tracker.update_state(term, sample_weight=tf.cast(batch, term.dtype))
                terms.append(term if w is None else term * tf.cast(w, term.dtype))
            loss = tf.add_n(terms)
        else:
            fn = self._loss
            if isinstance(fn, (dict, list)):  # one output: its one loss (and weight), by name or position
                fn = self._by_output(fn, self._output_names, 1, None)[0]
            loss = fn(*match_dtype_and_rank(y_true, y_pred, sample_weight))
            w = self._by_output(self._weights, self._output_names, 1, None)[0] if self._weights is not None else None
            if w is not None:
                loss = loss * tf.cast(w, loss.dtype)
        if regularization_losses:
            loss = loss + tf.add_n([tf.cast(r, loss.dtype) for r in regularization_losses])
        batch = tf.cast(tf.shape(nest.flatten(y_pred)[0])[0], loss.dtype)
        self._tracker.update_state(loss, sample_weight=batch)
        replica = tf.distribute.context.multi_replica_context()
        if replica is not None:
            # the replicas' gradients are summed: each replica's mean loss counts 1/n of the global mean
            loss = loss * (1.0 / replica.num_replicas_in_sync)
        return loss


def match_dtype_and_rank(y_true, y_pred, sample_weight):
    """What tf_keras's compiled loss and metrics do to each output's targets first: labels (batch,) against
    predictions (batch, n) gain a last axis, as do per-sample weights, and labels take the predictions' dtype
    when both are floating or both integer (uint8 class ids against float scores stay as they are; sparse
    losses and metrics cast them). Returns (y_true, y_pred, sample_weight)."""
    if y_true is None or not isinstance(y_pred, Tensor):
        return y_true, y_pred, sample_weight
    if not isinstance(y_true, Tensor):
        y_true = tf.convert_to_tensor(y_true)
    if y_true.shape.rank == 1 and y_pred.shape.rank == 2:
        y_true = tf.expand_dims(y_true, axis=-1)
    if sample_weight is not None:
        if not isinstance(sample_weight, Tensor):
            sample_weight = tf.convert_to_tensor(sample_weight)
        if sample_weight.shape.rank == 1 and y_pred.shape.rank == 2:
            sample_weight = tf.expand_dims(sample_weight, axis=-1)
        sample_weight = tf.cast(sample_weight, y_pred.dtype)
    t, p = y_true.dtype, y_pred.dtype
    if t != p and ((t.is_floating and p.is_floating) or (t.is_integer and p.is_integer)):
        y_true = tf.cast(y_true, p)
    return y_true, y_pred, sample_weight


def _loss_object(loss):
    fn = _losses.get(loss)
    if fn is not None and not isinstance(fn, _losses.Loss):
        fn = _losses.LossFunctionWrapper(fn, name=getattr(fn, "__name__", "loss"))
    return fn


class MetricsContainer:
    """The compiled metrics, turned into Metric objects on their first update (when shapes are known)."""

    def __init__(self, metrics, output_names=None):
        if metrics is None:
            metrics = []
        elif not isinstance(metrics, (list, tuple, dict)):
            metrics = [metrics]
        self._specs = dict(metrics) if isinstance(metrics, dict) else list(metrics)
        self._output_names = list(output_names) if output_names else None
        self._metrics = None
        self._per_output = None  # several outputs: [(output index, metric)]

    def _update_outputs(self, y_true, y_pred, sample_weight):
        """Several outputs: a list of metrics applies to each, a dict gives each output (by name) its own;
        each metric is named after its output (`rate_pass_through_loss`), as tf_keras names them."""
        preds, trues = nest.flatten(y_pred), nest.flatten(y_true)
        if self._per_output is None:
            names = nest._sorted_keys(y_pred) if isinstance(y_pred, dict) else self._output_names
            if names is None or len(names) != len(preds):
                names = [f"output_{i + 1}" for i in range(len(preds))]
            if isinstance(self._specs, dict):
                unknown = [k for k in self._specs if k not in names]
                if unknown:
                    raise ValueError(f"Found unexpected losses or metrics that do not correspond to any Model "
                                     f"output: {unknown}. Valid mode output names: {names}. Received struct is: "
                                     f"{self._specs}.")
            self._per_output = []
            for i, (name, t, p) in enumerate(zip(names, trues, preds)):
                specs = self._specs.get(name, []) if isinstance(self._specs, dict) else self._specs
                for spec in specs if isinstance(specs, (list, tuple)) else [specs]:
                    m = _metrics.for_compile(spec, tf.convert_to_tensor(t), tf.convert_to_tensor(p))
                    if m is not spec:
                        m.name = f"{name}_{m.name}"
                    self._per_output.append((i, m))
            self._metrics = [m for _, m in self._per_output]
        for i, m in self._per_output:
            t, p, w = match_dtype_and_rank(trues[i], preds[i], sample_weight)
            m.update_state(t, p, w)

    @property
    def metrics(self):
        return list(self._metrics or ())

    def update_state(self, y_true, y_pred, sample_weight=None):
        if not self._specs:
            return
        if nest.is_nested(y_pred):
            return self._update_outputs(y_true, y_pred, sample_weight)
        if isinstance(self._specs, dict):  # one output: its metrics by name
            self._specs = [m for v in self._specs.values() for m in (v if isinstance(v, (list, tuple)) else [v])]
        if self._metrics is None:
            yt, yp = tf.convert_to_tensor(y_true), tf.convert_to_tensor(y_pred)
            self._metrics = [_metrics.for_compile(s, yt, yp) for s in self._specs]
        y_true, y_pred, sample_weight = match_dtype_and_rank(y_true, y_pred, sample_weight)
        for m in self._metrics:
            m.update_state(y_true, y_pred, sample_weight)


def unpack_x_y_sample_weight(data):
    if isinstance(data, tuple):
        if len(data) == 1:
            return data[0], None, None
        if len(data) == 2:
            return data[0], data[1], None
        if len(data) == 3:
            return data
        raise ValueError(f"Data is expected to be in format `x`, `(x,)`, `(x, y)`, or `(x, y, sample_weight)`, "
                         f"found: {data}")
    return data, None, None


# -- data -------------------------------------------------------------------------------------------------
class _SparseRows:
    """A SparseTensor's rows, batched as SparseTensors (Keras's sparse inputs: `model.predict(st)`)."""

    def __init__(self, st):
        self.indices = np.asarray(st.indices.numpy(), dtype=np.int64)
        self.values = np.asarray(st.values.numpy())
        self.dense_shape = [int(d) for d in st.dense_shape.numpy()]

    def __len__(self):
        return self.dense_shape[0]

    def __getitem__(self, idx):
        rows = np.arange(len(self))[idx]
        pos = np.full(len(self), -1, np.int64)
        pos[rows] = np.arange(len(rows))
        new_rows = pos[self.indices[:, 0]]
        keep = new_rows >= 0
        indices = self.indices[keep].copy()
        indices[:, 0] = new_rows[keep]
        order = np.lexsort(indices.T[::-1]) if len(indices) else np.arange(0)
        return tf.SparseTensor(indices[order], self.values[keep][order], [len(rows)] + self.dense_shape[1:])


class _CompositeRows(_SparseRows):
    """A batchable composite's rows (a tf.experimental.BatchableExtensionType: model.fit(masked_tensor)): its
    components sliced along their first dimension, rebuilt by its spec with an open batch dimension."""

    def __init__(self, v):
        spec = type(v).__tf_tracing_type__(v, None)
        self.spec = spec._unbatch()._batch(None)
        self.comps = [np.asarray(c.numpy()) for c in v._to_components()]

    def __len__(self):
        return len(self.comps[0])

    def __getitem__(self, idx):
        return self.spec._from_components([tf.constant(c[idx]) for c in self.comps])


def _batchable_composite(v):
    return not isinstance(v, Tensor) and hasattr(v, "_to_components") and \
        hasattr(type(v).__tf_tracing_type__(v, None), "_unbatch") if hasattr(type(v), "__tf_tracing_type__") \
        else False


def _take(a, idx):
    return a[idx] if isinstance(a, _SparseRows) else tf.constant(a[idx])


def _is_pandas_series(v):
    t = type(v)
    return t.__name__ == "Series" and t.__module__.split(".")[0] == "pandas"  # no pandas import for the check


def _as_array(v):
    if v is None:
        return None
    if isinstance(v, tf.SparseTensor):
        return _SparseRows(v)
    if _batchable_composite(v):
        return _CompositeRows(v)
    if isinstance(v, dict):
        return {k: _as_array(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)) and v and all(isinstance(x, (np.ndarray, Tensor)) for x in v):
        return type(v)(_as_array(x) for x in v)
    if _is_pandas_series(v):  # a column: (N, 1), as tf_keras and Keras 3 give it to the model
        v = np.expand_dims(v.to_numpy(), -1)
    a = v.numpy() if hasattr(v, "numpy") else np.asarray(v)
    if a.dtype == np.float64:
        a = a.astype(backend.floatx())  # float64 NumPy data would otherwise trace float64 graphs
    return a


def _is_batch_stream(x):
    return not isinstance(x, (np.ndarray, Tensor, list, tuple, dict, str, bytes)) and hasattr(x, "__iter__") and \
        not hasattr(x, "__array__")


class DataHandler:
    """Batches arrays (shuffled per epoch if asked), or passes through an iterable of ready-made batches."""

    def __init__(self, x, y=None, sample_weight=None, batch_size=None, shuffle=False, steps=None,
                 class_weight=None):
        self._setup(x, y, sample_weight, batch_size, shuffle, steps, class_weight)
        if self.steps == 0:  # (tf_keras's DataHandler: empty arrays, or a dataset whose cardinality is 0)
            raise ValueError("Expected input data to be non-empty.")

    def _setup(self, x, y, sample_weight, batch_size, shuffle, steps, class_weight):
        self._stream = x if _is_batch_stream(x) else None
        self.shuffle = shuffle
        _check_count(batch_size, "batch_size")
        _check_count(steps, "steps")
        if class_weight is not None and not isinstance(class_weight, dict):
            raise ValueError(f"`class_weight` must be a dict mapping class indices to weights, got {class_weight!r}")
        self._steps_limit = steps
        self._dataset_iter = None
        if _is_dataset(self._stream):
            if y is not None:
                raise ValueError("`y` argument is not supported when using dataset as input.")
            if sample_weight is not None:
                raise ValueError("`sample_weight` argument is not supported when using dataset as input.")
            self._init_dataset(self._stream, steps)
            return
        if self._stream is not None:
            try:
                self.steps = len(self._stream) if steps is None else steps
            except TypeError:
                self.steps = steps
            return
        if x is None:
            raise ValueError("No input data: `x` is None. Pass arrays, tensors or an iterable of batches as `x`.")
        self.x, self.y, self.sw = _as_array(x), _as_array(y), _as_array(sample_weight)
        for what, v in (("x", self.x), ("y", self.y), ("sample_weight", self.sw)):
            for a in nest.flatten(v) if v is not None else ():
                if not isinstance(a, _SparseRows) and np.ndim(a) == 0:
                    raise ValueError(f"`{what}` must be arrays or tensors with a leading batch dimension, got "
                                     f"{a!r}")
        if class_weight is not None and self.y is not None:
            labels = self.y.reshape(len(self.y), -1)
            labels = labels.argmax(-1) if labels.shape[1] > 1 else labels[:, 0]
            cw = np.array([class_weight.get(int(c), 1.0) for c in labels], dtype=backend.floatx())
            self.sw = cw if self.sw is None else self.sw * cw
        sizes = {len(a) for a in nest.flatten((self.x, self.y, self.sw)) if a is not None}
        if len(sizes) > 1:
            raise ValueError(f"Data cardinality is ambiguous: make sure all arrays contain the same number of "
                             f"samples. Sizes: {sorted(sizes)}")
        self.n = sizes.pop() if sizes else 0
        self.batch_size = batch_size or 32
        self.shuffle = shuffle
        self.steps = math.ceil(self.n / self.batch_size) if steps is None else steps

    def _init_dataset(self, ds, steps):
        """A tf.data.Dataset: one epoch is one pass over it, or `steps` batches. As in Keras, when `steps`
        differs from the dataset's length the iterator carries on across epochs instead of restarting."""
        n = int(ds.cardinality().numpy())
        if n == -1 and not steps:
            raise ValueError("When providing an infinite dataset, you must specify the number of steps to run (if "
                             "you did not intend to create an infinite dataset, make sure to not call `repeat()` "
                             "on the dataset).")
        self.steps = steps or (n if n >= 0 else None)
        self._recreate = not steps or steps == n

    def _dataset_batches(self):
        if self._recreate or self._dataset_iter is None:
            self._dataset_iter = iter(self._stream)
        it = self._dataset_iter
        limit = self._steps_limit or None
        k = 0
        while limit is None or k < limit:
            try:
                item = next(it)
            except StopIteration:
                if self.steps is None:
                    self.steps = k  # a dataset of unknown length: its first epoch counts the steps
                if limit is not None:
                    import logging
                    logging.getLogger("rivulet").warning(
                        "Your input ran out of data; interrupting training. Make sure that your dataset or "
                        "generator can generate at least `steps_per_epoch * epochs` batches. You may need to use "
                        "the `.repeat()` function when building your dataset.")
                    self.ran_out = True
                return
            k += 1
            yield item if isinstance(item, tuple) else (item,)

    ran_out = False

    def _sequence_batches(self):
        """One epoch of a Sequence: its len() batches by index (in shuffled order when fit shuffles, as tf_keras
        does), then its on_epoch_end()."""
        seq = self._stream
        order = list(range(len(seq)))
        if self.shuffle:
            import random
            random.shuffle(order)
        for i in order:
            yield seq[i]
        end = getattr(seq, "on_epoch_end", None)
        if callable(end):
            end()

    def batches(self):
        """One epoch of batches: tuples (x,), (x, y) or (x, y, sample_weight) of tensors."""
        if self._dataset_iter is not None or _is_dataset(self._stream):
            yield from self._dataset_batches()
            return
        if self._stream is not None:
            items = self._sequence_batches() if _is_sequence(self._stream) else self._stream
            for i, item in enumerate(items):
                if self._steps_limit is not None and i >= self._steps_limit:
                    return
                yield tuple(nest.map_structure(_tensor, v) for v in (item if isinstance(item, tuple) else (item,)))
            return
        order = None
        if self.shuffle:
            order = tf.random.shuffle(tf.range(self.n)).numpy()
        for step in range(self.steps):
            lo = (step * self.batch_size) % max(self.n, 1)
            idx = slice(lo, lo + self.batch_size) if order is None else order[lo:lo + self.batch_size]
            parts = [self.x] + ([self.y] if self.y is not None or self.sw is not None else []) + \
                ([self.sw] if self.sw is not None else [])
            yield tuple(nest.map_structure(lambda a: _take(a, idx), p) if p is not None else None
                        for p in parts)


def _is_sequence(x):
    """A keras.utils.Sequence-like stream (ImageDataGenerator's iterators): len() batches per epoch, by index."""
    return hasattr(x, "__getitem__") and hasattr(x, "__len__")


def _is_dataset(x):
    return hasattr(x, "element_spec") and hasattr(x, "_make_iter")


def _check_count(v, what):
    """batch_size/steps: None or an int >= 0 (0, like None, means the default, as Keras treats it)."""
    if v is not None and (not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 0):
        raise ValueError(f"`{what}` must be a positive integer or None, got {v!r}")


def _tensor(v):
    return v if isinstance(v, Tensor) or v is None else tf.constant(_as_array(v))


def _floats(logs):
    return {k: float(v) for k, v in logs.items()}


def _flatten_callbacks(callbacks):
    if isinstance(callbacks, (list, tuple)):
        return [c for item in callbacks for c in _flatten_callbacks(item)]
    return [callbacks]  # (checked to be a Callback by the caller)


def _configure_callbacks(model, callbacks, verbose, epochs, steps, mode):
    # tf_keras flattens what it is given (tf.nest.flatten): one Callback, or nested lists of them
    user = [] if callbacks is None else _flatten_callbacks(callbacks)
    for c in user:
        if not isinstance(c, cbks.Callback):
            raise TypeError(f"`callbacks` must hold tf.keras.callbacks.Callback instances, got {c!r} of type "
                            f"{type(c)}")
    history = None
    if mode == "train":
        history = cbks.History()
        user = user + [history]
    if verbose and not any(isinstance(c, cbks.ProgbarLogger) for c in user):
        user.insert(0, cbks.ProgbarLogger(verbose=verbose, mode=mode))
    return cbks.CallbackList(user, model, verbose=verbose, epochs=epochs, steps=steps), history


class Trainer:
    """The training half of tf.keras.Model."""

    # -- compile ------------------------------------------------------------------------------------------
    def compile(self, optimizer="rmsprop", loss=None, metrics=None, loss_weights=None, weighted_metrics=None,
                run_eagerly=None, steps_per_execution=None, jit_compile=None, **kwargs):
        self.optimizer = optimizers.get(optimizer)
        if getattr(self, "compute_dtype", None) == "float16":
            # as tf_keras: float16 models need loss scaling to train as well as float32 ones
            from .mixed_precision import LossScaleOptimizer
            if not isinstance(self.optimizer, LossScaleOptimizer):
                self.optimizer = LossScaleOptimizer(self.optimizer)
        names = getattr(self, "output_names", None) if getattr(self, "_is_graph_network", False) else None
        self.compiled_loss = LossesContainer(loss, loss_weights, names)
        self.compiled_metrics = MetricsContainer(metrics, names)
        self.loss = loss
        self._run_eagerly = run_eagerly
        self._jit_compile = jit_compile  # steps become tf.function(jit_compile=...): rivulet.jit
        self._is_compiled = True
        self._train_fn = self._eval_fn = self._predict_fn = None
        self.stop_training = False

    @property
    def run_eagerly(self):
        return bool(self._run_eagerly) or self.dynamic

    @run_eagerly.setter
    def run_eagerly(self, value):
        self._run_eagerly = value
        self._train_fn = self._eval_fn = self._predict_fn = None

    @property
    def metrics(self):
        out = []
        if getattr(self, "_is_compiled", False):
            out += self.compiled_loss.metrics + self.compiled_metrics.metrics
        return out + super().metrics  # then those added by layers' add_metric

    @property
    def metrics_names(self):
        return [m.name for m in self.metrics]

    def reset_metrics(self):
        for m in self.metrics:
            m.reset_state()

    def _assert_compiled(self):
        if not getattr(self, "_is_compiled", False):
            raise RuntimeError("You must compile your model before training/testing. Use "
                               "`model.compile(optimizer, loss)`.")

    # -- steps (override these to customise fit / evaluate / predict) --------------------------------------
    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None):
        return self.compiled_loss(y, y_pred, sample_weight, regularization_losses=self.losses)

    def train_step(self, data):
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x, y, y_pred, sample_weight)
        self.optimizer.minimize(loss, self.trainable_variables, tape=tape)
        self.compiled_metrics.update_state(y, y_pred, sample_weight)
        return {m.name: m.result() for m in self.metrics}

    def test_step(self, data):
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = self(x, training=False)
        self.compute_loss(x, y, y_pred, sample_weight)
        self.compiled_metrics.update_state(y, y_pred, sample_weight)
        return {m.name: m.result() for m in self.metrics}

    def predict_step(self, data):
        x, _, _ = unpack_x_y_sample_weight(data)
        return self(x, training=False)

    @property
    def distribute_strategy(self):
        return getattr(self, "_distribution_strategy", None) or tf.distribute.get_strategy()

    def _step_function(self, step, name):
        strategy = getattr(self, "_distribution_strategy", None)
        if strategy is not None and strategy.num_replicas_in_sync > 1:
            run = self._distributed_step(strategy, step, name)
        else:
            def run(*data):
                return step(data if len(data) > 1 else data[0])
        run.__name__ = name
        if self.run_eagerly:
            return run
        fn = tf.function(run, reduce_retracing=True, jit_compile=getattr(self, "_jit_compile", None))
        fn._unknown_batch = True  # traced with the batch dimension left open, as TensorFlow's fit
        return fn

    def _distributed_step(self, strategy, step, name):
        """One global batch: split among the replicas, `step` run by each (the optimizer sums their
        gradients and updates once); predictions are joined back in batch order, and metrics are read
        once every replica has added its part."""
        from rivulet.distribute.input_lib import split_element

        def run(*data):
            outs = strategy.run(step, args=(split_element(strategy, data if len(data) > 1 else data[0]),))
            if name == "predict_function":
                return strategy.gather(outs, axis=0)
            first = strategy.experimental_local_results(outs)[0] if not isinstance(outs, dict) else \
                {k: strategy.experimental_local_results(v)[0] for k, v in outs.items()}
            if isinstance(first, dict):
                first.update({m.name: m.result() for m in self.metrics if m.name in first})
            return first
        return run

    def make_train_function(self):
        if self._train_fn is None:
            self._train_fn = self._step_function(self.train_step, "train_function")
        return self._train_fn

    def make_test_function(self):
        if self._eval_fn is None:
            self._eval_fn = self._step_function(self.test_step, "test_function")
        return self._eval_fn

    def make_predict_function(self):
        if getattr(self, "_predict_fn", None) is None:
            self._predict_fn = self._step_function(self.predict_step, "predict_function")
        return self._predict_fn

    # -- loops --------------------------------------------------------------------------------------------
    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose=1, callbacks=None, validation_split=0.0,
            validation_data=None, shuffle=True, class_weight=None, sample_weight=None, initial_epoch=0,
            steps_per_epoch=None, validation_steps=None, validation_batch_size=None, validation_freq=1,
            **kwargs):
        self._assert_compiled()
        if validation_split and validation_data is None:
            if _is_batch_stream(x):
                raise ValueError("`validation_split` is only supported for Tensors or NumPy arrays.")
            x, y, sample_weight = (_as_array(v) for v in (x, y, sample_weight))
            n = len(nest.flatten(x)[0])
            cut = int(n * (1.0 - validation_split))
            split = lambda v: (None, None) if v is None else (  # noqa: E731
                nest.map_structure(lambda a: a[:cut], v), nest.map_structure(lambda a: a[cut:], v))
            (x, vx), (y, vy), (sample_weight, vsw) = split(x), split(y), split(sample_weight)
            validation_data = (vx, vy) if vsw is None else (vx, vy, vsw)
        data = DataHandler(x, y, sample_weight, batch_size, shuffle, steps_per_epoch, class_weight)
        train_fn = self.make_train_function()
        cb, history = _configure_callbacks(self, callbacks, verbose, epochs, data.steps, "train")
        self.stop_training = False
        self.history = history
        cb.on_train_begin()
        initial_epoch = self.__dict__.pop("_initial_epoch", initial_epoch)  # BackupAndRestore resumes here
        logs = None
        for epoch in range(initial_epoch, epochs):
            self.reset_metrics()
            cb.on_epoch_begin(epoch)
            for step, batch in enumerate(data.batches()):
                cb.on_train_batch_begin(step)
                logs = _floats(train_fn(*batch))
                cb.on_train_batch_end(step, logs)
                if self.stop_training:
                    break
            if logs is None:  # not one step yet: data of unknown length that was empty (tf_keras's error)
                raise ValueError("Unexpected result of `train_function` (Empty logs): the training data gave no "
                                 "batch in this epoch (is the dataset empty, e.g. filtered to nothing?)")
            if data.ran_out:
                self.stop_training = True
            for c in cb.callbacks:  # steps learnt from a dataset of unknown length: the bar ends at n/n
                if c.params.get("steps") is None and data.steps is not None:
                    c.params["steps"] = data.steps
                    bar = getattr(c, "_bar", None)
                    if bar is not None and bar.target is None:
                        bar.target = data.steps
            epoch_logs = dict(logs)
            if validation_data is not None and (epoch + 1) % validation_freq == 0:
                vx, vy, vsw = unpack_x_y_sample_weight(tuple(validation_data) if isinstance(validation_data, list)
                                                       else validation_data)
                # fit's callbacks see the validation pass's on_test_* hooks, as tf_keras's
                val = self.evaluate(vx, vy, batch_size=validation_batch_size or batch_size, sample_weight=vsw,
                                    steps=validation_steps, verbose=0, return_dict=True, callbacks=cb)
                epoch_logs.update({"val_" + k: v for k, v in val.items()})
            cb.on_epoch_end(epoch, epoch_logs)
            if self.stop_training:
                break
        cb.on_train_end(logs or {})
        return history

    def evaluate(self, x=None, y=None, batch_size=None, verbose=1, sample_weight=None, steps=None, callbacks=None,
                 return_dict=False, **kwargs):
        self._assert_compiled()
        data = DataHandler(x, y, sample_weight, batch_size, False, steps)
        test_fn = self.make_test_function()
        if isinstance(callbacks, cbks.CallbackList):  # fit's, for its validation pass
            cb = callbacks
        else:
            cb, _ = _configure_callbacks(self, callbacks, verbose, 1, data.steps, "test")
        self.reset_metrics()
        cb.on_test_begin()
        logs = {}
        for step, batch in enumerate(data.batches()):
            cb.on_test_batch_begin(step)
            logs = _floats(test_fn(*batch))
            cb.on_test_batch_end(step, logs)
        cb.on_test_end(logs)
        if return_dict:
            return logs
        values = [logs[n] for n in self.metrics_names if n in logs]
        return values[0] if len(values) == 1 else values

    def predict(self, x, batch_size=None, verbose=0, steps=None, callbacks=None, **kwargs):
        data = DataHandler(x, None, None, batch_size, False, steps)
        predict_fn = self.make_predict_function()
        cb, _ = _configure_callbacks(self, callbacks, 0, 1, data.steps, "predict")
        cb.on_predict_begin()
        outs = []
        for step, batch in enumerate(data.batches()):
            cb.on_predict_batch_begin(step)
            out = predict_fn(*batch)
            outs.append(nest.map_structure(lambda t: t.numpy(), out))
            cb.on_predict_batch_end(step, {"outputs": out})
        cb.on_predict_end()
        if not outs:  # data of unknown length that was empty (known-empty data stopped at DataHandler)
            raise ValueError("Unexpected result of `predict_function` (Empty batch_outputs): the data gave no "
                             "batch (is the dataset empty, e.g. filtered to nothing?)")
        return nest.map_structure(lambda *parts: np.concatenate(parts), *outs) if len(outs) > 1 else outs[0]

    def train_on_batch(self, x, y=None, sample_weight=None, reset_metrics=True, return_dict=False):
        self._assert_compiled()
        if reset_metrics:
            self.reset_metrics()
        batch = next(DataHandler(x, y, sample_weight, len(nest.flatten(_as_array(x))[0])).batches())
        logs = _floats(self.make_train_function()(*batch))
        return logs if return_dict else (list(logs.values()) if len(logs) > 1 else next(iter(logs.values())))

    def test_on_batch(self, x, y=None, sample_weight=None, reset_metrics=True, return_dict=False):
        self._assert_compiled()
        if reset_metrics:
            self.reset_metrics()
        batch = next(DataHandler(x, y, sample_weight, len(nest.flatten(_as_array(x))[0])).batches())
        logs = _floats(self.make_test_function()(*batch))
        return logs if return_dict else (list(logs.values()) if len(logs) > 1 else next(iter(logs.values())))

    def predict_on_batch(self, x):
        return self.predict_step(tf.nest.map_structure(_tensor, _as_array(x))).numpy()
