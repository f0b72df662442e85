"""tf.keras.metrics: stateful metrics whose totals live in non-trainable variables, so `update_state` works
eagerly and inside traced train steps alike."""
import rivulet as tf

from . import backend, losses as _losses


# -- per-sample functions -------------------------------------------------------------------------------
def accuracy(y_true, y_pred):
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.cast(y_true, y_pred.dtype)
    return tf.cast(tf.equal(y_true, y_pred), backend.floatx())


def binary_accuracy(y_true, y_pred, threshold=0.5):
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.cast(y_true, y_pred.dtype)
    hit = tf.equal(y_true, tf.cast(y_pred > threshold, y_pred.dtype))
    return tf.reduce_mean(tf.cast(hit, backend.floatx()), axis=-1)


def categorical_accuracy(y_true, y_pred):
    hit = tf.equal(tf.argmax(y_true, axis=-1), tf.argmax(y_pred, axis=-1))
    return tf.cast(hit, backend.floatx())


def sparse_categorical_accuracy(y_true, y_pred):
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.convert_to_tensor(y_true)
    if y_true.shape.rank is not None and y_pred.shape.rank is not None and \
            y_true.shape.rank == y_pred.shape.rank and y_true.shape[-1] == 1:
        y_true = tf.squeeze(y_true, axis=-1)
    guess = tf.argmax(y_pred, axis=-1)
    hit = tf.equal(tf.cast(y_true, backend.floatx()), tf.cast(guess, backend.floatx()))
    return tf.cast(hit, backend.floatx())


# -- stateful metrics -------------------------------------------------------------------------------------
class Metric:
    """`update_state(...)` accumulates, `result()` reads, `reset_state()` zeroes; calling does update + result."""

    def __init__(self, name=None, dtype=None, **kwargs):
        self.name = name or backend.to_snake_case(type(self).__name__)
        self._dtype = tf.as_dtype(dtype or backend.floatx())
        self._variables = []

    @property
    def dtype(self):
        return self._dtype.name

    def add_weight(self, name, shape=(), dtype=None, initializer="zeros", **kwargs):
        with tf.init_scope():
            v = tf.Variable(tf.zeros(shape, dtype=dtype or self._dtype), trainable=False,
                            name=f"{self.name}/{name}")
        self._variables.append(v)
        return v

    @property
    def variables(self):
        return list(self._variables)

    weights = non_trainable_weights = variables

    @property
    def trainable_weights(self):
        return []

    def __call__(self, *args, **kwargs):
        self.update_state(*args, **kwargs)
        return self.result()

    def update_state(self, *args, **kwargs):
        raise NotImplementedError

    def result(self):
        raise NotImplementedError

    def reset_state(self):
        for v in self._variables:
            v.assign(tf.zeros(v.shape, dtype=v.dtype))

    reset_states = reset_state

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}


