"""Merge layers, LayerNormalization, to_categorical, save_weights/load_weights, Ftrl and AUC."""
import numpy as np
import pytest

import rivulet as tf

layers = tf.keras.layers
rng = np.random.default_rng(0)
A = rng.normal(size=(4, 3)).astype("float32")
B = rng.normal(size=(4, 3)).astype("float32")
C = rng.normal(size=(4, 3)).astype("float32")


@pytest.mark.parametrize("cls, ref", [
    (layers.Add, lambda a, b, c: a + b + c),
    (layers.Multiply, lambda a, b, c: a * b * c),
    (layers.Average, lambda a, b, c: (a + b + c) / 3),
    (layers.Maximum, lambda a, b, c: np.maximum(np.maximum(a, b), c)),
    (layers.Minimum, lambda a, b, c: np.minimum(np.minimum(a, b), c)),
    (layers.Concatenate, lambda a, b, c: np.concatenate([a, b, c], axis=-1)),
])
def test_merge_layers_match_numpy_eagerly_and_in_tf_function(cls, ref):
    layer = cls()
    np.testing.assert_allclose(layer([A, B, C]).numpy(), ref(A, B, C), rtol=1e-6)
    traced = tf.function(lambda a, b, c: layer([a, b, c]))
    np.testing.assert_allclose(traced(A, B, C).numpy(), ref(A, B, C), rtol=1e-6)
    assert layer.weights == []


def test_subtract_takes_exactly_two_inputs_and_concatenate_an_axis():
    np.testing.assert_allclose(layers.Subtract()([A, B]).numpy(), A - B)
    with pytest.raises(ValueError, match="exactly 2"):
        layers.Subtract()([A, B, C])
    np.testing.assert_allclose(layers.Concatenate(axis=0)([A, B]).numpy(), np.concatenate([A, B], 0))
    np.testing.assert_allclose(layers.concatenate([A, B], axis=1).numpy(), np.concatenate([A, B], 1))
    np.testing.assert_allclose(layers.add([A, B]).numpy(), A + B)


def test_merge_layers_refuse_mismatched_shapes_and_non_lists():
    with pytest.raises(ValueError, match="matching shapes"):
        layers.Concatenate()([np.zeros((2, 3), "f"), np.zeros((3, 3), "f")])
    with pytest.raises(ValueError, match="incompatible shapes"):
        layers.Add()([np.zeros((2, 3), "f"), np.zeros((2, 4), "f")])
    with pytest.raises(ValueError, match="list of inputs"):
        layers.Add()(A)


def test_merge_gradients_flow_to_every_input():
    a, b = tf.Variable(A), tf.Variable(B)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(layers.Multiply()([a, b]) + layers.Concatenate()([a, b])[:, :3])
    ga, gb = tape.gradient(y, [a, b])
    np.testing.assert_allclose(ga.numpy(), B + 1, rtol=1e-6)
    np.testing.assert_allclose(gb.numpy(), A, rtol=1e-6)


def _layer_norm(x, axes, gamma, beta, eps):
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


