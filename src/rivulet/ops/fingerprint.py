"""TensorFlow's string hashes in Python: FarmHash's Fingerprint64 (farmhashna's 64-bit hash, which
`tf.strings.to_hash_bucket_fast`, Keras' Hashing layer and `tf.sparse.cross_hashed` use), TensorFlow's
FingerprintCat64 (combines fingerprints), its own Hash64 (`tf.strings.to_hash_bucket`) and SipHash-2-4
(`tf.strings.to_hash_bucket_strong`).

Unsigned 64-bit arithmetic is Python ints masked to 64 bits; multi-byte reads are little-endian, as on every
platform TensorFlow fingerprints on (FarmHash fixes the byte order so fingerprints are portable).
"""
import struct

import numpy as np

from .. import dtypes as _dt
from ..core.dispatch import bind
from ..core.op import defop
from ..shape import TensorShape
from ._rules import to_tensor

_M = (1 << 64) - 1
K0 = 0xC3A5C85C97CB3127
K1 = 0xB492B66FBE98F273
K2 = 0x9AE16A3B2F90404F
_CAT_MUL = 0xC6A4A7935BD1E995  # FingerprintCat64's multiplier


def _u64(b, i):
    return struct.unpack_from("<Q", b, i)[0]


def _u32(b, i):
    return struct.unpack_from("<I", b, i)[0]


def _rot(v, s):
    """Rotate right by s (0 < s < 64)."""
    return ((v >> s) | (v << (64 - s))) & _M


def _shift_mix(v):
    return v ^ (v >> 47)


def _len16(u, v, mul):
    a = ((u ^ v) * mul) & _M
    a ^= a >> 47
    b = ((v ^ a) * mul) & _M
    b ^= b >> 47
    return (b * mul) & _M


def _len0to16(s, n):
    if n >= 8:
        mul = K2 + n * 2
        a = (_u64(s, 0) + K2) & _M
        b = _u64(s, n - 8)
        c = (_rot(b, 37) * mul + a) & _M
        d = ((_rot(a, 25) + b) * mul) & _M
        return _len16(c, d, mul)
    if n >= 4:
        mul = K2 + n * 2
        return _len16((n + (_u32(s, 0) << 3)) & _M, _u32(s, n - 4), mul)
    if n > 0:
        y = (s[0] + (s[n >> 1] << 8)) & 0xFFFFFFFF
        z = (n + (s[n - 1] << 2)) & 0xFFFFFFFF
        return (_shift_mix(((y * K2) ^ (z * K0)) & _M) * K2) & _M
    return K2


def _len17to32(s, n):
    mul = K2 + n * 2
    a = (_u64(s, 0) * K1) & _M
    b = _u64(s, 8)
    c = (_u64(s, n - 8) * mul) & _M
    d = (_u64(s, n - 16) * K2) & _M
    return _len16((_rot((a + b) & _M, 43) + _rot(c, 30) + d) & _M, (a + _rot((b + K2) & _M, 18) + c) & _M, mul)


def _len33to64(s, n):
    mul = K2 + n * 2
    a = (_u64(s, 0) * K2) & _M
    b = _u64(s, 8)
    c = (_u64(s, n - 8) * mul) & _M
    d = (_u64(s, n - 16) * K2) & _M
    y = (_rot((a + b) & _M, 43) + _rot(c, 30) + d) & _M
    z = _len16(y, (a + _rot((b + K2) & _M, 18) + c) & _M, mul)
    e = (_u64(s, 16) * mul) & _M
    f = _u64(s, 24)
    g = ((y + _u64(s, n - 32)) * mul) & _M
    h = ((z + _u64(s, n - 24)) * mul) & _M
    return _len16((_rot((e + f) & _M, 43) + _rot(g, 30) + h) & _M, (e + _rot((f + a) & _M, 18) + g) & _M, mul)


