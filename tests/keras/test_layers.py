import numpy as np
import pytest

import rivulet as tf

layers = tf.keras.layers


def test_dense_builds_on_first_call_and_computes_relu_of_affine_map():
    layer = layers.Dense(4, activation="relu")
    assert not layer.built and layer.weights == []
    x = np.random.default_rng(0).normal(size=(3, 5)).astype("float32")
    y = layer(x)
    assert layer.built
    assert [tuple(w.shape) for w in layer.weights] == [(5, 4), (4,)]
    assert [w.name for w in layer.weights] == ["dense/kernel:0", "dense/bias:0"]
    layer.bias.assign([0.5, -0.5, 0.0, 1.0])
    W, b = layer.kernel.numpy(), layer.bias.numpy()
    np.testing.assert_allclose(layer(x).numpy(), np.maximum(x @ W + b, 0), rtol=1e-6)
    assert y.dtype == tf.float32 and y.shape == (3, 4)


def test_dense_defaults_glorot_uniform_kernel_and_zero_bias():
    layer = layers.Dense(50)
    layer(tf.zeros([1, 200]))
    limit = np.sqrt(6 / (200 + 50))
    k = layer.kernel.numpy()
    assert np.abs(k).max() <= limit and np.abs(k).max() > 0.9 * limit
    assert not layer.bias.numpy().any()


def test_dense_without_bias_and_with_callable_activation_on_rank3_input():
    layer = layers.Dense(2, use_bias=False, activation=tf.math.tanh)
    x = np.random.default_rng(1).normal(size=(2, 3, 4)).astype("float32")
    y = layer(x)
    assert len(layer.weights) == 1 and y.shape == (2, 3, 2)
    np.testing.assert_allclose(y.numpy(), np.tanh(x @ layer.kernel.numpy()), rtol=1e-5)


def test_float64_numpy_inputs_are_cast_to_the_layer_dtype():
    y = layers.Dense(2)(np.ones((1, 3)))
    assert y.dtype == tf.float32


def test_default_names_are_numbered_per_class():
    names = [layers.Dense(1).name, layers.Dense(1).name, layers.Conv2D(1, 1).name, layers.Dense(1).name,
             layers.MaxPooling2D().name, layers.BatchNormalization().name, layers.Dense(1, name="out").name]
    assert names == ["dense", "dense_1", "conv2d", "dense_2", "max_pooling2d", "batch_normalization", "out"]


def test_unknown_keyword_is_rejected_and_input_shape_is_accepted():
    with pytest.raises(TypeError, match="Keyword argument not understood"):
        layers.Dense(3, input_shaep=(2,))
    layer = layers.Flatten(input_shape=(28, 28))
    assert layer._batch_input_shape == (None, 28, 28)


def test_flatten_keeps_batch_dimension():
    assert layers.Flatten()(tf.zeros([20, 28, 28])).shape == (20, 784)
    assert layers.Flatten()(tf.zeros([4, 2, 3, 5])).shape == (4, 30)


def test_dropout_is_identity_unless_training():
    x = tf.ones([100, 100])
    drop = layers.Dropout(0.5)
    np.testing.assert_array_equal(drop(x).numpy(), x.numpy())
    np.testing.assert_array_equal(drop(x, training=False).numpy(), x.numpy())
    y = drop(x, training=True).numpy()
    assert set(np.unique(y)) == {0.0, 2.0}
    assert 0.4 < (y == 0).mean() < 0.6


