"""New Keras layers against tf_keras 2.21: the same constructor, the same weights, the same outputs (recorded
in tests/keras/golden/layers.npz from the cases in tests/keras/layer_cases.py), eagerly and traced."""
import os

import numpy as np
import pytest

import rivulet as tf
from tests.keras.layer_cases import CASES

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
    clone = type(layer).from_config(config) if "layer" not in config else None
    if clone is not None:
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
