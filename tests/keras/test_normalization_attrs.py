"""Normalization's `mean`/`variance` attributes (broadcast shape, as tf_keras keeps them) and a Sequential that
starts with an adapted Normalization (built from the adapted rank, as tf_keras builds it)."""
import numpy as np
import pytest

import rivulet as tf


def test_mean_and_variance_after_adapt():
    x = np.arange(20, dtype="float64").reshape(5, 4)
    norm = tf.keras.layers.Normalization(axis=-1)
    with pytest.raises(AttributeError, match="'Normalization' object has no attribute 'mean'"):
        norm.mean
    norm.adapt(x)
    assert norm.mean.shape == (1, 4) and norm.mean.dtype == tf.float32
    np.testing.assert_allclose(norm.mean.numpy(), [[8.0, 9.0, 10.0, 11.0]])
    np.testing.assert_allclose(norm.variance.numpy(), [[32.0] * 4])
    given = tf.keras.layers.Normalization(mean=2.0, variance=4.0)
    given.build((None, 3))
    np.testing.assert_allclose(given.mean.numpy(), [[2.0, 2.0, 2.0]])
    np.testing.assert_allclose(given.variance.numpy(), [[4.0, 4.0, 4.0]])


def test_sequential_starting_with_adapted_normalization(tmp_path, capsys):
    x = np.arange(20, dtype="float64").reshape(5, 4)
    norm = tf.keras.layers.Normalization(axis=-1)
    norm.adapt(x)
    model = tf.keras.Sequential([norm, tf.keras.layers.Dense(3), tf.keras.layers.Dense(1)])
    assert model.built
    model.summary()
    out = capsys.readouterr().out
    assert " normalization (Normalizati  (None, 4)                 9         " in out
    assert "Total params: 28 (116.00 Byte)" in out
    model.compile(loss="mae", optimizer="adam")
    path = str(tmp_path / "m.keras")
    model.save(path)
    reloaded = tf.keras.models.load_model(path)
    np.testing.assert_allclose(reloaded.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-6)
