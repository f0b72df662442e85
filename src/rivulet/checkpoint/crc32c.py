"""CRC-32C (Castagnoli), as TensorFlow's checkpoints and LevelDB tables use it, in NumPy.

Long inputs are cut into equal chunks whose CRCs are computed side by side (one vectorised table lookup
per byte position), then chained: the CRC register is linear over GF(2), so "feed L more bytes" is
`shift(state) ^ crc_of_chunk_from_zero`, and `shift` is tabulated from the 32 basis states, which ride
along as extra lanes of zero bytes.
"""
import numpy as np

_POLY = 0x82F63B78  # reflected Castagnoli polynomial


def _table():
    t = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        t = np.where(t & 1, (t >> 1) ^ np.uint32(_POLY), t >> 1).astype(np.uint32)
    return t


_T = _table()
_TL = _T.tolist()
_SMALL = 1 << 12
_MASK_DELTA = 0xA282EAD8


def _update_py(state, data):
    t = _TL
    for b in data:
        state = t[(state ^ b) & 0xFF] ^ (state >> 8)
    return state


def _update(state, data):
    """The raw register after feeding `data` (bytes-like) to `state` (no pre/post inversion)."""
    n = len(data)
    if n <= _SMALL:
        return _update_py(state, data)
    buf = np.frombuffer(data, dtype=np.uint8)
    length = max(256, int((n / 10) ** 0.5))
    k = n // length
    body = buf[:k * length].reshape(k, length).T  # (length, k): row i holds byte i of every chunk
    lanes = np.zeros((length, k + 32), dtype=np.uint8)
    lanes[:, :k] = body
    s = np.zeros(k + 32, dtype=np.uint32)
    s[k:] = np.uint32(1) << np.arange(32, dtype=np.uint32)
    t = _T
    for row in lanes:
        s = t[(s ^ row) & 0xFF] ^ (s >> 8)
    chunk, basis = s[:k].tolist(), s[k:]
    # shift tables: image of each byte value in each of the 4 byte positions of the state
    bits = (np.arange(256)[:, None] >> np.arange(8)) & 1  # (256, 8)
    shift = []
    for j in range(4):
        imgs = basis[8 * j:8 * j + 8]
        sel = np.where(bits.astype(bool), imgs[None, :], np.uint32(0))
        shift.append(np.bitwise_xor.reduce(sel, axis=1).tolist())
    s0, s1, s2, s3 = shift
    for c in chunk:
        state = s0[state & 0xFF] ^ s1[(state >> 8) & 0xFF] ^ s2[(state >> 16) & 0xFF] ^ s3[state >> 24] ^ c
    return _update_py(state, buf[k * length:].tobytes())


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
