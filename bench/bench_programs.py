"""Whole programs: TensorFlow's tutorials run unchanged on rivulet and on TensorFlow 2.21, side by side.

    python bench/bench_programs.py --docs PATH-TO-tensorflow/docs --tf PYTHON [--rounds N] [--only NAME ...]

Each notebook of PROGRAMS runs start to finish as tools/tutorials/run_tutorials.py runs it (its own process, the
same synthetic downloads, epochs capped at 2) once on rivulet (imports rewritten) and once on TensorFlow
(`--tf`: a Python with tensorflow-cpu and the notebooks' plotting packages; the cells unchanged), alternating,
`--rounds` times. A notebook's figure is the sum of the seconds of the cells that pass on both backends
(the framework's import is not in it: the runner imports it before the first cell, to serve downloads), the
minimum over the rounds; the ratio is TensorFlow's time /
rivulet's (> 1: rivulet is faster). PROGRAMS are the tutorials whose downloads are plain files (no stand-in
package built on rivulet, no weights files rivulet writes), so both backends run the same program on the same
data (images/cnn is left out: Keras 3's CIFAR-10 loader takes only full-size batches of 10,000 images, the
runner serves 200; structured_data/time_series too: under Keras 3, `get_file(..., extract=True)` returns the
extracted folder, and the notebook's next cell fails on TensorFlow 2.21 itself; audio/simple_audio for the same
reason). TensorFlow is never imported by rivulet's process.
"""
import argparse
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools", "tutorials"))
import run_tutorials as rt  # noqa: E402

PROGRAMS = ["quickstart/beginner", "quickstart/advanced", "keras/classification", "keras/regression",
            "keras/text_classification", "images/classification",
            "structured_data/imbalanced_data", "generative/autoencoder", "generative/dcgan", "generative/cvae",
            "load_data/csv", "load_data/tfrecord", "customization/custom_layers", "distribute/custom_training"]


def run(docs, name, backend, python, logs):
    rt.REWRITE_IMPORTS[0] = backend == "rivulet"
    cells = rt.code_cells(rt.read_notebook(docs, rt.PREFIX + name + ".ipynb"))
    results, _ = rt.run_notebook(name, cells, logs, python, os.path.join(HERE, "..", "src"), backend)
    return {i: r["seconds"] for i, r in results.items() if r["error"] is None and cells[i]["scored"]}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", required=True, help="a tensorflow/docs clone or bare mirror")
    ap.add_argument("--tf", default=os.environ.get("RIVULET_TF_PYTHON"), help="a Python with tensorflow")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--only", action="append", help="a notebook of PROGRAMS (repeatable)")
    a = ap.parse_args(argv)
    if not a.tf:
        ap.error("--tf (or RIVULET_TF_PYTHON) names the Python with TensorFlow to compare with")
    logs = tempfile.mkdtemp(prefix="bench-programs-")
    names = a.only or PROGRAMS
    print(f"{'notebook':34} {'cells':>5} {'rivulet s':>10} {'tensorflow s':>13} {'ratio':>7}  spread", flush=True)
    tot_r = tot_t = 0.0
    for name in names:
        got = {"rivulet": [], "tensorflow": []}
        for _ in range(max(1, a.rounds)):
            got["rivulet"].append(run(a.docs, name, "rivulet", sys.executable, logs))
            got["tensorflow"].append(run(a.docs, name, "tensorflow", a.tf, logs))
        both = set.intersection(*(set(r) for rounds in got.values() for r in rounds))
        sums = {b: [sum(r[i] for i in both) for r in rounds] for b, rounds in got.items()}
        mine, theirs = min(sums["rivulet"]), min(sums["tensorflow"])
        tot_r, tot_t = tot_r + mine, tot_t + theirs
        ratios = sorted(t / m for t, m in zip(sums["tensorflow"], sums["rivulet"]) if m)
        spread = f"{ratios[0]:.2f}-{ratios[-1]:.2f}x" if ratios else ""
        print(f"{name:34} {len(both):5} {mine:10.1f} {theirs:13.1f} {theirs / mine if mine else 0:6.2f}x  {spread}",
              flush=True)
    print(f"{'total':34} {'':5} {tot_r:10.1f} {tot_t:13.1f} {tot_t / tot_r if tot_r else 0:6.2f}x")
    print(f"(logs: {logs})")


if __name__ == "__main__":
    main()
