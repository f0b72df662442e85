"""The tour `python -m rivulet` prints: the guides' story told by running it."""
import logging
import os
import sys
import tempfile
import time
import timeit

import numpy as np

import rivulet as tf

__autograph_user_code__ = True  # the tour's functions are user code: AutoGraph converts them


def _h(title):
    print(f"\n== {title} " + "=" * max(0, 70 - len(title)))


def _bar(frac, width=30):
    n = int(round(frac * width))
    return "[" + "=" * n + "." * (width - n) + "]"


class _Retraces(logging.Handler):
    """Collects the rivulet logger's retrace explanations so the tour can show them."""

    def __init__(self):
        super().__init__()
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def run(quick=False):
    log = logging.getLogger("rivulet")
    grab = _Retraces()
    log.addHandler(grab)
    log.propagate, old_propagate = False, log.propagate
    try:
        _story(quick, grab)
    finally:
        log.removeHandler(grab)
        log.propagate = old_propagate


def _story(quick, grab):
    print(f"rivulet {tf.version.RIVULET_VERSION}: TensorFlow-2-style graphs on NumPy  (import rivulet as tf)")

    _h("Eager tensors: ops run now, and print like TensorFlow")
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    print("x @ x =", x @ x)
    print("repr:", repr(tf.constant(5.5)))
    try:
        tf.constant(1) + tf.constant(1.0)
    except tf.errors.InvalidArgumentError as e:
        print("no implicit promotion:", type(e).__name__ + ":", e)

    _h("tf.function: Python runs once, then the graph runs")

    @tf.function
    def dense(x, w, b):
        print("  (Python runs: tracing for", x.shape, x.dtype.name + ")")
        return tf.maximum(tf.matmul(x, w) + b, 0.0)
    w, b = tf.constant([[1.0], [-1.0]]), tf.constant(0.5)
    print("first call :", dense(tf.constant([[1.0, 2.0]]), w, b))
    print("second call:", dense(tf.constant([[3.0, 1.0]]), w, b), " <- no tracing: the graph ran")

    _h("AutoGraph: Python control flow on tensors becomes graph control flow")

    def simple_relu(x):
        if tf.greater(x, 0):
            return x
        else:
            return 0
    tf_simple_relu = tf.function(simple_relu)
    print("First branch, with graph:", tf_simple_relu(tf.constant(1)).numpy())
    print("Second branch, with graph:", tf_simple_relu(tf.constant(-1)).numpy())
    ops = tf_simple_relu.get_concrete_function(tf.constant(1)).graph.get_operations()
    print("the graph has", ", ".join(op.type for op in ops), "- one If op, whatever the branch taken")

    _h("A traced graph, drawn")
    cf = dense.get_concrete_function(tf.TensorSpec([None, 2], tf.float32), w, b)
    _draw(cf.graph)
    svg = _svg(cf)
    if svg:
        print(f"  (as a picture: {svg} - open it in a browser)")

    _h("Polymorphism: one graph per input signature; retraces explain themselves")

    @tf.function
    def scale(x, factor):
        return x * factor
    scale(tf.constant([1.0]), 2)
    scale(tf.constant([1.0, 2.0]), 2)
    scale(tf.constant([1.0, 2.0]), 3)
    scale(tf.constant([5.0, 6.0]), 3)  # same signature as the call before: no retrace
    print(f"4 calls, {scale.experimental_get_tracing_count()} traces; why each retrace happened:")
    for m in grab.messages:
        if "'scale'" in m:
            print("  -", m.split("because ")[-1].rstrip("."))

    if quick:
        return
    _h("Eager vs graph on the guides' workloads")
    rows = _timings()
    print(f"\n  {'workload':36} {'eager':>10} {'graph':>10} {'graph speed-up':>15}")
    for name, eager, graph in rows:
        print(f"  {name:36} {eager * 1e3:8.3f}ms {graph * 1e3:8.3f}ms {eager / graph:14.1f}x")

    _h("Training with Keras: fit traces its step once, then runs the graph")
    _train()


def _draw(graph):
    """The graph as text: each op with its inputs, in execution order."""
    for op in graph.get_operations():
        ins = ", ".join(t.op.name for t in op.inputs)
        out = op.outputs[0] if op.outputs else None
        ty = f"{out.dtype.name}{out.shape}" if out is not None else ""
        arrow = f" <- {ins}" if ins else ""
        print(f"  {op.type:12} {op.name:10} {ty:18}{arrow}")


