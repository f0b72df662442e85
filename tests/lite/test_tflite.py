"""tf.lite: convert with rivulet (no TensorFlow), run the .tflite file in LiteRT, compare with rivulet.

Skipped when the `tflite` extra (tflite, flatbuffers, ai-edge-litert) is not installed, except the tests of
the errors that say what to install."""
import importlib
import os
import sys

import numpy as np
import pytest

import rivulet as tf
from tests.lite.read_back import all_ops

try:
    import ai_edge_litert.interpreter  # noqa: F401
    import flatbuffers  # noqa: F401
    import tflite.Model  # noqa: F401
    HAVE_EXTRA = True
except ImportError:
    HAVE_EXTRA = False
needs_extra = pytest.mark.skipif(not HAVE_EXTRA, reason="the tflite extra is not installed")
TF_MODELS = os.path.join(os.path.dirname(__file__), "..", "tf_savedmodel", "fixtures")  # from ../shared/tf_models
RNG = np.random.RandomState(0)


def run_signature(content, **inputs):
    runner = tf.lite.Interpreter(model_content=content).get_signature_runner()
    return runner(**inputs)


def parsed(content):
    """The model read back with the tflite package's schema reader: (Model, [builtin op names])."""
    Model = importlib.import_module("tflite.Model").Model
    names = {v: k for k, v in vars(importlib.import_module("tflite.BuiltinOperator").BuiltinOperator).items()
             if not k.startswith("_")}
    m = Model.GetRootAs(content, 0)
    sg = m.Subgraphs(0)
    ops = [names[m.OperatorCodes(sg.Operators(i).OpcodeIndex()).BuiltinCode()] for i in range(sg.OperatorsLength())]
    return m, ops


def fused_activation(m, i, options):
    opts = getattr(importlib.import_module(f"tflite.{options}"), options)()
    table = m.Subgraphs(0).Operators(i).BuiltinOptions()
    opts.Init(table.Bytes, table.Pos)
    return opts.FusedActivationFunction()


def mlp():
    inputs = tf.keras.Input((6,), name="features")
    h = tf.keras.layers.Dense(16, activation="relu")(inputs)
    h = tf.keras.layers.Dense(8, activation="tanh")(h)
    outputs = tf.keras.layers.Dense(3, activation="softmax", name="probs")(h)
    return tf.keras.Model(inputs, outputs)


@needs_extra
def test_keras_mlp_converts_and_runs_in_litert():
    model = mlp()
    content = tf.lite.TFLiteConverter.from_keras_model(model).convert()
    assert isinstance(content, bytes) and content[4:8] == b"TFL3"
    interp = tf.lite.Interpreter(model_content=content)
    assert interp.get_signature_list() == {"serving_default": {"inputs": ["features"], "outputs": ["probs"]}}
    x = RNG.randn(5, 6).astype(np.float32)
    got = interp.get_signature_runner()(features=x)["probs"]
    np.testing.assert_allclose(got, model(x, training=False).numpy(), rtol=1e-5, atol=1e-7)
    m, ops = parsed(content)
    assert m.Version() == 3
    # Dense + bias + relu is one FULLY_CONNECTED with a fused RELU; the tanh and softmax follow
    assert ops == ["FULLY_CONNECTED", "FULLY_CONNECTED", "TANH", "FULLY_CONNECTED", "SOFTMAX"]
    assert fused_activation(m, 0, "FullyConnectedOptions") == 1  # RELU


