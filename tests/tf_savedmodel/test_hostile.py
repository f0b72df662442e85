"""Broken and hostile TensorFlow SavedModels give documented errors: SavedModelError (a DataLossError)
naming the file, NotFoundError for an op rivulet lacks. Nothing in the files is executed."""
import os
import random
import sys

import numpy as np
import pytest

import rivulet as tf
from rivulet.saved_model import SavedModelError
from rivulet.saved_model.tf_import import proto

from .conftest import fixture_dir, serving_inputs


def _read(d):
    with open(os.path.join(d, "saved_model.pb"), "rb") as f:
        return proto.read_saved_model(f.read())


def _write(d, sm):
    with open(os.path.join(d, "saved_model.pb"), "wb") as f:
        f.write(sm.SerializeToString())


def _nodes(sm, op):
    """Every node of type `op` in the function library."""
    return [n for f in sm.meta_graphs[0].graph_def.library.function for n in f.node_def if n.op == op]


def _function(sm, prefix):
    return next(f for f in sm.meta_graphs[0].graph_def.library.function if f.signature.name.startswith(prefix))


def _load_and_call(d, name="keras_mlp"):
    m = tf.saved_model.load(d)
    return m.signatures["serving_default"](**{k: tf.constant(v) for k, v in serving_inputs(name).items()})


@pytest.mark.parametrize("content", [b"", b"\x00" * 7, b"not a protocol buffer at all \xff\xfe", None])
def test_garbage_or_truncated_saved_model_pb(copy_of, content):
    d = copy_of("keras_mlp")
    path = os.path.join(d, "saved_model.pb")
    if content is None:  # truncated in the middle
        with open(path, "rb") as f:
            content = f.read()[:5000]
    with open(path, "wb") as f:
        f.write(content)
    with pytest.raises(SavedModelError) as e:
        tf.saved_model.load(d)
    assert isinstance(e.value, tf.errors.DataLossError) and e.value.path.endswith("saved_model.pb")


