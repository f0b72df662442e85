"""Fuzzing of TensorFlow-format checkpoints: the tensor bundle (PREFIX.index, an sstable of BundleEntryProtos,
and PREFIX.data-00000-of-00001) and the object graph stored in it.

Bases: a small tf.train.Checkpoint written by rivulet (every dtype kind: float, int, bool, string, a list and a
nested module), TensorFlow 2.21's `net` checkpoint and its Keras Sequential + Adam checkpoint (tests/checkpoint/
data), and a Keras model's save_weights. Mutations: raw bytes of either file, and crafted ones that keep every
CRC right so that they reach the parsers behind them: an sstable item, a field of an entry or of the header, a
tensor's bytes, the object graph (bytes or structure). Loads: Checkpoint.restore onto matching variables +
assert_consumed + the values, tf.train.load_checkpoint reading every tensor, Model.load_weights.

A bad file may raise what TensorFlow raises for it: DataLossError (a damaged file), NotFoundError (a missing
file or key), InvalidArgumentError (a value of another dtype than its variable's), UnimplementedError (a dtype
or layout the reader does not support), ValueError only as TensorFlow words it (a value of another shape than its
variable's) and AssertionError only from the status's assert_* methods.
"""
import os
import re

import numpy as np
import pytest

from tests.fuzz.harness import FuzzTarget, fuzz_cases, mutate_bytes, run_fuzz

SEED = 20261125
DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "checkpoint", "data")
_DATA_FILE = ".data-00000-of-00001"
_BASE = {}  # name -> (index bytes, data bytes), built once per process
_INTERESTING = [0, 1, 2, 3, 7, 9, 10, 14, 20, 21, 23, 101, 127, 128, 255, 2 ** 31 - 1, 2 ** 32, 2 ** 40, 2 ** 62,
                2 ** 63 - 1, 2 ** 63, 2 ** 64 - 1]


class Undocumented(Exception):
    """A ValueError or AssertionError that TensorFlow would not raise there (numpy's, an internal assert)."""


# ---- bases ------------------------------------------------------------------------------------------------------

