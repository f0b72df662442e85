"""tf.keras.losses: per-sample loss functions, and Loss classes that weight and reduce them."""
import rivulet as tf
from rivulet.core.tensor import Tensor

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


def _is_tensor(x):
    return isinstance(x, (Tensor, tf.Variable))


def _compatible_with_1(dim):
    return dim is None or dim == 1


def squeeze_or_expand_dimensions(y_pred, y_true):
    """tf_keras's rank matching of labels and predictions (static ranks): a trailing dimension of 1 is
    dropped from whichever is one rank higher, unless `y_true` holds sparse labels against class scores
    (rank one lower and a last prediction dimension other than 1)."""
    pr, tr = y_pred.shape.rank, y_true.shape.rank
    if pr is None or tr is None:
        return y_pred, y_true
    if pr - tr != 1 or y_pred.shape[-1] == 1:
        if pr - tr == 1 and _compatible_with_1(y_pred.shape[-1]):
            y_pred = tf.squeeze(y_pred, [-1])
        elif pr - tr == -1 and _compatible_with_1(y_true.shape[-1]):
            y_true = tf.squeeze(y_true, [-1])
    return y_pred, y_true


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
    labels = y_true if y_true.dtype == tf.int64 else tf.cast(y_true, tf.int64)  # any integer or float labels
    logits = y_pred if from_logits else tf.math.log(_clip(y_pred))
    if ignore_class is None:
        return tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    # the ignored class (a segmentation map's "void", often -1 or 255) gives 0, and a mask that Loss and
    # metric reductions leave out of their means
    valid = tf.not_equal(labels, tf.cast(ignore_class, tf.int64))
    zeros = tf.zeros_like(labels)
    res = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.where(valid, labels, zeros), logits=logits)
    res = tf.where(valid, res, tf.zeros_like(res))
    from .layers.masking import set_mask
    set_mask(res, valid)
    return res


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


def mean_squared_logarithmic_error(y_true, y_pred):
    y_true, y_pred = _pred_true(y_true, y_pred)
    eps = backend.epsilon()
    first = tf.math.log1p(tf.maximum(y_pred, eps))
    second = tf.math.log1p(tf.maximum(y_true, eps))
    return tf.reduce_mean(tf.square(first - second), axis=-1)


def kl_divergence(y_true, y_pred):
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true = tf.clip_by_value(y_true, backend.epsilon(), 1.0)
    y_pred = tf.clip_by_value(y_pred, backend.epsilon(), 1.0)
    return tf.reduce_sum(y_true * tf.math.log(y_true / y_pred), axis=-1)


def _signed_labels(y_true):
    """Labels given as 0/1 become -1/1 (hinge losses want signed labels); other labels are kept."""
    binary = tf.reduce_all(tf.logical_or(tf.equal(y_true, 0.0), tf.equal(y_true, 1.0)))
    return tf.where(binary, 2.0 * y_true - 1.0, y_true)


def hinge(y_true, y_pred):
    y_true, y_pred = _pred_true(y_true, y_pred)
    return tf.reduce_mean(tf.maximum(1.0 - _signed_labels(y_true) * y_pred, 0.0), axis=-1)


def squared_hinge(y_true, y_pred):
    y_true, y_pred = _pred_true(y_true, y_pred)
    return tf.reduce_mean(tf.square(tf.maximum(1.0 - _signed_labels(y_true) * y_pred, 0.0)), axis=-1)


def categorical_hinge(y_true, y_pred):
    y_true, y_pred = _pred_true(y_true, y_pred)
    pos = tf.reduce_sum(y_true * y_pred, axis=-1)
    neg = tf.reduce_max((1.0 - y_true) * y_pred, axis=-1)
    return tf.maximum(neg - pos + 1.0, 0.0)


def poisson(y_true, y_pred):
    y_true, y_pred = _pred_true(y_true, y_pred)
    return tf.reduce_mean(y_pred - y_true * tf.math.log(y_pred + backend.epsilon()), axis=-1)


def cosine_similarity(y_true, y_pred, axis=-1):
    y_true, y_pred = _pred_true(y_true, y_pred)
    return -tf.reduce_sum(tf.nn.l2_normalize(y_true, axis=axis) * tf.nn.l2_normalize(y_pred, axis=axis), axis=axis)


