"""tf.keras.metrics: stateful metrics whose totals live in non-trainable variables, so `update_state` works
eagerly and inside traced train steps alike."""
import rivulet as tf

from . import backend, losses as _losses


# -- per-sample functions -------------------------------------------------------------------------------
def accuracy(y_true, y_pred):
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.cast(y_true, y_pred.dtype)
    return tf.cast(tf.equal(y_true, y_pred), backend.floatx())


def binary_matches(y_true, y_pred, threshold=0.5):
    """1.0 where the thresholded prediction equals the label, element by element (BinaryAccuracy's values)."""
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.cast(y_true, y_pred.dtype)
    hit = tf.equal(y_true, tf.cast(y_pred > threshold, y_pred.dtype))
    return tf.cast(hit, backend.floatx())


def binary_accuracy(y_true, y_pred, threshold=0.5):
    return tf.reduce_mean(binary_matches(y_true, y_pred, threshold), axis=-1)


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


def _in_top_k(y_pred, label, k):
    """1.0 where the label's score is among the k highest (ties counted in, as tf.math.in_top_k does)."""
    label = tf.cast(label, tf.int32)
    depth = y_pred.shape[-1] if y_pred.shape.rank is not None else None
    if depth is not None:
        target = tf.reduce_sum(y_pred * tf.one_hot(label, depth, dtype=y_pred.dtype), axis=-1)
    else:
        target = tf.gather(y_pred, label, batch_dims=1)
    above = tf.reduce_sum(tf.cast(y_pred > tf.expand_dims(target, -1), tf.int32), axis=-1)
    return tf.cast(above < k, backend.floatx())


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    y_pred = tf.convert_to_tensor(y_pred)
    return _in_top_k(y_pred, tf.argmax(y_true, axis=-1), k)


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5):
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.convert_to_tensor(y_true)
    if y_true.shape.rank is not None and y_pred.shape.rank is not None and \
            y_true.shape.rank == y_pred.shape.rank and y_true.shape[-1] == 1:
        y_true = tf.squeeze(y_true, axis=-1)
    return _in_top_k(y_pred, y_true, k)


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

    @property
    def metrics(self):
        """The metrics this one holds in its attributes, and theirs (a tf_keras Metric is a Layer, whose
        `metrics` collects the Metric objects set on it): [] for a plain metric."""
        found, seen = [], {id(self)}

        def visit(value):
            if isinstance(value, Metric):
                if id(value) not in seen:
                    seen.add(id(value))
                    found.append(value)
                    for v in vars(value).values():
                        visit(v)
            elif isinstance(value, (list, tuple)):
                for v in value:
                    visit(v)
            elif isinstance(value, dict):
                for v in value.values():
                    visit(v)
        for v in vars(self).values():
            visit(v)
        return found

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

    @classmethod
    def from_config(cls, config):
        return cls(**config)


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
        # as tf_keras: both cast to the metric's dtype (uint8 or int64 labels alike), then matched by rank
        y_true = tf.cast(y_true, self._dtype)
        y_pred = tf.cast(y_pred, self._dtype)
        y_pred, y_true = _losses.squeeze_or_expand_dimensions(y_pred, y_true)
        values = self._fn(y_true, y_pred, **self._fn_kwargs)
        # entries the function masked out (ignore_class) are left out of the mean
        super().update_state(values, _losses.apply_valid_mask(values, sample_weight, "weighted_mean"))

    def get_config(self):
        return {**super().get_config(), **self._fn_kwargs}


def _wrapper(cls_name, fn, default_name, **defaults):
    def __init__(self, name=default_name, dtype=None, **kwargs):
        MeanMetricWrapper.__init__(self, fn, name=name, dtype=dtype, **{**defaults, **kwargs})
    return type(cls_name, (MeanMetricWrapper,), {"__init__": __init__})


Accuracy = _wrapper("Accuracy", accuracy, "accuracy")
# (per element, as tf_keras: labels (batch,) against predictions (batch, 1) are weighted sample by sample)
BinaryAccuracy = _wrapper("BinaryAccuracy", binary_matches, "binary_accuracy", threshold=0.5)
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

MeanAbsolutePercentageError = _wrapper("MeanAbsolutePercentageError", _losses.mean_absolute_percentage_error,
                                       "mean_absolute_percentage_error")
