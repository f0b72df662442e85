"""The guides as executable documentation: each example in examples/guide/ prints what its .out file says.

In .out files, masks stand for what the guides themselves leave to chance: <T> a timing, <R> a random
value, <D> a timestamp, <F> a loss or other float, <A> a memory address. Everything else must match.
"""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "examples" / "guide"
MASKS = {"<T>": r"[0-9.e+-]+(?:us|ms|s)?", "<R>": r"-?[0-9.e+-]+", "<D>": r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+",
         "<F>": r"-?[0-9.e+-]+|nan|inf", "<A>": r"0x[0-9a-fA-F]+|\d+"}
_SPLIT = re.compile("(" + "|".join(re.escape(m) for m in MASKS) + ")")
# Examples whose features have all landed; the rest of examples/guide/ joins as its issues close.
READY = ["intro_01_tracing", "intro_02_autograph", "intro_03_polymorphism", "intro_04_eager_vs_graph", "intro_05_tracing_and_speed",
         "intro_06_many_small_layers", "intro_07_concrete_functions", "intro_08_run_eagerly", "function_01_basics", "function_02_tracing",
         "modules_01_checkpoints", "keras_01_serialization"]


def line_pattern(expected):
    parts = _SPLIT.split(expected)
    return re.compile("".join(f"(?:{MASKS[p]})" if p in MASKS else re.escape(p) for p in parts) + r"\Z")


def run_example(name):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, str(GUIDE / f"{name}.py")], capture_output=True, text=True, env=env,
                       timeout=600, cwd=str(GUIDE))
    assert p.returncode == 0, f"{name}.py failed:\n{p.stderr[-4000:]}"
    return p.stdout


def test_every_ready_example_has_expected_output():
    for name in READY:
        assert (GUIDE / f"{name}.py").exists() and (GUIDE / f"{name}.out").exists(), name


@pytest.mark.parametrize("name", READY)
def test_example_prints_what_the_guide_shows(name):
    got = run_example(name).splitlines()
    want = (GUIDE / f"{name}.out").read_text().splitlines()
    assert len(got) == len(want), "\n".join(got)
    for i, (g, w) in enumerate(zip(got, want)):
        assert line_pattern(w).match(g), f"line {i + 1}:\n  got:  {g!r}\n  want: {w!r}"


def test_masks_are_strict():
    assert line_pattern("Eager time: <T>").match("Eager time: 0.123")
    assert not line_pattern("Eager time: <T>").match("Eager time: soon")
    assert not line_pattern("tf.Tensor(2, shape=(), dtype=int32)").match("tf.Tensor(3, shape=(), dtype=int32)")
