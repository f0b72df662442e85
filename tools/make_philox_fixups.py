"""Record src/rivulet/ops/philox_libm_fixups.npz: where glibc's logf/sinf/cosf round differently from the
correctly rounded (double-precision, then float32) value, over the 2**23 inputs TensorFlow's float32 Box-Muller
can pass them (see rivulet/ops/philox.py). Run on Linux with glibc >= 2.28:

    python tools/make_philox_fixups.py

It calls the C library through ctypes once per input (about 25 s). The table stores, per function, the sorted
input indices k (as gaps) and whether glibc's result is one ulp up (packed bits) or down."""
import ctypes
import os

import numpy as np

OUT = os.path.join(os.path.dirname(__file__), "..", "src", "rivulet", "ops", "philox_libm_fixups.npz")


def main():
    libm = ctypes.CDLL("libm.so.6")
    k = np.arange(1 << 23, dtype=np.uint32)
    u = (k | np.uint32(127 << 23)).view(np.float32) - np.float32(1)
    u1 = np.maximum(u, np.float32(1e-7))
    v1 = (2 * np.pi * u.astype(np.float64)).astype(np.float32)
    arrays = {}
    for name, arg, ref64 in (("logf", u1, np.log), ("sinf", v1, np.sin), ("cosf", v1, np.cos)):
        f = getattr(libm, name)
        f.restype, f.argtypes = ctypes.c_float, [ctypes.c_float]
        libc_values = np.fromiter(map(f, arg.tolist()), np.float32, len(arg))
        rounded = ref64(arg.astype(np.float64)).astype(np.float32)
        bad = np.nonzero(libc_values != rounded)[0]
        delta = libc_values[bad].view(np.int32).astype(np.int64) - rounded[bad].view(np.int32)
        assert set(np.unique(delta)) <= {-1, 1}, name
        gaps = np.diff(np.concatenate([[0], bad]))
        arrays[name + "_gaps"] = gaps.astype(np.uint32)
        arrays[name + "_up"] = np.packbits(delta > 0)
        print(name, len(bad), "inputs differ")
    np.savez_compressed(OUT, **arrays)


if __name__ == "__main__":
    main()
