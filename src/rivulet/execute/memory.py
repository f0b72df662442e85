"""The C heap's policy for training (glibc): freed memory is kept for the next step.

A training step allocates and frees the same arrays every step; a loop's gradient keeps every iteration's
values (its stash) until the backward loop has used them. glibc's defaults hand the free top of the heap
back to the system past 128 KiB and serve blocks above a moving threshold by mmap, so every step faults
the same pages in again: a quarter of an LSTM text classifier's fit epoch (235 -> 180 ms of CPU).
TensorFlow keeps its tensors' memory in its own allocators; rivulet asks glibc once (mallopt, when a
compiled loop gradient is first built or a convolution or pool kernel first runs) to keep up to 256 MiB of
free heap, to grow the heap 16 MiB at a time and to serve blocks under 32 MiB (glibc's largest threshold) from
the heap: a convnet's activations and gradients are megabytes each (11 MiB for a 128x26x26x32 float32 batch),
and with a 4 MiB threshold bench_train.py's convnet epoch still took 30,700 page faults (270 ms of system
time of 1,085 ms CPU), 375 (8 ms) with 32 MiB; without the settings 233,000 (640 of 1,540 ms). Nothing changes where the C library is not glibc, where
the process chose its own malloc settings (MALLOC_*_ environment variables, GLIBC_TUNABLES), or with the
optimizer option `retain_heap` off.
"""
import ctypes
import os
import sys
import threading

from . import options

M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3
SETTINGS = ((M_TRIM_THRESHOLD, 256 << 20), (M_TOP_PAD, 16 << 20), (M_MMAP_THRESHOLD, 32 << 20))
_ENV = ("MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_MMAP_THRESHOLD_", "GLIBC_TUNABLES")
_lock = threading.Lock()
_state = {"done": False, "applied": False}


def _mallopt():
    """glibc's mallopt, or None (another C library, or no C library to load)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)
        if not hasattr(libc, "gnu_get_libc_version"):  # musl and others: their own heaps
            return None
        fn = libc.mallopt
    except (OSError, AttributeError):
        return None
    fn.argtypes, fn.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return fn


def retain_heap():
    """Applies the settings above once per process; returns whether they are in effect."""
    if _state["done"]:
        return _state["applied"]
    with _lock:
        if not _state["done"]:
            _state["done"] = True
            if options.enabled("retain_heap") and not any(k in os.environ for k in _ENV):
                fn = _mallopt()
                if fn is not None:
                    _state["applied"] = all(fn(k, v) == 1 for k, v in SETTINGS)
    return _state["applied"]
