"""A model whose inputs are a dict of features (DenseFeatures over feature columns) saves as .keras and loads
back with its weights: the build_config keeps the inputs by name with their dtypes."""
import json
import zipfile

import numpy as np
import pytest

import rivulet as tf

pytest.importorskip("h5py")


def _model():
    fc = tf.feature_column
    cols = [fc.numeric_column("a"),
            fc.indicator_column(fc.categorical_column_with_vocabulary_list("t", ["x", "y"])),
            fc.embedding_column(fc.categorical_column_with_vocabulary_list("e", ["p", "q", "r"]), 2)]
    return tf.keras.Sequential([tf.keras.layers.DenseFeatures(cols), tf.keras.layers.Dense(1)])


def test_dense_features_model_round_trips_through_keras_file(tmp_path):
    x = {"a": np.array([1.0, 2.0], np.float32), "t": np.array(["x", "y"]), "e": np.array(["q", "r"])}
    m = _model()
    m.compile("adam", "mse")
    m.fit(x, np.array([0.5, -0.5]), verbose=0)
    m.save(tmp_path / "m.keras")
    with zipfile.ZipFile(tmp_path / "m.keras") as z:
        build = json.loads(z.read("config.json"))["build_config"]
    assert build == {"input_shape": {"a": [None], "e": [None], "t": [None]},
                     "input_dtype": {"a": "float32", "e": "string", "t": "string"}}
    back = tf.keras.models.load_model(tmp_path / "m.keras")
    np.testing.assert_array_equal(back.predict(x, verbose=0), m.predict(x, verbose=0))


@pytest.mark.parametrize("dtype", ["object", "resource", 3])
def test_a_build_config_naming_another_dtype_is_refused(tmp_path, dtype):
    x = {"a": np.array([1.0], np.float32), "t": np.array(["x"]), "e": np.array(["p"])}
    m = _model()
    m(x)
    m.save(tmp_path / "m.keras")
    with zipfile.ZipFile(tmp_path / "m.keras") as z:
        files = {n: z.read(n) for n in z.namelist()}
    config = json.loads(files["config.json"])
    config["build_config"]["input_dtype"]["t"] = dtype
    files["config.json"] = json.dumps(config).encode()
    with zipfile.ZipFile(tmp_path / "bad.keras", "w") as z:
        for n, b in files.items():
            z.writestr(n, b)
    with pytest.raises(ValueError, match="input_dtype"):
        tf.keras.models.load_model(tmp_path / "bad.keras")
