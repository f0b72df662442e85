"""Layer.add_loss inside call and Layer.add_metric, in fit/evaluate (values recorded from tf_keras 2.21)."""
import numpy as np
import pytest

import rivulet as tf

keras = tf.keras


class ActivityStats(keras.layers.Layer):
    def call(self, x):
        self.add_loss(tf.reduce_mean(x) * 0.1)
        self.add_metric(tf.reduce_sum(x), name="xsum")
        self.add_metric(tf.reduce_max(x), name="xmax", aggregation="mean")
        return x


def _model():
    inp = keras.Input((2,))
    h = keras.layers.Dense(2, kernel_initializer="ones")(inp)
    model = keras.Model(inp, ActivityStats()(h))
    model.compile("sgd", "mse")
    return model


X, Y = np.ones((4, 2), np.float32), np.zeros((4, 2), np.float32)


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_fit_adds_call_losses_and_reports_added_metrics(run_eagerly):
    model = _model()
    model.run_eagerly = run_eagerly
    history = model.fit(X, Y, epochs=2, batch_size=2, verbose=0).history
    np.testing.assert_allclose(history["loss"], [4.0758161544799805, 3.608004093170166], rtol=1e-5)
    np.testing.assert_allclose(history["xsum"], [7.876999855041504, 7.399649620056152], rtol=1e-5)
    np.testing.assert_allclose(history["xmax"], [1.969249963760376, 1.849912405014038], rtol=1e-5)
    assert model.metrics_names == ["loss", "xsum", "xmax"]
    result = model.evaluate(X, Y, verbose=0, return_dict=True)
    np.testing.assert_allclose([result["loss"], result["xsum"], result["xmax"]],
                               [3.291181802749634, 14.118803024291992, 1.764850378036499], rtol=1e-5)


def test_call_losses_belong_to_the_latest_call():
    layer = ActivityStats()
    layer(tf.ones([2, 2]))
    layer(tf.ones([2, 2]) * 3)
    assert len(layer.losses) == 1
    np.testing.assert_allclose(layer.losses[0].numpy(), 0.3, rtol=1e-6)
    assert [m.name for m in layer.metrics] == ["xsum", "xmax"]
    np.testing.assert_allclose([m.result().numpy() for m in layer.metrics], [8.0, 2.0])
    with pytest.raises(ValueError, match="provide a name"):
        keras.layers.Layer().add_metric(tf.constant(1.0))
    with pytest.raises(ValueError, match="only `mean`"):
        keras.layers.Layer().add_metric(tf.constant(1.0), name="m", aggregation="sum")


def test_subclassed_model_fast_call_keeps_each_calls_losses_together():
    class Penalised(tf.keras.layers.Layer):
        def call(self, x):
            self.add_loss(tf.reduce_sum(x))
            return x * 2.0

    class Net(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.shared = Penalised()

        def call(self, x):
            return self.shared(self.shared(x))  # one layer, called twice per forward

    net = Net()
    for k in (1.0, 3.0):
        net(tf.constant([k]))
        # this call's two losses, not the previous call's as well
        assert sorted(float(v) for v in net.losses) == [k, 2 * k]

    class Plain(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.d = tf.keras.layers.Dense(2, kernel_initializer="ones")

        def call(self, x):
            return self.d(x)

    m = Plain()
    np.testing.assert_allclose(m(tf.constant([[1.0, 2.0]])).numpy(), [[3.0, 3.0]])
    np.testing.assert_allclose(m(np.array([[1.0, 1.0]], np.float32)).numpy(), [[2.0, 2.0]])
