"""Keras saving: configs, to_json, the .keras zip (both ways with tf_keras 2.21), saved-model directories,
save_weights/load_weights in the checkpoint, .weights.h5 and .npz formats.

tests/keras/data/tf_seq.keras was written by tf_keras 2.21 (Sequential Dense(3, relu)-Dropout-Dense(2),
Adam(0.01), loss mse, metrics mae, after one epoch); tf_seq.io.npz holds inputs, TensorFlow's predictions
and optimizer variables. TensorFlow 2.21 was checked by hand to load the .keras files these tests write
(Sequential with Adam state, functional with shared input and Concatenate): same predictions."""
import json
import os
import zipfile

import numpy as np
import pytest

import rivulet as tf
from rivulet.errors import NotFoundError

keras = tf.keras
layers = keras.layers
DATA = os.path.join(os.path.dirname(__file__), "data")
X = np.random.default_rng(0).standard_normal((8, 4)).astype("float32")
Y = np.random.default_rng(1).standard_normal((8, 2)).astype("float32")
h5py = pytest.importorskip("h5py")


def _seq():
    m = keras.Sequential([layers.Dense(3, activation="relu", input_shape=(4,), name="d1"), layers.Dropout(0.1),
                          layers.Dense(2, name="d2")])
    m.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse", metrics=["mae"])
    m.fit(X, Y, epochs=1, verbose=0)
    return m


def _functional():
    inp = keras.Input((4,), name="x")
    a = layers.Dense(3, name="da")(inp)
    b = layers.Dense(3, name="db")(inp)
    c = layers.Concatenate(name="cat")([a, b])
    return keras.Model(inp, layers.Dense(1, name="out")(c), name="fun")


ALL_LAYERS = [
    lambda: layers.Dense(3, activation="relu", kernel_initializer="he_normal", name="d"),
    lambda: layers.Conv2D(4, 3, padding="same", strides=2), lambda: layers.Dropout(0.2), lambda: layers.Flatten(),
    lambda: layers.ReLU(6.0), lambda: layers.Softmax(1), lambda: layers.Reshape((2, 3)),
    lambda: layers.Embedding(10, 4, input_length=5), lambda: layers.BatchNormalization(momentum=0.9),
    lambda: layers.LayerNormalization(epsilon=1e-5), lambda: layers.Concatenate(axis=1), lambda: layers.Add(),
    lambda: layers.MaxPooling2D(3), lambda: layers.AveragePooling2D(), lambda: layers.GlobalAveragePooling2D(),
    lambda: layers.GlobalMaxPooling2D(), lambda: layers.Activation("tanh"), lambda: layers.Dense(2, input_shape=(3,)),
    lambda: layers.Multiply(), lambda: layers.Subtract(), lambda: layers.Average(), lambda: layers.Maximum(),
    lambda: layers.Minimum(),
]


@pytest.mark.parametrize("make", ALL_LAYERS)
def test_every_layer_round_trips_its_config(make):
    layer = make()
    config = layer.get_config()
    assert config["name"] == layer.name and "dtype" in config and "trainable" in config
    text = json.dumps(keras.saving.serialize_keras_object(layer))
    again = keras.saving.deserialize_keras_object(json.loads(text))
    assert type(again) is type(layer)
    assert again.get_config() == config
    assert type(layer).from_config(config).get_config() == config


def test_dense_config_matches_keras():
    config = layers.Dense(3, activation="relu", name="d").get_config()
    assert {k: config[k] for k in ("name", "trainable", "dtype", "units", "activation", "use_bias")} == \
        {"name": "d", "trainable": True, "dtype": "float32", "units": 3, "activation": "relu", "use_bias": True}
    assert {"kernel_initializer", "bias_initializer", "kernel_regularizer", "kernel_constraint"} <= set(config)


def test_to_json_and_model_from_json():
    f = _functional()
    j = json.loads(f.to_json())
    assert j["class_name"] == "Functional" and j["keras_version"] == "2.21.0"
    cfg = j["config"]
    assert cfg["input_layers"] == [["x", 0, 0]] and cfg["output_layers"] == [["out", 0, 0]]
    cat = next(l for l in cfg["layers"] if l["name"] == "cat")
    assert cat["inbound_nodes"] == [[["da", 0, 0, {}], ["db", 0, 0, {}]]]  # as tf_keras writes it
    g = keras.models.model_from_json(f.to_json())
    assert [l.name for l in g.layers] == ["x", "da", "db", "cat", "out"]
    assert g.count_params() == f.count_params()
    g.set_weights(f.get_weights())
    np.testing.assert_allclose(g.predict(X, verbose=0), f.predict(X, verbose=0), rtol=1e-6)
    s = keras.models.model_from_json(_seq().to_json())
    assert isinstance(s, keras.Sequential) and [type(l).__name__ for l in s.layers] == ["Dense", "Dropout", "Dense"]


