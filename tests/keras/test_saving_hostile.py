"""Keras loading of bad or hostile files (issue 24): load_model / load_weights / model_from_json either restore
exactly or raise tf_keras's error types (ValueError, OSError) naming what is wrong, before reading more than
the model can hold; nothing outside the file is read (HDF5 external storage, external links)."""
import io
import json
import os
import struct
import time
import zipfile

import numpy as np
import pytest

import rivulet as tf

keras = tf.keras
layers = keras.layers
h5py = pytest.importorskip("h5py")
X = np.arange(6, dtype="float32").reshape(2, 3) / 6


def _model():
    return keras.Sequential([layers.Dense(4, activation="relu", input_shape=(3,)), layers.Dense(2)])


@pytest.fixture
def members(tmp_path):
    """{member name: bytes} of a small valid .keras file (Dense 3->4->2)."""
    _model().save(tmp_path / "base.keras")
    with zipfile.ZipFile(tmp_path / "base.keras") as z:
        return {n: z.read(n) for n in z.namelist()}


def _write(path, members, compression=zipfile.ZIP_STORED):
    with zipfile.ZipFile(path, "w", compression) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path


def _edit_weights(members, edit):
    """members with model.weights.h5 changed by edit(h5 file, [dataset names])."""
    bio = io.BytesIO(members["model.weights.h5"])
    with h5py.File(bio, "r+") as f:
        names = []
        f.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
        edit(f, names)
    return dict(members, **{"model.weights.h5": bio.getvalue()})


def _kernel(f, names):
    return next(n for n in names if f[n].shape == (3, 4))


# ---------------------------------------------------------------------------------------------- zip bombs
def test_weights_member_larger_than_the_model_is_refused_before_inflating(tmp_path, members):
    p = tmp_path / "bomb.keras"
    with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("config.json", members["config.json"])
        with z.open("model.weights.h5", "w", force_zip64=True) as w:
            for _ in range(16):
                w.write(b"\0" * (4 << 20))  # 64 MiB of zeros: a 3->4->2 model needs a few KiB
    assert os.path.getsize(p) < 1 << 20
    t0 = time.monotonic()
    with pytest.raises(ValueError, match=r"model.weights.h5 inflates to 67108864 bytes, more than the model's"):
        keras.models.load_model(p)
    assert time.monotonic() - t0 < 2


def test_compressed_and_stored_members_both_load_exactly(tmp_path, members):
    want = keras.models.load_model(_write(tmp_path / "s.keras", members)).predict(X, verbose=0)
    got = keras.models.load_model(_write(tmp_path / "d.keras", members, zipfile.ZIP_DEFLATED)).predict(X, verbose=0)
    np.testing.assert_array_equal(got, want)


def test_corrupted_stored_weights_fail_the_crc(tmp_path, members):
    p = _write(tmp_path / "c.keras", members)
    raw = bytearray(p.read_bytes())
    data = members["model.weights.h5"]
    start = raw.find(data)
    raw[start + len(data) - 8] ^= 0xFF  # a byte of the last dataset's values (HDF5 puts raw data at the end)
    p.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match="bad CRC-32"):
        keras.models.load_model(p)


def test_config_member_with_a_lying_size_is_a_value_error(tmp_path, members):
    p = _write(tmp_path / "lie.keras", members, zipfile.ZIP_DEFLATED)
    raw = bytearray(p.read_bytes())
    cd = raw.rfind(b"PK\x01\x02", 0, raw.rfind(b"config.json"))
    struct.pack_into("<I", raw, cd + 24, 10)  # the central directory's uncompressed size of config.json
    p.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match="config.json cannot be read.*CRC"):  # was zipfile.BadZipFile
        keras.models.load_model(p)


# ---------------------------------------------------------------------------------------------- datasets
def test_dataset_shape_is_checked_before_it_is_read(tmp_path, members):
    def huge(f, names):
        name = _kernel(f, names)
        del f[name]
        f.create_dataset(name, shape=(100000, 100000), dtype="f8", chunks=(1, 1), fillvalue=1.0)
    p = _write(tmp_path / "huge.keras", _edit_weights(members, huge))
    with pytest.raises(ValueError, match=r"Shape mismatch in .*layers/dense/vars/0 \(variable dense\w*/kernel:0\).*"
                                         r"\(3, 4\).*\(100000, 100000\)"):
        keras.models.load_model(p)
    (tmp_path / "w.weights.h5").write_bytes(_edit_weights(members, huge)["model.weights.h5"])
    m = _model()
    before = m.get_weights()
    with pytest.raises(ValueError, match=r"Shape mismatch.*\(100000, 100000\)"):
        m.load_weights(tmp_path / "w.weights.h5")
    for a, b in zip(before, m.get_weights()):
        np.testing.assert_array_equal(a, b)  # nothing assigned


