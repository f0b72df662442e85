"""Legacy .h5 files whose HDF5 global heap is damaged are refused before h5py reads a variable-length
attribute (a free-space object of size 0 made HDF5's collection reader loop forever in C: the fuzz finding
seed 5, case 902 of tests/fuzz/test_fuzz_keras.py's keras-legacy-h5)."""
import struct
import subprocess
import sys

import pytest

import rivulet as tf
from rivulet.keras.saving.legacy_h5 import check_global_heaps


def _saved(tmp_path):
    pytest.importorskip("h5py")
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
    path = tmp_path / "m.h5"
    model.save(str(path))
    return path


def _objects(data):
    """(offset of each object header, index, size) of the file's first collection."""
    pos = data.index(b"GCOL")
    end = pos + struct.unpack("<Q", data[pos + 8:pos + 16])[0]
    p, out = pos + 16, []
    while p + 16 <= end:
        index, _, _, size = struct.unpack("<HHIQ", data[p:p + 16])
        out.append((p, index, size))
        p += 16 + (size + 7) // 8 * 8 if index else size
    return out


def test_sound_files_pass_the_walk(tmp_path):
    path = _saved(tmp_path)
    check_global_heaps(str(path))
    assert [i for _, i, _ in _objects(path.read_bytes())][-1] == 0  # the collection ends in free space


def _damaged(tmp_path, patch):
    path = _saved(tmp_path)
    data = bytearray(path.read_bytes())
    patch(data, _objects(bytes(data)))
    path.write_bytes(bytes(data))
    return path


def test_a_zero_size_free_object_is_refused_without_hanging(tmp_path):
    def zero_free_space(data, objects):
        p = [o for o in objects if o[1] == 0][0][0]
        data[p + 8:p + 16] = struct.pack("<Q", 0)
    path = _damaged(tmp_path, zero_free_space)
    code = ("import rivulet as tf, sys\n"
            "try:\n    tf.keras.models.load_model(sys.argv[1])\n"
            "except OSError as e:\n    print('OSError', e)\n")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=120)
    assert "OSError" in out.stdout and "cannot be walked" in out.stdout, out.stderr[-2000:]


def test_objects_past_their_collection_are_refused(tmp_path):
    def oversize(data, objects):
        p = objects[0][0]
        data[p + 8:p + 16] = struct.pack("<Q", 1 << 40)
    path = _damaged(tmp_path, oversize)
    with pytest.raises(OSError, match="runs past the collection's end"):
        tf.keras.models.load_model(str(path))
    with pytest.raises(OSError, match="runs past the collection's end"):
        tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)]).load_weights(str(path))
