"""tf.lite: tf.cond and tf.while_loop (and AutoGraph's if/while/for on tensors) as TensorFlow Lite's IF and
WHILE operators with subgraphs of their own; LiteRT's results equal rivulet's."""
import importlib

import numpy as np
import pytest

import rivulet as tf

try:
    import ai_edge_litert.interpreter  # noqa: F401
    import flatbuffers  # noqa: F401
    import tflite.Model  # noqa: F401
    HAVE_EXTRA = True
except ImportError:
    HAVE_EXTRA = False
pytestmark = pytest.mark.skipif(not HAVE_EXTRA, reason="the tflite extra is not installed")


def convert(f, **settings):
    c = tf.lite.TFLiteConverter.from_concrete_functions([f.get_concrete_function()], f)
    for k, v in settings.items():
        setattr(c, k, v)
    return c.convert()


def check(content, f, **inputs):
    got = tf.lite.Interpreter(model_content=content).get_signature_runner()(**inputs)
    ref = f(**inputs)
    ref = ref if isinstance(ref, dict) else {"output_0": ref}
    assert sorted(got) == sorted(ref)
    for k in ref:
        np.testing.assert_allclose(got[k], ref[k].numpy(), rtol=1e-5)
    return got


def structure(content):
    """[(subgraph name, [(op, options as a dict of the subgraph indices)])] read back with the tflite package."""
    Model = importlib.import_module("tflite.Model").Model
    names = {v: k for k, v in vars(importlib.import_module("tflite.BuiltinOperator").BuiltinOperator).items()
             if not k.startswith("_")}
    m = Model.GetRootAs(content, 0)
    result = []
    for s in range(m.SubgraphsLength()):
        sg = m.Subgraphs(s)
        ops = []
        for i in range(sg.OperatorsLength()):
            op = sg.Operators(i)
            name = names[m.OperatorCodes(op.OpcodeIndex()).BuiltinCode()]
            extra = {}
            if name in ("IF", "WHILE"):
                cls = "IfOptions" if name == "IF" else "WhileOptions"
                opts = getattr(importlib.import_module(f"tflite.{cls}"), cls)()
                table = op.BuiltinOptions()
                opts.Init(table.Bytes, table.Pos)
                extra = ({"then": opts.ThenSubgraphIndex(), "else": opts.ElseSubgraphIndex()} if name == "IF" else
                         {"cond": opts.CondSubgraphIndex(), "body": opts.BodySubgraphIndex()})
            ops.append((name, extra) if extra else name)
        result.append((sg.Name().decode(), ops))
    return result


@tf.function(input_signature=[tf.TensorSpec([], tf.float32), tf.TensorSpec([None, 3], tf.float32)])
def cond_and_loop(x, v):
    y = tf.cond(x > 0, lambda: v * 2.0, lambda: -v)
    i, s = tf.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s + y * tf.cast(i, tf.float32)),
                         [tf.constant(0), tf.zeros_like(v)])
    return {"s": s, "i": i}


def test_cond_and_while_loop_are_if_and_while_subgraphs():
    content = convert(cond_and_loop)
    v = np.arange(6, dtype=np.float32).reshape(2, 3)
    got = check(content, cond_and_loop, x=np.float32(1.5), v=v)
    np.testing.assert_array_equal(got["s"], v * 2 * 10)  # 2v * (0+1+2+3+4)
    check(content, cond_and_loop, x=np.float32(-2.0), v=v[:1])  # the other branch, another batch size
    assert structure(content) == [
        ("main", ["GREATER", ("IF", {"then": 1, "else": 2}), "ZEROS_LIKE", ("WHILE", {"cond": 3, "body": 4})]),
        ("cond_true", ["MUL"]), ("cond_false", ["NEG"]),
        ("while_cond", ["LESS"]),
        ("while_body", ["ADD", "CAST", "MUL", "ADD", "RESHAPE"]),  # the captured y carried through: a copy
    ]


