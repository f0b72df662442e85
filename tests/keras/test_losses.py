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
