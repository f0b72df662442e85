"""Losses, metrics and models accept the labels and inputs tf_keras 2.21 accepts (issue 25): sparse labels of
any integer dtype (mnist's are uint8), binary labels (batch,) against predictions (batch, 1), inputs cast to
their `Input(dtype=...)`, and a Sequential starting with Embedding built at once. Values are those of
TensorFlow's documentation examples."""
import numpy as np
import pytest

import rivulet as tf

losses, metrics = tf.keras.losses, tf.keras.metrics
LABEL_DTYPES = [np.uint8, np.int8, np.int16, np.uint16]  # (int32, int64 and float labels worked before)

# tf.keras.losses.SparseCategoricalCrossentropy's docstring
SPARSE_TRUE, SPARSE_PRED = [1, 2], [[0.05, 0.95, 0], [0.1, 0.8, 0.1]]


@pytest.mark.parametrize("dtype", LABEL_DTYPES)
def test_sparse_losses_and_metrics_take_any_label_dtype(dtype):
    y = np.array(SPARSE_TRUE, dtype)
    assert float(losses.SparseCategoricalCrossentropy()(y, SPARSE_PRED)) == pytest.approx(1.177, abs=1e-3)
    assert float(losses.SparseCategoricalCrossentropy()(y, SPARSE_PRED, sample_weight=[0.3, 0.7])) == \
        pytest.approx(0.814, abs=1e-3)
    np.testing.assert_allclose(losses.sparse_categorical_crossentropy(y, SPARSE_PRED).numpy(), [0.0513, 2.303],
                               atol=1e-3)
    # a tensor of the same dtype as well (the loss casts labels to int64, as tf_keras's backend does)
    np.testing.assert_allclose(losses.sparse_categorical_crossentropy(tf.constant(y), SPARSE_PRED).numpy(),
                               [0.0513, 2.303], atol=1e-3)
    # the metric of the same name, and the accuracy metrics
    m = metrics.SparseCategoricalCrossentropy()
    m.update_state(y, SPARSE_PRED)
    assert float(m.result()) == pytest.approx(1.177, abs=1e-3)
    # tf.keras.metrics.SparseCategoricalAccuracy's docstring
    m = metrics.SparseCategoricalAccuracy()
    m.update_state(np.array([[2], [1]], dtype), [[0.1, 0.6, 0.3], [0.05, 0.95, 0]])
    assert float(m.result()) == pytest.approx(0.5)
    m.reset_state()
    m.update_state(np.array([[2], [1]], dtype), [[0.1, 0.6, 0.3], [0.05, 0.95, 0]], sample_weight=[0.7, 0.3])
    assert float(m.result()) == pytest.approx(0.3)
    np.testing.assert_array_equal(
        metrics.sparse_categorical_accuracy(np.array([2, 1], dtype), [[0.1, 0.9, 0.8], [0.05, 0.95, 0]]).numpy(),
        [0.0, 1.0])
    # tf.keras.metrics.SparseTopKCategoricalAccuracy's docstring
    m = metrics.SparseTopKCategoricalAccuracy(k=1)
    m.update_state(np.array([2, 1], dtype), [[0.1, 0.9, 0.8], [0.05, 0.95, 0]])
    assert float(m.result()) == pytest.approx(0.5)
    m.reset_state()
    m.update_state(np.array([2, 1], dtype), [[0.1, 0.9, 0.8], [0.05, 0.95, 0]], sample_weight=[0.7, 0.3])
    assert float(m.result()) == pytest.approx(0.3)