@needs_extra
def test_keras_cnn_converts_and_runs_in_litert():
    model = tf.keras.Sequential([
        tf.keras.layers.Input((10, 10, 3), name="image"),  # (an unnamed one's number depends on earlier tests)
        tf.keras.layers.Conv2D(4, 3, activation="relu"),
        tf.keras.layers.DepthwiseConv2D(3, padding="same", depth_multiplier=2),
        tf.keras.layers.MaxPooling2D(),
        tf.keras.layers.Conv2D(5, 2, strides=2, padding="same", activation="relu6"),
        tf.keras.layers.AveragePooling2D(pool_size=(2, 2), padding="same"),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(4, activation="sigmoid"),
        tf.keras.layers.Dense(2),
    ])
    content = tf.lite.TFLiteConverter.from_keras_model(model).convert()
    x = RNG.randn(3, 10, 10, 3).astype(np.float32)
    out = run_signature(content, image=x)
    (name, got), = out.items()
    assert name == model.layers[-1].name
    np.testing.assert_allclose(got, model(x, training=False).numpy(), rtol=1e-5, atol=1e-6)
    m, ops = parsed(content)
    # as TensorFlow's converter writes it: biases in the convolutions' bias operands, relu/relu6 fused
    assert ops == ["CONV_2D", "DEPTHWISE_CONV_2D", "MAX_POOL_2D", "CONV_2D", "AVERAGE_POOL_2D", "RESHAPE",
                   "FULLY_CONNECTED", "LOGISTIC", "FULLY_CONNECTED"]
    assert [fused_activation(m, i, "Conv2DOptions") for i in (0, 3)] == [1, 3]  # RELU, RELU6
    # the empty buffer, one weights and one bias buffer per layer, the RESHAPE's shape: no unused buffers
    # (the Dense layers' biases, zeros, are left out, as TensorFlow's converter leaves them out)
    assert m.BuffersLength() == 1 + 2 * 5 + 1 - 2


@needs_extra
def test_functional_model_with_two_outputs_batch_norm_and_merges():
    L = tf.keras.layers
    inp = tf.keras.Input((8, 8, 3), name="img")
    h = L.ReLU()(L.BatchNormalization()(L.Conv2D(4, 3, padding="same")(inp)))
    h = L.Dropout(0.5)(L.Add()([h, L.SeparableConv2D(4, 3, padding="same")(h)]))
    c = L.LayerNormalization()(L.Concatenate()([L.GlobalAveragePooling2D()(h), L.GlobalMaxPooling2D()(h)]))
    model = tf.keras.Model(inp, [L.Dense(3, activation="softmax", name="cls")(c),
                                 L.Dense(1, name="reg")(L.LeakyReLU()(c))])
    bn = model.layers[2]
    bn.moving_mean.assign(RNG.rand(4).astype(np.float32))
    bn.moving_variance.assign(RNG.rand(4).astype(np.float32) + 0.5)
    content = tf.lite.TFLiteConverter.from_keras_model(model).convert()
    interp = tf.lite.Interpreter(model_content=content)
    assert interp.get_signature_list() == {"serving_default": {"inputs": ["img"], "outputs": ["cls", "reg"]}}
    x = RNG.randn(2, 8, 8, 3).astype(np.float32)
    got = interp.get_signature_runner()(img=x)
    for name, want in zip(["cls", "reg"], model(x, training=False)):
        np.testing.assert_allclose(got[name], want.numpy(), rtol=1e-5, atol=1e-6)


@needs_extra
def test_batch_normalization_folds_into_the_layer_before():
    L = tf.keras.layers
    model = tf.keras.Sequential([tf.keras.Input((6, 6, 3)), L.Conv2D(4, 3), L.BatchNormalization(), L.ReLU(),
                                 L.DepthwiseConv2D(3), L.BatchNormalization(), L.Flatten(), L.Dense(3),
                                 L.BatchNormalization()])
    for layer in model.layers:
        if isinstance(layer, L.BatchNormalization):
            n = layer.moving_mean.shape[0]
            for v, lo in ((layer.moving_mean, -1), (layer.moving_variance, 0.5), (layer.gamma, 0.5), (layer.beta, -1)):
                v.assign(RNG.rand(n).astype(np.float32) + lo)
    content = tf.lite.TFLiteConverter.from_keras_model(model).convert()
    m, ops = parsed(content)
    assert ops == ["CONV_2D", "DEPTHWISE_CONV_2D", "RESHAPE", "FULLY_CONNECTED"]
    assert fused_activation(m, 0, "Conv2DOptions") == 1
    x = RNG.randn(2, 6, 6, 3).astype(np.float32)
    (got,) = run_signature(content, **{model.inputs[0]._creator: x}).values()
    np.testing.assert_allclose(got, model(x, training=False).numpy(), rtol=1e-5, atol=1e-6)


