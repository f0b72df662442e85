"""Cross-implementation round trips: every format rivulet shares with TensorFlow 2.21, written by one and read
by the other, both ways, value by value and bit for bit. Not part of CI (it needs TensorFlow in another venv).

    python tools/roundtrip_formats.py --tf /tmp/tfvenv/bin/python            # every format, both ways
    python tools/roundtrip_formats.py --tf /tmp/tfvenv/bin/python -k checkpoint --keep /tmp/rt
    python tools/roundtrip_formats.py --tf /tmp/tfvenv/bin/python --mutate 300   # + truncated/bit-flipped TF files

TensorFlow runs only in subprocesses (`--tf PYTHON`); this file imports neither framework at module level. Each
side builds the same cases from `cases()` (NumPy only): every dtype both support (float16, float32/64,
complex64/128, int8..int64, uint8..uint64, bool, string; bfloat16 from TF only, see below) in shapes scalar,
zero-size, rank 1-5 and 8, and big-ish (70k elements, past the 64 KiB a TensorProto's small forms hold), filled with the
dtype's special values (NaN with payloads and sign, -0.0, infinities, the smallest and largest subnormals, the
extremes of every int, bytes with NULs and invalid UTF-8, strings of 300 bytes and 80 KB) and then random bit patterns.
A reader compares what it read with the case it rebuilt: dtype, shape and every byte of the array (strings
element by element). The writer's and the reader's processes each report JSON; the main process prints one line
per format and direction, then every difference.

Formats (writer -> reader, both ways unless said):
  tensor       tf.io.serialize_tensor -> file -> tf.io.parse_tensor (also: are the bytes the same?)
  tensorproto  tf.make_tensor_proto -> SerializeToString -> TensorProto.FromString -> tf.make_ndarray (bytes too)
  checkpoint   tf.train.Checkpoint.write of one variable per case (and two of 20 MB, read in parts on
               several threads) -> Checkpoint.read into zeros,
               tf.train.load_checkpoint(...).get_tensor, list_variables (dtype and shape), load_variable;
               CheckpointManager.save -> latest_checkpoint -> restore
  savedmodel   a tf.Module holding a variable and a constant per case and a signature returning both; a
               module whose signatures and functions echo a tensor of each dtype, called with every case
               (and with a tensor of another dtype, which must be refused, not cast)
               (TF -> rivulet, rivulet -> rivulet: see below)
  example      TFRecord files (uncompressed, GZIP, ZLIB) of tf.train.Example protos (float_list with NaN
               payloads and -0.0, int64_list extremes, bytes_list with NULs), read as raw records and with
               tf.io.parse_example / parse_single_example (FixedLen, VarLen, Ragged features)
  seqexample   TFRecord files of tf.train.SequenceExample (a context feature, a feature list of the case's
               rows) read with parse_single_sequence_example / parse_sequence_example (FixedLenSequence,
               VarLen, Ragged; a missing list with allow_missing)
  rawfile      tf.io.write_file -> tf.io.read_file (every byte value, 1 MiB)
  keras        weights of a Dense stack holding special values (float32, float64 and float16 layers):
               `.weights.h5` and legacy `.h5` (model.save) files, see below
  dataset      tf.data.Dataset.save/load (rivulet -> rivulet, see below)

--mutate N: N truncated or bit-flipped copies of each TF-written file set (serialized tensors, the checkpoint's
.index/.data, a small SavedModel's files, the Example and SequenceExample record files, the Keras 3
.weights.h5), each read by rivulet in one child process (6 GiB address-space cap): every case must end in that
format's documented error (ALLOWED) or a clean read within a second, and a clean read of checksummed data
(checkpoint tensors, SavedModel variables, TFRecords) must give exactly what was written; a truncated record
file must not read.

What it found, fixed with a test each (tests/io, tests/checkpoint, tests/tf_savedmodel): complex values in a
TensorProto's scomplex_val/dcomplex_val (TF SavedModel constants, parse_tensor) lost an imaginary -0.0 and
spread a NaN imaginary part to the real part; parse_tensor refused a string tensor's tensor_content, which TF
reads; serialize_tensor of an empty tensor wrote bytes other than TF's;
tf.constant(b"...", shape=()) held a bare bytes object; Int64List stored a bool as 1; a FixedLenFeature's
default_value 1.7 for int64 was truncated to 1; a bfloat16 value was refused by number ('14', 'unknown dtype enum
14', 'an unsupported dtype'), now by name; tf.train.load_variable, tf.train.SequenceExample with
tf.io.parse_(single_)sequence_example, FixedLenSequenceFeature in parse_example, and tf.make_tensor_proto /
tf.make_ndarray, tf.io.encode_base64/decode_base64 were missing; parse_example's errors were worded otherwise;
checkpoint and parse_tensor errors named dtypes 'float32' for TF's 'float'. Not done: tf.io.decode_compressed
(TensorFlow's returns a truncated stream's partial output without an error).

Deliberate differences (not reported as failures):
- bfloat16: rivulet has no bfloat16 dtype. TF writes bfloat16 cases; rivulet's readers must refuse them with a
  clear error naming the dtype (checked), never read them as another dtype.
- savedmodel: rivulet's tf.saved_model.save writes rivulet's own data-only format (docs/SAVED_MODEL_FORMAT.md),
  which TensorFlow does not read; rivulet reads TensorFlow's (the tf-interop extra), so only TF -> rivulet and
  rivulet -> rivulet are run.
- dataset: Dataset.save writes rivulet's own format (TensorFlow's is its snapshot protos); neither reads the
  other's, so only rivulet -> rivulet is run.
- keras: the TensorFlow venv has Keras 3 (no tf_keras). Weights files go both ways (`.weights.h5`, and the legacy
  `.h5` of model.save read by load_weights); whole models (`.keras`, legacy `.h5`) that rivulet saves load in
  Keras 3 with every weight's bits, while Keras 3's own configs hold its DTypePolicy objects, which rivulet refuses
  with a ValueError ("Unknown object: 'DTypePolicy'"; tf_keras 2.21 has no such class either; checked).
- savedmodel: TensorFlow's writer keeps a complex64 constant as scomplex_val (Python floats) and sets a signalling
  NaN's quiet bit on the way (its own load returns the quieted value, as rivulet's does); so are a float32 scalar
  constant's. Those constants are compared with the quieted value.
- tensor, tensorproto: bytes that differ are listed as notes (none differ now); values must not.
- example: a Python float cannot hold a float32 signalling NaN, so a FloatList built from Python values (in both
  implementations) sets its quiet bit; float_list cases are compared with the quieted value.
- Outside the checked values, found while probing and left as they are: BytesList takes a str (UTF-8; TensorFlow
  2.21's protobuf raises TypeError), TFRecordWriter.write takes a string tensor (TF: TypeError),
  parse_example([]) of an empty Python list parses nothing (TF: ValueError converting it to float32), and a
  loaded TF function called with a tensor of another dtype raises ValueError (TF 2.21: TypeError; both refuse,
  neither casts). (Error texts that named dtypes as rivulet does, 'float32' for TF's 'float', and parse_example's
  batch errors without TF's 'Name: <unknown>, Key: k, Index: i.' were made TF's.)
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

DTYPES = ["float16", "bfloat16", "float32", "float64", "complex64", "complex128", "int8", "int16", "int32",
          "int64", "uint8", "uint16", "uint32", "uint64", "bool", "string"]
SHAPES = {"scalar": (), "empty": (0,), "empty3": (3, 0, 2), "vec": (37,), "mat": (4, 9), "r3": (2, 3, 5),
          "r4": (2, 1, 3, 4), "r5": (2, 1, 3, 1, 2), "r8": (1, 2, 1, 2, 1, 2, 1, 3), "big": (70, 1000)}
STRINGS = [b"", b"\x00", b"a\x00b", b"\xff\xfe invalid utf-8 \x80", "\u00e9\u4e2d".encode(), bytes(range(256)),
           b"x" * 300, b"\x00" * 5, b"\x00\xff" * 40000]  # (the last: 80 KB, past a 64 KiB block)


def _float_specials(bits):
    u = {16: np.uint16, 32: np.uint32, 64: np.uint64}[bits]
    f = {16: np.float16, 32: np.float32, 64: np.float64}[bits]
    exp = {16: 5, 32: 8, 64: 11}[bits]
    man = bits - 1 - exp
    sign = 1 << (bits - 1)
    inf = ((1 << exp) - 1) << man
    pats = [0, sign, inf, sign | inf, inf | (1 << (man - 1)), sign | inf | (1 << (man - 1)),  # +-0, +-inf, +-qNaN
            inf | (1 << (man - 1)) | 0x2B, sign | inf | (1 << (man - 1)) | 1,  # quiet NaNs with payloads
            inf | 1, inf | ((1 << (man - 1)) - 1),  # signalling NaNs (payload only)
            1, sign | 1, (1 << man) - 1, 1 << man,  # subnormals, smallest normal
            inf - 1, sign | (inf - 1)]  # +-max
    arr = np.array(pats, dtype=u).view(f)
    return np.concatenate([arr, np.array([1 / 3, -2.5, 1.0], dtype=f)])


def _int_specials(dt):
    info = np.iinfo(dt)
    vals = {info.min, info.max, 0, 1, info.max - 1, info.min + 1 if info.min else 2, -1 if info.min else 3}
    return np.array(sorted(vals), dtype=dt)


def specials(dtype):
    if dtype in ("float16", "float32", "float64"):
        return _float_specials(int(dtype[5:]))
    if dtype == "bfloat16":  # as its uint16 bit patterns (numpy has no bfloat16)
        return _float_specials(32).view(np.uint32)[:16].__rshift__(16).astype(np.uint16)
    if dtype in ("complex64", "complex128"):
        f = _float_specials(32 if dtype == "complex64" else 64)
        return (f + 0j).astype(dtype) if False else _complex(f, np.roll(f, 3), dtype)
    if dtype == "bool":
        return np.array([False, True])
    if dtype == "string":
        return np.array(STRINGS, dtype=object)
    return _int_specials(np.dtype(dtype))


def _complex(re, im, dtype):
    out = np.empty(len(re), dtype=dtype)
    fl = out.view(re.dtype).reshape(-1, 2)
    fl[:, 0], fl[:, 1] = re, im
    return out


def make_value(dtype, shape, seed):
    """A case's array: its specials, then random bit patterns (bfloat16 as uint16 bits)."""
    n = int(np.prod(shape, dtype=np.int64))
    sp = specials(dtype)
    rng = np.random.default_rng(seed)
    if dtype == "string":
        extra = [bytes(rng.integers(0, 256, int(rng.integers(0, 12)), dtype=np.uint8)) for _ in range(min(n, 3000))]
        flat = (list(sp) + extra * (1 + n // max(len(extra), 1)))[:n]
        out = np.empty(n, dtype=object)
        out[:] = flat
        return out.reshape(shape)
    store = np.uint16 if dtype == "bfloat16" else np.dtype(dtype)
    if dtype == "bool":
        rnd = rng.integers(0, 2, n).astype(bool)
    else:
        nbytes = n * np.dtype(store).itemsize
        rnd = np.frombuffer(rng.bytes(nbytes), dtype=store)
    flat = np.concatenate([sp, rnd])[:n].astype(store, copy=False)
    return flat.reshape(shape).copy()


def cases(dtypes=DTYPES, shapes=SHAPES):
    out = []
    for i, dt in enumerate(dtypes):
        for j, (tag, shape) in enumerate(shapes.items()):
            if dt == "string" and tag == "big":
                shape = (3, 1000)
            out.append((f"{dt}_{tag}", dt, shape, 1000 * i + j))
    return out


def same(expected, got, dtype):
    """None when got is expected bit for bit, else what differs."""
    if isinstance(got, bytes) or (isinstance(got, np.ndarray) and got.dtype.kind == "S" and not got.ndim):
        got = np.array(bytes(got.item() if isinstance(got, np.ndarray) else got), dtype=object)
    got = np.asarray(got)
    if tuple(got.shape) != tuple(expected.shape):
        return f"shape {tuple(got.shape)} != {tuple(expected.shape)}"
    if dtype == "string":
        if got.dtype != object:
            return f"numpy dtype {got.dtype} for a string tensor"
        bad = [k for k, (a, b) in enumerate(zip(expected.ravel(), got.ravel())) if a != b]
        return f"{len(bad)} strings differ, first at {bad[0]}: {got.ravel()[bad[0]]!r:.60} != " \
               f"{expected.ravel()[bad[0]]!r:.60}" if bad else None
    want = np.dtype(np.uint16) if dtype == "bfloat16" else np.dtype(dtype)
    if got.dtype != want:
        return f"dtype {got.dtype} != {want}"
    a, b = expected.reshape(-1).view(np.uint8), np.ascontiguousarray(got).reshape(-1).view(np.uint8)
    if a.tobytes() != b.tobytes():
        k = int(np.flatnonzero(a != b)[0]) // want.itemsize
        return f"bits differ at element {k}: {got.ravel()[k]!r} != {expected.ravel()[k]!r}"
    return None


# --------------------------------------------------------------------------------------------------------------
# The two sides. `impl` is "tf" or "rivulet"; both expose the same small surface.

class Side:
    def __init__(self, impl):
        self.impl = impl
        if impl == "tf":
            os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
            import tensorflow as tf
        else:
            sys.path.insert(0, os.path.join(ROOT, "src"))
            import rivulet as tf
        self.tf = tf

    def supports(self, dtype):
        return self.impl == "tf" or dtype != "bfloat16"

    def dtype(self, name):
        return getattr(self.tf, name)

    def tensor(self, value, dtype):
        tf = self.tf
        if dtype == "bfloat16":
            return tf.bitcast(tf.constant(value), tf.bfloat16)
        if dtype == "string":
            return tf.constant(value.tolist() if value.ndim else value.item(), dtype=tf.string, shape=value.shape)
        return tf.constant(value)

    def numpy(self, t, dtype):
        tf = self.tf
        if dtype == "bfloat16" and t.dtype == getattr(tf, "bfloat16", None):
            return tf.bitcast(t, tf.uint16).numpy()
        if hasattr(t, "numpy"):
            t = t.numpy()
        return np.asarray(t)

    def zeros(self, dtype, shape):
        tf = self.tf
        if dtype == "string":
            return tf.Variable(tf.fill(shape, tf.constant(b"")) if shape else tf.constant(b""))
        if dtype == "bfloat16":
            return tf.Variable(tf.zeros(shape, tf.bfloat16))
        return tf.Variable(tf.zeros(shape, self.dtype(dtype)))


def _err(e):
    return f"{type(e).__module__}.{type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}"


# -- tensor ----------------------------------------------------------------------------------------------------

def write_tensor(side, d, cs):
    os.makedirs(d, exist_ok=True)
    for name, dt, shape, seed in cs:
        if side.supports(dt):
            data = side.tf.io.serialize_tensor(side.tensor(make_value(dt, shape, seed), dt)).numpy()
            with open(os.path.join(d, name + ".pb"), "wb") as f:
                f.write(data)


def read_tensor(side, d, cs):
    res = {}
    for name, dt, shape, seed in cs:
        p = os.path.join(d, name + ".pb")
        if not os.path.exists(p):
            continue
        want = make_value(dt, shape, seed)
        with open(p, "rb") as f:
            data = f.read()
        if not side.supports(dt):
            res[name] = _expect_refusal(lambda: side.tf.io.parse_tensor(data, side.tf.float32), "bfloat16")
            continue
        try:
            got = side.numpy(side.tf.io.parse_tensor(data, side.dtype(dt)), dt)
            res[name] = same(want, got, dt) or "ok"
            if res[name] == "ok":
                mine = side.tf.io.serialize_tensor(side.tensor(want, dt)).numpy()
                if mine != data:
                    res[name] = "ok; note: bytes differ from this side's serialize_tensor " \
                                f"({len(data)} read, {len(mine)} written)"
        except Exception as e:
            res[name] = "ERROR " + _err(e)
    return res


def _expect_refusal(fn, word):
    try:
        fn()
    except Exception as e:
        msg = _err(e)
        named = any(f"{pre}{word}{post}" in msg for pre in ("(", "dtype ", " ") for post in (")", ",", " ", ""))
        named = named and msg.replace(f"{word}_", "").count(word) > 0
        return "ok (refused: " + msg[:160] + ")" if named else "UNCLEAR REFUSAL " + msg
    return "ACCEPTED a " + word + " value"


# -- tensorproto ---------------------------------------------------------------------------------------------

def write_tensorproto(side, d, cs):
    os.makedirs(d, exist_ok=True)
    for name, dt, shape, seed in cs:
        if dt != "bfloat16":  # (NumPy values: NumPy has no bfloat16)
            p = side.tf.make_tensor_proto(make_value(dt, shape, seed))
            with open(os.path.join(d, name + ".pb"), "wb") as f:
                f.write(p.SerializeToString())


def read_tensorproto(side, d, cs):
    tf = side.tf
    if side.impl == "tf":
        from tensorflow.core.framework.tensor_pb2 import TensorProto
    else:
        TensorProto = type(tf.make_tensor_proto(0))
    res = {}
    for name, dt, shape, seed in cs:
        p = os.path.join(d, name + ".pb")
        if not os.path.exists(p):
            continue
        with open(p, "rb") as f:
            data = f.read()
        want = make_value(dt, shape, seed)
        if dt in ("float32", "complex64") and int(np.prod(shape)) <= 1 or dt == "complex64":
            # typed fields travel as Python floats in TensorFlow's make_tensor_proto: a signalling NaN is quieted
            want = want.reshape(-1).view(np.float32).astype(np.float64).astype(np.float32).view(
                want.dtype).reshape(want.shape)
        try:
            got = tf.make_ndarray(TensorProto.FromString(data))
            res[name] = same(want, got, dt) or "ok"
            if res[name] == "ok" and tf.make_tensor_proto(want).SerializeToString() != data:
                res[name] = "ok; note: bytes differ from this side's make_tensor_proto"
        except Exception as e:
            res[name] = "ERROR " + _err(e)
    return res


# -- checkpoint ------------------------------------------------------------------------------------------------

KEY = "{}/.ATTRIBUTES/VARIABLE_VALUE"


def write_checkpoint(side, d, cs):
    tf = side.tf
    huge = [c for c in cs if c in HUGE]
    if huge:  # a checkpoint of their own (the mutations copy the other one per variant)
        tf.train.Checkpoint(**{n: tf.Variable(make_value(dt, shape, seed)) for n, dt, shape, seed in huge}).write(
            os.path.join(d, "huge", "ckpt"))
    vs = {name: tf.Variable(side.tensor(make_value(dt, shape, seed), dt))
          for name, dt, shape, seed in cs if side.supports(dt) and (name, dt, shape, seed) not in HUGE}
    ck = tf.train.Checkpoint(**vs)
    ck.write(os.path.join(d, "plain", "ckpt"))
    mgr = tf.train.CheckpointManager(ck, os.path.join(d, "managed"), max_to_keep=2)
    mgr.save()
    mgr.save()


def read_checkpoint(side, d, cs):
    tf = side.tf
    res = {}
    huge = [c for c in cs if c in HUGE]
    if huge:
        prefix = os.path.join(d, "huge", "ckpt")
        for name, dt, shape, seed in huge:
            try:
                want = make_value(dt, shape, seed)
                p = same(want, tf.train.load_variable(prefix, KEY.format(name)), dt)
                v = side.zeros(dt, shape)
                tf.train.Checkpoint(**{name: v}).read(prefix).assert_existing_objects_matched()
                res[name] = p or same(want, side.numpy(v, dt), dt) or "ok"
            except Exception as e:
                res[name] = "ERROR " + _err(e)
        cs = [c for c in cs if c not in HUGE]
    prefix = os.path.join(d, "plain", "ckpt")
    try:
        reader = tf.train.load_checkpoint(prefix)
        listed = dict((k, tuple(s)) for k, s in tf.train.list_variables(prefix))
        dtypes = reader.get_variable_to_dtype_map()
    except Exception as e:
        return {"*": "ERROR load_checkpoint/list_variables " + _err(e)}
    for name, dt, shape, seed in cs:
        key = KEY.format(name)
        if key not in listed:
            continue
        want = make_value(dt, shape, seed)
        if not side.supports(dt):
            res[name] = _expect_refusal(lambda: reader.get_tensor(key), "bfloat16")
            v = tf.Variable(tf.zeros(shape, tf.float32))
            res[name + "/read"] = _expect_refusal(
                lambda: tf.train.Checkpoint(**{name: v}).read(prefix).assert_consumed(), "bfloat16")
            continue
        probs = []
        try:
            if listed[key] != tuple(shape):
                probs.append(f"list_variables shape {listed[key]} != {shape}")
            if dtypes[key].name != dt:
                probs.append(f"dtype map {dtypes[key].name} != {dt}")
            got = reader.get_tensor(key)
            p = same(want, np.asarray(got), dt)
            if p:
                probs.append("get_tensor: " + p)
            if hasattr(tf.train, "load_variable"):
                p = same(want, np.asarray(tf.train.load_variable(prefix, key)), dt)
                if p:
                    probs.append("load_variable: " + p)
            else:
                probs.append("no tf.train.load_variable")
        except Exception as e:
            probs.append("reader ERROR " + _err(e))
        try:
            v = side.zeros(dt, shape)
            tf.train.Checkpoint(**{name: v}).read(prefix).assert_existing_objects_matched()
            p = same(want, side.numpy(v, dt), dt)
            if p:
                probs.append("Checkpoint.read: " + p)
        except Exception as e:
            probs.append("Checkpoint.read ERROR " + _err(e))
        res[name] = "; ".join(probs) or "ok"
    try:
        latest = tf.train.latest_checkpoint(os.path.join(d, "managed"))
        vs = {name: side.zeros(dt, shape) for name, dt, shape, seed in cs if side.supports(dt)
              and KEY.format(name) in listed}
        tf.train.Checkpoint(**vs).restore(latest).assert_existing_objects_matched()
        bad = [n + ": " + p for (n, dt, shape, seed) in cs if n in vs
               for p in [same(make_value(dt, shape, seed), side.numpy(vs[n], dt), dt)] if p]
        res["manager"] = "; ".join(bad) or "ok (" + os.path.basename(latest) + ")"
    except Exception as e:
        res["manager"] = "ERROR " + _err(e)
    return res


# -- savedmodel ------------------------------------------------------------------------------------------------

def write_savedmodel(side, d, cs):
    _write_savedmodel(side, d, [c for c in cs if c[1] != "bfloat16"])
    if side.impl == "tf":  # a small one for the mutations (a copy of it per variant)
        _write_savedmodel(side, os.path.join(d, "small"), [c for c in cs if c[0].endswith(("_vec", "_scalar"))
                                                            and c[1] != "bfloat16"])
    _write_echo(side, os.path.join(d, "echo"))
    if side.impl == "tf" and any(c[1] == "bfloat16" for c in cs):  # a model of its own: rivulet must refuse it
        _write_savedmodel(side, os.path.join(d, "bfloat16"), [c for c in cs if c[1] == "bfloat16"][:1])


def _write_savedmodel(side, d, cs):
    tf = side.tf
    m = tf.Module()
    values = {name: (make_value(dt, shape, seed), dt) for name, dt, shape, seed in cs if side.supports(dt)}
    for name, (val, dt) in values.items():
        setattr(m, "v_" + name, tf.Variable(side.tensor(val, dt)))

    @tf.function(input_signature=[])
    def serve():
        out = {}
        for name, (val, dt) in values.items():
            out["c_" + name] = side.tensor(val, dt)
            out["v_" + name] = tf.identity(getattr(m, "v_" + name))
        return out

    m.serve = serve
    tf.saved_model.save(m, d, signatures={"serving_default": serve})
    with open(os.path.join(d, "writer.txt"), "w") as f:
        f.write(side.impl)


def _write_echo(side, d):
    """A model whose signatures and tf.functions take a tensor of each dtype and return it (and reshaped)."""
    tf = side.tf
    m = tf.Module()
    fns = {}
    for dt in DTYPES:
        if dt != "bfloat16":
            fns[dt] = tf.function(lambda x: {"y": tf.identity(x), "z": tf.reshape(x, [-1])},
                                  input_signature=[tf.TensorSpec(None, side.dtype(dt))])
            setattr(m, "f_" + dt, fns[dt])
    tf.saved_model.save(m, d, signatures={"s_" + dt: f for dt, f in fns.items()})


def _read_echo(side, d, cs):
    """Every case through the loaded signature and tf.function (its bits back); a tensor of another dtype
    refused, never cast."""
    tf = side.tf
    res = {}
    try:
        m = tf.saved_model.load(d)
    except Exception as e:
        return {"echo": "ERROR load " + _err(e)}
    for name, dt, shape, seed in cs:
        if dt == "bfloat16":
            continue
        v = make_value(dt, shape, seed)
        probs = []
        for kind in ("signature", "function"):
            try:
                fn = m.signatures["s_" + dt] if kind == "signature" else getattr(m, "f_" + dt)
                out = fn(x=side.tensor(v, dt)) if kind == "signature" else fn(side.tensor(v, dt))
                p = same(v, side.numpy(out["y"], dt), dt) or same(v.reshape(-1), side.numpy(out["z"], dt), dt)
                if p:
                    probs.append(kind + ": " + p)
            except Exception as e:
                probs.append(kind + " ERROR " + _err(e))
        res["echo/" + name] = "; ".join(probs) or "ok"
    for dt, other in (("float32", "float64"), ("int64", "int32"), ("string", "int32"), ("uint8", "int8")):
        for kind in ("signature", "function"):
            try:
                fn = m.signatures["s_" + dt] if kind == "signature" else getattr(m, "f_" + dt)
                x = tf.constant(np.zeros(2, other))
                out = fn(x=x) if kind == "signature" else fn(x)
                res[f"echo/{dt}<-{other} {kind}"] = f"CAST to {out['y'].dtype.name}"
            except Exception as e:
                res[f"echo/{dt}<-{other} {kind}"] = "ok (refused: " + _err(e)[:100] + ")"
    return res


def read_savedmodel(side, d, cs):
    tf = side.tf
    res = {}
    if os.path.isdir(os.path.join(d, "echo")):
        res.update(_read_echo(side, os.path.join(d, "echo"), cs))
    if os.path.isdir(os.path.join(d, "bfloat16")):
        res["bfloat16 model"] = _expect_refusal(lambda: tf.saved_model.load(os.path.join(d, "bfloat16")),
                                                "bfloat16")
    cs = [c for c in cs if c[1] != "bfloat16"]
    try:
        m = tf.saved_model.load(d)
        outs = m.signatures["serving_default"]()
    except Exception as e:
        return {"*": "ERROR load " + _err(e)}
    for name, dt, shape, seed in cs:
        if ("c_" + name) not in outs:
            continue
        want = make_value(dt, shape, seed)
        probs = []
        with open(os.path.join(d, "writer.txt")) as f:
            tf_wrote = f.read() == "tf"
        for key, got in (("constant", outs["c_" + name]), ("variable output", outs["v_" + name]),
                         ("variable", getattr(m, "v_" + name, None))):
            if got is None:
                probs.append(key + " missing")
                continue
            if got.dtype.name != dt:
                probs.append(f"{key}: dtype {got.dtype.name}")
                continue
            exp = want
            if tf_wrote and key == "constant" and dt == "complex64":  # TF's writer quiets signalling NaNs
                exp = want.reshape(-1).view(np.float32).astype(np.float64).astype(np.float32).view(
                    np.complex64).reshape(want.shape)
            p = same(exp, side.numpy(got, dt), dt)
            if p:
                probs.append(key + ": " + p)
        res[name] = "; ".join(probs) or "ok"
    return res


# -- example ---------------------------------------------------------------------------------------------------

EX_DTYPES = {"float32": "float_list", "int64": "int64_list", "string": "bytes_list"}
COMPRESSIONS = ["", "GZIP", "ZLIB"]


def _ex_cases(cs):
    return [c for c in cs if c[1] in EX_DTYPES]


def _ex_value(dt, shape, seed):
    """What a float_list can hold: a Python float cannot carry a float32 signalling NaN (the conversion to double
    sets its quiet bit, in both implementations' FloatList), so the expected value is quieted the same way."""
    v = make_value(dt, shape, seed)
    return v.astype(np.float64).astype(np.float32) if dt == "float32" else v


def _example(tf, feats):
    fs = {}
    for key, (val, dt) in feats.items():
        flat = val.ravel().tolist()
        if dt == "float32":
            fs[key] = tf.train.Feature(float_list=tf.train.FloatList(value=flat))
        elif dt == "int64":
            fs[key] = tf.train.Feature(int64_list=tf.train.Int64List(value=flat))
        else:
            fs[key] = tf.train.Feature(bytes_list=tf.train.BytesList(value=flat))
    return tf.train.Example(features=tf.train.Features(feature=fs))


def write_example(side, d, cs):
    tf = side.tf
    os.makedirs(d, exist_ok=True)
    ex = _ex_cases(cs)
    for comp in COMPRESSIONS:
        with tf.io.TFRecordWriter(os.path.join(d, f"ex_{comp or 'NONE'}.tfrecord"), options=comp or None) as w:
            for name, dt, shape, seed in ex:  # one Example a case, holding its values flat as feature "x"
                w.write(_example(tf, {"x": (make_value(dt, shape, seed), dt)}).SerializeToString())
            # one Example holding every case: parse_single_example's FixedLen feature per case
            every = {n: (make_value(dt, shape, seed), dt) for n, dt, shape, seed in ex}
            w.write(_example(tf, every).SerializeToString())
    # float_list's float32 as proto floats: NaN payloads must survive; float32 NaN -> python float -> float32
    # is exact on x86-64 (the quiet bit kept as it is)


def read_example(side, d, cs):
    tf = side.tf
    ex = _ex_cases(cs)
    res = {}
    for comp in COMPRESSIONS:
        path = os.path.join(d, f"ex_{comp or 'NONE'}.tfrecord")
        try:
            recs = [r.numpy() for r in tf.data.TFRecordDataset(path, compression_type=comp)]
        except Exception as e:
            res[comp or "NONE"] = "ERROR TFRecordDataset " + _err(e)
            continue
        if len(recs) != len(ex) + 1:
            res[comp or "NONE"] = f"{len(recs)} records, {len(ex) + 1} written"
            continue
        tag = comp or "NONE"
        for (name, dt, shape, seed), rec in zip(ex, recs):
            want = _ex_value(dt, shape, seed)
            probs = []
            try:
                e = tf.train.Example.FromString(rec)
                f = e.features.feature["x"]
                lst = getattr(f, EX_DTYPES[dt]).value
                got = np.array(list(lst), dtype=object if dt == "string" else dt)
                if dt == "string" and not len(lst):
                    got = np.empty(0, dtype=object)
                p = same(want.ravel(), got, dt)
                if p:
                    probs.append("Example.FromString: " + p)
            except Exception as e:
                probs.append("Example.FromString ERROR " + _err(e))
            tdt = side.dtype(dt)
            n = int(np.prod(shape, dtype=np.int64))
            try:
                sp = tf.io.parse_example([rec], {"x": tf.io.VarLenFeature(tdt)})["x"]
                p = same(want.ravel(), side.numpy(sp.values, dt), dt)
                if p:
                    probs.append("VarLen: " + p)
                rg = tf.io.parse_example([rec], {"x": tf.io.RaggedFeature(tdt)})["x"]
                p = same(want.ravel(), side.numpy(rg.flat_values, dt), dt)
                if p:
                    probs.append("Ragged: " + p)
                fx = tf.io.parse_example([rec], {"x": tf.io.FixedLenFeature(shape, tdt)})["x"]
                p = same(want[None], side.numpy(fx, dt), dt)
                if p:
                    probs.append("FixedLen: " + p)
                if n:
                    fs = tf.io.parse_single_example(rec, {"x": tf.io.FixedLenSequenceFeature(
                        [], tdt, allow_missing=True)})["x"]
                    p = same(want.ravel(), side.numpy(fs, dt), dt)
                    if p:
                        probs.append("FixedLenSequence single: " + p)
                    fb = tf.io.parse_example([rec, rec], {"x": tf.io.FixedLenSequenceFeature(
                        list(shape[1:]), tdt, allow_missing=True)})["x"] if len(shape) else None
                    if fb is not None:
                        p = same(np.stack([want, want]), side.numpy(fb, dt), dt)
                        if p:
                            probs.append("FixedLenSequence batch: " + p)
            except Exception as e:
                probs.append("parse ERROR " + _err(e))
            res[f"{tag}/{name}"] = "; ".join(probs) or "ok"
        try:
            spec = {n: tf.io.FixedLenFeature(shape, side.dtype(dt)) for n, dt, shape, seed in ex}
            got = tf.io.parse_single_example(recs[-1], spec)
            bad = [n + ": " + p for n, dt, shape, seed in ex
                   for p in [same(_ex_value(dt, shape, seed), side.numpy(got[n], dt), dt)] if p]
            res[f"{tag}/all_fixedlen"] = "; ".join(bad) or "ok"
        except Exception as e:
            res[f"{tag}/all_fixedlen"] = "ERROR " + _err(e)
    return res


# -- sequence example -----------------------------------------------------------------------------------------

def _seq_cases(cs):
    return [c for c in _ex_cases(cs) if len(c[2]) >= 1 and 0 not in c[2]]


def _feature(tf, val, dt):
    return _example(tf, {"x": (val, dt)}).features.feature["x"]


def write_seqexample(side, d, cs):
    tf = side.tf
    os.makedirs(d, exist_ok=True)
    for comp in COMPRESSIONS:
        with tf.io.TFRecordWriter(os.path.join(d, f"seq_{comp or 'NONE'}.tfrecord"), options=comp or None) as w:
            for name, dt, shape, seed in _seq_cases(cs):  # steps: the rows of the case's first dim
                v = make_value(dt, shape, seed)
                steps = [_feature(tf, row, dt) for row in v.reshape(shape[0], -1)]
                se = tf.train.SequenceExample(
                    context=tf.train.Features(feature={"c": _feature(tf, v.reshape(shape[0], -1)[0], dt)}),
                    feature_lists=tf.train.FeatureLists(feature_list={"s": tf.train.FeatureList(feature=steps)}))
                w.write(se.SerializeToString())


def read_seqexample(side, d, cs):
    tf = side.tf
    if not hasattr(tf.io, "parse_single_sequence_example"):
        return {"*": "no tf.io.parse_single_sequence_example"}
    res = {}
    sc = _seq_cases(cs)
    for comp in COMPRESSIONS:
        tag = comp or "NONE"
        recs = [r.numpy() for r in tf.data.TFRecordDataset(os.path.join(d, f"seq_{tag}.tfrecord"),
                                                           compression_type=comp)]
        for (name, dt, shape, seed), rec in zip(sc, recs):
            want = _ex_value(dt, shape, seed)
            tdt = side.dtype(dt)
            probs = []
            try:
                se = tf.train.SequenceExample.FromString(rec)
                rows = [np.array(list(getattr(f, EX_DTYPES[dt]).value), dtype=object if dt == "string" else dt)
                        for f in se.feature_lists.feature_list["s"].feature]
                p = same(want.reshape(shape[0], -1), np.stack(rows), dt)
                if p:
                    probs.append("FromString: " + p)
                ctx, seq = tf.io.parse_single_sequence_example(
                    rec, {"c": tf.io.FixedLenFeature(list(shape[1:]), tdt)},
                    {"s": tf.io.FixedLenSequenceFeature(list(shape[1:]), tdt), "missing": tf.io.FixedLenSequenceFeature(
                        [], tdt, allow_missing=True)})
                for what, got, exp in (("context", ctx["c"], want[:1].reshape(shape[1:])),
                                       ("FixedLenSequence", seq["s"], want)):
                    p = same(exp, side.numpy(got, dt), dt)
                    if p:
                        probs.append(what + ": " + p)
                if seq["missing"].shape != (0,):
                    probs.append(f"missing list: shape {seq['missing'].shape}")
                _, seq = tf.io.parse_single_sequence_example(rec, sequence_features={
                    "v": tf.io.VarLenFeature(tdt), "r": tf.io.RaggedFeature(tdt), "s": tf.io.VarLenFeature(tdt)})
                p = same(want.reshape(-1), side.numpy(seq["s"].values, dt), dt)
                if p:
                    probs.append("VarLen: " + p)
                c, seq, lens = tf.io.parse_sequence_example(
                    [rec, rec], sequence_features={"s": tf.io.FixedLenSequenceFeature(list(shape[1:]), tdt)})
                p = same(np.stack([want, want]), side.numpy(seq["s"], dt), dt)
                if p:
                    probs.append("parse_sequence_example: " + p)
                if lens["s"].numpy().tolist() != [shape[0]] * 2:
                    probs.append(f"lengths {lens['s'].numpy().tolist()}")
            except Exception as e:
                probs.append("ERROR " + _err(e))
            res[f"{tag}/{name}"] = "; ".join(probs) or "ok"
    return res


# -- rawfile ---------------------------------------------------------------------------------------------------

def _raw():
    return bytes(range(256)) * 4096


def write_rawfile(side, d, cs):
    os.makedirs(d, exist_ok=True)
    side.tf.io.write_file(os.path.join(d, "raw.bin"), _raw())
    side.tf.io.write_file(os.path.join(d, "empty.bin"), b"")


def read_rawfile(side, d, cs):
    a = side.tf.io.read_file(os.path.join(d, "raw.bin"))
    b = side.tf.io.read_file(os.path.join(d, "empty.bin"))
    ok = a.numpy() == _raw() and b.numpy() == b"" and a.dtype.name == "string" and a.shape == ()
    return {"raw": "ok" if ok else "bytes differ"}


# -- keras -----------------------------------------------------------------------------------------------------

K_DTYPES = ["float32", "float64", "float16"]


def _keras(side):
    if side.impl == "tf":
        import keras
        return keras
    return side.tf.keras


def _kmodel(side, dt):
    keras = _keras(side)
    return keras.Sequential([keras.Input((7,), dtype=dt), keras.layers.Dense(5, dtype=dt, name="d1"),
                             keras.layers.Dense(3, dtype=dt, name="d2")])


def _kweights(dt):
    shapes = [(7, 5), (5,), (5, 3), (3,)]
    return [make_value(dt, s, 77 + i) for i, s in enumerate(shapes)]


def write_keras(side, d, cs):
    os.makedirs(d, exist_ok=True)
    for dt in K_DTYPES:
        m = _kmodel(side, dt)
        m.set_weights(_kweights(dt))
        m.save_weights(os.path.join(d, f"{dt}.weights.h5"))
        m.save(os.path.join(d, f"{dt}.h5"))
        m.save(os.path.join(d, f"{dt}.keras"))
    with open(os.path.join(d, "writer.txt"), "w") as f:
        f.write(side.impl)


def read_keras(side, d, cs):
    res = {}
    for dt in K_DTYPES:
        for kind in ("weights.h5", "h5"):
            p = os.path.join(d, f"{dt}.{kind}")
            try:
                m = _kmodel(side, dt)
                m.load_weights(p)
                got = m.get_weights()
                bad = [f"weight {i}: {q}" for i, (w, g) in enumerate(zip(_kweights(dt), got))
                       for q in [same(w, np.asarray(g), dt)] if q]
                res[f"{dt}.{kind}"] = "; ".join(bad) or "ok"
            except Exception as e:
                res[f"{dt}.{kind}"] = "ERROR " + _err(e)
        with open(os.path.join(d, "writer.txt")) as f:
            keras3_wrote = f.read() == "tf"
        for kind in ("keras", "h5"):  # whole models: load_model
            p = os.path.join(d, f"{dt}.{kind}")
            key = f"{dt}.{kind} load_model"
            try:
                m = _keras(side).models.load_model(p)
                if keras3_wrote and side.impl == "rivulet":
                    res[key] = "LOADED a Keras 3 file (expected the DTypePolicy refusal)"
                    continue
                bad = [f"weight {i}: {q}" for i, (w, g) in enumerate(zip(_kweights(dt), m.get_weights()))
                       for q in [same(w, np.asarray(g), dt)] if q]
                res[key] = "; ".join(bad) or "ok"
            except Exception as e:
                if keras3_wrote and side.impl == "rivulet" and isinstance(e, ValueError) and "DTypePolicy" in str(e):
                    res[key] = "ok (refused: " + _err(e)[:80] + ")"
                else:
                    res[key] = "ERROR " + _err(e)
    return res


# -- dataset ---------------------------------------------------------------------------------------------------

def write_dataset(side, d, cs):
    tf = side.tf
    for comp in (None, "GZIP"):
        for name, dt, shape, seed in cs:
            if side.supports(dt) and name.endswith(("_scalar", "_r3", "_empty3")):
                ds = tf.data.Dataset.from_tensors(side.tensor(make_value(dt, shape, seed), dt))
                ds.save(os.path.join(d, f"{comp}", name), compression=comp)


def read_dataset(side, d, cs):
    tf = side.tf
    res = {}
    for comp in (None, "GZIP"):
        for name, dt, shape, seed in cs:
            p = os.path.join(d, f"{comp}", name)
            if not os.path.isdir(p):
                continue
            try:
                els = list(tf.data.Dataset.load(p, compression=comp))
                res[f"{comp}/{name}"] = same(make_value(dt, shape, seed), side.numpy(els[0], dt), dt) or "ok"
            except Exception as e:
                res[f"{comp}/{name}"] = "ERROR " + _err(e)
    return res


FORMATS = {
    "tensor": (write_tensor, read_tensor, [("tf", "rivulet"), ("rivulet", "tf")]),
    "tensorproto": (write_tensorproto, read_tensorproto, [("tf", "rivulet"), ("rivulet", "tf")]),
    "checkpoint": (write_checkpoint, read_checkpoint, [("tf", "rivulet"), ("rivulet", "tf")]),
    "savedmodel": (write_savedmodel, read_savedmodel, [("tf", "rivulet"), ("rivulet", "rivulet")]),
    "example": (write_example, read_example, [("tf", "rivulet"), ("rivulet", "tf")]),
    "seqexample": (write_seqexample, read_seqexample, [("tf", "rivulet"), ("rivulet", "tf")]),
    "rawfile": (write_rawfile, read_rawfile, [("tf", "rivulet"), ("rivulet", "tf")]),
    "keras": (write_keras, read_keras, [("tf", "rivulet"), ("rivulet", "tf")]),
    "dataset": (write_dataset, read_dataset, [("rivulet", "rivulet")]),
}


# -- mutations of TensorFlow's files ---------------------------------------------------------------------------

MUTATE = {  # format -> (files under the TF-written dir, reader of one mutated copy)
    "tensor": ("*.pb", "tensor"), "checkpoint": ("plain/ckpt.*", "checkpoint"),
    "example": ("ex_*.tfrecord", "example"), "savedmodel": ("small/**/*", "savedmodel"),
    "seqexample": ("seq_*.tfrecord", "seqexample"), "keras": ("float*.weights.h5", "keras"),
}


def mutate_one(side, fmt, path, budget):
    """Read a mutated copy as a user would: 'value' when everything read equals what was written, 'WRONG VALUE
    ...' when a value that a checksum covers came back changed; a raise propagates (counted by type)."""
    tf = side.tf
    cs = {c[0]: c for c in cases()}
    if fmt == "tensor":
        with open(path, "rb") as f:
            data = f.read()
        dt = os.path.basename(path).split("_")[0]
        tf.io.parse_tensor(data, side.dtype(dt) if side.supports(dt) else tf.float32).numpy()
        return "value"  # no checksum: a flipped value byte is a value TensorFlow reads too
    if fmt == "checkpoint":
        prefix = path.rsplit(".", 1)[0] if path.endswith(".index") else path.split(".data-")[0]
        r = tf.train.load_checkpoint(prefix)
        for k, s in tf.train.list_variables(prefix):
            name = k.split("/")[0]
            if name.startswith("bfloat16") or name not in cs:
                continue
            _, dt, shape, seed = cs[name]
            p = same(make_value(dt, shape, seed), np.asarray(r.get_tensor(k)), dt)
            if p:
                return f"WRONG VALUE {k}: {p}"
        return "value"
    if fmt == "example":
        comp = {"GZIP": "GZIP", "ZLIB": "ZLIB"}.get(os.path.basename(path)[3:-9], "")
        recs = [r.numpy() for r in tf.data.TFRecordDataset(path, compression_type=comp)]
        ex = _ex_cases(cases())
        for (name, dt, shape, seed), r in zip(ex, recs):
            e = tf.train.Example.FromString(r)
            lst = list(getattr(e.features.feature["x"], EX_DTYPES[dt]).value)
            got = np.array(lst, dtype=object if dt == "string" else dt).reshape(-1)
            p = same(_ex_value(dt, shape, seed).reshape(-1), got, dt)
            if p:
                return f"WRONG VALUE {name}: {p}"
        return "value"
    if fmt == "keras":  # HDF5 keeps no checksums: a flipped weight byte is a value Keras reads too
        dt = os.path.basename(path).split(".")[0]
        m = _kmodel(side, dt)
        m.load_weights(path)
        for w, g in zip(_kweights(dt), m.get_weights()):
            if np.asarray(g).shape != w.shape or np.asarray(g).dtype != w.dtype:
                return f"WRONG VALUE: a weight of shape {w.shape} {w.dtype} read as {np.shape(g)} {np.asarray(g).dtype}"
        return "value"
    if fmt == "seqexample":
        comp = {"GZIP": "GZIP", "ZLIB": "ZLIB"}.get(os.path.basename(path)[4:-9], "")
        recs = [r.numpy() for r in tf.data.TFRecordDataset(path, compression_type=comp)]
        for (name, dt, shape, seed), r in zip(_seq_cases(cases()), recs):
            _, seq = tf.io.parse_single_sequence_example(r, sequence_features={
                "s": tf.io.FixedLenSequenceFeature(list(shape[1:]), side.dtype(dt))})
            p = same(_ex_value(dt, shape, seed), side.numpy(seq["s"], dt), dt)
            if p:
                return f"WRONG VALUE {name}: {p}"
        return "value"
    if fmt == "savedmodel":
        m = tf.saved_model.load(path)
        m.signatures["serving_default"]()
        for name, (_, dt, shape, seed) in cs.items():
            v = getattr(m, "v_" + name, None)
            if v is not None:  # variables are checksummed; constants in the graph are not (TF reads them too)
                p = same(make_value(dt, shape, seed), side.numpy(v, dt), dt)
                if p:
                    return f"WRONG VALUE v_{name}: {p}"
        return "value"
    raise ValueError(fmt)


# the documented errors of each reader (what TensorFlow raises for a damaged file of that format)
_OPERR = tuple(f"rivulet.errors.{n}" for n in ("DataLossError", "InvalidArgumentError", "NotFoundError",
                                                "UnimplementedError", "OutOfRangeError"))
ALLOWED = {"tensor": _OPERR, "checkpoint": _OPERR, "example": _OPERR + ("rivulet.io.example_proto.DecodeError",),
           "seqexample": _OPERR + ("rivulet.io.example_proto.DecodeError",),
           "savedmodel": _OPERR + ("rivulet.saved_model.format.SavedModelError",),
           "keras": ("builtins.ValueError", "builtins.OSError")}


def run_mutations(tf_dir, fmt, n, seed, rivulet_python):
    """Truncations and bit flips of each TF-written file of `fmt`, each read by rivulet in a child process with
    a time limit; returns counts and the cases that did not end in an error of a documented type in time."""
    import glob
    pat, _ = MUTATE[fmt]
    base = os.path.join(tf_dir, fmt)
    files = sorted(p for p in glob.glob(os.path.join(base, pat), recursive=True) if os.path.isfile(p))
    if fmt == "tensor":
        files = [p for p in files if "_big" not in p and ("_vec" in p or "_r3" in p or "_scalar" in p)]
    rng = np.random.default_rng(seed)
    work = tempfile.mkdtemp(prefix="rt_mut_")
    plan = []
    for i in range(n):
        src = files[i % len(files)]
        with open(src, "rb") as f:
            data = bytearray(f.read())
        kind = "truncate" if rng.random() < 0.4 or not data else "flip"
        if kind == "truncate":
            cut = int(rng.integers(0, max(len(data), 1)))
            data = data[:cut]
            what = f"{os.path.relpath(src, base)} truncated to {cut}"
        else:
            k = int(rng.integers(1, 4))
            pos = rng.integers(0, len(data), k)
            for p in pos:
                data[p] ^= 1 << int(rng.integers(0, 8))
            what = f"{os.path.relpath(src, base)} bits flipped at {sorted(int(p) for p in pos)}"
        case = os.path.join(work, str(i))
        if fmt in ("checkpoint", "savedmodel"):  # the whole directory, one file mutated
            root = os.path.dirname(src) if fmt == "checkpoint" else os.path.join(base, "small")
            shutil.copytree(root, case)
            target = os.path.join(case, os.path.relpath(src, root))
            entry = os.path.join(case, os.path.basename(src)) if fmt == "checkpoint" else case
        else:
            os.makedirs(case)
            target = entry = os.path.join(case, os.path.basename(src))
        with open(target, "wb") as f:
            f.write(bytes(data))
        plan.append((entry, what))
    script = (
        "import json,sys,time,resource\n"
        f"sys.path.insert(0,{os.path.join(ROOT, 'tools')!r})\n"
        "resource.setrlimit(resource.RLIMIT_AS,(6<<30,6<<30))\n"
        "import roundtrip_formats as R\n"
        "s=R.Side('rivulet')\n"
        "for line in sys.stdin:\n"
        "  p=line.rstrip('\\n'); t=time.time()\n"
        "  try: out=R.mutate_one(s,%r,p,1.0)\n"
        "  except MemoryError: out='MemoryError'\n"
        "  except Exception as e:\n"
        "    out='error '+type(e).__module__+'.'+type(e).__name__+': '+str(e)[:200].replace(chr(10),' ')\n"
        "  print(json.dumps([out,time.time()-t]),flush=True)\n" % fmt)
    proc = subprocess.Popen([rivulet_python, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    counts, bad = {}, []
    for entry, what in plan:
        proc.stdin.write(entry + "\n")
        proc.stdin.flush()
        line = proc.stdout.readline()
        if not line:
            bad.append(f"{what}: reader process died")
            proc = subprocess.Popen(proc.args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            continue
        out, secs = json.loads(line)
        key = out.split(":")[0]
        counts[key] = counts.get(key, 0) + 1
        if secs > 1.0:
            bad.append(f"{what}: {secs:.2f} s ({out[:120]})")
        if out.startswith("WRONG VALUE") or (out == "value" and fmt in ("example", "seqexample")
                                              and "truncated" in what and not what.endswith(" 0")):
            bad.append(f"{what}: {out[:300]}")
        if out == "MemoryError" or out.startswith("error") and not out.split(":")[0][6:].startswith(ALLOWED[fmt]):
            bad.append(f"{what}: {out[:300]}")
    proc.stdin.close()
    proc.wait()
    shutil.rmtree(work, ignore_errors=True)
    return counts, bad


# -- driver ----------------------------------------------------------------------------------------------------

# checkpoint only: tensors of 20 MB, which the bundle reader reads in parts on several threads
HUGE = [("float64_huge", "float64", (1250, 2000), 9001), ("uint8_huge", "uint8", (5000, 4000), 9002)]


def worker(impl, action, fmt, d, only):
    side = Side(impl)
    cs = cases() + (HUGE if fmt == "checkpoint" else [])
    if only:
        cs = [c for c in cs if only in c[0]]
    write, read, _ = FORMATS[fmt]
    if action == "write":
        write(side, d, cs)
        return {"written": True}
    return read(side, d, cs)


def _call(python, impl, action, fmt, d, only):
    cmd = [python, os.path.abspath(__file__), "--worker", impl, action, fmt, d, only or ""]
    t = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    if p.returncode:
        return {"*": f"WORKER FAILED ({impl} {action}): " + "\n".join(p.stderr.strip().splitlines()[-6:])}, \
            time.time() - t
    return json.loads(p.stdout.strip().splitlines()[-1]), time.time() - t


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tf", default="/tmp/tfvenv/bin/python", help="a Python with tensorflow 2.21")
    ap.add_argument("-k", "--formats", default="", help="comma-separated formats (default: all)")
    ap.add_argument("--only", default="", help="only cases whose name holds this")
    ap.add_argument("--keep", help="write here and keep the files")
    ap.add_argument("--mutate", type=int, default=0, help="also N mutated copies of each TF-written format")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--worker", nargs=5, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        impl, action, fmt, d, only = args.worker
        print(json.dumps(worker(impl, action, fmt, d, only)))
        return 0
    pythons = {"tf": args.tf, "rivulet": sys.executable}
    root = args.keep or tempfile.mkdtemp(prefix="roundtrip_")
    fmts = [f for f in (args.formats.split(",") if args.formats else FORMATS)]
    failures = 0
    for fmt in fmts:
        for writer, reader in FORMATS[fmt][2]:
            d = os.path.join(root, f"{writer}-{reader}", fmt)
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
            w, tw = _call(pythons[writer], writer, "write", fmt, d, args.only)
            res, tr = _call(pythons[reader], reader, "read", fmt, d, args.only) if "*" not in w else (w, 0)
            bad = {k: v for k, v in res.items() if not str(v).startswith("ok")}
            notes = {k: v for k, v in res.items() if "note:" in str(v)}
            failures += len(bad)
            print(f"{fmt:11s} {writer:>7s} -> {reader:7s}: {len(res) - len(bad)}/{len(res)} ok, "
                  f"{len(notes)} notes  (write {tw:.1f} s, read {tr:.1f} s)", flush=True)
            for k, v in bad.items():
                print(f"    FAIL {k}: {v}")
            for k, v in list(notes.items())[:5]:
                print(f"    note {k}: {v.split('note: ')[1]}")
    if args.mutate:
        for fmt in fmts:
            if fmt in MUTATE:
                tfd = os.path.join(root, "tf-rivulet")
                n = args.mutate
                counts, bad = run_mutations(tfd, fmt, n, args.seed, sys.executable)
                failures += len(bad)
                print(f"mutate {fmt}: {n} variants: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
                for b in bad[:20]:
                    print("    FAIL " + b)
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    print(f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
