"""Seeded mutation fuzzing of saved models (issue 14): byte flips, truncations, JSON field mutations, hostile
names, attrs, shapes and dtypes, huge shapes, bad offsets inside the .npz archives. Every mutated model is
loaded and, when it loads, each of its functions is called. Only documented errors may come out
(docs/SAVED_MODEL_FORMAT.md: SavedModelError or OSError from load, tf.errors.OpError from a call), and an
audit hook checks that nothing ran: no os.system / subprocess / exec* / spawn*, and no compile or exec of
anything but rivulet's own generated graph code, whose source is checked to hold only its own names.

FUZZ_FILES (default 300) sets how many mutated models are tried, FUZZ_SEED the first seed (default 0); the
outcome counts are printed.
"""
import ast
import collections
import io
import json
import os
import random
import re
import resource
import shutil
import signal
import struct
import sys
import tempfile
import time

import numpy as np
import pytest

import rivulet as tf
from rivulet.core.op import REGISTRY
from rivulet.saved_model import SavedModelError
from rivulet.saved_model.restore import restored_functions as _functions

from .test_corrupt_files import Model as ControlFlow

FILES = ["saved_model.json", "variables.npz", "tensors.npz"]
N_FILES = int(os.environ.get("FUZZ_FILES", 300))
FIRST_SEED = int(os.environ.get("FUZZ_SEED", 0))
CALL_SECONDS = 1.0

# ------------------------------------------------------------------------------------------ the audit hook
_RUN_EVENTS = ("os.system", "subprocess.Popen", "os.exec", "os.spawn", "os.posix_spawn", "os.fork", "os.startfile",
               "pty.spawn", "ctypes.dlopen")
_events = None  # a list while recording


def _hook(event, args):
    ev = _events
    if ev is None:
        return
    if event in _RUN_EVENTS:
        ev.append((event, repr(args)[:200]))
    elif event == "compile":
        source, filename = args
        ev.append(("compile", filename, source))
    elif event == "exec":
        code = args[0]
        ev.append(("exec", getattr(code, "co_filename", repr(code)[:200])))


sys.addaudithook(_hook)  # cannot be removed: it records only while a fuzz run sets _events

_OWN_FILES = re.compile(r"^<rivulet-(graph|call) ")
_OWN_NAMES = re.compile(r"^([avckutzb]\d+(_\d+|_kw|_s)?|graph_fn|fast|args|fn|e|r|_np|_par|_W|_Ws|_OpErrors|_fail|_cg|"
                        r"_dot|_matmul|_dot_bias|_dot_bias_relu|_max|_asarray|_sq|_rq|RuntimeError|str)$")


def _vetted(source):
    """rivulet's generated code holds only its own names: variables, kernels and constants by op id,
    keywords that are declared attr names, no strings but its own."""
    if isinstance(source, bytes):
        source = source.decode()
    if not isinstance(source, str):
        return False
    tree = ast.parse(source)
    attr_names = set().union(*(op.attr_names for op in REGISTRY.values()))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not _OWN_NAMES.match(node.id):
            return False
        if isinstance(node, ast.arg) and not _OWN_NAMES.match(node.arg):
            return False
        if isinstance(node, ast.FunctionDef) and node.name not in ("graph_fn", "fast"):
            return False
        if isinstance(node, ast.keyword) and node.arg is not None and node.arg not in attr_names | {"out"}:
            return False
        if isinstance(node, ast.Attribute) and node.attr not in ("_value", "_v", "reshape", "T"):
            return False
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)) and node.value != "already entered":
            return False
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.Lambda, ast.ClassDef, ast.Global)):
            return False
    return True