def _zero_logits_model():
    model = tf.keras.Sequential([tf.keras.layers.Dense(3, kernel_initializer="zeros", input_shape=(4,))])
    model.compile(optimizer="sgd", loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    return model


@pytest.mark.parametrize("dtype", [np.uint8, np.int16])
def test_fit_and_evaluate_take_uint8_labels_as_mnist_has_them(dtype):
    x = np.arange(24, dtype=np.float32).reshape(6, 4) / 24
    y = np.array([0, 1, 2, 0, 1, 0], dtype)
    model = _zero_logits_model()
    loss, acc = model.evaluate(x, y, verbose=0)
    assert loss == pytest.approx(np.log(3), rel=1e-6)  # all-zero logits: log(3) whatever the label
    assert acc == pytest.approx(0.5)  # argmax of equal logits is class 0: three of six
    history = model.fit(x, y, epochs=2, batch_size=3, verbose=0)
    assert set(history.history) == {"loss", "accuracy"}
    assert history.history["loss"][1] < np.log(3)
    # the loss given by name, and a tf.data dataset of uint8 labels
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    model.fit(tf.data.Dataset.from_tensor_slices((x, y)).batch(3), epochs=1, verbose=0)


# tf.keras.metrics.BinaryAccuracy's docstring: [[1], [1], [0], [0]] against [[0.98], [1], [0], [0.6]] is 0.75
def test_binary_accuracy_labels_of_rank_one_against_predictions_of_shape_batch_1():
    m = metrics.BinaryAccuracy()
    m.update_state([1, 1, 0, 0], [[0.98], [1], [0], [0.6]])  # labels squeezed to match: not broadcast (0.5)
    assert float(m.result()) == pytest.approx(0.75)
    m = metrics.BinaryAccuracy()
    m.update_state(np.array([1, 1, 0, 0], np.uint8), [[0.98], [1], [0], [0.6]], sample_weight=[1, 0, 0, 1])
    assert float(m.result()) == pytest.approx(0.5)


# tf.keras.losses.BinaryCrossentropy's docstring: [[0, 1], [0, 0]] against [[0.6, 0.4], [0.4, 0.6]] is 0.815
def test_binary_crossentropy_rank_one_labels_against_batch_1_tensors():
    y = tf.constant([0.0, 1.0, 0.0, 0.0])
    p = tf.constant([[0.6], [0.4], [0.4], [0.6]])
    assert float(losses.BinaryCrossentropy()(y, p)) == pytest.approx(0.815, abs=1e-3)
    assert losses.BinaryCrossentropy(reduction="none")(y, p).shape == ()  # squeezed, then mean over axis -1
    assert float(losses.BinaryCrossentropy()(p, y)) == pytest.approx(
        float(losses.BinaryCrossentropy()(tf.reshape(p, [4]), y)))  # labels (batch, 1), predictions (batch,)
    # NumPy arrays given straight to the loss are not matched (tf_keras only matches tensors): they broadcast
    broadcast = -(np.log([0.6, 0.4, 0.4, 0.6])[:, None] * np.array([0, 1, 0, 0]) +
                  np.log([0.4, 0.6, 0.6, 0.4])[:, None] * np.array([1, 0, 1, 1])).mean()
    assert float(losses.BinaryCrossentropy()(y.numpy(), p.numpy())) == pytest.approx(broadcast, rel=1e-5)


def test_compiled_binary_loss_and_accuracy_match_labels_of_rank_one():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, activation="sigmoid", kernel_initializer="ones",
                                                       input_shape=(1,))])
    model.compile(optimizer="sgd", loss="binary_crossentropy", metrics=["accuracy"])
    p = np.array([0.6, 0.4, 0.4, 0.6], np.float32)
    x = np.log(p / (1 - p)).reshape(4, 1)  # sigmoid(x) == p
    loss, acc = model.evaluate(x, np.array([0, 1, 0, 0]), verbose=0)
    assert loss == pytest.approx(0.815, abs=1e-3)  # broadcasting (4,) against (4, 1) gave 0.714
    assert acc == pytest.approx(0.25)  # (and 0.5)


def test_functional_model_casts_inputs_to_their_input_dtype():
    ids = tf.keras.Input(shape=(3,), dtype="int32")
    model = tf.keras.Model(ids, tf.keras.layers.Lambda(lambda t: t)(ids))
    out = model(np.array([[1.7, 2.0, 3.2]]))
    assert out.dtype == tf.int32
    np.testing.assert_array_equal(out.numpy(), [[1, 2, 3]])
    images = tf.keras.Input(shape=(2,))
    model = tf.keras.Model(images, tf.keras.layers.Lambda(lambda t: t / 255)(images))
    out = model(np.array([[0, 255]], np.uint8))
    assert out.dtype == tf.float32
    np.testing.assert_allclose(out.numpy(), [[0.0, 1.0]])
    assert model(np.array([[51.0, 255.0]])).dtype == tf.float32  # float64 too
    assert model.predict(np.array([[51, 255]], np.uint8), verbose=0).dtype == np.float32
    wide = tf.keras.Input(shape=(1,), dtype="float64")
    model = tf.keras.Model(wide, tf.keras.layers.Lambda(lambda t: t * 1, dtype="float64")(wide))
    out = model(np.array([[1 + 1e-12]]))
    assert out.dtype == tf.float64 and out.numpy()[0, 0] == 1 + 1e-12  # the model does not autocast to float32


