"""`python -m rivulet show/run/graph/export-onnx DIR` on bad input: one line on stderr naming the problem, no
traceback, exit status 1 (issue 14)."""
import json
import os
import subprocess
import sys

import pytest

import rivulet as tf
from rivulet.cli import main

SRC = os.path.dirname(os.path.dirname(tf.__file__))


class M(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32, name="inp")])
    def serve(self, x):
        return tf.reshape(x, [2, 2]) * 2.0


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("cli_errors") / "m")
    tf.saved_model.save(M(), d)
    return d


def run(capsys, *argv):
    with pytest.raises(SystemExit) as e:
        main(list(argv))
    out = capsys.readouterr()
    assert e.value.code == 1
    assert "Traceback" not in out.err and out.err.count("\n") == 1, out.err
    return out.err


def damaged(model, tmp_path, fn):
    import shutil
    d = str(tmp_path / "damaged")
    shutil.copytree(model, d)
    fn(d)
    return d


def _hostile_attr(d):
    path = os.path.join(d, "saved_model.json")
    meta = json.load(open(path))
    node = next(n for g in meta["graphs"].values() for n in g["nodes"] if n["op"] == "Mul")
    node["attrs"]["x=__import__('os').system('touch OWNED'), y"] = 1
    json.dump(meta, open(path, "w"))


@pytest.mark.parametrize("cmd", [["show"], ["run"], ["graph", "-o", "g.svg"], ["export-onnx", "-o", "m.onnx"]])
def test_a_missing_model(capsys, tmp_path, cmd):
    err = run(capsys, cmd[0], str(tmp_path / "nowhere"), *cmd[1:])
    assert "SavedModel file does not exist at:" in err and str(tmp_path / "nowhere") in err
    assert err.startswith(f"python -m rivulet {cmd[0]}: error: OSError: " if cmd[0] != "export-onnx" else
                          "export-onnx: ")  # export-onnx reports its own errors in its own words


@pytest.mark.parametrize("cmd", [["show"], ["run", "--input", "inp=[1.0]"], ["graph", "-o", "g.svg"],
                                 ["export-onnx", "-o", "m.onnx"]])
def test_a_hostile_model(capsys, model, tmp_path, monkeypatch, cmd):
    monkeypatch.chdir(tmp_path)
    d = damaged(model, tmp_path, _hostile_attr)
    err = run(capsys, cmd[0], d, *cmd[1:])
    assert "SavedModelError" in err and "op Mul has no attr" in err, err
    assert not os.path.exists("OWNED")


def test_a_truncated_model(capsys, model, tmp_path):
    def truncate(d):
        path = os.path.join(d, "variables.npz")
        b = open(os.path.join(d, "tensors.npz"), "rb").read()
        open(os.path.join(d, "tensors.npz"), "wb").write(b[:len(b) // 2])
        assert os.path.exists(path)
    err = run(capsys, "show", damaged(model, tmp_path, truncate))
    assert "SavedModelError" in err and "tensors.npz" in err


def test_an_op_failing_on_the_inputs(capsys, model):
    err = run(capsys, "run", model, "--input", "inp=[1.0, 2.0, 3.0]")
    assert "InvalidArgumentError" in err and "reshape" in err.lower(), err


def test_inputs_that_do_not_fit(capsys, model):
    err = run(capsys, "run", model, "--input", "inp=[[1.0, 2.0]]")
    assert "ValueError" in err or "InvalidArgumentError" in err, err


def test_an_unwritable_output(capsys, model, tmp_path):
    err = run(capsys, "graph", model, "-o", str(tmp_path / "no" / "such" / "dir" / "g.svg"))
    assert "OSError" in err or "FileNotFoundError" in err, err


def test_as_a_process_exit_status_and_stderr(model, tmp_path):
    d = damaged(model, tmp_path, _hostile_attr)
    p = subprocess.run([sys.executable, "-m", "rivulet", "run", d, "--input", "inp=[1.0]"], cwd=tmp_path,
                       env=dict(os.environ, PYTHONPATH=SRC), capture_output=True, text=True, timeout=120)
    assert p.returncode == 1 and p.stdout == ""
    assert p.stderr.startswith("python -m rivulet run: error: SavedModelError: ") and p.stderr.count("\n") == 1
    assert not (tmp_path / "OWNED").exists()