@needs_extra
def test_several_concrete_functions_are_signatures_named_after_them():
    class Model(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def encode(self, x):
            return {"encoded_result": x * 2.0}

        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def decode(self, x):
            return {"decoded_result": x / 2.0}

    model = Model()
    content = tf.lite.TFLiteConverter.from_concrete_functions(
        [model.encode.get_concrete_function(), model.decode.get_concrete_function()], model).convert()
    interp = tf.lite.Interpreter(model_content=content)
    assert interp.get_signature_list() == {"decode": {"inputs": ["x"], "outputs": ["decoded_result"]},
                                           "encode": {"inputs": ["x"], "outputs": ["encoded_result"]}}
    x = np.array([1.0, 3.0], np.float32)
    np.testing.assert_array_equal(interp.get_signature_runner("encode")(x=x)["encoded_result"], [2.0, 6.0])
    np.testing.assert_array_equal(interp.get_signature_runner("decode")(x=x)["decoded_result"], [0.5, 1.5])


@needs_extra
def test_image_classification_tutorials_tflite_cells(tmp_path):
    # tutorials/images/classification: augmentation layers (identity at inference) inside the model, the
    # file written and read back, the signature runner called with the inner Sequential's input name
    L = tf.keras.layers
    data_augmentation = tf.keras.Sequential([L.RandomFlip("horizontal", input_shape=(8, 8, 3)),
                                             L.RandomRotation(0.1), L.RandomZoom(0.1)])
    model = tf.keras.Sequential([data_augmentation, L.Rescaling(1. / 255),
                                 L.Conv2D(4, 3, padding="same", activation="relu"), L.MaxPooling2D(), L.Dropout(0.2),
                                 L.Flatten(), L.Dense(8, activation="relu"), L.Dense(5, name="outputs")])
    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    tflite_model = converter.convert()
    with open(tmp_path / "model.tflite", "wb") as f:
        f.write(tflite_model)
    interpreter = tf.lite.Interpreter(model_path=str(tmp_path / "model.tflite"))
    key = f"{data_augmentation.name}_input"
    assert interpreter.get_signature_list() == {"serving_default": {"inputs": [key], "outputs": ["outputs"]}}
    classify_lite = interpreter.get_signature_runner("serving_default")
    img_array = tf.expand_dims(RNG.rand(8, 8, 3).astype(np.float32) * 255, 0)
    predictions_lite = classify_lite(**{key: img_array})["outputs"]
    np.testing.assert_allclose(predictions_lite, model.predict(img_array, verbose=0), rtol=1e-5, atol=1e-6)


@needs_extra
def test_seed_guide_function_and_interpreter_tensor_api():
    # intro_01_tracing: outer_function(tf.constant([[1.0, 2.0]])) is array([[12.]], dtype=float32)
    def inner_function(x, y, b):
        x = tf.matmul(x, y)
        x = x + b
        return x

    @tf.function
    def outer_function(x):
        y = tf.constant([[2.0], [3.0]])
        b = tf.constant(4.0)
        return inner_function(x, y, b)

    cf = outer_function.get_concrete_function(tf.TensorSpec([1, 2], tf.float32))
    content = tf.lite.TFLiteConverter.from_concrete_functions([cf], outer_function).convert()
    interp = tf.lite.Interpreter(model_content=content)
    interp.allocate_tensors()
    (inp,), (out,) = interp.get_input_details(), interp.get_output_details()
    assert inp["name"] == "serving_default_x:0" and list(inp["shape"]) == [1, 2] and inp["dtype"] is np.float32
    assert list(out["shape"]) == [1, 1]
    interp.set_tensor(inp["index"], tf.constant([[1.0, 2.0]]))  # a rivulet tensor is accepted
    interp.invoke()
    np.testing.assert_array_equal(interp.get_tensor(out["index"]), np.array([[12.0]], np.float32))


L = tf.keras.layers
MORE_LAYERS = {
    "conv2d_transpose": lambda: [tf.keras.Input((5, 5, 3)), L.Conv2DTranspose(4, 3, strides=2, padding="same"),
                                 L.Conv2DTranspose(2, 3, activation="relu")],
    "conv1d": lambda: [tf.keras.Input((10, 3)), L.Conv1D(4, 3, activation="relu"), L.MaxPooling1D(),
                       L.GlobalAveragePooling1D()],
    "upsampling_resizing": lambda: [tf.keras.Input((4, 4, 2)), L.UpSampling2D(), L.UpSampling2D(interpolation="bilinear"),
                                    L.Resizing(6, 5), L.ZeroPadding2D(1), L.Cropping2D(1)],
    "dense_on_sequences": lambda: [tf.keras.Input((4, 6)), L.Dense(5), L.Softmax(axis=1), L.Dense(3)],
}


@needs_extra
@pytest.mark.parametrize("name", sorted(MORE_LAYERS))
def test_more_keras_layers(name):
    model = tf.keras.Sequential(MORE_LAYERS[name]())
    content = tf.lite.TFLiteConverter.from_keras_model(model).convert()
    x = RNG.randn(2, *model.inputs[0].shape[1:]).astype(np.float32)
    (got,) = run_signature(content, **{model.inputs[0]._creator: x}).values()
    np.testing.assert_allclose(got, model(x, training=False).numpy(), rtol=1e-5, atol=2e-6)


@needs_extra
def test_multi_head_attention_and_einsums_of_two_tensors():
    inp = tf.keras.Input((4, 8), name="tokens")
    model = tf.keras.Model(inp, tf.keras.layers.MultiHeadAttention(2, 4)(inp, inp))
    x = RNG.randn(3, 4, 8).astype(np.float32)
    (got,) = run_signature(tf.lite.TFLiteConverter.from_keras_model(model).convert(), tokens=x).values()
    np.testing.assert_allclose(got, model(x).numpy(), rtol=1e-5, atol=1e-6)

    @tf.function(input_signature=[tf.TensorSpec([None, 4, 3], tf.float32), tf.TensorSpec([None, 5, 3], tf.float32)])
    def f(q, k):
        return {"qk": tf.einsum("abc,adc->abd", q, k), "outer": tf.einsum("abc,ade->abcde", q, k[:, :, :2]),
                "transposed": tf.einsum("abc,adc->dba", q, k)}

    content = tf.lite.TFLiteConverter.from_concrete_functions([f.get_concrete_function()]).convert()
    q, k = RNG.randn(2, 4, 3).astype(np.float32), RNG.randn(2, 5, 3).astype(np.float32)
    got = run_signature(content, q=q, k=k)
    for name, want in f(q, k).items():
        np.testing.assert_allclose(got[name], want.numpy(), rtol=1e-5, atol=1e-6, err_msg=name)


@needs_extra
def test_scalars_argmax_stack_tile_unstack_cast():
    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32), tf.TensorSpec([], tf.float32)])
    def f(x, s):
        return {"scalar": s * 2.0 + 1.0, "argmax": tf.argmax(x, axis=1), "stack": tf.stack([x, x * 2.0], axis=1),
                "tile": tf.tile(x, [2, 1]), "unstack": tf.unstack(x, axis=1)[2], "cast": tf.cast(x * 3.0, tf.int32),
                "squeeze": tf.squeeze(x[:, :1], axis=1), "reduce_max": tf.reduce_max(x, axis=0),
                "einsum": tf.einsum("abc,cde->abde", tf.reshape(x, [-1, 1, 3]),
                                    tf.constant(np.arange(12, dtype=np.float32).reshape(3, 2, 2))),
                "einsum2": tf.einsum("abcd,cde->abe", tf.reshape(x, [-1, 1, 3, 1]),
                                     tf.constant(np.arange(6, dtype=np.float32).reshape(3, 1, 2)))}

    content = tf.lite.TFLiteConverter.from_concrete_functions([f.get_concrete_function()]).convert()
    x = RNG.randn(4, 3).astype(np.float32)
    got = run_signature(content, x=x, s=np.float32(1.5))
    for k, want in f(x, np.float32(1.5)).items():
        assert got[k].shape == tuple(want.shape) and got[k].dtype == want.dtype.as_numpy_dtype, k
        np.testing.assert_allclose(got[k], want.numpy(), rtol=1e-5, err_msg=k)
    assert got["scalar"].shape == () and got["scalar"] == 4.0


