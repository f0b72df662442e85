"""Gaps TensorFlow's tensorflow_datasets tutorials found (distribute/keras, distribute/save_and_load), as
tf_keras 2.21 behaves."""
import numpy as np
import pytest

import rivulet as tf


def _data():
    x = np.arange(40, dtype=np.float32).reshape(8, 5) / 40
    return tf.data.Dataset.from_tensor_slices((x, x)).batch(4)


def test_learning_rate_scheduler_takes_a_schedule_of_the_epoch_alone():
    # distribute/keras: `def decay(epoch)`; tf_keras calls schedule(epoch, lr), then schedule(epoch) on TypeError
    seen = []

    def decay(epoch):
        seen.append(epoch)
        return 1e-3 if epoch < 1 else 1e-4
    model = tf.keras.Sequential([tf.keras.layers.Dense(5, input_shape=(5,))])
    model.compile(optimizer=tf.keras.optimizers.Adam(0.5), loss="mse")
    hist = model.fit(_data(), epochs=2, verbose=0, callbacks=[tf.keras.callbacks.LearningRateScheduler(decay)])
    assert seen == [0, 1]
    assert np.allclose(hist.history["lr"], [1e-3, 1e-4])
    assert np.isclose(model.optimizer.learning_rate.numpy(), 1e-4)


def test_learning_rate_scheduler_wants_a_float():
    model = tf.keras.Sequential([tf.keras.layers.Dense(5, input_shape=(5,))])
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(ValueError, match='The output of the "schedule" function should be float. Got: 1'):
        model.fit(_data(), epochs=1, verbose=0, callbacks=[tf.keras.callbacks.LearningRateScheduler(lambda e, lr: 1)])
    with pytest.raises(ValueError, match="The dtype of `lr` Tensor should be float"):
        model.fit(_data(), epochs=1, verbose=0,
                  callbacks=[tf.keras.callbacks.LearningRateScheduler(lambda e, lr: tf.constant(1))])


class _Subclassed(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self._dense_layer = tf.keras.layers.Dense(5, name="output_layer")

    def call(self, inputs):
        return self._dense_layer(inputs)


def test_save_spec_is_none_until_the_model_is_called_then_the_calls_specs(tmp_path):
    model = _Subclassed()
    assert model.save_spec() is None
    model.compile(optimizer="adam", loss="mean_squared_error")
    model.fit(_data(), epochs=1, verbose=0)
    assert model.save_spec() == ([tf.TensorSpec((None, 5), tf.float32)], {})
    m2 = _Subclassed()
    m2(tf.zeros((3, 5)))
    assert m2.save_spec(dynamic_batch=False) == ([tf.TensorSpec((3, 5), tf.float32)], {})
    assert m2.save_spec() == ([tf.TensorSpec((None, 5), tf.float32)], {})
    # a model with Inputs: theirs, named after them
    i = tf.keras.Input((3,), name="x")
    f = tf.keras.Model(i, tf.keras.layers.Dense(2)(i))
    assert f.save_spec() == ([tf.TensorSpec((None, 3), tf.float32, name="x")], {})
    seq = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,), name="d")])
    assert seq.save_spec() == ([tf.TensorSpec((None, 3), tf.float32, name="d_input")], {})


def test_a_subclassed_model_not_yet_called_saves_with_tf_saved_model_but_not_with_model_save(tmp_path):
    model = _Subclassed()
    with pytest.raises(ValueError, match="cannot be saved either because the input shape is not available"):
        model.save(str(tmp_path / "m"))
    tf.saved_model.save(model, str(tmp_path / "s"))  # TensorFlow saves it: nothing to trace, no signatures
    loaded = tf.saved_model.load(str(tmp_path / "s"))
    assert len(loaded.signatures) == 0
    model(tf.zeros((2, 5)))
    model.save(str(tmp_path / "m"))  # called once: its call is known


def test_a_sequential_first_in_a_sequential_gives_its_declared_input_shape_only():
    # images/data_augmentation: resize_and_rescale, called once on an unbatched image (which builds it on
    # (None, 40, 3)), then the first layer of a Conv2D model: tf_keras leaves that model unbuilt (no error)
    resize_and_rescale = tf.keras.Sequential([tf.keras.layers.Resizing(18, 18), tf.keras.layers.Rescaling(1. / 255)])
    assert resize_and_rescale(tf.zeros((30, 40, 3))).shape == (18, 18, 3)
    model = tf.keras.Sequential([resize_and_rescale, tf.keras.layers.Conv2D(4, 3)])
    assert not model.built
    assert model(tf.zeros((2, 30, 40, 3))).shape == (2, 16, 16, 4)
    # a shape declared on the nested model's first layer, or a functional model's Input, builds it
    inner = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
    assert tf.keras.Sequential([inner, tf.keras.layers.Dense(1)]).input_shape == (None, 3)
    i = tf.keras.Input((5,))
    functional = tf.keras.Model(i, tf.keras.layers.Dense(2)(i))
    assert tf.keras.Sequential([functional, tf.keras.layers.Dense(1)]).input_shape == (None, 5)
    with pytest.raises(ValueError, match="An empty Model cannot be used as a Layer"):
        tf.keras.Sequential([tf.keras.Sequential()])


