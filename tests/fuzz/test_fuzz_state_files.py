"""Fuzzing of the small readers around checkpoints and weights: the `checkpoint` state file (read by
tf.train.latest_checkpoint, get_checkpoint_state and CheckpointManager, whose save() then sweeps the checkpoints
the file lists) and Keras `save_weights("w.npz")` archives read back by `load_weights`.

A bad input may raise only:
- state file: ValueError (no model_checkpoint_path, text that is not UTF-8; a file TensorFlow's text-format
  parser refuses is "Checkpoint ignored": get_checkpoint_state returns None, as TensorFlow), and, from the
  restore of what it names, NotFoundError/DataLossError/InvalidArgumentError; a path the state returns is absolute,
  and a manager's sweep deletes checkpoint files inside its own directory only (the audit hook checks every
  write and removal);
- .npz weights: ValueError (not a weights archive, a count, shape or dtype that does not fit the model, a damaged
  zip or array), never a value cast to another dtype: what loads is exactly the archive's arrays.
"""
import io
import os
import zipfile

import numpy as np
import pytest

from tests.fuzz.harness import FuzzTarget, fuzz_cases, mutate_bytes, run_fuzz

SEED = 20261128
_BASE = {}


class Undocumented(Exception):
    """A load that returned wrong data: never an allowed outcome."""


def _tf():
    import rivulet as tf
    return tf


# ---- the checkpoint state file ----------------------------------------------------------------------------------

_ODD_PATHS = ['"ckpt-1"', '"ckpt-2"', '"ckpt-9"', '""', '"../outside/ckpt-1"', '"/tmp/rivulet_fuzz_elsewhere/ckpt"',
              '"ckpt-1\\000x"', '"\\303\\251"', "'ckpt-2'", '"ckpt-1" "x"', '"a\\"b"', '"\\777"', '"\\x41"',
              '"' + "a" * 5000 + '"', "ckpt-1", '"ckpt-2', "1e400", "nan", "-inf", "0x10", "1.5"]
_FIELDS = ["model_checkpoint_path", "all_model_checkpoint_paths", "all_model_checkpoint_timestamps",
           "last_preserved_timestamp", "unknown_field", "# a comment", ""]


def _state_base():
    """(checkpoint file bytes, {name: bytes} of a directory with two checkpoints of one variable)."""
    if "state" not in _BASE:
        import tempfile
        tf = _tf()
        with tempfile.TemporaryDirectory() as d:
            v = tf.Variable([1.0, 2.0, 3.0])
            ckpt = tf.train.Checkpoint(v=v)
            manager = tf.train.CheckpointManager(ckpt, d, max_to_keep=3)
            manager.save()
            v.assign([4.0, 5.0, 6.0])
            manager.save()
            files = {}
            for name in os.listdir(d):
                with open(os.path.join(d, name), "rb") as f:
                    files[name] = f.read()
        _BASE["state"] = files
    return _BASE["state"]


def build_state(rng, case_dir):
    files = dict(_state_base())
    text = files["checkpoint"].decode()
    how = rng.random()
    if how < 0.6:  # lines edited as text: fields renamed, values swapped for odd ones, lines dropped or repeated
        lines = text.splitlines()
        for _ in range(int(rng.integers(1, 4))):
            i = int(rng.integers(len(lines)))
            kind = int(rng.integers(4))
            name, _, value = lines[i].partition(": ")
            if kind == 0:
                lines[i] = f"{name}: {_ODD_PATHS[int(rng.integers(len(_ODD_PATHS)))]}"
            elif kind == 1:
                lines[i] = f"{_FIELDS[int(rng.integers(len(_FIELDS)))]}: {value}"
            elif kind == 2:
                del lines[i]
                if not lines:
                    lines = [""]
            else:
                lines.insert(i, lines[i])
        text = "\n".join(lines) + "\n"
        files["checkpoint"] = text.encode()
    else:
        files["checkpoint"] = mutate_bytes(rng, files["checkpoint"])
    if rng.random() < 0.2:  # a checkpoint's files missing
        victim = sorted(k for k in files if k != "checkpoint")[int(rng.integers(len(files) - 1))]
        del files[victim]
    d = os.path.join(case_dir, "d")
    os.makedirs(d)
    for name, data in files.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
    # a checkpoint outside the manager's directory, which a forged state file may name
    os.makedirs(os.path.join(case_dir, "outside"))
    for name, data in files.items():
        if name.startswith("ckpt-1"):
            with open(os.path.join(case_dir, "outside", name), "wb") as f:
                f.write(data)
    return d


