"""pandas columns given to fit/predict/evaluate reach the model as (N, 1) arrays, as tf_keras and Keras 3 give them
(TensorFlow's pandas_dataframe tutorial predicts on `dict(df.iloc[:3])` with a model concatenating along axis 1)."""
import numpy as np
import pytest

import rivulet as tf

pd = pytest.importorskip("pandas")


class _Stack(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.concat = tf.keras.layers.Concatenate(axis=1)
        self.dense = tf.keras.layers.Dense(1, kernel_initializer="ones")  # (fit moves it)

    def call(self, inputs):
        return self.dense(self.concat([inputs[k] for k in sorted(inputs)]))


def test_a_dict_of_series_is_a_dict_of_columns():
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": [0.5, 1.5, 2.5, 3.5]})
    model = _Stack()
    model.compile(loss="mse")
    model.fit({k: v.to_numpy()[:, None] for k, v in df.items()}, np.ones((4, 1)), epochs=1, verbose=0)
    out = model.predict(dict(df.iloc[:3]), verbose=0)
    assert out.shape == (3, 1)
    k, b = model.dense.kernel.numpy()[:, 0], model.dense.bias.numpy()[0]
    np.testing.assert_allclose(out[:, 0], df["a"][:3] * k[0] + df["b"][:3] * k[1] + b, rtol=1e-5)
    with pytest.raises(tf.errors.InvalidArgumentError):  # called directly, a Series stays 1-D (TF raises too)
        model(dict(df.iloc[:3]))


def test_a_series_target_is_a_column():
    x = np.arange(8, dtype="float32").reshape(4, 2)
    y = pd.Series([0.0, 1.0, 0.0, 1.0])
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    model.compile(loss="mse")
    assert np.isfinite(model.evaluate(x, y, verbose=0))