def _forbidden(events):
    """The recorded events that are not rivulet compiling and running its own vetted graph code."""
    bad, vetted = [], set()
    for e in events:
        if e[0] == "compile" and isinstance(e[1], str) and _OWN_FILES.match(e[1]) and _vetted(e[2]):
            vetted.add(e[1])
        elif e[0] == "exec" and e[1] in vetted:
            pass
        else:
            bad.append(e[:2] + ((e[2][:300],) if e[0] == "compile" and isinstance(e[2], str) else ()))
    return bad


# ------------------------------------------------------------------------------------------ models
Pair = collections.namedtuple("Pair", ["a", "b"])


class Mixed(tf.Module):
    def __init__(self):
        super().__init__()
        self.k = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))
        self.layers = [{"scale": tf.Variable(2.0)}, (tf.Variable([1, 2, 3]),)]

    @tf.function
    def f(self, p, training=False):
        h = tf.nn.relu(tf.matmul(p.a, self.k) * self.layers[0]["scale"])
        h = tf.reduce_mean(h, axis=1, keepdims=True) if training else tf.nn.softmax(h, axis=-1)
        s = tf.strings.join([tf.strings.as_string(tf.cast(self.layers[1][0], tf.int64)), p.b], separator="-")
        return Pair(tf.reshape(tf.transpose(h), [-1]), s)


def _save(d):
    os.makedirs(d)
    cf = ControlFlow()
    cf(tf.constant([[1.0, 1.0]]))
    tf.saved_model.save(cf, os.path.join(d, "cf"))
    m = Mixed()
    p = Pair(tf.constant([[1.0, 2.0]]), tf.constant(["x", "y", "z"]))
    m.f(p)
    m.f(p, training=True)
    tf.saved_model.save(m, os.path.join(d, "mixed"))
    tf.random.set_seed(0)
    k = tf.keras.Sequential([tf.keras.layers.Conv2D(2, 3, activation="relu", input_shape=(6, 6, 1)),
                             tf.keras.layers.MaxPooling2D(), tf.keras.layers.Flatten(),
                             tf.keras.layers.Dense(3, activation="softmax")])
    k(tf.zeros([1, 6, 6, 1]))
    tf.saved_model.save(k, os.path.join(d, "keras"))
    return [os.path.join(d, name) for name in ("cf", "mixed", "keras")]


# ------------------------------------------------------------------------------------------ mutations
EXPLOIT = "x=__import__('os').system('touch OWNED'), y"
HOSTILE_STRINGS = [EXPLOIT, "__import__('os').system('touch OWNED')", "a\nb", "", "x" * 600, "ñ²", "def", "None",
                   "__class__", "../../etc/passwd", "x:99", "^x", "x:0:1", "Placeholder", "Const", "If", "c0", "v0",
                   "g0", "g9", "resource", "float32", "POSITIONAL_ONLY", "VAR_KEYWORD", "os:system", "exec",
                   "rivulet.ops.control_flow_ops:Branches", "rivulet.ops.control_flow_ops:SubGraph", "__call__",
                   "'); import os; ('", "\x00", "T", "axis", "keepdims", "out", "where", "dtype", "shape", "value"]
DTYPES = ["float32", "float64", "float16", "int32", "int64", "int8", "uint8", "bool", "string", "resource",
          "variant", "complex64", "object", "float128", "", "int"]
HUGE = [2 ** 62 - 1, 2 ** 40, 2 ** 31, 10 ** 9, 2 ** 70, -1, -2 ** 40]


