"""New Keras layers against tf_keras 2.21: the same constructor, the same weights, the same outputs (recorded
in tests/keras/golden/layers.npz from the cases in tests/keras/layer_cases.py), eagerly and traced."""
import os

import numpy as np
import pytest

import rivulet as tf
from tests.keras.layer_cases import CASES, PAIR_CASES

layers = tf.keras.layers
G = np.load(os.path.join(os.path.dirname(__file__), "golden", "layers.npz"), allow_pickle=False)


def _case(name):
    x = G[f"{name}__x"]
    extra = {"mask": G[f"{name}__mask"]} if f"{name}__mask" in G else {}
    weights = [G[f"{name}__w{i}"] for i in range(20) if f"{name}__w{i}" in G]
    outs = [G[f"{name}__y{i}"] for i in range(20) if f"{name}__y{i}" in G]
    return x, extra, weights, outs


def _compare(got, outs, name):
    got = got if isinstance(got, (list, tuple)) else [got]
    assert len(got) == len(outs), name
    for g, want in zip(got, outs):
        assert tuple(g.shape) == want.shape, name
        np.testing.assert_allclose(np.asarray(g), want, rtol=2e-5, atol=2e-5, err_msg=name)


@pytest.mark.parametrize("name", list(CASES))
def test_layer_matches_tf_keras(name):
    x, extra, weights, outs = _case(name)
    layer = eval(CASES[name][0])
    layer(x, **extra)
    assert [tuple(w.shape) for w in layer.get_weights()] == [w.shape for w in weights], name
    layer.set_weights(weights)
    _compare(layer(x, **extra), outs, name)
    config = layer.get_config()
    assert config["name"] == layer.name
    clone = type(layer).from_config(config)
    clone(x, **extra)
    clone.set_weights(weights)
    _compare(clone(x, **extra), outs, name + " (from_config)")


@pytest.mark.parametrize("name", [n for n in CASES if any(k in n for k in ("rnn", "lstm", "gru", "bi_", "convT"))])
def test_layer_in_a_traced_function_matches_tf_keras(name):
    """Traced, the recurrent layers run a tf.while_loop over an unknown batch size."""
    x, extra, weights, outs = _case(name)
    layer = eval(CASES[name][0])
    layer(x, **extra)
    layer.set_weights(weights)
    spec = [tf.TensorSpec((None,) + x.shape[1:], tf.float32)]
    if extra:
        spec.append(tf.TensorSpec((None, x.shape[1]), tf.bool))
        f = tf.function(lambda a, m: layer(a, mask=m), input_signature=spec)
        _compare(f(x, extra["mask"]), outs, name)
    else:
        f = tf.function(lambda a: layer(a), input_signature=spec)
        _compare(f(x), outs, name)


