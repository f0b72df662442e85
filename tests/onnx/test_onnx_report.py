"""The export report: every op that cannot be exported, with the user's source line."""
import inspect

import pytest

import rivulet as tf

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")


def _line(marker):
    """The line of this file holding `marker` (a comment at the end of the line that builds the op)."""
    src = inspect.getsource(inspect.getmodule(_line)).splitlines()
    return next(i for i, text in enumerate(src, 1) if text.rstrip().endswith(marker))


counter = tf.Variable(0)


@tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
def unexportable(x):
    noise = tf.random.uniform(tf.shape(x))  # @noise
    y = tf.cond(tf.reduce_sum(x) > 0,
                lambda: tf.pad(x, [[1, 1], [1, 1]], "SYMMETRIC"),  # @symmetric
                lambda: tf.pad(x, [[1, 1], [1, 1]]))
    counter.assign_add(1)  # @assign
    tf.print("x is", x)  # @print
    return x + noise, y * 2.0, tf.reduce_sum(x)


def test_every_problem_is_listed_with_its_line():
    with pytest.raises(tf.onnx.ExportError) as info:
        tf.onnx.export(unexportable, None)
    report = info.value.report
    assert isinstance(info.value, ValueError) and not report.ok
    found = {(p.op_type, p.frame[1]) for p in report.problems}
    assert found == {("RandomUniform", _line("# @noise")), ("MirrorPad", _line("# @symmetric")),
                     ("AssignAddVariableOp", _line("# @assign"))}
    for p in report.problems:
        assert p.location == f"{__file__}:{p.frame[1]}"
        assert f":{p.frame[1]} " in str(p) and p.op_type in str(info.value)
    assert "SYMMETRIC padding has no ONNX form" in str(info.value)
    assert "changes state" in str(info.value)
    assert len(report.notes) == 1 and "PrintV2" in report.notes[0] and f":{_line('# @print')} " in report.notes[0]


def test_non_strict_returns_the_report_and_writes_nothing(tmp_path):
    path = tmp_path / "m.onnx"
    report = tf.onnx.export(unexportable, path, strict=False)
    assert len(report.problems) == 3 and report.model is None and not path.exists()
    assert str(report).startswith("Cannot export to ONNX: 3 unsupported ops:")


def test_ops_after_an_unsupported_op_are_checked_too():
    @tf.function(input_signature=[tf.TensorSpec([2], tf.string)])
    def f(s):
        joined = tf.strings.join([s, s])
        return tf.strings.length(joined) + 1, tf.strings.upper(s)
    report = tf.onnx.export(f, None, strict=False)
    # The AddV2 after them converts (so it is not listed); StringLength, fed by StringJoin, does not.
    assert sorted(p.op_type for p in report.problems) == ["StringJoin", "StringLength", "StringUpper"]
    assert all("no ONNX conversion" in p.reason for p in report.problems)


def test_ok_report_names_inputs_and_outputs(tmp_path):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32, name="features")])
    def f(x):
        return {"doubled": x * 2.0, "total": tf.reduce_sum(x)}
    report = tf.onnx.export(f, tmp_path / "m.onnx")
    assert report.ok and report.input_names == ["features"] and report.output_names == ["doubled", "total"]
    assert str(report) == f"Exported to {tmp_path / 'm.onnx'}: inputs features -> outputs doubled, total"
    assert [o.name for o in report.model.graph.output] == ["doubled", "total"]


def test_what_cannot_be_exported_at_all():
    @tf.function
    def f(x):
        return x + 1
    f(tf.constant(1.0))
    f(tf.constant([1.0]))
    with pytest.raises(ValueError, match="has 2 traced signatures"):
        tf.onnx.export(f, None)
    with pytest.raises(TypeError, match="Cannot export"):
        tf.onnx.export(lambda x: x, None)
    with pytest.raises(ValueError, match="signature= selects a saved model's signature"):
        tf.onnx.export(f.get_concrete_function(tf.constant(1.0)), None, signature="serving_default")


def test_numerics_checks_are_exported_as_identity_with_a_note(rt):
    f = tf.function(lambda x: tf.debugging.check_numerics(x, "bad") * 2.0)
    report = rt.check(f, tf.constant([1.0, 2.0]))
    assert len(report.notes) == 1 and "CheckNumerics" in report.notes[0] and "check is dropped" in report.notes[0]


def test_problems_inside_every_branch_and_loop_part_are_each_listed_once():
    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def f(x):
        y = tf.cond(x > 0, lambda: x + tf.random.uniform([]),  # @then
                    lambda: x - tf.random.normal([]))  # @else
        return tf.while_loop(lambda v: v < tf.random.uniform([], 5.0, 6.0),  # @cond
                             lambda v: v + tf.random.truncated_normal([]), [y])  # @body
    report = tf.onnx.export(f, None, strict=False)
    assert [(p.op_type, p.frame[1]) for p in report.problems] == [
        ("RandomUniform", _line("# @then")), ("RandomStandardNormal", _line("# @else")),
        ("RandomUniform", _line("# @cond")), ("TruncatedNormal", _line("# @body"))]


def test_a_function_taking_variables_is_refused_with_a_clear_error():
    @tf.function
    def scale(v, x):
        return v * x
    cf = scale.get_concrete_function(tf.Variable([1.0, 2.0]), tf.TensorSpec([2]))
    with pytest.raises(ValueError, match=r"takes tf.Variable arguments \(v\).*Close over the variables"):
        tf.onnx.export(cf)
