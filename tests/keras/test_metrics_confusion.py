"""TruePositives/FalsePositives/TrueNegatives/FalseNegatives and the *At* metrics, with the values of
tf_keras 2.21's docstrings."""
import numpy as np
import pytest

import rivulet as tf

metrics = tf.keras.metrics


@pytest.mark.parametrize("cls, y_true, y_pred, name", [
    ("TruePositives", [0, 1, 1, 1], [1, 0, 1, 1], "true_positives"),
    ("FalsePositives", [0, 1, 0, 0], [0, 0, 1, 1], "false_positives"),
    ("TrueNegatives", [0, 1, 0, 0], [1, 1, 0, 0], "true_negatives"),
    ("FalseNegatives", [0, 1, 1, 1], [0, 1, 0, 0], "false_negatives"),
])
def test_condition_counts_docstring_values(cls, y_true, y_pred, name):
    m = getattr(metrics, cls)()
    assert m.name == name and m.dtype == "float32"
    m.update_state(y_true, y_pred)
    r = m.result()
    assert r.shape == () and r.dtype == tf.float32 and r.numpy() == 2.0
    m.reset_state()
    m.update_state(y_true, y_pred, sample_weight=[0, 0, 1, 0])
    assert m.result().numpy() == 1.0
    assert [v.name for v in m.variables] == [f"{name}/accumulator:0"] or len(m.variables) == 1


def test_condition_counts_threshold_list_dtype_and_config():
    m = metrics.TruePositives(thresholds=[0.3, 0.9], name="tp", dtype="float64")
    m.update_state([0, 1, 1, 1], [1.0, 0.5, 1.0, 0.95])
    np.testing.assert_array_equal(m.result().numpy(), [3.0, 2.0])
    assert m.result().dtype == tf.float64
    m.update_state([1], [0.6])  # accumulates
    np.testing.assert_array_equal(m.result().numpy(), [4.0, 2.0])
    cfg = m.get_config()
    assert cfg == {"name": "tp", "dtype": "float64", "thresholds": [0.3, 0.9]}
    m2 = metrics.TruePositives.from_config(cfg)
    assert m2.name == "tp" and m2.thresholds == [0.3, 0.9]
    fn = metrics.FalseNegatives(thresholds=0.7)  # a single threshold: a scalar result
    fn.update_state([[1], [1], [0]], [[0.7], [0.8], [0.1]])
    assert fn.result().shape == () and fn.result().numpy() == 1.0  # 0.7 is not above 0.7
    with pytest.raises(ValueError, match=r"Threshold values must be in \[0, 1\]. Received: \[1.5\]"):
        metrics.FalsePositives(thresholds=[0.5, 1.5])


@pytest.mark.parametrize("cls, value, y_true, y_pred, weights, plain, weighted", [
    ("SensitivityAtSpecificity", 0.5, [0, 0, 0, 1, 1], [0, 0.3, 0.8, 0.3, 0.8], [1, 1, 2, 2, 1], 0.5, 1 / 3),
    ("SpecificityAtSensitivity", 0.5, [0, 0, 0, 1, 1], [0, 0.3, 0.8, 0.3, 0.8], [1, 1, 2, 2, 2], 2 / 3, 0.5),
    ("PrecisionAtRecall", 0.5, [0, 0, 0, 1, 1], [0, 0.3, 0.8, 0.3, 0.8], [2, 2, 2, 1, 1], 0.5, 1 / 3),
    ("RecallAtPrecision", 0.8, [0, 0, 1, 1], [0, 0.5, 0.3, 0.9], [1, 0, 0, 1], 0.5, 1.0),
])
def test_at_metrics_docstring_values(cls, value, y_true, y_pred, weights, plain, weighted):
    m = getattr(metrics, cls)(value)
    m.update_state(y_true, y_pred)
    assert m.result().numpy() == pytest.approx(plain, abs=1e-6)
    m.reset_state()
    m.update_state(y_true, y_pred, sample_weight=weights)
    assert m.result().numpy() == pytest.approx(weighted, abs=1e-6)
    cfg = m.get_config()
    arg = {"SensitivityAtSpecificity": "specificity", "SpecificityAtSensitivity": "sensitivity",
           "PrecisionAtRecall": "recall", "RecallAtPrecision": "precision"}[cls]
    assert cfg[arg] == value and cfg["num_thresholds"] == 200 and cfg["class_id"] is None
    assert type(m).from_config(cfg).get_config() == cfg
    with pytest.raises(ValueError, match=rf"Argument `{arg}` must be in the range \[0, 1\]. Received: {arg}=2"):
        getattr(metrics, cls)(2)


def test_confusion_metrics_in_compile_fit_and_evaluate():
    rng = np.random.default_rng(0)
    x = rng.random((64, 3)).astype("float32")
    y = (rng.random(64) > 0.7).astype("int64")
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, activation="sigmoid", input_shape=(3,))])
    model.compile(optimizer="adam", loss="binary_crossentropy",
                  metrics=[metrics.TruePositives(name="tp"), metrics.FalsePositives(name="fp"),
                           metrics.TrueNegatives(name="tn"), metrics.FalseNegatives(name="fn"),
                           metrics.AUC(name="prc", curve="PR")])
    hist = model.fit(x, y, batch_size=16, epochs=1, validation_data=(x, y), verbose=0)
    assert list(hist.history) == ["loss", "tp", "fp", "tn", "fn", "prc",
                                  "val_loss", "val_tp", "val_fp", "val_tn", "val_fn", "val_prc"]
    res = model.evaluate(x, y, verbose=0, return_dict=True)
    assert res["tp"] + res["fp"] + res["tn"] + res["fn"] == 64.0
    assert res["tp"] + res["fn"] == float(y.sum())
    p = model.predict(x, verbose=0)[:, 0]
    assert res["tp"] == float(np.sum((p > 0.5) & (y == 1)))
    assert model.metrics_names == ["loss", "tp", "fp", "tn", "fn", "prc"]


def test_metric_metrics_lists_the_metrics_it_holds():
    assert metrics.MeanAbsoluteError().metrics == []

    class F1(metrics.Metric):
        def __init__(self, name="f1", **kwargs):
            super().__init__(name=name, **kwargs)
            self.precision = metrics.Precision()
            self.recall = metrics.Recall()

        def update_state(self, y_true, y_pred, sample_weight=None):
            self.precision.update_state(y_true, y_pred, sample_weight)
            self.recall.update_state(y_true, y_pred, sample_weight)

        def result(self):
            p, r = self.precision.result(), self.recall.result()
            return 2 * p * r / (p + r)

    f1 = F1()
    assert [m.name for m in f1.metrics] == ["precision", "recall"]
    f1.update_state([0, 1, 1, 1], [1, 0, 1, 1])
    assert f1.result().numpy() == pytest.approx(2 / 3)
