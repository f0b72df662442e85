"""Fuzzing of readers on files TensorFlow 2.21 wrote, for what the round-trip checker (tools/roundtrip_formats.py)
exercises and the other targets did not: a checkpoint holding every dtype (float16/32/64, complex64/128, every
int and uint, bool, strings with NULs and invalid UTF-8, bfloat16, which rivulet refuses; 2x3, 0x2 and scalar
each), a SequenceExample with float/int64/bytes feature lists (NaN payloads, int64 extremes, NULs), and
TensorProtos from make_tensor_proto (tensor_content and every typed field) read by tf.make_ndarray.

data/tf_dtypes/ was made by data/tf_dtypes/make.py.txt under TensorFlow 2.21 (values from
tools/roundtrip_formats.make_value); expected.json holds what TensorFlow wrote (little-endian bytes in hex,
strings as hex), read here as data.

Outcomes: a damaged checkpoint may raise only DataLossError, NotFoundError, InvalidArgumentError or
UnimplementedError (bfloat16), and a tensor that reads is exactly what TensorFlow wrote (every tensor is
CRC-checked). A damaged SequenceExample may raise only InvalidArgumentError (TensorFlow's for bad input), or
DecodeError from SequenceExample.FromString; what parses has the spec's dtypes and consistent shapes. A damaged
TensorProto may raise only InvalidArgumentError (TypeError for a dtype make_ndarray does not take); what reads has
the proto's dtype and shape and reads the same after a write.
"""
import json
import os
import shutil

import numpy as np
import pytest

from tests.fuzz.harness import FuzzTarget, fuzz_cases, mutate_bytes, run_fuzz

SEED = 20261126
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "tf_dtypes")
_FILES = ["ckpt.index", "ckpt.data-00000-of-00001"]


class Undocumented(Exception):
    """A load that returned wrong data: never an allowed outcome."""


def _expected():
    with open(os.path.join(DATA, "expected.json")) as f:
        return json.load(f)


def _want(entry):
    if entry["dtype"] == "string":
        out = np.empty(len(entry["value"]), dtype=object)
        out[:] = [bytes.fromhex(h) for h in entry["value"]]
        return out.reshape(entry["shape"])
    dt = np.dtype(entry["dtype"]).newbyteorder("<")
    return np.frombuffer(bytes.fromhex(entry["value"]), dtype=dt).astype(entry["dtype"]).reshape(entry["shape"])


def _same(want, got):
    got = np.asarray(got if not isinstance(got, bytes) else np.array(got, dtype=object))
    if got.shape != want.shape or got.dtype != want.dtype:
        return False
    if want.dtype == object:
        return got.reshape(-1).tolist() == want.reshape(-1).tolist()
    return got.tobytes() == want.tobytes()


# -- checkpoint -----------------------------------------------------------------------------------------------
def build_ckpt(rng, case_dir):
    victim = _FILES[int(rng.integers(len(_FILES)))]
    for name in _FILES:
        if name == victim and rng.random() < 0.05:
            continue  # a file missing
        with open(os.path.join(DATA, name), "rb") as f:
            data = f.read()
        with open(os.path.join(case_dir, name), "wb") as f:
            f.write(mutate_bytes(rng, data) if name == victim else data)
    return os.path.join(case_dir, "ckpt")


def load_ckpt(prefix):
    import rivulet as tf
    from rivulet.errors import UnimplementedError
    expected = _expected()
    reader = tf.train.load_checkpoint(prefix)
    read = 0
    for key in reader.get_variable_to_shape_map():
        try:
            value = reader.get_tensor(key)
        except UnimplementedError:
            if key.startswith("bfloat16"):
                continue
            raise
        if key in expected:
            if expected[key]["dtype"] == "bfloat16" or not _same(_want(expected[key]), value):
                raise Undocumented(f"{key} read as {np.asarray(value).dtype} {np.shape(value)}")
            read += 1
    # restoring into variables of the written dtypes and shapes: every value exactly, or an error
    names = [k.split("/")[0] for k in expected if k.endswith("VARIABLE_VALUE") and not k.startswith("bfloat16")]
    vs = {}
    for n in names:
        w = _want(expected[n + "/.ATTRIBUTES/VARIABLE_VALUE"])
        init = np.zeros(w.shape, dtype=w.dtype) if w.dtype != object else np.full(w.shape, b"", dtype=object)
        vs[n] = tf.Variable(init, dtype=tf.string if w.dtype == object else None)
    tf.train.Checkpoint(**vs).read(prefix)
    for n, v in vs.items():
        if not _same(_want(expected[n + "/.ATTRIBUTES/VARIABLE_VALUE"]), v.numpy()):
            raise Undocumented(f"{n} restored as {v.dtype.name} {v.shape}")
    return read


# -- SequenceExample ------------------------------------------------------------------------------------------
def build_seq(rng, case_dir):
    with open(os.path.join(DATA, "seq.pb"), "rb") as f:
        data = f.read()
    path = os.path.join(case_dir, "seq.pb")
    with open(path, "wb") as f:
        f.write(mutate_bytes(rng, data) if rng.random() < 0.95 else data)
    return path


def _spec(tf):
    return ({"c": tf.io.FixedLenFeature([2], tf.int64), "cb": tf.io.VarLenFeature(tf.string)},
            {"f": tf.io.RaggedFeature(tf.float32), "i": tf.io.VarLenFeature(tf.int64),
             "b": tf.io.FixedLenSequenceFeature([3], tf.string, allow_missing=True),
             "g": tf.io.FixedLenSequenceFeature([], tf.float32, allow_missing=True)})


