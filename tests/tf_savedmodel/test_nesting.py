"""Function libraries whose control flow nests deeply: each function is converted once however many If/Case
ops run it, recursion is refused, and calls that fan out level after level fail fast (hand-built libraries
grafted onto keras_mlp: its serving function returns F0(probs))."""
import collections
import os
import time

import numpy as np
import pytest

import rivulet as tf
from rivulet.saved_model import SavedModelError
from rivulet.saved_model.tf_import import functions, proto

from .conftest import io, serving_inputs

FLOAT, INT32, BOOL = 1, 3, 10


def _function(lib, name):
    f = lib.function.add()
    f.signature.name = name
    a = f.signature.input_arg.add()
    a.name, a.type = "x", FLOAT
    o = f.signature.output_arg.add()
    o.name, o.type = "output", FLOAT
    return f


def _node(f, name, op, inputs, **attrs):
    n = f.node_def.add()
    n.name, n.op = name, op
    n.input.extend(inputs)
    for k, v in attrs.items():
        if k == "value":
            n.attr["dtype"].type = v.dtype.type
            n.attr["value"].tensor.dtype = v.dtype.type
            getattr(n.attr["value"].tensor, v.field).append(v.item)
        elif isinstance(v, int):
            n.attr[k].type = v
        elif isinstance(v, str):
            n.attr[k].func.name = v
        else:  # a list of dtypes or of function names
            getattr(n.attr[k].list, "type" if isinstance(v[0], int) else "func").extend(
                v if isinstance(v[0], int) else [_func(x) for x in v])
    return n


def _func(name):
    from tensorboard.compat.proto import attr_value_pb2
    return attr_value_pb2.NameAttrList(name=name)


class _Value:
    def __init__(self, dtype, field, item):
        self.dtype, self.field, self.item = type("D", (), {"type": dtype}), field, item


def _graft(d, build):
    """keras_mlp at `d` with `build(library)` adding F0...; its serving function's output goes through F0."""
    path = os.path.join(d, "saved_model.pb")
    with open(path, "rb") as f:
        sm = proto.read_saved_model(f.read())
    lib = sm.meta_graphs[0].graph_def.library
    build(lib)
    for f in lib.function:
        if f.signature.name.startswith("__inference___call__"):
            n = next(n for n in f.node_def if n.name == "Identity")
            n.op = "F0"
            n.attr.clear()
    with open(path, "wb") as f:
        f.write(sm.SerializeToString())
    return d


def _leaf(lib, name):
    """name(x) = 2 * x"""
    f = _function(lib, name)
    _node(f, "two", "Const", [], value=_Value(FLOAT, "float_val", 2.0))
    _node(f, "y", "Mul", ["x", "two:output:0"], T=FLOAT)
    f.ret["output"] = "y:z:0"


def _chain(lib, depth, op, else_direct=False):
    """F_i runs F_{i+1} in every branch of an `op` node (If: true/false; Case: 3 branches); F_depth doubles.
    else_direct: an If's else branch is G_{i+1}, which calls F_{i+1} directly."""
    _leaf(lib, f"F{depth}")
    for i in range(depth - 1, -1, -1):
        f, nxt = _function(lib, f"F{i}"), f"F{i + 1}"
        if op == "Case":
            _node(f, "k", "Const", [], value=_Value(INT32, "int_val", 1))
            _node(f, "c", "StatelessCase", ["k:output:0", "x"], Tin=[FLOAT], Tout=[FLOAT], branches=[nxt] * 3)
        else:
            other = nxt
            if else_direct:
                other = f"G{i + 1}"
                g = _function(lib, other)
                _node(g, "call", nxt, ["x"])
                g.ret["output"] = "call:output:0"
            _node(f, "p", "Const", [], value=_Value(BOOL, "bool_val", i % 2 == 0))
            _node(f, "c", "StatelessIf", ["p:output:0", "x"], Tcond=BOOL, Tin=[FLOAT], Tout=[FLOAT],
                  then_branch=nxt, else_branch=other)
        f.ret["output"] = "c:output:0"


