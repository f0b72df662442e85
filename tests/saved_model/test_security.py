"""A saved model is data: nothing read from its files becomes code (issue 14). Hostile names and attrs are
refused at load with SavedModelError; the generated source of a graph holds none of the file's text."""
import json
import os
import sys

import numpy as np
import pytest

import rivulet as tf
from rivulet.core.op import REGISTRY
from rivulet.execute.codegen import compile_graph
from rivulet.graph.graph import Graph
from rivulet.saved_model import SavedModelError

EXPLOIT = "x=__import__('os').system('touch OWNED'), y"


class Sub(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([2], tf.float32, name="x")])
    def __call__(self, x):
        return x - 1.0


@pytest.fixture
def saved(tmp_path):
    d = str(tmp_path / "m")
    tf.saved_model.save(Sub(), d)
    return d


def edit(d, fn):
    path = os.path.join(d, "saved_model.json")
    meta = json.load(open(path))
    fn(meta)
    json.dump(meta, open(path, "w"))


def nodes(meta, op=None):
    return [n for g in meta["graphs"].values() for n in g["nodes"] if op is None or n["op"] == op]


def test_the_issues_exploit_is_refused_at_load_and_runs_nothing(saved, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    edit(saved, lambda m: nodes(m, "Sub")[0]["attrs"].update({EXPLOIT: 1}))
    with pytest.raises(SavedModelError, match="op Sub has no attr"):
        tf.saved_model.load(saved)
    assert not (tmp_path / "OWNED").exists()


def test_the_cli_refuses_it_too(saved, tmp_path, monkeypatch):
    from rivulet.cli import main
    monkeypatch.chdir(tmp_path)
    edit(saved, lambda m: nodes(m, "Sub")[0]["attrs"].update({EXPLOIT: 1}))
    with pytest.raises(SystemExit) as e:
        main(["run", saved, "--input", "x=[1.0, 2.0]"])
    assert e.value.code != 0
    assert not (tmp_path / "OWNED").exists()


def test_attr_keys_reach_kernels_only_as_declared_names(tmp_path, monkeypatch):
    """Defence in depth: even an Operation carrying a hostile attr key (which no loader lets through)
    compiles to source without it; the kernel just gets an unexpected keyword."""
    monkeypatch.chdir(tmp_path)
    g = Graph("g")
    x = g.placeholder(tf.float32, tf.TensorShape([2]), name="x")
    op = g.create_op(REGISTRY["Sub"], [x, x], {EXPLOIT: 1, "y\nimport os": 2})
    cg = compile_graph(g, [x], op.outputs, name="f(): pass\nimport os #", split=False)
    assert "OWNED" not in cg.source and "import" not in cg.source, cg.source
    with pytest.raises(tf.errors.InvalidArgumentError, match="unexpected keyword"):
        cg(np.ones(2, np.float32))
    assert not (tmp_path / "OWNED").exists()
    assert cg.fn.__name__ == "f(): pass\nimport os #"  # the name is the function's, not its source's


def test_generated_source_holds_no_text_from_the_file(saved):
    """Node, graph and function names and attr values from the file never appear in the compiled source."""
    name = "evil_name_from_the_file"

    def rename(m):
        for g in m["graphs"].values():
            g["name"] = name + "_graph"
        for cf in m["concrete_functions"]:
            cf["name"] = name + "_fn"
    edit(saved, rename)
    m = tf.saved_model.load(saved)
    np.testing.assert_allclose(m(tf.constant([1.0, 5.0])).numpy(), [0.0, 4.0])
    cf = m.__call__.concrete_functions[0]
    assert name not in cf._compiled.source
    assert cf._compiled.fn.__name__ == name + "_fn"


def test_attr_values_are_objects_not_source():
    @tf.function
    def f(x):
        return tf.reduce_sum(tf.strings.length(tf.strings.join([x, "')]; import os; ('"])), axis=0, keepdims=True)
    f(tf.constant(["a", "b"]))
    src = f.get_concrete_function(tf.constant(["a", "b"]))._compiled.source
    assert "import" not in src and "keepdims=t" in src


@pytest.mark.parametrize("damage, problem", [
    (lambda m: nodes(m, "Sub")[0]["attrs"].update(T={"dtype": "float32"}), "op Sub has no attr 'T'"),
    (lambda m: nodes(m, "Sub")[0].update(inputs=["x"]), "1 input(s) and attrs []: missing a required argument"),
    (lambda m: nodes(m, "Sub")[0].update(inputs=["x", "x", "x"]), "3 input(s) and attrs []: too many positional"),
    (lambda m: nodes(m, "Sub")[0].update(inputs=["x", "Const:1"]), "has only 1 output"),
    (lambda m: nodes(m, "Sub")[0].update(inputs=["x", "nowhere"]), "Unknown input node"),
    (lambda m: nodes(m, "Sub")[0].update(inputs=["x", "Identity"]), "cycle"),
    (lambda m: nodes(m, "Sub")[0].update(op="NotAnOp"), "Op type not registered"),
    (lambda m: nodes(m, "Sub")[0].update(op="Sum", inputs=["x"], attrs={"axis": {"tuple": [0]}, "keepdims": "yes"}),
     "attr 'keepdims' should be like its default False"),
    (lambda m: nodes(m, "Sub")[0].update(op="MatMul", attrs={"transpose_a": 1}), "attr 'transpose_a'"),
    (lambda m: nodes(m, "Sub")[0].update(op="LeakyRelu", inputs=["x"], attrs={"alpha": {"list": [1]}}),
     "attr 'alpha' cannot be"),
    (lambda m: nodes(m, "Sub")[0].update(op="Relu", inputs=["x", "Const"]), "Relu cannot be called with 2 input"),
    (lambda m: nodes(m, "Sub")[0].update(op="Exp", inputs=["x", "Const"]), "Exp takes 1 input(s) and no attrs"),
    (lambda m: nodes(m, "Placeholder")[0]["attrs"].update(dtype={"dtype": "int32"}), "Sub"),
    (lambda m: m["graphs"]["g0"].update(args=["x", "x"]), "not distinct Placeholders"),
])
def test_well_formed_but_invalid_graphs_fail_at_load(saved, damage, problem):
    edit(saved, damage)
    with pytest.raises(SavedModelError) as e:
        tf.saved_model.load(saved)
    assert problem in str(e.value), str(e.value)


def _chain(meta, depth, kind):
    """The object tree becomes root -> 1 -> 2 ... -> depth -> the function, each link of `kind`."""
    fn = next(n for n in meta["objects"] if n["kind"] == "function")
    objs = [{"kind": "object", "children": [["c", 1]]}]
    for i in range(1, depth + 1):
        objs.append({"kind": "object", "children": [["c", i + 1]]} if kind == "object" else
                    {"kind": kind, "items": [i + 1]})
    meta["objects"] = objs + [fn]


@pytest.mark.parametrize("kind", ["object", "list", "tuple"])
def test_deep_object_trees_load_without_recursion(saved, kind):
    depth = 3 * sys.getrecursionlimit()
    edit(saved, lambda m: _chain(m, depth, kind))
    x = tf.saved_model.load(saved).c
    for _ in range(depth):
        x = x.c if kind == "object" else x[0]
    np.testing.assert_allclose(x(tf.constant([1.0, 2.0])).numpy(), [0.0, 1.0])


def test_a_list_inside_itself_is_refused(saved):
    def damage(m):
        m["objects"].append({"kind": "list", "items": [len(m["objects"])]})
        m["objects"][0]["children"].append(["loop", len(m["objects"]) - 1])
    edit(saved, damage)
    with pytest.raises(SavedModelError, match="contains itself"):
        tf.saved_model.load(saved)


def test_deep_json_is_a_saved_model_error(saved):
    path = os.path.join(saved, "saved_model.json")
    open(path, "w").write('{"format": ' + "[" * 50000 + "]" * 50000 + "}")
    with pytest.raises(SavedModelError):
        tf.saved_model.load(saved)


def test_a_huge_shape_in_the_file_is_a_resource_error_when_run(tmp_path):
    class Fill(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def __call__(self, x):
            return tf.reduce_sum(tf.fill([3], x))
    d = str(tmp_path / "fill")
    tf.saved_model.save(Fill(), d)
    edit(d, lambda m: nodes(m, "Fill")[0]["attrs"].update(shape={"tuple": [2 ** 40, 2 ** 20]}))
    m = tf.saved_model.load(d)
    with pytest.raises(tf.errors.ResourceExhaustedError, match="node Fill"):
        m(tf.constant(1.0))


def test_argument_types_must_match_the_graphs_placeholders(saved):
    def damage(m):
        m["concrete_functions"][0]["arg_types"] = {"tuple": [{"spec": [[2], "int32", "x"]}]}
    edit(saved, damage)
    with pytest.raises(SavedModelError, match="its graph input x is TensorSpec"):
        tf.saved_model.load(saved)


def test_every_registered_op_knows_its_attrs():
    """The loader admits only declared attrs: each op's attr names are identifiers its rule and kernel both
    take, and an op whose rule and kernel both take **kwargs declares them (defop(..., attrs=...))."""
    import inspect
    import rivulet.keras  # noqa: F401  (registers its ops)
    import rivulet.optimize.fusion  # noqa: F401
    for name, op in REGISTRY.items():
        facts = op._facts()[1]
        if all(sig is not None and named is None for sig, named, _ in facts):
            assert op._declared is not None, f"{name}: rule and kernel take **kwargs; declare its attrs"
        for a in op.attr_names:
            assert a.isidentifier(), (name, a)
            for sig, _, nin in facts:
                if sig is not None:
                    params = sig.parameters
                    assert a in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()), \
                        (name, a, sig)


@pytest.mark.parametrize("damage, problem", [
    # an input landing on Softmax's axis parameter, an axis no int64 holds
    (lambda m: nodes(m, "Sub")[0].update(op="Softmax", inputs=["x", "Const"]),
     r"takes 1 input\(s\) before its attr 'axis'"),
    (lambda m: nodes(m, "Sub")[0].update(op="Softmax", inputs=["x"], attrs={"axis": 2 ** 70}), "attr 'axis' cannot be"),
])
def test_attrs_are_never_inputs_and_fit_int64(saved, damage, problem):
    edit(saved, damage)
    with pytest.raises(SavedModelError, match=problem):
        tf.saved_model.load(saved)


def test_a_reshape_without_its_shape_is_refused_at_load(saved):
    edit(saved, lambda m: nodes(m, "Sub")[0].update(op="Reshape", inputs=["x"], attrs={"shape": None}))
    with pytest.raises(SavedModelError, match="Reshape needs its shape"):
        tf.saved_model.load(saved)
