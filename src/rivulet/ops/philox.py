"""Philox-4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11) and TensorFlow's
conversions of its bits into values, vectorised with NumPy, so rivulet's random numbers are TensorFlow's.

A Philox "call" maps a 128-bit counter and a 64-bit key to four uint32 words. A stream is a key and a
starting counter; call i of the stream uses counter + i. TensorFlow's CPU kernels give output element j the
words of call j // per_call, where per_call is how many values one call's four words make (4 float32, 2
float64 or int64 ...), so every value depends only on (key, counter, j), never on threading.

Conversions, as TensorFlow defines them (and documents in its random-number guide):
- uniform float32: 23 random mantissa bits under exponent 0, minus 1 (values k * 2**-23 in [0, 1));
  float64 takes 52 bits from two words, float16 10 bits from the low half of one word;
- normal: Box-Muller on two uniforms (u1 clamped to >= 1e-7): sqrt(-2 log u1) * (sin, cos)(2 pi u2);
  float32 uses the C library's single-precision logf/sinf/cosf (see _fixups below);
- truncated normal: normals outside (-2, 2) are rejected; each group of outputs has its own sub-stream
  (256 words per value apart) consumed word by word;
- integers in [lo, hi): lo + bits % (hi - lo), from one word (32-bit types) or two (64-bit).

Speed (the values stay the above, bit for bit): a stream runs in chunks of 16384 calls whose arrays stay in
cache, with the first two rounds folded (_run); big draws spread their chunks over helper threads (chunked);
conversions to values run chunk by chunk while the words are in cache (_mapped); the float32 Box-Muller takes
sin/cos by angle addition (_sincos). A nondeterministic draw (key None) takes its words from PCG64 instead.
"""
import math
import os
import threading

import numpy as np

_U32 = np.uint64(0xFFFFFFFF)
_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)  # the Philox-4x32 multipliers
_W0, _W1 = 0x9E3779B9, 0xBB67AE85                        # key increments (golden ratio, sqrt(3) - 1)
_SHIFT = np.uint64(32)
RESERVED = 256  # words a truncated normal may use per value (its groups are per * 256 / 4 calls apart)
CALLS_PER_VALUE = 256  # a stateful draw of n values advances its counter by 256 n calls, whatever the op


def _round_keys(key):
    """The ten rounds' keys: (k0, k1) as Python ints and as 0-d uint64 arrays."""
    k0, k1, out = key & 0xFFFFFFFF, (key >> 32) & 0xFFFFFFFF, []
    for _ in range(10):
        out.append((k0, k1, np.array(k0, np.uint64), np.array(k1, np.uint64)))
        k0, k1 = (k0 + _W0) & 0xFFFFFFFF, (k1 + _W1) & 0xFFFFFFFF
    return out


def _mul32(a, m):
    """(hi, lo) of the 64-bit product of 32-bit Python ints."""
    p = a * m
    return p >> 32, p & 0xFFFFFFFF


def rounds(c0, c1, c2, c3, k0, k1):
    """Ten Philox rounds, in place, on uint64 arrays holding 32-bit words; returns the four output words."""
    p0, p1 = np.empty_like(c0), np.empty_like(c0)
    for _ in range(10):
        np.multiply(c0, _M0, out=p0)
        np.multiply(c2, _M1, out=p1)
        np.right_shift(p1, _SHIFT, out=c0)  # c0' = hi(M1 c2) ^ c1 ^ k0
        c0 ^= c1
        c0 ^= np.uint64(k0)
        np.bitwise_and(p1, _U32, out=c1)    # c1' = lo(M1 c2)
        np.right_shift(p0, _SHIFT, out=c2)  # c2' = hi(M0 c0) ^ c3 ^ k1
        c2 ^= c3
        c2 ^= np.uint64(k1)
        np.bitwise_and(p0, _U32, out=c3)    # c3' = lo(M0 c0)
        k0, k1 = (k0 + _W0) & 0xFFFFFFFF, (k1 + _W1) & 0xFFFFFFFF
    return c0, c1, c2, c3


_CHUNK = 16384  # calls per pass: the working arrays stay in cache
_RANGES = {}    # m -> np.arange(m, dtype=uint64), for the chunk sizes in use