@pytest.fixture
def conversions(monkeypatch):
    """How often each library function is converted (a call replays its nodes)."""
    counts = collections.Counter()
    call = functions.Library.call

    def counting(self, name, inputs, depth=0):
        counts[name] += 1
        return call(self, name, inputs, depth)
    monkeypatch.setattr(functions.Library, "call", counting)
    return counts


def _serve(d):
    x = tf.constant(serving_inputs("keras_mlp")["x"])
    return tf.saved_model.load(d).signatures["serving_default"](x=x)["probs"].numpy()


@pytest.mark.parametrize("op,else_direct", [("If", False), ("If", True), ("Case", False)])
def test_each_function_is_converted_once_however_many_branches_run_it(copy_of, conversions, op, else_direct):
    """Every branch was converted where it was used: 2**12 (3**12 for Case) conversions of F12 here."""
    d = _graft(copy_of("keras_mlp"), lambda lib: _chain(lib, 12, op, else_direct))
    np.testing.assert_allclose(_serve(d), 2 * io("keras_mlp")["out_probs"], rtol=1e-5)
    counts = {k: v for k, v in conversions.items() if k[0] in "FG"}
    assert set(counts) == {f"F{i}" for i in range(13)} | ({f"G{i}" for i in range(1, 13)} if else_direct else set())
    # G_i inlines F_i once more; what F_i runs in its branches is shared, so that is all
    assert max(counts.values()) == (2 if else_direct else 1)


def test_a_30_deep_branch_bomb_loads_at_once(copy_of):
    """tfsm_branch_bomb.py: a 51 KiB saved_model.pb needing 2**30 conversions never finished loading."""
    d = _graft(copy_of("keras_mlp"), lambda lib: _chain(lib, 30, "If"))
    start = time.perf_counter()
    np.testing.assert_allclose(_serve(d), 2 * io("keras_mlp")["out_probs"], rtol=1e-5)
    assert time.perf_counter() - start < 10


def test_a_function_whose_branch_calls_itself_is_refused(copy_of):
    def build(lib):
        _leaf(lib, "Leaf")
        f = _function(lib, "F0")
        _node(f, "p", "Const", [], value=_Value(BOOL, "bool_val", False))
        _node(f, "c", "StatelessIf", ["p:output:0", "x"], Tcond=BOOL, Tin=[FLOAT], Tout=[FLOAT],
              then_branch="F0", else_branch="Leaf")
        f.ret["output"] = "c:output:0"
    d = _graft(copy_of("keras_mlp"), build)
    with pytest.raises(SavedModelError, match="function 'F0' calls itself"):
        tf.saved_model.load(d)


def test_too_deep_nesting_fails_fast(copy_of):
    d = _graft(copy_of("keras_mlp"), lambda lib: _chain(lib, 100, "If"))
    with pytest.raises(SavedModelError, match=f"calls nest more than {functions.MAX_CALL_DEPTH} deep"):
        tf.saved_model.load(d)


def test_direct_calls_that_fan_out_fail_fast(copy_of):
    """F_i adds two direct calls of F_{i+1}: inlined, 2**40 nodes. Refused once the budget is spent."""
    def build(lib):
        _leaf(lib, "F40")
        for i in range(39, -1, -1):
            f = _function(lib, f"F{i}")
            _node(f, "a", f"F{i + 1}", ["x"])
            _node(f, "b", f"F{i + 1}", ["x"])
            _node(f, "s", "AddV2", ["a:output:0", "b:output:0"], T=FLOAT)
            f.ret["output"] = "s:z:0"
    d = _graft(copy_of("keras_mlp"), build)
    start = time.perf_counter()
    with pytest.raises(SavedModelError, match="more nodes than this reader converts"):
        tf.saved_model.load(d)
    assert time.perf_counter() - start < 20