def test_layer_normalization_defaults_weights_and_values():
    layer = layers.LayerNormalization()
    assert layer.epsilon == 1e-3 and layer.center and layer.scale
    x = rng.normal(size=(5, 6)).astype("float32") * 3 + 1
    y = layer(x)
    assert [w.name for w in layer.weights] == ["layer_normalization/gamma:0", "layer_normalization/beta:0"]
    assert [tuple(w.shape) for w in layer.weights] == [(6,), (6,)]
    np.testing.assert_allclose(layer.gamma.numpy(), 1) and np.testing.assert_allclose(layer.beta.numpy(), 0)
    layer.gamma.assign(np.arange(6, dtype="float32"))
    layer.beta.assign(np.full(6, 0.5, "float32"))
    np.testing.assert_allclose(layer(x).numpy(), _layer_norm(x, -1, np.arange(6), 0.5, 1e-3), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(y.numpy().mean(-1), 0, atol=1e-5)


def test_layer_normalization_on_several_axes_and_without_parameters():
    x = rng.normal(size=(2, 3, 4, 5)).astype("float32")
    layer = layers.LayerNormalization(axis=[1, 3], epsilon=1e-5)
    y = layer(x)
    assert [tuple(w.shape) for w in layer.weights] == [(3, 5), (3, 5)]
    np.testing.assert_allclose(y.numpy(), _layer_norm(x, (1, 3), 1, 0, 1e-5), rtol=1e-4, atol=1e-5)
    bare = layers.LayerNormalization(center=False, scale=False)
    np.testing.assert_allclose(bare(x).numpy(), _layer_norm(x, -1, 1, 0, 1e-3), rtol=1e-4, atol=1e-5)
    assert bare.weights == []


def test_layer_normalization_gradients_in_tf_function():
    layer = layers.LayerNormalization()
    x = tf.constant(rng.normal(size=(3, 4)).astype("float32"))

    @tf.function
    def step(x):
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(layer(x) * tf.constant([1.0, 2.0, 3.0, 4.0]))
        return tape.gradient(y, layer.trainable_weights)
    g_gamma, g_beta = step(x)
    np.testing.assert_allclose(g_beta.numpy(), [3, 6, 9, 12], rtol=1e-6)
    xn = _layer_norm(x.numpy(), -1, 1, 0, 1e-3)
    np.testing.assert_allclose(g_gamma.numpy(), xn.sum(0) * [1, 2, 3, 4], rtol=1e-4, atol=1e-5)


def _two_input_model():
    a, b = tf.keras.Input((3,)), tf.keras.Input((3,))
    h = layers.Dense(8, activation="relu")(layers.Concatenate()([a, b]))
    s = layers.Add()([layers.Dense(8)(a), h])
    out = layers.Dense(1)(layers.LayerNormalization()(s))
    return tf.keras.Model([a, b], out)


def test_functional_model_with_merge_layers_trains_with_fit_and_lists_them_in_summary():
    model = _two_input_model()
    x1 = rng.normal(size=(64, 3)).astype("float32")
    x2 = rng.normal(size=(64, 3)).astype("float32")
    y = (x1.sum(1, keepdims=True) - x2[:, :1]).astype("float32")
    model.compile(optimizer=tf.keras.optimizers.Adam(0.05), loss="mse")
    history = model.fit([x1, x2], y, epochs=8, batch_size=16, verbose=0)
    losses = history.history["loss"]
    assert losses[-1] < 0.5 * losses[0]
    assert model.predict([x1, x2], verbose=0).shape == (64, 1)
    lines = []
    model.summary(print_fn=lines.append)
    text = "\n".join(lines)
    assert "concatenate (Concatenate)" in text and "(None, 6)" in text
    # tf_keras 2.21 wraps a long first column after 26 characters (full table: tests/keras/test_layers_summary.py)
    assert "add (Add)" in text and " layer_normalization (Layer  (None, 8)" in text and "\n Normalization)" in text
    assert "input_1[0][0]" in text and "input_2[0][0]" in text
    assert f"Total params: {model.count_params()} (" in text


def test_to_categorical():
    out = tf.keras.utils.to_categorical([0, 2, 1])
    np.testing.assert_array_equal(out, np.eye(3, dtype="float32")[[0, 2, 1]])
    assert out.dtype == np.float32
    assert tf.keras.utils.to_categorical(np.array([[1], [3]]), num_classes=5).shape == (2, 5)
    assert tf.keras.utils.to_categorical([[0, 1], [1, 0]], dtype="int32").shape == (2, 2, 2)
    with pytest.raises(ValueError):
        tf.keras.utils.to_categorical([3], num_classes=2)


def test_save_weights_load_weights_round_trip(tmp_path):
    model = _two_input_model()
    x = [A, B]
    before = model.predict(x, verbose=0)
    path = tmp_path / "w" / "ckpt.npz"
    model.save_weights(path)
    assert path.exists()  # exactly the path given, no suffix added (other endings: tests/keras/test_saving.py)
    with np.load(path, allow_pickle=False) as data:  # a plain .npz: names in `model.weights` order
        assert [str(n) for n in data["names"]] == [w.name for w in model.weights]
        np.testing.assert_array_equal(data["w0000"], model.weights[0].numpy())
    tf.keras.backend.clear_session()
    other = _two_input_model()
    assert not np.allclose(other.predict(x, verbose=0), before)
    other.load_weights(path)
    np.testing.assert_allclose(other.predict(x, verbose=0), before, rtol=1e-6)


def test_load_weights_into_a_different_architecture_raises_and_changes_nothing(tmp_path):
    model = tf.keras.Sequential([layers.Dense(4, input_shape=(3,)), layers.Dense(2)])
    path = str(tmp_path / "w.npz")
    model.save_weights(path)
    wider = tf.keras.Sequential([layers.Dense(5, input_shape=(3,)), layers.Dense(2)])
    kept = wider.get_weights()
    with pytest.raises(ValueError, match=r"shape mismatch.*\(3, 5\).*\(3, 4\)"):
        wider.load_weights(path)
    for w, k in zip(wider.get_weights(), kept):
        np.testing.assert_array_equal(w, k)
    deeper = tf.keras.Sequential([layers.Dense(4, input_shape=(3,)), layers.Dense(2), layers.Dense(1)])
    with pytest.raises(ValueError, match="holds 4 weights.*has 6"):
        deeper.load_weights(path)
    junk = tmp_path / "junk"
    junk.write_bytes(b"not a zip")
    with pytest.raises(ValueError):
        model.load_weights(junk)


def _ftrl_reference(w, grads, lr, power, init, l1, l2, shrink, beta):
    n = np.full_like(w, init)
    z = np.zeros_like(w)
    for g in grads:
        n_new = n + g * g
        z = z + g + 2 * shrink * w - (n_new ** -power - n ** -power) / lr * w
        quad = n_new ** -power / lr + 2 * (l2 + beta / (2 * lr))
        w = (np.clip(z, -l1, l1) - z) / quad
        n = n_new
    return w


@pytest.mark.parametrize("kw", [{}, dict(learning_rate=0.1, l1_regularization_strength=0.01,
                                         l2_regularization_strength=0.02),
                                dict(learning_rate=0.05, l2_shrinkage_regularization_strength=0.1, beta=0.3,
                                     learning_rate_power=-0.3)])
def test_ftrl_matches_its_update_rule(kw):
    opt = tf.keras.optimizers.Ftrl(**kw)
    v = tf.Variable([1.0, -2.0, 0.5], name="w")
    grads = [np.array([0.3 * (i + 1), -0.2, 1.0], "float32") for i in range(3)]
    for g in grads:
        opt.apply_gradients([(tf.constant(g), v)])
    args = dict(lr=0.001, power=-0.5, init=0.1, l1=0.0, l2=0.0, shrink=0.0, beta=0.0)
    args.update({{"learning_rate": "lr", "learning_rate_power": "power", "l1_regularization_strength": "l1",
                  "l2_regularization_strength": "l2", "l2_shrinkage_regularization_strength": "shrink",
                  "beta": "beta"}[k]: val for k, val in kw.items()})
    expected = _ftrl_reference(np.array([1.0, -2.0, 0.5]), grads, **args)
    np.testing.assert_allclose(v.numpy(), expected, rtol=1e-5)
    assert [s.name for s in opt.variables] == ["iter:0", "w/accumulator:0", "w/linear:0"]
    if not kw:  # Keras 2 defaults: TensorFlow 2.21 gives these weights for the same three steps
        np.testing.assert_allclose(v.numpy(), [0.272255, -0.308259, 0.347033], atol=1e-6)


def test_ftrl_by_name_and_in_fit():
    assert isinstance(tf.keras.optimizers.get("ftrl"), tf.keras.optimizers.Ftrl)
    model = tf.keras.Sequential([layers.Dense(1, input_shape=(2,))])
    model.compile(optimizer=tf.keras.optimizers.Ftrl(0.5), loss="mse")
    x = rng.normal(size=(32, 2)).astype("float32")
    h = model.fit(x, x @ np.array([[1.0], [-2.0]], "float32"), epochs=5, verbose=0)
    assert h.history["loss"][-1] < h.history["loss"][0]


def _auc_reference(y_true, y_pred, weights, num_thresholds=200):
    """ROC AUC as Keras defines it: counts at fixed thresholds, trapezoids between them."""
    eps = 1e-7
    th = np.array([-eps] + [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)] + [1 + eps])
    above = y_pred[None, :] > th[:, None]
    pos = y_true[None, :] > 0
    tp = (above & pos) @ weights
    fp = (above & ~pos) @ weights
    fn = (~above & pos) @ weights
    tn = (~above & ~pos) @ weights
    tpr = np.where(tp + fn > 0, tp / np.maximum(tp + fn, 1e-30), 0)
    fpr = np.where(fp + tn > 0, fp / np.maximum(fp + tn, 1e-30), 0)
    return np.sum((fpr[:-1] - fpr[1:]) * (tpr[:-1] + tpr[1:]) / 2)


