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
