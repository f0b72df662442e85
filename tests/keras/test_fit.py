import io
import re
import sys

import numpy as np
import pytest

import rivulet as tf

layers = tf.keras.layers


def _blobs(n=200, seed=0):
    """Three well separated Gaussian blobs in 2-D: a classifier should reach ~100%."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    centers = np.array([[0.0, 4.0], [4.0, -2.0], [-4.0, -2.0]])
    x = (centers[y] + rng.normal(size=(n, 2))).astype("float32")
    return x, y


def _classifier():
    return tf.keras.Sequential([layers.Dense(16, activation="relu", input_shape=(2,)), layers.Dense(3)])


def test_fit_reduces_loss_and_reaches_high_accuracy():
    x, y = _blobs()
    model = _classifier()
    model.compile(optimizer=tf.keras.optimizers.Adam(0.05),
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    history = model.fit(x, y, batch_size=32, epochs=8, verbose=0)
    losses = history.history["loss"]
    assert sorted(history.history) == ["accuracy", "loss"] and len(losses) == 8
    assert losses[-1] < 0.5 * losses[0]
    loss, acc = model.evaluate(x, y, verbose=0)
    assert acc > 0.95 and loss < losses[0]
    pred = model.predict(x, batch_size=64)
    assert isinstance(pred, np.ndarray) and pred.shape == (200, 3)
    assert (pred.argmax(1) == y).mean() == pytest.approx(acc)


def test_fit_regression_with_sgd_and_validation_data():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(256, 3)).astype("float32")
    y = x @ np.array([[1.0], [-2.0], [0.5]], "float32") + 0.3
    model = tf.keras.Sequential([layers.Dense(1, input_shape=(3,))])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1, momentum=0.5), loss="mse")
    history = model.fit(x[:200], y[:200], epochs=20, validation_data=(x[200:], y[200:]), verbose=0)
    assert set(history.history) == {"loss", "val_loss"}
    assert history.history["val_loss"][-1] < 1e-3
    np.testing.assert_allclose(model.layers[0].kernel.numpy().ravel(), [1.0, -2.0, 0.5], atol=0.02)


class EagerLayer(layers.Layer):
    """Seed 004's layer: a Python side effect, which runs whenever `call` runs as Python."""
    runs = 0

    def call(self, inputs):
        EagerLayer.runs += 1
        return inputs