def _arange(m):
    a = _RANGES.get(m)
    if a is None:
        if len(_RANGES) > 64:
            _RANGES.clear()
        a = _RANGES[m] = np.arange(m, dtype=np.uint64)
    return a


class _Work:
    """Per-thread scratch arrays of one chunk (six uint64 arrays of _CHUNK)."""
    local = threading.local()

    @classmethod
    def get(cls):
        w = getattr(cls.local, "arrays", None)
        if w is None:
            w = cls.local.arrays = np.empty((6, _CHUNK), np.uint64)
        return w

    @classmethod
    def words(cls):
        w = getattr(cls.local, "words", None)
        if w is None:
            w = cls.local.words = np.empty((_CHUNK, 4), np.uint32)
        return w


def _u64(x):
    return np.array(x, np.uint64)  # a 0-d array: NumPy's ufuncs take it faster than a scalar


_M0a, _M1a, _SHIFTa, _U32a = _u64(0xD2511F53), _u64(0xCD9E8D57), _u64(32), _u64(0xFFFFFFFF)


def _run(start, m, c1, c2, c3, keys, out):
    """Calls whose counter words are (start + j, c1, c2, c3) for j < m (start + m <= 2**32: the first word does
    not wrap), into out (m, 4) uint32. keys: the rounds' (k0, k1), ints and 0-d arrays. The first two rounds
    are folded: in round 1 only words 2 and 3 depend on j, in round 2 word 3 does not.
    (Positional `out`s and 0-d constants: this runs ~90 ufunc calls per chunk, whose overhead counts.)"""
    mul, shr, band, bxor, M0, M1, S, U = np.multiply, np.right_shift, np.bitwise_and, np.bitwise_xor, _M0a, _M1a, \
        _SHIFTa, _U32a
    w = _Work.get()
    a, b, c, d, p, q = (w[i, :m] for i in range(6))
    k0, k1 = keys[0][0], keys[0][1]
    l0, l1 = keys[1][0], keys[1][1]
    # round 1: c0 varies; c1, c2, c3 are the same for every call
    np.add(_arange(m), _u64(start), a)               # c0
    mul(a, M0, p)
    shr(p, S, c)
    bxor(c, _u64(c3 ^ k1), c)                        # c2' = hi(M0 c0) ^ c3 ^ k1
    band(p, U, d)                                    # c3' = lo(M0 c0)
    h, lo_ = _mul32(c2, 0xCD9E8D57)
    s0, s1 = h ^ c1 ^ k0, lo_                        # c0', c1': the same for every call
    # round 2: c0'' and c1'' vary (through c2'), c2'' = hi(M0 c0') ^ c3' ^ l1 through c3'; c3'' is constant
    mul(c, M1, q)
    shr(q, S, a)
    bxor(a, _u64(s1 ^ l0), a)                        # c0''
    band(q, U, b)                                    # c1''
    h, t3 = _mul32(s0, 0xD2511F53)
    bxor(d, _u64(h ^ l1), c)                         # c2''; c3'' = t3
    # round 3: c3 is the constant t3
    k0, k1 = keys[2][0], keys[2][1]
    mul(a, M0, p)
    mul(c, M1, q)
    shr(q, S, a)
    a ^= b
    bxor(a, keys[2][2], a)
    band(q, U, b)
    shr(p, S, c)
    bxor(c, _u64(t3 ^ k1), c)
    band(p, U, d)
    for r in range(3, 10):
        _, _, K0, K1 = keys[r]
        mul(a, M0, p)
        mul(c, M1, q)
        shr(q, S, a)
        a ^= b
        bxor(a, K0, a)
        shr(p, S, c)
        c ^= d
        bxor(c, K1, c)
        if r < 9:
            band(q, U, b)
            band(p, U, d)
        else:  # the last round's low words: the cast to uint32 drops the high halves
            b, d = q, p
    out[:, 0] = a
    out[:, 1] = b
    out[:, 2] = c
    out[:, 3] = d