def test_autograph_for_if_and_while_on_tensors():
    @tf.function(input_signature=[tf.TensorSpec([], tf.int32), tf.TensorSpec([4], tf.float32)])
    def loop(n, v):
        total = tf.zeros([4])
        for i in tf.range(n):
            if tf.reduce_sum(v) > 0:
                total += v * tf.cast(i, tf.float32)
            else:
                total -= v
        return total

    content = convert(loop)
    np.testing.assert_array_equal(check(content, loop, n=np.int32(4), v=np.ones(4, np.float32))["output_0"], [6] * 4)
    np.testing.assert_array_equal(check(content, loop, n=np.int32(3), v=-np.ones(4, np.float32))["output_0"], [3] * 4)
    main = structure(content)[0][1]
    assert "RANGE" in main and any(op[0] == "WHILE" for op in main if isinstance(op, tuple))

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def grow(x):
        while x < 100.0:
            x = x * 3.0
            if x > 50.0:
                x = x + 1.0
        return x

    assert check(convert(grow), grow, x=np.float32(2.0))["output_0"] == 166.0  # 2, 6, 18, 54+1, 165+1


def test_branch_returning_an_input_or_a_constant_and_maximum_iterations():
    @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
    def pick(v):
        return tf.cond(v[0] > 0, lambda: v, lambda: tf.constant([1.0, 2.0, 3.0]))

    content = convert(pick)
    check(content, pick, v=np.array([4, 5, 6], np.float32))
    check(content, pick, v=np.array([-4, 5, 6], np.float32))

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def doubling(x):
        return tf.while_loop(lambda a: a < 1000.0, lambda a: (a * 2.0,), [x], maximum_iterations=5)[0]

    assert check(convert(doubling), doubling, x=np.float32(1.5))["output_0"] == 48.0


def test_control_flow_with_quantisation_and_an_unsupported_op_inside():
    w = tf.constant(np.random.RandomState(0).randn(64, 32).astype(np.float32))

    @tf.function(input_signature=[tf.TensorSpec([2, 64], tf.float32)])
    def f(x):
        return tf.cond(tf.reduce_mean(x) > 0, lambda: tf.matmul(x, w), lambda: tf.zeros([2, 32]))

    c = tf.lite.TFLiteConverter.from_concrete_functions([f.get_concrete_function()], f)
    c.optimizations = [tf.lite.Optimize.DEFAULT]
    content = c.convert()
    x = np.abs(np.random.RandomState(1).randn(2, 64)).astype(np.float32)
    got = tf.lite.Interpreter(model_content=content).get_signature_runner()(x=x)["output_0"]
    ref = f(x).numpy()
    np.testing.assert_allclose(got, ref, atol=0.01 * np.abs(ref).max())  # the branch's weights are int8
    assert structure(content)[1] == ("cond_true", ["FULLY_CONNECTED"])

    @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
    def g(x):
        return tf.cond(x[0] > 0, lambda: tf.math.lgamma(x), lambda: x)

    with pytest.raises(tf.lite.ConverterError, match=r"1 op cannot.*\n.*Lgamma 'Lgamma'"):
        convert(g)


@pytest.mark.parametrize("name", ["lstm", "gru_sequences_backwards", "stacked_lstm", "bidirectional",
                                  "embedding_simple_rnn"])
