"""tf_keras's legacy HDF5 files (issue 25): `model.save('m.h5')` / `load_model('m.h5')` and
`save_weights('w.h5')` / `load_weights('w.h5')`, laid out as tf_keras 2.21 writes them (root attrs
keras_version, backend, model_config, training_config; model_weights with layer_names and per-layer
weight_names; optimizer_weights), and the same checks on hostile files as the .weights.h5 reader."""
import json
import logging

import numpy as np
import pytest

import rivulet as tf

keras = tf.keras
layers = keras.layers
h5py = pytest.importorskip("h5py")
X = np.arange(12, dtype="float32").reshape(4, 3) / 12
Y = np.array([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5], [1.0, 1.0]], dtype="float32")


def _seq():
    return keras.Sequential([keras.Input((3,)), layers.Dense(4, activation="relu", name="d1"),
                             layers.BatchNormalization(name="bn"), layers.Dense(2, name="d2")])


def _trained():
    m = _seq()
    m.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse", metrics=["mae"])
    m.fit(X, Y, epochs=2, verbose=0)
    return m


def _text(v):
    return v.decode("utf8") if isinstance(v, bytes) else str(v)


def test_sequential_round_trip_keeps_weights_compile_and_optimizer_state(tmp_path):
    m = _trained()
    m.save(tmp_path / "m.h5")
    with h5py.File(tmp_path / "m.h5", "r") as f:
        assert _text(f.attrs["keras_version"]) == "2.21.0" and _text(f.attrs["backend"]) == "tensorflow"
        config = json.loads(_text(f.attrs["model_config"]))
        assert config["class_name"] == "Sequential" and "module" not in config  # tf_keras's legacy config
        assert config["config"]["layers"][1]["class_name"] == "Dense" and "module" not in config["config"]["layers"][1]
        train = json.loads(_text(f.attrs["training_config"]))
        assert train["loss"] == "mse" and train["optimizer_config"]["class_name"] == "Adam"
        g = f["model_weights"]
        assert [n.decode() for n in g.attrs["layer_names"]] == ["d1", "bn", "d2"]
        assert [n.decode() for n in g["d1"].attrs["weight_names"]] == ["d1/kernel:0", "d1/bias:0"]
        np.testing.assert_array_equal(g["d1/d1/kernel:0"][()], m.layers[0].kernel.numpy())
        assert len(g["bn"].attrs["weight_names"]) == 4 and "top_level_model_weights" in g
        assert len(f["optimizer_weights"].attrs["weight_names"]) == 1 + 2 * 6
    r = keras.models.load_model(tmp_path / "m.h5")
    assert type(r) is keras.Sequential and [l.name for l in r.layers] == ["d1", "bn", "d2"]
    np.testing.assert_array_equal(r.predict(X, verbose=0), m.predict(X, verbose=0))
    assert isinstance(r.optimizer, keras.optimizers.Adam) and r.loss == "mse"
    np.testing.assert_allclose(float(r.optimizer.learning_rate), 0.01)
    for a, b in zip(r.optimizer.variables, m.optimizer.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert r.evaluate(X, Y, verbose=0) == m.evaluate(X, Y, verbose=0)
    # training goes on from the same state
    m.fit(X, Y, epochs=1, verbose=0, shuffle=False)
    r.fit(X, Y, epochs=1, verbose=0, shuffle=False)
    np.testing.assert_allclose(r.predict(X, verbose=0), m.predict(X, verbose=0), rtol=1e-6)


def test_functional_round_trip_and_save_format_h5_without_extension(tmp_path):
    i = keras.Input((3,), name="x")
    h = layers.Dense(5, activation="tanh", name="h")(i)
    o = layers.Dense(2, name="o")(layers.Concatenate(name="c")([h, i]))
    m = keras.Model(i, o, name="func")
    m.save(tmp_path / "model", save_format="h5")
    assert h5py.is_hdf5(tmp_path / "model")
    with h5py.File(tmp_path / "model", "r") as f:
        assert [n.decode() for n in f["model_weights"].attrs["layer_names"]] == ["x", "h", "c", "o"]
        assert "training_config" not in f.attrs and "optimizer_weights" not in f
    r = keras.models.load_model(tmp_path / "model")
    assert r.name == "func" and [l.name for l in r.layers] == ["x", "h", "c", "o"]
    np.testing.assert_array_equal(r.predict(X, verbose=0), m.predict(X, verbose=0))


def test_compile_false_include_optimizer_false_and_no_training_config(tmp_path, caplog):
    m = _trained()
    m.save(tmp_path / "m.hdf5")
    r = keras.models.load_model(tmp_path / "m.hdf5", compile=False)
    assert getattr(r, "optimizer", None) is None
    np.testing.assert_array_equal(r.predict(X, verbose=0), m.predict(X, verbose=0))
    m.save(tmp_path / "n.h5", include_optimizer=False)
    with h5py.File(tmp_path / "n.h5", "r") as f:
        assert "training_config" not in f.attrs and "optimizer_weights" not in f
    with caplog.at_level(logging.WARNING):
        r = keras.models.load_model(tmp_path / "n.h5")
    assert getattr(r, "optimizer", None) is None and "No training configuration found" in caplog.text


def test_subclassed_models_save_weights_only(tmp_path):
    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.a = layers.Dense(4)
            self.b = layers.Dense(2)

        def call(self, x):
            return self.b(self.a(x))

    m = Net()
    m(X)
    with pytest.raises(NotImplementedError, match="requires the model to be a Functional model or a Sequential"):
        m.save(tmp_path / "m.h5")
    m.save_weights(tmp_path / "w.h5")
    with h5py.File(tmp_path / "w.h5", "r") as f:  # the model_weights layout at the root
        assert [n.decode() for n in f.attrs["layer_names"]] == ["dense", "dense_1"] or \
            len(f.attrs["layer_names"]) == 2
        assert "model_config" not in f.attrs
    r = Net()
    r(X)
    assert not np.allclose(r(X).numpy(), m(X).numpy())
    r.load_weights(tmp_path / "w.h5")
    np.testing.assert_array_equal(r(X).numpy(), m(X).numpy())


def test_load_weights_from_a_whole_model_file_and_by_name(tmp_path):
    m = _trained()
    m.save(tmp_path / "m.h5")
    r = _seq()
    r.load_weights(tmp_path / "m.h5")
    np.testing.assert_array_equal(r.predict(X, verbose=0), m.predict(X, verbose=0))
    # by name: only the layers whose names match; the others keep their values
    other = keras.Sequential([keras.Input((3,)), layers.Dense(4, activation="relu", name="d1"),
                              layers.Dense(2, name="other")])
    before = other.layers[1].kernel.numpy()
    other.load_weights(tmp_path / "m.h5", by_name=True)
    np.testing.assert_array_equal(other.layers[0].kernel.numpy(), m.layers[0].kernel.numpy())
    np.testing.assert_array_equal(other.layers[1].kernel.numpy(), before)
    with pytest.raises(ValueError, match="Layer count mismatch"):
        other.load_weights(tmp_path / "m.h5")
    # a layer of the same name but another size: refused, or skipped (with skip_mismatch) keeping its values
    wider = keras.Sequential([keras.Input((3,)), layers.Dense(4, activation="relu", name="d1"),
                              layers.Dense(3, name="d2")])
    with pytest.raises(ValueError, match=r"Shape mismatch.*d2/kernel"):
        wider.load_weights(tmp_path / "m.h5", by_name=True)
    before = wider.layers[1].kernel.numpy()
    wider.load_weights(tmp_path / "m.h5", by_name=True, skip_mismatch=True)
    np.testing.assert_array_equal(wider.layers[0].kernel.numpy(), m.layers[0].kernel.numpy())
    np.testing.assert_array_equal(wider.layers[1].kernel.numpy(), before)
    with pytest.raises(ValueError, match="skip_mismatch can only be set to True when by_name is True"):
        wider.load_weights(tmp_path / "m.h5", skip_mismatch=True)


def _tf_keras_file(path, kernel, bias):
    """A file laid out as tf_keras 2.21's save_model_to_hdf5 writes it (configs as UTF-8 bytes, names as
    fixed-length byte arrays, metrics nested per output as MeanMetricWrapper configs)."""
    dense = {"name": "dense", "trainable": True, "dtype": "float32", "units": 2, "activation": "linear",
             "use_bias": True, "kernel_initializer": {"class_name": "GlorotUniform", "config": {"seed": None}},
             "bias_initializer": {"class_name": "Zeros", "config": {}}, "kernel_regularizer": None,
             "bias_regularizer": None, "activity_regularizer": None, "kernel_constraint": None,
             "bias_constraint": None}
    config = {"class_name": "Sequential", "config": {"name": "sequential", "layers": [
        {"class_name": "InputLayer", "config": {"batch_input_shape": [None, 3], "dtype": "float32",
                                                "sparse": False, "ragged": False, "name": "dense_input"}},
        {"class_name": "Dense", "config": dense}]}}
    training = {"loss": "mse", "metrics": [[{"class_name": "MeanMetricWrapper", "config": {
        "name": "mae", "dtype": "float32", "fn": "mean_absolute_error"}}]], "weighted_metrics": None,
        "loss_weights": None, "optimizer_config": {"class_name": "Adam", "config": {
            "name": "Adam", "weight_decay": None, "clipnorm": None, "global_clipnorm": None, "clipvalue": None,
            "use_ema": False, "ema_momentum": 0.99, "ema_overwrite_frequency": None, "jit_compile": False,
            "is_legacy_optimizer": False, "learning_rate": 0.0010000000474974513, "beta_1": 0.9,
            "beta_2": 0.999, "epsilon": 1e-07, "amsgrad": False}}}
    with h5py.File(path, "w") as f:
        f.attrs["keras_version"] = "2.21.0".encode("utf8")
        f.attrs["backend"] = "tensorflow".encode("utf8")
        f.attrs["model_config"] = json.dumps(config).encode("utf8")
        f.attrs["training_config"] = json.dumps(training).encode("utf8")
        g = f.create_group("model_weights")
        g.attrs["layer_names"] = np.asarray([b"dense"])
        g.attrs["backend"] = b"tensorflow"
        g.attrs["keras_version"] = b"2.21.0"
        d = g.create_group("dense")
        d.attrs["weight_names"] = np.asarray([b"dense/kernel:0", b"dense/bias:0"])
        d.create_dataset("dense/kernel:0", data=kernel)
        d.create_dataset("dense/bias:0", data=bias)
        g.create_group("top_level_model_weights").attrs["weight_names"] = np.asarray([])
        o = f.create_group("optimizer_weights")
        names = [b"iteration:0", b"Adam/m/dense/kernel:0", b"Adam/v/dense/kernel:0", b"Adam/m/dense/bias:0",
                 b"Adam/v/dense/bias:0"]
        o.attrs["weight_names"] = np.asarray(names)
        for name, value in zip(names, [np.int64(7), kernel / 10, kernel / 100, bias / 10, bias / 100]):
            o.create_dataset(name.decode(), data=value)


def test_a_file_laid_out_by_tf_keras_loads(tmp_path):
    kernel = np.arange(6, dtype="float32").reshape(3, 2) / 4
    bias = np.array([0.5, -1.0], dtype="float32")
    _tf_keras_file(tmp_path / "tfk.h5", kernel, bias)
    r = keras.models.load_model(tmp_path / "tfk.h5")
    assert [l.name for l in r.layers] == ["dense"]
    np.testing.assert_allclose(r.predict(X, verbose=0), X @ kernel + bias, rtol=1e-6)
    assert isinstance(r.optimizer, keras.optimizers.Adam) and int(r.optimizer.iterations.numpy()) == 7
    np.testing.assert_array_equal(r.optimizer.variables[1].numpy(), kernel / 10)
    loss, mae = r.evaluate(X, Y, verbose=0)
    pred = X @ kernel + bias
    np.testing.assert_allclose([loss, mae], [np.mean((pred - Y) ** 2), np.mean(np.abs(pred - Y))], rtol=1e-5)


# ---------------------------------------------------------------------------------------------- hostile
@pytest.fixture
def saved(tmp_path):
    m = _trained()
    m.save(tmp_path / "m.h5")
    return m, tmp_path / "m.h5"


def test_a_weight_of_the_wrong_shape_or_dtype_is_refused_before_anything_is_assigned(saved, tmp_path):
    m, path = saved
    with h5py.File(path, "a") as f:
        del f["model_weights/d2/d2/kernel:0"]
        f["model_weights/d2/d2/kernel:0"] = np.zeros((4, 3), "float32")
    r = _seq()
    before = r.layers[0].kernel.numpy()
    with pytest.raises(ValueError, match=r"Shape mismatch.*d2/kernel:0"):
        r.load_weights(path)
    np.testing.assert_array_equal(r.layers[0].kernel.numpy(), before)
    with pytest.raises(ValueError, match="Shape mismatch"):
        keras.models.load_model(path)
    with h5py.File(path, "a") as f:
        del f["model_weights/d2/d2/kernel:0"]
        f["model_weights/d2/d2/kernel:0"] = np.array([[b"x", b"y"]] * 4)
    with pytest.raises(ValueError, match="dtype"):
        keras.models.load_model(path)


def test_external_links_and_virtual_datasets_are_refused(saved, tmp_path):
    _, path = saved
    with h5py.File(tmp_path / "other.h5", "w") as o:
        o["x"] = np.ones((4, 2), "float32")
    with h5py.File(path, "a") as f:
        del f["model_weights/d2/d2/kernel:0"]
        f["model_weights/d2/d2/kernel:0"] = h5py.ExternalLink(str(tmp_path / "other.h5"), "/x")
    with pytest.raises(ValueError, match="external link"):
        keras.models.load_model(path)
    with h5py.File(path, "a") as f:
        del f["model_weights/d2/d2/kernel:0"]
        layout = h5py.VirtualLayout(shape=(4, 2), dtype="float32")
        layout[:] = h5py.VirtualSource(str(tmp_path / "other.h5"), "x", shape=(4, 2))
        f.create_virtual_dataset("model_weights/d2/d2/kernel:0", layout)
    with pytest.raises(ValueError, match="virtual dataset"):
        keras.models.load_model(path)


def test_bad_configs_and_names_are_refused(saved, tmp_path):
    _, path = saved
    with h5py.File(path, "a") as f:
        config = json.loads(_text(f.attrs["model_config"]))
        config["config"]["layers"][1]["class_name"] = "EvilLayer"
        f.attrs["model_config"] = json.dumps(config).encode()
    with pytest.raises(ValueError, match="EvilLayer"):
        keras.models.load_model(path)
    with h5py.File(path, "a") as f:
        f.attrs["model_config"] = b"{not json"
    with pytest.raises(ValueError, match="not valid JSON"):
        keras.models.load_model(path)
    with h5py.File(path, "a") as f:
        del f.attrs["model_config"]
    with pytest.raises(ValueError, match="No model config found"):
        keras.models.load_model(path)
    _trained().save(tmp_path / "n.h5")
    with h5py.File(tmp_path / "n.h5", "a") as f:
        f["model_weights/d1"].attrs["weight_names"] = np.asarray([b"/optimizer_weights/iter:0", b"d1/bias:0"])
    with pytest.raises(ValueError, match="invalid name"):
        keras.models.load_model(tmp_path / "n.h5")
    with h5py.File(tmp_path / "n.h5", "a") as f:
        f["model_weights"].attrs["layer_names"] = np.arange(3)
    with pytest.raises(ValueError, match="list of strings"):
        keras.models.load_model(tmp_path / "n.h5")
    _trained().save(tmp_path / "t.h5")
    with h5py.File(tmp_path / "t.h5", "a") as f:
        f.attrs["training_config"] = b"[1, 2]"
    with pytest.raises(ValueError, match="training_config must be a JSON object"):
        keras.models.load_model(tmp_path / "t.h5")


def test_a_file_that_is_not_hdf5_is_an_oserror(tmp_path):
    (tmp_path / "m.h5").write_bytes(b"not an hdf5 file at all")
    with pytest.raises(OSError, match="m.h5"):
        keras.models.load_model(tmp_path / "m.h5")
    with pytest.raises(OSError, match="m.h5"):
        _seq().load_weights(tmp_path / "m.h5")
    with pytest.raises(OSError, match="No file or directory found"):
        keras.models.load_model(tmp_path / "missing.h5")


def test_models_nested_in_models_and_layers_built_from_input_shape(tmp_path):
    inner = keras.Sequential([layers.Dense(4, input_shape=(3,)), layers.BatchNormalization()], name="inner")
    m = keras.Sequential([inner, layers.Dense(2, kernel_initializer="ones")])
    m.save(tmp_path / "m.h5")
    r = keras.models.load_model(tmp_path / "m.h5")
    assert [l.name for l in r.layers] == ["inner", m.layers[1].name]
    np.testing.assert_array_equal(r.predict(X, verbose=0), m.predict(X, verbose=0))


def test_without_h5py_the_error_says_what_to_install(tmp_path, monkeypatch):
    import sys
    m = _seq()
    monkeypatch.setitem(sys.modules, "h5py", None)  # as if not installed
    for call in (lambda: m.save(tmp_path / "m.h5"), lambda: m.save_weights(tmp_path / "w.h5"),
                 lambda: keras.models.load_model(tmp_path / "m.h5")):
        with pytest.raises(ImportError, match="pip install h5py"):
            call()