# get_config keys tf_keras 2.21 writes for these layers (recorded).
CONFIG_KEYS = {'attention': ['dropout', 'dtype', 'name', 'score_mode', 'trainable', 'use_scale'],
 'bi_lstm': ['dtype', 'layer', 'merge_mode', 'name', 'trainable'],
 'conv1d_same': ['activation', 'activity_regularizer', 'bias_constraint', 'bias_initializer', 'bias_regularizer',
                 'data_format', 'dilation_rate', 'dtype', 'filters', 'groups', 'kernel_constraint',
                 'kernel_initializer', 'kernel_regularizer', 'kernel_size', 'name', 'padding', 'strides',
                 'trainable', 'use_bias'],
 'convT_same': ['activation', 'activity_regularizer', 'bias_constraint', 'bias_initializer', 'bias_regularizer',
                'data_format', 'dilation_rate', 'dtype', 'filters', 'groups', 'kernel_constraint',
                'kernel_initializer', 'kernel_regularizer', 'kernel_size', 'name', 'output_padding', 'padding',
                'strides', 'trainable', 'use_bias'],
 'crop': ['cropping', 'data_format', 'dtype', 'name', 'trainable'],
 'depthwise': ['activation', 'activity_regularizer', 'bias_constraint', 'bias_initializer', 'bias_regularizer',
               'data_format', 'depth_multiplier', 'depthwise_constraint', 'depthwise_initializer',
               'depthwise_regularizer', 'dilation_rate', 'dtype', 'groups', 'kernel_size', 'name', 'padding',
               'strides', 'trainable', 'use_bias'],
 'elu': ['alpha', 'dtype', 'name', 'trainable'],
 'gap1d': ['data_format', 'dtype', 'keepdims', 'name', 'trainable'],
 'gru': ['activation', 'activity_regularizer', 'bias_constraint', 'bias_initializer', 'bias_regularizer', 'dropout',
         'dtype', 'go_backwards', 'implementation', 'kernel_constraint', 'kernel_initializer', 'kernel_regularizer',
         'name', 'recurrent_activation', 'recurrent_constraint', 'recurrent_dropout', 'recurrent_initializer',
         'recurrent_regularizer', 'reset_after', 'return_sequences', 'return_state', 'stateful', 'time_major',
         'trainable', 'units', 'unroll', 'use_bias'],
 'leaky': ['alpha', 'dtype', 'name', 'trainable'],
 'lstm': ['activation', 'activity_regularizer', 'bias_constraint', 'bias_initializer', 'bias_regularizer',
          'dropout', 'dtype', 'go_backwards', 'implementation', 'kernel_constraint', 'kernel_initializer',
          'kernel_regularizer', 'name', 'recurrent_activation', 'recurrent_constraint', 'recurrent_dropout',
          'recurrent_initializer', 'recurrent_regularizer', 'return_sequences', 'return_state', 'stateful',
          'time_major', 'trainable', 'unit_forget_bias', 'units', 'unroll', 'use_bias'],
 'maxpool3d': ['data_format', 'dtype', 'name', 'padding', 'pool_size', 'strides', 'trainable'],
 'mha': ['activity_regularizer', 'attention_axes', 'bias_constraint', 'bias_initializer', 'bias_regularizer',
         'dropout', 'dtype', 'kernel_constraint', 'kernel_initializer', 'kernel_regularizer', 'key_dim',
         'key_shape', 'name', 'num_heads', 'output_shape', 'query_shape', 'softmax_robust_masking', 'trainable',
         'use_bias', 'value_dim', 'value_shape'],
 'prelu': ['alpha_constraint', 'alpha_initializer', 'alpha_regularizer', 'dtype', 'name', 'shared_axes',
           'trainable'],
 'rescale': ['dtype', 'name', 'offset', 'scale', 'trainable'],
 'separable': ['activation', 'activity_regularizer', 'bias_constraint', 'bias_initializer', 'bias_regularizer',
               'data_format', 'depth_multiplier', 'depthwise_constraint', 'depthwise_initializer',
               'depthwise_regularizer', 'dilation_rate', 'dtype', 'filters', 'groups', 'kernel_constraint',
               'kernel_initializer', 'kernel_regularizer', 'kernel_size', 'name', 'padding', 'pointwise_constraint',
               'pointwise_initializer', 'pointwise_regularizer', 'strides', 'trainable', 'use_bias'],
 'simple_rnn': ['activation', 'activity_regularizer', 'bias_constraint', 'bias_initializer', 'bias_regularizer',
                'dropout', 'dtype', 'go_backwards', 'kernel_constraint', 'kernel_initializer', 'kernel_regularizer',
                'name', 'recurrent_constraint', 'recurrent_dropout', 'recurrent_initializer',
                'recurrent_regularizer', 'return_sequences', 'return_state', 'stateful', 'time_major', 'trainable',
                'units', 'unroll', 'use_bias'],
 'time_distributed': ['dtype', 'layer', 'name', 'trainable'],
 'upsample_bilinear': ['data_format', 'dtype', 'interpolation', 'name', 'size', 'trainable'],
 'zeropad': ['data_format', 'dtype', 'name', 'padding', 'trainable']}


@pytest.mark.parametrize("name", sorted(CONFIG_KEYS))
def test_get_config_has_keras_2_keys(name):
    spec = CASES.get(name) or PAIR_CASES.get(name)
    assert sorted(eval(spec[0]).get_config()) == CONFIG_KEYS[name]