def _hostile_value(rng, depth=0):
    pick = rng.randrange(20 if depth < 3 else 13)
    if pick == 0:
        return rng.choice([0, 1, -1, 2, 3, 7, 2 ** 31, 2 ** 63, 2 ** 70, -2 ** 63])
    if pick == 1:
        return rng.choice([0.5, -0.0, 1e308, -1e308, 3.0])
    if pick == 2:
        return rng.choice([None, True, False])
    if pick == 3:
        return rng.choice(HOSTILE_STRINGS)
    if pick == 4:
        return {"dtype": rng.choice(DTYPES)}
    if pick == 5:
        return {"shape": rng.choice([None, [], [2], [None, 2], [rng.choice(HUGE)], [2 ** 40] * 3, [1] * 300])}
    if pick == 6:
        return {"tensor": rng.choice(["c0", "c1", "c2", "v0", "v1", "../c0", "", "c99"]),
                **({"scalar": True} if rng.random() < 0.3 else {})}
    if pick == 7:
        return {"float": rng.choice(["nan", "inf", "-inf", "1e999", "x"])}
    if pick == 8:
        return {"bytes": rng.choice(["aGk=", "!!", "", "AAAA" * 10])}
    if pick == 9:
        return {"strings": {"shape": rng.choice([[2], [10 ** 12], [-1], [0]]), "items": ["YQ==", "Yg=="]}}
    if pick == 10:
        return {"spec": [rng.choice([[2], None, [2 ** 70]]), rng.choice(DTYPES), rng.choice([None, "x", 3])]}
    if pick == 11:
        return {"namedtuple": [rng.choice(["P", "os", "def", "__x"]),
                               rng.choice([["a"], ["__x"], ["a", "a"], ["class"]]),
                               [1]]}
    if pick == 12:
        return {rng.choice(["subgraph", "out", "variable", "outer", "constant", "literal", "varspec"]):
                rng.choice([0, 1, 99, "g0", "g1", "g9", "x", None, [2]])}
    if pick == 13:
        return {"tuple": [_hostile_value(rng, depth + 1) for _ in range(rng.randrange(4))]}
    if pick == 14:
        return {"list": [_hostile_value(rng, depth + 1) for _ in range(rng.randrange(4))]}
    if pick == 15:
        return {"dict": [[rng.choice(["k", 1, None]), _hostile_value(rng, depth + 1)]]}
    if pick == 16:
        return {"object": [rng.choice(["rivulet.ops.control_flow_ops:Branches", "rivulet.ops.control_flow_ops:LoopBody",
                                       "os:system", "builtins:eval"]),
                           {rng.choice(["subs", "feeds", "out_specs", "cond", "body", "n_vars", "__class__", "run"]):
                            _hostile_value(rng, depth + 1)}]}
    if pick == 17:
        return [_hostile_value(rng, depth + 1) for _ in range(rng.randrange(3))]
    if pick == 18:
        return {rng.choice(["tuple", "tensor", "x", "dtype"]): _hostile_value(rng, depth + 1), "extra": 1}
    return {"tuple": [rng.choice([0, 1, -1, 2 ** 40, None]) for _ in range(rng.randrange(1, 4))]}