def test_functional_model_adds_or_drops_a_trailing_unit_axis_to_fit_its_input():
    inp = tf.keras.Input(shape=(1,))
    model = tf.keras.Model(inp, tf.keras.layers.Lambda(lambda t: t * 2)(inp))
    assert model(np.array([1.0, 2.0, 3.0])).shape == (3, 1)
    inp = tf.keras.Input(shape=())
    model = tf.keras.Model(inp, tf.keras.layers.Lambda(lambda t: t * 2)(inp))
    assert model(np.array([[1.0], [2.0]])).shape == (2,)


def test_sequential_starting_with_embedding_is_built_at_once():
    model = tf.keras.Sequential([tf.keras.layers.Embedding(10, 4), tf.keras.layers.GlobalAveragePooling1D(),
                                 tf.keras.layers.Dense(1)])
    assert model.built and model.input_shape == (None, None)  # tf_keras: Embedding's input_shape is (None,)
    lines = []
    model.summary(print_fn=lines.append)
    assert any("(None, None, 4)" in line and "40" in line for line in lines)
    assert model.layers[0].get_config()["batch_input_shape"] == (None, None)
    model.compile("sgd", "mse")
    model.fit(np.array([[1, 2, 3], [4, 5, 0]], np.int64), np.zeros(2), verbose=0)
    assert model(np.array([[1, 2, 3, 4, 5]])).shape == (1, 1)
    assert tf.keras.layers.Embedding(10, 4, input_length=6)._batch_input_shape == (None, 6)


def test_summary_of_an_unbuilt_model_raises_tf_keras_error():
    model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
    with pytest.raises(ValueError, match=r"This model has not yet been built\. Build the model first by calling "
                                         r"`build\(\)` or by calling the model on a batch of data\."):
        model.summary()
    model(np.ones((1, 3)))
    model.summary(print_fn=lambda *_: None)


def test_model_input_and_output_shapes():
    inp = tf.keras.Input((3,))
    model = tf.keras.Model(inp, [tf.keras.layers.Dense(2)(inp), tf.keras.layers.Dense(4)(inp)])
    assert model.input_shape == (None, 3) and model.output_shape == [(None, 2), (None, 4)]
    seq = tf.keras.Sequential([tf.keras.layers.Embedding(50, 8, mask_zero=True), tf.keras.layers.LSTM(4),
                               tf.keras.layers.Dense(1)])
    assert seq.input_shape == (None, None) and seq.output_shape == (None, 1)

    class Plain(tf.keras.Model):
        def call(self, x):
            return x
    with pytest.raises(AttributeError, match="only available for Functional and Sequential models"):
        Plain().input_shape


# tf.keras.losses.sparse_categorical_crossentropy's docstring: a segmentation map whose "void" class is -1
VOID_TRUE = [[[0, 2], [-1, -1]], [[0, 2], [-1, -1]]]
VOID_PRED = [[[[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]], [[0.2, 0.5, 0.3], [0.0, 1.0, 0.0]]],
             [[[1.0, 0.0, 0.0], [0.0, 0.5, 0.5]], [[0.2, 0.5, 0.3], [0.0, 1.0, 0.0]]]]


def test_sparse_crossentropy_ignore_class():
    per_pixel = losses.sparse_categorical_crossentropy(VOID_TRUE, VOID_PRED, ignore_class=-1)
    np.testing.assert_allclose(per_pixel.numpy(), [[[2.3841855e-07, 2.3841855e-07], [0.0, 0.0]],
                                                   [[2.3841855e-07, 6.9314730e-01], [0.0, 0.0]]], rtol=1e-6)
    loss = losses.SparseCategoricalCrossentropy(ignore_class=-1)
    assert float(loss(VOID_TRUE, VOID_PRED)) == pytest.approx(0.6931480 / 4, rel=1e-5)  # mean over the 4 valid
    assert loss.get_config()["ignore_class"] == -1
    total = losses.SparseCategoricalCrossentropy(ignore_class=-1, reduction="sum")(VOID_TRUE, VOID_PRED)
    assert float(total) == pytest.approx(0.6931480, rel=1e-5)
    m = metrics.SparseCategoricalCrossentropy(ignore_class=-1)
    m.update_state(VOID_TRUE, VOID_PRED)
    assert float(m.result()) == pytest.approx(0.6931480 / 4, rel=1e-5)