def test_training_flag_reaches_nested_layers_whose_call_does_not_take_it():
    class Net(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.drop = layers.Dropout(0.5)

        def call(self, x):  # no `training` parameter: Keras still passes it on to the Dropout
            return self.drop(x)

    net, x = Net(), tf.ones([50, 50])
    assert (net(x, training=True).numpy() == 0).any()
    assert not (net(x).numpy() == 0).any()
    assert not (net(x, training=False).numpy() == 0).any()


def test_trainable_false_moves_weights_to_non_trainable():
    layer = layers.Dense(3)
    layer(tf.zeros([1, 2]))
    layer.trainable = False
    assert layer.trainable_weights == []
    assert len(layer.non_trainable_weights) == 2
    layer.trainable = True
    assert len(layer.trainable_weights) == 2


def test_custom_layer_build_receives_input_shape_and_tracks_variables():
    class Scale(layers.Layer):
        def build(self, input_shape):
            self.seen = input_shape
            self.w = self.add_weight("w", shape=(input_shape[-1],), initializer="ones")
            self.offset = tf.Variable(0.5, trainable=False)  # tracked by attribute assignment

        def call(self, inputs):
            return inputs * self.w + self.offset

    layer = Scale()
    out = layer(tf.constant([[1.0, 2.0]]))
    assert layer.seen.as_list() == [1, 2]
    np.testing.assert_allclose(out.numpy(), [[1.5, 2.5]])
    assert len(layer.trainable_weights) == 1 and len(layer.non_trainable_weights) == 1
    assert layer.count_params() == 3


def test_layer_first_called_inside_tf_function_creates_eager_variables():
    layer = layers.Dense(3, activation="relu")
    f = tf.function(lambda x: layer(x))
    x = tf.random.normal([4, 5])
    y = f(x)
    assert layer.built and layer.kernel.numpy().shape == (5, 3)
    np.testing.assert_allclose(y.numpy(), layer(x).numpy(), rtol=1e-6)


def _conv_reference(x, k, stride, padding):
    kh, kw = k.shape[:2]
    if padding == "same":
        oh, ow = -(-x.shape[1] // stride), -(-x.shape[2] // stride)
        ph = max((oh - 1) * stride + kh - x.shape[1], 0)
        pw = max((ow - 1) * stride + kw - x.shape[2], 0)
        x = np.pad(x, ((0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)))
    oh, ow = (x.shape[1] - kh) // stride + 1, (x.shape[2] - kw) // stride + 1
    out = np.zeros((x.shape[0], oh, ow, k.shape[3]), np.float32)
    for i in range(oh):
        for j in range(ow):
            patch = x[:, i * stride:i * stride + kh, j * stride:j * stride + kw, :]
            out[:, i, j, :] = np.tensordot(patch, k, axes=([1, 2, 3], [0, 1, 2]))
    return out


@pytest.mark.parametrize("stride,padding,shape", [(1, "valid", (2, 5, 4, 6)), (2, "same", (2, 4, 3, 6))])
def test_conv2d_matches_direct_convolution(stride, padding, shape):
    x = np.random.default_rng(2).normal(size=(2, 7, 6, 3)).astype("float32")
    conv = layers.Conv2D(6, 3, strides=stride, padding=padding, activation="relu")
    y = conv(x)
    assert y.shape == shape
    assert conv.kernel.shape == (3, 3, 3, 6) and conv.count_params() == 3 * 3 * 3 * 6 + 6
    ref = np.maximum(_conv_reference(x, conv.kernel.numpy(), stride, padding) + conv.bias.numpy(), 0)
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-4, atol=1e-5)


def test_max_pooling_takes_window_maxima():
    x = np.arange(32, dtype="float32").reshape(1, 4, 4, 2)
    y = layers.MaxPooling2D()(x).numpy()
    np.testing.assert_array_equal(y, x.reshape(1, 2, 2, 2, 2, 2).max(axis=(2, 4)))


def test_batch_normalization_training_and_inference():
    bn = layers.BatchNormalization(momentum=0.9)
    x = np.random.default_rng(3).normal(3.0, 2.0, size=(64, 4)).astype("float32")
    y = bn(x, training=True).numpy()
    assert [w.name.split("/")[1] for w in bn.weights] == ["gamma:0", "beta:0", "moving_mean:0",
                                                          "moving_variance:0"]
    assert len(bn.trainable_weights) == 2 and len(bn.non_trainable_weights) == 2
    np.testing.assert_allclose(y, (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-3), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(bn.moving_mean.numpy(), 0.1 * x.mean(0), rtol=1e-5)
    np.testing.assert_allclose(bn.moving_variance.numpy(), 0.9 + 0.1 * x.var(0), rtol=1e-5)
    y_inf = bn(x).numpy()
    mm, mv = bn.moving_mean.numpy(), bn.moving_variance.numpy()
    np.testing.assert_allclose(y_inf, (x - mm) / np.sqrt(mv + 1e-3), rtol=1e-4, atol=1e-5)


def test_embedding_looks_up_rows():
    emb = layers.Embedding(10, 3)
    ids = np.array([[1, 2], [9, 1]])
    out = emb(ids)
    assert out.shape == (2, 2, 3)
    np.testing.assert_array_equal(out.numpy(), emb.embeddings.numpy()[ids])


def test_activation_and_relu_layers():
    x = tf.constant([[-2.0, 0.5, 8.0]])
    np.testing.assert_allclose(layers.Activation("sigmoid")(x).numpy(), 1 / (1 + np.exp([[2.0, -0.5, -8.0]])),
                               rtol=1e-6)
    np.testing.assert_allclose(layers.ReLU(max_value=6.0)(x).numpy(), [[0.0, 0.5, 6.0]])
    np.testing.assert_allclose(layers.ReLU(negative_slope=0.1)(x).numpy(), [[-0.2, 0.5, 8.0]])
    with pytest.raises(ValueError, match="Unknown activation"):
        layers.Activation("nope")


def test_get_and_set_weights():
    a, b = layers.Dense(2), layers.Dense(2)
    a(tf.zeros([1, 3]))
    b(tf.zeros([1, 3]))
    b.set_weights(a.get_weights())
    for wa, wb in zip(a.get_weights(), b.get_weights()):
        np.testing.assert_array_equal(wa, wb)
    with pytest.raises(ValueError, match="expecting 2 weights"):
        b.set_weights(a.get_weights()[:1])


def test_user_layer_call_is_converted_by_autograph_inside_functions():
    class Clip(tf.keras.layers.Layer):
        def call(self, x):
            if tf.reduce_sum(x) > 0:  # a tensor condition: needs AutoGraph when traced
                return x
            return -x
    layer = Clip()
    assert layer(tf.constant([-1.0, -2.0])).numpy().tolist() == [1.0, 2.0]  # eager: plain Python
    f = tf.function(lambda x: layer(x))
    assert f(tf.constant([-1.0, -2.0])).numpy().tolist() == [1.0, 2.0]
    assert f(tf.constant([3.0, -1.0])).numpy().tolist() == [3.0, -1.0]
    ops = [op.type for op in f.get_concrete_function(tf.constant([1.0, 2.0])).graph.get_operations()]
    assert any(t in ("If", "StatelessIf") for t in ops)


@pytest.mark.parametrize("make, first, second, message", [
    (lambda: layers.Dense(2), (2, 3), (2, 4), "expected axis -1 of input shape to have value 3, but received "
                                              "input with shape (2, 4)"),
    (lambda: layers.Dense(2), None, (3,), "expected min_ndim=2, found ndim=1. Full shape received: (3,)"),
    (lambda: layers.Conv2D(2, 3), (1, 5, 5, 3), (1, 5, 5, 4), "expected axis -1 of input shape to have value 3"),
    (lambda: layers.Conv2D(2, 3), None, (5, 5, 3), "expected ndim=4, found ndim=3"),
    (lambda: layers.MaxPooling2D(), None, (5, 5, 3), "expected ndim=4, found ndim=3"),
    (lambda: layers.GlobalAveragePooling2D(), None, (5, 5, 3), "expected ndim=4, found ndim=3"),
    (lambda: layers.GlobalMaxPooling2D(), None, (2, 5, 5), "expected ndim=4, found ndim=3"),
])
def test_inputs_of_the_wrong_shape_raise_value_error_naming_the_layer(make, first, second, message):
    layer = make()
    if first is not None:
        layer(tf.zeros(first))
    with pytest.raises(ValueError, match=f'Input 0 of layer "{layer.name}" is incompatible') as info:
        layer(np.zeros(second, "float32"))
    assert message in str(info.value)
    if first is not None:
        assert layer(tf.zeros(first)).shape[0] == first[0]  # still usable with the right shape


def test_wrong_input_shape_inside_a_model_and_a_traced_function_names_the_dense_layer():
    model = tf.keras.Sequential([tf.keras.Input((3,)), layers.Dense(2, name="head")])
    with pytest.raises(ValueError, match='layer "head".*value 3, but received input with shape \\(2, 4\\)'):
        model(np.zeros((2, 4), "float32"))
    model.compile("sgd", "mse")
    with pytest.raises(ValueError, match='layer "head".*expected axis -1 of input shape to have value 3'):
        model.fit(np.zeros((4, 4)), np.zeros((4, 2)), verbose=0)


def test_dense_casts_integer_inputs_to_its_dtype():
    layer = layers.Dense(2, kernel_initializer="ones")
    y = layer(tf.constant([[1, 2]]))
    assert y.dtype == tf.float32
    np.testing.assert_allclose(y.numpy(), [[3.0, 3.0]])


def test_reshape_to_a_different_size_is_a_value_error():
    with pytest.raises(ValueError, match=r"total size of the tensor must be unchanged.*input_shape=\(4, 3\), "
                                         r"target_shape=\(5,\)"):
        layers.Reshape((5,))(tf.zeros([3, 4, 3]))
    with pytest.raises(ValueError, match="total size"):
        layers.Reshape((5, -1))(tf.zeros([3, 4, 3]))
    with pytest.raises(ValueError, match="at most one unknown dimension"):
        layers.Reshape((-1, -1))(tf.zeros([3, 4, 3]))
    assert layers.Reshape((-1, 2))(tf.zeros([3, 4, 3])).shape == (3, 6, 2)
    i = tf.keras.Input((3,))
    with pytest.raises(ValueError, match="total size"):
        layers.Reshape((4,))(layers.Dense(2)(i))
