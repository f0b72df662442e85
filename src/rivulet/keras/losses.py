"""tf.keras.losses: per-sample loss functions, and Loss classes that weight and reduce them."""
import rivulet as tf

from . import backend


class Reduction:
    AUTO = "auto"
    NONE = "none"
    SUM = "sum"
    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"

    @classmethod
    def all(cls):
        return (cls.AUTO, cls.NONE, cls.SUM, cls.SUM_OVER_BATCH_SIZE)

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError(f'Invalid Reduction Key: {key}. Expected keys are "{cls.all()}"')


def _pred_true(y_true, y_pred):
    y_pred = tf.convert_to_tensor(y_pred)
    if not y_pred.dtype.is_floating:
        y_pred = tf.cast(y_pred, backend.floatx())
    y_true = tf.cast(y_true, y_pred.dtype)
    return y_true, y_pred


def _clip(p):
    eps = backend.epsilon()
    return tf.clip_by_value(p, eps, 1.0 - eps)


# -- per-sample functions -------------------------------------------------------------------------------
def mean_squared_error(y_true, y_pred):
    y_true, y_pred = _pred_true(y_true, y_pred)
    return tf.reduce_mean(tf.square(y_pred - y_true), axis=-1)


def mean_absolute_error(y_true, y_pred):
    y_true, y_pred = _pred_true(y_true, y_pred)
    return tf.reduce_mean(tf.abs(y_pred - y_true), axis=-1)


def mean_absolute_percentage_error(y_true, y_pred):
    y_true, y_pred = _pred_true(y_true, y_pred)
    diff = tf.abs((y_true - y_pred) / tf.maximum(tf.abs(y_true), backend.epsilon()))
    return 100.0 * tf.reduce_mean(diff, axis=-1)


def huber(y_true, y_pred, delta=1.0):
    y_true, y_pred = _pred_true(y_true, y_pred)
    err = tf.abs(y_pred - y_true)
    quad = tf.minimum(err, delta)
    return tf.reduce_mean(0.5 * tf.square(quad) + delta * (err - quad), axis=-1)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, axis=-1, ignore_class=None):
    """Integer labels against class scores on the last axis; probabilities are clipped to [eps, 1-eps]."""
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.convert_to_tensor(y_true)
    if y_true.shape.rank is not None and y_pred.shape.rank is not None and \
            y_true.shape.rank == y_pred.shape.rank and y_true.shape[-1] == 1:
        y_true = tf.squeeze(y_true, axis=-1)
    labels = tf.cast(y_true, tf.int64) if not y_true.dtype.is_integer else y_true
    logits = y_pred if from_logits else tf.math.log(_clip(y_pred))
    return tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    y_true, y_pred = _pred_true(y_true, y_pred)
    if label_smoothing:
        n = tf.cast(tf.shape(y_true)[-1], y_pred.dtype)
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / n
    if from_logits:
        return tf.nn.softmax_cross_entropy_with_logits(labels=y_true, logits=y_pred, axis=axis)
    p = _clip(y_pred / tf.reduce_sum(y_pred, axis=axis, keepdims=True))
    return -tf.reduce_sum(y_true * tf.math.log(p), axis=axis)


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    y_true, y_pred = _pred_true(y_true, y_pred)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        per = tf.nn.sigmoid_cross_entropy_with_logits(labels=y_true, logits=y_pred)
    else:
        p = _clip(y_pred)
        per = -(y_true * tf.math.log(p) + (1.0 - y_true) * tf.math.log(1.0 - p))
    return tf.reduce_mean(per, axis=axis)


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error


# -- weighting and reduction -----------------------------------------------------------------------------
def compute_weighted_loss(losses, sample_weight=None, reduction=Reduction.SUM_OVER_BATCH_SIZE):
    losses = tf.convert_to_tensor(losses)
    if sample_weight is not None:
        sw = tf.cast(sample_weight, losses.dtype)
        lr, sr = losses.shape.rank, sw.shape.rank
        if lr is not None and sr is not None:
            if sr == lr + 1 and sw.shape[-1] == 1:
                sw = tf.squeeze(sw, axis=-1)
            while sw.shape.rank < lr:
                sw = tf.expand_dims(sw, -1)
        losses = losses * sw
    if reduction == Reduction.NONE:
        return losses
    total = tf.reduce_sum(losses)
    if reduction == Reduction.SUM:
        return total
    return total / tf.cast(tf.size(losses), losses.dtype)


