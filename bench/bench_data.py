"""tf.data figures (w7: a 10,000-image pipeline epoch and a Keras epoch on it), rivulet vs TensorFlow.

    python bench/bench_data.py [--tf PYTHON] [--rounds N]

Runs ../shared/bench/seed_workloads.py w7 under each backend, alternating, N rounds (default 3), and
reports each figure's best time and the ratio TensorFlow / rivulet (> 1: rivulet is faster). Alternating
keeps a noisy machine from favouring one side.
"""
import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from seed_bench import DEFAULT_WORKLOADS, HERE, run  # noqa: E402

TARGETS = {"w7_pipeline_epoch_ms": 2.0, "w7_fit_epoch_ms": 1.5}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tf", default=os.environ.get("RIVULET_TF_PYTHON"), help="a Python with tensorflow")
    ap.add_argument("--workloads", default=str(DEFAULT_WORKLOADS))
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args(argv)
    env = dict(os.environ, PYTHONPATH=str(HERE.parent / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    best = {"rivulet": {}, "tensorflow": {}}
    for _ in range(a.rounds):
        for backend, python, e in (("rivulet", sys.executable, env), ("tensorflow", a.tf, None)):
            if python is None:
                continue
            got = run(python, backend, a.workloads, ["w7"], e)
            for k, v in (got or {}).items():
                if k.startswith("w7"):
                    best[backend][k] = min(v, best[backend].get(k, v))
    print(f"{'figure':24} {'rivulet':>12} {'tensorflow':>12} {'ratio':>8} {'target':>8}")
    for k, v in best["rivulet"].items():
        t = best["tensorflow"].get(k)
        ratio = f"{t / v:8.1f}x" if t else " " * 9
        print(f"{k:24} {v:12.2f} {'' if t is None else f'{t:12.2f}':>12} {ratio} {TARGETS[k]:>7}x")


if __name__ == "__main__":
    main()