def _block(keys, lo, hi, m, out):
    """Calls with 128-bit counters (hi << 64 | lo) + j, j < m, into out (m, 4) uint32."""
    done = 0
    while done < m:
        x_lo = (lo + done) & 0xFFFFFFFFFFFFFFFF
        x_hi = (hi + ((lo + done) >> 64)) & 0xFFFFFFFFFFFFFFFF
        start = x_lo & 0xFFFFFFFF
        k = min(m - done, (1 << 32) - start)  # up to the next wrap of the first word
        _run(start, k, x_lo >> 32, x_hi & 0xFFFFFFFF, x_hi >> 32, keys, out[done:done + k])
        done += k


# Nondeterministic draws (no seed anywhere) need only uniformly random, independent words: TensorFlow runs
# Philox under a random key for them, rivulet takes the words straight from a PCG64 generator seeded from OS
# entropy, which makes them ~3x faster (the values' distributions are the same: the conversions below are).
# Each thread has a generator of its own (helper threads fill chunks of one draw in parallel).
_ENTROPY_LOCAL = threading.local()


def _entropy_bits():
    bits = getattr(_ENTROPY_LOCAL, "bits", None)
    if bits is None:
        bits = _ENTROPY_LOCAL.bits = np.random.PCG64()  # seeded from OS entropy
    return bits


def _forget_entropy():  # a forked child draws its own words, not its parent's next ones
    global _ENTROPY_LOCAL
    _ENTROPY_LOCAL = threading.local()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_entropy)


def entropy_key_counter():
    """A random (key, counter), for what must run Philox itself (truncated normals re-read their words)."""
    k, c = (int(v) for v in _entropy_bits().random_raw(2) >> np.uint64(1))
    return k, c << 64


def entropy_stream(ncalls):
    """`ncalls` calls' worth of random words (uint32), 4 a call, drawn from OS-seeded PCG64."""
    out = np.empty(2 * ncalls, np.uint64)

    def body(i, j):
        out[i:j] = _entropy_bits().random_raw(j - i)
    chunked(2 * ncalls, 2 * _CHUNK, body)
    return out.view(np.uint32)


def words(key, counter, offsets):
    """The four words of calls counter + offsets (uint64 array of offsets) as a (len, 4) uint32 array.

    key: a 64-bit int (None: a nondeterministic draw, random words); counter: a 128-bit int."""
    if key is None:
        return entropy_stream(np.size(offsets)).reshape(-1, 4)
    lo, hi = counter & 0xFFFFFFFFFFFFFFFF, (counter >> 64) & 0xFFFFFFFFFFFFFFFF
    offsets = np.asarray(offsets, np.uint64).reshape(-1)
    out = np.empty((len(offsets), 4), np.uint32)
    for i in range(0, len(offsets), _CHUNK):
        lo_a = np.uint64(lo) + offsets[i:i + _CHUNK]
        hi_a = np.uint64(hi) + (lo_a < np.uint64(lo)).astype(np.uint64)  # carry into the high 64 bits
        r = rounds(lo_a & _U32, lo_a >> _SHIFT, hi_a & _U32, hi_a >> _SHIFT, key & 0xFFFFFFFF, key >> 32)
        for j in range(4):
            out[i:i + _CHUNK, j] = r[j]
    return out


# Big draws run their chunks on this thread and on helper threads (NumPy releases the GIL in its loops), as
# TensorFlow's kernels shard theirs over its intra-op threads. Chunks are taken one at a time by whichever
# thread is free, so a helper the OS does not schedule (a busy machine) leaves its share to the others, and a
# helper that starts after the chunks ran out returns at once; the values never depend on who computed them.
_PARALLEL_MIN_CHUNKS = 4
_POOL = [None]
_POOL_LOCK = threading.Lock()


def _helpers():
    """(pool, number of helpers), or None on a one-core machine."""
    n = min((os.cpu_count() or 1) - 1, 3)
    if n < 1:
        return None
    if _POOL[0] is None:
        with _POOL_LOCK:
            if _POOL[0] is None:
                from concurrent.futures import ThreadPoolExecutor
                _POOL[0] = ThreadPoolExecutor(max_workers=n, thread_name_prefix="rivulet-philox")
    return _POOL[0], n