MeanSquaredLogarithmicError = _wrapper("MeanSquaredLogarithmicError", _losses.mean_squared_logarithmic_error,
                                       "mean_squared_logarithmic_error")
KLDivergence = _wrapper("KLDivergence", _losses.kl_divergence, "kullback_leibler_divergence")
Hinge = _wrapper("Hinge", _losses.hinge, "hinge")
SquaredHinge = _wrapper("SquaredHinge", _losses.squared_hinge, "squared_hinge")
CategoricalHinge = _wrapper("CategoricalHinge", _losses.categorical_hinge, "categorical_hinge")
Poisson = _wrapper("Poisson", _losses.poisson, "poisson")
LogCoshError = _wrapper("LogCoshError", _losses.log_cosh, "logcosh")


class TopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the one-hot target is among the `k` highest predictions."""

    def __init__(self, k=5, name="top_k_categorical_accuracy", dtype=None):
        super().__init__(top_k_categorical_accuracy, name=name, dtype=dtype, k=k)


class SparseTopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the integer target is among the `k` highest predictions."""

    def __init__(self, k=5, name="sparse_top_k_categorical_accuracy", dtype=None):
        super().__init__(sparse_top_k_categorical_accuracy, name=name, dtype=dtype, k=k)


class CosineSimilarity(MeanMetricWrapper):
    """The mean cosine similarity of y_true and y_pred along `axis` (positive: 1 means the same direction)."""

    def __init__(self, name="cosine_similarity", dtype=None, axis=-1):
        super().__init__(lambda t, p, axis: -_losses.cosine_similarity(t, p, axis=axis), name=name, dtype=dtype,
                         axis=axis)


