import numpy as np
import pytest

import rivulet as tf

metrics = tf.keras.metrics


def test_mean_weighted_and_reset():
    m = metrics.Mean()
    m.update_state([1.0, 2.0, 3.0], sample_weight=[1.0, 0.0, 1.0])
    assert float(m.result()) == pytest.approx(2.0)
    m.update_state(10.0)
    assert float(m.result()) == pytest.approx(14.0 / 3)
    m.reset_state()
    assert float(m.result()) == 0.0
    assert float(m([4.0, 6.0])) == pytest.approx(5.0)  # calling updates and returns the result


def test_accuracy_metrics():
    p = np.array([[0.1, 0.8, 0.1], [0.6, 0.3, 0.1], [0.2, 0.3, 0.5], [0.4, 0.5, 0.1]], "float32")
    y = np.array([1, 0, 1, 1])
    sca = metrics.SparseCategoricalAccuracy()
    sca.update_state(y, p)
    assert float(sca.result()) == pytest.approx(0.75)
    sca.update_state(y[:, None], p)  # labels with a trailing unit axis
    assert float(sca.result()) == pytest.approx(0.75)
    ca = metrics.CategoricalAccuracy()
    ca.update_state(np.eye(3)[y], p)
    assert float(ca.result()) == pytest.approx(0.75)
    ba = metrics.BinaryAccuracy()
    ba.update_state([[1], [0], [1]], [[0.7], [0.6], [0.2]])
    assert float(ba.result()) == pytest.approx(1 / 3)
    acc = metrics.Accuracy()
    acc.update_state([1, 2, 3, 4], [1, 2, 0, 4])
    assert float(acc.result()) == pytest.approx(0.75)


def test_metric_names_and_variables_are_non_trainable():
    m = metrics.SparseCategoricalAccuracy()
    assert m.name == "sparse_categorical_accuracy"
    assert len(m.variables) == 2 and not any(v.trainable for v in m.variables)


def test_update_state_inside_tf_function_accumulates():
    m = metrics.Mean()
    f = tf.function(lambda x: m.update_state(x))
    for v in ([1.0, 2.0], [3.0, 4.0]):
        f(tf.constant(v))
    assert float(m.result()) == pytest.approx(2.5)


def test_compile_accuracy_resolves_by_shapes():
    from rivulet.keras.metrics import for_compile
    sparse = for_compile("accuracy", tf.zeros([4]), tf.zeros([4, 3]))
    dense = for_compile("accuracy", tf.zeros([4, 3]), tf.zeros([4, 3]))
    binary = for_compile("acc", tf.zeros([4, 1]), tf.zeros([4, 1]))
    assert sparse._fn is metrics.sparse_categorical_accuracy and sparse.name == "accuracy"
    assert dense._fn is metrics.categorical_accuracy
    assert binary._fn is metrics.binary_accuracy and binary.name == "acc"


_rng = np.random.default_rng(1)
_T = (_rng.random((8, 3)) > 0.5).astype("float32")
_P = _rng.random((8, 3)).astype("float32")
_W = np.array([1, 0, 2, 1, 1, 0.5, 1, 3], "float32")


def _confusion(threshold, w=None):
    w = np.ones(len(_T), "float32") if w is None else w
    w = np.broadcast_to(w[:, None], _T.shape)
    pred = _P > threshold
    tp = (w * (pred & (_T > 0))).sum()
    fp = (w * (pred & (_T == 0))).sum()
    fn = (w * (~pred & (_T > 0))).sum()
    return tp, fp, fn


def test_precision_and_recall_at_the_default_threshold_with_weights():
    tp, fp, fn = _confusion(0.5)
    p, r = metrics.Precision(), metrics.Recall()
    p.update_state(_T, _P)
    r.update_state(_T, _P)
    assert float(p.result()) == pytest.approx(tp / (tp + fp))
    assert float(r.result()) == pytest.approx(tp / (tp + fn))
    assert (p.name, r.name) == ("precision", "recall")
    tpw, fpw, _ = _confusion(0.5, _W)
    p.reset_state()
    p.update_state(_T, _P, sample_weight=_W)
    assert float(p.result()) == pytest.approx(tpw / (tpw + fpw))


def test_precision_with_several_thresholds_and_recall_of_one_class():
    p = metrics.Precision(thresholds=[0.3, 0.7])
    p.update_state(_T, _P)
    want = [tp / (tp + fp) for tp, fp, _ in (_confusion(0.3), _confusion(0.7))]
    np.testing.assert_allclose(p.result().numpy(), want, rtol=1e-6)
    r = metrics.Recall(class_id=1)
    r.update_state(_T, _P)
    hit = ((_P[:, 1] > 0.5) & (_T[:, 1] > 0)).sum()
    assert float(r.result()) == pytest.approx(hit / (_T[:, 1] > 0).sum())
    with pytest.raises(ValueError, match="Threshold values must be in"):
        metrics.Precision(thresholds=1.5)


def test_root_mean_squared_error_and_top_k_accuracies():
    m = metrics.RootMeanSquaredError()
    m.update_state(_T, _P)
    m.update_state(_T[:2], _P[:2], sample_weight=[2.0, 1.0])
    sq = ((_P - _T) ** 2)
    want = np.sqrt((sq.sum() + 2 * sq[0].sum() + sq[1].sum()) / (sq.size + 3 * 3))
    assert float(m.result()) == pytest.approx(want, rel=1e-6)
    labels = np.array([0, 1, 2, 2, 1, 0, 0, 2])
    rank = (_P > _P[np.arange(8), labels][:, None]).sum(1)  # how many scores beat the label's
    for k in (1, 2):
        s = metrics.SparseTopKCategoricalAccuracy(k)
        s.update_state(labels, _P)
        assert float(s.result()) == pytest.approx((rank < k).mean())
        c = metrics.TopKCategoricalAccuracy(k=k)
        c.update_state(np.eye(3)[labels], _P)
        assert float(c.result()) == pytest.approx((rank < k).mean())
    assert metrics.TopKCategoricalAccuracy().name == "top_k_categorical_accuracy"


def test_new_metrics_work_in_compile_by_object_and_by_name():
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(3, activation="sigmoid")])
    model.compile("adam", "binary_crossentropy",
                  metrics=[metrics.Precision(), metrics.Recall(), "top_k_categorical_accuracy", "mape"])
    hist = model.fit(_T, _T, epochs=2, batch_size=3, verbose=0)
    assert sorted(hist.history) == ["loss", "mape", "precision", "recall", "top_k_categorical_accuracy"]
    assert all(0.0 <= v <= 1.0 for v in hist.history["precision"] + hist.history["recall"])