@needs_extra
def test_comparisons_selects_and_more_elementwise_ops():
    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32), tf.TensorSpec([None, 3], tf.float32)])
    def f(x, y):
        return {"broadcast_to": tf.broadcast_to(x[:1], [4, 3]), "cumsum": tf.math.cumsum(x, axis=1, exclusive=True),
                "where": tf.where(x > y, x, y), "add_n": tf.add_n([x, y, x]), "ceil": tf.math.ceil(x),
                "round": tf.round(x * 2.0), "sign": tf.sign(x), "floordiv": tf.math.floordiv(x, y),
                "floormod": tf.math.floormod(x, y), "gelu": tf.nn.gelu(x), "gelu_tanh": tf.nn.gelu(x, approximate=True),
                "silu": tf.nn.silu(x), "and": tf.logical_and(x > 0, y > 0), "not": tf.logical_not(x < y),
                "zeros_like": tf.zeros_like(x), "fill": tf.fill([2, 2], x[0, 0]), "reciprocal": tf.math.reciprocal(x),
                "equal": tf.equal(x, y), "not_equal": tf.not_equal(x, y), "less_equal": tf.less_equal(x, y)}

    content = tf.lite.TFLiteConverter.from_concrete_functions([f.get_concrete_function()]).convert()
    x, y = RNG.randn(2, 3).astype(np.float32), RNG.rand(2, 3).astype(np.float32) + 0.5
    x[0, 1] = 0.25  # round(0.5) is 0: half to even, in both
    got = run_signature(content, x=x, y=y)
    for name, want in f(x, y).items():
        assert got[name].dtype == want.dtype.as_numpy_dtype and got[name].shape == tuple(want.shape), name
        np.testing.assert_allclose(got[name], want.numpy(), rtol=1e-5, atol=1e-6, err_msg=name)