class RootMeanSquaredError(Mean):
    """sqrt of the (weighted) mean of squared errors over everything seen."""

    def __init__(self, name="root_mean_squared_error", dtype=None):
        super().__init__(name=name, dtype=dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true, y_pred = _losses._pred_true(y_true, y_pred)
        super().update_state(tf.square(y_pred - y_true), sample_weight)

    def result(self):
        return tf.sqrt(tf.math.divide_no_nan(self.total, self.count))


class _ConfusionCounts(Metric):
    """Precision and Recall: true positives and one kind of error, counted at `thresholds` (default 0.5)."""
    _ERROR = None

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        if top_k is not None:
            raise NotImplementedError(f"rivulet's {type(self).__name__} does not support `top_k`.")
        self.init_thresholds = thresholds
        self._single = thresholds is None or isinstance(thresholds, (int, float))
        values = [0.5 if thresholds is None else thresholds] if self._single else list(thresholds)
        for t in values:
            if not 0.0 <= t <= 1.0:
                raise ValueError(f"Threshold values must be in [0, 1]. Received: {values}")
        self.thresholds = values
        self.class_id = class_id
        self.true_positives = self.add_weight("true_positives", shape=(len(values),))
        self._errors = self.add_weight(self._ERROR, shape=(len(values),))
        setattr(self, self._ERROR, self._errors)

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = tf.convert_to_tensor(y_pred)
        y_true = tf.convert_to_tensor(y_true)
        if self.class_id is not None:
            y_true, y_pred = y_true[..., self.class_id], y_pred[..., self.class_id]
        weight = _threshold_weights(y_true, sample_weight, self._dtype)
        y_true = tf.reshape(tf.cast(y_true, tf.bool), [1, -1])
        y_pred = tf.reshape(tf.cast(y_pred, self._dtype), [1, -1])
        predicted = y_pred > tf.reshape(tf.constant(self.thresholds, dtype=self._dtype), [-1, 1])
        tp = tf.logical_and(predicted, y_true)
        err = tf.logical_and(predicted, tf.logical_not(y_true)) if self._ERROR == "false_positives" else \
            tf.logical_and(tf.logical_not(predicted), y_true)
        self.true_positives.assign_add(tf.reduce_sum(tf.cast(tp, self._dtype) * weight, axis=1))
        self._errors.assign_add(tf.reduce_sum(tf.cast(err, self._dtype) * weight, axis=1))

    def result(self):
        r = tf.math.divide_no_nan(self.true_positives, self.true_positives + self._errors)
        return r[0] if self._single else r

    def get_config(self):
        return {**super().get_config(), "thresholds": self.init_thresholds, "class_id": self.class_id}


class Precision(_ConfusionCounts):
    """true positives / predicted positives (predictions above the threshold count as positive)."""
    _ERROR = "false_positives"

    def __init__(self, thresholds=None, top_k=None, class_id=None, name="precision", dtype=None):
        super().__init__(thresholds, top_k, class_id, name, dtype)


class Recall(_ConfusionCounts):
    """true positives / actual positives."""
    _ERROR = "false_negatives"

    def __init__(self, thresholds=None, top_k=None, class_id=None, name="recall", dtype=None):
        super().__init__(thresholds, top_k, class_id, name, dtype)


def _confusion_counts(y_true, y_pred, thresholds, dtype, sample_weight=None, class_id=None):
    """(tp, fp, tn, fn), each of shape [len(thresholds)]: weighted counts of predictions above each threshold
    (strictly; predictions clipped to [0, 1]) against labels cast to bool, every element counted once."""
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.convert_to_tensor(y_true)
    if class_id is not None:
        y_true, y_pred = y_true[..., class_id], y_pred[..., class_id]
        if sample_weight is not None:
            sw = tf.convert_to_tensor(sample_weight)
            if sw.shape.rank is not None and sw.shape.rank == y_pred.shape.rank + 1 and sw.shape.rank > 1:
                sample_weight = sw[..., class_id]
    if y_true.shape.num_elements() is not None and y_pred.shape.num_elements() is not None and \
            y_true.shape.num_elements() != y_pred.shape.num_elements():
        raise ValueError(f"Shapes {y_pred.shape} and {y_true.shape} are incompatible")
    weight = _threshold_weights(y_true, sample_weight, dtype)
    label = tf.reshape(tf.cast(y_true, tf.bool), [1, -1])
    pred = tf.clip_by_value(tf.reshape(tf.cast(y_pred, dtype), [1, -1]), 0.0, 1.0)
    above = pred > tf.reshape(tf.constant(list(thresholds), dtype=dtype), [-1, 1])
    below, negative = tf.logical_not(above), tf.logical_not(label)

    def count(mask):
        return tf.reduce_sum(tf.cast(mask, dtype) * weight, axis=1)
    return (count(tf.logical_and(above, label)), count(tf.logical_and(above, negative)),
            count(tf.logical_and(below, negative)), count(tf.logical_and(below, label)))


def _parse_thresholds(thresholds, default=0.5):
    """tf_keras' parse_init_thresholds: None -> [default]; a number -> [it]; out-of-range ones named."""
    values = [default] if thresholds is None else \
        list(thresholds) if isinstance(thresholds, (list, tuple)) else [thresholds]
    bad = [t for t in values if t is None or t < 0 or t > 1]
    if bad:
        raise ValueError(f"Threshold values must be in [0, 1]. Received: {bad}")
    return values


class _ConfusionMatrixConditionCount(Metric):
    """TruePositives, FalsePositives, TrueNegatives, FalseNegatives: one count per threshold in the variable
    `accumulator` (a scalar result for one threshold, a vector for a list)."""
    _INDEX = None

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.thresholds = _parse_thresholds(thresholds)
        self.accumulator = self.add_weight("accumulator", shape=(len(self.thresholds),))

    def update_state(self, y_true, y_pred, sample_weight=None):
        counts = _confusion_counts(y_true, y_pred, self.thresholds, self._dtype, sample_weight)
        self.accumulator.assign_add(counts[self._INDEX])

    def result(self):
        return tf.convert_to_tensor(self.accumulator[0] if len(self.thresholds) == 1 else self.accumulator)

    def get_config(self):
        return {**super().get_config(), "thresholds": self.init_thresholds}


class TruePositives(_ConfusionMatrixConditionCount):
    """The (weighted) number of positive labels predicted above the threshold."""
    _INDEX = 0


class FalsePositives(_ConfusionMatrixConditionCount):
    """The (weighted) number of negative labels predicted above the threshold."""
    _INDEX = 1


class TrueNegatives(_ConfusionMatrixConditionCount):
    """The (weighted) number of negative labels predicted at or below the threshold."""
    _INDEX = 2


class FalseNegatives(_ConfusionMatrixConditionCount):
    """The (weighted) number of positive labels predicted at or below the threshold."""
    _INDEX = 3


class SensitivitySpecificityBase(Metric):
    """Confusion counts at `num_thresholds` evenly spaced thresholds in [0, 1]; `result()` is the largest
    value of one rate among the thresholds where another rate reaches `value` (0.0 where none does)."""
    _ARG = None

    def __init__(self, value, num_thresholds=200, class_id=None, name=None, dtype=None):
        if self._ARG is not None and (value < 0 or value > 1):
            raise ValueError(f"Argument `{self._ARG}` must be in the range [0, 1]. Received: {self._ARG}={value}")
        if num_thresholds <= 0:
            raise ValueError(f"Argument `num_thresholds` must be an integer > 0. Received: "
                             f"num_thresholds={num_thresholds}")
        super().__init__(name=name, dtype=dtype)
        self.value, self.class_id, self.num_thresholds = value, class_id, num_thresholds
        if self._ARG is not None:
            setattr(self, self._ARG, value)
        self.true_positives = self.add_weight("true_positives", shape=(num_thresholds,))
        self.true_negatives = self.add_weight("true_negatives", shape=(num_thresholds,))
        self.false_positives = self.add_weight("false_positives", shape=(num_thresholds,))
        self.false_negatives = self.add_weight("false_negatives", shape=(num_thresholds,))
        self.thresholds = [0.5] if num_thresholds == 1 else \
            [0.0] + [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)] + [1.0]

    def update_state(self, y_true, y_pred, sample_weight=None):
        tp, fp, tn, fn = _confusion_counts(y_true, y_pred, self.thresholds, self._dtype, sample_weight,
                                           self.class_id)
        self.true_positives.assign_add(tp)
        self.false_positives.assign_add(fp)
        self.true_negatives.assign_add(tn)
        self.false_negatives.assign_add(fn)

    def _rates(self):
        tp, fp, tn, fn = self.true_positives, self.false_positives, self.true_negatives, self.false_negatives
        return {"sensitivity": tf.math.divide_no_nan(tp, tp + fn), "recall": tf.math.divide_no_nan(tp, tp + fn),
                "specificity": tf.math.divide_no_nan(tn, tn + fp), "precision": tf.math.divide_no_nan(tp, tp + fp)}

    def _max_where(self, constrained, dependent):
        rates = self._rates()
        feasible = rates[constrained] >= tf.cast(self.value, self._dtype)
        best = tf.reduce_max(tf.where(feasible, rates[dependent], tf.zeros_like(rates[dependent])))
        return tf.where(tf.reduce_any(feasible), best, tf.zeros_like(best))

    def get_config(self):
        config = {**super().get_config(), "class_id": self.class_id}
        if self._ARG is not None:
            config.update({"num_thresholds": self.num_thresholds, self._ARG: self.value})
        return config


