"""Side-by-side benchmark of the seed guides' workloads: rivulet vs TensorFlow, in one run.

    python bench/seed_bench.py [w1 w2 ...] [--tf PYTHON] [--workloads PATH] [--rounds N]

Each backend runs ../shared/bench/seed_workloads.py in its own subprocess (one JSON line of figures).
TensorFlow is optional: pass --tf with a Python that has it (or set RIVULET_TF_PYTHON); without it only
rivulet's figures print. Ratios are TensorFlow time / rivulet time (> 1: rivulet is faster).
--rounds N runs the two backends alternately N times (the machines are shared and noisy): each figure is
the minimum over the rounds, and `spread` is the range of the per-round ratios.
"""
import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# The shared folder sits next to the checkout (or next to the folder of worktrees).
DEFAULT_WORKLOADS = next((p for p in (HERE.parent.parent / "shared" / "bench" / "seed_workloads.py",
                                      HERE.parent.parent.parent / "shared" / "bench" / "seed_workloads.py")
                          if p.exists()), HERE.parent.parent / "shared" / "bench" / "seed_workloads.py")
TARGETS = {"w1_graph_ms": 1.5, "w1_eager_ms": 10, "w2_graph_ms": 2.5, "w2_eager_ms": 5, "w3_graph_ms": 1.0,
           "w4_tiny_call_us": 25, "w4_eager_add_us": 8, "w5_graph_step_ms": 2.0, "w6_trace_1000ops_ms": 20,
           "w1_jit_ms": 2.5, "w5_jit_step_ms": 1.5, "w3_jit_ms": 1.1}


def run(python, backend, workloads, names, env=None):
    cmd = [python, str(workloads), backend, *names]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if p.returncode or not lines:
        sys.stderr.write(f"{backend} failed (exit {p.returncode}):\n{p.stderr[-3000:]}\n")
        return None
    return json.loads(lines[-1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="workloads to run (w1..w6); default all")
    ap.add_argument("--tf", default=os.environ.get("RIVULET_TF_PYTHON"), help="a Python with tensorflow")
    ap.add_argument("--workloads", default=str(DEFAULT_WORKLOADS))
    ap.add_argument("--rounds", type=int, default=1, help="alternate the backends this many times")
    a = ap.parse_args(argv)
    if not Path(a.workloads).exists():
        sys.exit(f"workloads file not found: {a.workloads} (pass --workloads)")
    env = dict(os.environ, PYTHONPATH=str(HERE.parent / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    mine, theirs, ratios = {}, {}, {}
    for _ in range(max(1, a.rounds)):
        m = run(sys.executable, "rivulet", a.workloads, a.names, env)
        if m is None:
            sys.exit(1)
        t = run(a.tf, "tensorflow", a.workloads, a.names) if a.tf else None
        for k, v in m.items():
            mine[k] = min(mine.get(k, v), v)
            if t and t.get(k) and v:
                theirs[k] = min(theirs.get(k, t[k]), t[k])
                ratios.setdefault(k, []).append(t[k] / v)
    print(f"{'figure':24} {'rivulet':>12} {'tensorflow':>12} {'ratio':>8} {'target':>8}  spread")
    for k, v in mine.items():
        t = theirs.get(k)
        ratio = f"{t / v:8.2f}x" if t and v else " " * 9
        target = f"{TARGETS[k]:>7}x" if k in TARGETS else " " * 8
        r = ratios.get(k, [])
        spread = f"  {min(r):.2f}-{max(r):.2f}x" if len(r) > 1 else ""
        print(f"{k:24} {v:12.4f} {'' if t is None else f'{t:12.4f}':>12} {ratio} {target}{spread}")


if __name__ == "__main__":
    main()
