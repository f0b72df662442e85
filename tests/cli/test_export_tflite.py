"""`python -m rivulet export-tflite DIR OUT.tflite`: a saved model's signatures as a .tflite file LiteRT runs."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.cli import main


class Scale(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable([[2.0], [3.0]])

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    def __call__(self, x):
        return {"y": tf.nn.relu(tf.matmul(x, self.w) + 1.0)}


def test_export_tflite_writes_a_model_litert_runs(tmp_path, capsys):
    pytest.importorskip("ai_edge_litert.interpreter")
    pytest.importorskip("tflite")
    m = Scale()
    tf.saved_model.save(m, str(tmp_path / "sm"), signatures=m.__call__)
    out = tmp_path / "m.tflite"
    main(["export-tflite", str(tmp_path / "sm"), str(out)])
    assert "wrote" in capsys.readouterr().out and out.stat().st_size > 0
    interp = tf.lite.Interpreter(model_path=str(out))
    runner = interp.get_signature_runner("serving_default")
    x = np.array([[1.0, -2.0], [0.5, 0.5]], np.float32)
    np.testing.assert_allclose(runner(x=x)["y"], m(x)["y"].numpy(), rtol=1e-5)


def test_export_tflite_reports_a_missing_model_on_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(["export-tflite", str(tmp_path / "nothing"), str(tmp_path / "m.tflite")])
    assert e.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("export-tflite: ") and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "m.tflite").exists()


# ---- the converter's options: each gives the bytes TFLiteConverter gives with the same settings
class Mlp(tf.Module):
    def __init__(self):
        super().__init__()
        rng = np.random.RandomState(0)
        self.w1 = tf.Variable(rng.randn(16, 64).astype(np.float32) * 0.3)  # 1024 weights: quantised
        self.w2 = tf.Variable(rng.randn(64, 3).astype(np.float32) * 0.3)

    @tf.function(input_signature=[tf.TensorSpec([None, 16], tf.float32)])
    def __call__(self, x):
        return {"y": tf.matmul(tf.nn.relu(tf.matmul(x, self.w1)), self.w2)}


class TwoInputs(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32), tf.TensorSpec([None, 2], tf.float32)])
    def __call__(self, a, b):
        return {"y": tf.nn.relu(a * 2.0 + b)}


X = np.random.RandomState(1).rand(20, 16).astype(np.float32)


@pytest.fixture(scope="module")
def mlp_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("export_tflite")
    m = Mlp()
    tf.saved_model.save(m, str(d / "sm"), signatures=m.__call__)
    np.save(d / "x.npy", X)
    np.save(d / "x64.npy", X.astype(np.float64))  # cast to the input's float32
    np.savez(d / "x.npz", x=X[:, None])  # samples stacked along a new first axis
    return d


def export(capsys, d, *options):
    out = d / "m.tflite"
    if out.exists():
        out.unlink()
    main(["export-tflite", str(d / "sm"), str(out), *options])
    assert "wrote" in capsys.readouterr().out
    return out.read_bytes()


def api(d, **settings):
    conv = tf.lite.TFLiteConverter.from_saved_model(str(d / "sm"))
    for k, v in settings.items():
        setattr(conv, k, v)
    return conv.convert()


def tensor_types(content):
    interp = tf.lite.Interpreter(model_content=content)
    return [t["dtype"] for t in interp.get_tensor_details()]


@pytest.mark.parametrize("options,settings", [
    ((), {}),
    (("--optimize", "none"), {}),
    (("--optimize", "default"), {"optimizations": [tf.lite.Optimize.DEFAULT]}),
    (("--float16",), {"optimizations": [tf.lite.Optimize.DEFAULT], "target_spec": tf.lite.TargetSpec(
        supported_types=[tf.float16])}),
    (("--optimize", "default", "--float16"), {"optimizations": [tf.lite.Optimize.DEFAULT], "target_spec":
                                              tf.lite.TargetSpec(supported_types=[tf.float16])}),
])
def test_export_tflite_float_dynamic_range_and_float16(mlp_dir, capsys, options, settings):
    pytest.importorskip("ai_edge_litert.interpreter")
    pytest.importorskip("tflite")
    content = export(capsys, mlp_dir, *options)
    assert content == api(mlp_dir, **settings)
    types = tensor_types(content)
    want = np.int8 if "default" in options and "--float16" not in options else \
        np.float16 if "--float16" in options else None
    assert (want in types) if want else set(types) <= {np.float32, np.int32}
    got = tf.lite.Interpreter(model_content=content).get_signature_runner()(x=X[:2])["y"]
    ref = Mlp()(X[:2])["y"].numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-5 if not options or "none" in options else 2e-2,
                               atol=1e-6 if not options or "none" in options else 2e-2 * np.abs(ref).max())


def test_export_tflite_int8_with_representative_data(mlp_dir, capsys):
    pytest.importorskip("ai_edge_litert.interpreter")
    pytest.importorskip("tflite")

    def rep():
        for i in range(len(X)):
            yield [X[i:i + 1]]

    want = api(mlp_dir, optimizations=[tf.lite.Optimize.DEFAULT], representative_dataset=rep)
    for data in ("x.npy", "x64.npy", "x.npz"):
        content = export(capsys, mlp_dir, "--int8", "--representative-data", str(mlp_dir / data))
        assert content == want, data
    interp = tf.lite.Interpreter(model_content=content)
    assert interp.get_input_details()[0]["dtype"] is np.float32 and np.int8 in tensor_types(content)
    got = interp.get_signature_runner()(x=X[:4])["y"]
    ref = Mlp()(X[:4])["y"].numpy()
    np.testing.assert_allclose(got, ref, atol=0.05 * np.abs(ref).max())

    for kind, dtype in (("int8", np.int8), ("uint8", np.uint8)):
        content = export(capsys, mlp_dir, "--int8", "--representative-data", str(mlp_dir / "x.npy"),
                         "--inference-type", kind)
        assert content == api(mlp_dir, optimizations=[tf.lite.Optimize.DEFAULT], representative_dataset=rep,
                              inference_input_type=tf.as_dtype(kind),
                              inference_output_type=tf.as_dtype(kind))
        interp = tf.lite.Interpreter(model_content=content)
        assert interp.get_input_details()[0]["dtype"] is dtype and interp.get_output_details()[0]["dtype"] is dtype


def fails(capsys, d, *options):
    out = d / "bad.tflite"
    with pytest.raises(SystemExit) as e:
        main(["export-tflite", str(d / "sm"), str(out), *options])
    assert e.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("export-tflite: ") and len(err.strip().splitlines()) == 1, err
    assert not out.exists()
    return err


def test_export_tflite_bad_option_combinations(mlp_dir, tmp_path, capsys):
    rep = str(mlp_dir / "x.npy")
    assert "ValueError: For full integer quantization, a `representative_dataset` must be specified" in \
        fails(capsys, mlp_dir, "--int8")
    assert "--float16 and --int8 are two different quantisations" in \
        fails(capsys, mlp_dir, "--int8", "--float16", "--representative-data", rep)
    assert "--float16 quantises the model, which needs optimizations = [tf.lite.Optimize.DEFAULT]" in \
        fails(capsys, mlp_dir, "--float16", "--optimize", "none")
    assert "--int8 quantises" in fails(capsys, mlp_dir, "--int8", "--optimize", "none", "--representative-data", rep)
    assert "--representative-data is the calibration data of full integer quantization: give --int8" in \
        fails(capsys, mlp_dir, "--optimize", "default", "--representative-data", rep)
    # TensorFlow's words for integer inputs of a model that is not fully integer
    for options in (("--inference-type", "int8"), ("--optimize", "default", "--inference-type", "uint8"),
                    ("--float16", "--inference-type", "int8")):
        assert "ValueError: The inference_input_type and inference_output_type must be tf.float32." in \
            fails(capsys, mlp_dir, *options)


def test_export_tflite_bad_representative_data(mlp_dir, tmp_path, capsys):
    def bad(name, value, *, npz=False):
        path = tmp_path / name
        if npz:
            np.savez(path, **value)
        elif name.endswith(".npy"):
            np.save(path, value, allow_pickle=True)
        else:
            path.write_bytes(b"1,2,3")
        return fails(capsys, mlp_dir, "--int8", "--representative-data", str(path))

    assert "expected a .npy or .npz file" in bad("x.csv", None)
    assert "has no array for input(s) x of signature 'serving_default' (it has z)" in bad("z.npz", {"z": X}, npz=True)
    assert "input 'x' of signature 'serving_default' has shape (None, 16), and the file's array of shape (20, 15)" \
        in bad("narrow.npy", X[:, :15])
    assert "input 'x' of signature 'serving_default' is float32, the file's array is int64" in \
        bad("ints.npy", np.zeros((3, 16), np.int64))
    assert "Object arrays cannot be loaded when allow_pickle=False" in \
        bad("objects.npy", np.array([{"x": 1}], dtype=object))
    assert "No such file" in fails(capsys, mlp_dir, "--int8", "--representative-data", str(tmp_path / "none.npy"))

    # a .npy file is one input's samples; a model of two inputs reads a .npz file
    m = TwoInputs()
    tf.saved_model.save(m, str(tmp_path / "sm"), signatures=m.__call__)
    np.save(tmp_path / "a.npy", X[:, :2])
    assert "a .npy file holds the samples of one input, and signature 'serving_default' has 2 (a, b)" in \
        fails(capsys, tmp_path, "--int8", "--representative-data", str(tmp_path / "a.npy"))
    np.savez(tmp_path / "ab.npz", a=X[:, :2], b=X[:5, 2:4])
    assert "hold different numbers of samples (20 and 5)" in \
        fails(capsys, tmp_path, "--int8", "--representative-data", str(tmp_path / "ab.npz"))
    np.savez(tmp_path / "ab.npz", a=X[:, :2], b=X[:, 2:4])
    main(["export-tflite", str(tmp_path / "sm"), str(tmp_path / "ab.tflite"), "--int8",
          "--representative-data", str(tmp_path / "ab.npz")])
    runner = tf.lite.Interpreter(model_path=str(tmp_path / "ab.tflite")).get_signature_runner()
    a, b = X[:3, :2], X[:3, 2:4]
    np.testing.assert_allclose(runner(a=a, b=b)["y"], m(a, b)["y"].numpy(), atol=0.02)


def test_export_tflite_of_a_tensorflow_saved_model(tmp_path, capsys):
    pytest.importorskip("ai_edge_litert.interpreter")
    pytest.importorskip("tflite")
    pytest.importorskip("google.protobuf")
    import os
    path = os.path.join(os.path.dirname(__file__), "..", "tf_savedmodel", "fixtures", "control_flow")
    io = np.load(path + ".io.npz")
    out = tmp_path / "cf.tflite"
    main(["export-tflite", path, str(out), "--optimize", "default"])
    assert "wrote" in capsys.readouterr().out
    runner = tf.lite.Interpreter(model_path=str(out)).get_signature_runner()
    got = runner(n=io["in_n"], x=io["in_x"])["y"]
    np.testing.assert_allclose(got, io["out_y"], rtol=1e-5, atol=1e-6)  # TensorFlow's outputs


def test_export_tflite_names_an_op_with_no_builtin(tmp_path, capsys):
    pytest.importorskip("tflite")

    class Gamma(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
        def __call__(self, x):
            return {"y": tf.math.lgamma(x)}

    m = Gamma()
    tf.saved_model.save(m, str(tmp_path / "sm"), signatures=m.__call__)
    with pytest.raises(SystemExit) as e:
        main(["export-tflite", str(tmp_path / "sm"), str(tmp_path / "g.tflite")])
    assert e.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("export-tflite: ConverterError: 1 op cannot be converted") and "Lgamma" in err
    assert not (tmp_path / "g.tflite").exists()