class Sum(Metric):
    def __init__(self, name="sum", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_weight("total")

    def update_state(self, values, sample_weight=None):
        values = tf.cast(values, self._dtype)
        if sample_weight is not None:
            values = values * tf.cast(sample_weight, self._dtype)
        self.total.assign_add(tf.reduce_sum(values))

    def result(self):
        return tf.identity(self.total)


class Mean(Metric):
    """The (weighted) mean of every value seen: total / count."""

    def __init__(self, name="mean", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_weight("total")
        self.count = self.add_weight("count")

    def update_state(self, values, sample_weight=None):
        values = tf.cast(values, self._dtype)
        if sample_weight is None:
            self.total.assign_add(tf.reduce_sum(values))
            self.count.assign_add(tf.cast(tf.size(values), self._dtype))
            return
        sw = tf.cast(sample_weight, self._dtype)
        vr, sr = values.shape.rank, sw.shape.rank
        if vr is not None and sr is not None:
            if sr == vr + 1 and sw.shape[-1] == 1:
                sw = tf.squeeze(sw, axis=-1)
            while sw.shape.rank < vr:
                sw = tf.expand_dims(sw, -1)
        sw = sw * tf.ones_like(values)
        self.total.assign_add(tf.reduce_sum(values * sw))
        self.count.assign_add(tf.reduce_sum(sw))

    def result(self):
        return tf.math.divide_no_nan(self.total, self.count)


class MeanMetricWrapper(Mean):
    """The mean of `fn(y_true, y_pred)` over every sample seen."""

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        super().__init__(name=name or fn.__name__, dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true, y_pred, sample_weight=None):
        super().update_state(self._fn(y_true, y_pred, **self._fn_kwargs), sample_weight)

    def get_config(self):
        return {**super().get_config(), **self._fn_kwargs}


def _wrapper(cls_name, fn, default_name, **defaults):
    def __init__(self, name=default_name, dtype=None, **kwargs):
        MeanMetricWrapper.__init__(self, fn, name=name, dtype=dtype, **{**defaults, **kwargs})
    return type(cls_name, (MeanMetricWrapper,), {"__init__": __init__})


Accuracy = _wrapper("Accuracy", accuracy, "accuracy")
BinaryAccuracy = _wrapper("BinaryAccuracy", binary_accuracy, "binary_accuracy", threshold=0.5)
CategoricalAccuracy = _wrapper("CategoricalAccuracy", categorical_accuracy, "categorical_accuracy")
SparseCategoricalAccuracy = _wrapper("SparseCategoricalAccuracy", sparse_categorical_accuracy,
                                     "sparse_categorical_accuracy")
MeanSquaredError = _wrapper("MeanSquaredError", _losses.mean_squared_error, "mean_squared_error")
MeanAbsoluteError = _wrapper("MeanAbsoluteError", _losses.mean_absolute_error, "mean_absolute_error")
SparseCategoricalCrossentropy = _wrapper("SparseCategoricalCrossentropy", _losses.sparse_categorical_crossentropy,
                                         "sparse_categorical_crossentropy", from_logits=False)
CategoricalCrossentropy = _wrapper("CategoricalCrossentropy", _losses.categorical_crossentropy,
                                   "categorical_crossentropy", from_logits=False)
BinaryCrossentropy = _wrapper("BinaryCrossentropy", _losses.binary_crossentropy, "binary_crossentropy",
                              from_logits=False)

mse = MSE = _losses.mean_squared_error
mae = MAE = _losses.mean_absolute_error
_FUNCTIONS = {"accuracy": accuracy, "binary_accuracy": binary_accuracy, "categorical_accuracy": categorical_accuracy,
              "sparse_categorical_accuracy": sparse_categorical_accuracy, "mse": mse, "mean_squared_error": mse,
              "mae": mae, "mean_absolute_error": mae,
              "sparse_categorical_crossentropy": _losses.sparse_categorical_crossentropy,
              "categorical_crossentropy": _losses.categorical_crossentropy,
              "binary_crossentropy": _losses.binary_crossentropy}
_CLASSES = {c.__name__: c for c in (Accuracy, BinaryAccuracy, CategoricalAccuracy, SparseCategoricalAccuracy,
                                    MeanSquaredError, MeanAbsoluteError, SparseCategoricalCrossentropy,
                                    CategoricalCrossentropy, BinaryCrossentropy, Mean, Sum)}


def get(identifier):
    if isinstance(identifier, str):
        if identifier in _FUNCTIONS:
            return _FUNCTIONS[identifier]
        if identifier in _CLASSES:
            return _CLASSES[identifier]()
        raise ValueError(f"Unknown metric function: {identifier}. Please ensure this object is passed to the "
                         f"`custom_objects` argument.")
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret metric identifier: {identifier!r}")


def for_compile(identifier, y_true, y_pred):
    """compile(metrics=[...]) entries -> Metric objects. 'accuracy' picks binary, sparse or categorical
    accuracy from the shapes it first sees, as Keras does; names stay as the user wrote them."""
    if isinstance(identifier, Metric):
        return identifier
    if identifier in ("accuracy", "acc"):
        yt, yp = y_true.shape, y_pred.shape
        binary = yp.rank is not None and yp[-1] == 1
        sparse = yt.rank is not None and yp.rank is not None and (yt.rank < yp.rank or yt[-1] == 1)
        fn = binary_accuracy if binary else sparse_categorical_accuracy if sparse else categorical_accuracy
        return MeanMetricWrapper(fn, name=identifier)
    if isinstance(identifier, str):
        obj = get(identifier)
        return obj if isinstance(obj, Metric) else MeanMetricWrapper(obj, name=identifier)
    if isinstance(identifier, type) and issubclass(identifier, Metric):
        return identifier()
    if callable(identifier):
        return MeanMetricWrapper(identifier, name=getattr(identifier, "__name__", "metric"))
    raise ValueError(f"Could not interpret metric identifier: {identifier!r}")
