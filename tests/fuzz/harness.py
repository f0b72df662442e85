"""Bounded fuzzing of rivulet's file readers.

A test module (tests/fuzz/test_fuzz_<format>.py) lists FuzzTargets in a module-level TARGETS. run_fuzz runs a
target's cases in a fresh Python process (no state shared with the test session: no threads or Ray forked), under
an address-space cap, a per-case time limit and an audit hook, and reports every case that did not end in a
documented error or a clean load:
- an exception outside the target's `allowed` types (with its traceback tail),
- a case past its time limit (the child is killed if the limit cannot interrupt it),
- a child that died (memory cap reached inside C code, a crash),
- an audit event no reader may cause: a subprocess, os.system/exec, unpickling (pickle.find_class), marshal,
  a socket, a write/rename/remove outside the case's own directory, or an import/compile/exec whose text holds
  CANARY (the marker that builds plant in names, so a name from the file pasted into code is caught).

Case i of a run draws from numpy.random.default_rng([seed, i]) and can be replayed alone:
    python -m tests.fuzz.harness tests/fuzz/test_fuzz_tfrecord.py tfrecord-plain 20261125 17 1 --show
"""
from __future__ import annotations

import collections
import dataclasses
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from typing import Callable

import numpy as np

from rivulet.formats.wire import encode_varint

CANARY = "rivulet_fuzz_canary"
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@dataclasses.dataclass(frozen=True)
class FuzzTarget:
    name: str
    build: Callable  # (rng, case_dir) -> path handed to load
    load: Callable  # (path) -> anything; reads the file as a user would
    allowed: tuple  # documented exception types
    seconds: float = 5.0  # per case, build excluded
    mem_mb: int = 1024  # address space the child may add to what it holds after importing


@dataclasses.dataclass
class FuzzReport:
    target: str
    cases: int
    counts: collections.Counter
    failures: list
    seconds: float

    def summary(self, limit=10):
        lines = [f"{self.target}: {self.cases} cases in {self.seconds:.1f} s: "
                 + ", ".join(f"{k} {v}" for k, v in sorted(self.counts.items()))]
        lines += self.failures[:limit]
        if len(self.failures) > limit:
            lines.append(f"... and {len(self.failures) - limit} more failures")
        return "\n".join(lines)


def fuzz_cases(default):
    """The number of cases per target: `default` in the suite, $RIVULET_FUZZ_CASES for a longer run."""
    env = os.environ.get("RIVULET_FUZZ_CASES")
    return int(env) if env else default


# ---- mutations ---------------------------------------------------------------------------------------------------

_INTERESTING = [0, 1, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF,
                0x7FFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF, 2 ** 40, 100000]


def mutate_bytes(rng, data: bytes, n_mutations=None) -> bytes:
    """`data` with 1-8 random mutations: bit flips, bytes set, interesting little-endian integers or varints
    written over, truncation, and chunks inserted, duplicated or deleted."""
    buf = bytearray(data)
    for _ in range(int(n_mutations or rng.integers(1, 9))):
        kind = int(rng.integers(0, 8))
        pos = int(rng.integers(0, max(1, len(buf))))
        if kind == 0 and buf:  # bit flip
            buf[pos] ^= 1 << int(rng.integers(0, 8))
        elif kind == 1 and buf:  # random byte
            buf[pos] = int(rng.integers(0, 256))
        elif kind == 2:  # interesting integer, 1/2/4/8 bytes little-endian
            width = int(rng.choice([1, 2, 4, 8]))
            v = int(rng.choice(_INTERESTING)) & ((1 << (8 * width)) - 1)
            buf[pos:pos + width] = v.to_bytes(width, "little")
        elif kind == 3:  # interesting varint (protobuf lengths, tags)
            buf[pos:pos + 1] = encode_varint(int(rng.choice(_INTERESTING)))
        elif kind == 4:  # truncate
            del buf[pos:]
        elif kind == 5 and buf:  # duplicate a chunk
            end = min(len(buf), pos + int(rng.integers(1, 64)))
            buf[pos:pos] = buf[pos:end] * int(rng.integers(1, 4))
        elif kind == 6:  # delete a chunk
            del buf[pos:pos + int(rng.integers(1, 32))]
        else:  # insert random bytes
            buf[pos:pos] = rng.integers(0, 256, int(rng.integers(1, 16)), dtype=np.uint8).tobytes()
    return bytes(buf)


# ---- the parent: run and watch child processes -------------------------------------------------------------------

