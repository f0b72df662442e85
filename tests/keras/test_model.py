import numpy as np
import pytest

import rivulet as tf

layers = tf.keras.layers


class MLP(tf.keras.Model):
    def __init__(self, n=3, **kwargs):
        super().__init__(**kwargs)
        self.flatten = layers.Flatten(input_shape=(4, 4))
        self.hidden = [layers.Dense(8, activation="relu") for _ in range(n)]
        self.dropout = layers.Dropout(0.2)
        self.out = layers.Dense(2)

    def call(self, x):
        x = self.flatten(x)
        for layer in self.hidden:
            x = layer(x)
        return self.out(self.dropout(x))


def test_subclassed_model_tracks_layers_in_attributes_and_lists():
    model = MLP()
    model(tf.zeros([5, 4, 4]))
    assert model.name == "mlp"
    assert [l.name for l in model.layers] == ["flatten", "dense", "dense_1", "dense_2", "dropout", "dense_3"]
    assert len(model.trainable_variables) == 8
    assert model.count_params() == (16 * 8 + 8) + 2 * (8 * 8 + 8) + (8 * 2 + 2)


def test_layers_appended_to_a_list_after_assignment_are_tracked():
    model = MLP(n=1)
    model.hidden.append(layers.Dense(8))
    model(tf.zeros([1, 4, 4]))
    assert len(model.trainable_variables) == 6


def test_call_replaced_by_tf_function_is_used_and_traced_once():
    traces = []

    class Model(MLP):
        def call(self, x):
            traces.append(1)
            return super().call(x)

    eager, graph = Model(), Model()
    graph.call = tf.function(graph.call)
    x = tf.random.uniform([20, 4, 4])
    graph(x)
    graph(x)
    graph(x)
    # Traced once per signature, except that the first trace built the layers' weights: as in TensorFlow,
    # that call is traced a second time with variable creation forbidden.
    assert len(traces) == 2
    eager(x)
    eager.set_weights(graph.get_weights())
    np.testing.assert_allclose(graph(x).numpy(), eager(x).numpy(), rtol=1e-5)
    assert len(traces) == 4  # eager calls run the Python every time


def test_sequential_with_input_shape_is_built_at_once():
    model = tf.keras.Sequential([layers.Dense(4, activation="relu", input_shape=(3,)), layers.Dense(1)])
    assert model.built and len(model.weights) == 4
    assert [l.output_shape for l in model.layers] == [(None, 4), (None, 1)]
    assert model(np.ones((2, 3), "float32")).shape == (2, 1)


def test_sequential_builds_on_first_call_and_supports_add_and_pop():
    model = tf.keras.Sequential()
    model.add(layers.Dense(4))
    model.add(layers.Dense(2))
    assert not model.built
    assert model(tf.ones([3, 5])).shape == (3, 2)
    assert model.layers[-1].output_shape == (None, 2)
    model.pop()
    assert model(tf.ones([3, 5])).shape == (3, 4)


def test_functional_model_runs_its_graph():
    inputs = tf.keras.Input(shape=(3,))
    h = layers.Dense(4, activation="relu")(inputs)
    outputs = layers.Dense(2)(h)
    assert repr(outputs) == "<KerasTensor: shape=(None, 2) dtype=float32 (created by layer 'dense_1')>"
    model = tf.keras.Model(inputs=inputs, outputs=outputs)
    x = np.random.default_rng(0).normal(size=(5, 3)).astype("float32")
    d1, d2 = model.layers[1], model.layers[2]
    ref = np.maximum(x @ d1.kernel.numpy() + d1.bias.numpy(), 0) @ d2.kernel.numpy() + d2.bias.numpy()
    np.testing.assert_allclose(model(x).numpy(), ref, rtol=1e-5)
    assert [l.name for l in model.layers] == ["input_1", "dense", "dense_1"]
    assert len(model.trainable_variables) == 4