def test_auc_matches_its_numpy_definition_and_tensorflow():
    y_true = (rng.random(50) > 0.5).astype("float32")
    y_pred = np.clip(y_true * 0.3 + rng.random(50) * 0.7, 0, 1).astype("float32")
    for n in (200, 7):
        m = tf.keras.metrics.AUC(num_thresholds=n)
        m.update_state(y_true, y_pred)
        np.testing.assert_allclose(float(m.result()), _auc_reference(y_true, y_pred, np.ones(50), n), rtol=1e-5)
    assert [tuple(v.shape) for v in m.variables] == [(7,)] * 4
    # Values TensorFlow gives on these inputs (see the AUC docstring for the definition).
    m = tf.keras.metrics.AUC()
    assert abs(float(m([0, 0, 1, 1], [0, 0.5, 0.3, 0.9])) - 0.75) < 1e-6
    m = tf.keras.metrics.AUC(from_logits=True)
    assert abs(float(m([0, 1, 1, 0], [-2.0, 3.0, 0.1, 0.2])) - 0.75) < 1e-6


def test_auc_sample_weights_accumulation_traced_and_reset():
    y_true = (rng.random(40) > 0.4).astype("float32")
    y_pred = rng.random(40).astype("float32")
    w = rng.random(40).astype("float32")
    m = tf.keras.metrics.AUC()
    update = tf.function(lambda t, p, s: m.update_state(t, p, sample_weight=s))
    update(y_true[:25], y_pred[:25], w[:25])
    update(y_true[25:], y_pred[25:], w[25:])
    np.testing.assert_allclose(float(m.result()), _auc_reference(y_true, y_pred, w), rtol=1e-5)
    m.reset_state()
    assert float(m.result()) == 0.0