@pytest.mark.parametrize("data, match", [
    (np.full((3, 4), 1e300), "out of range for the variable's float32"),  # was inf, silently
    (np.array([[b"ab"] * 4] * 3), "holds dtype |S2, which does not load into"),
    (np.ones((3, 4), np.complex64), "holds dtype complex64"),
])
def test_dataset_dtype_must_load_into_the_variable(tmp_path, members, data, match):
    def retype(f, names):
        name = _kernel(f, names)
        del f[name]
        f.create_dataset(name, data=data)
    with pytest.raises(ValueError, match=match.replace("|", r"\|")):
        keras.models.load_model(_write(tmp_path / "t.keras", _edit_weights(members, retype)))


def test_external_storage_virtual_datasets_and_external_links_are_refused(tmp_path, members):
    secret = tmp_path / "secret"
    secret.write_bytes(b"top secret bytes" * 4)

    def external(f, names):
        name = _kernel(f, names)
        del f[name]
        f.create_dataset(name, shape=(3, 4), dtype="u1", external=[(str(secret), 0, h5py.h5f.UNLIMITED)])

    def virtual(f, names):
        name = _kernel(f, names)
        layout = h5py.VirtualLayout(shape=(3, 4), dtype="f4")
        layout[:] = h5py.VirtualSource(str(tmp_path / "other.h5"), "x", shape=(3, 4))
        del f[name]
        f.create_virtual_dataset(name, layout)

    def external_link(f, names):
        name = _kernel(f, names)
        del f[name]
        f[name] = h5py.ExternalLink(str(tmp_path / "other.h5"), "/x")
    with h5py.File(tmp_path / "other.h5", "w") as o:
        o["x"] = np.full((3, 4), 7, "f4")
    for edit, match in ((external, "external storage"), (virtual, "a virtual dataset"),
                        (external_link, "external link")):
        with pytest.raises(ValueError, match=match):
            keras.models.load_model(_write(tmp_path / "e.keras", _edit_weights(members, edit)))
        (tmp_path / "e.weights.h5").write_bytes(_edit_weights(members, edit)["model.weights.h5"])
        m = _model()
        with pytest.raises(ValueError, match=match):
            m.load_weights(tmp_path / "e.weights.h5")
        assert not (m.get_weights()[0] == 7).all()


def test_soft_links_load_when_they_resolve_and_are_refused_when_they_do_not(tmp_path, members):
    def moved(f, names):  # the kernel kept elsewhere, linked from where Keras looks for it
        name = _kernel(f, names)
        f.move(name, "/kept")
        f[name] = h5py.SoftLink("/kept")
    want = keras.models.load_model(_write(tmp_path / "b.keras", members)).predict(X, verbose=0)
    got = keras.models.load_model(_write(tmp_path / "s.keras", _edit_weights(members, moved))).predict(X, verbose=0)
    np.testing.assert_array_equal(got, want)

    def cycle(f, names):
        del f[names[0]]
        f[names[0]] = h5py.SoftLink("/" + names[0])

    def dangling(f, names):
        del f[names[0]]
        f[names[0]] = h5py.SoftLink("/nowhere")
    with pytest.raises(ValueError, match="is a soft link to '/layers/dense.*/vars/0', which does not resolve.*"
                                         "too many links"):  # was RuntimeError
        keras.models.load_model(_write(tmp_path / "c.keras", _edit_weights(members, cycle)))
    with pytest.raises(ValueError, match="soft link to '/nowhere', which does not resolve.*component not found"):
        keras.models.load_model(_write(tmp_path / "d.keras", _edit_weights(members, dangling)))


def test_renamed_dataset_is_a_value_error(tmp_path, members):
    def rename(f, names):
        f[names[0]].parent.move(names[0].rsplit("/", 1)[-1], "x0")
    with pytest.raises(ValueError, match=r"layers/dense/vars/0 \(variable .*\) is missing"):  # was KeyError
        keras.models.load_model(_write(tmp_path / "r.keras", _edit_weights(members, rename)))


def test_load_weights_reads_a_keras_file(tmp_path, members):
    p = _write(tmp_path / "m.keras", members)
    m = _model()
    m.load_weights(p)
    np.testing.assert_array_equal(m.predict(X, verbose=0), keras.models.load_model(p).predict(X, verbose=0))
    with pytest.raises(ValueError, match=r"Layer 'layers/dense_\d+' expected 2 variables, but received 0"):
        keras.Sequential([layers.Dense(4, input_shape=(3,)), layers.Dense(2), layers.Dense(1)]).load_weights(p)
    os.mkdir(tmp_path / "d.weights.h5")
    with pytest.raises(OSError, match="not a regular file"):
        _model().load_weights(tmp_path / "d.weights.h5")