class SeedModel(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.flatten = layers.Flatten(input_shape=(28, 28))
        self.dense_1 = layers.Dense(16, activation="relu")
        self.dropout = layers.Dropout(0.2)
        self.dense_2 = layers.Dense(10)
        self.eager = EagerLayer()

    def call(self, x):
        return self.eager(self.dense_2(self.dropout(self.dense_1(self.flatten(x)))))


def test_traced_fit_runs_python_once_per_batch_shape_and_eager_fit_every_step():
    x, y = tf.random.uniform([60, 28, 28]), tf.random.uniform([60])
    model = SeedModel()
    model.compile(run_eagerly=False, loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    EagerLayer.runs = 0
    model.fit(x, y, epochs=3, verbose=0)
    # As TensorFlow: batches of 32 and 28 share one graph (the batch dimension is left open), traced twice on
    # the first call because that trace created the weights; then only the graph runs.
    assert EagerLayer.runs == 2
    model.compile(run_eagerly=True, loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    EagerLayer.runs = 0
    model.fit(x, y, epochs=1, verbose=0)
    assert EagerLayer.runs == 2  # two steps, each running the Python


FINAL_LINE = r"2/2 \[={30}\] - \d+s \d+(s|ms|us)/step - loss: \d\.\d{4}"


def test_progress_bar_prints_final_lines_when_not_on_a_terminal(capsys):
    x, y = tf.random.uniform([60, 28, 28]), tf.random.uniform([60])
    model = SeedModel()
    model.compile(loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(x, y, epochs=2)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Epoch 1/2" and lines[2] == "Epoch 2/2" and len(lines) == 4
    assert re.fullmatch(FINAL_LINE, lines[1]) and re.fullmatch(FINAL_LINE, lines[3])


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_redraws_in_place_on_a_terminal(monkeypatch):
    x, y = tf.random.uniform([60, 28, 28]), tf.random.uniform([60])
    model = SeedModel()
    model.compile(loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    model.fit(x, y, epochs=1)
    out = terminal.getvalue()
    assert re.fullmatch(r"1/2 \[={14}>\.{15}\] - ETA: 0s - loss: \d\.\d{4}\r" + FINAL_LINE + r" *\n", out), out


def test_single_epoch_prints_no_epoch_header_and_verbose_2_prints_one_line(capsys):
    x, y = _blobs(40)
    model = _classifier()
    model.compile(loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    model.fit(x, y, epochs=1, verbose=0)
    assert capsys.readouterr().out == ""
    model.fit(x, y, epochs=1)
    assert not capsys.readouterr().out.startswith("Epoch")
    model.fit(x, y, epochs=2, verbose=2, validation_data=(x, y))
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Epoch 1/2" and lines[2] == "Epoch 2/2" and len(lines) == 4
    assert re.fullmatch(r"2/2 - \d+s - loss: \d\.\d{4} - accuracy: \d\.\d{4} - val_loss: \d\.\d{4} - "
                        r"val_accuracy: \d\.\d{4}", lines[3])


def test_evaluate_prints_a_bar_and_returns_loss_and_metrics(capsys):
    x, y = _blobs(70)
    model = _classifier()
    model.compile(loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    result = model.evaluate(x, y)
    out = capsys.readouterr().out
    assert re.search(r"3/3 \[={30}\] - \d+s \d+(ms|us)/step - loss: \d\.\d{4} - accuracy: \d\.\d{4}\n$", out)
    assert isinstance(result, list) and len(result) == 2
    ref = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)(y, model.predict(x))
    assert result[0] == pytest.approx(float(ref), rel=1e-5)
    assert model.metrics_names == ["loss", "accuracy"]


def test_early_stopping_and_custom_callbacks():
    x, y = _blobs(64)
    model = _classifier()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.0), loss=tf.keras.losses.SparseCategoricalCrossentropy(
        from_logits=True))
    seen = []
    history = model.fit(x, y, epochs=20, verbose=0, callbacks=[
        tf.keras.callbacks.EarlyStopping(monitor="loss", patience=2),
        tf.keras.callbacks.LambdaCallback(on_epoch_end=lambda epoch, logs: seen.append(epoch))])
    assert len(history.history["loss"]) == 3  # nothing can improve with a zero learning rate
    assert seen == [0, 1, 2]


def test_callbacks_given_alone_or_nested_are_flattened_as_tf_keras_does():
    # TensorFlow's simple_audio tutorial passes `callbacks=tf.keras.callbacks.EarlyStopping(...)`, not a list
    x, y = _blobs(64)
    model = _classifier()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.0), loss=tf.keras.losses.SparseCategoricalCrossentropy(
        from_logits=True))
    history = model.fit(x, y, epochs=20, verbose=0, callbacks=tf.keras.callbacks.EarlyStopping(monitor="loss",
                                                                                               patience=2))
    assert len(history.history["loss"]) == 3
    seen = []
    model.fit(x, y, epochs=2, verbose=0, callbacks=[[tf.keras.callbacks.LambdaCallback(
        on_epoch_end=lambda epoch, logs: seen.append(epoch))]])
    assert seen == [0, 1]
    with pytest.raises(TypeError, match="Callback"):
        model.fit(x, y, epochs=1, verbose=0, callbacks=[print])


def test_fit_needs_compile():
    with pytest.raises(RuntimeError, match="must compile"):
        _classifier().fit(np.zeros((2, 2)), np.zeros(2), verbose=0)


def test_custom_train_step_is_used_by_fit():
    class Custom(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = layers.Dense(1)
            self.steps = 0

        def call(self, x):
            return self.dense(x)

        def train_step(self, data):
            self.steps += 1
            return {"loss": tf.constant(1.0)}

    model = Custom()
    model.compile(run_eagerly=True)
    history = model.fit(np.zeros((10, 2), "float32"), np.zeros(10, "float32"), batch_size=4, epochs=2, verbose=0)
    assert model.steps == 6 and history.history["loss"] == [1.0, 1.0]


def test_two_output_functional_model_sums_its_losses_and_predicts_without_compile():
    inputs = tf.keras.Input(shape=(3,))
    h = layers.Dense(8, activation="relu")(inputs)
    model = tf.keras.Model(inputs, [layers.Dense(1)(h), layers.Dense(2)(h)])
    x = np.random.default_rng(2).random((64, 3)).astype("float32")
    first, second = model.predict(x, batch_size=16)
    assert first.shape == (64, 1) and second.shape == (64, 2)
    targets = [2 * x[:, :1], x[:, 1:]]
    model.compile(optimizer=tf.keras.optimizers.Adam(0.05), loss="mse")
    expected = sum(float(tf.keras.losses.mean_squared_error(t, p).numpy().mean())
                   for t, p in zip(targets, model.predict(x)))
    # as tf_keras: the total, then each output's loss (named after it)
    total, loss_1, loss_2 = model.evaluate(x, targets, verbose=0)
    assert total == pytest.approx(expected, rel=1e-5) and total == pytest.approx(loss_1 + loss_2, rel=1e-5)
    history = model.fit(x, targets, epochs=30, verbose=0)
    names = model.output_names
    assert sorted(history.history) == sorted(["loss", f"{names[0]}_loss", f"{names[1]}_loss"])
    assert history.history["loss"][-1] < 0.2 * history.history["loss"][0]


def test_empty_data_is_refused_as_tf_keras_refuses_it():
    # tf_keras 2.21: data known to be empty (arrays, a dataset of cardinality 0) stops in its DataHandler;
    # an empty dataset of unknown length fails fit and predict after the loop, while evaluate returns []
    model = _classifier()
    model.compile(optimizer="sgd", loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    x, y = _blobs(8)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(4)
    for call in (lambda d: model.fit(d, verbose=0), lambda d: model.evaluate(d, verbose=0),
                 lambda d: model.predict(d.map(lambda a, b: a), verbose=0),
                 lambda d: model.fit(ds, validation_data=d, verbose=0)):
        with pytest.raises(ValueError, match="Expected input data to be non-empty"):
            call(ds.take(0))
    with pytest.raises(ValueError, match="Expected input data to be non-empty"):
        model.fit(x[:0], y[:0], verbose=0)
    nothing = ds.filter(lambda a, b: False)
    with pytest.raises(ValueError, match=r"Unexpected result of `train_function` \(Empty logs\)"):
        model.fit(nothing, verbose=0)
    with pytest.raises(ValueError, match=r"Unexpected result of `predict_function` \(Empty batch_outputs\)"):
        model.predict(nothing.map(lambda a, b: a), verbose=0)
    assert model.evaluate(nothing, verbose=0) == []
    assert "val_loss" not in model.fit(ds, validation_data=nothing, verbose=0).history


def test_callbacks_get_their_logs_positionally_even_when_empty():
    # migrate/early_stopping's LimitTrainingTime declares on_train_begin(self, logs) with no default: tf_keras
    # passes {} (this raised "missing 1 required positional argument: 'logs'")
    seen = []

    class Strict(tf.keras.callbacks.Callback):
        def on_train_begin(self, logs):
            seen.append(("train_begin", logs))

        def on_epoch_begin(self, epoch, logs):
            seen.append(("epoch_begin", logs))

        def on_test_begin(self, logs):
            seen.append(("test_begin", logs))

        def on_predict_begin(self, logs):
            seen.append(("predict_begin", logs))

        def on_predict_end(self, logs):
            seen.append(("predict_end", logs))

        def on_train_batch_begin(self, batch, logs):
            seen.append(("batch_begin", logs))
    m = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
    m.compile("sgd", "mse")
    x, y = np.ones((4, 2), np.float32), np.ones((4, 1), np.float32)
    m.fit(x, y, epochs=1, batch_size=4, verbose=0, validation_data=(x, y), callbacks=[Strict()])
    m.predict(x, verbose=0, callbacks=[Strict()])
    assert [k for k, _ in seen] == ["train_begin", "epoch_begin", "batch_begin", "test_begin", "predict_begin",
                                    "predict_end"]
    assert all(logs == {} for _, logs in seen)
