"""A ConcreteFunction call that does not bind to its structured signature is tried against the flat one (the
tensor parameters alone), as in TensorFlow 2.21 (guide/function.ipynb: `double_strings(tf.constant(1))`,
and a function traced for a Python object called without it). Messages recorded from TF 2.21."""
import pytest

import rivulet as tf


def _double():
    @tf.function
    def double(a):
        return a + a
    return double


def test_tensor_of_another_dtype_is_invalid_argument_as_in_tensorflow():
    cf = _double().get_concrete_function(tf.TensorSpec(shape=[], dtype=tf.string))
    # TF 2.21: InvalidArgumentError 'cannot compute __inference_double_5 as input #0(zero-based) was
    # expected to be a string tensor but is a int32 tensor [Op:__inference_double_5]'
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^cannot compute __inference_double\w* as input #0\(zero-based\) was expected to be "
                             r"a string tensor but is a int32 tensor \[Op:__inference_double\w*\]$"):
        cf(tf.constant(1))
    with pytest.raises(tf.errors.InvalidArgumentError, match="string tensor but is a float tensor"):
        cf(tf.constant(1.0))
    with pytest.raises(tf.errors.InvalidArgumentError, match="string tensor but is a int32 tensor"):
        cf(a=tf.constant(1))
    assert cf(tf.constant("c")).numpy() == b"cc"


def test_python_value_that_cannot_convert_is_type_error_naming_both_bindings():
    cf = _double().get_concrete_function(tf.TensorSpec(shape=[], dtype=tf.string))
    with pytest.raises(TypeError, match=r"(?s)Cannot convert 1 to EagerTensor of dtype string.*Fallback to flat "
                                        r"signature also failed due to: double\(a\): expected argument "
                                        r"#0\(zero-based\) to be a Tensor; got int \(1\)"):
        cf(1)
    with pytest.raises(TypeError, match=r"Fallback to flat signature also failed due to: double\(a\) takes 1 "
                                        r"positional arguments, got 2"):
        cf(tf.constant("a"), tf.constant("b"))
    with pytest.raises(TypeError, match=r"double\(a\) missing required arguments: a"):
        cf()


def test_flat_signature_checks_dtype_before_running():
    cf = _double().get_concrete_function(tf.TensorSpec(shape=[None], dtype=tf.float32))
    with pytest.raises(tf.errors.InvalidArgumentError, match="float tensor but is a int32 tensor"):
        cf(tf.constant([1, 2]))
    assert cf([1.0, 2.0]).numpy().tolist() == [2.0, 4.0]


class SimpleModel(tf.Module):
    def __init__(self):
        self.bias = 0.
        self.weight = 2.


def test_function_traced_for_an_object_is_called_with_its_tensors_only():
    # guide/function.ipynb, "Depending on Python global and free variables": TF 2.21 prints 20.0, then 25.0
    def evaluate(model, x):
        return model.weight * x + model.bias
    x = tf.constant(10.)
    new_model = SimpleModel()
    evaluate_no_bias = tf.function(evaluate).get_concrete_function(new_model, x)
    assert float(evaluate_no_bias(x)) == 20.0
    new_model.bias += 5.0
    evaluate_with_bias = tf.function(evaluate).get_concrete_function(new_model, x)
    assert float(evaluate_with_bias(x)) == 25.0
    assert float(evaluate_with_bias(x=x)) == 25.0
    assert float(evaluate_with_bias(new_model, x)) == 25.0
    assert float(evaluate_no_bias(x)) == 20.0  # the first graph holds the bias it was traced with
    with pytest.raises(TypeError, match=r"Fallback to flat signature also failed due to: evaluate\(x\) takes 1 "
                                        r"positional arguments, got 2"):
        evaluate_with_bias(SimpleModel(), x)


def test_containers_have_no_flat_signature():
    cf = tf.function(lambda v: v).get_concrete_function({"b": tf.constant(1), "a": tf.constant(2.0)})
    with pytest.raises(TypeError, match="Binding inputs"):
        cf({"b": tf.constant(1)})
    with pytest.raises(TypeError, match="Binding inputs"):
        cf(tf.constant(1))
