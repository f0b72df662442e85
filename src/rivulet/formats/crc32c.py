"""CRC-32C (Castagnoli), as TensorFlow's checkpoints, LevelDB tables and TFRecord/event files use it, in NumPy.

The CRC register is linear over GF(2): feeding a 4-byte word w to state s gives F(s ^ w), F being "feed
four zero bytes". Long inputs are read as rows of k words: lane j takes words j, j+k, j+2k ... and
between two of its words the other lanes' words count as zeros, so each row is one vectorised step
s = G(s ^ row) with G = F^k, a fixed linear map applied through two 64K tables. The lanes' last states
are then fed in order as a k-word message of their own, which XORs each lane in at its true offset.
"""
import numpy as np

_POLY = 0x82F63B78  # reflected Castagnoli polynomial
_SMALL = 1 << 12
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


def _update(state, data):
    """The raw register after feeding `data` (bytes-like) to `state` (no pre/post inversion)."""
    n = len(data)
    if n <= _SMALL:
        return _update_py(state, data)
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


def extend(crc, data):
    """crc32c of (what gave `crc`) + data."""
    return _update(crc ^ 0xFFFFFFFF, data) ^ 0xFFFFFFFF


def value(data):
    return extend(0, data)


def mask(crc):
    """LevelDB's masked CRC (stored CRCs are masked so that a CRC of CRC-bearing data stays robust)."""
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + _MASK_DELTA) & 0xFFFFFFFF


def unmask(masked):
    rot = (masked - _MASK_DELTA) & 0xFFFFFFFF
    return ((rot >> 17) | (rot << 15)) & 0xFFFFFFFF
