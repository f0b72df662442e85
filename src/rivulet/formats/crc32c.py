"""CRC-32C (Castagnoli), as TensorFlow's checkpoints, LevelDB tables and TFRecord/event files use it.

With the `fast-io` extra (`pip install google-crc32c`, Google's C library with its SSE4.2 / ARMv8 CRC
instructions) the sums are computed in C, about 10 GB/s; without it in NumPy, below. Both give the same
values (tests/checkpoint/test_crc32c.py checks one against the other); `numpy_extend` is always NumPy, and
RIVULET_CRC32C=numpy in the environment keeps the library unused (to measure the path without it).

Short inputs (up to 4 KB, a TFRecord's typical record) use one gathered table: the byte at distance d from
the end contributes P[d][byte] (P[d] = "feed byte, then d zero bytes" from state 0) and the incoming state
is the same as XORing it into the first four bytes, so the CRC is one gather and one XOR-reduction.

The CRC register is linear over GF(2): feeding a 4-byte word w to state s gives F(s ^ w), F being "feed
four zero bytes". Long inputs are read as rows of k words: lane j takes words j, j+k, j+2k ... and
between two of its words the other lanes' words count as zeros, so each row is one vectorised step
s = G(s ^ row) with G = F^k, a fixed linear map applied through two 64K tables. The lanes' last states
are then fed in order as a k-word message of their own, which XORs each lane in at its true offset.
"""
import os

import numpy as np

_POLY = 0x82F63B78  # reflected Castagnoli polynomial
_SMALL = 1 << 12  # up to this many bytes: the positional table (P below); beyond: rows of lanes
_TINY = 48  # up to this many bytes: a Python loop is faster than NumPy's calls
_MASK_DELTA = 0xA282EAD8


def _table():
    t = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        t = np.where(t & 1, (t >> 1) ^ np.uint32(_POLY), t >> 1).astype(np.uint32)
    return t


_T = _table()
_TL = _T.tolist()


def _update_py(state, data):
    t = _TL
    for b in data:
        state = t[(state ^ b) & 0xFF] ^ (state >> 8)
    return state


# ------------------------------------------------------------------------------------------ linear maps
# A linear map on 32-bit states is held as the images of the 32 basis states (a uint32 array of 32).
_BITS = ((np.arange(256)[:, None] >> np.arange(8)) & 1).astype(bool)


def _apply(op, x):
    """op(x) for a uint32 array x, through four 256-entry tables."""
    out = np.zeros_like(x)
    for j in range(4):
        table = np.bitwise_xor.reduce(np.where(_BITS, op[None, 8 * j:8 * j + 8], np.uint32(0)), axis=1)
        out ^= table[(x >> np.uint32(8 * j)) & np.uint32(0xFF)]
    return out


def _compose(a, b):
    """a after b."""
    return _apply(a, b)


_BASIS = np.uint32(1) << np.arange(32, dtype=np.uint32)


def _word_shift():
    """F: feed four zero bytes."""
    x = _BASIS.copy()
    for _ in range(4):
        x = _T[x & 0xFF] ^ (x >> 8)
    return x


_F = _word_shift()
_STEP_TABLES = {}


def _step_tables(k):
    """(LOW, HIGH) with G(x) = LOW[x & 0xFFFF] ^ HIGH[x >> 16], G = F^k."""
    tables = _STEP_TABLES.get(k)
    if tables is None:
        op, power, n = _BASIS.copy(), _F, k  # op = identity; square-and-multiply
        while n:
            if n & 1:
                op = _compose(power, op)
            power = _compose(power, power)
            n >>= 1
        i = np.arange(1 << 16, dtype=np.uint32)
        tables = _STEP_TABLES[k] = (_apply(op, i), _apply(op, i << np.uint32(16)))
    return tables


_POS = []  # [P.reshape(-1), offsets]: P[d] at rows d = 0 .. _SMALL - 1, built on first use


def _positional():
    if not _POS:
        p = np.empty((_SMALL, 256), dtype=np.uint32)
        p[0] = _T
        for d in range(1, _SMALL):  # P[d] = one zero byte fed after P[d - 1]
            prev = p[d - 1]
            np.bitwise_xor(_T[prev & 0xFF], prev >> 8, out=p[d])
        offsets = (np.arange(_SMALL - 1, -1, -1, dtype=np.intp) * 256)  # offsets[i]: row of distance n-1-i
        _POS[:] = [p.reshape(-1), offsets]
    return _POS