def _places(v, path=()):
    yield path, v
    if isinstance(v, dict):
        for k, x in v.items():
            yield from _places(x, path + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from _places(x, path + (i,))


def _set(meta, path, value):
    target = meta
    for k in path[:-1]:
        target = target[k]
    target[path[-1]] = value


def _json_mutation(rng, meta):
    kind = rng.choice(["field", "field", "delete", "name", "attr", "attr", "shape", "dtype", "tensor", "swap",
                       "inputs", "op"])
    places = list(_places(meta))
    nodes = [n for g in meta["graphs"].values() for n in g["nodes"]]
    node = rng.choice(nodes)
    if kind == "field":
        path, _ = rng.choice(places[1:])
        _set(meta, path, _hostile_value(rng))
    elif kind == "delete":
        path, _ = rng.choice([(p, v) for p, v in places[1:] if isinstance(p[-1], str)] or places[1:])
        parent = meta
        for k in path[:-1]:
            parent = parent[k]
        del parent[path[-1]]
    elif kind == "name":
        path, _ = rng.choice([(p, v) for p, v in places if isinstance(v, str)])
        _set(meta, path, rng.choice(HOSTILE_STRINGS))
    elif kind == "attr":
        names = sorted(REGISTRY[node["op"]].attr_names) if node["op"] in REGISTRY else []
        key = rng.choice(names + list(node["attrs"]) + [rng.choice(HOSTILE_STRINGS)] if names or node["attrs"]
                         else [rng.choice(HOSTILE_STRINGS)])
        node["attrs"][key] = _hostile_value(rng)
    elif kind == "shape":
        path, _ = rng.choice([(p, v) for p, v in places if p and p[-1] == "shape"] or places[1:])
        _set(meta, path, rng.choice([[rng.choice(HUGE)], [2 ** 40, 2 ** 40], [None, rng.choice(HUGE)], None, [],
                                     [3, 3], [1] * 255, "2", [2.5]]))
    elif kind == "dtype":
        path, _ = rng.choice([(p, v) for p, v in places if p and p[-1] == "dtype" and isinstance(v, str)]
                             or places[1:])
        _set(meta, path, rng.choice(DTYPES))
    elif kind == "tensor":
        path, _ = rng.choice([(p, v) for p, v in places if p and p[-1] == "tensor"] or places[1:])
        _set(meta, path, rng.choice(["c0", "c1", "c2", "c3", "v0", "v1", "v2", "v3", "c99"]))
    elif kind == "swap":
        other = rng.choice(nodes)
        node["op"], other["op"] = other["op"], node["op"]
        if rng.random() < 0.5:
            node["attrs"], other["attrs"] = other["attrs"], node["attrs"]
    elif kind == "inputs":
        refs = [n["name"] for n in nodes] + [f"{n['name']}:{rng.randrange(4)}" for n in nodes] + \
               [f"^{n['name']}" for n in nodes] + HOSTILE_STRINGS[:12]
        node["inputs"] = [rng.choice(refs) for _ in range(rng.randrange(5))]
    else:
        node["op"] = rng.choice(sorted(REGISTRY))
    return kind


def _zip_offsets(rng, b):
    """Bad offsets inside an .npz: a central-directory entry's local header offset, the end record's
    central directory offset or size, or a member's .npy header (shape, data offset)."""
    b = bytearray(b)
    spots = [("central", m.start() + 42) for m in re.finditer(b"PK\x01\x02", b)]
    spots += [("eocd", m.start() + o) for m in re.finditer(b"PK\x05\x06", b) for o in (12, 16)]
    spots += [("npy", m.start()) for m in re.finditer(rb"\x93NUMPY", b)]
    if not spots:  # an earlier truncation took them all
        return bytes(b[:-1]), "offsets:none"
    what, at = rng.choice(spots)
    if what == "npy":
        header_len = struct.unpack("<H", b[at + 8:at + 10])[0]
        header = bytes(b[at + 10:at + 10 + header_len])
        new = re.sub(rb"'shape': \([^)]*\)", rng.choice([b"'shape': (1099511627776,)", b"'shape': (3,)",
                                                         b"'shape': (-1,)", b"'shape': ()"]), header)
        if rng.random() < 0.5:
            new = new.replace(b"<f4", b"|O").replace(b"<i4", b"<f8")
        new = new[:header_len].ljust(header_len, b" ")
        b[at + 10:at + 10 + header_len] = new
        if rng.random() < 0.3:
            b[at + 8:at + 10] = struct.pack("<H", rng.choice([0, 1, 0xFFFF, header_len + 16]))
    else:
        b[at:at + 4] = struct.pack("<I", rng.choice([0, 1, 2 ** 31, 2 ** 32 - 1, len(b), max(len(b) - 30, 0),
                                                     rng.randrange(len(b))]))
    return bytes(b), f"offsets:{what}"


def _mutate(rng, d):
    """Damages model directory d in place; returns what was done."""
    kind = rng.choice(["flip", "truncate", "json", "json", "json", "json", "offsets", "multi"])
    if kind == "multi":
        return "+".join(_mutate(rng, d) for _ in range(rng.randrange(2, 4)))
    if kind == "json":
        path = os.path.join(d, "saved_model.json")
        try:
            meta = json.load(open(path, "rb"))
        except ValueError:  # an earlier mutation broke the JSON already
            return "json:unreadable"
        try:
            what = _json_mutation(rng, meta)
        except (LookupError, TypeError, AttributeError):  # an earlier mutation changed the layout
            place, _ = rng.choice(list(_places(meta)))
            if not place:
                return "json:unchanged"
            _set(meta, place, _hostile_value(rng))
            what = "field"
        open(path, "w").write(json.dumps(meta))
        return f"json:{what}"
    name = rng.choice(FILES) if kind != "offsets" else rng.choice(FILES[1:])
    path = os.path.join(d, name)
    b = open(path, "rb").read()
    if not b:  # an earlier truncation emptied it
        return f"{kind}:empty"
    if kind == "flip":
        b = bytearray(b)
        for _ in range(rng.randrange(1, 5)):
            b[rng.randrange(len(b))] ^= rng.randrange(1, 256)
        b = bytes(b)
    elif kind == "truncate":
        b = b[:rng.randrange(len(b))]
    else:
        b, kind = _zip_offsets(rng, b)
    open(path, "wb").write(b)
    return kind


# ------------------------------------------------------------------------------------------ calling
def _value(t, rng):
    """An argument matching trace type t (tensors of small shapes, unknown dims as 2)."""
    from rivulet.function.trace_type import Literal, VariableSpec
    if isinstance(t, tf.TensorSpec):
        if t.shape.rank is None:
            shape = [2]
        else:
            shape = [2 if d is None else d for d in t.shape.as_list()]
        if int(np.prod(shape)) > 10 ** 4:
            return None
        if t.dtype == tf.string:
            return tf.constant(np.full(shape, b"ab", dtype=object))
        if t.dtype.as_numpy_dtype is None:
            return None
        return tf.constant(np.ones(shape, t.dtype.as_numpy_dtype))
    if isinstance(t, Literal):
        return t.value
    if isinstance(t, VariableSpec):
        return None
    kind = t[0]
    items = t[3] if kind == "namedtuple" else [v for _, v in t[1]] if kind == "dict" else t[1]
    vals = [_value(x, rng) for x in items]
    if any(v is None and not isinstance(x, Literal) for v, x in zip(vals, items)):
        return None
    if kind == "dict":
        return {k: v for (k, _), v in zip(t[1], vals)}
    if kind == "namedtuple":
        from rivulet.saved_model.format import namedtuple_type
        return namedtuple_type(t[1], list(t[2]))(*vals)
    return vals if kind == "list" else tuple(vals)


class _Timeout(BaseException):
    pass


def _on_alarm(signum, frame):
    raise _Timeout()


def _calls(loaded, rng):
    """Calls every concrete function and signature of a loaded model; yields each call's outcome."""
    for _, fn in _functions(loaded):
        for cf in fn.concrete_functions:
            args = [_value(t, rng) for t in cf._arg_types]
            if any(a is None and not (hasattr(t, "value") and t.value is None) for a, t in zip(args, cf._arg_types)):
                yield "skipped"
                continue
            pos = [a for (_, k), a in zip(cf._params, args) if k.name != "KEYWORD_ONLY"]
            kw = {n: a for (n, k), a in zip(cf._params, args) if k.name == "KEYWORD_ONLY"}
            yield _call(lambda: fn(*pos, **kw))
    for key, cf in loaded.signatures.items():
        vals = [_value(t, rng) for t in cf._arg_types]
        if any(v is None for v in vals):
            yield "skipped"
            continue
        yield _call(lambda: cf(**{n: v for (n, _), v in zip(cf._params, vals)}))


def _call(fn):
    signal.setitimer(signal.ITIMER_REAL, CALL_SECONDS)
    try:
        fn()
        return "ran"
    except tf.errors.OpError as e:
        return f"call raised {type(e).__name__}"
    except ValueError as e:
        assert "Could not find matching concrete function" in str(e), repr(e)
        return "call: no matching function"
    except _Timeout:
        return "call timed out"  # a loop the file made endless: as it would in TensorFlow
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _vm_bytes():
    for line in open("/proc/self/status"):
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    return None


@pytest.mark.skipif(not hasattr(signal, "setitimer") or not os.path.exists("/proc/self/status"),
                    reason="needs POSIX timers and /proc")
def test_mutated_models_raise_only_documented_errors_and_run_nothing(tmp_path, monkeypatch):
    global _events
    monkeypatch.chdir(tmp_path)
    originals = _save(str(tmp_path / "originals"))
    counts, failures = collections.Counter(), []
    old_alarm = signal.signal(signal.SIGALRM, _on_alarm)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    try:
        import encodings.cp437  # noqa: F401  zipfile's codec for names without the UTF-8 flag, imported lazily
        for d in originals:  # lazily imported modules and cached op signatures, before recording starts
            assert set(_calls(tf.saved_model.load(d), random.Random(0))) == {"ran"}
        vm = _vm_bytes()
        if vm is not None:  # a huge shape fails to allocate instead of taking the machine's memory
            limit = vm + (3 << 30)
            limit = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
            resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
        start = time.perf_counter()
        for i in range(N_FILES):
            rng = random.Random(FIRST_SEED + i)
            d = str(tmp_path / f"m{i}")
            shutil.copytree(rng.choice(originals), d)
            what = _mutate(rng, d)
            _events = []
            try:
                try:
                    loaded = tf.saved_model.load(d)
                except SavedModelError as e:
                    assert isinstance(e, tf.errors.DataLossError) and os.path.basename(e.path) in FILES, e.path
                    counts["load: SavedModelError"] += 1
                    continue
                except OSError as e:
                    assert "does not exist" in str(e), repr(e)
                    counts["load: OSError"] += 1
                    continue
                counts["loaded"] += 1
                for outcome in _calls(loaded, rng):
                    counts[outcome] += 1
            except AssertionError as e:
                failures.append((i, what, f"AssertionError: {e}"))
            except Exception as e:  # noqa: BLE001  anything undocumented is a failure to report
                failures.append((i, what, f"{type(e).__name__}: {str(e)[:300]}"))
            finally:
                events, _events = _events, None
                bad = _forbidden(events)
                if bad:
                    failures.append((i, what, f"ran something: {bad[:3]}"))
                shutil.rmtree(d, ignore_errors=True)
    finally:
        _events = None
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        signal.signal(signal.SIGALRM, old_alarm)
    elapsed = time.perf_counter() - start
    print(f"\nfuzzed {N_FILES} mutated saved models in {elapsed:.1f} s: "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    assert not os.path.exists("OWNED")
    assert not failures, "\n".join(f"model {i} ({what}): {err}" for i, what, err in failures[:20])
    assert counts["load: SavedModelError"] and counts["loaded"]  # the fuzzer reaches both sides


def test_the_audit_hook_sees_code_running(tmp_path):
    """The hook this fuzzer relies on does catch what it looks for."""
    global _events
    _events = []
    try:
        exec(compile("x = 1", "<file text>", "exec"), {})
        os.system("true")
    finally:
        events, _events = _events, None
    assert [e[0] for e in _forbidden(events)] == ["compile", "exec", "os.system"]
    assert not _vetted("def graph_fn(a0):\n    return (k1(a0, axis=t1_0, evil=t1_1), )\n")
    assert not _vetted("def graph_fn(a0):\n    return (k1(a0, axis=__import__('os')), )\n")
    assert _vetted("def graph_fn(a0):\n    try:\n        v1 = k1(a0, axis=t1_0)\n        return (_W(v1), )\n"
                   "    except _OpErrors as e:\n        _fail(e, _cg)\n")