# ---------------------------------------------------------------------------------------------- configs
def _config(members):
    return json.loads(members["config.json"])


def _functional_json():
    inp = keras.Input(shape=(3,))
    return json.loads(keras.Model(inp, layers.Dense(2)(layers.Dense(4)(inp))).to_json())


def _set(path_value):
    def edit(cfg):
        *path, value = path_value
        node = cfg
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
        return cfg
    return edit


CONFIG_CASES = {  # name: (edit of the Sequential config.json, what the ValueError says); each escaped before
    "units 2**64 (OverflowError)": (_set(["config", "layers", 2, "config", "units", 2 ** 64]),
                                    r"Layer 'dense_1'.*\(4, 18446744073709551616\) of weight 'kernel'"),
    "units 2**32+3 (was a (4, 3) kernel)": (_set(["config", "layers", 2, "config", "units", 2 ** 32 + 3]),
                                            r"weight 'kernel' gave shape \(4, 3\), not \(4, 4294967299\)"),
    "activation 5 (TypeError)": (_set(["config", "layers", 2, "config", "activation", 5]),
                                 r"Could not deserialize layer 'dense_1' \(Dense\) from its config: TypeError: "
                                 r"Could not interpret activation"),
    "rank-101 input (StopIteration)": (_set(["config", "layers", 0, "config", "batch_input_shape", [None] + [1] * 100]),
                                       "batch_input_shape of layer 'dense_input' .* has rank 101"),
    "negative dimension": (_set(["config", "layers", 0, "config", "batch_input_shape", [None, -3]]),
                           "non-negative integer dimensions"),
    "__numpy__ with a string config (TypeError)": (
        _set(["config", "layers", 1, "config", "dtype", {"class_name": "__numpy__", "config": "x"}]),
        "Invalid __numpy__ config"),
    "__numpy__ of an object dtype": (
        _set(["config", "layers", 1, "config", "dtype", {"class_name": "__numpy__",
                                                          "config": {"value": [1], "dtype": "object"}}]),
        "unsupported dtype 'object'"),
    "__numpy__ ragged": (
        _set(["config", "layers", 1, "config", "dtype", {"class_name": "__numpy__",
                                                          "config": {"value": [[1], [1, 2]], "dtype": "int64"}}]),
        "not a rectangular array of int64"),
    "build_config of the wrong type": (_set(["config", "layers", 1, "build_config", [3]]),
                                       "build_config of layer 'dense' .* must be a dict"),
    "layer config a string": (_set(["config", "layers", 1, "config", "oops"]),
                              r"The config of layer Dense must be a dict"),
}


@pytest.mark.parametrize("case", CONFIG_CASES, ids=list(CONFIG_CASES))
def test_bad_configs_are_value_errors(tmp_path, members, case):
    edit, match = CONFIG_CASES[case]
    cfg = edit(_config(members))
    with pytest.raises(ValueError, match=match):
        keras.models.model_from_json(json.dumps(cfg))
    with pytest.raises(ValueError, match=match):
        keras.models.load_model(_write(tmp_path / "c.keras", dict(members, **{"config.json": json.dumps(cfg)})))


FUNCTIONAL_CASES = {
    "inbound_nodes [[]] (IndexError)": (_set(["config", "layers", 1, "inbound_nodes", [[]]]),
                                        r"an inbound node of layer 'dense_\d+' must be a non-empty list"),
    "node index a string": (_set(["config", "layers", 1, "inbound_nodes", [[["input_1", "0", 0, {}]]]]),
                            r"must be \[layer name, node index, tensor index, \(kwargs\)\]"),
    "output of an unknown layer": (_set(["config", "output_layers", [["nowhere", 0, 0]]]),
                                   "refers to layer 'nowhere', which the config does not define"),
    "input_layers missing": (lambda cfg: cfg["config"].pop("input_layers") and cfg,
                             r"input_layers must be \[layer name, node index, tensor index, \(kwargs\)\], got None"),
}


@pytest.mark.parametrize("case", FUNCTIONAL_CASES, ids=list(FUNCTIONAL_CASES))
def test_bad_functional_configs_are_value_errors(case):
    edit, match = FUNCTIONAL_CASES[case]
    with pytest.raises(ValueError, match=match):
        keras.models.model_from_json(json.dumps(edit(_functional_json())))