def _update_short(state, data):
    """_update for 4 < len(data) <= _SMALL: one gather from the positional table."""
    n = len(data)
    table, offsets = _positional()
    idx = np.frombuffer(data, dtype=np.uint8, count=n).astype(np.intp)
    if state:
        idx[:4] ^= np.frombuffer(state.to_bytes(4, "little"), dtype=np.uint8)  # the state meets bytes 0..3
    idx += offsets[_SMALL - n:]
    return int(np.bitwise_xor.reduce(table.take(idx)))


def _update(state, data):
    """The raw register after feeding `data` (bytes-like) to `state` (no pre/post inversion)."""
    if type(data) is not bytes and type(data) is not bytearray:
        data = memoryview(data)  # an array's bytes (iterating over it would give NumPy scalars)
        if data.format != "B" or data.ndim != 1:
            data = data.cast("B")
    n = len(data)
    if n <= _TINY:
        return _update_py(state, data)
    if n <= _SMALL:
        return _update_short(state, data)
    n_words = n // 4
    k = 1 << max(6, min(16, n_words.bit_length() - 7))  # lanes per row: about 128 rows, at most 64K lanes
    rows = n_words // k
    words = np.frombuffer(data, dtype="<u4", count=rows * k).reshape(rows, k)
    low, high = _step_tables(k)
    s = np.zeros(k, dtype=np.uint32)
    s[0] = state  # the incoming state meets the first word
    lo, tmp = np.empty_like(s), np.empty_like(s)
    for row in words[:-1]:
        s ^= row
        np.bitwise_and(s, 0xFFFF, out=lo)
        s >>= 16
        np.take(low, lo, out=tmp)
        np.take(high, s, out=s)
        s ^= tmp
    s ^= words[-1]
    state = _update(0, s.astype("<u4").tobytes())
    return _update(state, memoryview(data)[rows * k * 4:])


def numpy_extend(crc, data):
    """extend() computed in NumPy, whether or not the C library is installed."""
    return _update(crc ^ 0xFFFFFFFF, data) ^ 0xFFFFFFFF


_CHUNK = 1 << 20  # google-crc32c takes bytes only: other buffers go through it a cached chunk at a time
_NATIVE = []  # [google_crc32c.extend or None], looked up on first use


def _native():
    if not _NATIVE:
        fn = None
        if os.environ.get("RIVULET_CRC32C", "").lower() == "numpy":  # benchmarks: the path without the extra
            _NATIVE.append(None)
            return None
        try:
            import warnings
            with warnings.catch_warnings():  # its pure-Python fallback warns; NumPy is faster than that one
                warnings.simplefilter("ignore")
                import google_crc32c
            if google_crc32c.implementation == "c":
                fn = google_crc32c.extend
        except ImportError:
            pass
        _NATIVE.append(fn)
    return _NATIVE[0]


def extend(crc, data):
    """crc32c of (what gave `crc`) + data (any bytes-like object; read in place)."""
    fn = _NATIVE[0] if _NATIVE else _native()
    if fn is None:
        return _update(crc ^ 0xFFFFFFFF, data) ^ 0xFFFFFFFF
    if type(data) is bytes:
        return fn(crc, data)
    view = data if isinstance(data, memoryview) else memoryview(data)
    if view.ndim != 1 or view.itemsize != 1:
        view = view.cast("B")
    for i in range(0, len(view), _CHUNK):
        crc = fn(crc, view[i:i + _CHUNK].tobytes())
    return crc


def bytes_value():
    """A function computing value(b) of a bytes object b: google-crc32c's own where installed (no Python frame
    between it and the caller, for the millions of short TFRecord records), else value."""
    fn = _native()
    if fn is None:
        return value
    import google_crc32c
    return google_crc32c.value


def native():
    """True when the sums are computed by google-crc32c's C library."""
    return _native() is not None


def value(data):
    return extend(0, data)


def mask(crc):
    """LevelDB's masked CRC (stored CRCs are masked so that a CRC of CRC-bearing data stays robust)."""
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + _MASK_DELTA) & 0xFFFFFFFF


def unmask(masked):
    rot = (masked - _MASK_DELTA) & 0xFFFFFFFF
    return ((rot >> 17) | (rot << 15)) & 0xFFFFFFFF