def test_keras_recurrent_layers_are_while_loops(name):
    L = tf.keras.layers
    tf.keras.utils.set_random_seed(0)
    x = np.random.RandomState(0).randn(3, 5, 3).astype(np.float32)
    layers = {"lstm": [L.LSTM(4), L.Dense(2)],
              "gru_sequences_backwards": [L.GRU(4, return_sequences=True, go_backwards=True),
                                          L.GlobalAveragePooling1D()],
              "stacked_lstm": [L.LSTM(4, return_sequences=True), L.LSTM(3)],
              "bidirectional": [L.Bidirectional(L.LSTM(4, return_sequences=True)), L.SimpleRNN(2)]}.get(name)
    if layers is None:
        model = tf.keras.Sequential([tf.keras.Input((6,), dtype="int32", name="x"), L.Embedding(20, 8),
                                     L.SimpleRNN(5), L.Dense(1)])
        x = np.random.RandomState(0).randint(0, 20, (3, 6)).astype(np.int32)
    else:
        model = tf.keras.Sequential([tf.keras.Input((5, 3), name="x")] + layers)
    content = tf.lite.TFLiteConverter.from_keras_model(model).convert()
    got = tf.lite.Interpreter(model_content=content).get_signature_runner()(x=x)
    np.testing.assert_allclose(next(iter(got.values())), model(x).numpy(), rtol=1e-5, atol=1e-6)
    main = structure(content)[0][1]
    assert any(isinstance(op, tuple) and op[0] == "WHILE" for op in main)
    if name != "lstm":
        return
    # no state kept between invokes: TFLite's fused UNIDIRECTIONAL_SEQUENCE_LSTM keeps its states in variable
    # tensors that carry over to the next invoke (tensorflow/tensorflow#47813), so the loop stays a WHILE
    runner = tf.lite.Interpreter(model_content=content).get_signature_runner()
    x2 = np.random.RandomState(1).randn(3, 5, 3).astype(np.float32)
    for xi in (x, x2, x):
        np.testing.assert_allclose(runner(x=xi)[next(iter(got))], model(xi).numpy(), rtol=1e-5, atol=1e-6)
    assert "UNIDIRECTIONAL_SEQUENCE_LSTM" not in str(structure(content))
    Model = importlib.import_module("tflite.Model").Model
    m = Model.GetRootAs(content, 0)
    assert not any(m.Subgraphs(s).Tensors(i).IsVariable() for s in range(m.SubgraphsLength())
                   for i in range(m.Subgraphs(s).TensorsLength()))
    # the step: x[t] (a GATHER at the loop counter, as TensorFlow writes it), the recurrent FULLY_CONNECTED,
    # the gates
    body = structure(content)[2]
    assert body[0] == "while_body" and body[1][:2] == ["GATHER", "FULLY_CONNECTED"]
    assert body[1].count("LOGISTIC") == 3 and "SPLIT" in body[1]
    # dynamic-range quantisation reaches the loop body's weights (4x16 recurrent kernel: too small, float)
    c = tf.lite.TFLiteConverter.from_keras_model(model)
    c.optimizations = [tf.lite.Optimize.DEFAULT]
    got = tf.lite.Interpreter(model_content=c.convert()).get_signature_runner()(x=x)
    np.testing.assert_allclose(next(iter(got.values())), model(x).numpy(), rtol=1e-5, atol=1e-6)


def test_quantised_lstm_keeps_its_loop_float():
    L = tf.keras.layers
    tf.keras.utils.set_random_seed(0)
    model = tf.keras.Sequential([tf.keras.Input((6,), dtype="int32", name="x"), L.Embedding(200, 16), L.LSTM(8),
                                 L.Dense(3, name="y")])
    x = np.random.RandomState(0).randint(0, 200, (10, 6)).astype(np.int32)
    ref = model(x).numpy()
    for mode, tol in (("float16", 1e-3), ("int8", 0.1)):
        c = tf.lite.TFLiteConverter.from_keras_model(model)
        c.optimizations = [tf.lite.Optimize.DEFAULT]
        if mode == "float16":
            c.target_spec.supported_types = [tf.float16]  # the scalar constants too (FILL's value stays 0-d)
        else:
            c.representative_dataset = lambda: ([x[i:i + 1]] for i in range(10))
        got = tf.lite.Interpreter(model_content=c.convert()).get_signature_runner()(x=x)["y"]
        # int8: the embedding and the dense layers around the float loop, within 10% of the largest output
        np.testing.assert_allclose(got, ref, atol=tol * np.abs(ref).max())
    c.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    with pytest.raises(tf.lite.ConverterError, match="no int8 kernel in TensorFlow Lite: .*WHILE"):
        c.convert()


def test_slices_at_run_time_bounds():
    @tf.function(input_signature=[tf.TensorSpec([2, 5, 3], tf.float32)])
    def f(x):
        def body(i, s):
            return i + 1, s * 0.5 + x[:, i] + x[1, i, 1:2] + x[0][i]
        return tf.while_loop(lambda i, s: i < 5, body, [tf.constant(0), tf.zeros([2, 3])])[1]

    content = convert(f)
    check(content, f, x=np.random.RandomState(0).randn(2, 5, 3).astype(np.float32))
    body = structure(content)[2][1]
    assert body.count("STRIDED_SLICE") == 3 and "PACK" in body and "GATHER" in body  # x[0][i]: a GATHER
