"""Fuzzing of Keras saved-model directories read back by `tf.keras.models.load_model(dir)`: the Keras config
(keras_metadata.json, edited as JSON and as bytes) and the weights checkpoint (keras_weights.index/.data, damaged
bytes, a file missing).

A bad directory may raise only ValueError/OSError (tf_keras's errors for a config or weights that do not fit) or,
from the checkpoint, DataLossError/NotFoundError/InvalidArgumentError. What loads has every weight from the
file: a model whose config was not touched predicts exactly what the saved one did, and no weight of a loaded
model keeps a fresh initial value (a config naming more layers than the weights hold is refused).
"""
import json
import os

import numpy as np
import pytest

from tests.fuzz.harness import FuzzTarget, fuzz_cases, mutate_bytes, run_fuzz
from tests.fuzz.test_fuzz_data_files import mutate_json

SEED = 20261129
_BASE = {}
_X = np.linspace(-1, 1, 8, dtype=np.float32).reshape(4, 2)


class Undocumented(Exception):
    """A load that returned wrong data: never an allowed outcome."""


def _base():
    if "dir" not in _BASE:
        import tempfile
        import rivulet as tf
        tf.keras.utils.set_random_seed(5)
        m = tf.keras.Sequential([tf.keras.layers.Dense(3, activation="relu", input_shape=(2,)),
                                 tf.keras.layers.Dense(3), tf.keras.layers.Dense(1)])
        with tempfile.TemporaryDirectory() as d:
            m.save(os.path.join(d, "m"))
            files = {}
            for name in os.listdir(os.path.join(d, "m")):
                with open(os.path.join(d, "m", name), "rb") as f:
                    files[name] = f.read()
        _BASE["dir"] = files, m.predict(_X, verbose=0), [w.numpy() for w in m.weights]
    return _BASE["dir"]


def _append_layer(rng, cfg):
    """A layer more at the end of the config (same kind as the last, fitting its output): the weights hold
    nothing for it."""
    layers = cfg["config"]["layers"]
    extra = json.loads(json.dumps(layers[-1]))
    extra["config"]["name"] = f"extra_{int(rng.integers(100))}"
    extra["config"].pop("batch_input_shape", None)
    extra.pop("build_config", None)
    layers.append(extra)
    return cfg


def build_dir(rng, case_dir):
    files = dict(_base()[0])
    how = rng.random()
    touched = "weights"
    if how < 0.3:
        files["keras_metadata.json"] = json.dumps(mutate_json(rng, json.loads(files["keras_metadata.json"]))).encode()
        touched = "config"
    elif how < 0.4:
        files["keras_metadata.json"] = json.dumps(_append_layer(rng, json.loads(files["keras_metadata.json"]))).encode()
        touched = "config"
    elif how < 0.5:
        files["keras_metadata.json"] = mutate_bytes(rng, files["keras_metadata.json"])
        touched = "config"
    elif how < 0.9:
        name = ["keras_weights.index", "keras_weights.data-00000-of-00001"][int(rng.integers(2))]
        files[name] = mutate_bytes(rng, files[name])
    else:
        del files[sorted(k for k in files if k.startswith("keras_weights"))[int(rng.integers(2))]]
    d = os.path.join(case_dir, "m")
    os.makedirs(d)
    for name, data in files.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
    with open(os.path.join(case_dir, "touched"), "w") as f:
        f.write(touched)
    return d


def load_dir(path):
    import rivulet as tf
    with open(os.path.join(os.path.dirname(path), "touched")) as f:
        touched = f.read()
    model = tf.keras.models.load_model(path, compile=False)
    _, want, saved = _base()
    for w in model.weights:  # every weight holds a saved value (none left at its initial value)
        v = w.numpy()
        if not any(s.shape == v.shape and np.array_equal(s, v) for s in saved):
            raise Undocumented(f"{w.name} was not restored from the file")
    if touched == "weights":
        got = model.predict(_X, verbose=0)
        if got.shape != want.shape or not np.array_equal(got, want):
            raise Undocumented("a model whose weights file was damaged predicts other values")
    return model


def _allowed():
    from rivulet.errors import DataLossError, InvalidArgumentError, NotFoundError
    return ValueError, OSError, DataLossError, NotFoundError, InvalidArgumentError


TARGETS = [FuzzTarget(name="keras-saved-model-dir", build=build_dir, load=load_dir, allowed=_allowed(), seconds=5.0,
                      mem_mb=400)]


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.name)
def test_fuzz(target):
    report = run_fuzz(target, n=fuzz_cases(40), seed=SEED)
    print(report.summary())
    assert not report.failures, report.summary()


def test_base_loads_and_predicts_as_saved(tmp_path):
    files, want, _ = _base()
    (tmp_path / "touched").write_text("weights")
    (tmp_path / "m").mkdir()
    for name, data in files.items():
        (tmp_path / "m" / name).write_bytes(data)
    np.testing.assert_array_equal(load_dir(str(tmp_path / "m")).predict(_X, verbose=0), want)


def test_a_config_naming_weights_the_files_lack_is_refused(tmp_path):
    """What keras-saved-model-dir found: a layer added to keras_metadata.json loaded with fresh random weights
    (the restore was partial and nothing said so)."""
    import rivulet as tf
    files, _, _ = _base()
    cfg = _append_layer(np.random.default_rng(0), json.loads(files["keras_metadata.json"]))
    (tmp_path / "m").mkdir()
    for name, data in {**files, "keras_metadata.json": json.dumps(cfg).encode()}.items():
        (tmp_path / "m" / name).write_bytes(data)
    with pytest.raises(ValueError, match=r"hold no value for 2 of the model's 8 weights \(extra_\d+/kernel:0"):
        tf.keras.models.load_model(str(tmp_path / "m"))