def test_deeply_nested_json_is_a_value_error(tmp_path, members):
    deep = '{"class_name": "Sequential", "config": {"layers": ' + "[" * 100000 + "]" * 100000 + "}}"
    with pytest.raises(ValueError, match="nests JSON arrays or objects too deeply"):  # was RecursionError
        keras.models.model_from_json(deep)
    deep = '{"class_name": "Sequential", "config": {"layers": ' + "[" * 500 + "]" * 500 + "}}"
    with pytest.raises(ValueError, match="nests lists or dicts more than 200 deep"):
        keras.models.load_model(_write(tmp_path / "d.keras", dict(members, **{"config.json": deep})))


def test_keras_file_without_weights_is_refused(tmp_path, members):
    del members["model.weights.h5"]  # was loaded with freshly initialised weights, silently
    with pytest.raises(ValueError, match="expected a model.weights.h5 file in the archive"):
        keras.models.load_model(_write(tmp_path / "n.keras", members))


def test_not_a_zip_and_missing_files(tmp_path):
    with pytest.raises(OSError, match="No file or directory found"):
        keras.models.load_model(tmp_path / "missing.keras")
    (tmp_path / "bad.keras").write_bytes(b"PK\x05\x06" + b"\0" * 18)  # an empty archive's end record only
    with pytest.raises(ValueError, match="has no config.json"):
        keras.models.load_model(tmp_path / "bad.keras")


# ---------------------------------------------------------------------------------------------- found by fuzzing
def test_damaged_hdf5_structures_are_os_errors(tmp_path, members):
    data = members["model.weights.h5"]
    assert b"SNOD" in data
    (tmp_path / "w.weights.h5").write_bytes(data.replace(b"SNOD", b"XNOD", 1))  # a group's symbol table node
    with pytest.raises(OSError, match="is damaged: .*bad symbol table node signature"):  # was RuntimeError
        _model().load_weights(tmp_path / "w.weights.h5")


def test_zip_needing_a_newer_version_is_a_value_error(tmp_path, members):
    p = _write(tmp_path / "v.keras", members)
    raw = bytearray(p.read_bytes())
    cd = raw.find(b"PK\x01\x02")
    raw[cd + 6] = 134  # the central directory's "version needed to extract": 13.4
    p.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match="not a valid .keras archive: zip file version 13.4"):  # NotImplementedError
        keras.models.load_model(p)


@pytest.mark.parametrize("config, match", [
    ({"class_name": "Dense", "config": {"units": 2}, "registered_name": ["x"]}, "Invalid serialized model"),  # TypeError
    ({"class_name": "Sequential"}, "needs 'class_name' and 'config'"),  # returned a dict
    ({"class_name": "Functional", "config": {"name": "f"}}, "'layers' must be a non-empty list"),  # a bare Model
    ({"class_name": "Model", "config": {"name": "m"}, "build_config": {"input_shape": [[None, 2], [None, 3]]}},
     "(?s)Could not deserialize model .m. .Model.*NotImplementedError.*has no `call`"),
])
def test_configs_found_by_fuzzing(config, match):
    with pytest.raises(ValueError, match=match):
        keras.models.model_from_json(json.dumps(config))


def test_optimizer_state_of_another_optimizer_is_skipped_with_a_warning(tmp_path):
    m = _model()
    m.compile(keras.optimizers.Adam(0.01), "mse")
    m.fit(X, np.ones((2, 2), "float32"), epochs=1, verbose=0)
    m.save_weights(tmp_path / "w.weights.h5")
    other = _model()
    other.compile(keras.optimizers.SGD(), "mse")
    with pytest.warns(UserWarning, match="Skipping variable loading for optimizer 'SGD', because it has 1 "
                                         "variables whereas the saved optimizer has 9 variables"):
        other.load_weights(tmp_path / "w.weights.h5")  # (was skipped silently)
    np.testing.assert_array_equal(other.predict(X, verbose=0), m.predict(X, verbose=0))


@pytest.mark.parametrize("layer, key", [(layers.MaxPooling1D(2, padding="same"), "pool_size"),
                                        (layers.AveragePooling1D(2, padding="same"), "strides")])
def test_pool_sizes_beyond_int32_are_refused_at_construction(layer, key):
    inp = keras.Input((4, 2))
    config = json.loads(keras.Model(inp, layer(inp)).to_json())
    config["config"]["layers"][1]["config"][key] = [10 ** 12]  # was a 14.6 TiB padded input when called
    with pytest.raises(ValueError, match="Attr (ksize|strides) has value 1000000000000 out of range for an int32"):
        keras.models.model_from_json(json.dumps(config))