def _pair_call(name, layer, q, v, **kw):
    if "MultiHead" in PAIR_CASES[name][0]:
        return layer(q, v, **kw)
    return layer([q, v], **kw)


@pytest.mark.parametrize("name", list(PAIR_CASES))
def test_attention_layers_match_tf_keras(name):
    ctor, _, _, kw = PAIR_CASES[name]
    q, v = G[f"{name}__q"], G[f"{name}__v"]
    weights = [G[f"{name}__w{i}"] for i in range(20) if f"{name}__w{i}" in G]
    outs = [G[f"{name}__y{i}"] for i in range(20) if f"{name}__y{i}" in G]
    layer = eval(ctor)
    _pair_call(name, layer, q, v, **kw)
    assert [tuple(w.shape) for w in layer.get_weights()] == [w.shape for w in weights], name
    layer.set_weights(weights)
    _compare(_pair_call(name, layer, q, v, **kw), outs, name)
    clone = type(layer).from_config(layer.get_config())
    _pair_call(name, clone, q, v, **kw)
    clone.set_weights(weights)
    _compare(_pair_call(name, clone, q, v, **kw), outs, name + " (from_config)")
    f = tf.function(lambda a, b: _pair_call(name, layer, a, b, **kw),
                    input_signature=[tf.TensorSpec((None,) + q.shape[1:]), tf.TensorSpec((None,) + v.shape[1:])])
    _compare(f(q, v), outs, name + " (traced)")


def test_functional_model_calls_a_layer_on_several_keras_tensors():
    q_in, v_in = tf.keras.Input((4, 5)), tf.keras.Input((6, 5))
    mha = layers.MultiHeadAttention(num_heads=2, key_dim=3)
    model = tf.keras.Model([q_in, v_in], mha(q_in, v_in))
    name = "mha"
    mha.set_weights([G[f"{name}__w{i}"] for i in range(8)])
    _compare(model([G[f"{name}__q"], G[f"{name}__v"]]), [G[f"{name}__y0"]], "functional mha")
    lines = []
    model.summary(print_fn=lines.append)
    row = [line for line in lines if line.startswith(" multi_head_attention")]
    assert row and "['input_1[0][0]'," in row[0]
    assert any("'input_2[0][0]']" in line for line in lines)


def test_embedding_mask_reaches_lstm_in_a_sequential_model():
    """Embedding(mask_zero=True) masks the padding steps: the LSTM's last output is its last real step's."""
    emb = layers.Embedding(10, 3, mask_zero=True)
    lstm = layers.LSTM(2)
    model = tf.keras.Sequential([emb, lstm])
    ids = np.array([[3, 4, 0, 0], [5, 6, 7, 8]])
    full = model(ids).numpy()
    short = tf.keras.Sequential([emb, lstm])(ids[:1, :2]).numpy()
    np.testing.assert_allclose(full[0], short[0], rtol=1e-6)


def test_generic_rnn_with_an_lstm_cell_matches_the_lstm_layer():
    x, _, weights, outs = _case("lstm")
    layer = layers.RNN(layers.LSTMCell(4))
    layer(x)
    layer.set_weights(weights)
    _compare(layer(x), outs, "RNN(LSTMCell)")
    clone = layers.RNN.from_config(layer.get_config())
    clone(x)
    clone.set_weights(weights)
    _compare(clone(x), outs, "RNN(LSTMCell) from_config")
    with pytest.raises(ValueError, match="initial_state"):
        layer(x, initial_state=[tf.zeros([2, 4])])


def test_mask_passes_through_dropout():
    emb = layers.Embedding(10, 3, mask_zero=True)
    lstm = layers.LSTM(2)
    ids = np.array([[3, 4, 0, 0]])
    with_dropout = tf.keras.Sequential([emb, layers.Dropout(0.5), lstm])(ids).numpy()
    np.testing.assert_allclose(with_dropout, tf.keras.Sequential([emb, lstm])(ids[:, :2]).numpy(), rtol=1e-6)