def test_keras_file_round_trip_with_compiled_state(tmp_path):
    m = _seq()
    path = tmp_path / "m.keras"
    m.save(path)
    with zipfile.ZipFile(path) as z:
        assert sorted(z.namelist()) == ["config.json", "metadata.json", "model.weights.h5"]
        config = json.loads(z.read("config.json"))
        assert config["compile_config"]["loss"] == "mse" and config["compile_config"]["metrics"] == ["mae"]
        assert config["compile_config"]["optimizer"]["class_name"] == "Adam"
        assert json.loads(z.read("metadata.json"))["keras_version"] == "2.21.0"
    back = keras.models.load_model(path)
    assert isinstance(back, keras.Sequential)
    np.testing.assert_allclose(back.predict(X, verbose=0), m.predict(X, verbose=0), rtol=1e-6)
    assert isinstance(back.optimizer, keras.optimizers.Adam) and back.optimizer.iterations.numpy() == 1
    for a, b in zip(m.optimizer.variables, back.optimizer.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    back.fit(X, Y, epochs=1, verbose=0)  # trains on from the restored state
    assert back.optimizer.iterations.numpy() == 2
    uncompiled = keras.models.load_model(path, compile=False)
    assert getattr(uncompiled, "optimizer", None) is None


def test_reads_keras_file_written_by_tensorflow():
    z = np.load(os.path.join(DATA, "tf_seq.io.npz"), allow_pickle=False)
    m = keras.models.load_model(os.path.join(DATA, "tf_seq.keras"))
    np.testing.assert_allclose(m.predict(z["x"], verbose=0), z["pred"], atol=1e-6)
    assert [l.name for l in m.layers] == ["d1", "dropout", "d2"]
    for i, v in enumerate(m.optimizer.variables):
        np.testing.assert_array_equal(v.numpy(), z[f"opt{i}"])
    assert m.loss == "mse"


def test_functional_keras_file(tmp_path):
    f = _functional()
    f.save(tmp_path / "f.keras")
    g = keras.models.load_model(tmp_path / "f.keras")
    np.testing.assert_allclose(g.predict(X, verbose=0), f.predict(X, verbose=0), rtol=1e-6)
    f.save_weights(tmp_path / "w.weights.h5")
    with h5py.File(tmp_path / "w.weights.h5", "r") as h:
        names = []
        h.visit(names.append)
    assert "layers/dense/vars/0" in names and "layers/dense_2/vars/1" in names and "layers/concatenate/vars" in names


@keras.saving.register_keras_serializable(package="tests")
class Scale(layers.Layer):
    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def build(self, input_shape):
        self.w = self.add_weight("w", (input_shape[-1],), initializer="ones")

    def call(self, x):
        return x * self.w * self.factor

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


class Unregistered(layers.Layer):
    def call(self, x):
        return x + 1.0


class MyModel(keras.Model):
    def __init__(self, units=3, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.dense = layers.Dense(units)
        self.scale = Scale(0.5)

    def call(self, x):
        return self.scale(self.dense(x))


def test_custom_layers_registered_and_custom_objects(tmp_path):
    assert keras.saving.get_registered_name(Scale) == "tests>Scale"
    entry = keras.saving.serialize_keras_object(Scale(3.0, name="s"))
    assert entry["module"] is None and entry["registered_name"] == "tests>Scale"
    assert entry["config"]["factor"] == 3.0
    m = keras.Sequential([layers.Dense(2, input_shape=(4,)), Scale(3.0), Unregistered()])
    m.save(tmp_path / "c.keras")
    with pytest.raises(ValueError, match="Unknown layer: 'Unregistered'"):
        keras.models.load_model(tmp_path / "c.keras")
    back = keras.models.load_model(tmp_path / "c.keras", custom_objects={"Unregistered": Unregistered})
    np.testing.assert_allclose(back.predict(X, verbose=0), m.predict(X, verbose=0), rtol=1e-6)
    with keras.saving.custom_object_scope({"Unregistered": Unregistered}):
        assert isinstance(keras.models.load_model(tmp_path / "c.keras").layers[2], Unregistered)


def test_subclassed_model(tmp_path):
    m = MyModel(4)
    m.compile(optimizer="sgd", loss="mse")
    m.fit(X, np.ones((8, 4), "f"), epochs=1, verbose=0)
    assert m.get_config()["units"] == 4
    m.save(tmp_path / "s.keras")
    with zipfile.ZipFile(tmp_path / "s.keras") as z:
        import io
        with h5py.File(io.BytesIO(z.read("model.weights.h5")), "r") as h:
            names = []
            h.visit(names.append)
    # tf_keras 2.21's layout for a subclassed model: its `layers`, by class name (checked by hand: TF loads it)
    assert {"layers/dense/vars/0", "layers/dense/vars/1", "layers/scale/vars/0", "optimizer/vars/0"} <= set(names)
    back = keras.models.load_model(tmp_path / "s.keras", custom_objects={"MyModel": MyModel})
    assert isinstance(back, MyModel) and back.units == 4
    np.testing.assert_allclose(back.predict(X, verbose=0), m.predict(X, verbose=0), rtol=1e-6)
    m.save_weights(tmp_path / "ck")
    other = MyModel(4)
    status = other.load_weights(tmp_path / "ck")  # deferred: applied when `other` builds
    np.testing.assert_allclose(other.predict(X, verbose=0), m.predict(X, verbose=0), rtol=1e-6)
    status.expect_partial()


def test_saved_model_directory_loads_as_keras(tmp_path):
    m = _seq()
    m.save(tmp_path / "dir")
    back = keras.models.load_model(tmp_path / "dir")
    assert isinstance(back, keras.Sequential)
    np.testing.assert_allclose(back.predict(X, verbose=0), m.predict(X, verbose=0), rtol=1e-6)
    assert back.optimizer.iterations.numpy() == 1
    served = tf.saved_model.load(str(tmp_path / "dir"))  # still a saved model
    np.testing.assert_allclose(served(X).numpy(), m.predict(X, verbose=0), rtol=1e-5)


def test_save_weights_formats(tmp_path):
    m = _seq()
    m.save_weights(tmp_path / "ckpt")  # a TensorFlow checkpoint, as tf_keras writes for a bare prefix
    assert (tmp_path / "ckpt.index").exists() and (tmp_path / "checkpoint").exists()
    keys = dict(tf.train.list_variables(str(tmp_path / "ckpt")))
    assert keys["layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE"] == [4, 3]
    assert "optimizer/_variables/1/.ATTRIBUTES/VARIABLE_VALUE" in keys
    for suffix, ok in (("ckpt", True), ("w.weights.h5", True), ("w.npz", True), ("w.h5", True)):
        if suffix != "ckpt":
            m.save_weights(tmp_path / suffix)
        fresh = _seq()
        assert not np.allclose(fresh.predict(X, verbose=0), m.predict(X, verbose=0))
        fresh.load_weights(tmp_path / suffix)
        np.testing.assert_allclose(fresh.predict(X, verbose=0), m.predict(X, verbose=0), rtol=1e-6)
    with pytest.raises(NotFoundError):
        m.load_weights(tmp_path / "missing")
    wrong = keras.Sequential([layers.Dense(5, input_shape=(4,)), layers.Dense(2)])
    with pytest.raises(ValueError, match="Shape mismatch"):
        wrong.load_weights(tmp_path / "w.weights.h5")


def test_hostile_keras_files(tmp_path):
    bad = tmp_path / "bad.keras"
    with zipfile.ZipFile(bad, "w") as z:
        z.writestr("config.json", json.dumps({"module": "os", "class_name": "system", "config": {"command": "x"}}))
    with pytest.raises(ValueError, match="Unknown model: 'system'"):
        keras.models.load_model(bad)
    with zipfile.ZipFile(bad, "w") as z:
        z.writestr("config.json", "{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        keras.models.load_model(bad)
    (tmp_path / "plain.keras").write_bytes(b"nope")
    with pytest.raises(ValueError, match="File format not supported"):
        keras.models.load_model(tmp_path / "plain.keras")
    lambda_json = keras.Sequential([layers.Lambda(lambda x: x, input_shape=(2,))]).to_json()  # as tf_keras
    with pytest.raises(ValueError, match="Lambda layer with a Python `lambda`"):
        keras.models.model_from_json(lambda_json)  # its bytecode is never loaded


@keras.utils.register_keras_serializable(package="tests")
def doubled(x):
    return 2.0 * x


def test_functions_by_registered_or_custom_name():
    def halved(x):
        return 0.5 * x
    layer = keras.saving.deserialize_keras_object(
        keras.saving.serialize_keras_object(layers.Dense(2, activation=doubled)))
    assert layer.activation is doubled
    entry = keras.saving.serialize_keras_object(layers.Dense(2, activation=halved))
    with pytest.raises(ValueError, match="Unknown activation function: halved"):
        keras.saving.deserialize_keras_object(entry)
    assert keras.saving.deserialize_keras_object(entry, custom_objects={"halved": halved}).activation is halved
    assert keras.utils.get_custom_objects()["tests>doubled"] is doubled


def test_nested_shared_multi_io_functional(tmp_path):
    inner = keras.Sequential([layers.Dense(3, activation="relu", input_shape=(4,)), layers.BatchNormalization()],
                             name="inner")
    a, b = keras.Input((4,), name="a"), keras.Input((3,), name="b")
    shared = layers.Dense(3, name="shared")
    h1, h2, h3 = inner(a), shared(b), shared(layers.Dense(3, name="pre")(b))
    out1 = layers.Add(name="add")([h1, h2, h3])
    m = keras.Model([a, b], [out1, layers.Dense(1, name="o2")(out1)], name="multi")
    # tf_keras 2.21 lists this model's layers in this order (deepest first); checkpoints and .keras use it
    assert [l.name for l in m.layers] == ["b", "a", "pre", "inner", "shared", "add", "o2"]
    cfg = json.loads(m.to_json())["config"]
    add = next(l for l in cfg["layers"] if l["name"] == "add")
    assert add["inbound_nodes"] == [[["inner", 1, 0, {}], ["shared", 0, 0, {}], ["shared", 1, 0, {}]]]
    m.compile("adam", ["mse", "mse"])
    xs = [X[:5], X[:5, :3]]
    m.fit(xs, [np.ones((5, 3), "f"), np.ones((5, 1), "f")], epochs=1, verbose=0)
    m.save(tmp_path / "m.keras")
    back = keras.models.load_model(tmp_path / "m.keras")
    for p, q in zip(m.predict(xs, verbose=0), back.predict(xs, verbose=0)):
        np.testing.assert_allclose(p, q, atol=1e-6)
    again = keras.models.model_from_json(m.to_json())
    m.save_weights(str(tmp_path / "ck"))
    again.load_weights(str(tmp_path / "ck"))
    for p, q in zip(m.predict(xs, verbose=0), again.predict(xs, verbose=0)):
        np.testing.assert_allclose(p, q, atol=1e-6)


def test_without_h5py_the_error_says_what_to_install(tmp_path, monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "h5py", None)  # as if not installed
    m = keras.Sequential([layers.Dense(2, input_shape=(4,))])
    with pytest.raises(ImportError, match=r"pip install h5py.*rivulet\[h5\]"):
        m.save(tmp_path / "m.keras")
    assert not (tmp_path / "m.keras").exists()
    with pytest.raises(ImportError, match="pip install h5py"):
        m.save_weights(tmp_path / "w.weights.h5")
    m.save_weights(tmp_path / "ck")  # the checkpoint format needs nothing extra
    m.save(tmp_path / "dir")
    assert isinstance(keras.models.load_model(tmp_path / "dir"), keras.Sequential)


def test_user_get_config_gets_keras2_base_config():
    """A user's layer that defines get_config and calls super() gets name/trainable/dtype only (what the
    custom-layers guide prints under TF 2.21); one without get_config gets its constructor arguments."""
    class Linear(layers.Layer):
        def __init__(self, units=32, input_dim=8, **kwargs):
            super().__init__(**kwargs)
            self.units = units

        def get_config(self):
            config = super().get_config()
            config.update({"units": self.units})
            return config

    class NoConfig(layers.Layer):
        def __init__(self, units=32, **kwargs):
            super().__init__(**kwargs)
            self.units = units
    assert Linear(64, name="lin").get_config() == {"name": "lin", "trainable": True, "dtype": "float32", "units": 64}
    assert NoConfig(5, name="n").get_config() == {"name": "n", "trainable": True, "dtype": "float32", "units": 5}
    assert NoConfig.from_config(NoConfig(5).get_config()).units == 5
