"""Keras on SparseTensor inputs (the sparse_tensor guide): Input(sparse=True) into Dense is a sparse-dense
matmul, as tf_keras's Dense does it; model(), predict and fit take SparseTensors."""
import numpy as np

import rivulet as tf


def _data():
    return tf.sparse.SparseTensor(indices=[(0, 0), (0, 1), (0, 2), (4, 3), (5, 0), (5, 1)],
                                  values=[1, 1, 1, 1, 1, 1], dense_shape=(6, 4))


def _model():
    x = tf.keras.Input(shape=(4,), sparse=True)
    assert repr(x) == ("<KerasTensor: type_spec=SparseTensorSpec(TensorShape([None, 4]), tf.float32) "
                       "(created by layer 'input_1')>")
    y = tf.keras.layers.Dense(4, bias_initializer="ones")(x)
    return tf.keras.Model(x, y)


def test_dense_on_a_sparse_input_is_a_sparse_dense_matmul():
    tf.keras.backend.clear_session()
    model = _model()
    sparse_data = _data()
    dense = tf.cast(tf.sparse.to_dense(sparse_data), tf.float32).numpy()
    kernel = model.layers[1].kernel.numpy()
    want = dense @ kernel + 1
    out = model(sparse_data)
    assert out.dtype == tf.float32 and out.shape == (6, 4)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-6)
    np.testing.assert_array_equal(out.numpy()[1], [1, 1, 1, 1])  # an empty row is the bias
    np.testing.assert_allclose(model.predict(sparse_data, batch_size=4, verbose=0), want, rtol=1e-6)


def test_fit_on_sparse_inputs():
    tf.keras.backend.clear_session()
    model = _model()
    model.compile("sgd", "mse")
    history = model.fit(_data(), np.zeros((6, 4), "float32"), batch_size=2, epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2 and np.isfinite(history.history["loss"]).all()
    assert int(model.optimizer.iterations.numpy()) == 6
