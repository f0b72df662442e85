"""tf.saved_model.save to a path it cannot write raises TensorFlow's tf.errors classes (OpErrors), with
TensorFlow's messages (checked against TensorFlow 2.21: a path under a regular file is a
FailedPreconditionError "PART is not a directory", a missing place a NotFoundError "PATH; No such file or
directory")."""
import errno
import os

import pytest

import rivulet as tf


class M(tf.Module):
    def __init__(self):
        super().__init__()
        self.v = tf.Variable(1.0)

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def f(self, x):
        return x * self.v


@pytest.mark.parametrize("path, shown", [("afile/model", "afile"), ("afile", "afile"), ("afile/x/y", "afile")])
def test_a_path_under_a_regular_file(tmp_path, monkeypatch, path, shown):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("hi")
    with pytest.raises(tf.errors.FailedPreconditionError, match=f"^{shown} is not a directory$") as e:
        tf.saved_model.save(M(), path)
    assert isinstance(e.value, tf.errors.OpError)
    assert (tmp_path / "afile").read_text() == "hi"


def test_an_absolute_path_names_the_file_absolutely(tmp_path):
    (tmp_path / "afile").write_text("hi")
    with pytest.raises(tf.errors.FailedPreconditionError, match=f"^{tmp_path / 'afile'} is not a directory$"):
        tf.saved_model.save(M(), str(tmp_path / "afile" / "m"))


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs /proc")
def test_a_place_that_cannot_hold_a_directory():
    with pytest.raises(tf.errors.NotFoundError, match=r"^/proc/model; No such file or directory$"):
        tf.saved_model.save(M(), "/proc/model")


@pytest.mark.parametrize("code, cls", [(errno.EACCES, tf.errors.PermissionDeniedError),
                                       (errno.EROFS, tf.errors.PermissionDeniedError),
                                       (errno.ENOSPC, tf.errors.ResourceExhaustedError),
                                       (errno.ENOENT, tf.errors.NotFoundError)])
def test_write_failures_map_errno_to_tf_errors(tmp_path, monkeypatch, code, cls):
    def fail(path, *a, **k):
        raise OSError(code, os.strerror(code), path)
    monkeypatch.setattr(os, "makedirs", fail)
    with pytest.raises(cls, match=f"m; {os.strerror(code)}$"):
        tf.saved_model.save(M(), str(tmp_path / "m"))


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes into read-only directories")
def test_a_read_only_directory(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        with pytest.raises(tf.errors.PermissionDeniedError, match="Permission denied"):
            tf.saved_model.save(M(), str(ro / "m"))
    finally:
        ro.chmod(0o755)


def test_a_good_path_still_saves(tmp_path):
    tf.saved_model.save(M(), str(tmp_path / "a" / "b"))
    assert tf.saved_model.load(str(tmp_path / "a" / "b")).f(tf.constant(3.0)).numpy() == 3.0
