"""tf.keras.mixed_precision: policies, layers computing in float16 with float32 variables, loss scaling.
Printed forms and values are those of tf_keras 2.21's docstrings and the mixed precision guide."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.keras import layers, mixed_precision


@pytest.fixture(autouse=True)
def _float32_after():
    yield
    mixed_precision.set_global_policy(None)


def test_policy_names_and_dtypes():
    p = mixed_precision.Policy("mixed_float16")
    assert repr(p) == '<Policy "mixed_float16">' and str(p) == '<Policy "mixed_float16">'
    assert (p.name, p.compute_dtype, p.variable_dtype) == ("mixed_float16", "float16", "float32")
    b = mixed_precision.Policy("mixed_bfloat16")
    assert (b.compute_dtype, b.variable_dtype) == ("bfloat16", "float32")
    f = mixed_precision.Policy("float64")
    assert (f.compute_dtype, f.variable_dtype) == ("float64", "float64")
    assert mixed_precision.Policy.from_config(p.get_config()).name == "mixed_float16"


def test_policy_errors():
    with pytest.raises(ValueError, match="Cannot convert value foo to a mixed precision Policy"):
        mixed_precision.Policy("foo")
    with pytest.raises(TypeError, match="not a DType"):
        mixed_precision.Policy(tf.float32)
    with pytest.raises(ValueError, match="removed from TensorFlow"):
        mixed_precision.Policy("infer_float32_vars")
    with pytest.raises(ValueError, match="floating-point policies"):
        mixed_precision.set_global_policy("int32")


def test_global_policy_sets_layer_policies():
    assert repr(mixed_precision.global_policy()) == '<Policy "float32">'
    assert repr(layers.Dense(10).dtype_policy) == '<Policy "float32">'
    mixed_precision.set_global_policy("mixed_float16")
    assert repr(mixed_precision.global_policy()) == '<Policy "mixed_float16">'
    layer = layers.Dense(10)
    assert repr(layer.dtype_policy) == '<Policy "mixed_float16">'
    assert (layer.dtype, layer.compute_dtype, layer.variable_dtype) == ("float32", "float16", "float32")
    assert repr(layers.Dense(10, dtype="float64").dtype_policy) == '<Policy "float64">'
    mixed_precision.set_global_policy("float32")
    assert layers.Dense(2).compute_dtype == "float32"


def test_layer_computes_in_float16_with_float32_variables():
    layer = layers.Dense(3, dtype="mixed_float16", kernel_initializer="ones")
    y = layer(tf.ones((2, 4)))
    assert y.dtype == tf.float16
    assert layer.kernel.dtype == tf.float32 and layer.kernel.numpy().dtype == np.float32
    np.testing.assert_array_equal(y.numpy(), np.full((2, 3), 4, np.float16))
    assert repr(layer.kernel).startswith("<AutoCastVariable 'dense")
    assert "dtype=float32 dtype_to_cast_to=float32" in repr(layer.kernel)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.cast(layer(tf.ones((2, 4))), tf.float32))
    grads = tape.gradient(loss, layer.trainable_variables)
    assert [g.dtype for g in grads] == [tf.float32, tf.float32]
    np.testing.assert_array_equal(grads[0].numpy(), np.full((4, 3), 2.0))


def test_subclassed_layer_autocasts_its_variables():
    class SimpleDense(layers.Layer):  # the Policy docstring's example
        def build(self, input_shape):
            self.kernel = self.add_weight("kernel", (input_shape[-1], 10))

        def call(self, inputs):
            return tf.linalg.matmul(inputs, self.kernel)
    layer = SimpleDense(dtype="mixed_float16")
    y = layer(tf.ones((10, 10)))
    assert y.dtype == tf.float16 and layer.kernel.dtype == tf.float32
    traced = tf.function(lambda x: layer(x))(tf.ones((2, 10)))
    assert traced.dtype == tf.float16


def test_functional_model_with_float32_softmax():
    mixed_precision.set_global_policy("mixed_float16")
    inputs = tf.keras.Input(shape=(8,), name="digits")
    assert inputs.dtype == tf.float32
    dense1 = layers.Dense(4, activation="relu", name="dense_1")
    x = dense1(inputs)
    assert x.dtype == tf.float16 and dense1.kernel.dtype.name == "float32"
    assert layers.Dense(3, activation="softmax")(x).dtype == tf.float16
    outputs = layers.Activation("softmax", dtype="float32", name="predictions")(layers.Dense(3)(x))
    assert outputs.dtype == tf.float32
    model = tf.keras.Model(inputs, outputs)
    model.compile(loss="sparse_categorical_crossentropy", optimizer=tf.keras.optimizers.RMSprop(),
                  metrics=["accuracy"])
    assert isinstance(model.optimizer, mixed_precision.LossScaleOptimizer)
    rng = np.random.default_rng(0)
    x_train, y_train = rng.random((64, 8)).astype("float32"), rng.integers(0, 3, 64)
    history = model.fit(x_train, y_train, batch_size=16, epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"][0])
    assert model.predict(x_train[:2], verbose=0).dtype == np.float32
    assert int(model.optimizer.iterations.numpy()) == 4


def test_layer_config_round_trips_the_policy():
    layer = layers.Dense(2, dtype="mixed_float16")
    config = layer.get_config()
    assert config["dtype"] == {"module": "keras.mixed_precision", "class_name": "Policy",
                               "config": {"name": "mixed_float16"}, "registered_name": None}
    again = layers.Dense.from_config(config)
    assert again.dtype_policy.name == "mixed_float16"
    assert layers.Dense(2).get_config()["dtype"] == "float32"
    with pytest.raises(ValueError, match="dtype policy"):
        layers.Dense(2, dtype={"class_name": "Lambda", "config": {"name": "x"}})


def test_loss_scale_optimizer_docstring_values():
    opt = mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(0.25))
    var = tf.Variable(1.)
    opt.minimize(lambda: var ** 2, var_list=[var])
    assert var.numpy() == 0.5
    with tf.GradientTape() as tape:
        loss = var ** 2
        scaled_loss = opt.get_scaled_loss(loss)
    assert scaled_loss.numpy() == 0.25 * 32768
    scaled_grad = tape.gradient(scaled_loss, var)
    (grad,) = opt.get_unscaled_gradients([scaled_grad])
    opt.apply_gradients([(grad, var)])
    assert var.numpy() == 0.25
    assert opt.loss_scale.numpy() == 32768.0 and opt.dynamic_counter.numpy() == 2
    assert opt.get_unscaled_gradients([None]) == [None]


def test_loss_scale_optimizer_skips_nonfinite_steps_and_adjusts_the_scale():
    opt = mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(1.0), initial_scale=8.,
                                             dynamic_growth_steps=2)
    var = tf.Variable([1., 2.])
    opt.apply_gradients([(tf.constant([np.inf, 1.]), var)])
    np.testing.assert_array_equal(var.numpy(), [1., 2.])  # skipped
    assert opt.loss_scale.numpy() == 4.0 and int(opt.iterations.numpy()) == 0

    @tf.function
    def step(g):
        opt.apply_gradients([(g, var)])
    step(tf.constant([np.nan, 0.]))
    assert opt.loss_scale.numpy() == 2.0
    step(tf.constant([1., 1.]))
    step(tf.constant([1., 1.]))  # two finite steps in a row: the scale doubles
    np.testing.assert_array_equal(var.numpy(), [-1., 0.])
    assert opt.loss_scale.numpy() == 4.0 and opt.dynamic_counter.numpy() == 0
    for _ in range(5):
        opt.apply_gradients([(tf.constant([np.inf, 0.]), var)])
    assert opt.loss_scale.numpy() == 1.0  # never below 1


def test_loss_scale_optimizer_arguments():
    fixed = mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(), dynamic=False, initial_scale=4)
    assert fixed.loss_scale.numpy() == 4.0 and fixed.dynamic_counter is None and not fixed.dynamic
    with pytest.raises(ValueError, match="initial_scale"):
        mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(), dynamic=False)
    with pytest.raises(TypeError, match="inner_optimizer"):
        mixed_precision.LossScaleOptimizer("sgd")
    opt = mixed_precision.LossScaleOptimizer(tf.keras.optimizers.RMSprop())
    assert (opt.initial_scale, opt.dynamic_growth_steps) == (32768.0, 2000)
    assert opt.inner_optimizer.rho == 0.9 and opt.rho == 0.9


def test_float16_overflow_and_underflow():
    x = tf.constant(256, dtype="float16")
    assert np.isinf((x ** 2).numpy())
    assert (tf.constant(1e-5, dtype="float16") ** 2).numpy() == 0


@pytest.mark.parametrize("name", ["m.keras", "m.h5"])
def test_mixed_model_saves_and_loads(tmp_path, name):
    pytest.importorskip("h5py")
    mixed_precision.set_global_policy("mixed_float16")
    inputs = tf.keras.Input((4,))
    outputs = layers.Activation("linear", dtype="float32")(layers.Dense(2)(inputs))
    model = tf.keras.Model(inputs, outputs)
    model.compile("adam", "mse")
    model.fit(np.ones((8, 4), "float32"), np.ones((8, 2), "float32"), verbose=0)
    model.save(tmp_path / name)
    mixed_precision.set_global_policy(None)
    again = tf.keras.models.load_model(tmp_path / name)
    assert isinstance(again.optimizer, mixed_precision.LossScaleOptimizer)
    assert again.layers[1].dtype_policy.name == "mixed_float16" and again.layers[2].compute_dtype == "float32"
    x = np.ones((1, 4), "float32")
    np.testing.assert_array_equal(again.predict(x, verbose=0), model.predict(x, verbose=0))


def test_normalization_layers_compute_in_float32_under_a_mixed_policy():
    mixed_precision.set_global_policy("mixed_float16")
    bn, ln = layers.BatchNormalization(momentum=0.5), layers.LayerNormalization()
    x = tf.constant(np.arange(12, dtype="float16").reshape(4, 3))
    y = bn(x, training=True)
    assert y.dtype == tf.float16 and ln(x).dtype == tf.float16
    assert not isinstance(bn.moving_mean, mixed_precision.AutoCastVariable)  # tf_keras: no autocast here
    assert bn.moving_mean.dtype == tf.float32 and ln.gamma.dtype == tf.float32
    np.testing.assert_allclose(bn.moving_mean.numpy(), [2.25, 2.75, 3.25])  # 0.5 * 0 + 0.5 * [4.5, 5.5, 6.5]
    np.testing.assert_allclose(y.numpy()[:, 0], [-1.342, -0.447, 0.447, 1.342], atol=2e-3)


def test_bfloat16_policies_name_what_is_missing():
    mixed_precision.set_global_policy("mixed_bfloat16")
    assert repr(mixed_precision.global_policy()) == '<Policy "mixed_bfloat16">'
    with pytest.raises(TypeError, match="NumPy has no bfloat16"):
        layers.Dense(2)


def test_embedding_casts_the_rows_it_looks_up():
    layer = layers.Embedding(5000, 2, dtype="mixed_float16", embeddings_initializer="ones")
    out = layer(tf.constant([[4097.0, 1.0]]))  # float ids are not autocast to float16 (4097 would round)
    assert out.dtype == tf.float16 and layer.embeddings.dtype == tf.float32
    assert not isinstance(layer.embeddings, mixed_precision.AutoCastVariable)
    np.testing.assert_array_equal(out.numpy(), np.ones((1, 2, 2), np.float16))
