"""OpenBLAS's idle workers spin ~2**20 cycles after a threaded GEMM, not its default 2**28 (~0.1 s of a core
taken from the caller's next ops on a busy machine), unless the user chose a value."""
import ctypes
import os
import subprocess
import sys

import numpy as np
import pytest

from rivulet.execute import openblas

SCRIPT = """
import ctypes, os, numpy as np
from rivulet.execute import openblas
api = openblas.api()
lib = [l for l in open('/proc/self/maps').read().split() if 'openblas' in l and l.endswith('.so')][0]
dll = ctypes.CDLL(lib)
a = np.ones((512, 512), np.float32)
assert float((a @ a)[0, 0]) == 512.0  # threads restarted with the new setting still compute
print(dll.openblas_thread_timeout(), 'OPENBLAS_THREAD_TIMEOUT' in os.environ)
"""


def _run(env_value=None):
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_THREAD_TIMEOUT"}
    if env_value is not None:
        env["OPENBLAS_THREAD_TIMEOUT"] = env_value
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


needs_openblas = pytest.mark.skipif(openblas.api() is None or not sys.platform.startswith("linux"),
                                    reason="NumPy's OpenBLAS not found")


@needs_openblas
def test_spin_shortened_and_not_passed_on():
    assert _run() == ["20", "False"]


@needs_openblas
def test_users_setting_kept():
    assert _run("26") == ["26", "True"]