@pytest.mark.parametrize("victim", ["variables.index", "variables.data-00000-of-00001"])
def test_missing_or_corrupted_variables(copy_of, victim):
    d = copy_of("keras_mlp")
    path = os.path.join(d, "variables", victim)
    os.remove(path)
    with pytest.raises(SavedModelError, match="variables"):
        tf.saved_model.load(d)
    d = copy_of("control_flow")
    path = os.path.join(d, "variables", victim)
    with open(path, "rb") as f:
        data = bytearray(f.read())
    data[len(data) // 2] ^= 0xFF
    with open(path, "wb") as f:
        f.write(bytes(data))
    with pytest.raises(SavedModelError, match="variables"):
        tf.saved_model.load(d)


def test_random_byte_flips_never_escape_as_internal_errors(copy_of):
    """Flipped bytes anywhere in saved_model.pb: the model loads and runs, or a tf.errors error is raised."""
    d = copy_of("control_flow")
    path = os.path.join(d, "saved_model.pb")
    with open(path, "rb") as f:
        data = f.read()
    x, n = (tf.constant(serving_inputs("control_flow")[k]) for k in ("x", "n"))
    for seed in range(25):
        r = random.Random(seed)
        b = bytearray(data)
        for _ in range(r.randint(1, 4)):
            b[r.randrange(len(b))] = r.randrange(256)
        with open(path, "wb") as f:
            f.write(bytes(b))
        try:
            tf.saved_model.load(d).signatures["serving_default"](x=x, n=n)
        except tf.errors.OpError:
            pass


def test_an_op_rivulet_lacks_is_named_with_its_function(copy_of):
    d = copy_of("keras_mlp")
    sm = _read(d)
    for n in _nodes(sm, "MatMul"):
        n.op = "FancyMatMul"
    _write(d, sm)
    with pytest.raises(tf.errors.NotFoundError, match=r"Op type not registered 'FancyMatMul'.*node '[^']*' in "
                                                      r"function '__inference_"):
        tf.saved_model.load(d)


def test_an_op_rivulet_lacks_outside_the_serving_path_is_reported_when_used(copy_of):
    """A Keras model's other saved functions (training-mode calls ...) are checked when first traced."""
    d = copy_of("keras_mlp")
    sm = _read(d)
    f = _function(sm, "__inference_dense_layer_call_and_return_conditional_losses")
    next(n for n in f.node_def if n.op == "MatMul").op = "FancyMatMul"
    _write(d, sm)
    m = tf.saved_model.load(d)
    np.testing.assert_allclose(_load_and_call(d)["probs"].numpy(),
                               np.load(fixture_dir("keras_mlp") + ".io.npz")["out_probs"], rtol=1e-4)
    from rivulet.saved_model.restore import RestoredFunction, _UserObject
    stack, broken = [m], None
    while stack and broken is None:
        o = stack.pop()
        for v in vars(o).values() if isinstance(o, _UserObject) else ():
            if isinstance(v, RestoredFunction) and any(cf._function_name == f.signature.name
                                                       for cf in v.concrete_functions):
                broken = next(cf for cf in v.concrete_functions if cf._function_name == f.signature.name)
            elif isinstance(v, _UserObject):
                stack.append(v)
    assert broken is not None
    for _ in range(2):  # and again on the next use
        with pytest.raises(tf.errors.NotFoundError, match=f"'FancyMatMul'.*in function '{f.signature.name}'"):
            broken.structured_input_signature


def test_a_function_that_calls_itself(copy_of):
    d = copy_of("keras_mlp")
    sm = _read(d)
    f = _function(sm, "__inference_signature_wrapper")
    call = next(n for n in f.node_def if n.op == "StatefulPartitionedCall")
    call.attr["f"].func.name = f.signature.name
    _write(d, sm)
    with pytest.raises(SavedModelError, match=f"function '{f.signature.name}' calls itself"):
        tf.saved_model.load(d)


def _edit_const(d, edit):
    sm = _read(d)
    edit(next(n for n in _function(sm, "cond_true").node_def if n.op == "Const").attr["value"].tensor)
    _write(d, sm)


def test_huge_or_inconsistent_constants(copy_of):
    d = copy_of("control_flow")
    _edit_const(d, lambda t: setattr(t.tensor_shape.dim.add(), "size", 1 << 40))
    with pytest.raises(SavedModelError, match="elements is more than"):
        _load_and_call(d, "control_flow")

    def wrong_size(t):
        del t.tensor_shape.dim[:]
        t.tensor_shape.dim.add().size = 3
        t.tensor_content = b"\x00" * 5
    _edit_const(d, wrong_size)
    with pytest.raises(SavedModelError, match="5 bytes of content for 3 float32 values"):
        _load_and_call(d, "control_flow")


def test_a_constant_of_another_dtype_than_its_node_is_refused(copy_of):
    """A Const whose tensor is uint64 while its dtype attr says float32 loaded and ran (the value read from the
    wrong field, silently); TensorFlow refuses it with InvalidArgumentError."""
    d = copy_of("control_flow")
    sm = _read(d)
    consts = [n for n in _nodes(sm, "Const") if n.attr["dtype"].type == 1]
    assert consts
    for n in consts:
        n.attr["value"].tensor.dtype = 23
    _write(d, sm)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"saved_model.pb: node '[^']+' \(Const\) in function "
                                                             r"'[^']+': type mismatch between value \(uint64\) and "
                                                             r"dtype \(float32\)") as e:
        _load_and_call(d, "control_flow")
    assert isinstance(e.value, SavedModelError)  # and still the loader's error for a bad file
    d = copy_of("captures")  # a constant the object graph holds (a captured tensor)
    sm = _read(d)
    const = next(n for n in sm.meta_graphs[0].graph_def.node if n.op == "Const" and n.attr["dtype"].type == 1)
    const.attr["value"].tensor.dtype = 3  # int32: as many bytes as the float32 content
    _write(d, sm)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"constant 'Const'.*mismatch between value \(int32\)"):
        tf.saved_model.load(d)


@pytest.mark.parametrize("args", ["input_arg", "output_arg"])
def test_a_function_called_with_or_returning_other_types_than_declared(copy_of, args):
    """A signature's declared types were not compared with the values: the model ran as if they agreed.
    TensorFlow refuses the call (InvalidArgumentError)."""
    d = copy_of("keras_mlp")
    sm = _read(d)
    f = _function(sm, "__inference___call__")
    getattr(f.signature, args)[0].type = 3  # int32 where the function takes and returns float32
    _write(d, sm)
    with pytest.raises(tf.errors.InvalidArgumentError, match=f"function '{f.signature.name}': "
                                                             f"(argument|output) '[^']+' is declared int32 but is "
                                                             f"float32"):
        _load_and_call(d)


