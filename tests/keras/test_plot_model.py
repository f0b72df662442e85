"""tf.keras.utils.model_to_dot / plot_model: the model's layers as a pydot graph (tf_keras 2.21's labels),
drawn by Graphviz when it is installed; without pydot, tf_keras' ImportError."""
import shutil

import pytest

import rivulet as tf
from rivulet.keras import vis_utils


def _model():
    a = tf.keras.Input(shape=(3,), name="a")
    b = tf.keras.Input(shape=(2,), name="b")
    c = tf.keras.layers.Concatenate(name="cat")([a, b])
    d = tf.keras.layers.Dense(4, activation="relu", name="hidden")(c)
    return tf.keras.Model([a, b], d * 2)


def test_model_to_dot_labels_and_edges():
    pytest.importorskip("pydot")
    tf.keras.backend.clear_session()
    model = _model()
    dot = tf.keras.utils.model_to_dot(model, show_shapes=True, show_layer_activations=True, rankdir="LR")
    labels = [n.get("label").strip('"') for n in dot.get_nodes() if n.get_name() not in ("node", "graph", "edge")]
    assert labels == [
        "{a|InputLayer}|{input:|output:}|{{[(None, 3)]}|{[(None, 3)]}}",
        "{b|InputLayer}|{input:|output:}|{{[(None, 2)]}|{[(None, 2)]}}",
        "{cat|Concatenate}|{input:|output:}|{{[(None, 3), (None, 2)]}|{(None, 5)}}",
        "{hidden|{Dense|relu}}|{input:|output:}|{{(None, 5)}|{(None, 4)}}",
        "{tf.math.multiply|TFOpLambda}|{input:|output:}|{{(None, 4)}|{(None, 4)}}"]
    ids = {model.get_layer(n).name: str(id(model.get_layer(n))) for n in ("a", "b", "cat", "hidden")}
    edges = {(e.get_source(), e.get_destination()) for e in dot.get_edges()}
    assert (ids["a"], ids["cat"]) in edges and (ids["b"], ids["cat"]) in edges and len(edges) == 4
    assert dot.get("rankdir") == "LR"
    seq = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,), name="d1")])
    plain = [n.get("label").strip('"') for n in tf.keras.utils.model_to_dot(seq).get_nodes()
             if n.get_name() != "node"]
    assert plain == ["d1_input|InputLayer", "d1|Dense"]


def test_model_to_dot_without_pydot(monkeypatch):
    monkeypatch.setattr(vis_utils, "_pydot", lambda: None)
    with pytest.raises(ImportError, match=r"You must install pydot \(`pip install pydot`\) for model_to_dot to work."):
        tf.keras.utils.model_to_dot(_model())
    assert not vis_utils.check_graphviz()


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot program is not installed")
def test_plot_model_writes_the_image(tmp_path):
    pytest.importorskip("pydot")
    path = tmp_path / "model.png"
    tf.keras.utils.plot_model(_model(), to_file=str(path), show_shapes=True)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
