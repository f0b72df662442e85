"""A functional model called eagerly lets each layer's value go once the last layer taking it has run, as
tf_keras's functional graph does (a MobileNetV2 batch held every activation until the end)."""
import tracemalloc

import numpy as np

import rivulet as tf

MB = 1 << 20


def _model():
    inp = tf.keras.Input(shape=(1024,))
    x = inp
    skip = tf.keras.layers.Activation("tanh")(inp)  # taken by the first layer and the last
    x = skip
    for _ in range(12):
        x = tf.keras.layers.Activation("tanh")(x)
    out = tf.keras.layers.Add()([x, skip])
    return tf.keras.Model(inp, [out, skip])


def test_an_eager_functional_call_keeps_only_the_values_still_to_be_taken():
    model = _model()
    x = np.full((256, 1024), 0.5, np.float32)  # 1 MiB a value
    model(x)
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        out, skip = model(x)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert peak < 6 * MB, peak  # every activation kept: 15 MiB
    s = np.tanh(x)
    h = s
    for _ in range(12):
        h = np.tanh(h)
    np.testing.assert_allclose(skip.numpy(), s, rtol=1e-6)
    np.testing.assert_allclose(out.numpy(), h + s, rtol=1e-5)
    again, _ = model(x)  # a second call: the counts start afresh
    np.testing.assert_allclose(again.numpy(), out.numpy())