@needs_extra
def test_unary_math_reductions_and_the_rest():
    @tf.function(input_signature=[tf.TensorSpec([2, 4, 4, 3], tf.float32), tf.TensorSpec([2, 4, 4, 3], tf.float32)])
    def f(x, y):
        p = tf.abs(x) + 0.5
        return {"abs": tf.abs(x), "cos": tf.cos(x), "sin": tf.sin(x), "elu": tf.nn.elu(x), "exp": tf.exp(x),
                "log": tf.math.log(p), "neg": -x, "rsqrt": tf.math.rsqrt(p), "sqrt": tf.sqrt(p),
                "square": tf.square(x), "sqdiff": tf.math.squared_difference(x, y), "pow": tf.pow(p, y),
                "leaky": tf.nn.leaky_relu(x, 0.3), "log_softmax": tf.nn.log_softmax(x),
                "min": tf.reduce_min(x, axis=[1, 2]), "prod": tf.reduce_prod(y, axis=-1, keepdims=True),
                "argmin": tf.argmin(x, axis=3, output_type=tf.int32), "minimum": tf.minimum(x, y),
                "or": tf.logical_or(x >= 0.0, y < 0.0), "nearest": tf.image.resize(x, [6, 7], method="nearest"),
                "bilinear": tf.image.resize(x, [3, 5]), "batch_matmul": tf.matmul(x, y, transpose_b=True),
                "pool_same": tf.nn.max_pool2d(x, 3, 2, "SAME"), "avg_same": tf.nn.avg_pool2d(x, 3, 2, "SAME")}

    content = tf.lite.TFLiteConverter.from_concrete_functions([f.get_concrete_function()]).convert()
    x, y = RNG.randn(2, 4, 4, 3).astype(np.float32), RNG.randn(2, 4, 4, 3).astype(np.float32)
    got = run_signature(content, x=x, y=y)
    for name, want in f(x, y).items():
        assert got[name].dtype == want.dtype.as_numpy_dtype and got[name].shape == tuple(want.shape), name
        np.testing.assert_allclose(got[name], want.numpy(), rtol=1e-5, atol=1e-6, err_msg=name)


