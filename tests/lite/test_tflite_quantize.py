"""tf.lite post-training quantisation: dynamic range, float16 and full integer (representative dataset).

Tolerances: a float16 model's outputs are within 1e-3 (relative) of rivulet's; a dynamic-range model's within
1% of the output's largest magnitude (the hybrid kernels quantise the activations to int8 as they go); a
full-integer model's within 3 steps of its output's int8 scale for a few layers, and within 5% of the output's
largest magnitude after eight quantised layers (each rounds once). TensorFlow 2.21's
converter, on the same digits models, gives the same parameters checked here (scales max|w| / 127 per output
channel, inputs in [0, 1] at 1/255 and zero point -128, softmax at 1/256 and -128) and files of the same sizes
(MLP: float 70876 bytes, dynamic 24096, int8 25296, float16 37364; rivulet's are ~700 bytes smaller: no
conversion metadata)."""
import importlib
import sys

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
L = tf.keras.layers
FLOAT32, FLOAT16, INT32, UINT8, INT8 = 0, 1, 2, 3, 9


def digits():
    sk = pytest.importorskip("sklearn.datasets")
    d = sk.load_digits()
    x, y = (d.data / 16.0).astype(np.float32), d.target
    return x[:1400], y[:1400], x[1400:], y[1400:]