def test_a_call_whose_training_argument_has_no_default_gets_none():
    # generative/data_compression: `def call(self, x, training)` called as `trainer(batch)`
    seen = []

    class Trainer(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.d = tf.keras.layers.Dense(2)

        def call(self, x, training):
            seen.append(training)
            return dict(rate=self.d(x), distortion=tf.reduce_mean(x, -1))
    t = Trainer()
    assert sorted(t(tf.zeros((3, 4)))) == ["distortion", "rate"]
    t(tf.zeros((3, 4)), training=True)
    assert seen == [None, True]

    class Plain(tf.keras.layers.Layer):
        def call(self, x, training):
            return x if training is None else x + 1
    assert Plain()(tf.zeros(2)).numpy().tolist() == [0, 0]


def test_clone_model_makes_new_layers_of_the_same_architecture():
    # optimization/compression: tf.keras.models.clone_model(model, clone_function=...)
    seq = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu", name="a"), tf.keras.layers.Dense(2, name="b")],
                              name="classifier")
    seq(tf.zeros((3, 5)))  # built by its first call
    clone = tf.keras.models.clone_model(seq)
    assert clone.name == "classifier" and [l.name for l in clone.layers] == ["a", "b"]
    assert all(c is not o for c, o in zip(clone.layers, seq.layers))
    assert clone.input_shape == (None, 5) and len(clone.weights) == 4
    assert not np.allclose(clone.layers[0].kernel.numpy(), seq.layers[0].kernel.numpy())  # new weights
    seen = []

    def fn(layer):
        seen.append(layer.name)
        return layer.__class__.from_config(layer.get_config())
    i = tf.keras.Input((3,), name="x")
    functional = tf.keras.Model(i, tf.keras.layers.Dense(1, name="out")(tf.keras.layers.Dense(2, name="h")(i)))
    fc = tf.keras.models.clone_model(functional, clone_function=fn)
    assert sorted(seen) == ["h", "out"]  # not the Input
    assert [l.name for l in fc.layers] == ["x", "h", "out"] and fc(tf.ones((2, 3))).shape == (2, 1)

    class Sub(tf.keras.Model):
        def call(self, x):
            return x
    with pytest.raises(ValueError, match="Expected `model` argument to be a functional `Model` instance, but got a "
                                         "subclassed model"):
        tf.keras.models.clone_model(Sub())


def test_conv2d_transpose_on_inputs_of_unknown_height_and_width():
    # pix2pix's U-Net (images/segmentation, generative/cyclegan): Input(shape=[None, None, 3])
    i = tf.keras.Input([None, None, 4])
    same = tf.keras.layers.Conv2DTranspose(3, 4, strides=2, padding="same")
    assert same(i).shape.as_list() == [None, None, None, 3]
    assert tf.keras.Model(i, same(i))(tf.zeros((2, 5, 6, 4))).shape == (2, 10, 12, 3)
    valid = tf.keras.layers.Conv2DTranspose(3, 3, strides=2, padding="valid", output_padding=1)
    assert tf.keras.Model(i, valid(i))(tf.zeros((1, 5, 6, 4))).shape == (1, 12, 14, 3)  # as TensorFlow 2.21


def test_losses_metrics_and_loss_weights_by_output_name_for_dict_outputs():
    # generative/data_compression's trainer: compile(loss=dict(...), metrics=dict(...), loss_weights=dict(...));
    # values recorded from TensorFlow 2.21 (Keras) on the same model
    class Trainer(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.d = tf.keras.layers.Dense(1, kernel_initializer="zeros")

        def call(self, x, training=None):
            return dict(rate=tf.reduce_mean(tf.square(x), -1) + self.d(x)[:, 0],
                        distortion=tf.reduce_mean(tf.abs(x), -1))

    def pass_through_loss(_, x):
        return x
    t = Trainer()
    t.compile(optimizer="sgd", loss=dict(rate=pass_through_loss, distortion=pass_through_loss),
              metrics=dict(rate=pass_through_loss, distortion=[pass_through_loss, "mae"]),
              loss_weights=dict(rate=1., distortion=3.))
    x = np.linspace(-1, 1, 32, dtype=np.float32).reshape(8, 4)
    ds = tf.data.Dataset.from_tensor_slices(x).map(lambda im: (im, dict(rate=0., distortion=0.))).batch(4)
    got = t.evaluate(ds, verbose=0, return_dict=True)
    want = {"distortion_loss": 0.51613, "distortion_mae": 0.51613, "distortion_pass_through_loss": 0.51613,
            "loss": 1.90323, "rate_loss": 0.35484, "rate_pass_through_loss": 0.35484}
    assert sorted(got) == sorted(want)
    for k, v in want.items():
        assert got[k] == pytest.approx(v, abs=1e-5)
    with pytest.raises(ValueError, match="Found unexpected losses or metrics that do not correspond to any Model "
                                         "output: \\['nope'\\]"):
        t.compile(optimizer="sgd", loss=dict(nope=pass_through_loss))
        t.evaluate(ds, verbose=0)