class Loss:
    """`loss(y_true, y_pred, sample_weight=None)`: `call` gives per-sample losses, then weighting and reduction
    (by default the mean over all per-sample values)."""

    def __init__(self, reduction=Reduction.AUTO, name=None):
        Reduction.validate(reduction)
        self.reduction = reduction
        self.name = name

    def __call__(self, y_true, y_pred, sample_weight=None):
        losses = self.call(y_true, y_pred)
        reduction = Reduction.SUM_OVER_BATCH_SIZE if self.reduction == Reduction.AUTO else self.reduction
        return compute_weighted_loss(losses, sample_weight, reduction)

    def call(self, y_true, y_pred):
        raise NotImplementedError("Must be implemented in subclasses.")

    def get_config(self):
        return {"reduction": self.reduction, "name": self.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class LossFunctionWrapper(Loss):
    def __init__(self, fn, reduction=Reduction.AUTO, name=None, **kwargs):
        super().__init__(reduction=reduction, name=name)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true, y_pred):
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self):
        return {**super().get_config(), **self._fn_kwargs}


class MeanSquaredError(LossFunctionWrapper):
    def __init__(self, reduction=Reduction.AUTO, name="mean_squared_error"):
        super().__init__(mean_squared_error, reduction=reduction, name=name)


class MeanAbsoluteError(LossFunctionWrapper):
    def __init__(self, reduction=Reduction.AUTO, name="mean_absolute_error"):
        super().__init__(mean_absolute_error, reduction=reduction, name=name)


class MeanAbsolutePercentageError(LossFunctionWrapper):
    def __init__(self, reduction=Reduction.AUTO, name="mean_absolute_percentage_error"):
        super().__init__(mean_absolute_percentage_error, reduction=reduction, name=name)


class Huber(LossFunctionWrapper):
    def __init__(self, delta=1.0, reduction=Reduction.AUTO, name="huber_loss"):
        super().__init__(huber, reduction=reduction, name=name, delta=delta)


class SparseCategoricalCrossentropy(LossFunctionWrapper):
    def __init__(self, from_logits=False, reduction=Reduction.AUTO, name="sparse_categorical_crossentropy",
                 ignore_class=None):
        super().__init__(sparse_categorical_crossentropy, reduction=reduction, name=name, from_logits=from_logits)
        self.from_logits = from_logits


class CategoricalCrossentropy(LossFunctionWrapper):
    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1, reduction=Reduction.AUTO,
                 name="categorical_crossentropy"):
        super().__init__(categorical_crossentropy, reduction=reduction, name=name, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits


class BinaryCrossentropy(LossFunctionWrapper):
    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1, reduction=Reduction.AUTO,
                 name="binary_crossentropy"):
        super().__init__(binary_crossentropy, reduction=reduction, name=name, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits


_BY_NAME = {
    "mean_squared_error": mean_squared_error, "mse": mean_squared_error, "MSE": mean_squared_error,
    "mean_absolute_error": mean_absolute_error, "mae": mean_absolute_error, "MAE": mean_absolute_error,
    "mean_absolute_percentage_error": mean_absolute_percentage_error, "mape": mean_absolute_percentage_error,
    "huber": huber, "huber_loss": huber,
    "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
    "categorical_crossentropy": categorical_crossentropy, "binary_crossentropy": binary_crossentropy,
}
_CLASSES = {c.__name__: c for c in (MeanSquaredError, MeanAbsoluteError, MeanAbsolutePercentageError, Huber,
                                    SparseCategoricalCrossentropy, CategoricalCrossentropy, BinaryCrossentropy)}


def get(identifier):
    """A name ('mse', 'sparse_categorical_crossentropy', 'MeanSquaredError'), a Loss, or a callable."""
    if identifier is None:
        return None
    if isinstance(identifier, str):
        if identifier in _BY_NAME:
            return _BY_NAME[identifier]
        if identifier in _CLASSES:
            return _CLASSES[identifier]()
        raise ValueError(f"Unknown loss function: {identifier}. Please ensure this object is passed to the "
                         f"`custom_objects` argument.")
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret loss function identifier: {identifier!r}")