@pytest.mark.parametrize("key,where", [("Tin", "inputs"), ("Tout", "outputs")])
def test_an_if_whose_declared_types_disagree(copy_of, key, where):
    """An If's Tin/Tout were not compared with its values (TensorFlow: InvalidArgumentError)."""
    d = copy_of("control_flow")
    sm = _read(d)
    node = _nodes(sm, "StatelessIf")[0]
    node.attr[key].list.type[0] = 9  # int64
    ops = sm.meta_graphs[0].meta_info_def.stripped_op_list.op  # (with its OpDef, that check comes first)
    del ops[next(i for i, op in enumerate(ops) if op.name == "StatelessIf")]
    _write(d, sm)
    with pytest.raises(tf.errors.InvalidArgumentError, match=f"the {where} of an If are .* but attr '{key}' says "
                                                             r"\['int64'"):
        _load_and_call(d, "control_flow")


def test_tensor_list_ops_take_lists_of_their_element_dtype(copy_of):
    """Found by fuzzing: a TensorList op given a float tensor for its list raised AttributeError when run; an
    item of another dtype than the node's element_dtype was stored as it was."""
    d = copy_of("control_flow")
    sm = _read(d)
    _nodes(sm, "Tanh")[0].op = "TensorListLength"
    _write(d, sm)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"given float32 where a TensorList \(variant\) goes"):
        _load_and_call(d, "control_flow")
    d = copy_of("rnn")
    sm = _read(d)
    for n in _nodes(sm, "TensorListSetItem"):  # (an op the file's OpDefs leave out)
        n.attr["element_dtype"].type = 2  # float64 for float32 items
    _write(d, sm)
    with pytest.raises(tf.errors.InvalidArgumentError, match="a TensorList of float64 is given float32"):
        _load_and_call(d, "rnn")


def _edit_nodes(d, op, edit):
    sm = _read(d)
    for node in _nodes(sm, op):
        edit(node)
    _write(d, sm)


@pytest.mark.parametrize("op,edit,message", [
    ("MatMul", lambda n: setattr(n.attr["transpose_a"], "i", 3), "attr 'transpose_a' should be a bool, got 3"),
    ("MatMul", lambda n: setattr(n.attr["T"], "type", 3), "input 0 .'a'. is float32 where the op takes int32"),
    ("MatMul", lambda n: n.attr.pop("T"), "attr 'T' is missing"),
    ("MatMul", lambda n: n.input.append(n.input[0]), "3 inputs where the op takes 2"),
    ("MatMul", lambda n: setattr(n.attr["T"], "type", 10), "attr 'T' cannot be bool"),
    ("BiasAdd", lambda n: setattr(n.attr["data_format"], "s", b"NCW"), "attr 'data_format' cannot be b'NCW'"),
])
def test_nodes_are_checked_against_their_op_defs(copy_of, op, edit, message):
    """The OpDefs the file lists say what each node's attrs and inputs are: a bool attr given an int was
    read as True, a dtype attr that disagrees with the inputs (or is missing) was ignored, an extra input
    was dropped. TensorFlow refuses such nodes (InvalidArgumentError)."""
    d = copy_of("keras_mlp")
    _edit_nodes(d, op, edit)
    with pytest.raises(tf.errors.InvalidArgumentError, match=f"node '[^']+' \\({op}\\) in function '[^']+': "
                                                             f"{message}"):
        _load_and_call(d)


def test_bad_references(copy_of):
    d = copy_of("keras_mlp")
    sm = _read(d)
    for node in _nodes(sm, "BiasAdd"):
        node.input[0] = "NoSuchNode:product:0"
    _write(d, sm)
    with pytest.raises(SavedModelError, match="bad input reference 'NoSuchNode:product:0'"):
        _load_and_call(d)
    d = copy_of("keras_mlp")
    sm = _read(d)
    sm.meta_graphs[0].object_graph_def.nodes[0].children[0].node_id = 10_000
    _write(d, sm)
    with pytest.raises(SavedModelError, match="bad object reference 10000"):
        tf.saved_model.load(d)