def run_fuzz(target: FuzzTarget, n: int, seed: int) -> FuzzReport:
    """Runs cases 0..n-1 of `target` (found by name in its module's TARGETS) in child processes."""
    module = _module_of(target)
    counts, failures = collections.Counter(), []
    t0 = time.monotonic()
    root = tempfile.mkdtemp(prefix="rivulet_fuzz_")
    try:
        start = 0
        while start < n:
            start = _run_child(module, target, seed, start, n - start, root, counts, failures)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return FuzzReport(target.name, n, counts, failures, time.monotonic() - t0)


def _module_of(target):
    """The file of the module whose TARGETS holds `target` (pytest may import it under another name)."""
    mod = sys.modules.get(getattr(target.build, "__module__", None) or "")
    path = getattr(mod, "__file__", None)
    if path is None or target not in [*getattr(mod, "TARGETS", ()), *getattr(mod, "OPEN_TARGETS", ())]:
        raise ValueError(f"fuzz target {target.name!r}: build must be a function of a module that lists the target "
                         "in its TARGETS")
    return os.path.relpath(path, _ROOT)


def _run_child(module, target, seed, start, count, root, counts, failures):
    """Runs cases start.. in one child; returns the next case to run (past one that killed the child)."""
    cmd = [sys.executable, "-m", "tests.fuzz.harness", module, target.name, str(seed), str(start), str(count), root]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([_ROOT, os.environ.get("PYTHONPATH", "")]))
    # stderr to a file, not a pipe: a reader that logs (warnings on each case) would fill a pipe nobody drains
    # until the child exits, and block there
    errfile = tempfile.TemporaryFile()
    proc = subprocess.Popen(cmd, cwd=_ROOT, stdout=subprocess.PIPE, stderr=errfile, env=env)
    pending = b""
    i = start
    limit = target.seconds + 30.0  # the child's own alarm fires first; this catches a hang inside C code
    deadline = time.monotonic() + limit + 30.0  # + the child's start-up
    try:
        while True:
            ready, _, _ = select.select([proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                proc.kill()
                counts["timeout"] += 1
                failures.append(f"case {i}: no answer within {limit:.0f} s (killed){_replay(module, target, seed, i)}")
                return i + 1
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                break
            pending += chunk
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                rec = json.loads(line)
                if "build_error" in rec:
                    raise RuntimeError(f"fuzz target {target.name!r} failed to build case {i}:\n{rec['build_error']}")
                if "started" in rec:  # a case began: its own deadline
                    i = rec["started"]
                    deadline = time.monotonic() + limit
                    continue
                counts[rec["outcome"]] += 1
                if rec.get("failure"):
                    failures.append(f"case {rec['case']}: {rec['failure']}{_replay(module, target, seed, rec['case'])}")
                i = rec["case"] + 1
                if i == start + count:
                    proc.wait(30)
                    return i
        proc.wait(30)
        errfile.seek(max(0, errfile.seek(0, os.SEEK_END) - 1500))
        err = errfile.read().decode("utf-8", "replace")[-1500:]
        if i == start + count and proc.returncode == 0:
            return i
        counts["child died"] += 1
        failures.append(f"case {i}: the child process died (exit {proc.returncode}; memory cap or crash): "
                        f"{err.strip()}{_replay(module, target, seed, i)}")
        return i + 1
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        errfile.close()


def _replay(module, target, seed, i):
    return f"\n    replay: python -m tests.fuzz.harness {module} {target.name} {seed} {i} 1 --show"


# ---- the child: run cases under the caps ------------------------------------------------------------------------

class _CaseTimeout(BaseException):
    pass


class _Audit:
    """Records the events no reader may cause while `armed` (during load)."""
    _ALWAYS = ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty",
               "pickle.find_class", "marshal.loads", "marshal.load", "socket.connect", "socket.bind",
               "socket.sendto", "ctypes.dlopen", "webbrowser.open")
    _WRITES = ("os.remove", "os.rename", "os.rmdir", "os.unlink", "shutil.rmtree", "shutil.move", "os.mkdir",
               "os.truncate", "os.symlink", "os.link", "os.chmod", "os.chown")

    def __init__(self):
        self.armed = False
        self.case_dir = None
        self.events = []

    def __call__(self, event, args):
        if not self.armed:
            return
        if event.startswith(self._ALWAYS):
            if event.startswith("marshal.") and _in_import_system():
                return  # a module's first import reads its .pyc; imports of names from a file are the canary's job
            self._flag(event, args)
        elif event == "open":
            path, mode, flags = (list(args) + [None, None, None])[:3]
            writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND))
            if writes and not self._inside(path):
                self._flag(event, args)
        elif event.startswith(self._WRITES):
            # a link's target is not written (and a relative one is relative to the link): check where it is made
            paths = args[1:2] if event in ("os.symlink", "os.link") else args
            if not all(self._inside(a) for a in paths if isinstance(a, (str, bytes, os.PathLike))):
                self._flag(event, args)
        elif event in ("import", "compile", "exec"):
            if _holds_canary(args):
                self._flag(event, args)

    def _inside(self, path):
        if isinstance(path, int):  # a file descriptor the reader already holds
            return True
        try:
            p = os.path.realpath(os.fsdecode(path))
        except (TypeError, ValueError):
            return False
        return p == os.devnull or p.startswith(self.case_dir + os.sep) or p == self.case_dir

    def _flag(self, event, args):
        self.events.append(f"{event} {str(args)[:200]}")


