"""Saved functions traced for RaggedTensorSpec / SparseTensorSpec arguments (TensorFlow's ragged_tensor guide
saves `grow` so), their composite results, and files whose composite specs are damaged or hostile."""
import json
import os

import numpy as np
import pytest

import rivulet as tf
from rivulet.saved_model import SavedModelError


class CustomModule(tf.Module):
    def __init__(self, variable_value):
        super().__init__()
        self.v = tf.Variable(variable_value)

    @tf.function
    def grow(self, x):
        return x * self.v


@pytest.fixture
def saved(tmp_path):
    module = CustomModule(100.0)
    module.grow.get_concrete_function(tf.RaggedTensorSpec(shape=[None, None], dtype=tf.float32))
    module.grow.get_concrete_function(tf.SparseTensorSpec(shape=[None, 3], dtype=tf.float32))
    path = str(tmp_path / "m")
    tf.saved_model.save(module, path)
    return path


def test_ragged_guide_cell(saved):
    out = tf.saved_model.load(saved).grow(tf.ragged.constant([[1.0, 4.0, 3.0], [2.0]]))
    assert repr(out) == "<tf.RaggedTensor [[100.0, 400.0, 300.0], [200.0]]>"  # the guide's output


def test_sparse_argument_and_result(saved):
    out = tf.saved_model.load(saved).grow(tf.sparse.from_dense(tf.constant([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]])))
    assert isinstance(out, tf.SparseTensor)
    np.testing.assert_array_equal(tf.sparse.to_dense(out).numpy(), [[100.0, 0.0, 200.0], [0.0, 300.0, 0.0]])


def test_input_signature_and_mismatch(tmp_path):
    class M(tf.Module):
        @tf.function(input_signature=[tf.RaggedTensorSpec(shape=[None, None, None], dtype=tf.int32, ragged_rank=2)])
        def double(self, rt):
            return rt * 2

    tf.saved_model.save(M(), str(tmp_path))
    loaded = tf.saved_model.load(str(tmp_path))
    rt = tf.ragged.constant([[[1, 2], [3]], [[4, 5, 6]]])
    assert loaded.double(rt).to_list() == [[[2, 4], [6]], [[8, 10, 12]]]
    with pytest.raises(ValueError, match="Could not find matching concrete function"):
        loaded.double(tf.ragged.constant([[1.0]]))  # float32, ragged_rank 1
    with pytest.raises(ValueError, match="Could not find matching concrete function"):
        loaded.double(tf.constant([[[1]]]))  # a dense tensor is not a RaggedTensor


def _edited(saved, fn):
    path = os.path.join(saved, "saved_model.json")
    meta = json.load(open(path))
    fn(meta["concrete_functions"][0])
    json.dump(meta, open(path, "w"))
    return saved


@pytest.mark.parametrize("edit,problem", [
    (lambda e: e["arg_types"]["tuple"][0]["ragged_spec"].__setitem__(2, 5), "bad ragged_rank 5"),
    (lambda e: e["arg_types"]["tuple"][0]["ragged_spec"].__setitem__(2, True), "bad ragged_rank True"),
    (lambda e: e["arg_types"]["tuple"][0]["ragged_spec"].__setitem__(1, "resource"), "cannot hold resource"),
    (lambda e: e["arg_types"]["tuple"][0]["ragged_spec"].__setitem__(1, "object"), "unknown dtype"),
    (lambda e: e["arg_types"]["tuple"][0]["ragged_spec"].pop(), "bad ragged_spec"),
    (lambda e: e["arg_types"]["tuple"][0]["ragged_spec"].__setitem__(3, [None] * 300), "shape of rank 300"),
    (lambda e: e["arg_types"]["tuple"][0]["ragged_spec"].__setitem__(1, "int64"), "fed TensorSpec"),  # != graph
    (lambda e: e["structured_outputs"]["composite"][1].pop(), "bad composite"),
    (lambda e: e["structured_outputs"]["composite"][1].__setitem__(1, {"strings": {"shape": [1], "items": ["YQ=="]}}),
     "must be graph outputs"),
    (lambda e: e["structured_outputs"]["composite"][1].reverse(), "must be graph outputs"),
    (lambda e: e["structured_outputs"]["composite"].__setitem__(0, {"spec": [[None], "float32", None]}),
     "needs a composite spec"),
    (lambda e: e["structured_outputs"]["composite"].__setitem__(0, {"sparse_spec": [[None, 3], "float32"]}),
     "bad composite: expected a list of 3"),
], ids=["rank-too-big", "rank-bool", "resource", "bad-dtype", "short", "deep-flat", "wrong-dtype", "few-comps",
        "stored-tensor", "swapped", "dense-spec", "sparse-for-ragged"])
def test_hostile_composite_specs(saved, edit, problem):
    _edited(saved, edit)
    with pytest.raises(SavedModelError) as e:
        tf.saved_model.load(saved)
    assert problem in str(e.value), str(e.value)


def test_signature_of_a_ragged_function(tmp_path):
    """As TensorFlow 2.21: the signature takes the flat component tensors (x, x_1) and returns the
    RaggedTensor; saved_model_cli shows the composite output as DT_INVALID and the argument by its spec."""
    from rivulet.cli.saved_model import show_text

    class M(tf.Module):
        def __init__(self):
            self.v = tf.Variable(100.0)

        @tf.function(input_signature=[tf.RaggedTensorSpec(shape=[None, None], dtype=tf.float32)])
        def grow(self, x):
            return x * self.v

    m = M()
    tf.saved_model.save(m, str(tmp_path), signatures=m.grow)
    loaded = tf.saved_model.load(str(tmp_path))
    sig = loaded.signatures["serving_default"]
    assert sorted(sig.structured_input_signature[1]) == ["x", "x_1"]
    out = sig(x=tf.constant([1.0, 4.0, 3.0, 2.0]), x_1=tf.constant([0, 3, 4], tf.int64))
    assert list(out) == ["output_0"] and repr(out["output_0"]) == "<tf.RaggedTensor [[100.0, 400.0, 300.0], [200.0]]>"
    text = show_text(loaded)
    assert "    outputs['output_0'] tensor_info:\n        dtype: DT_INVALID\n        shape: ()\n        name: \n" in text
    assert ("        Argument #1\n          DType: RaggedTensorSpec\n          Value: RaggedTensorSpec(TensorShape("
            "[None, None]), tf.float32, 1, tf.int64)") in text
    # without `signatures`, the one function with an input_signature serves by default, as in TensorFlow
    tf.saved_model.save(m, str(tmp_path / "default"))
    assert list(tf.saved_model.load(str(tmp_path / "default")).signatures) == ["serving_default"]
