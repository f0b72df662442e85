"""The tour `python -m rivulet` prints: the guide's story told by running it."""
import time
import timeit

import rivulet as tf


def _h(title):
    print(f"\n== {title} " + "=" * max(0, 66 - len(title)))


def _bar(frac, width=30):
    n = int(frac * width)
    return "[" + "=" * n + "." * (width - n) + "]"


def run(quick=False):
    print(f"rivulet {tf.__version__}: TensorFlow-2-style graphs on NumPy  (import rivulet as tf)")

    _h("Eager tensors")
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    print("x =", x)
    print("x @ x =", x @ x)
    print("repr:", repr(tf.constant(5.5)))

    _h("tf.function traces Python into a graph")

    @tf.function
    def dense(x, w, b):
        print("  (Python runs: tracing for", x.shape, x.dtype.name + ")")
        return tf.maximum(tf.matmul(x, w) + b, 0.0)
    w, b = tf.constant([[1.0], [-1.0]]), tf.constant(0.5)
    print("first call :", dense(tf.constant([[1.0, 2.0]]), w, b))
    print("second call:", dense(tf.constant([[3.0, 1.0]]), w, b), " <- no tracing: the graph ran")
    cf = dense.get_concrete_function(tf.TensorSpec([1, 2], tf.float32), w, b)
    print("the graph  :", " -> ".join(op.type for op in cf.graph.get_operations()))

    _h("Polymorphism: one graph per input signature")
    import logging
    logging.getLogger("rivulet").setLevel(logging.ERROR)
    dense(tf.constant([[1.0, 2.0], [3.0, 4.0]]), w, b)
    print(dense.pretty_printed_concrete_signatures().split("\n\n")[-1])

    _h("Retraces explain themselves")
    records = []

    class _Grab(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())
    h = _Grab()
    logging.getLogger("rivulet").addHandler(h)
    logging.getLogger("rivulet").setLevel(logging.WARNING)

    @tf.function
    def scale(x, factor):
        return x * factor
    scale(tf.constant([1.0]), 2)
    scale(tf.constant([1.0, 2.0]), 2)
    scale(tf.constant([1.0, 2.0]), 3)
    logging.getLogger("rivulet").removeHandler(h)
    for r in records:
        print(" ", r.split(" (called from")[0], "...", r.split("because ")[-1])

    if quick:
        return
    _h("Eager vs graph: the guide's power(x, 100)")
    xi = tf.random.uniform([10, 10], minval=-1, maxval=2, dtype=tf.int32) if hasattr(tf.random, "uniform") \
        else tf.constant([[1] * 10] * 10)

    def power(x, y):
        result = tf.eye(10, dtype=tf.int32) if hasattr(tf, "eye") else tf.ones_like(x)
        for _ in range(y):
            result = tf.matmul(x, result)
        return result
    power_as_graph = tf.function(power)
    t0 = time.perf_counter()
    power_as_graph(xi, 100)
    trace = time.perf_counter() - t0
    n = 50
    eager = timeit.timeit(lambda: power(xi, 100), number=n) / n
    graph = timeit.timeit(lambda: power_as_graph(xi, 100), number=n) / n
    worst = max(eager, graph)
    print(f"  eager  {_bar(eager / worst)} {eager * 1e3:7.3f} ms/call")
    print(f"  graph  {_bar(graph / worst)} {graph * 1e3:7.3f} ms/call   (first call, with tracing: "
          f"{trace * 1e3:.1f} ms)")
    print(f"  graph is {eager / graph:.1f}x faster than eager here")