def _in_import_system():
    f = sys._getframe(2)
    while f is not None:
        if f.f_code.co_filename.startswith("<frozen importlib"):
            return True
        f = f.f_back
    return False


def _holds_canary(args):
    for a in args:
        if isinstance(a, bytes):
            if CANARY.encode() in a:
                return True
        elif isinstance(a, str):
            if CANARY in a:
                return True
        elif hasattr(a, "co_consts"):  # a code object: its names and constants
            if any(CANARY in str(x) for x in (*a.co_names, *a.co_consts, a.co_filename, a.co_name)):
                return True
    return False


def _child(module, name, seed, start, count, root, show):
    import importlib.util
    import resource
    import signal

    spec = importlib.util.spec_from_file_location("tests.fuzz._target", os.path.join(_ROOT, module))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    targets = {t.name: t for t in [*mod.TARGETS, *getattr(mod, "OPEN_TARGETS", [])]}
    target = targets[name]
    if not show:
        with open("/proc/self/status") as f:
            vm = next(int(line.split()[1]) for line in f if line.startswith("VmSize:")) << 10
        cap = vm + (target.mem_mb << 20)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    audit = _Audit()
    sys.addaudithook(audit)

    def on_alarm(*_):
        raise _CaseTimeout()
    signal.signal(signal.SIGALRM, on_alarm)
    out = sys.stdout
    sys.stdout = sys.stderr  # what a reader prints must not garble the protocol
    for i in range(start, start + count):
        print(json.dumps({"started": i}), file=out, flush=True)
        case_dir = os.path.realpath(os.path.join(root, f"case{i}"))
        os.makedirs(case_dir)
        try:
            path = target.build(np.random.default_rng([seed, i]), case_dir)
        except Exception as e:  # a bug in the target, not a finding: stop the run
            print(json.dumps({"build_error": "".join(traceback.format_exception(e))[-2000:]}), file=out, flush=True)
            return
        audit.case_dir, audit.events = case_dir, []
        outcome, failure = "ok", None
        signal.setitimer(signal.ITIMER_REAL, target.seconds)
        audit.armed = True
        try:
            target.load(path)
        except _CaseTimeout:
            outcome, failure = "timeout", f"still running after {target.seconds} s"
        except target.allowed as e:
            outcome = type(e).__name__
            if show:
                traceback.print_exc()
        except BaseException as e:  # noqa: BLE001 - every other type is the finding
            outcome = f"undocumented {type(e).__name__}"
            tb = traceback.format_exception(e)
            failure = f"{type(e).__name__}: {str(e)[:300]}\n" + "".join(tb[-3:])[-1200:]
            if show:
                traceback.print_exc()
        finally:
            audit.armed = False
            signal.setitimer(signal.ITIMER_REAL, 0)
        if audit.events:
            outcome = "audit"
            failure = (failure + "; " if failure else "") + "audit events: " + "; ".join(audit.events[:5])
        shutil.rmtree(case_dir, ignore_errors=True)
        print(json.dumps({"case": i, "outcome": outcome, "failure": failure}), file=out, flush=True)
        if show:
            print(f"case {i}: {outcome}" + (f"\n{failure}" if failure else ""), file=sys.stderr)


if __name__ == "__main__":
    argv = sys.argv[1:]
    show = "--show" in argv
    argv = [a for a in argv if a != "--show"]
    if len(argv) == 5:  # a replay from the command line
        argv.append(tempfile.mkdtemp(prefix="rivulet_fuzz_"))
    module_, name_, seed_, start_, count_, root_ = argv
    _child(module_, name_, int(seed_), int(start_), int(count_), root_, show)