def _module_tree():
    import rivulet as tf

    class Inner(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(np.arange(6, dtype=np.float64).reshape(2, 3), name="w")
            self.flags = tf.Variable([True, False, True], name="flags")

    class Net(tf.Module):
        def __init__(self):
            super().__init__()
            self.l1 = tf.Variable(np.arange(8, dtype=np.float32).reshape(4, 2), name="l1")
            self.b = tf.Variable(np.ones(2, np.float32), name="b")
            self.inner = Inner()
            self.items = [tf.Variable(np.int32(-3), name="x"), {"a/b.c": tf.Variable([2, 3], dtype=tf.int64)}]
            self.alias = self.b

    return {"net": Net(), "step": tf.Variable(42, dtype=tf.int64), "name": tf.Variable([b"rivulet", b""])}


def _net_tree():
    import rivulet as tf

    class Net(tf.Module):
        def __init__(self):
            super().__init__()
            self.l1 = tf.Variable(tf.zeros([4, 2]), name="l1")
            self.b = tf.Variable(tf.ones([2]), name="b")
    return {"net": Net(), "step": tf.Variable(0, dtype=tf.int64)}


def _seq():
    import rivulet as tf
    return tf.keras.Sequential([tf.keras.layers.Dense(3, activation="relu", input_shape=(4,)),
                                tf.keras.layers.Dense(2)])


def _read(prefix):
    with open(prefix + ".index", "rb") as f, open(prefix + _DATA_FILE, "rb") as g:
        return f.read(), g.read()


def _base(name):
    if name not in _BASE:
        import tempfile
        import rivulet as tf
        with tempfile.TemporaryDirectory() as d:
            if name == "rivulet":
                _BASE[name] = _read(tf.train.Checkpoint(**_module_tree()).write(os.path.join(d, "c")))
            elif name == "weights":
                m = _seq()
                m.save_weights(os.path.join(d, "w"))
                _BASE[name] = _read(os.path.join(d, "w"))
            else:  # written by TensorFlow 2.21
                _BASE[name] = _read(os.path.join(DATA, name))
    return _BASE[name]


# ---- mutations --------------------------------------------------------------------------------------------------

def _encode(msg):
    """A message from wire.parse's {field: [(wire type, value)]}, in field order."""
    from rivulet.formats.wire import encode_varint, field_key as _key
    out = b""
    for field in sorted(msg):
        for wire, v in msg[field]:
            if wire == 0:
                out += _key(field, 0) + encode_varint(v)
            elif wire == 2:
                out += _key(field, 2) + encode_varint(len(v)) + v
            else:
                width = 4 if wire == 5 else 8
                out += _key(field, wire) + (v & ((1 << 8 * width) - 1)).to_bytes(width, "little")
    return out


def _pick(rng, seq):
    return seq[int(rng.integers(0, len(seq)))]


def _mutate_message(rng, raw, fields):
    """`raw` with one field set to an odd value, dropped, duplicated, or sent with another wire type."""
    from rivulet.formats.checkpoint_wire import parse
    msg = parse(raw)
    field = _pick(rng, fields)
    what = int(rng.integers(0, 5))
    if what == 0:
        msg[field] = [(0, _pick(rng, _INTERESTING))]
    elif what == 1:
        msg.pop(field, None)
    elif what == 2:
        msg[field] = [(2, mutate_bytes(rng, _encode({1: [(0, _pick(rng, _INTERESTING))]})))]
    elif what == 3 and msg.get(field):
        w, v = msg[field][-1]
        msg[field] = [(w, mutate_bytes(rng, v) if w == 2 else v ^ (1 << int(rng.integers(0, 64))))]
    else:
        msg[field] = [(5, int(rng.integers(0, 2 ** 32)))]
    return _encode(msg)


def _set_tensor(items, data, key, payload, crc=None):
    """Appends `payload` to the data file as the tensor `key`'s bytes, its entry's offset, size and CRC set
    (`crc`: the unmasked CRC when it is not the payload's, as for strings)."""
    from rivulet.formats import crc32c
    from rivulet.formats.checkpoint_wire import parse
    for i, (k, v) in enumerate(items):
        if k == key:
            msg = parse(v)
            msg[4], msg[5] = [(0, len(data))], [(0, len(payload))]
            msg[6] = [(5, crc32c.mask(crc32c.value(payload) if crc is None else crc))]
            items[i] = (k, _encode(msg))
            return items, data + payload
    return items, data


def _mutate_graph(rng, items, data):
    """The object graph rewritten: a child pointing elsewhere, a cycle, a renamed child, an attribute naming
    another key, a slot variable, a node copied, or its raw bytes mutated."""
    from rivulet.formats import object_graph as og
    key = og.OBJECT_GRAPH_KEY.encode()
    raw = _graph_bytes(items, data)
    if raw is None:
        return items, data
    try:
        nodes = og.decode(raw)
    except Exception:  # noqa: BLE001 - the base's graph is valid; a mutated one falls back to bytes
        nodes = None
    what = int(rng.integers(0, 8))
    if nodes and what < 7:
        n = len(nodes)
        node = _pick(rng, nodes)
        keys = [k.decode() for k, _ in items if k]
        if what == 0 and node.children:
            i = int(rng.integers(0, len(node.children)))
            node.children[i] = (int(rng.integers(0, n)), node.children[i][1])
        elif what == 1:  # a cycle (maybe unreachable from the root)
            a, b = len(nodes), len(nodes) + 1
            nodes += [og.Node(children=[(b, "x")], has_values=True,
                              attributes=[("VARIABLE_VALUE", "x", _pick(rng, keys))] if rng.random() < 0.5 else []),
                      og.Node(children=[(a, "y")], has_values=True)]
            if rng.random() < 0.5:
                node.children.append((a, "cycle"))
        elif what == 2 and node.children:
            i = int(rng.integers(0, len(node.children)))
            node.children[i] = (node.children[i][0], _pick(rng, ["", "l1", "b", "net", "..", "a/b", "0", "w"]))
        elif what == 3:  # an attribute naming another tensor (of another dtype or shape), or none
            node.attributes = [("VARIABLE_VALUE", "v", _pick(rng, keys + ["missing/key"]))]
        elif what == 4:
            node.slot_variables.append((int(rng.integers(0, n)), _pick(rng, ["m", "v", "momentum"]),
                                        int(rng.integers(0, n))))
        elif what == 5:
            nodes.append(og.Node(children=list(node.children), attributes=list(node.attributes), has_values=True))
            _pick(rng, nodes).children.append((n, "copy"))
        else:
            node.has_values = not node.has_values
        raw = og.encode(nodes)
    else:
        raw = mutate_bytes(rng, raw)
    from rivulet.formats.bundle import _encode_strings
    payload, crc = _encode_strings(np.array([raw], dtype=object))  # a string tensor's CRC covers its lengths
    return _set_tensor(items, data, key, payload, crc)


def _graph_bytes(items, data):
    from rivulet.formats import object_graph as og
    from rivulet.formats.checkpoint_wire import first, parse, read_varint
    entry = dict(items).get(og.OBJECT_GRAPH_KEY.encode())
    if entry is None:
        return None
    msg = parse(entry)
    off, size = first(msg, 4), first(msg, 5)
    buf = data[off:off + size]
    try:
        ln, pos = read_varint(buf, 0)
    except Exception:  # noqa: BLE001
        return None
    return buf[pos + 4:pos + 4 + ln]


def _write(prefix, index, data):
    with open(prefix + ".index", "wb") as f:
        f.write(index)
    if data is not None:
        with open(prefix + _DATA_FILE, "wb") as f:
            f.write(data)
    return prefix


def _warm(base, load):
    """Loads the unchanged base once per process, so that the modules a load imports lazily are imported
    outside the audited load (importing reads .pyc files with marshal)."""
    key = ("warm", base, load)
    if key not in _BASE:
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            load(_write(os.path.join(d, "c"), *_base(base)))
        _BASE[key] = True


def _build(base, load):
    def build(rng, case_dir):
        from rivulet.formats import sstable as table
        _warm(base, load)
        index, data = _base(base)
        mode = int(rng.integers(0, 8))
        if mode == 0:
            index = mutate_bytes(rng, index)
        elif mode == 1:
            data = mutate_bytes(rng, data)
        else:
            items = table.read_table(index)
            tensors = [i for i, (k, _) in enumerate(items) if k]
            if mode == 2:  # one sstable item's key or value
                i = int(rng.integers(0, len(items)))
                k, v = items[i]
                items[i] = (mutate_bytes(rng, k), v) if rng.random() < 0.3 else (k, mutate_bytes(rng, v))
            elif mode == 3:  # one field of a BundleEntryProto (dtype, shape, shard, offset, size, crc, slices)
                i = _pick(rng, tensors)
                items[i] = (items[i][0], _mutate_message(rng, items[i][1], [1, 2, 3, 4, 5, 6, 7]))
            elif mode == 4:  # the header (num_shards, endianness, version)
                items[0] = (b"", _mutate_message(rng, items[0][1], [1, 2, 3]))
            elif mode == 5:  # a tensor's bytes, with a right CRC
                from rivulet.formats.checkpoint_wire import first, parse
                k, v = items[_pick(rng, tensors)]
                msg = parse(v)
                off, size = first(msg, 4), first(msg, 5)
                payload = mutate_bytes(rng, data[off:off + size])
                if rng.random() < 0.5:  # the same length: the entry's shape and size still agree
                    payload = (payload + bytes(size))[:size]
                items, data = _set_tensor(items, data, k, payload)
            else:
                items, data = _mutate_graph(rng, items, data)
            items = sorted(dict(reversed(items)).items())  # keys stay unique and sorted: the first copy wins
            index = table.write_table(items)
            if rng.random() < 0.2:
                index = mutate_bytes(rng, index, 1)
        return _write(os.path.join(case_dir, "c"), index, data if rng.random() < 0.97 else None)
    return build


# ---- loads ------------------------------------------------------------------------------------------------------

_SHAPE_MISMATCH = re.compile(r"Received incompatible tensor with shape")


def _documented(fn):
    """Runs fn, letting a ValueError through only as TensorFlow words it, and an AssertionError only from the
    status's assert_* methods (the load marks those calls)."""
    try:
        return fn()
    except ValueError as e:
        if _SHAPE_MISMATCH.search(str(e)):
            raise
        raise Undocumented(f"ValueError: {e}") from e
    except AssertionError as e:
        if getattr(e, "_from_status", False):
            raise
        raise Undocumented(f"AssertionError: {e}") from e


def _assert(status, method="assert_consumed"):
    try:
        getattr(status, method)()
    except AssertionError as e:
        e._from_status = True
        raise


def _values(objs):
    return [np.asarray(v.numpy()).tolist() for v in objs]


def _load_restore(tree):
    def load(prefix):
        def go():
            import rivulet as tf
            objs = tree()
            status = tf.train.Checkpoint(**objs).restore(prefix)
            _assert(status, "assert_existing_objects_matched")
            _assert(status)
            return _values(v for o in objs.values() for v in ([o] if hasattr(o, "numpy") else o.variables))
        return _documented(go)
    return load


def _load_reader(prefix):
    def go():
        import rivulet as tf
        reader = tf.train.load_checkpoint(prefix)
        dtypes = reader.get_variable_to_dtype_map()
        out = []
        for key, shape in sorted(reader.get_variable_to_shape_map().items()):
            value = reader.get_tensor(key)
            arr = np.asarray(value)
            if not isinstance(value, bytes):
                assert list(arr.shape) == shape, (key, arr.shape, shape)  # a reader that lies is a finding
                if key in dtypes:
                    assert arr.dtype == (object if dtypes[key].name == "string" else dtypes[key].as_numpy_dtype)
            out.append(arr.tolist())
        return out
    try:
        return _documented(go)
    except AssertionError as e:  # the checks above
        raise Undocumented(f"the reader's maps disagree with its tensors: {e}") from e


def _load_keras_adam(prefix):
    def go():
        import rivulet as tf
        m = _seq()
        m.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="mse")
        status = tf.train.Checkpoint(model=m, optimizer=m.optimizer).restore(prefix)
        m.optimizer._create_slots(m.trainable_variables)  # the slots' values were deferred until now
        _assert(status)
        return _values(m.weights + list(m.optimizer.variables))
    return _documented(go)