def test_signatures_that_are_not_a_map_of_functions(copy_of):
    """Found by fuzzing: a root whose 'signatures' is a plain object raised AttributeError; a signature that
    is a variable (or a tf.function, not one concrete function) loaded, to fail when called."""
    def edit(change):
        d = copy_of("keras_mlp")
        sm = _read(d)
        nodes = sm.meta_graphs[0].object_graph_def.nodes
        sig_map = nodes[next(c.node_id for c in nodes[0].children if c.local_name == "signatures")]
        change(nodes, sig_map)
        _write(d, sm)
        return d
    d = edit(lambda nodes, sig_map: setattr(sig_map.user_object, "identifier", "_generic_user_object"))
    with pytest.raises(SavedModelError, match="the root's 'signatures' is not a signature map"):
        tf.saved_model.load(d)
    for kind in ("variable", "function"):
        d = edit(lambda nodes, sig_map: setattr(sig_map.children[0], "node_id", next(
            i for i, n in enumerate(nodes) if n.WhichOneof("kind") == kind)))
        with pytest.raises(SavedModelError, match="signature 'serving_default' is not a concrete function"):
            tf.saved_model.load(d)


def test_a_function_that_captures_itself(copy_of):
    """Found by fuzzing: a serving function whose bound inputs name its own object deadlocked the load (its
    lazy tracing asked itself for an attribute while holding its lock)."""
    import threading
    d = copy_of("captures")
    sm = _read(d)
    og = sm.meta_graphs[0].object_graph_def
    serving = next(i for i, n in enumerate(og.nodes) if n.WhichOneof("kind") == "bare_concrete_function" and
                   n.bare_concrete_function.concrete_function_name.startswith("__inference_signature_wrapper"))
    og.concrete_functions[og.nodes[serving].bare_concrete_function.concrete_function_name].bound_inputs[1] = serving
    _write(d, sm)
    errors = []

    def load():
        try:
            tf.saved_model.load(d)
        except Exception as e:  # noqa: BLE001 - checked below
            errors.append(e)
    t = threading.Thread(target=load, daemon=True)
    t.start()
    t.join(20)
    assert not t.is_alive(), "the load hangs"
    assert len(errors) == 1 and isinstance(errors[0], SavedModelError)
    assert f"captures object {serving}, which is not a variable or constant" in str(errors[0])


def test_shape_rules_refuse_hostile_attrs(copy_of):
    d = copy_of("small_cnn")
    sm = _read(d)
    for n in _nodes(sm, "Conv2D"):
        del n.attr["strides"].list.i[:]
        n.attr["strides"].list.i.extend([1, 0, -3, 1])
    _write(d, sm)
    with pytest.raises(SavedModelError, match="Conv2D"):
        _load_and_call(d, "small_cnn")


def test_variable_whose_checkpoint_value_has_another_shape(copy_of):
    d = copy_of("keras_mlp")
    sm = _read(d)
    var = next(n.variable for n in sm.meta_graphs[0].object_graph_def.nodes if n.WhichOneof("kind") == "variable")
    var.shape.dim[0].size += 1
    _write(d, sm)
    with pytest.raises(SavedModelError, match="checkpointed value is"):
        tf.saved_model.load(d)


def test_names_from_the_file_are_never_code(copy_of, tmp_path):
    """Node and argument names full of Python are data: the model loads and computes as before."""
    d = copy_of("keras_mlp")
    marker = tmp_path / "pwned"
    evil = f"x');\n__import__('pathlib').Path({str(marker)!r}).touch()#"  # (TensorFlow's names have no ':')
    sm = _read(d)
    renamed = 0
    for f in sm.meta_graphs[0].graph_def.library.function:
        for old in [n.name for n in f.node_def if n.op in ("MatMul", "BiasAdd")]:
            for n in f.node_def:
                if n.name == old:
                    n.name, renamed = evil + old, renamed + 1
                for i, ref in enumerate(n.input):
                    if ref.split(":")[0] == old:
                        n.input[i] = evil + ref
        for i, arg in enumerate(f.signature.input_arg):  # argument names too
            for n in f.node_def:
                n.input[:] = [evil + r if r == arg.name else r for r in n.input]
            for k, v in f.ret.items():
                if v == arg.name:
                    f.ret[k] = evil + v
            arg.name = evil + arg.name
    assert renamed >= 4
    _write(d, sm)
    out = _load_and_call(d)
    np.testing.assert_allclose(out["probs"].numpy(), np.load(fixture_dir("keras_mlp") + ".io.npz")["out_probs"],
                               rtol=1e-4)
    assert not marker.exists()


def test_without_the_extra_the_error_says_what_to_install(monkeypatch):
    monkeypatch.setattr(proto, "_pb", None)
    for mod in ("google.protobuf", "tensorboard.compat.proto"):
        monkeypatch.setitem(sys.modules, mod, None)
    with pytest.raises(ImportError, match=r"pip install 'rivulet\[tf-interop\]'"):
        tf.saved_model.load(fixture_dir("keras_mlp"))