def chunked(total, chunk, body):
    """body(i, j) for every chunk [i, j) of range(total), on this thread and on helper threads when there are
    at least _PARALLEL_MIN_CHUNKS chunks. body writes its chunk's part of a result; it must not share
    scratch arrays between threads."""
    nchunks = -(-total // chunk)
    helpers = _helpers() if nchunks >= _PARALLEL_MIN_CHUNKS and not _in_helper() else None
    if helpers is None:
        for i in range(0, total, chunk):
            body(i, min(i + chunk, total))
        return
    pool, n = helpers
    nxt, lock = [0], threading.Lock()

    def work():
        while True:
            with lock:
                k = nxt[0]
                nxt[0] = k + 1
            if k >= nchunks:
                return
            body(k * chunk, min((k + 1) * chunk, total))
    futures = []
    try:
        for _ in range(min(n, nchunks - 1)):
            futures.append(pool.submit(work))
    except RuntimeError:  # the interpreter is shutting down: no new threads
        pass
    try:
        work()
    finally:
        with lock:
            nxt[0] = nchunks  # on an error here, helpers stop after their chunk in flight
        for f in futures:
            if not f.cancel():  # not started yet: it will find no chunk; else wait for its chunk in flight
                f.result()


def _in_helper():
    return threading.current_thread().name.startswith("rivulet-philox")


def stream(key, counter, ncalls):
    """Words of the first `ncalls` calls of a stream, flattened in order (uint32). key None: random words."""
    if key is None:
        return entropy_stream(ncalls)
    out = np.empty((ncalls, 4), np.uint32)
    keys = _round_keys(key)
    lo, hi = counter & 0xFFFFFFFFFFFFFFFF, (counter >> 64) & 0xFFFFFFFFFFFFFFFF
    chunked(ncalls, _CHUNK, lambda i, j: _block(keys, lo + i, hi, j - i, out[i:j]))
    return out.reshape(-1)


def stateless_key_counter(seed0, seed1):
    """(key, counter) of the stateless ops for seed [seed0, seed1]: the seed, as a counter, is scrambled by one
    Philox call under a fixed key, so that every bit of both seed integers matters."""
    s0, s1 = seed0 & 0xFFFFFFFFFFFFFFFF, seed1 & 0xFFFFFFFFFFFFFFFF
    w = words(0x02461E293EC8F720, s0 | s1 << 64, [0])[0].astype(np.uint64)
    return int(w[0] | w[1] << _SHIFT), int(w[2] | w[3] << _SHIFT) << 64


# ---------------------------------------------------------------- bits -> values
def to_float32(w):
    return ((w & np.uint32(0x7FFFFF)) | np.uint32(127 << 23)).view(np.float32) - np.float32(1)


def to_float64(hi, lo):
    man = ((hi.astype(np.uint64) << _SHIFT) | lo) & np.uint64(0xFFFFFFFFFFFFF)
    return (man | np.uint64(1023 << 52)).view(np.float64) - 1.0


def to_float16(w):
    return (((w & np.uint32(0x3FF)) | np.uint32(15 << 10)).astype(np.uint16)).view(np.float16) - np.float16(1)


# Single-precision logf/sinf/cosf. TensorFlow's float32 Box-Muller calls the C library's float functions, whose
# results are not always correctly rounded. Their inputs here are few (u1 is one of 2**23 values k * 2**-23, and
# the angle float32(2 pi k * 2**-23)), so rivulet computes them in double, rounds to float32, and applies a
# table of the inputs where glibc's function rounds one ulp the other way (tools/make_philox_fixups.py records
# it from glibc 2.36; glibc's float functions have been unchanged since 2.28).
# The double results rounded to float32 are the same from NumPy's SIMD log/sin/cos (AVX-512) and from glibc's
# for every one of those 2**23 inputs (checked exhaustively), so this path needs no call into the C library;
# sin and cos are computed by angle addition (_sincos), whose float32 roundings are those too.
_FIXUPS = [None]
_FIXUPS_LOCK = threading.Lock()


def _fixups():
    """{"log": ..., "sincos": ...}: per function, the sorted inputs k with a fix, the fixes (ulps to add, +1 or -1;
    sincos: one row of inputs, a sinf and a cosf row of fixes, 0 where only the other one has a fix) and a bitmap of
    the 2**23 inputs (1 MiB: which have a fix) that the draws test first (a byte table per input, 8 MiB, fell out
    of the cache between chunks: its gathers cost as much as the rest of the Box-Muller)."""
    if _FIXUPS[0] is None:
        with _FIXUPS_LOCK:
            if _FIXUPS[0] is None:
                path = os.path.join(os.path.dirname(__file__), "philox_libm_fixups.npz")
                fix = {}
                with np.load(path, allow_pickle=False) as z:
                    for name in ("logf", "sinf", "cosf"):
                        idx = np.cumsum(z[name + "_gaps"].astype(np.int64))
                        up = np.unpackbits(z[name + "_up"])[:len(idx)].astype(bool)
                        fix[name] = idx, np.where(up, 1, -1).astype(np.int32)

                def bitmap(idx):
                    bits = np.zeros(1 << 23, bool)
                    bits[idx] = True
                    return np.packbits(bits, bitorder="little")
                tables = {"log": (fix["logf"][0], fix["logf"][1][None, :], bitmap(fix["logf"][0]))}
                k = np.union1d(fix["sinf"][0], fix["cosf"][0])
                d = np.zeros((2, len(k)), np.int32)
                for row, name in enumerate(("sinf", "cosf")):
                    d[row, np.searchsorted(k, fix[name][0])] = fix[name][1]
                tables["sincos"] = (k, d, bitmap(k))
                _FIXUPS[0] = tables
    return _FIXUPS[0]


def _apply_fixups(table, k, *outs):
    """Adds each input's fixes (ulps) to the float32 results outs (arrays of k's length), in place."""
    keys, deltas, bits = table
    flag = bits.take(k >> np.uint32(3))
    flag >>= (k & np.uint32(7)).astype(np.uint8)
    at = np.flatnonzero(flag & np.uint8(1))
    if at.size:
        row = keys.searchsorted(k.take(at))
        for o, d in zip(outs, deltas):
            o.view(np.int32)[at] += d.take(row)


# sin and cos of the float32 angles, in double, by angle addition: v = i / 64 + b (|b| <= 1/128), sin v =
# S[i] + (S[i] (cos b - 1) + C[i] sin b), cos v = C[i] + (C[i] (cos b - 1) - S[i] sin b), with S, C the correctly
# rounded sin(i / 64), cos(i / 64) and short Taylor polynomials in b. Rounded to float32, this equals the C
# library's double sin/cos rounded to float32 for every one of the 2**23 angles (checked exhaustively against
# NumPy's and glibc's: tests/ops/test_random_speed_paths.py), at a quarter of np.sin + np.cos's cost (no SIMD
# float64 sin/cos in NumPy on most CPUs).
_TRIG_STEPS = 64
_TRIG = [None]


def _taylor(x, odd):
    """sin(x) (odd) or cos(x) of a Decimal, to the context's precision."""
    import decimal
    term = x if odd else decimal.Decimal(1)
    total, k, x2 = term, 1 if odd else 0, x * x
    while True:
        term = -term * x2 / ((k + 1) * (k + 2))
        k += 2
        if term == 0 or abs(term) < decimal.Decimal(10) ** -60:
            return total
        total += term


def _trig_tables():
    if _TRIG[0] is None:
        import decimal
        with decimal.localcontext() as ctx:
            ctx.prec = 60
            pts = [decimal.Decimal(i) / _TRIG_STEPS for i in range(int(2 * math.pi * _TRIG_STEPS) + 2)]
            sines = np.array([float(_taylor(x, True)) for x in pts])
            cosines = np.array([float(_taylor(x, False)) for x in pts])
        _TRIG[0] = sines, cosines
    return _TRIG[0]


def _sincos(v, s_out, c_out):
    """sin(v), cos(v) into s_out, c_out (float64), for 0 <= v < 6.3 (see above)."""
    sines, cosines = _trig_tables()
    t = v * float(_TRIG_STEPS)
    r = np.rint(t)
    b = t
    b -= r
    b *= 1.0 / _TRIG_STEPS                      # exact: v - r / 64
    i = r.astype(np.intp)
    sa, ca = sines.take(i), cosines.take(i)
    b2 = b * b
    sb = b2 * (-1.0 / 5040)                     # sin b = b + b b2 (-1/6 + b2 (1/120 - b2 / 5040))
    sb += 1.0 / 120
    sb *= b2
    sb -= 1.0 / 6
    sb *= b2
    sb *= b
    sb += b
    cm = b2 * (-1.0 / 720)                      # cos b - 1 = b2 (-1/2 + b2 (1/24 - b2 / 720))
    cm += 1.0 / 24
    cm *= b2
    cm -= 0.5
    cm *= b2
    np.multiply(sa, cm, s_out)
    s_out += ca * sb
    s_out += sa
    np.multiply(ca, cm, c_out)
    c_out -= sa * sb
    c_out += ca


_BM_CHUNK = 8192
_TWO_PI_ULP = 2 * math.pi * 2.0 ** -23  # 2 * M_PI * (k * 2**-23) == k * (2 * M_PI * 2**-23), both exact scalings
_TINY = float(np.float32(1e-7))


def box_muller32(x0, x1, out0=None, out1=None):
    """Two float32 normals per pair of words (arrays), as TensorFlow's float Box-Muller computes them:
    u1 = max(k0 * 2**-23, 1e-7f), v = float(2 * M_PI * k1 * 2**-23) (k the words' 23 low bits), then
    sqrtf(-2 * logf(u1)) * (sinf(v), cosf(v)) with glibc's float functions (see _fixups). Runs in chunks that
    stay in cache; out0/out1: 1-D float32 arrays (views are fine) to write into."""
    shape = np.shape(x0)
    x0, x1 = np.reshape(x0, -1), np.reshape(x1, -1)
    r0 = np.empty(x0.size, np.float32) if out0 is None else out0
    r1 = np.empty(x0.size, np.float32) if out1 is None else out1
    tables = _fixups()
    _trig_tables()
    chunked(x0.size, _BM_CHUNK, lambda i, j: _box_muller32_chunk(x0[i:j], x1[i:j], r0[i:j], r1[i:j], tables))
    if out0 is None:
        return r0.reshape(shape), r1.reshape(shape)
    return out0, out1


def _box_muller32_chunk(x0, x1, r0, r1, tables):
    n = x0.size
    a, b = np.bitwise_and(x0, np.uint32(0x7FFFFF)), np.bitwise_and(x1, np.uint32(0x7FFFFF))
    # u2 = sqrtf(-2 * logf(u1)); u1 = max(k0 * 2**-23, 1e-7f), exact in double
    tt = np.multiply(a, 2.0 ** -23)
    np.maximum(tt, _TINY, out=tt)
    np.log(tt, tt)
    u2 = tt.astype(np.float32)
    _apply_fixups(tables["log"], a, u2)
    u2 *= np.float32(-2)
    np.sqrt(u2, u2)
    # v = (float)(2 * M_PI * u), the angle as TensorFlow's C++ rounds it
    np.multiply(b, _TWO_PI_ULP, tt)
    s, c = np.empty(n), np.empty(n)
    _sincos(tt.astype(np.float32).astype(np.float64), s, c)
    s32, c32 = s.astype(np.float32), c.astype(np.float32)
    _apply_fixups(tables["sincos"], b, s32, c32)
    np.multiply(s32, u2, r0)
    np.multiply(c32, u2, r1)


def _libm64(fn, x):
    """fn (math.log/sin/cos: the C library's double function, as TensorFlow calls) over an array. NumPy's own
    float64 log/sin/cos take SIMD paths on AVX-512 CPUs whose last bits differ from the C library's."""
    return np.fromiter(map(fn, x.ravel().tolist()), np.float64, count=x.size).reshape(x.shape)


def box_muller64(x0, x1, x2, x3):
    u1 = np.maximum(to_float64(x0, x1), 1e-7)
    v1 = 2 * np.pi * to_float64(x2, x3)
    u2 = np.sqrt(-2.0 * _libm64(math.log, u1))  # sqrt is correctly rounded everywhere
    return _libm64(math.sin, v1) * u2, _libm64(math.cos, v1) * u2


def _interleave(*cols):
    return np.stack(cols, axis=-1).reshape(-1)


# ---------------------------------------------------------------- distributions
def _mapped(key, counter, n, out, convert):
    """convert(words, out part): the words of n values, one word a value, converted into out (n values) chunk
    by chunk while they are in cache. convert may change the words (scratch)."""
    ncalls = (n + 3) // 4
    if key is None:
        def draw(i, j):
            a, b = 4 * i, min(4 * j, n)
            convert(_entropy_bits().random_raw(2 * (j - i)).view(np.uint32)[:b - a], out[a:b])
        chunked(ncalls, _CHUNK, draw)
        return out
    keys = _round_keys(key)
    lo, hi = counter & 0xFFFFFFFFFFFFFFFF, (counter >> 64) & 0xFFFFFFFFFFFFFFFF

    def body(i, j):
        w = _Work.words()[:j - i]
        _block(keys, lo + i, hi, j - i, w)
        a, b = 4 * i, min(4 * j, n)
        convert(w.reshape(-1)[:b - a], out[a:b])
    chunked(ncalls, _CHUNK, body)
    return out


def _to_float32_into(w, out):  # to_float32, in place on the words
    np.bitwise_and(w, np.uint32(0x7FFFFF), out=w)
    w |= np.uint32(127 << 23)
    np.subtract(w.view(np.float32), np.float32(1), out=out)


def _to_float16_into(w, out):  # to_float16
    np.bitwise_and(w, np.uint32(0x3FF), out=w)
    w |= np.uint32(15 << 10)
    np.subtract(w.astype(np.uint16).view(np.float16), np.float16(1), out=out)


def uniform(key, counter, n, np_dtype):
    """n values in [0, 1)."""
    if np_dtype == np.float64:
        w = stream(key, counter, (n + 1) // 2).reshape(-1, 2)
        return to_float64(w[:, 0], w[:, 1])[:n]
    if np_dtype == np.float16:
        return _mapped(key, counter, n, np.empty(n, np.float16), _to_float16_into)
    return _mapped(key, counter, n, np.empty(n, np.float32), _to_float32_into)


_MANTISSA = {np.dtype(np.float16): 10, np.dtype(np.float32): 23, np.dtype(np.float64): 52}


def uniform_at_least(key, counter, n, np_dtype, threshold):
    """uniform(key, counter, n, np_dtype) >= threshold (converted to np_dtype), as bools, without making the
    floats: a uniform is exactly k * 2**-b, k its word's b low bits (23 for float32, 10 float16, 52 from two
    words float64), so it is >= r exactly when k >= ceil(r * 2**b) (r * 2**b is exact). Dropout's keep mask."""
    b = _MANTISSA.get(np.dtype(np_dtype))
    if b is None:
        return uniform(key, counter, n, np_dtype) >= threshold
    with np.errstate(over="ignore"):
        r = float(np.dtype(np_dtype).type(threshold))
    if r >= 1 or r != r:  # nothing is >= (the uniforms are < 1; NaN compares false)
        t = 1 << b
    elif r <= 0:
        t = 0
    else:
        t = math.ceil(r * 2.0 ** b)
    if b == 52:
        w = stream(key, counter, (n + 1) // 2).reshape(-1, 2)
        k = np.left_shift(w[:, 0], _SHIFT, dtype=np.uint64)
        k |= w[:, 1]
        k = k[:n]
        k &= np.uint64((1 << b) - 1)
        return np.greater_equal(k, np.uint64(t))

    def convert(w, out):
        np.bitwise_and(w, np.uint32((1 << b) - 1), out=w)
        np.greater_equal(w, np.uint32(t), out=out)
    return _mapped(key, counter, n, np.empty(n, bool), convert)


def normal(key, counter, n, np_dtype):
    if np_dtype == np.float64:
        w = stream(key, counter, (n + 1) // 2).reshape(-1, 4)
        return _interleave(*box_muller64(w[:, 0], w[:, 1], w[:, 2], w[:, 3]))[:n]
    w = stream(key, counter, (n + 3) // 4).reshape(-1, 4)
    z = np.empty(w.shape, np.float32)
    box_muller32(w[:, 0], w[:, 1], z[:, 0], z[:, 1])
    box_muller32(w[:, 2], w[:, 3], z[:, 2], z[:, 3])
    z = z.reshape(-1)[:n]
    return z if np_dtype == np.float32 else z.astype(np_dtype)


def truncated_normal(key, counter, n, np_dtype):
    """Normals within (-2, 2). Output group g (4 values, 2 in float64) reads 256 words per value from the
    call counter + g * per * 256 / 4 on, one Box-Muller pair at a time, keeping the values inside the bounds."""
    if key is None:  # (the retries below read a group's words again: they must be the same words)
        key, counter = entropy_key_counter()
    per = 2 if np_dtype == np.float64 else 4
    groups = (n + per - 1) // per
    base = np.arange(groups, dtype=np.uint64) * np.uint64(per * RESERVED // 4)
    out = np.empty((groups, per), np.float64 if np_dtype == np.float64 else np.float32)
    todo = np.arange(groups)
    calls = 1 if per == 4 else 2  # one call is enough for 83% of float32 groups; redo the rest with more
    while todo.size:
        offs = (base[todo][:, None] + np.arange(calls, dtype=np.uint64)).reshape(-1)
        w = words(key, counter, offs).reshape(len(todo), -1)  # each row: the group's words in order
        if np_dtype == np.float64:
            q = w.reshape(len(todo), -1, 4)
            cand = np.stack(box_muller64(q[..., 0], q[..., 1], q[..., 2], q[..., 3]), axis=-1)
        else:
            q = w.reshape(len(todo), -1, 2)
            cand = np.stack(box_muller32(q[..., 0], q[..., 1]), axis=-1)
        cand = cand.reshape(len(todo), -1)
        ok = np.abs(cand) < 2
        rank = np.cumsum(ok, axis=1)
        done = rank[:, -1] >= per
        take = ok & (rank <= per) & done[:, None]
        out[todo[done]] = cand[take].reshape(-1, per)
        todo = todo[~done]
        calls *= 2
    return out.reshape(-1)[:n].astype(np_dtype)


def _wide(key, counter, n):
    """n 64-bit values, each from two words (low word first)."""
    w = stream(key, counter, (n + 1) // 2).reshape(-1, 2).astype(np.uint64)
    return (w[:, 0] | (w[:, 1] << _SHIFT))[:n]


def _add_mod(bits, span, lo, out):
    """out = lo + bits % span (unsigned, wrapping), bits changed. The remainder as bits - span * (bits // span):
    NumPy divides by a scalar with libdivide's multiply-shift, its remainder is a hardware division (~10x slower)."""
    np.floor_divide(bits, span, out=out)
    out *= span
    np.subtract(bits, out, out=out)
    out += lo


def uniform_int(key, counter, n, lo, hi, np_dtype):
    """n integers in [lo, hi): lo + bits % (hi - lo), in wrapping unsigned arithmetic like the C kernels."""
    if np.dtype(np_dtype).itemsize == 8:
        span, lo_u = np.uint64((int(hi) - int(lo)) & 0xFFFFFFFFFFFFFFFF), np.uint64(int(lo) & 0xFFFFFFFFFFFFFFFF)
        out = np.empty(n, np.uint64)
        with np.errstate(over="ignore"):
            _add_mod(_wide(key, counter, n), span, lo_u, out)
        return out.view(np_dtype)
    span, lo_u = np.uint32((int(hi) - int(lo)) & 0xFFFFFFFF), np.uint32(int(lo) & 0xFFFFFFFF)

    def convert(w, out):
        with np.errstate(over="ignore"):
            _add_mod(w, span, lo_u, out)
    return _mapped(key, counter, n, np.empty(n, np.uint32), convert).view(np_dtype)


def full_int(key, counter, n, np_dtype):
    if np.dtype(np_dtype).itemsize == 8:
        return _wide(key, counter, n).view(np_dtype)
    return stream(key, counter, (n + 3) // 4)[:n].view(np_dtype)
