"""Checkpoint and TFRecord I/O: rivulet vs TensorFlow side by side (issue 26).

    python bench/bench_io.py [ckpt_write ckpt_read rec_write rec_parse rec_parse_batched]
                             [--tf PYTHON] [--rounds N] [--busy K] [--src DIR ...]

Workloads (synthetic data, fixed seeds; each worker writes in a temporary folder of its own):
  ckpt_write         tf.train.Checkpoint(big=[4 variables], small=[200 variables]).write(prefix): 101.6 MB
                     (float32 [2048, 4096] x2, [1024, 4096], [4000, 1000]; 100 kernels [64, 64], 100 biases [256])
  ckpt_read          .read(prefix) of that checkpoint into the same variables
  rec_write          4000 tf.train.Example records written with tf.io.TFRecordWriter: `image` 32x32x3 uint8
                     bytes, `label` int64, `ids` 4 int64s, `feats` 8 floats (each Example built and serialised)
  rec_parse          TFRecordDataset(file).map(parse_single_example).batch(64), iterated to the end
  rec_parse_batched  TFRecordDataset(file).batch(64).map(parse_example), iterated to the end (the order the
                     tf.data performance guide advises)

Each backend is one long-lived worker process (this file with --child) that builds its workloads and runs
each once as a warm-up; then the rounds alternate the backends. A figure is the minimum over the rounds
(milliseconds); the ratio is TensorFlow's time / rivulet's (> 1: rivulet is faster), its range over the
rounds in brackets; `cpu ms` is the worker's CPU time over the same run (all its threads: TensorFlow's
tf.data runs on several), whose ratio a loaded machine moves less than the wall time's. --busy K runs K busy processes during the timed rounds. --src names another rivulet
src/ folder (e.g. an older commit's `git archive`) measured besides this checkout's: a before/after in one
run. --numpy-crc measures rivulet without the fast-io extra (CRC-32C in NumPy). TensorFlow is optional: --tf names a Python that has tensorflow-cpu (or set RIVULET_TF_PYTHON);
rivulet itself never imports it. The files live in the system's temporary folder (page cache: these are
the libraries' costs, not the disk's).
"""
import os
import shutil
import sys
import tempfile
from pathlib import Path

from sidebyside import Worker, alternate, busy, close, parser, rivulet_env, serve, spread, workload_names

HERE = Path(__file__).resolve().parent
WORKLOADS = ("ckpt_write", "ckpt_read", "rec_write", "rec_parse", "rec_parse_batched")
BIG = [(2048, 4096), (2048, 4096), (1024, 4096), (4000, 1000)]
N_RECORDS, BATCH = 4000, 64


# ---------------------------------------------------------------------------------------------- child
def timed(fn):
    """fn as a workload run: its wall time in ms; its CPU time (ms, this process, all its threads) is kept as
    run.cpu_ms for the workload's "/cpu" twin."""
    import time

    def run():
        t, c = time.perf_counter(), time.process_time()
        fn()
        run.cpu_ms = (time.process_time() - c) * 1e3
        return (time.perf_counter() - t) * 1e3
    run.cpu_ms = float("nan")
    return run


def _with_cpu(workloads):
    """Each workload, then its "/cpu" twin: a run that reports the CPU time of the workload's run just before."""
    out = {}
    for name, build in workloads.items():
        runs = {}

        def wall(tf, np, build=build, runs=runs):
            runs["run"] = build(tf, np)
            return runs["run"]

        def cpu(tf, np, runs=runs):
            return lambda: runs["run"].cpu_ms
        out[name], out[name + "/cpu"] = wall, cpu
    return out


def _folder():
    d = tempfile.mkdtemp(prefix="bench_io_")
    import atexit
    atexit.register(shutil.rmtree, d, True)
    return d


def _checkpoint(tf, np):
    rng = np.random.default_rng(0)
    big = [tf.Variable(rng.random(s, dtype=np.float32)) for s in BIG]
    small = [tf.Variable(rng.random(s, dtype=np.float32)) for _ in range(100) for s in [(64, 64), (256,)]]
    return tf.train.Checkpoint(big=big, small=small), os.path.join(_folder(), "ckpt")


def _ckpt_write(tf, np):
    ckpt, prefix = _checkpoint(tf, np)
    return timed(lambda: ckpt.write(prefix))


def _ckpt_read(tf, np):
    ckpt, prefix = _checkpoint(tf, np)
    ckpt.write(prefix)
    return timed(lambda: ckpt.read(prefix))


def _records(np):
    rng = np.random.default_rng(0)
    return [(rng.integers(0, 256, 32 * 32 * 3, dtype=np.uint8).tobytes(), int(rng.integers(0, 10)),
             rng.integers(0, 1 << 40, 4).tolist(), rng.random(8, dtype=np.float32).tolist())
            for _ in range(N_RECORDS)]


