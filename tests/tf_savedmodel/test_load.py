"""tf.saved_model.load on SavedModels written by TensorFlow: outputs match TensorFlow's (rtol 1e-4)."""
import os

import numpy as np
import pytest

import rivulet as tf

from .conftest import MANIFEST, SERVING, fixture_dir, io, serving_inputs


@pytest.fixture(scope="module")
def loaded():
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = tf.saved_model.load(fixture_dir(name))
        return cache[name]
    return get


@pytest.mark.parametrize("name", SERVING)
def test_serving_default_matches_tensorflow(loaded, name):
    m = loaded(name)
    out = m.signatures["serving_default"](**{k: tf.constant(v) for k, v in serving_inputs(name).items()})
    want = io(name)
    assert sorted(out) == sorted(MANIFEST[name]["outputs"])
    for k, v in out.items():
        assert isinstance(v, tf.Tensor)
        np.testing.assert_allclose(v.numpy(), want[f"out_{k}"], rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("name", SERVING)
def test_signature_is_keyword_only_with_specs(loaded, name):
    cf = loaded(name).signatures["serving_default"]
    _, kwargs = cf.structured_input_signature
    assert sorted(kwargs) == sorted(MANIFEST[name]["inputs"])
    for k, spec in kwargs.items():
        assert isinstance(spec, tf.TensorSpec) and spec.name == k
        assert spec.dtype == tf.as_dtype(serving_inputs(name)[k].dtype)


def test_restored_module_function_and_variable(loaded):
    m = loaded("control_flow")
    x, n = (tf.constant(serving_inputs("control_flow")[k]) for k in ("x", "n"))
    np.testing.assert_allclose(m(x, n)["y"].numpy(), io("control_flow")["out_y"], rtol=1e-4)
    assert [cf.structured_input_signature[0] for cf in m.__call__.concrete_functions] == [
        (tf.TensorSpec([None, 3], tf.float32, name="x"), tf.TensorSpec([], tf.int32, name="n"))]
    assert isinstance(m.w, tf.Variable) and m.w.shape == (3, 3) and m.w.trainable
    assert list(m.trainable_variables) == [m.w]
    with pytest.raises(ValueError, match="Could not find matching concrete function"):
        m(tf.constant([[1, 2, 3]]), n)  # int32 x: no traced signature accepts it


def test_loaded_functions_read_variables_live():
    m = tf.saved_model.load(fixture_dir("control_flow"))  # its own copy: the variable is changed
    x, n = (tf.constant(serving_inputs("control_flow")[k]) for k in ("x", "n"))
    saved = m.w.numpy()
    m.w.assign(tf.zeros([3, 3]))
    np.testing.assert_array_equal(m(x, n)["y"].numpy(), np.zeros((4, 3), np.float32))
    m.w.assign(saved)
    np.testing.assert_allclose(m.signatures["serving_default"](x=x, n=n)["y"].numpy(), io("control_flow")["out_y"],
                               rtol=1e-4)


def test_keras_mlp_variables_are_tensorflows_weights(loaded):
    """A NumPy forward pass over the restored variables gives TensorFlow's outputs: the bundle keys were
    matched to the right variables."""
    m = loaded("keras_mlp")
    ws = {tuple(v.shape): v.numpy() for v in m.variables}
    x = serving_inputs("keras_mlp")["x"]
    assert sorted(ws) == [(4,), (8, 16), (16,), (16, 4)]
    k1, b1, k2, b2 = ws[(8, 16)], ws[(16,)], ws[(16, 4)], ws[(4,)]
    h = np.maximum(x @ k1 + b1, 0)
    z = h @ k2 + b2
    p = np.exp(z - z.max(-1, keepdims=True))
    np.testing.assert_allclose(p / p.sum(-1, keepdims=True), io("keras_mlp")["out_probs"], rtol=1e-4)


def test_keras_functional_training_call_updates_batch_norm_as_tensorflow():
    m = tf.saved_model.load(fixture_dir("keras_functional"))
    want = io("keras_functional")
    inputs = [tf.constant(want["in_tokens"]), tf.constant(want["in_features"])]
    np.testing.assert_allclose(m(inputs, training=False).numpy(), want["out_score"], rtol=1e-4, atol=1e-6)
    moving_mean = next(v for v in m.variables if "moving_mean" in v.name)
    before = moving_mean.numpy().copy()
    np.testing.assert_allclose(m(inputs, training=True).numpy(), want["train_out_score"], rtol=1e-4, atol=1e-6)
    assert not np.allclose(before, want["train_moving_mean"])
    np.testing.assert_allclose(moving_mean.numpy(), want["train_moving_mean"], rtol=1e-4, atol=1e-7)


def test_second_signature_with_string_input(loaded):
    m = loaded("two_signatures")
    assert sorted(m.signatures) == ["parse", "serving_default"]
    want = io("two_signatures")
    out = m.signatures["parse"](text=tf.constant(want["in_parse_text"]), k=tf.constant(want["in_parse_k"]))
    assert out["upper"].dtype == tf.string and out["length"].dtype == tf.int32
    assert out["upper"].numpy().tolist() == want["out_parse_upper"].tolist()
    np.testing.assert_array_equal(out["length"].numpy(), want["out_parse_length"])
    np.testing.assert_allclose(out["value"].numpy(), want["out_parse_value"], rtol=1e-6)
    np.testing.assert_allclose(m.predict(tf.constant(want["in_x"]))["y"].numpy(), want["out_y"], rtol=1e-4)


def test_gradients_through_a_loaded_signature():
    m = tf.saved_model.load(fixture_dir("small_cnn"))
    sig = m.signatures["serving_default"]
    x = tf.constant(serving_inputs("small_cnn")["images"][:1].astype(np.float64).astype(np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(sig(images=x)["logits"] ** 2)
    gx, *gv = tape.gradient(y, [x] + list(m.trainable_variables))
    assert all(g is not None and g.shape == v.shape for g, v in zip(gv, m.trainable_variables))
    # central differences on a few pixels (float32 model: loose tolerance)
    xv = x.numpy()
    for idx in [(0, 3, 4, 0), (0, 7, 2, 1), (0, 10, 10, 0)]:
        d = np.zeros_like(xv)
        d[idx] = 1e-2
        f = [float(tf.reduce_sum(sig(images=tf.constant(xv + s * d))["logits"] ** 2)) for s in (1, -1)]
        assert abs((f[0] - f[1]) / 2e-2 - gx.numpy()[idx]) <= 2e-2 * max(1.0, abs(gx.numpy()[idx]))


def test_jit_compile_wrapping_a_loaded_function(loaded):
    sig = loaded("keras_mlp").signatures["serving_default"]
    f = tf.function(lambda x: sig(x=x)["probs"], jit_compile=True)
    np.testing.assert_allclose(f(tf.constant(serving_inputs("keras_mlp")["x"])).numpy(),
                               io("keras_mlp")["out_probs"], rtol=1e-4)


def test_functions_are_traced_on_first_use_only(loaded):
    """Loading traces only the signatures; a Keras model's other saved functions wait until called."""
    m = tf.saved_model.load(fixture_dir("keras_functional"))
    lazy = [cf for cf in m.call_and_return_all_conditional_losses.concrete_functions]
    assert all("_build" in vars(cf) for cf in lazy)
    assert "_build" not in vars(m.signatures["serving_default"])
    assert lazy[0].structured_input_signature  # first use traces it
    assert "_build" not in vars(lazy[0])


def test_concurrent_first_calls_trace_once():
    """Threads racing to make the first call of a not-yet-traced function all get the right answer."""
    from concurrent.futures import ThreadPoolExecutor
    m = tf.saved_model.load(fixture_dir("keras_functional"))
    want = io("keras_functional")
    inputs = [tf.constant(want["in_tokens"]), tf.constant(want["in_features"])]
    fn = m.call_and_return_all_conditional_losses
    assert all("_build" in vars(cf) for cf in fn.concrete_functions)
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda _: fn(inputs, training=False)[0].numpy(), range(16)))
    for r in results:
        np.testing.assert_allclose(r, want["out_score"], rtol=1e-4, atol=1e-6)
    assert all("_build" in vars(cf) for cf in m.__call__.concrete_functions)  # other functions: still untraced


def test_captured_constants_and_variable_lists(loaded):
    m = loaded("captures")
    assert not hasattr(m, "scale")  # a tensor attribute is not a saved object (TensorFlow: the same)
    assert isinstance(m.table, list) and [float(v.numpy()) for v in m.table] == [1.5, -1.0]
    x = serving_inputs("captures")["x"]
    np.testing.assert_allclose(m(tf.constant(x))["z"].numpy(), io("captures")["out_z"], rtol=1e-6)


def test_cudnn_variants_in_the_library_do_not_stop_an_lstm_from_serving(loaded):
    """Keras saves an LSTM's cuDNN implementation beside the standard one; serving calls the standard one,
    so the model loads and runs although rivulet has no CudnnRNNV3."""
    from rivulet.saved_model.tf_import import proto
    with open(os.path.join(fixture_dir("rnn"), "saved_model.pb"), "rb") as f:
        library = proto.read_saved_model(f.read()).meta_graphs[0].graph_def.library
    assert any(n.op == "CudnnRNNV3" for fn in library.function for n in fn.node_def)
    out = loaded("rnn").signatures["serving_default"](seq=tf.constant(serving_inputs("rnn")["seq"]))
    np.testing.assert_allclose(out["out"].numpy(), io("rnn")["out_out"], rtol=1e-4, atol=1e-6)


def test_resaved_in_rivulets_format(loaded, tmp_path):
    """A TensorFlow SavedModel loaded by rivulet saves in rivulet's own format and loads back the same."""
    m = loaded("small_cnn")
    tf.saved_model.save(m, str(tmp_path / "cnn"), signatures=m.signatures["serving_default"])
    assert not (tmp_path / "cnn" / "saved_model.pb").exists()
    again = tf.saved_model.load(str(tmp_path / "cnn"))
    out = again.signatures["serving_default"](images=tf.constant(serving_inputs("small_cnn")["images"]))
    np.testing.assert_allclose(out["logits"].numpy(), io("small_cnn")["out_logits"], rtol=1e-4, atol=1e-6)


def test_keyword_only_arguments_and_literal_options(loaded):
    """A function traced for two keyword-argument combinations dispatches on the Python values and tensors."""
    m = loaded("keywords")
    want = io("keywords")
    x, shift = tf.constant(want["in_x"]), tf.constant(want["in_shift"])
    np.testing.assert_allclose(m.f(x, scale=3.0).numpy(), want["out_scale3"])
    np.testing.assert_allclose(m.f(x, scale=0.5, shift=shift).numpy(), want["out_shifted"])
    assert not m.signatures
    with pytest.raises(ValueError, match="Could not find matching concrete function"):
        m.f(x, scale=4.0)  # never traced for 4.0