def trained_mlp(xtr, ytr):
    tf.keras.utils.set_random_seed(0)
    model = tf.keras.Sequential([tf.keras.Input((64,), name="pixels"), L.Dense(128, activation="relu"),
                                 L.Dense(64, activation="relu"), L.Dense(10, name="logits")])
    model.compile(tf.keras.optimizers.Adam(1e-2),
                  tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(xtr, ytr, epochs=5, batch_size=64, verbose=0)
    return model


def small_mlp():
    tf.keras.utils.set_random_seed(1)
    return tf.keras.Sequential([tf.keras.Input((64,), name="pixels"),
                                L.Dense(32, activation="relu", bias_initializer="random_normal"),
                                L.Dense(10, name="logits", bias_initializer="random_normal")])


def model_tables(content):
    """[(name, type, number of scales, quantized dimension, buffer bytes)] of subgraph 0's tensors and
    [(op name, version)] of its operators, read back with the tflite package's schema reader."""
    Model = importlib.import_module("tflite.Model").Model
    names = {v: k for k, v in vars(importlib.import_module("tflite.BuiltinOperator").BuiltinOperator).items()
             if not k.startswith("_")}
    m = Model.GetRootAs(content, 0)
    sg = m.Subgraphs(0)
    tensors = []
    for i in range(sg.TensorsLength()):
        t = sg.Tensors(i)
        q = t.Quantization()
        scales = q.ScaleAsNumpy() if q is not None and q.ScaleLength() else None
        tensors.append((t.Name().decode(), t.Type(), scales, q.QuantizedDimension() if q is not None else None,
                        m.Buffers(t.Buffer()).DataLength()))
    ops = []
    for i in range(sg.OperatorsLength()):
        code = m.OperatorCodes(sg.Operators(i).OpcodeIndex())
        ops.append((names[code.BuiltinCode()], code.Version()))
    return tensors, ops


def predict(content, x):
    interp = tf.lite.Interpreter(model_content=content)
    inp, out = interp.get_input_details()[0], interp.get_output_details()[0]
    interp.resize_tensor_input(inp["index"], list(x.shape))
    interp.allocate_tensors()
    if inp["dtype"] != np.float32:
        s, z = inp["quantization"]
        info = np.iinfo(inp["dtype"])
        x = np.clip(np.round(x / s + z), info.min, info.max).astype(inp["dtype"])
    interp.set_tensor(inp["index"], x)
    interp.invoke()
    return interp.get_tensor(out["index"])


def converter(model, mode, rep=None):
    c = tf.lite.TFLiteConverter.from_keras_model(model)
    c.optimizations = [tf.lite.Optimize.DEFAULT]
    if mode == "float16":
        c.target_spec.supported_types = [tf.float16]
    if rep is not None:
        c.representative_dataset = rep
    return c


def test_int8_digits_classifier_keeps_its_accuracy_at_a_quarter_of_the_size():
    xtr, ytr, xte, yte = digits()
    model = trained_mlp(xtr, ytr)
    float_bytes = tf.lite.TFLiteConverter.from_keras_model(model).convert()
    c = converter(model, "int8", tf.lite.RepresentativeDataset(lambda: ([xtr[i:i + 1]] for i in range(100))))
    c.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    int8_bytes = c.convert()
    float_acc = np.mean(predict(float_bytes, xte).argmax(-1) == yte)
    int8_acc = np.mean(predict(int8_bytes, xte).argmax(-1) == yte)
    assert float_acc > 0.85
    assert abs(int8_acc - float_acc) <= 0.01
    # the weights (all but 1.4 kB of the float file) are a quarter: TensorFlow's ratio is 25296 / 70876 = 0.357
    assert len(int8_bytes) < 0.37 * len(float_bytes)
    tensors, ops = model_tables(int8_bytes)
    assert ops == [("QUANTIZE", 1), ("FULLY_CONNECTED", 4), ("FULLY_CONNECTED", 4), ("FULLY_CONNECTED", 4),
                   ("DEQUANTIZE", 2)]
    by_shape = {}
    for name, type_, scales, dim, nbytes in tensors:
        by_shape.setdefault(type_, []).append((scales, dim, nbytes))
    # weights int8 per output channel (128, 64 and 10 scales), biases int32 per channel, activations per tensor
    assert sorted(len(s) for s, _, n in by_shape[INT8] if n) == [10, 64, 128]
    assert sorted(len(s) for s, _, n in by_shape[INT32] if n) == [10, 64, 128]
    assert all(len(s) == 1 for s, _, n in by_shape[INT8] if not n)
    w = model.layers[0].kernel.numpy()
    first = next(s for s, _, n in by_shape[INT8] if n and len(s) == 128)
    np.testing.assert_allclose(first, np.abs(w).max(axis=0) / 127, rtol=1e-6)  # symmetric: max |w| at 127
    x_scale = next(s for name, t, s, _, n in tensors if name == "tfl.quantize")
    np.testing.assert_allclose(x_scale, [1 / 255], rtol=1e-6)  # inputs in [0, 1]: TensorFlow's 0.0039215689
    bias = next(s for s, _, n in by_shape[INT32] if n and len(s) == 128)
    np.testing.assert_allclose(bias, x_scale[0] * first, rtol=1e-6)  # input scale * weight scale


def test_full_integer_inputs_and_outputs_int8_and_uint8():
    xtr, ytr, xte, yte = digits()
    tf.keras.utils.set_random_seed(0)
    cnn = tf.keras.Sequential([tf.keras.Input((64,), name="pixels"), L.Reshape((8, 8, 1)),
                               L.Conv2D(8, 3, activation="relu", padding="same"), L.MaxPooling2D(),
                               L.DepthwiseConv2D(3, padding="same"), L.Flatten(), L.Dense(10), L.Softmax(name="p")])
    ref = cnn(xte[:20]).numpy()
    rep = lambda: ([xtr[i:i + 1]] for i in range(50))  # noqa: E731
    got = {}
    for io in (tf.float32, tf.int8, tf.uint8):
        c = converter(cnn, "int8", rep)
        c.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        c.inference_input_type = c.inference_output_type = io
        content = c.convert()
        interp = tf.lite.Interpreter(model_content=content)
        inp, out = interp.get_input_details()[0], interp.get_output_details()[0]
        got[io.name] = (inp["dtype"], inp["quantization"], out["dtype"], out["quantization"])
        y = predict(content, xte[:20])
        if io is not tf.float32:
            y = (y.astype(np.float32) - out["quantization"][1]) * out["quantization"][0]
        np.testing.assert_allclose(y, ref, atol=3 / 256)  # softmax's int8 scale is 1/256
    # TensorFlow 2.21 gives these for a model whose inputs are in [0, 1] and ends in a softmax
    assert got == {"float32": (np.float32, (0.0, 0), np.float32, (0.0, 0)),
                   "int8": (np.int8, (pytest.approx(0.003921568859368563), -128), np.int8, (0.00390625, -128)),
                   "uint8": (np.uint8, (pytest.approx(0.003921568859368563), 0), np.uint8, (0.00390625, 0))}


def test_dynamic_range_quantises_large_weights_per_channel():
    tf.keras.utils.set_random_seed(0)
    model = tf.keras.Sequential([tf.keras.Input((64,), name="x"), L.Dense(128, activation="relu"),
                                 L.Dense(10, name="y")])
    content = converter(model, "dynamic").convert()
    tensors, ops = model_tables(content)
    # 64x128 weights (>= 1024 elements) int8 for the hybrid kernel (version 12); 128x10 (1280) too; biases float
    assert ops == [("FULLY_CONNECTED", 12), ("FULLY_CONNECTED", 12)]
    int8 = [(len(s), n) for name, t, s, _, n in tensors if t == INT8]
    assert sorted(int8) == [(10, 1280), (128, 8192)]
    x = np.random.RandomState(0).rand(8, 64).astype(np.float32)
    ref = model(x).numpy()
    got = tf.lite.Interpreter(model_content=content).get_signature_runner()(x=x)["y"]
    np.testing.assert_allclose(got, ref, atol=0.01 * np.abs(ref).max())
    small = converter(small_mlp(), "dynamic").convert()  # 64x32 (2048) quantised, 32x10 (320) left float
    assert model_tables(small)[1] == [("FULLY_CONNECTED", 12), ("FULLY_CONNECTED", 1)]


def test_float16_weights():
    model = small_mlp()
    content = converter(model, "float16").convert()
    tensors, ops = model_tables(content)
    assert ops == [("DEQUANTIZE", 3)] * 4 + [("FULLY_CONNECTED", 1)] * 2
    assert sorted(n for name, t, s, _, n in tensors if t == FLOAT16) == [20, 64, 640, 4096]
    x = np.random.RandomState(0).rand(4, 64).astype(np.float32)
    got = tf.lite.Interpreter(model_content=content).get_signature_runner()(pixels=x)["logits"]
    np.testing.assert_allclose(got, model(x).numpy(), rtol=1e-3, atol=1e-3)
    # without optimizations, supported_types alone leaves the model float (as TensorFlow does)
    c = tf.lite.TFLiteConverter.from_keras_model(model)
    c.target_spec.supported_types = [tf.float16]
    assert all(t == FLOAT32 for _, t, *_ in model_tables(c.convert())[0])


def test_full_integer_many_ops_and_float_fallback():
    i = tf.keras.Input((8, 8, 3), name="img")
    a = L.Conv2D(8, 3, padding="same")(i)
    b = L.Conv2D(8, 1)(L.DepthwiseConv2D(3, padding="same", depth_multiplier=4)(i))
    c = L.Activation("tanh")(L.Add()([a, b]))
    d = L.AveragePooling2D(2)(L.Conv2DTranspose(8, 3, strides=2, padding="same")(c))
    e = L.ZeroPadding2D(1)(L.Concatenate()([d, L.Activation("sigmoid")(c)]))
    o = L.Dense(5, name="o")(L.GlobalAveragePooling2D()(e))
    o2 = L.Multiply(name="o2")([o, o])
    o3 = L.Lambda(lambda t: tf.exp(t), name="o3")(o)  # EXP has no int8 kernel: float between (de)quantize
    tf.keras.utils.set_random_seed(0)
    model = tf.keras.Model(i, [o, o2, o3])
    x = np.random.RandomState(0).rand(30, 8, 8, 3).astype(np.float32)
    ref = dict(zip(["o", "o2", "o3"], [v.numpy() for v in model(x)]))
    conv = converter(model, "int8", lambda: ([x[k:k + 1]] for k in range(30)))
    content = conv.convert()
    interp = tf.lite.Interpreter(model_content=content)
    got = interp.get_signature_runner()(img=x)
    tensors, ops = model_tables(content)
    names = [n for n, _ in ops]
    assert ("ADD", 2) in ops and ("TANH", 2) in ops and ("LOGISTIC", 2) in ops and ("CONCATENATION", 2) in ops
    assert ("TRANSPOSE_CONV", 2) in ops and ("MEAN", 2) in ops and ("MUL", 2) in ops and ("EXP", 1) in ops
    assert names[names.index("EXP") - 1] == "DEQUANTIZE"
    sig = interp.get_signature_list()["serving_default"]["outputs"]
    assert sorted(sig) == ["o", "o2", "o3"]
    scale = {name: s for name, t, s, _, n in tensors if t == INT8 and s is not None}
    for k in ("o", "o2"):
        out = interp._interp.get_signature_runner().get_output_details()[k]
        assert out["dtype"] == np.float32
        step = scale[out["name"] + "_int8"][0]  # the int8 tensor DEQUANTIZEd into the output
        assert step < np.abs(ref[k]).max() / 100
        np.testing.assert_allclose(got[k], ref[k], atol=0.05 * np.abs(ref[k]).max())
    np.testing.assert_allclose(got["o3"], ref["o3"], rtol=0.02)
    conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    with pytest.raises(tf.lite.ConverterError, match="TFLITE_BUILTINS_INT8 only.*no int8 kernel.*: EXP\\."):
        conv.convert()


def test_quantisation_settings_errors(monkeypatch):
    model = small_mlp()
    rep = lambda: ([np.ones((1, 64), np.float32)] for _ in range(2))  # noqa: E731

    def convert(**settings):
        c = tf.lite.TFLiteConverter.from_keras_model(model)
        for k, v in settings.items():
            if k == "ops":
                c.target_spec.supported_ops = v
            else:
                setattr(c, k, v)
        return c.convert()

    # TensorFlow 2.21's errors
    with pytest.raises(ValueError, match="^The inference_input_type and inference_output_type must be tf.float32.$"):
        convert(inference_input_type=tf.int8)
    with pytest.raises(ValueError, match="^For full integer quantization, a `representative_dataset` must be"):
        convert(optimizations=[tf.lite.Optimize.DEFAULT], ops=[tf.lite.OpsSet.TFLITE_BUILTINS_INT8])
    with pytest.raises(ValueError, match=r"Expected to be in \('tf.uint8', 'tf.int8'\), instead got tf.int16."):
        convert(optimizations=[tf.lite.Optimize.DEFAULT], representative_dataset=rep, inference_input_type=tf.int16)
    with pytest.raises(TypeError, match="'list' object is not callable"):
        convert(optimizations=[tf.lite.Optimize.DEFAULT], representative_dataset=[1, 2])
    with pytest.raises(ValueError, match="^Invalid input shapes: expected 1 items got 2 items.$"):
        convert(optimizations=[tf.lite.Optimize.DEFAULT],
                representative_dataset=lambda: ([np.ones((1, 64), np.float32)] * 2 for _ in range(2)))
    with pytest.raises(ValueError, match="gave no samples"):
        convert(optimizations=[tf.lite.Optimize.DEFAULT], representative_dataset=lambda: iter([]))
    with pytest.raises(ValueError, match=r"no value for input\(s\) \['pixels'\]"):
        convert(optimizations=[tf.lite.Optimize.DEFAULT], representative_dataset=lambda: iter([{"x": 1}]))
    with pytest.raises(NotImplementedError, match="SELECT_TF_OPS"):
        convert(ops=[tf.lite.OpsSet.TFLITE_BUILTINS, tf.lite.OpsSet.SELECT_TF_OPS])
    with monkeypatch.context() as mp:
        mp.setitem(sys.modules, "ai_edge_litert.interpreter", None)
        with pytest.raises(ImportError, match=r"calibrates the model in LiteRT.*pip install 'rivulet\[tflite\]'"):
            convert(optimizations=[tf.lite.Optimize.DEFAULT], representative_dataset=rep)
    # a representative dataset without optimizations is ignored (a float model, as TensorFlow gives)
    assert all(t == FLOAT32 for _, t, *_ in model_tables(convert(representative_dataset=rep))[0])
    # a dict sample by input name calibrates as a list does
    by_name = convert(optimizations=[tf.lite.Optimize.DEFAULT],
                      representative_dataset=lambda: iter([{"pixels": np.ones((1, 64), np.float32)}]))
    assert model_tables(by_name)[1][0] == ("QUANTIZE", 1)


def test_int8_only_attention_and_elementwise_kernels():
    tf.keras.utils.set_random_seed(0)
    inp = tf.keras.Input((8, 16), name="x")
    h = L.MultiHeadAttention(2, 8)(inp, inp)  # BATCH_MATMUL of two activations, SOFTMAX
    out = L.Dense(4, name="y")(L.ELU()(L.Dense(16, activation="gelu")(h)))
    model = tf.keras.Model(inp, out)
    x = np.random.RandomState(0).rand(4, 8, 16).astype(np.float32)
    c = converter(model, "int8", lambda: ([x[k:k + 1]] for k in range(4)))
    c.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    content = c.convert()
    ops = {name for name, _ in model_tables(content)[1]}
    assert {"BATCH_MATMUL", "SOFTMAX", "GELU", "ELU"} <= ops
    got = tf.lite.Interpreter(model_content=content).get_signature_runner()(x=x)["y"]
    ref = model(x).numpy()
    np.testing.assert_allclose(got, ref, atol=0.05 * np.abs(ref).max())

    @tf.function(input_signature=[tf.TensorSpec([4, 8], tf.float32)])
    def f(v):
        return tf.math.squared_difference(tf.math.rsqrt(v + 0.5), v) + tf.tile(v, [1, 1])

    v = np.random.RandomState(1).rand(4, 8).astype(np.float32)
    c = tf.lite.TFLiteConverter.from_concrete_functions([f.get_concrete_function()], f)
    c.optimizations = [tf.lite.Optimize.DEFAULT]
    c.representative_dataset = lambda: iter([[v]])
    c.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    got = tf.lite.Interpreter(model_content=c.convert()).get_signature_runner()(v=v)["output_0"]
    np.testing.assert_allclose(got, f(v).numpy(), atol=0.02 * np.abs(f(v).numpy()).max())
