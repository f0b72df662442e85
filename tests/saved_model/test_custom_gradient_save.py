"""tf.custom_gradient in saved models (guide/advanced_autodiff.ipynb, "Custom gradients in SavedModel"): the
gradient function is traced into a graph and saved as data; the loaded function's gradient is that graph's."""
import json
import os

import numpy as np
import pytest

import rivulet as tf


@tf.custom_gradient
def clip_gradients(y):
    def backward(dy):
        return tf.clip_by_norm(dy, 0.5)
    return y, backward


class MyModule(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec(None)])
    def call_custom_grad(self, x):
        return clip_gradients(x)


def _grad(loaded, make_input):
    v = tf.Variable(2.0)
    with tf.GradientTape() as t:
        output = loaded.call_custom_grad(make_input(v))
    return t.gradient(output, v)


def test_guide_cell_loaded_gradient_is_the_saved_one(tmp_path):
    d = str(tmp_path / "saved_model")
    tf.saved_model.save(MyModule(), d, options=tf.saved_model.SaveOptions(experimental_custom_gradients=True))
    loaded = tf.saved_model.load(d)
    # TF 2.21 prints tf.Tensor(2.0, shape=(), dtype=float32): "backward" clips 4 to 2
    assert _grad(loaded, lambda v: v * v).numpy() == 2.0
    # clip_by_norm of a [1, 1] upstream gradient to norm 0.5, times d(3v, 4v)/dv: TF 2.21 gives 2.4748735
    np.testing.assert_allclose(_grad(loaded, lambda v: tf.constant([3.0, 4.0]) * v).numpy(), 2.4748735, rtol=1e-6)
    assert float(loaded.call_custom_grad(tf.constant(3.0))) == 3.0
    # the file holds the gradient as a graph of ops (nothing to execute), referenced from the op's attr
    with open(os.path.join(d, "saved_model.json")) as f:
        meta = json.load(f)
    (node,) = [n for g in meta["graphs"].values() for n in g["nodes"] if n["op"] == "IdentityN"]
    key, mask = node["attrs"]["grad_fn"]["custom_gradient"]
    assert mask == [True] and "RealDiv" in {n["op"] for n in meta["graphs"][key]["nodes"]}


def test_second_order_through_the_saved_gradient(tmp_path):
    d = str(tmp_path / "m")
    tf.saved_model.save(MyModule(), d)  # experimental_custom_gradients defaults to True, as in TensorFlow
    loaded = tf.saved_model.load(d)
    v = tf.Variable(2.0)
    with tf.GradientTape() as t2:
        with tf.GradientTape() as t:
            output = loaded.call_custom_grad(v * v * v)
        g = t.gradient(output, v)
    assert g.numpy() == 6.0 and t2.gradient(g, v).numpy() == 6.0  # TF 2.21: 6.0 and 6.0


def test_saved_without_custom_gradients_has_no_gradient(tmp_path):
    d = str(tmp_path / "m")
    tf.saved_model.save(MyModule(), d, options=tf.saved_model.SaveOptions(experimental_custom_gradients=False))
    loaded = tf.saved_model.load(d)
    assert float(loaded.call_custom_grad(tf.constant(3.0))) == 3.0
    # TF 2.21 (loading in a fresh process): LookupError No gradient defined for operation'IdentityN' ...
    with pytest.raises(LookupError, match=r"No gradient defined for operation'IdentityN' \(op type: IdentityN\)"):
        _grad(loaded, lambda v: v * v)


def test_gradient_using_forward_tensors_and_variables(tmp_path):
    class M(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(3.0)

        @tf.function(input_signature=[tf.TensorSpec([None])])
        def log1pexp(self, x):
            @tf.custom_gradient
            def f(x):
                e = tf.exp(x)

                def grad(upstream):
                    return upstream * (1 - 1 / (1 + e))  # the forward value e, captured
                return tf.math.log(1 + e), grad
            return f(x)

        @tf.function(input_signature=[tf.TensorSpec([])])
        def scaled(self, x):
            @tf.custom_gradient
            def f(x):
                y = x * self.w

                def grad(dy, variables):
                    return dy * self.w * 10.0, [dy * x * 100.0]
                return y, grad
            return f(x)

    d = str(tmp_path / "m")
    tf.saved_model.save(M(), d)
    loaded = tf.saved_model.load(d)
    x = tf.constant([0.0, 100.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = loaded.log1pexp(x)
    np.testing.assert_allclose(t.gradient(y, x).numpy(), [0.5, 1.0])  # the stable gradient: no NaN at 100
    x = tf.constant(2.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = loaded.scaled(x)
    gx, gw = t.gradient(y, [x, loaded.w])
    assert gx.numpy() == 30.0 and gw.numpy() == 200.0

    @tf.function  # the loaded function called inside another traced function: tf.gradients there too
    def outer(x):
        return tf.gradients(loaded.scaled(x), x)[0]
    assert outer(tf.constant(2.0)).numpy() == 30.0


def test_gradient_that_cannot_be_traced_names_the_option(tmp_path):
    class M(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([])])
        def f(self, x):
            @tf.custom_gradient
            def g(x):
                def grad(dy):
                    return dy.numpy()  # eager-only: fails when traced
                return x, grad
            return g(x)
    with pytest.raises(ValueError, match=r"(?s)Error when tracing gradients for SavedModel.*"
                                         r"experimental_custom_gradients=False.*Problematic op name: IdentityN"):
        tf.saved_model.save(M(), str(tmp_path / "m"))
    tf.saved_model.save(M(), str(tmp_path / "m2"),
                        options=tf.saved_model.SaveOptions(experimental_custom_gradients=False))


def test_damaged_custom_gradient_is_refused(tmp_path):
    d = str(tmp_path / "m")
    tf.saved_model.save(MyModule(), d)
    path = os.path.join(d, "saved_model.json")
    with open(path) as f:
        meta = json.load(f)
    (node,) = [n for g in meta["graphs"].values() for n in g["nodes"] if n["op"] == "IdentityN"]
    for bad in ([node["attrs"]["grad_fn"]["custom_gradient"][0], [True, True]], ["g0", [True]],
                ["nope", [True]], [node["attrs"]["grad_fn"]["custom_gradient"][0], ["yes"]], "g1"):
        node["attrs"]["grad_fn"] = {"custom_gradient": bad}
        with open(path, "w") as f:
            json.dump(meta, f)
        with pytest.raises(tf.saved_model.SavedModelError):
            tf.saved_model.load(d)