def test_functional_model_with_two_inputs():
    a, b = tf.keras.Input(shape=(2,)), tf.keras.Input(shape=(3,))
    merged = layers.Lambda(lambda t: tf.concat(t, axis=-1))([a, b])
    model = tf.keras.Model([a, b], layers.Dense(1)(merged))
    assert model([tf.ones([4, 2]), tf.ones([4, 3])]).shape == (4, 1)


def test_disconnected_graph_is_rejected():
    a, b = tf.keras.Input(shape=(2,)), tf.keras.Input(shape=(2,))
    with pytest.raises(ValueError, match="Graph disconnected"):
        tf.keras.Model(a, layers.Dense(1)(b))


def test_sequential_summary_matches_keras_table(capsys):
    model = tf.keras.Sequential([layers.Flatten(input_shape=(28, 28)), layers.Dense(128, activation="relu"),
                                 layers.Dropout(0.2), layers.Dense(10)])
    model.summary()
    # tf_keras 2.21's table, recorded: one-space indent, blank rows, byte sizes, no thousands separators.
    assert capsys.readouterr().out == '''Model: "sequential"
_________________________________________________________________
 Layer (type)                Output Shape              Param #   
=================================================================
 flatten (Flatten)           (None, 784)               0         
                                                                 
 dense (Dense)               (None, 128)               100480    
                                                                 
 dropout (Dropout)           (None, 128)               0         
                                                                 
 dense_1 (Dense)             (None, 10)                1290      
                                                                 
=================================================================
Total params: 101770 (397.54 KB)
Trainable params: 101770 (397.54 KB)
Non-trainable params: 0 (0.00 Byte)
_________________________________________________________________
'''


def test_subclassed_summary_shows_multiple_and_needs_a_build(capsys):
    model = MLP(n=1)
    with pytest.raises(ValueError, match="has not yet been built"):
        model.summary()
    model(tf.zeros([1, 4, 4]))
    model.summary()
    out = capsys.readouterr().out
    assert " dense (Dense)               multiple                  136       \n" in out
    assert "Total params: 154 (616.00 Byte)\n" in out


def test_frozen_sublayer_counts_as_non_trainable_in_the_model():
    model = tf.keras.Sequential([layers.Dense(3, input_shape=(2,)), layers.BatchNormalization(), layers.Dense(1)])
    model.layers[0].trainable = False
    assert len(model.trainable_weights) == 4  # bn gamma/beta + last dense
    assert len(model.non_trainable_weights) == 4  # frozen dense + bn moving stats
    assert len(model.get_weights()) == 8


def test_sequential_with_a_layer_that_only_runs_eagerly_still_works():
    class NumpyLayer(layers.Layer):
        def call(self, x):
            return tf.constant(x.numpy() * 2)  # needs a value: fails on placeholders

    model = tf.keras.Sequential([layers.Dense(2, kernel_initializer="ones"), NumpyLayer()])
    np.testing.assert_allclose(model(tf.ones([1, 3])).numpy(), [[6.0, 6.0]])
    assert model.built and len(model.weights) == 2


def test_a_subclass_passing_one_positional_argument_to_model_init_is_a_subclassed_model():
    # effective_tf2's DynamicRNN calls super().__init__(self): tf_keras takes positional (inputs, outputs) only
    # in pairs and ignores a lone one (this raised "A functional Model needs both `inputs` and `outputs`")
    class Doubler(tf.keras.Model):
        def __init__(self):
            super().__init__(self)
            self.dense = tf.keras.layers.Dense(2, kernel_initializer="ones")

        def call(self, x):
            return 2.0 * self.dense(x)
    m = Doubler()
    assert not m._is_graph_network
    np.testing.assert_array_equal(m(tf.ones([1, 3])).numpy(), [[6.0, 6.0]])
    with pytest.raises(ValueError, match="needs both `inputs` and `outputs`"):
        tf.keras.Model(inputs=tf.keras.Input((2,)))
