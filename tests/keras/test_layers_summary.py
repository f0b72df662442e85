"""model.summary() in tf_keras 2.21's layout, layer call errors wrapped as tf_keras wraps them, Sequential
inputs/outputs reused in a functional Model. Expected tables recorded from tf_keras 2.21."""
import os

import numpy as np
import pytest

import rivulet as tf

layers = tf.keras.layers


def _golden(name):
    with open(os.path.join(os.path.dirname(__file__), "golden", name), encoding="utf-8") as f:
        return f.read()


FUNCTIONAL = _golden("summary_functional.txt")
SEQUENTIAL = _golden("summary_sequential.txt")
SUBCLASSED = _golden("summary_subclassed.txt")


def _lines(model):
    out = []
    model.summary(print_fn=out.append)
    return "\n".join(out) + "\n"


def test_functional_summary_orders_layers_by_depth_and_wraps_columns():
    a, b = tf.keras.Input((3,)), tf.keras.Input((3,))
    h = layers.Dense(8, activation="relu")(layers.Concatenate()([a, b]))
    s = layers.Add()([layers.Dense(8)(a), h])
    out = layers.Dense(1)(layers.LayerNormalization()(s))
    assert _lines(tf.keras.Model([a, b], out)) == FUNCTIONAL


def test_sequential_summary_with_non_trainable_weights():
    seq = tf.keras.Sequential([layers.Dense(4, input_shape=(3,)), layers.BatchNormalization(), layers.Dense(2)])
    assert _lines(seq) == SEQUENTIAL


def test_subclassed_summary():
    class M(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.d = layers.Dense(5)
            self.bn = layers.BatchNormalization()

        def call(self, x):
            return self.bn(self.d(x))
    m = M()
    m(tf.zeros([2, 3]))
    assert _lines(m) == SUBCLASSED


def test_byte_sizes_scale_units():
    big = tf.keras.Sequential([layers.Dense(1000, input_shape=(1000,)), layers.Dense(1000)])
    assert "Total params: 2002000 (7.64 MB)" in _lines(big)


def test_layer_errors_name_the_layer_and_its_call_arguments():
    class Bad(layers.Layer):
        def call(self, x, training=None):
            return tf.reshape(x, [5])
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        Bad(name="bad")(tf.zeros([2, 3]), training=True)
    assert str(info.value) == (
        "Exception encountered when calling layer 'bad' (type Bad).\n\n"
        "Input to reshape is a tensor with 6 values, but the requested shape has 5 [Op:Reshape]\n\n"
        "Call arguments received by layer 'bad' (type Bad):\n"
        "  \u2022 x=tf.Tensor(shape=(2, 3), dtype=float32)\n"
        "  \u2022 training=True")

    class Outer(layers.Layer):
        def __init__(self):
            super().__init__()
            self.inner = Bad(name="inner")

        def call(self, x):
            return self.inner(x)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:  # only the innermost layer adds its context
        Outer()(tf.zeros([2, 3]))
    assert str(info.value).count("Exception encountered") == 1 and "'inner' (type Bad)" in str(info.value)


def test_sequential_inputs_and_outputs_build_a_functional_model():
    seq = tf.keras.Sequential([layers.Dense(3, input_shape=(2,)), layers.Dense(1)])
    model = tf.keras.Model(seq.inputs, seq.outputs)
    assert [type(l).__name__ for l in model.layers] == ["InputLayer", "Dense", "Dense"]
    assert model.layers[0].name == "dense_input"
    x = np.ones([4, 2], np.float32)
    y = model(x)
    assert y.shape == (4, 1)
    np.testing.assert_allclose(y.numpy(), seq(x).numpy())


def test_show_trainable_and_a_nested_sequential():
    lines = []
    m = tf.keras.Sequential([layers.Dense(3, input_shape=(4,)), layers.Dense(2, trainable=False)])
    m.summary(show_trainable=True, print_fn=lines.append)
    a = tf.keras.Input((3,))
    b = layers.Dense(2)(a)
    c = layers.Dense(2)(b)
    tf.keras.Model(a, layers.Add()([b, c])).summary(show_trainable=True, print_fn=lines.append)
    inner = tf.keras.Sequential([layers.Dense(3, input_shape=(4,)), layers.Dense(2)], name="inner")
    tf.keras.Sequential([inner, layers.Dense(1)], name="outer").summary(print_fn=lines.append)
    assert "\n".join(lines) + "\n" == _golden("summary_trainable_nested.txt")


def test_expand_nested():
    lines = []
    inner = tf.keras.Sequential([layers.Dense(3, input_shape=(4,)), layers.Dense(2)], name="inner")
    tf.keras.Sequential([inner, layers.Dense(1)], name="outer").summary(expand_nested=True, print_fn=lines.append)
    a = tf.keras.Input((4,))
    out = layers.Add()([inner(a), layers.Dense(2)(a)])
    tf.keras.Model(a, out, name="fun").summary(expand_nested=True, show_trainable=True, print_fn=lines.append)
    assert "\n".join(lines) + "\n" == _golden("summary_expand_nested.txt")
