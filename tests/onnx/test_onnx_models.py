"""Whole models: a trained digits-style classifier, symbolic batch dimensions."""
import numpy as np
import pytest

import rivulet as tf

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")


def test_digits_style_mlp_classifier_after_training(rt):
    tf.random.set_seed(0)
    rng = np.random.default_rng(0)
    x = rng.uniform(size=(200, 64)).astype(np.float32)  # 8x8 "images"
    y = (x[:, :32].sum(axis=1) > x[:, 32:].sum(axis=1)).astype(np.int64) + 2 * (x[:, 0] > 0.5)
    model = tf.keras.Sequential([
        tf.keras.layers.Dense(32, activation="relu", input_shape=(64,)),
        tf.keras.layers.Dropout(0.2),
        tf.keras.layers.Dense(16, activation="relu"),
        tf.keras.layers.Dense(10),
    ])
    model.compile(optimizer=tf.keras.optimizers.Adam(1e-2),
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(x, y, batch_size=32, epochs=3, verbose=0)

    classify = tf.function(lambda images: tf.argmax(tf.nn.softmax(model(images)), axis=1),
                           input_signature=[tf.TensorSpec([None, 64], tf.float32)])
    logits = tf.function(lambda images: model(images), input_signature=[tf.TensorSpec([None, 64], tf.float32)])
    sess, report = rt.export(logits)
    np.testing.assert_allclose(rt.run(sess, x)[0], model.predict(x, verbose=0), rtol=1e-4, atol=1e-5)
    sess, _ = rt.export(classify)
    np.testing.assert_array_equal(rt.run(sess, x)[0], classify(x).numpy())
    assert sorted(i.name for i in report.model.graph.initializer) == sorted(
        v.name.split(":")[0] for v in model.trainable_variables)


def test_symbolic_batch_dimension_runs_with_any_batch_size(rt):
    w = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3) / 10)

    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
    def f(x):
        h = tf.nn.relu(x @ w)
        return tf.reshape(h, [-1, 3, 1]), tf.shape(x)[0] * 2
    sess, report = rt.export(f)
    dims = report.model.graph.input[0].type.tensor_type.shape.dim
    assert dims[0].dim_param == "unk__0" and dims[1].dim_value == 4
    assert report.model.graph.output[0].type.tensor_type.shape.dim[0].dim_param == ""
    for n in (1, 5):
        x = np.random.default_rng(n).normal(size=(n, 4)).astype(np.float32)
        got = rt.run(sess, x)
        want = f(x)
        np.testing.assert_allclose(got[0], want[0].numpy(), rtol=1e-6)
        assert got[0].shape == (n, 3, 1) and got[1] == 2 * n