def load_state(d):
    tf = _tf()
    outside = sorted(os.listdir(os.path.join(os.path.dirname(d), "outside")))
    latest = tf.train.latest_checkpoint(d)
    if latest is not None and not (os.path.isabs(latest) and os.path.exists(latest + ".index")):
        raise Undocumented(f"latest_checkpoint gave {latest!r}, which is no checkpoint")
    state = tf.train.get_checkpoint_state(d)
    if state is not None and not all(os.path.isabs(p) for p in [state.model_checkpoint_path,
                                                                 *state.all_model_checkpoint_paths]):
        raise Undocumented(f"get_checkpoint_state gave relative paths: {state}")
    v = tf.Variable([0.0, 0.0, 0.0])
    ckpt = tf.train.Checkpoint(v=v)
    manager = tf.train.CheckpointManager(ckpt, d, max_to_keep=1)
    restored = manager.restore_or_initialize()
    if restored is not None:
        got = v.numpy().tolist()
        if got not in ([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]):
            raise Undocumented(f"restored {got}")
    manager.save()
    if sorted(os.listdir(os.path.join(os.path.dirname(d), "outside"))) != outside:
        raise Undocumented("the manager deleted checkpoint files outside its directory")
    return restored


# ---- Keras .npz weights -----------------------------------------------------------------------------------------

def _model():
    tf = _tf()
    m = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(2,)), tf.keras.layers.Dense(1)])
    return m


def _npz_base():
    if "npz" not in _BASE:
        import tempfile
        tf = _tf()
        tf.keras.utils.set_random_seed(3)
        m = _model()
        with tempfile.TemporaryDirectory() as d:
            m.save_weights(os.path.join(d, "w.npz"))
            with open(os.path.join(d, "w.npz"), "rb") as f:
                _BASE["npz"] = f.read(), [w.numpy() for w in m.weights]
    return _BASE["npz"]


def _members(data):
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {n: z.read(n) for n in z.namelist()}


def _npy(arr):
    b = io.BytesIO()
    np.save(b, arr, allow_pickle=False)
    return b.getvalue()


def _rezip(members, compress=False):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED) as z:
        for n, v in members.items():
            z.writestr(n, v)
    return b.getvalue()


def build_npz(rng, case_dir):
    data, weights = _npz_base()
    how = rng.random()
    if how < 0.35:
        data = mutate_bytes(rng, data)
    else:  # a sound zip whose arrays were edited: other dtypes (same values), shapes, counts, names, headers
        m = _members(data)
        keys = sorted(m)
        k = keys[int(rng.integers(len(keys)))]
        kind = int(rng.integers(7))
        if kind == 0 and k.startswith("w"):
            arr = np.load(io.BytesIO(m[k]))
            dt = ["<f8", "<f2", ">f4", "<i4", "<i8", "|b1", "<c8", "<U3", "|S4", "<m8[s]", "V4"][int(rng.integers(11))]
            try:
                m[k] = _npy(arr.astype(dt))
            except (TypeError, ValueError):
                m[k] = _npy(np.zeros(arr.shape, dt))
        elif kind == 1 and k.startswith("w"):
            arr = np.load(io.BytesIO(m[k]))
            shape = [(), (0,), arr.shape[::-1], arr.shape + (1,), (2 ** 40,), (1,) * 70][int(rng.integers(6))]
            if shape == (2 ** 40,) or len(shape) > 32:  # a header declaring it, without the data
                hdr = {"descr": "<f4", "fortran_order": False, "shape": shape}
                b = io.BytesIO()
                np.lib.format.write_array_header_1_0(b, hdr)
                m[k] = b.getvalue() + bytes(16)
            else:
                m[k] = _npy(np.resize(arr, shape).astype(arr.dtype))
        elif kind == 2:
            m[k] = mutate_bytes(rng, m[k])
        elif kind == 3:
            del m[k]
        elif kind == 4:
            m["names.npy"] = _npy(np.array([["a", "b"]] if rng.random() < 0.5 else "a"))
        elif kind == 5:
            m["format.npy"] = _npy(np.array(["rivulet", "x"][int(rng.integers(2))]))
        else:
            m[f"w{int(rng.integers(4, 6)):04d}.npy"] = _npy(np.zeros(2, np.float32))
            names = np.load(io.BytesIO(m["names.npy"]))
            m["names.npy"] = _npy(np.append(names, "extra"))
        data = _rezip(m, compress=rng.random() < 0.3)
    path = os.path.join(case_dir, "w.npz")
    with open(path, "wb") as f:
        f.write(data)
    return path