def test_auc_pr_and_summation_methods_match_tensorflow_values():
    r = np.random.default_rng(0)
    y_true = (r.random(50) > 0.5).astype("f")
    y_pred = np.clip(y_true * 0.3 + r.random(50) * 0.7, 0, 1).astype("f")
    expected = [(dict(), 0.793103), (dict(curve="PR"), 0.862623),
                (dict(curve="PR", summation_method="minoring"), 0.824407),
                (dict(summation_method="majoring"), 0.79803), (dict(thresholds=[0.2, 0.5, 0.9]), 0.770115)]
    for kw, value in expected:  # figures from TensorFlow 2.21 on the same inputs
        m = tf.keras.metrics.AUC(**kw)
        m.update_state(y_true, y_pred)
        assert abs(float(m.result()) - value) < 2e-6, kw


def test_auc_in_compile_and_fit():
    model = tf.keras.Sequential([layers.Dense(1, activation="sigmoid", input_shape=(2,))])
    model.compile(optimizer="adam", loss="binary_crossentropy", metrics=[tf.keras.metrics.AUC()])
    x = rng.normal(size=(64, 2)).astype("float32")
    y = (x[:, :1] > 0).astype("float32")
    h = model.fit(x, y, epochs=2, batch_size=16, verbose=0)
    assert "auc" in h.history and 0.0 <= h.history["auc"][-1] <= 1.0
