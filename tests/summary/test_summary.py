import glob
import os
import struct

import numpy as np
import pytest

import rivulet as tf
from rivulet.formats.crc32c import value as crc32c
from rivulet.formats.records import masked_crc


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


def _png_pixels(data):
    """Decodes the PNGs tf.summary.image writes (8-bit, no interlace, filter 0): [h, w, c] uint8."""
    import zlib
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, {}
    while pos < len(data):
        n, = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        crc, = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF
        chunks[kind] = chunks.get(kind, b"") + body
        pos += 12 + n
    w, h, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    assert depth == 8 and interlace == 0 and b"IEND" in chunks
    c = {0: 1, 4: 2, 2: 3, 6: 4}[color]
    rows = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), np.uint8).reshape(h, 1 + w * c)
    assert not rows[:, 0].any()
    return rows[:, 1:].reshape(h, w, c)


def _buckets_reference(data, k):
    data = np.asarray(data, np.float64).ravel()
    lo, hi = data.min(), data.max()
    edges = lo + (hi - lo) * np.arange(k + 1) / k
    counts = [((data >= a) & ((data < b) if i < k - 1 else (data <= b))).sum()
              for i, (a, b) in enumerate(zip(edges[:-1], edges[1:]))]
    return edges, counts


def test_tensorboard_reads_histograms_eagerly_and_from_functions(tmp_path, accumulator):
    data = np.random.default_rng(0).normal(size=(40, 3)).astype("float32")

    @tf.function
    def log(x, step):
        tf.summary.histogram("traced", x * 2.0, step=step, buckets=5)

    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default():
        assert bool(tf.summary.histogram("weights", data, step=1, buckets=7))
        tf.summary.histogram("same", [3, 3, 3], step=2, buckets=4)
        tf.summary.histogram("empty", np.zeros([0], "float32"), step=3)
        tf.summary.histogram("default", data, step=4)
        for i in range(2):
            log(tf.constant(data[i]), tf.constant(i, tf.int64))
    acc = accumulator(tmp_path)
    assert acc.SummaryMetadata("weights").plugin_data.plugin_name == "histograms"
    (step, got), = _values(acc, "weights")
    got = np.array(got)
    edges, counts = _buckets_reference(data, 7)
    assert step == 1 and got.shape == (7, 3)
    np.testing.assert_allclose(got[:, 0], edges[:-1], rtol=1e-12)
    np.testing.assert_allclose(got[:, 1], edges[1:], rtol=1e-12)
    assert got[:, 2].tolist() == counts and got[:, 2].sum() == data.size
    assert _values(acc, "same") == [(2, [[3.0, 3.0, 0.0], [3.0, 3.0, 0.0], [3.0, 3.0, 0.0], [3.0, 3.0, 3.0]])]
    assert _values(acc, "empty") == [(3, [[0.0, 0.0, 0.0]] * 30)]
    assert np.array(_values(acc, "default")[0][1]).shape == (30, 3)
    traced = _values(acc, "traced")
    assert [s for s, _ in traced] == [0, 1]
    for (_, got), row in zip(traced, data[:2]):
        assert np.array(got)[:, 2].tolist() == _buckets_reference(row * 2.0, 5)[1]
    assert log.experimental_get_tracing_count() == 1


def test_tensorboard_reads_images_as_pngs(tmp_path, accumulator):
    rng = np.random.default_rng(1)
    floats = rng.random((4, 3, 5, 3)).astype("float32")
    grey = rng.integers(0, 256, size=(2, 4, 2, 1)).astype("uint8")
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default():
        tf.summary.image("rgb", floats * 1.2 - 0.1, step=5, max_outputs=2)  # out-of-range values saturate
        tf.function(lambda x: tf.summary.image("grey", x, step=6))(tf.constant(grey))
    acc = accumulator(tmp_path)
    assert acc.SummaryMetadata("rgb").plugin_data.plugin_name == "images"
    (step, rgb), = _values(acc, "rgb")
    assert step == 5 and rgb[:2] == [b"5", b"3"] and len(rgb) == 4  # width, height, then max_outputs images
    want = np.clip((floats * 1.2 - 0.1).astype(np.float64) * 255.5, 0, 255).astype(np.uint8)
    for png, img in zip(rgb[2:], want):
        np.testing.assert_array_equal(_png_pixels(png), img)
    (step, grey_out), = _values(acc, "grey")
    assert step == 6 and grey_out[:2] == [b"2", b"4"] and len(grey_out) == 4  # max_outputs defaults to 3
    for png, img in zip(grey_out[2:], grey):
        np.testing.assert_array_equal(_png_pixels(png), img)


def test_histogram_and_image_reject_bad_arguments(tmp_path):
    with tf.summary.create_file_writer(str(tmp_path)).as_default():
        with pytest.raises(ValueError, match="rank-4"):
            tf.summary.image("bad", np.zeros((3, 3, 3), "float32"), step=0)
        with pytest.raises(ValueError, match="channels"):
            tf.summary.image("bad", np.zeros((1, 3, 3, 5), "float32"), step=0)
        with pytest.raises(TypeError, match="numeric"):
            tf.summary.histogram("bad", ["a", "b"], step=0)
        with pytest.raises(TypeError, match="buckets"):
            tf.summary.histogram("bad", [1.0], step=0, buckets=2.5)
    assert not bool(tf.summary.histogram("nowriter", [1.0], step=0))


def test_bad_arguments_raise_value_error(tmp_path):
    with pytest.raises(ValueError, match="logdir"):
        tf.summary.create_file_writer(None)
    with tf.summary.create_file_writer(str(tmp_path)).as_default():
        with pytest.raises(ValueError, match="scalar shape"):
            tf.summary.scalar("x", [1.0, 2.0], step=0)
        assert tf.summary.scalar("x", 1.0, step=0)