def _weak32(s, i, a, b):
    """farmhash's WeakHashLen32WithSeeds over the 32 bytes at s[i:]."""
    w, x, y, z = struct.unpack_from("<4Q", s, i)
    a = (a + w) & _M
    b = _rot((b + a + z) & _M, 21)
    c = a
    a = (a + x + y) & _M
    b = (b + _rot(a, 44)) & _M
    return (a + z) & _M, (b + c) & _M


def fingerprint64(data):
    """FarmHash Fingerprint64 of bytes (str is encoded as UTF-8), an int in [0, 2**64)."""
    s = data.encode() if isinstance(data, str) else bytes(data)
    n = len(s)
    if n <= 16:
        return _len0to16(s, n)
    if n <= 32:
        return _len17to32(s, n)
    if n <= 64:
        return _len33to64(s, n)
    seed = 81
    x = seed
    y = (seed * K1 + 113) & _M
    z = (_shift_mix((y * K2 + 113) & _M) * K2) & _M
    v0 = v1 = w0 = w1 = 0
    x = (x * K2 + _u64(s, 0)) & _M
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    p = 0
    while True:
        x = (_rot((x + y + v0 + _u64(s, p + 8)) & _M, 37) * K1) & _M
        y = (_rot((y + v1 + _u64(s, p + 48)) & _M, 42) * K1) & _M
        x ^= w1
        y = (y + v0 + _u64(s, p + 40)) & _M
        z = (_rot((z + w0) & _M, 33) * K1) & _M
        v0, v1 = _weak32(s, p, (v1 * K1) & _M, (x + w0) & _M)
        w0, w1 = _weak32(s, p + 32, (z + w1) & _M, (y + _u64(s, p + 16)) & _M)
        z, x = x, z
        p += 64
        if p == end:
            break
    mul = K1 + ((z & 0xFF) << 1)
    p = last64
    w0 = (w0 + ((n - 1) & 63)) & _M
    v0 = (v0 + w0) & _M
    w0 = (w0 + v0) & _M
    x = (_rot((x + y + v0 + _u64(s, p + 8)) & _M, 37) * mul) & _M
    y = (_rot((y + v1 + _u64(s, p + 48)) & _M, 42) * mul) & _M
    x ^= (w1 * 9) & _M
    y = (y + v0 * 9 + _u64(s, p + 40)) & _M
    z = (_rot((z + w0) & _M, 33) * mul) & _M
    v0, v1 = _weak32(s, p, (v1 * mul) & _M, (x + w0) & _M)
    w0, w1 = _weak32(s, p + 32, (z + w1) & _M, (y + _u64(s, p + 16)) & _M)
    z, x = x, z
    return _len16((_len16(v0, w0, mul) + _shift_mix(y) * K0 + z) & _M, (_len16(v1, w1, mul) + x) & _M, mul)


def fingerprint_cat64(fp1, fp2):
    """TensorFlow's FingerprintCat64: mixes a second fingerprint into a first (tensorflow/core/platform)."""
    r = fp1 ^ _CAT_MUL
    r ^= (_shift_mix((fp2 * _CAT_MUL) & _M) * _CAT_MUL) & _M
    r = (r * _CAT_MUL) & _M
    r = (_shift_mix(r) * _CAT_MUL) & _M
    return _shift_mix(r)


def hash64(data, seed=0xDECAFCAFFE):
    """TensorFlow's own Hash64 (a MurmurHash64A variant; tf.strings.to_hash_bucket, the legacy hash)."""
    s = data.encode() if isinstance(data, str) else bytes(data)
    n = len(s)
    h = (seed ^ (n * _CAT_MUL)) & _M
    full = n - n % 8
    for i in range(0, full, 8):
        k = (_u64(s, i) * _CAT_MUL) & _M
        k ^= k >> 47
        h ^= (k * _CAT_MUL) & _M
        h = (h * _CAT_MUL) & _M
    if n > full:
        h ^= int.from_bytes(s[full:], "little")
        h = (h * _CAT_MUL) & _M
    h ^= h >> 47
    h = (h * _CAT_MUL) & _M
    return h ^ (h >> 47)


