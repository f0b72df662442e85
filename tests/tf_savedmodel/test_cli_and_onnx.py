"""python -m rivulet show/run/graph/export-onnx on TensorFlow-written SavedModels; rivulet.onnx.export(dir)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import rivulet as tf
import rivulet.onnx

from .conftest import MANIFEST, NAMES, SERVING, fixture_dir, io, serving_inputs

SRC = os.path.dirname(os.path.dirname(tf.__file__))


def cli(*args):
    out = subprocess.run([sys.executable, "-m", "rivulet", *args], env=dict(os.environ, PYTHONPATH=SRC),
                         capture_output=True, text=True, timeout=120)
    return out.returncode, out.stdout, out.stderr


def _split_ops(text):
    """(text without the ops line, the set of ops): TensorFlow prints the set in hash order."""
    lines, ops = [], None
    for line in text.splitlines():
        head, sep, rest = line.partition(" contains the following ops: ")
        if sep and head.startswith("The MetaGraph with tag set"):
            ops = {op.strip().strip("'") for op in rest.strip("{}").split(",")}
            line = head
        lines.append(line)
    return "\n".join(lines), ops


@pytest.mark.parametrize("name", NAMES)
def test_show_prints_what_saved_model_cli_prints(name):
    from rivulet.saved_model.tf_import.show import show_text
    with open(fixture_dir(name) + ".show.txt", encoding="utf-8") as f:
        want_text, want_ops = _split_ops(f.read())
    got_text, got_ops = _split_ops(show_text(fixture_dir(name)))
    assert got_text == want_text
    assert got_ops == want_ops


def test_show_command():
    rc, out, err = cli("show", fixture_dir("two_signatures"))
    assert rc == 0, err
    assert "signature_def['parse']:" in out and "signature_def['serving_default']:" in out
    assert "        name: parse_text:0" in out and "        dtype: DT_STRING" in out
    assert "  Function Name: 'predict'" in out


def test_run_command(tmp_path):
    x = serving_inputs("keras_mlp")["x"]
    np.save(tmp_path / "x.npy", x)
    rc, out, err = cli("run", fixture_dir("keras_mlp"), "--input", f"x=@{tmp_path / 'x.npy'}")
    assert rc == 0, err
    assert out.startswith("Result for output key probs:")
    got = np.array([float(v) for v in out.split(":", 1)[1].replace("[", " ").replace("]", " ").split()])
    np.testing.assert_allclose(got.reshape(x.shape[0], -1), io("keras_mlp")["out_probs"], rtol=1e-4, atol=1e-6)


def test_graph_command(tmp_path):
    rc, out, err = cli("graph", fixture_dir("control_flow"), "-o", str(tmp_path / "g.dot"))
    assert rc == 0, err
    dot = (tmp_path / "g.dot").read_text()
    assert "While" in dot and "ReadVariableOp" in dot


ONNX_NAMES = [n for n in SERVING if n != "rnn"]  # TensorLists (an RNN's loop) have no ONNX conversion yet


@pytest.mark.parametrize("name", ONNX_NAMES)
def test_onnx_export_runs_in_onnxruntime(name):
    ort = pytest.importorskip("onnxruntime")
    report = rivulet.onnx.export(fixture_dir(name))
    sess = ort.InferenceSession(report.model.SerializeToString(), providers=["CPUExecutionProvider"])
    inputs = serving_inputs(name)
    assert sorted(i.name for i in sess.get_inputs()) == sorted(inputs)
    outs = sess.run(None, {k: v for k, v in inputs.items()})
    want = io(name)
    assert [o.name for o in sess.get_outputs()] == sorted(MANIFEST[name]["outputs"])
    for o, v in zip(sess.get_outputs(), outs):
        np.testing.assert_allclose(v, want[f"out_{o.name}"], rtol=1e-4, atol=1e-6)


def test_onnx_export_of_an_rnn_names_the_missing_conversion():
    with pytest.raises(rivulet.onnx.ExportError, match="TensorList"):
        rivulet.onnx.export(fixture_dir("rnn"))


def test_export_onnx_command(tmp_path):
    ort = pytest.importorskip("onnxruntime")
    path = tmp_path / "cnn.onnx"
    rc, out, err = cli("export-onnx", fixture_dir("small_cnn"), "-o", str(path))
    assert rc == 0, err
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    got = sess.run(None, serving_inputs("small_cnn"))[0]
    np.testing.assert_allclose(got, io("small_cnn")["out_logits"], rtol=1e-4, atol=1e-6)


def test_erfc_exports_without_cancellation_in_the_tail():
    """Keras' exact gelu is x * erfc(-x / sqrt 2) / 2: the ONNX Erfc keeps float32's relative precision
    where 1 - erf(x) would be 0."""
    import math
    ort = pytest.importorskip("onnxruntime")
    x = np.concatenate([np.linspace(-6, 9, 601), [0.0, 1e-8, 30, -30]]).astype(np.float32)
    f = tf.function(lambda x: tf.math.erfc(x))
    report = rivulet.onnx.export(f.get_concrete_function(tf.TensorSpec([None], tf.float32)))
    sess = ort.InferenceSession(report.model.SerializeToString(), providers=["CPUExecutionProvider"])
    got = sess.run(None, {sess.get_inputs()[0].name: x})[0]
    want = np.array([math.erfc(float(v)) for v in x])
    assert got[x == 9][0] > 0  # erfc(9) = 4e-37; 1 - erf(9) = 0
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-37)


@pytest.mark.parametrize("method", ["nearest", "bilinear"])
@pytest.mark.parametrize("align_corners,half_pixel", [(False, False), (True, False), (False, True)])
def test_resize_exports_to_onnx(method, align_corners, half_pixel):
    from rivulet.ops import resize_ops
    ort = pytest.importorskip("onnxruntime")
    x = np.random.default_rng(0).normal(size=(2, 5, 7, 3)).astype(np.float32)
    for size in ([9, 4], [5, 7], [13, 21], [1, 2]):
        f = tf.function(lambda x: resize_ops.resize(x, size, method, align_corners, half_pixel))
        report = rivulet.onnx.export(f.get_concrete_function(tf.TensorSpec([None, 5, 7, 3])))
        sess = ort.InferenceSession(report.model.SerializeToString(), providers=["CPUExecutionProvider"])
        got = sess.run(None, {sess.get_inputs()[0].name: x})[0]
        np.testing.assert_allclose(got, f(x).numpy(), rtol=1e-5, atol=1e-5, err_msg=str(size))


@pytest.mark.parametrize("strides,padding", [(1, "SAME"), (2, "SAME"), (2, "VALID"), (3, "VALID")])
def test_depthwise_and_transposed_convolutions_export_to_onnx(strides, padding):
    ort = pytest.importorskip("onnxruntime")
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2, 9, 8, 3)).astype(np.float32)
    w = tf.constant(rng.normal(size=(3, 2, 3, 2)).astype(np.float32))

    def f(x):
        y = tf.nn.depthwise_conv2d(x, w, [1, strides, strides, 1], padding)
        with tf.GradientTape() as tape:  # Conv2DBackpropInput: the gradient of a conv2d wrt its input
            tape.watch(x)
            z = tf.nn.conv2d(x, tf.ones([2, 3, 3, 4]), strides, padding)
        return y, tape.gradient(z, x, output_gradients=tf.ones_like(z) * 0.5)
    cf = tf.function(f).get_concrete_function(tf.TensorSpec([None, 9, 8, 3]))
    report = rivulet.onnx.export(cf)
    sess = ort.InferenceSession(report.model.SerializeToString(), providers=["CPUExecutionProvider"])
    for got, want in zip(sess.run(None, {sess.get_inputs()[0].name: x}), cf(tf.constant(x))):
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-5)
