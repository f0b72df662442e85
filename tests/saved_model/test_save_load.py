import collections
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import rivulet as tf

SRC = os.path.dirname(os.path.dirname(tf.__file__))
P = collections.namedtuple("P", ["a", "b"])


def run_fresh(script, cwd):
    """Runs `script` in a new interpreter that has rivulet but not this test module; returns its JSON."""
    env = dict(os.environ, PYTHONPATH=SRC)
    out = subprocess.run([sys.executable, "-c", script], cwd=cwd, env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def plain(x):
    """Outputs as JSON-able data: tensors as [dtype, values]."""
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    if isinstance(x, tf.Tensor):
        return [x.dtype.name, plain(np.asarray(x).tolist())]
    return x.decode() if isinstance(x, bytes) else x


PLAIN = "import json, numpy as np, rivulet as tf\n" + \
    "def plain(x):\n" \
    "    if isinstance(x, dict): return {k: plain(v) for k, v in x.items()}\n" \
    "    if isinstance(x, (list, tuple)): return [plain(v) for v in x]\n" \
    "    if isinstance(x, tf.Tensor): return [x.dtype.name, plain(np.asarray(x).tolist())]\n" \
    "    return x.decode() if isinstance(x, bytes) else x\n"


class Model(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable([[1.0, -1.0], [2.0, 0.5]], name="w")
        self.b = tf.Variable([0.5, 0.25], name="b")
        self.steps = tf.Variable(0, trainable=False, name="steps")
        self.blocks = [tf.Variable(2.0, name="scale")]

    @tf.function
    def __call__(self, x, training=False):
        y = tf.matmul(x, self.w) + self.b
        return tf.nn.relu(y) * self.blocks[0] if training else y

    @tf.function
    def nested(self, pair, scale=3.0, *, extra=None):
        out = {"sum": pair.a + pair.b * scale, "parts": [pair.a, (pair.b, "tag")]}
        if extra is not None:
            out["extra"] = extra["k"] * 2
        return out

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32, name="inputs")])
    def serve(self, x):
        self.steps.assign_add(1)
        return {"scores": tf.matmul(x, self.w), "total": tf.reduce_sum(x)}


def _trace(m):
    x = tf.constant([[1.0, 2.0], [3.0, -4.0]])
    calls = [
        ("__call__", (x,), {}),
        ("__call__", (x,), {"training": True}),
        ("__call__", (tf.constant([[1.0, 1.0]]),), {}),
        ("nested", (P(tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])),), {}),
        ("nested", (P(tf.constant(1.0), tf.constant(2.0)), 5.0), {"extra": {"k": tf.constant(7)}}),
        ("serve", (x,), {}),
    ]
    return [(name, args, kw, plain(getattr(m, name)(*args, **kw))) for name, args, kw in calls]


def test_fresh_process_gives_the_same_outputs(tmp_path):
    m = Model()
    expected = _trace(m)
    tf.saved_model.save(m, str(tmp_path / "model"))
    script = PLAIN + """
import collections
P = collections.namedtuple("P", ["a", "b"])
m = tf.saved_model.load("model")
x = tf.constant([[1.0, 2.0], [3.0, -4.0]])
out = [plain(m(x)), plain(m(x, training=True)), plain(m(tf.constant([[1.0, 1.0]]))),
       plain(m.nested(P(tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])))),
       plain(m.nested(P(tf.constant(1.0), tf.constant(2.0)), 5.0, extra={"k": tf.constant(7)})),
       plain(m.serve(x)),
       plain(m.signatures["serving_default"](inputs=x)),
       [v.name for v in m.variables], [v.name for v in m.trainable_variables], plain(tf.convert_to_tensor(m.steps))]
print(json.dumps(out))
"""
    got = run_fresh(script, tmp_path)
    assert got[:6] == [e[3] for e in expected]
    assert got[6] == expected[5][3]  # the signature returns the same dict
    assert got[7] == ["b:0", "scale:0", "steps:0", "w:0"]  # sorted attribute order, as tf.Module lists them
    assert got[8] == ["b:0", "scale:0", "w:0"]
    assert got[9] == ["int32", 3]  # serve() ran once before saving, then serve() and its signature


def test_control_flow_round_trip(tmp_path):
    class Loop(tf.Module):
        def __init__(self):
            super().__init__()
            self.k = tf.Variable(3.0)

        @tf.function
        def f(self, x, n):
            y = tf.cond(tf.reduce_sum(x) > 0, lambda: x * self.k, lambda: -x)
            _, acc = tf.while_loop(lambda i, acc: i < n, lambda i, acc: (i + 1, acc + y),
                                   (tf.constant(0), tf.zeros_like(y)))
            return acc

    m = Loop()
    cases = [([1.0, -3.0], 3), ([1.0, 5.0], 2), ([0.0, 0.0], 0)]
    expected = [plain(m.f(tf.constant(x), tf.constant(n))) for x, n in cases]
    tf.saved_model.save(m, str(tmp_path / "loop"))
    got = run_fresh(PLAIN + f"""
m = tf.saved_model.load("loop")
print(json.dumps([plain(m.f(tf.constant(x), tf.constant(n))) for x, n in {cases!r}]))
""", tmp_path)
    assert got == expected