class SensitivityAtSpecificity(SensitivitySpecificityBase):
    """The best sensitivity (recall) among thresholds whose specificity is >= `specificity`."""
    _ARG = "specificity"

    def __init__(self, specificity, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(specificity, num_thresholds, class_id, name, dtype)

    def result(self):
        return self._max_where("specificity", "sensitivity")


class SpecificityAtSensitivity(SensitivitySpecificityBase):
    """The best specificity among thresholds whose sensitivity (recall) is >= `sensitivity`."""
    _ARG = "sensitivity"

    def __init__(self, sensitivity, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(sensitivity, num_thresholds, class_id, name, dtype)

    def result(self):
        return self._max_where("sensitivity", "specificity")


class PrecisionAtRecall(SensitivitySpecificityBase):
    """The best precision among thresholds whose recall is >= `recall`."""
    _ARG = "recall"

    def __init__(self, recall, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(recall, num_thresholds, class_id, name, dtype)

    def result(self):
        return self._max_where("recall", "precision")


class RecallAtPrecision(SensitivitySpecificityBase):
    """The best recall among thresholds whose precision is >= `precision`."""
    _ARG = "precision"

    def __init__(self, precision, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(precision, num_thresholds, class_id, name, dtype)

    def result(self):
        return self._max_where("precision", "recall")


class AUC(Metric):
    """Area under the ROC (or PR) curve, approximated from confusion counts at `num_thresholds` thresholds.

    Thresholds (by default) are i / (num_thresholds - 1) for i = 1 .. num_thresholds - 2, with -1e-7 and
    1 + 1e-7 at the ends; a prediction above a threshold counts as positive. ROC: the trapezoidal sum of
    recall over the false-positive rate ('interpolation'), or of the smaller ('minoring') / larger
    ('majoring') recall of each interval. PR with 'interpolation' integrates precision over recall with
    Davis & Goadrich's interpolation between thresholds. Labels and predictions are flattened
    (multi_label=False); `from_logits` applies a sigmoid first.
    """
    _EPSILON = 1e-7

    def __init__(self, num_thresholds=200, curve="ROC", summation_method="interpolation", name=None, dtype=None,
                 thresholds=None, multi_label=False, num_labels=None, label_weights=None, from_logits=False):
        super().__init__(name=name or "auc", dtype=dtype)
        if str(curve).upper() not in ("ROC", "PR"):
            raise ValueError(f'Invalid AUC curve value: "{curve}". Expected values are ["ROC", "PR"]')
        if str(summation_method).lower() not in ("interpolation", "minoring", "majoring"):
            raise ValueError(f'Invalid AUC summation method value: "{summation_method}". Expected values are '
                             f'["interpolation", "majoring", "minoring"]')
        if multi_label or label_weights is not None:
            raise NotImplementedError("rivulet's AUC supports multi_label=False without label_weights only.")
        self.curve, self.summation_method = str(curve).upper(), str(summation_method).lower()
        self.multi_label, self.from_logits = multi_label, from_logits
        if thresholds is not None:
            inner = sorted(float(t) for t in thresholds)
            for t in inner:
                if not 0.0 <= t <= 1.0:
                    raise ValueError(f"Threshold values must be in [0, 1]. Received: {inner}")
            self.num_thresholds = len(inner) + 2
        else:
            if isinstance(num_thresholds, bool) or not isinstance(num_thresholds, int) or num_thresholds <= 1:
                raise ValueError(f"Argument `num_thresholds` must be an integer > 1. Received: "
                                 f"num_thresholds={num_thresholds}")
            self.num_thresholds = num_thresholds
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        self._init_thresholds = thresholds
        self._thresholds = [0.0 - self._EPSILON] + inner + [1.0 + self._EPSILON]
        n = self.num_thresholds
        self.true_positives = self.add_weight("true_positives", shape=(n,))
        self.true_negatives = self.add_weight("true_negatives", shape=(n,))
        self.false_positives = self.add_weight("false_positives", shape=(n,))
        self.false_negatives = self.add_weight("false_negatives", shape=(n,))

    @property
    def thresholds(self):
        return list(self._thresholds)

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = tf.cast(tf.convert_to_tensor(y_pred), self._dtype)
        y_true = tf.convert_to_tensor(y_true)
        if self.from_logits:
            y_pred = tf.sigmoid(y_pred)
        weight = _threshold_weights(y_true, sample_weight, self._dtype)
        label = tf.reshape(tf.cast(y_true, tf.bool), [1, -1])
        pred = tf.reshape(y_pred, [1, -1])
        above = pred > tf.reshape(tf.constant(self._thresholds, dtype=self._dtype), [-1, 1])
        below = tf.logical_not(above)
        negative = tf.logical_not(label)

        def count(mask):
            return tf.reduce_sum(tf.cast(mask, self._dtype) * weight, axis=1)
        self.true_positives.assign_add(count(tf.logical_and(above, label)))
        self.false_positives.assign_add(count(tf.logical_and(above, negative)))
        self.true_negatives.assign_add(count(tf.logical_and(below, negative)))
        self.false_negatives.assign_add(count(tf.logical_and(below, label)))

    def result(self):
        tp, fp, tn, fn = self.true_positives, self.false_positives, self.true_negatives, self.false_negatives
        n = self.num_thresholds
        if self.curve == "PR" and self.summation_method == "interpolation":
            return self._pr_interpolated(tp, fp, fn, n)
        recall = tf.math.divide_no_nan(tp, tp + fn)
        if self.curve == "ROC":
            x, y = tf.math.divide_no_nan(fp, fp + tn), recall
        else:
            x, y = recall, tf.math.divide_no_nan(tp, tp + fp)
        if self.summation_method == "interpolation":
            heights = (y[:n - 1] + y[1:]) / 2.0
        elif self.summation_method == "minoring":
            heights = tf.minimum(y[:n - 1], y[1:])
        else:
            heights = tf.maximum(y[:n - 1], y[1:])
        return tf.reduce_sum((x[:n - 1] - x[1:]) * heights)

    @staticmethod
    def _pr_interpolated(tp, fp, fn, n):
        """Precision is interpolated between thresholds as tp / p with tp linear in p (p = tp + fp)."""
        dtp = tp[:n - 1] - tp[1:]
        p = tp + fp
        dp = p[:n - 1] - p[1:]
        slope = tf.math.divide_no_nan(dtp, tf.maximum(dp, 0.0))
        intercept = tp[1:] - slope * p[1:]
        both = tf.logical_and(p[:n - 1] > 0, p[1:] > 0)
        ratio = tf.where(both, tf.math.divide_no_nan(p[:n - 1], tf.maximum(p[1:], 0.0)), tf.ones_like(p[1:]))
        increments = tf.math.divide_no_nan(slope * (dtp + intercept * tf.math.log(ratio)),
                                           tf.maximum(tp[1:] + fn[1:], 0.0))
        return tf.reduce_sum(increments)

    def get_config(self):
        return {**super().get_config(), "num_thresholds": self.num_thresholds, "curve": self.curve,
                "summation_method": self.summation_method, "multi_label": self.multi_label,
                "from_logits": self.from_logits,
                "thresholds": self._thresholds[1:-1] if self._init_thresholds is not None else None}


mse = MSE = _losses.mean_squared_error
mae = MAE = _losses.mean_absolute_error
mape = MAPE = _losses.mean_absolute_percentage_error
msle = MSLE = _losses.mean_squared_logarithmic_error
_FUNCTIONS = {"accuracy": accuracy, "binary_accuracy": binary_accuracy, "categorical_accuracy": categorical_accuracy,
              "sparse_categorical_accuracy": sparse_categorical_accuracy, "mse": mse, "mean_squared_error": mse,
              "mae": mae, "mean_absolute_error": mae,
              "sparse_categorical_crossentropy": _losses.sparse_categorical_crossentropy,
              "categorical_crossentropy": _losses.categorical_crossentropy,
              "binary_crossentropy": _losses.binary_crossentropy,
              "mape": mape, "mean_absolute_percentage_error": mape, "msle": msle,
              "mean_squared_logarithmic_error": msle, "kld": _losses.kld, "kl_divergence": _losses.kld,
              "hinge": _losses.hinge, "squared_hinge": _losses.squared_hinge,
              "categorical_hinge": _losses.categorical_hinge, "poisson": _losses.poisson,
              "logcosh": _losses.log_cosh, "log_cosh": _losses.log_cosh,
              "top_k_categorical_accuracy": top_k_categorical_accuracy,
              "sparse_top_k_categorical_accuracy": sparse_top_k_categorical_accuracy}
_CLASSES = {c.__name__: c for c in (Accuracy, BinaryAccuracy, CategoricalAccuracy, SparseCategoricalAccuracy,
                                    MeanSquaredError, MeanAbsoluteError, SparseCategoricalCrossentropy,
                                    CategoricalCrossentropy, BinaryCrossentropy, Mean, Sum,
                                    MeanAbsolutePercentageError, MeanSquaredLogarithmicError, KLDivergence, Hinge,
                                    SquaredHinge, CategoricalHinge, Poisson, LogCoshError,
                                    TopKCategoricalAccuracy, SparseTopKCategoricalAccuracy, CosineSimilarity,
                                    RootMeanSquaredError, Precision, Recall, AUC, TruePositives,
                                    FalsePositives, TrueNegatives, FalseNegatives)}


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


def _threshold_weights(y_true, sample_weight, dtype):
    """Per-example weights as one row [1, N] (sample_weight broadcast over y_true), for the
    thresholded confusion counts of Precision/Recall and AUC."""
    weight = tf.ones_like(tf.cast(y_true, dtype))
    if sample_weight is not None:
        sw = tf.cast(sample_weight, dtype)
        while sw.shape.rank is not None and weight.shape.rank is not None and sw.shape.rank < weight.shape.rank:
            sw = tf.expand_dims(sw, -1)
        weight = weight * sw
    return tf.reshape(weight, [1, -1])