def load_npz(path):
    tf = _tf()
    m = _model()
    m.load_weights(path)
    with np.load(path, allow_pickle=False) as f:  # it loaded: the archive's arrays, each in its own dtype
        stored = [f[f"w{i:04d}"] for i in range(len(m.weights))]
    for w, s in zip(m.weights, stored):
        want = np.dtype(w.dtype.as_numpy_dtype)  # (in either byte order)
        if (s.dtype.kind, s.dtype.itemsize) != (want.kind, want.itemsize) or s.shape != tuple(w.shape) or \
                not np.array_equal(w.numpy(), s):
            raise Undocumented(f"{w.name} loaded as {w.dtype.name}{tuple(w.shape)} from {s.dtype}{s.shape}")
    return [w.numpy() for w in m.weights]


def _allowed():
    from rivulet.errors import DataLossError, InvalidArgumentError, NotFoundError
    return ValueError, NotFoundError, DataLossError, InvalidArgumentError


TARGETS = [
    FuzzTarget(name="checkpoint-state-file", build=build_state, load=load_state, allowed=_allowed(), seconds=2.0,
               mem_mb=200),
    FuzzTarget(name="keras-weights-npz", build=build_npz, load=load_npz, allowed=(ValueError,), seconds=2.0,
               mem_mb=200),
]


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.name)
def test_fuzz(target):
    report = run_fuzz(target, n=fuzz_cases(60), seed=SEED)
    print(report.summary())
    assert not report.failures, report.summary()


def test_bases_load(tmp_path):
    """The undamaged bases load: the latest checkpoint's values, the archive's weights."""
    os.makedirs(tmp_path / "d")
    os.makedirs(tmp_path / "outside")
    for name, data in _state_base().items():
        (tmp_path / "d" / name).write_bytes(data)
    assert load_state(str(tmp_path / "d")).endswith("ckpt-2")
    p = tmp_path / "w.npz"
    p.write_bytes(_npz_base()[0])
    for got, want in zip(load_npz(str(p)), _npz_base()[1]):
        np.testing.assert_array_equal(got, want)


# ---- reproducers of what the targets found (values from TensorFlow 2.21's get_checkpoint_state) ---------------

def _state(tmp_path, text):
    d = tmp_path / "s"
    d.mkdir(exist_ok=True)
    (d / "checkpoint").write_text(text)
    return _tf().train.get_checkpoint_state(str(d)), str(d)


def test_state_file_text_format_as_tensorflow_reads_it(tmp_path):
    s, d = _state(tmp_path, "model_checkpoint_path: \"ck\" 'pt-1'\n")  # adjacent strings are joined
    assert s.model_checkpoint_path == os.path.join(d, "ckpt-1")
    s, d = _state(tmp_path, 'model_checkpoint_path: "\\x41\\101\\a"\n')
    assert s.model_checkpoint_path == os.path.join(d, "AA\x07")
    s, d = _state(tmp_path, 'model_checkpoint_path: "a\\q"\n')  # an unknown escape is kept
    assert s.model_checkpoint_path == os.path.join(d, "a\\q")
    s, d = _state(tmp_path, 'model_checkpoint_path: "a" # trailing comment\nlast_preserved_timestamp: 5 # c\n')
    assert s.model_checkpoint_path == os.path.join(d, "a") and s.last_preserved_timestamp == 5.0


