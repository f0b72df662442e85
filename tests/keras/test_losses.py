import numpy as np
import pytest

import rivulet as tf

losses = tf.keras.losses
EPS = 1e-7
rng = np.random.default_rng(0)
P = rng.random((4, 3)).astype("float32")
P /= P.sum(1, keepdims=True)
LOGITS = rng.normal(size=(4, 3)).astype("float32")
Y = np.array([0, 2, 1, 2])
Y1H = np.eye(3, dtype="float32")[Y]


def _log_softmax(z):
    z = z - z.max(-1, keepdims=True)
    return z - np.log(np.exp(z).sum(-1, keepdims=True))


def test_sparse_categorical_crossentropy_from_probabilities_and_logits():
    ref = -np.log(np.clip(P, EPS, 1 - EPS)[np.arange(4), Y]).mean()
    np.testing.assert_allclose(float(losses.SparseCategoricalCrossentropy()(Y, P)), ref, rtol=1e-5)
    ref = -_log_softmax(LOGITS)[np.arange(4), Y].mean()
    np.testing.assert_allclose(float(losses.SparseCategoricalCrossentropy(from_logits=True)(Y, LOGITS)), ref,
                               rtol=1e-5)


def test_sparse_labels_may_be_floats_or_have_a_trailing_unit_axis():
    loss = losses.SparseCategoricalCrossentropy(from_logits=True)
    a = float(loss(Y, LOGITS))
    np.testing.assert_allclose(float(loss(Y.astype("float32"), LOGITS)), a, rtol=1e-6)
    np.testing.assert_allclose(float(loss(Y[:, None], LOGITS)), a, rtol=1e-6)


def test_categorical_crossentropy():
    ref = -(Y1H * np.log(np.clip(P, EPS, 1 - EPS))).sum(1).mean()
    np.testing.assert_allclose(float(losses.CategoricalCrossentropy()(Y1H, P)), ref, rtol=1e-5)
    ref = -(Y1H * _log_softmax(LOGITS)).sum(1).mean()
    np.testing.assert_allclose(float(losses.CategoricalCrossentropy(from_logits=True)(Y1H, LOGITS)), ref,
                               rtol=1e-5)


def test_binary_crossentropy():
    y = (rng.random((4, 2)) > 0.5).astype("float32")
    p = rng.random((4, 2)).astype("float32")
    pc = np.clip(p, EPS, 1 - EPS)
    ref = -(y * np.log(pc) + (1 - y) * np.log(1 - pc)).mean()
    np.testing.assert_allclose(float(losses.BinaryCrossentropy()(y, p)), ref, rtol=1e-5)
    z = LOGITS[:, :2]
    ref = (np.maximum(z, 0) - z * y + np.log1p(np.exp(-np.abs(z)))).mean()
    np.testing.assert_allclose(float(losses.BinaryCrossentropy(from_logits=True)(y, z)), ref, rtol=1e-5)


def test_mean_squared_error_reductions_and_sample_weights():
    y, p = Y1H, P
    per_sample = ((p - y) ** 2).mean(1)
    np.testing.assert_allclose(float(losses.MeanSquaredError()(y, p)), per_sample.mean(), rtol=1e-6)
    np.testing.assert_allclose(losses.MeanSquaredError(reduction="none")(y, p).numpy(), per_sample, rtol=1e-6)
    np.testing.assert_allclose(float(losses.MeanSquaredError(reduction="sum")(y, p)), per_sample.sum(), rtol=1e-6)
    w = np.array([1.0, 0.0, 2.0, 1.0], "float32")
    # The weighted sum is divided by the number of samples, not by the sum of the weights.
    np.testing.assert_allclose(float(losses.MeanSquaredError()(y, p, sample_weight=w)),
                               (per_sample * w).sum() / 4, rtol=1e-6)
    with pytest.raises(ValueError, match="Invalid Reduction Key"):
        losses.MeanSquaredError(reduction="mean")


def test_function_forms_return_one_loss_per_sample():
    out = losses.sparse_categorical_crossentropy(Y, LOGITS, from_logits=True)
    assert out.shape == (4,)
    np.testing.assert_allclose(out.numpy(), -_log_softmax(LOGITS)[np.arange(4), Y], rtol=1e-5)
    assert losses.mean_squared_error(Y1H, P).shape == (4,)
    assert losses.get("mse") is losses.mean_squared_error
    assert isinstance(losses.get("BinaryCrossentropy"), losses.BinaryCrossentropy)


_YT = (rng.random((5, 4)) > 0.5).astype("float32")
_YP = rng.random((5, 4)).astype("float32") + 0.05


def _np_refs():
    t, p = _YT, _YP
    signed = 2 * t - 1
    tc, pc = np.clip(t, EPS, 1), np.clip(p, EPS, 1)
    unit = lambda a: a / np.sqrt(np.maximum((a * a).sum(-1, keepdims=True), 1e-12))  # noqa: E731
    d = p - t
    return {
        "msle": ((np.log1p(np.maximum(p, EPS)) - np.log1p(np.maximum(t, EPS))) ** 2).mean(-1),
        "kld": (tc * np.log(tc / pc)).sum(-1),
        "hinge": np.maximum(1 - signed * p, 0).mean(-1),
        "squared_hinge": (np.maximum(1 - signed * p, 0) ** 2).mean(-1),
        "categorical_hinge": np.maximum(((1 - t) * p).max(-1) - (t * p).sum(-1) + 1, 0),
        "poisson": (p - t * np.log(p + EPS)).mean(-1),
        "cosine_similarity": -(unit(t) * unit(p)).sum(-1),
        "logcosh": np.log(np.cosh(d)).mean(-1),
    }


@pytest.mark.parametrize("name, cls", [("msle", "MeanSquaredLogarithmicError"), ("kld", "KLDivergence"),
                                       ("hinge", "Hinge"), ("squared_hinge", "SquaredHinge"),
                                       ("categorical_hinge", "CategoricalHinge"), ("poisson", "Poisson"),
                                       ("cosine_similarity", "CosineSimilarity"), ("logcosh", "LogCosh")])
def test_more_losses_by_name_and_class_match_their_formulas(name, cls):
    ref = _np_refs()[name]
    fn = losses.get(name)
    np.testing.assert_allclose(fn(_YT, _YP).numpy(), ref, rtol=1e-5, atol=1e-6)
    traced = tf.function(lambda a, b: fn(a, b))
    np.testing.assert_allclose(traced(tf.constant(_YT), tf.constant(_YP)).numpy(), ref, rtol=1e-5, atol=1e-6)
    obj = losses.get(cls)
    assert isinstance(obj, losses.Loss)
    w = np.array([1.0, 0.0, 2.0, 1.0, 0.5], "float32")
    assert float(obj(_YT, _YP, sample_weight=w)) == pytest.approx((ref * w).sum() / 5, rel=1e-5)
    assert float(getattr(losses, cls)(reduction="sum")(_YT, _YP)) == pytest.approx(ref.sum(), rel=1e-5)


def test_hinge_keeps_labels_that_are_already_signed():
    t = np.array([[-1.0, 1.0]], "float32")
    p = np.array([[0.3, 0.4]], "float32")
    assert float(losses.hinge(t, p)[0]) == pytest.approx((1.3 + 0.6) / 2)


def test_a_model_compiles_with_the_new_loss_names():
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(4, activation="softplus")])
    model.compile("sgd", loss="poisson", metrics=["msle", "kld"])
    hist = model.fit(_YT, _YP, epochs=2, verbose=0)
    assert sorted(hist.history) == ["kld", "loss", "msle"]
    assert all(np.isfinite(v).all() for v in hist.history.values())