def test_fine_tuning_a_loaded_module(tmp_path):
    m = Model()
    x = tf.constant([[1.0, 2.0], [3.0, -4.0]])
    m(x, training=True)
    tf.saved_model.save(m, str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"))

    def step(module):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum((module(x, training=True) - 1.0) ** 2)
        grads = tape.gradient(loss, module.trainable_variables)
        for v, g in zip(module.trainable_variables, grads):
            v.assign_sub(0.01 * g)
        return float(loss)

    losses = [(step(m), step(loaded)) for _ in range(3)]
    for a, b in losses:
        assert a == pytest.approx(b)
    assert losses[2][1] < losses[0][1]
    for v, w in zip(m.trainable_variables, loaded.trainable_variables):
        np.testing.assert_allclose(v.numpy(), w.numpy(), rtol=1e-6)


def test_loaded_variables_are_shared_and_assignable(tmp_path):
    m = Model()
    x = tf.constant([[1.0, 0.0]])
    m(x)
    m.serve(x)
    tf.saved_model.save(m, str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    loaded.w.assign([[0.0, 0.0], [0.0, 0.0]])
    np.testing.assert_array_equal(loaded(x).numpy(), [[0.5, 0.25]])
    np.testing.assert_array_equal(loaded.signatures["serving_default"](inputs=x)["scores"].numpy(), [[0, 0]])
    np.testing.assert_array_equal(m.w.numpy()[0], [1.0, -1.0])  # the original is untouched
    assert isinstance(loaded.w, tf.Variable) and loaded.steps.trainable is False


def test_no_matching_function_lists_the_options(tmp_path):
    m = Model()
    m(tf.constant([[1.0, 2.0]]))
    m(tf.constant([[1.0, 2.0]]), training=True)
    tf.saved_model.save(m, str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    with pytest.raises(ValueError) as e:
        loaded(tf.constant([[1, 2]]))
    assert str(e.value) == """\
Could not find matching concrete function to call loaded from the SavedModel. Got:
  Positional arguments (2 total):
    * <tf.Tensor 'x:0' shape=(1, 2) dtype=int32>
    * False
  Keyword arguments: {}

 Expected these arguments to match one of the following 2 option(s):

Option 1:
  Positional arguments (2 total):
    * TensorSpec(shape=(1, 2), dtype=tf.float32, name='x')
    * False
  Keyword arguments: {}

Option 2:
  Positional arguments (2 total):
    * TensorSpec(shape=(1, 2), dtype=tf.float32, name='x')
    * True
  Keyword arguments: {}"""
    with pytest.raises(ValueError, match="2 option"):
        loaded(tf.constant([[1.0, 2.0]]), training=7)
    # Python values convert to tensors when no saved function takes them as they are, as in TensorFlow.
    np.testing.assert_array_equal(loaded([[1.0, 2.0]]).numpy(), loaded(tf.constant([[1.0, 2.0]])).numpy())


def test_signatures(tmp_path):
    m = Model()
    x = tf.constant([[1.0, 2.0]])
    cf = m.__call__.get_concrete_function(tf.TensorSpec([None, 2], tf.float32))
    tf.saved_model.save(m, str(tmp_path / "m"), signatures={"plain": cf, "serve": m.serve})
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    assert sorted(loaded.signatures) == ["plain", "serve"]
    np.testing.assert_array_equal(loaded.signatures["plain"](x=x)["output_0"].numpy(), m(x).numpy())
    assert sorted(loaded.signatures["serve"](inputs=x)) == ["scores", "total"]
    with pytest.raises(ValueError, match="has no input_signature"):
        tf.saved_model.save(m, str(tmp_path / "bad"), signatures=m.nested)


def test_save_refuses_what_cannot_be_saved(tmp_path):
    class Holder(tf.Module):
        @tf.function
        def f(self, x, obj):
            return x * 2.0

    h = Holder()
    h.f(tf.constant(1.0), object())
    with pytest.raises(ValueError, match="traced for a Python object"):
        tf.saved_model.save(h, str(tmp_path / "h"))
    with pytest.raises(ValueError, match="Expected an object with tf.Variable or tf.function"):
        tf.saved_model.save(42, str(tmp_path / "n"))


def test_missing_directory():
    with pytest.raises(OSError, match="SavedModel file does not exist at"):
        tf.saved_model.load("/nonexistent/model")


def test_plain_object_with_functions(tmp_path):
    class Plain:
        def __init__(self):
            self.double = tf.function(lambda x: x * 2)

    p = Plain()
    p.double(tf.constant(3))
    tf.saved_model.save(p, str(tmp_path / "p"))
    loaded = tf.saved_model.load(str(tmp_path / "p"))
    assert loaded.double(tf.constant(5)).numpy() == 10
    assert loaded.variables == ()


def test_keras_layers_inside_a_module(tmp_path):
    model = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu"), tf.keras.layers.Dense(1)])

    class Wrap(tf.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
        def predict(self, x):
            return self.model(x)

    w = Wrap()
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    want = w.predict(x).numpy()
    tf.saved_model.save(w, str(tmp_path / "k"))
    got = run_fresh(PLAIN + """
m = tf.saved_model.load("k")
x = np.arange(6, dtype=np.float32).reshape(2, 3)
print(json.dumps([plain(m.predict(x)), sorted(v.name for v in m.trainable_variables)]))
""", tmp_path)
    np.testing.assert_allclose(got[0][1], want, rtol=1e-6)
    assert got[1] == sorted(v.name for v in model.trainable_variables)