def siphash24(key0, key1, data):
    """SipHash-2-4 of bytes under the 128-bit key (key0, key1) (TensorFlow's to_hash_bucket_strong)."""
    s = data.encode() if isinstance(data, str) else bytes(data)
    v0 = key0 ^ 0x736F6D6570736575
    v1 = key1 ^ 0x646F72616E646F6D
    v2 = key0 ^ 0x6C7967656E657261
    v3 = key1 ^ 0x7465646279746573

    def rounds(v0, v1, v2, v3, k):
        for _ in range(k):
            v0 = (v0 + v1) & _M
            v1 = ((v1 << 13) | (v1 >> 51)) & _M
            v1 ^= v0
            v0 = ((v0 << 32) | (v0 >> 32)) & _M
            v2 = (v2 + v3) & _M
            v3 = ((v3 << 16) | (v3 >> 48)) & _M
            v3 ^= v2
            v0 = (v0 + v3) & _M
            v3 = ((v3 << 21) | (v3 >> 43)) & _M
            v3 ^= v0
            v2 = (v2 + v1) & _M
            v1 = ((v1 << 17) | (v1 >> 47)) & _M
            v1 ^= v2
            v2 = ((v2 << 32) | (v2 >> 32)) & _M
        return v0, v1, v2, v3

    n = len(s)
    full = n - n % 8
    for i in range(0, full, 8):
        m = _u64(s, i)
        v3 ^= m
        v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 2)
        v0 ^= m
    m = ((n & 0xFF) << 56) | int.from_bytes(s[full:], "little")
    v3 ^= m
    v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 2)
    v0 ^= m
    v2 ^= 0xFF
    v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 4)
    return v0 ^ v1 ^ v2 ^ v3


# ---------------------------------------------------------------- hashed feature crosses (dense inputs)
DEFAULT_CROSS_HASH_KEY = 0xDECAFCAFFE  # tf.sparse.cross_hashed's default hash_key


def _cross_hashed_kernel(*columns, num_buckets=0, hash_key=DEFAULT_CROSS_HASH_KEY):
    """Row i of the output crosses row i of every column: strings enter as their Fingerprint64, integers as
    their two's-complement bits, mixed left to right into hash_key with FingerprintCat64 (TensorFlow's
    SparseCrossHashed on dense [N] columns)."""
    feats = []
    for c in columns:
        c = np.asarray(c).reshape(-1)
        if c.dtype == object:
            feats.append([fingerprint64(s) for s in c.tolist()])
        else:
            feats.append([int(v) & _M for v in c.astype(np.int64).tolist()])
    n = len(feats[0]) if feats else 0
    out = np.empty(n, np.int64)
    modulus = num_buckets if num_buckets > 0 else (1 << 63) - 1
    for i in range(n):
        h = hash_key & _M
        for f in feats:
            h = fingerprint_cat64(h, f[i])
        out[i] = h % modulus
    return out


def _cross_hashed_infer(*columns, num_buckets=0, hash_key=DEFAULT_CROSS_HASH_KEY):
    return TensorShape([columns[0].shape[0] if columns[0].shape.rank else None]), _dt.int64


DENSE_CROSS_HASHED = defop("DenseCrossHashed", _cross_hashed_kernel, _cross_hashed_infer)


def cross_hashed_dense(columns, num_buckets=0, hash_key=None, name=None):
    """Hashed cross of equal-length 1-D string/integer tensors -> int64 [N] (bucket ids when num_buckets > 0)."""
    cols = tuple(to_tensor(c) for c in columns)
    return bind(DENSE_CROSS_HASHED, cols, {"num_buckets": int(num_buckets),
                                           "hash_key": DEFAULT_CROSS_HASH_KEY if hash_key is None else int(hash_key)},
                name=name or "DenseCrossHashed")