def load_seq(path):
    import rivulet as tf
    with open(path, "rb") as f:
        data = f.read()
    ctx_spec, seq_spec = _spec(tf)
    ctx, seq = tf.io.parse_single_sequence_example(data, ctx_spec, seq_spec)
    c2, s2, lengths = tf.io.parse_sequence_example([data, data], ctx_spec, seq_spec)
    if ctx["c"].dtype != tf.int64 or ctx["c"].shape != (2,) or seq["f"].flat_values.dtype != tf.float32:
        raise Undocumented("a context or sequence value of another dtype or shape")
    if seq["b"].dtype != tf.string or seq["b"].shape[1:] != (3,) or s2["b"].shape[0] != 2:
        raise Undocumented(f"FixedLenSequenceFeature read as {seq['b'].dtype.name} {seq['b'].shape}")
    if lengths["b"].numpy().tolist() != [seq["b"].shape[0]] * 2:
        raise Undocumented("lengths disagree with the single parse")
    if data == open(os.path.join(DATA, "seq.pb"), "rb").read():
        want = _expected()["seq.pb"]["f"]
        if seq["f"].flat_values.numpy().view(np.uint32).tolist() != want:
            raise Undocumented("the undamaged feature list 'f' changed")
    return seq["i"].values.numpy().tolist()


def load_seq_message(path):
    import rivulet as tf
    with open(path, "rb") as f:
        se = tf.train.SequenceExample.FromString(f.read())
    return str(se), se.SerializeToString()


# -- TensorProto (tf.make_ndarray of TensorProto.FromString) --------------------------------------------------
_PROTOS = [  # TensorFlow 2.21's make_tensor_proto(...).SerializeToString() of: [nan, -0.0] float32, 1.5, the
    # strings [b"a", "b"], int 1 in shape [2, 2], complex64 [1+2j, 3], uint64 max, float16 1.5, zeros((2, 0))
    b'\x08\x01\x12\x04\x12\x02\x08\x02"\x08\x00\x00\xc0\x7f\x00\x00\x00\x80', b"\x08\x01\x12\x00*\x04\x00\x00\xc0?",
    b"\x08\x07\x12\x04\x12\x02\x08\x02B\x01aB\x01b", b"\x08\x03\x12\x08\x12\x02\x08\x02\x12\x02\x08\x02:\x01\x01",
    b"\x08\x08\x12\x04\x12\x02\x08\x02J\x10\x00\x00\x80?\x00\x00\x00@\x00\x00@@\x00\x00\x00\x00",
    b"\x08\x17\x12\x00\x8a\x01\n\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", b"\x08\x13\x12\x00j\x02\x80|",
    b"\x08\x02\x12\x06\x12\x02\x08\x02\x12\x00"]


def build_proto(rng, case_dir):
    path = os.path.join(case_dir, "t.pb")
    with open(path, "wb") as f:
        f.write(mutate_bytes(rng, _PROTOS[int(rng.integers(len(_PROTOS)))]))
    return path


def load_proto(path):
    import rivulet as tf
    with open(path, "rb") as f:
        data = f.read()
    proto = type(tf.make_tensor_proto(0)).FromString(data)
    arr = tf.make_ndarray(proto)
    if arr.dtype != (object if proto.dtype == 7 else tf.dtypes.as_dtype(proto.dtype).as_numpy_dtype):
        raise Undocumented(f"dtype {proto.dtype} read as {arr.dtype}")
    if list(arr.shape) != [d.size for d in proto.tensor_shape.dim]:
        raise Undocumented(f"shape {arr.shape} against the proto's {[d.size for d in proto.tensor_shape.dim]}")
    again = tf.make_ndarray(type(proto).FromString(proto.SerializeToString()))
    if again.dtype != arr.dtype or again.shape != arr.shape or (
            again.tolist() != arr.tolist() if arr.dtype == object else again.tobytes() != arr.tobytes()):
        raise Undocumented("a proto read, written and read again changed")
    return arr


def _allowed_proto():
    from rivulet.errors import InvalidArgumentError
    return InvalidArgumentError, TypeError


def _allowed_ckpt():
    from rivulet.errors import DataLossError, InvalidArgumentError, NotFoundError, UnimplementedError
    return DataLossError, InvalidArgumentError, NotFoundError, UnimplementedError


def _allowed_seq():
    from rivulet.errors import InvalidArgumentError
    return (InvalidArgumentError,)


def _allowed_message():
    from rivulet.io.example_proto import DecodeError
    return (DecodeError,)


TARGETS = [
    FuzzTarget(name="ckpt-every-dtype-tf", build=build_ckpt, load=load_ckpt, allowed=_allowed_ckpt(), seconds=2.0,
               mem_mb=300),
    FuzzTarget(name="sequence-example-parse-tf", build=build_seq, load=load_seq, allowed=_allowed_seq(),
               seconds=2.0, mem_mb=300),
    FuzzTarget(name="tensor-proto-tf", build=build_proto, load=load_proto, allowed=_allowed_proto(), seconds=2.0,
               mem_mb=300),
    FuzzTarget(name="sequence-example-fromstring-tf", build=build_seq, load=load_seq_message,
               allowed=_allowed_message(), seconds=2.0, mem_mb=300),
]


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.name)
def test_fuzz(target):
    report = run_fuzz(target, n=fuzz_cases(150), seed=SEED)
    print(report.summary())
    assert not report.failures, report.summary()


def test_bases_are_valid(tmp_path):
    """The undamaged files load: every tensor but the bfloat16 ones, and the SequenceExample's values."""
    for name in _FILES:
        shutil.copy(os.path.join(DATA, name), tmp_path / name)
    assert load_ckpt(str(tmp_path / "ckpt")) == 3 * 15
    shutil.copy(os.path.join(DATA, "seq.pb"), tmp_path / "seq.pb")
    assert load_seq(str(tmp_path / "seq.pb")) == [2 ** 63 - 1, 1, 2, 3]