def _load_weights(prefix):
    def go():
        m = _seq()
        status = m.load_weights(prefix)
        _assert(status)
        return _values(m.weights)
    return _documented(go)


def _allowed():
    from rivulet.errors import DataLossError, InvalidArgumentError, NotFoundError, UnimplementedError
    return DataLossError, InvalidArgumentError, NotFoundError, UnimplementedError, ValueError, AssertionError


_ALLOWED = _allowed()

_PLAN = [  # (name, base, load)
    ("ckpt-restore-rivulet", "rivulet", _load_restore(_module_tree)),
    ("ckpt-reader-rivulet", "rivulet", _load_reader),
    ("ckpt-restore-tf", "net", _load_restore(_net_tree)),
    ("ckpt-reader-tf", "net", _load_reader),
    ("ckpt-keras-adam-tf", "keras_seq", _load_keras_adam),
    ("ckpt-keras-load-weights", "weights", _load_weights),
]
TARGETS = [FuzzTarget(name=name, build=_build(base, load), load=load, allowed=_ALLOWED) for name, base, load in _PLAN]


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.name)
def test_fuzz(target):
    report = run_fuzz(target, n=fuzz_cases(200), seed=SEED)
    assert not report.failures, report.summary()
    print(report.summary())


def test_bases_load(tmp_path):
    """Every base, written back unchanged, loads cleanly through its target (the mutations start from there)."""
    import rivulet as tf
    for name, base, load in _PLAN:
        load(_write(str(tmp_path / name), *_base(base)))
    assert _load_restore(_net_tree)(os.path.join(DATA, "net"))[-1] == 42  # step, from TensorFlow's file
    assert tf.train.load_checkpoint(os.path.join(DATA, "net")).get_tensor("step/.ATTRIBUTES/VARIABLE_VALUE") == 42
