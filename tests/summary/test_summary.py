import glob
import os
import struct

import numpy as np
import pytest

import rivulet as tf
from rivulet.summary.records import crc32c, masked_crc


def records(path):
    """The TFRecord payloads of an event file, checking both CRCs of every record."""
    raw = open(path, "rb").read()
    out, pos = [], 0
    while pos < len(raw):
        header = raw[pos:pos + 8]
        (n,) = struct.unpack("<Q", header)
        assert struct.unpack("<I", raw[pos + 8:pos + 12])[0] == masked_crc(header)
        data = raw[pos + 12:pos + 12 + n]
        assert struct.unpack("<I", raw[pos + 12 + n:pos + 16 + n])[0] == masked_crc(data)
        out.append(data)
        pos += 16 + n
    return out


def test_crc32c_known_value():
    assert crc32c(b"123456789") == 0xE3069283
    assert crc32c(b"") == 0


def test_writer_frames_every_event(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default(step=3):
        assert bool(tf.summary.scalar("a", 1.5))
        assert bool(tf.summary.scalar("a", 2.5))
    files = glob.glob(str(tmp_path / "events.out.tfevents.*.v2"))
    assert files == [w.path]
    payloads = records(w.path)
    assert len(payloads) == 3 and b"brain.Event:2" in payloads[0]
    assert struct.pack("<f", 2.5) in payloads[2]


def test_no_writer_and_no_step():
    assert not bool(tf.summary.scalar("a", 1.0, step=1))
    with pytest.raises(ValueError, match="Must enable trace before export"):
        tf.summary.trace_export("t", step=0)


def test_no_step_is_an_error(tmp_path):
    with tf.summary.create_file_writer(str(tmp_path)).as_default():
        with pytest.raises(ValueError, match="No step set"):
            tf.summary.scalar("a", 1.0)


@pytest.fixture
def accumulator():
    ea = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")

    def read(logdir):
        acc = ea.EventAccumulator(str(logdir), size_guidance={"tensors": 0})
        acc.Reload()
        return acc
    return read


def _values(acc, tag):
    from tensorboard.util import tensor_util
    return [(e.step, tensor_util.make_ndarray(e.tensor_proto).tolist()) for e in acc.Tensors(tag)]


def test_tensorboard_reads_scalars_and_text(tmp_path, accumulator):
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default():
        for step in range(3):
            tf.summary.scalar("loss", 1.0 / (step + 1), step=step)
        tf.summary.experimental.set_step(9)
        tf.summary.text("note", "hello", step=None)
        tf.summary.experimental.set_step(None)
    acc = accumulator(tmp_path)
    assert _values(acc, "loss") == [(0, 1.0), (1, 0.5), (2, pytest.approx(1 / 3))]
    assert _values(acc, "note") == [(9, b"hello")]
    assert acc.SummaryMetadata("loss").plugin_data.plugin_name == "scalars"


def test_summaries_inside_a_function_write_on_every_call(tmp_path, accumulator):
    @tf.function
    def step_fn(x, step):
        tf.summary.scalar("total", tf.reduce_sum(x), step=step)
        return x * 2.0

    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default():
        for i in range(3):
            step_fn(tf.constant([1.0, float(i)]), tf.constant(i, tf.int64))
    assert step_fn.experimental_get_tracing_count() == 1
    assert _values(accumulator(tmp_path), "total") == [(0, 1.0), (1, 2.0), (2, 3.0)]


def test_tensorboard_reads_graphs_and_traces(tmp_path, accumulator):
    from tensorboard.compat.proto import config_pb2

    @tf.function
    def f(x):
        return tf.nn.relu(x) * 2.0

    x = tf.constant([1.0, -1.0])
    w = tf.summary.create_file_writer(str(tmp_path))
    tf.summary.trace_on(graph=True)
    f(x)
    with w.as_default():
        tf.summary.trace_export("f_trace", step=0)
        tf.summary.graph(f.get_concrete_function(x).graph)
    f(x)  # tracing stopped at export: nothing more is recorded
    acc = accumulator(tmp_path)
    ours = f.get_concrete_function(x).graph.as_graph_def()
    want = [(n.name, n.op, list(n.input)) for n in ours.node]
    assert [(n.name, n.op, list(n.input)) for n in acc.Graph().node] == want
    const = [n for n in acc.Graph().node if n.op == "Const"][0]
    assert const.attr["value"].tensor.dtype == 1 and const.attr["dtype"].type == 1  # DT_FLOAT
    run = config_pb2.RunMetadata.FromString(acc.Tensors("f_trace")[0].tensor_proto.string_val[0])
    assert [[n.name for n in g.pre_optimization_graph.node] for g in run.function_graphs] == \
        [[name for name, _, _ in want]]
    assert acc.SummaryMetadata("f_trace").plugin_data.plugin_name == "graph_run_metadata_graph"
    assert os.path.getsize(w.path) > 0
    np.testing.assert_array_equal(f(x).numpy(), [2.0, 0.0])