def _svg(cf):
    try:
        from .saved_model.render import to_svg
    except ImportError:
        return None
    path = os.path.join(tempfile.gettempdir(), "rivulet-tour-graph.svg")
    with open(path, "w") as f:
        f.write(to_svg(cf.graph, cf.graph.outputs, title="dense(x, w, b)"))
    return path


def _measure(fn, number):
    return min(timeit.repeat(fn, number=number, repeat=3)) / number


def _timings():
    xi = tf.random.uniform([10, 10], minval=-1, maxval=2, dtype=tf.int32)

    def power(x, y):
        result = tf.eye(10, dtype=tf.int32)
        for _ in range(y):
            result = tf.matmul(x, result)
        return result

    class SequentialModel(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.flatten = tf.keras.layers.Flatten()
            self.my_layers = [tf.keras.layers.Dense(64, activation="relu") for _ in range(100)]
            self.dense_2 = tf.keras.layers.Dense(10)

        def call(self, x):
            x = self.flatten(x)
            for layer in self.my_layers:
                x = layer(x)
            return self.dense_2(x)
    images = tf.random.uniform([20, 28, 28])
    eager_model, graph_model = SequentialModel(), SequentialModel()
    graph_model.call = tf.function(graph_model.call)

    weights = [tf.Variable(tf.random.normal([784, 128]) * 0.05), tf.Variable(tf.random.normal([128, 10]) * 0.05)]
    xb, yb = tf.random.normal([64, 784]), tf.random.uniform([64], maxval=10, dtype=tf.int32)

    def step():
        with tf.GradientTape() as tape:
            logits = tf.matmul(tf.nn.relu(tf.matmul(xb, weights[0])), weights[1])
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=yb, logits=logits))
        for v, g in zip(weights, tape.gradient(loss, weights)):
            v.assign_sub(0.01 * g)
        return loss

    work = [("power(x, 100): 100 int32 matmuls", lambda: power(xi, 100), tf.function(power), (xi, 100), 50),
            ("100 small Dense layers (Keras)", lambda: eager_model(images), lambda: graph_model(images), (), 20),
            ("training step (GradientTape + SGD)", step, tf.function(step), (), 20)]
    rows = []
    for i, (name, eager, graph_fn, args, n) in enumerate(work):
        graph = (lambda: graph_fn(*args)) if args else graph_fn
        eager(), graph()  # build and trace first
        sys.stdout.write(f"\r  measuring {_bar(i / len(work))} {name:40}")
        sys.stdout.flush()
        rows.append((name, _measure(eager, n), _measure(graph, n)))
    sys.stdout.write(f"\r  measuring {_bar(1)} {'done':40}\n")
    return rows


def _digits_file():
    """The digits CSV that scikit-learn ships, found without importing scikit-learn: its import loads
    SciPy's own OpenBLAS, whose threads then fight NumPy's for the two cores (training 10x slower)."""
    import importlib.util
    import os
    spec = importlib.util.find_spec("sklearn")
    if spec is None or spec.origin is None:
        return None
    path = os.path.join(os.path.dirname(spec.origin), "datasets", "data", "digits.csv.gz")
    return path if os.path.exists(path) else None


def _train():
    tf.keras.utils.set_random_seed(0)
    digits = _digits_file()
    if digits is None:
        # ten noisy prototypes in 64 "pixels": learnable, not separable by a lookup
        rng = np.random.default_rng(0)
        y = rng.integers(0, 10, 1500).astype("int32")
        x = (rng.random((10, 64))[y] + rng.normal(scale=0.6, size=(1500, 64))).astype("float32")
        what = "a synthetic 10-class problem (pip install scikit-learn for the handwritten digits)"
    else:
        data = np.loadtxt(digits, delimiter=",")
        x, y = (data[:, :-1] / 16.0).astype("float32"), data[:, -1].astype("int32")
        what = "scikit-learn's 8x8 handwritten digits"
    order = np.random.default_rng(1).permutation(len(x))
    x, y = x[order], y[order]
    split = int(len(x) * 0.8)
    print(f"data: {what}, {split} training / {len(x) - split} test images")
    model = tf.keras.Sequential([tf.keras.layers.Dense(128, activation="relu", input_shape=(64,)),
                                 tf.keras.layers.Dense(10)])
    model.compile(optimizer=tf.keras.optimizers.Adam(1e-2),
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    start = time.perf_counter()
    model.fit(x[:split], y[:split], batch_size=64, epochs=5, verbose=2)
    loss, acc = model.evaluate(x[split:], y[split:], verbose=0)
    print(f"test accuracy {acc:.1%} after {time.perf_counter() - start:.1f}s of training")