@needs_extra
def test_model_file_path_and_batch_resize(tmp_path):
    model = mlp()
    path = tmp_path / "m.tflite"
    path.write_bytes(tf.lite.TFLiteConverter.from_keras_model(model).convert())
    interp = tf.lite.Interpreter(model_path=path)
    inp = interp.get_input_details()[0]
    assert list(inp["shape_signature"]) == [-1, 6]  # the unknown batch dimension, as TensorFlow writes it
    interp.resize_tensor_input(inp["index"], [4, 6])
    interp.allocate_tensors()
    x = RNG.randn(4, 6).astype(np.float32)
    interp.set_tensor(inp["index"], x)
    interp.invoke()
    got = interp.get_tensor(interp.get_output_details()[0]["index"])
    np.testing.assert_allclose(got, model(x).numpy(), rtol=1e-5, atol=1e-7)


@needs_extra
def test_array_ops_function():
    @tf.function(input_signature=[tf.TensorSpec([2, 3], tf.float32), tf.TensorSpec([2, 3], tf.float32)])
    def f(x, y):
        a = tf.concat([x, y], axis=1)
        s = x * y - x / (y + 1.0) + 2.0
        return {
            "strided": tf.transpose(a)[1:5:2, ::-1],
            "slice": tf.slice(a, [0, 1], [2, 2]),
            "gather": tf.gather(a, [0, 2, 5], axis=1),
            "pad": tf.pad(x, [[1, 0], [0, 2]]),
            "pad3": tf.pad(x, [[1, 0], [0, 2]], constant_values=3.0),
            "mean": tf.reduce_mean(x, axis=1, keepdims=True),
            "act": tf.nn.relu6(s) + tf.sigmoid(s) + tf.nn.relu(s) + tf.tanh(s),
            "reshape": tf.reshape(x, [3, 2]),
            "index": x[tf.newaxis, ..., -1],
            "matmul": tf.matmul(x, y, transpose_b=True),
            "max": tf.maximum(0.0, x),
            "same": x,
        }

    content = tf.lite.TFLiteConverter.from_concrete_functions([f.get_concrete_function()]).convert()
    x, y = RNG.randn(2, 3).astype(np.float32), RNG.rand(2, 3).astype(np.float32)
    got = run_signature(content, x=x, y=y)
    want = f(x, y)
    assert sorted(got) == sorted(want)
    for k in want:
        np.testing.assert_allclose(got[k], want[k].numpy(), rtol=1e-5, atol=1e-6, err_msg=k)


@needs_extra
def test_rivulet_saved_model(tmp_path):
    class Net(tf.Module):
        def __init__(self):
            self.w = tf.Variable(RNG.randn(3, 2).astype(np.float32))

        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="inp")])
        def __call__(self, inp):
            return {"score": tf.nn.relu(tf.matmul(inp, self.w))}

    net = Net()
    tf.saved_model.save(net, str(tmp_path / "sm"))
    net.w.assign(np.zeros((3, 2), np.float32))  # the file holds the saved values
    content = tf.lite.TFLiteConverter.from_saved_model(str(tmp_path / "sm")).convert()
    x = RNG.randn(4, 3).astype(np.float32)
    got = run_signature(content, inp=x)
    loaded = tf.saved_model.load(str(tmp_path / "sm"))
    np.testing.assert_allclose(got["score"], loaded.signatures["serving_default"](inp=x)["score"].numpy(),
                               rtol=1e-5, atol=1e-7)
    with pytest.raises(ValueError, match="Invalid signature key 'nope'"):
        tf.lite.TFLiteConverter.from_saved_model(str(tmp_path / "sm"), signature_keys=["nope"])


# TensorFlow 2.21's converter writes these with the same builtins (the transposed convolution's output shape
# from the shape tf_keras fills zeros to; tf_keras' exact gelu, 0.5 * x * erfc(-x / sqrt(2)), as one GELU;
# MultiHeadAttention's reshapes to shapes computed at run time). Not here: rnn (tf_keras' LSTM/GRU loops over
# TensorLists of unknown element shapes, which TensorFlow's converter refuses too without SELECT_TF_OPS)
# and keywords (no signature).
TF_WRITTEN = {"keras_mlp": {"FULLY_CONNECTED", "SOFTMAX"}, "small_cnn": {"CONV_2D", "MAX_POOL_2D"},
              "control_flow": {"IF", "WHILE"}, "keras_functional": {"GELU", "GATHER", "CONCATENATION"},
              "keras_conv_ops": {"DEPTHWISE_CONV_2D", "TRANSPOSE_CONV", "RESIZE_NEAREST_NEIGHBOR"},
              "keras_attention": {"BATCH_MATMUL", "SOFTMAX"}, "two_signatures": {"LOGISTIC"}, "captures": {"MUL"}}