def test_unparsable_state_file_is_ignored_with_tensorflows_warning(tmp_path, capsys):
    for text in ('model_checkpoint_path: "ckpt-1\n', 'model_checkpoint_path: "a"\nall_model_checkpoint_timestamps: '
                 '0x10\n', 'unknown_field: "a"\n'):
        s, d = _state(tmp_path, text)
        assert s is None
        assert _tf().train.latest_checkpoint(d) is None
        assert f"{os.path.join(d, 'checkpoint')}: Checkpoint ignored" in capsys.readouterr().err
    with pytest.raises(ValueError, match="Invalid checkpoint state loaded from"):
        _state(tmp_path, 'model_checkpoint_path: ""\n')


def test_manager_sweeps_only_checkpoints_inside_its_directory(tmp_path):
    """A state file listing checkpoints elsewhere (forged, or a directory moved) never makes save() delete them
    (TensorFlow's manager would), nor fails on a name too long to exist."""
    tf = _tf()
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "ckpt-1.index").write_bytes(b"keep")
    (other / "ckpt-1.data-00000-of-00001").write_bytes(b"keep")
    d = tmp_path / "d"
    d.mkdir()
    (d / "checkpoint").write_text(f'model_checkpoint_path: "{other}/ckpt-1"\n'
                                  f'all_model_checkpoint_paths: "{other}/ckpt-1"\n'
                                  f'all_model_checkpoint_paths: "../elsewhere/ckpt-1"\n'
                                  f'all_model_checkpoint_paths: "{"a" * 5000}"\n')
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)), str(d), max_to_keep=1)
    path = manager.save()
    assert sorted(os.listdir(other)) == ["ckpt-1.data-00000-of-00001", "ckpt-1.index"]
    assert manager.checkpoints == [path] and tf.train.latest_checkpoint(str(d)) == path


def test_npz_weights_of_another_dtype_or_forged_headers_are_refused(tmp_path):
    """What keras-weights-npz found: a float64 (or bool, or byte-string) array loaded into float32 weights was
    cast silently; a header declaring 2**40 values raised MemoryError, a 0-d names array TypeError, a member
    that is no .npy AttributeError, a broken header TokenError. All ValueError now, before anything is
    assigned."""
    data, weights = _npz_base()
    m = _model()
    before = [w.numpy() for w in m.weights]

    def refused(members, match):
        p = tmp_path / "w.npz"
        p.write_bytes(_rezip(members))
        with pytest.raises(ValueError, match=match):
            m.load_weights(str(p))
        for w, b in zip(m.weights, before):  # nothing assigned
            np.testing.assert_array_equal(w.numpy(), b)

    base = _members(data)
    for dt in ("<f8", "|b1", "|S4", "<i4"):
        refused({**base, "w0001.npy": _npy(weights[1].astype(dt))}, "a value of another dtype is never cast")
    hdr = io.BytesIO()
    np.lib.format.write_array_header_1_0(hdr, {"descr": "<f4", "fortran_order": False, "shape": (2 ** 40,)})
    refused({**base, "w0000.npy": hdr.getvalue() + bytes(16)}, "Weight shape mismatch")
    refused({**base, "w0000.npy": hdr.getvalue().replace(b"(1099511627776,)", b"(2, 3)          ") + bytes(16)},
            "holds 16 bytes of data, its header says 24")
    refused({**base, "names.npy": _npy(np.array("a"))}, "names.npy is not a list of names")
    refused({**base, "w0000.npy": b"raw bytes"}, "w0000.npy is not an .npy array")
    refused({**base, "w0000.npy": base["w0000.npy"][:10] + b"{'descr': (" + base["w0000.npy"][21:]},
            "malformed header")
    refused({k: v for k, v in base.items() if k != "w0003.npy"}, "lists 4 names but holds the arrays")
    # a zip version the zipfile module refuses (keras-weights-npz, seed 11, case 1089: NotImplementedError)
    p = tmp_path / "v.npz"
    raw = bytearray(data)
    at = raw.rfind(b"PK\x01\x02")  # the last central-directory entry: "version needed to extract"
    raw[at + 6:at + 8] = (71).to_bytes(2, "little")
    p.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match="not a zip archive"):
        m.load_weights(str(p))
    # a big-endian float32 array is float32: its values load
    p = tmp_path / "be.npz"
    p.write_bytes(_rezip({**base, "w0000.npy": _npy(weights[0].astype(">f4"))}))
    m.load_weights(str(p))
    np.testing.assert_array_equal(m.weights[0].numpy(), weights[0])