def _write_records(tf, path, records):
    f = tf.train.Feature
    with tf.io.TFRecordWriter(path) as w:
        for image, label, ids, feats in records:
            ex = tf.train.Example(features=tf.train.Features(feature={
                "image": f(bytes_list=tf.train.BytesList(value=[image])),
                "label": f(int64_list=tf.train.Int64List(value=[label])),
                "ids": f(int64_list=tf.train.Int64List(value=ids)),
                "feats": f(float_list=tf.train.FloatList(value=feats))}))
            w.write(ex.SerializeToString())


def _rec_write(tf, np):
    records, path = _records(np), os.path.join(_folder(), "train.tfrecord")
    return timed(lambda: _write_records(tf, path, records))


def _spec(tf):
    return {"image": tf.io.FixedLenFeature([], tf.string), "label": tf.io.FixedLenFeature([], tf.int64),
            "ids": tf.io.FixedLenFeature([4], tf.int64), "feats": tf.io.VarLenFeature(tf.float32)}


def _drain(ds):
    n = 0
    for batch in ds:
        n += 1
    assert n == -(-N_RECORDS // BATCH), n


def _rec_parse(tf, np):
    path = os.path.join(_folder(), "train.tfrecord")
    _write_records(tf, path, _records(np))
    spec = _spec(tf)
    ds = tf.data.TFRecordDataset(path).map(lambda r: tf.io.parse_single_example(r, spec)).batch(BATCH)
    return timed(lambda: _drain(ds))


def _rec_parse_batched(tf, np):
    path = os.path.join(_folder(), "train.tfrecord")
    _write_records(tf, path, _records(np))
    spec = _spec(tf)
    ds = tf.data.TFRecordDataset(path).batch(BATCH).map(lambda r: tf.io.parse_example(r, spec))
    return timed(lambda: _drain(ds))


def child(backend, names):
    serve(backend, _with_cpu({"ckpt_write": _ckpt_write, "ckpt_read": _ckpt_read, "rec_write": _rec_write,
                              "rec_parse": _rec_parse, "rec_parse_batched": _rec_parse_batched}),
          [m for n in names for m in (n, n + "/cpu")])


# ---------------------------------------------------------------------------------------------- parent
def main(argv=None):
    ap = parser(__doc__, WORKLOADS)
    ap.add_argument("--busy", type=int, default=0, help="busy processes running during the timed rounds")
    ap.add_argument("--src", action="append", default=[], help="another rivulet src/ folder to measure too")
    ap.add_argument("--numpy-crc", action="store_true", help="rivulet without google-crc32c (RIVULET_CRC32C=numpy)")
    a = ap.parse_args(argv)
    if a.child:
        return child(a.child, a.names or list(WORKLOADS))
    names = workload_names(a, WORKLOADS)
    crc = {"RIVULET_CRC32C": "numpy"} if a.numpy_crc else {}
    workers = [Worker("rivulet", sys.executable, __file__, "rivulet", names,
                      dict(rivulet_env(HERE.parent / "src"), **crc))]
    for src in a.src:
        workers.append(Worker(f"rivulet@{Path(src).resolve().parent.name}", sys.executable, __file__, "rivulet",
                              names, dict(rivulet_env(Path(src).resolve()), **crc)))
    if a.tf:
        workers.append(Worker("tensorflow", a.tf, __file__, "tensorflow", names))
    rounds = max(1, a.rounds)
    try:
        with busy(a.busy):
            got = alternate(workers, rounds)
    finally:
        close(workers)
    load = f", {a.busy} busy processes" if a.busy else ", idle"
    print(f"I/O, ms (min of {rounds} rounds{load}; cpu: the process's CPU time, all threads, min over the rounds)")
    print(f"{'workload':18} {'backend':22} {'ms':>9} {'TF ratio':>9}  {'spread':12} {'cpu ms':>8} {'TF cpu ratio':>12}")
    for n in names:
        for w in workers:
            if w.label == "tensorflow":
                continue
            mine, mine_cpu = got[w.label][n], got[w.label][n + "/cpu"]
            line = f"{n:18} {w.label:22} {min(mine):9.1f}"
            if a.tf:
                theirs, theirs_cpu = got["tensorflow"][n], got["tensorflow"][n + "/cpu"]
                line += (f" {min(theirs) / min(mine):8.2f}x  {spread(theirs, mine):12} {min(mine_cpu):8.1f} "
                         f"{min(theirs_cpu) / min(mine_cpu):11.2f}x")
            else:
                line += f" {'':9}  {'':12} {min(mine_cpu):8.1f}"
            print(line)
        if a.tf:
            print(f"{n:18} {'tensorflow':22} {min(got['tensorflow'][n]):9.1f} {'':9}  {'':12} "
                  f"{min(got['tensorflow'][n + '/cpu']):8.1f}")


if __name__ == "__main__":
    main()