@needs_extra
@pytest.mark.parametrize("name", sorted(TF_WRITTEN))
def test_tensorflow_saved_models(name):
    pytest.importorskip("google.protobuf")
    path = os.path.join(TF_MODELS, name)
    io = np.load(path + ".io.npz")
    content = tf.lite.TFLiteConverter.from_saved_model(path, signature_keys=["serving_default"]).convert()
    assert TF_WRITTEN[name] <= set(all_ops(content))
    assert "TRANSPOSE_CONV" not in TF_WRITTEN[name] or "FILL" not in all_ops(content)
    got = run_signature(content, **{k[3:]: io[k] for k in io.files if k.startswith("in_") and "parse_" not in k})
    outs = [k for k in io.files if k.startswith("out_") and "parse_" not in k]
    assert outs and set(got) == {k[4:] for k in outs}
    for k in outs:  # TensorFlow's own outputs
        np.testing.assert_allclose(got[k[4:]], io[k], rtol=1e-5, atol=1e-6)


@needs_extra
def test_exact_gelu_pattern_and_reshapes_of_several_unknown_dimensions():
    @tf.function(input_signature=[tf.TensorSpec([None, None, 1], tf.float32)])
    def f(x):
        g = 0.5 * x * tf.math.erfc(-x * 0.7071067811865476)  # tf.nn.gelu(approximate=False) as TensorFlow traces it
        h = tf.expand_dims(tf.squeeze(g, axis=2), 1)
        return tf.reshape(h, tf.stack([tf.shape(x)[0], -1, tf.shape(x)[1]])) * 2.0

    content = tf.lite.TFLiteConverter.from_concrete_functions([f.get_concrete_function()]).convert()
    ops = all_ops(content)
    assert ops.count("GELU") == 1 and "SQUEEZE" in ops and "EXPAND_DIMS" in ops
    x = RNG.randn(3, 5, 1).astype(np.float32)
    runner = tf.lite.Interpreter(model_content=content).get_signature_runner()
    np.testing.assert_allclose(runner(x=x)["output_0"], f(x).numpy(), rtol=1e-5, atol=1e-6)


def _unsupported(x):
    return tf.math.lgamma(x) + 1.0


@needs_extra
def test_unsupported_op_names_the_op_and_the_users_line():
    f = tf.function(_unsupported, input_signature=[tf.TensorSpec([3], tf.float32)])
    conv = tf.lite.TFLiteConverter.from_concrete_functions([f.get_concrete_function()])
    with pytest.raises(tf.lite.ConverterError) as e:
        conv.convert()
    msg = str(e.value)
    assert "Lgamma 'Lgamma'" in msg and "no TensorFlow Lite builtin" in msg
    assert "test_tflite.py:" in msg and "(in _unsupported)" in msg
    (p,) = e.value.problems
    assert p.op_type == "Lgamma" and p.frame[2] == "_unsupported"

    # the same op on constants only (a frozen variable) is computed by the converter, as TensorFlow folds it
    v = tf.Variable([3.0, 4.0])
    g = tf.function(lambda x: x + tf.math.lgamma(v), input_signature=[tf.TensorSpec([2], tf.float32)])
    got = run_signature(tf.lite.TFLiteConverter.from_concrete_functions([g.get_concrete_function()]).convert(),
                        x=np.zeros(2, np.float32))["output_0"]
    np.testing.assert_allclose(got, [np.log(2.0), np.log(6.0)], rtol=1e-6)

    # every problem is listed, once each: here a string input and the op reading it
    f = tf.function(tf.strings.length, input_signature=[tf.TensorSpec([None], tf.string)])
    with pytest.raises(tf.lite.ConverterError) as e:
        tf.lite.TFLiteConverter.from_concrete_functions([f.get_concrete_function()]).convert()
    assert [(p.op_type, p.reason) for p in e.value.problems] == [
        ("Placeholder", "input dtype string has no TensorFlow Lite type"),
        ("StringLength", "no TensorFlow Lite builtin operator for it")]