def log_cosh(y_true, y_pred):
    y_true, y_pred = _pred_true(y_true, y_pred)
    x = y_pred - y_true
    return tf.reduce_mean(x + tf.nn.softplus(-2.0 * x) - tf.cast(tf.math.log(2.0), x.dtype), axis=-1)


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kullback_leibler_divergence = kl_divergence
logcosh = log_cosh


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


def apply_valid_mask(values, sample_weight, reduction):
    """Sample weights that leave out the entries masked on `values` (sparse crossentropy's ignore_class):
    for a mean over the batch the valid entries weigh total/valid, so the mean is over the valid ones."""
    from .layers.masking import get_mask
    mask = get_mask(values) if isinstance(values, Tensor) else None
    if mask is None:
        return sample_weight
    mask = tf.cast(mask, values.dtype)
    if reduction in (Reduction.AUTO, Reduction.SUM_OVER_BATCH_SIZE):
        mask = mask * (tf.cast(tf.size(mask), values.dtype) / tf.reduce_sum(mask))
    if sample_weight is None:
        return mask
    sw = tf.cast(sample_weight, values.dtype)
    mr, sr = mask.shape.rank, sw.shape.rank
    if mr is not None and sr is not None and sr > 0:
        if sr == mr + 1:
            sw = tf.squeeze(sw, [-1])
        elif mr == sr + 1:
            sw = tf.expand_dims(sw, -1)
    return sw * mask


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
        sample_weight = apply_valid_mask(losses, sample_weight, reduction)
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
        if _is_tensor(y_pred) and _is_tensor(y_true):
            # as tf_keras: labels (batch,) against predictions (batch, 1) are matched by rank (only for
            # tensors: NumPy arrays given straight to a loss broadcast, as in TensorFlow)
            y_pred, y_true = squeeze_or_expand_dimensions(tf.convert_to_tensor(y_pred), tf.convert_to_tensor(y_true))
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


def _simple(cls_name, fn, default_name):
    def __init__(self, reduction=Reduction.AUTO, name=default_name):
        LossFunctionWrapper.__init__(self, fn, reduction=reduction, name=name)
    return type(cls_name, (LossFunctionWrapper,), {"__init__": __init__, "__doc__": f"The mean of `{fn.__name__}`."})


MeanSquaredLogarithmicError = _simple("MeanSquaredLogarithmicError", mean_squared_logarithmic_error,
                                      "mean_squared_logarithmic_error")
KLDivergence = _simple("KLDivergence", kl_divergence, "kl_divergence")
Hinge = _simple("Hinge", hinge, "hinge")
SquaredHinge = _simple("SquaredHinge", squared_hinge, "squared_hinge")
CategoricalHinge = _simple("CategoricalHinge", categorical_hinge, "categorical_hinge")
Poisson = _simple("Poisson", poisson, "poisson")
LogCosh = _simple("LogCosh", log_cosh, "log_cosh")


class CosineSimilarity(LossFunctionWrapper):
    def __init__(self, axis=-1, reduction=Reduction.AUTO, name="cosine_similarity"):
        super().__init__(cosine_similarity, reduction=reduction, name=name, axis=axis)


class SparseCategoricalCrossentropy(LossFunctionWrapper):
    def __init__(self, from_logits=False, reduction=Reduction.AUTO, name="sparse_categorical_crossentropy",
                 ignore_class=None):
        super().__init__(sparse_categorical_crossentropy, reduction=reduction, name=name, from_logits=from_logits,
                         ignore_class=ignore_class)
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
    "mean_squared_logarithmic_error": msle, "msle": msle, "MSLE": msle,
    "kl_divergence": kld, "kld": kld, "KLD": kld, "kullback_leibler_divergence": kld,
    "hinge": hinge, "squared_hinge": squared_hinge, "categorical_hinge": categorical_hinge, "poisson": poisson,
    "cosine_similarity": cosine_similarity, "log_cosh": log_cosh, "logcosh": log_cosh,
}
_CLASSES = {c.__name__: c for c in (MeanSquaredError, MeanAbsoluteError, MeanAbsolutePercentageError, Huber,
                                    SparseCategoricalCrossentropy, CategoricalCrossentropy, BinaryCrossentropy,
                                    MeanSquaredLogarithmicError, KLDivergence, Hinge, SquaredHinge,
                                    CategoricalHinge, Poisson, LogCosh, CosineSimilarity)}


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
