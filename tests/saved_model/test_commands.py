import os
import subprocess
import sys

import pytest

import rivulet as tf

SRC = os.path.dirname(os.path.dirname(tf.__file__))


def cli(*args):
    out = subprocess.run([sys.executable, "-m", "rivulet", *args], env=dict(os.environ, PYTHONPATH=SRC),
                         capture_output=True, text=True, timeout=120)
    return out.returncode, out.stdout, out.stderr


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    class M(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable([1.0, 2.0])

        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32, name="inp")])
        def serve(self, x):
            return x * self.w[0] + 0.5

        @tf.function
        def f(self, x, training=False):
            return tf.cond(tf.reduce_sum(x) > 0, lambda: x * self.w, lambda: -x) if training else x

    m = M()
    m.f(tf.constant([1.0, 2.0]), training=True)
    d = str(tmp_path_factory.mktemp("cli") / "m")
    tf.saved_model.save(m, d)
    return d


def test_show(model):
    rc, out, err = cli("show", model)
    assert rc == 0, err
    assert out == """\
signature_def['serving_default']:
  The given SavedModel SignatureDef contains the following input(s):
    inputs['inp'] tensor_info:
        dtype: DT_FLOAT
        shape: (-1)
        name: inp:0
  The given SavedModel SignatureDef contains the following output(s):
    outputs['output_0'] tensor_info:
        dtype: DT_FLOAT
        shape: (-1)
        name: Identity:0

Concrete Functions:
  Function Name: 'f'
    Option #1
      Callable with:
        Argument #1
          x: TensorSpec(shape=(2,), dtype=tf.float32, name='x')
        Argument #2
          DType: bool
          Value: True

  Function Name: 'serve'
    Option #1
      Callable with:
        Argument #1
          x: TensorSpec(shape=(None,), dtype=tf.float32, name='inp')
"""


def test_run(model):
    rc, out, err = cli("run", model, "--signature", "serving_default", "--input", "inp=[1, 2, 3]")
    assert rc == 0, err
    assert out == "Result for output key output_0:\n[1.5 2.5 3.5]\n"
    rc, out, err = cli("run", model, "--signature", "nope", "--input", "inp=[1]")
    assert rc != 0 and 'Could not find signature "nope"' in err
    rc, out, err = cli("run", model, "--input", "inp=__import__('os')")
    assert rc != 0 and "is not a Python literal" in err


@pytest.mark.parametrize("ext, start", [(".svg", "<svg"), (".dot", "digraph G {"), (".html", "<!DOCTYPE html>")])
def test_graph(model, tmp_path, ext, start):
    path = str(tmp_path / ("g" + ext))
    rc, out, err = cli("graph", model, "--function", "f", "-o", path)
    assert rc == 0, err
    text = open(path).read()
    assert text.startswith(start) or ext == ".svg" and text.startswith("<?xml")
    # The If op's branches are drawn too, each under the op's name.
    assert "cond: cond_true" in text and "cond: cond_false" in text and "ReadVariableOp" in text


def test_graph_svg_without_graphviz_is_well_formed(model):
    import xml.etree.ElementTree as ET
    from rivulet.saved_model import render
    cf = tf.saved_model.load(model).signatures["serving_default"]
    root = ET.fromstring(render.layout_svg(cf.graph, cf.graph.outputs, "serve"))
    labels = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "ReadVariableOp" in labels and "inp" in labels and "Identity" in labels
