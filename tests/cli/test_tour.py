"""`python -m rivulet` (the README's demo command) keeps telling its story."""
import os
import subprocess
import sys
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[2] / "src")


def test_quick_tour_runs_and_explains():
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-m", "rivulet", "--quick"], capture_output=True, text=True, env=env,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert "no implicit promotion: InvalidArgumentError" in out
    assert "second call: tf.Tensor([[2.5]], shape=(1, 1), dtype=float32)  <- no tracing" in out
    assert "First branch, with graph: 1" in out and "Second branch, with graph: 0" in out
    assert "StatelessIf" in out
    assert "MatMul       MatMul     float32(None, 1)   <- x, w" in out
    assert "4 calls, 3 traces" in out
    assert "- x: shape (1,) -> (2,)" in out and "- factor: Python value 2 -> 3" in out


def test_tour_training_generalises(capsys, monkeypatch):
    # The synthetic fallback (no scikit-learn) must be a problem the demo's model really learns.
    import re

    from rivulet import tour
    monkeypatch.setattr(tour, "_digits_file", lambda: None)
    tour._train()
    out = capsys.readouterr().out
    assert "synthetic 10-class problem" in out
    acc = float(re.search(r"test accuracy ([\d.]+)%", out).group(1))
    assert acc >= 90.0, out