@needs_extra
def test_a_variable_update_is_refused_not_dropped():
    v = tf.Variable(1.0)

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def f(x):
        v.assign_add(x)
        return x * 2.0

    with pytest.raises(tf.lite.ConverterError, match="AssignAddVariableOp .*changes state"):
        tf.lite.TFLiteConverter.from_concrete_functions([f.get_concrete_function()]).convert()


@needs_extra
def test_switch_case_and_select_tf_ops_are_not_implemented():
    @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
    def f(i):
        return tf.switch_case(i, [lambda: tf.constant(1.0), lambda: tf.constant(2.0), lambda: tf.constant(3.0)])

    with pytest.raises(NotImplementedError, match="control flow .*\n.*Case 'switch_case'"):
        tf.lite.TFLiteConverter.from_concrete_functions([f.get_concrete_function()]).convert()
    conv = tf.lite.TFLiteConverter.from_keras_model(mlp())
    conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS, tf.lite.OpsSet.SELECT_TF_OPS]
    with pytest.raises(NotImplementedError, match="SELECT_TF_OPS"):
        conv.convert()


def test_bad_arguments():
    with pytest.raises(ValueError, match="list of ConcreteFunction"):
        tf.lite.TFLiteConverter.from_concrete_functions([lambda x: x])

    class Sub(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = tf.keras.layers.Dense(2)

        def call(self, x):
            return self.dense(x)

    with pytest.raises(ValueError, match="input shape"):
        tf.lite.TFLiteConverter.from_keras_model(Sub())


@needs_extra
def test_keras_signature_names():
    L = tf.keras.layers
    a, b = tf.keras.Input((3,), name="a"), tf.keras.Input((2,), name="b")
    two = tf.keras.Model([a, b], L.Dense(1, name="y")(L.Concatenate()([a, b])))
    seq = tf.keras.Sequential([L.Dense(4), L.Dense(2, name="last")])
    seq(np.ones((1, 5), np.float32))  # built by a call: no Input layer

    class Sub(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = L.Dense(2)

        def call(self, x):
            return self.dense(x)

    sub = Sub()
    sub(np.ones((1, 5), np.float32))
    names = [tf.lite.Interpreter(model_content=tf.lite.TFLiteConverter.from_keras_model(m).convert())
             .get_signature_list()["serving_default"] for m in (two, seq, sub)]
    assert names == [{"inputs": ["a", "b"], "outputs": ["y"]}, {"inputs": [f"{seq.layers[0].name}_input"], "outputs": ["last"]},
                     {"inputs": ["input_1"], "outputs": ["output_1"]}]
    xa, xb = RNG.randn(2, 3).astype(np.float32), RNG.randn(2, 2).astype(np.float32)
    got = run_signature(tf.lite.TFLiteConverter.from_keras_model(two).convert(), a=xa, b=xb)["y"]
    np.testing.assert_allclose(got, two([xa, xb]).numpy(), rtol=1e-5, atol=1e-7)


def test_missing_packages_say_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "tflite.Model", None)
    f = tf.function(lambda x: x + 1.0, input_signature=[tf.TensorSpec([2], tf.float32)])
    with pytest.raises(ImportError, match=r"pip install 'rivulet\[tflite\]'"):
        tf.lite.TFLiteConverter.from_concrete_functions([f.get_concrete_function()]).convert()
    monkeypatch.setitem(sys.modules, "ai_edge_litert.interpreter", None)
    with pytest.raises(ImportError, match="ai-edge-litert"):
        tf.lite.Interpreter(model_content=b"")


@needs_extra
def test_interpreter_bad_model_errors():
    with pytest.raises(ValueError, match="not a valid Flatbuffer"):
        tf.lite.Interpreter(model_content=b"garbage" * 10)
    with pytest.raises(ValueError, match="Could not open"):
        tf.lite.Interpreter(model_path="/nonexistent/model.tflite")
    with pytest.raises(ValueError, match="must be specified"):
        tf.lite.Interpreter()
