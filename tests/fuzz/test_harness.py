"""The fuzz harness itself catches what it promises to: undocumented errors, hangs, memory blow-ups, forbidden
audit events; and passes documented errors and clean loads."""
import os
import subprocess
import time

import numpy as np
import pytest

from tests.fuzz.harness import CANARY, FuzzTarget, mutate_bytes, run_fuzz


def _build(rng, case_dir):
    path = os.path.join(case_dir, "f.bin")
    with open(path, "wb") as f:
        f.write(mutate_bytes(rng, b"0123456789" * 8))
    return path


def _documented(path):
    if os.path.getsize(path) % 2:
        raise ValueError("odd")


def _keyerror(path):
    raise KeyError("x")


def _hang(path):
    time.sleep(60)


def _blowup(path):
    return np.ones(2 ** 31, np.uint8).sum()  # 2 GiB past a 256 MiB cap


def _spawns(path):
    subprocess.run(["true"], check=False)


def _writes_outside(path):
    with open(os.path.join(os.path.dirname(os.path.dirname(path)), "escaped.txt"), "w") as f:
        f.write("x")


def _links_inside(path):  # a relative link made in the case's directory, pointing up and back in
    os.symlink(os.path.join("..", os.path.basename(os.path.dirname(path)), "f.bin"), path + ".lnk")


def _links_outside(path):
    os.symlink(path, os.path.join(os.path.dirname(os.path.dirname(path)), "escaped.lnk"))


def _compiles_canary(path):
    compile(f"{CANARY} = 1", "<from a file>", "exec")


def _bad_build(rng, case_dir):
    raise KeyError("a bug in the target")


def _imports_fresh_module(path):  # a stdlib module imported for the first time reads its .pyc (marshal)
    import importlib
    import sys
    sys.modules.pop("colorsys", None)
    importlib.import_module("colorsys")


def _unmarshals(path):
    import marshal
    marshal.loads(marshal.dumps(1))


def _crashes(path):
    os._exit(7)


def _logs_much(path):  # a reader that logs on every case (a warning to stderr)
    import sys
    sys.stderr.write("a warning line that a reader may log for each file it refuses\n" * 400)


TARGETS = [
    FuzzTarget("documented", _build, _documented, (ValueError,)),
    FuzzTarget("keyerror", _build, _keyerror, (ValueError,)),
    FuzzTarget("hang", _build, _hang, (ValueError,), seconds=0.5),
    FuzzTarget("blowup", _build, _blowup, (ValueError,), mem_mb=256),
    FuzzTarget("spawns", _build, _spawns, (ValueError,)),
    FuzzTarget("writes", _build, _writes_outside, (ValueError,)),
    FuzzTarget("canary", _build, _compiles_canary, (ValueError,)),
    FuzzTarget("crashes", _build, _crashes, (ValueError,)),
    FuzzTarget("bad-build", _bad_build, _documented, (ValueError,)),
    FuzzTarget("imports", _build, _imports_fresh_module, (ValueError,)),
    FuzzTarget("links-inside", _build, _links_inside, (ValueError,)),
    FuzzTarget("links-outside", _build, _links_outside, (ValueError,)),
    FuzzTarget("unmarshals", _build, _unmarshals, (ValueError,)),
    FuzzTarget("logs", _build, _logs_much, (ValueError,), seconds=5.0),
]
_T = {t.name: t for t in TARGETS}


def test_documented_errors_and_clean_loads_pass():
    report = run_fuzz(_T["documented"], n=12, seed=1)
    assert not report.failures, report.summary()
    assert sum(report.counts.values()) == 12
    assert set(report.counts) <= {"ok", "ValueError"}


@pytest.mark.parametrize("name, outcome", [("keyerror", "undocumented KeyError"), ("hang", "timeout"),
                                           ("blowup", "undocumented MemoryError"), ("spawns", "audit"),
                                           ("writes", "audit"), ("canary", "audit"), ("crashes", "child died"),
                                           ("links-outside", "audit")])
def test_findings_are_reported(name, outcome):
    report = run_fuzz(_T[name], n=2, seed=1)
    assert report.counts[outcome] == 2, report.summary()
    assert len(report.failures) == 2 and "replay: python -m tests.fuzz.harness" in report.failures[0]


def test_a_relative_link_made_inside_the_case_is_not_a_finding():
    report = run_fuzz(_T["links-inside"], n=2, seed=1)
    assert not report.failures, report.summary()


def test_first_imports_are_not_findings_but_unmarshalling_is():
    report = run_fuzz(_T["imports"], n=2, seed=1)
    assert not report.failures, report.summary()
    report = run_fuzz(_T["unmarshals"], n=2, seed=1)
    assert report.counts["audit"] == 2, report.summary()


def test_a_target_that_cannot_build_stops_the_run_at_once():
    with pytest.raises(RuntimeError, match="failed to build case 0:(.|\n)*a bug in the target"):
        run_fuzz(_T["bad-build"], n=50, seed=1)


def test_mutations_are_seeded_and_vary():
    data = bytes(range(256))
    a = [mutate_bytes(np.random.default_rng([3, i]), data) for i in range(20)]
    b = [mutate_bytes(np.random.default_rng([3, i]), data) for i in range(20)]
    assert a == b
    assert len(set(a)) > 15


def test_a_reader_that_logs_much_does_not_block_the_run():
    """The child's stderr goes to a file: as a pipe nobody read until the child ended, 64 KiB of warnings
    blocked the child in write() (checkpoint-state-file logs 'Checkpoint ignored' for each refused file)."""
    report = run_fuzz(_T["logs"], n=6, seed=1)
    assert not report.failures, report.summary()
    assert report.counts["ok"] == 6
