"""The fast paths of ops/philox.py give TensorFlow's numbers where they are easy to get wrong: a stream whose
first counter word wraps inside a chunk, a carry into the counter's high half, a draw over several chunks; and
the paths that skip the float values (the dropout mask from the words' integer bits) agree with the floats.
The words were recorded from TensorFlow 2.21 (tf.raw_ops.StatelessRandomUniformFullIntV2, dtype uint32, alg 1:
the Philox words of calls key / counter on, four a call)."""
import numpy as np
import pytest

from rivulet.ops import philox


TF_WORDS = [
    # (key, counter low, counter high, n, first 24 words)
    (0x123456789ABCDEF0, 2**32 - 3, 0, 24,  # the first counter word wraps after 3 calls
     [892886959, 2723471412, 4026032378, 2261698969, 3070112985, 4291790828, 313363297, 3561957433, 2607418418,
      2480817178, 145095614, 2972254972, 2873624287, 1853961678, 3150599057, 4084756720, 2318066339, 2314244008,
      2916117296, 4193889771, 3613195838, 4066078283, 4252495858, 2222046535]),
    (5, 2**64 - 2, 7, 24,  # the low 64 bits wrap: a carry into the high half
     [1600567900, 3578414771, 1611649039, 1102751893, 408654879, 156914071, 4246078289, 2550873154, 1414544935,
      1163734151, 4062483226, 1747046443, 4281969229, 3013946278, 3227502654, 3866170029, 1869092232, 515427328,
      4243514356, 3632275192, 2143400255, 746704310, 193067997, 189873666]),
    (1, 2**64 - 1, 2**64 - 1, 12,  # the whole 128-bit counter wraps to 0
     [1931622801, 1853353218, 1556166440, 2727226841, 3823634032, 3842641596, 2515673792, 3054873127, 2886210587,
      3754282174, 2042657351, 2817941651]),
]


@pytest.mark.parametrize("key,lo,hi,n,want", TF_WORDS)
def test_stream_words_at_counter_wraps(key, lo, hi, n, want):
    got = philox.full_int(key, lo | hi << 64, n, np.uint32)
    assert got.tolist() == want


def test_stream_over_chunks_with_a_wrap_inside_one():
    # 16400 calls from 16390 before a wrap of the first counter word: the wrap falls inside the first chunk
    w = philox.full_int(99, (7 << 32) | (2**32 - 16390) | 3 << 64, 4 * 16400, np.uint32)
    assert w[16380 * 4:16380 * 4 + 8].tolist() == [2388325752, 22025024, 2360497890, 517849770, 2955097772,
                                                   3092019197, 124540730, 841352003]
    assert w[-8:].tolist() == [3718343147, 4099925653, 3955078494, 2778787559, 2388564237, 3177794101, 1264843786,
                               4176308392]
    assert int(w.astype(np.uint64).sum()) == 140597845445573


@pytest.mark.parametrize("counter", [0, 2**32 - 5, (2**64 - 3) | 9 << 64, 123456789 << 40])
def test_stream_equals_calls_at_offsets(counter):
    # the stream's folded first rounds against the plain rounds of words() at arbitrary offsets
    n = 2 * philox._CHUNK + 11
    s = philox.stream(0xDEADBEEF12345678, counter, n).reshape(-1, 4)
    idx = np.array([0, 1, 4, philox._CHUNK - 1, philox._CHUNK, n - 1], np.uint64)
    assert np.array_equal(s[idx.astype(np.intp)], philox.words(0xDEADBEEF12345678, counter, idx))


GRID = [0.0, 1e-9, 2.0 ** -23, 3 * 2.0 ** -23, 0.1, 0.25, 0.3, 0.5, 0.5 + 2.0 ** -24, 0.7, 0.9999, 1 - 2.0 ** -23,
        1 - 2.0 ** -11, 1.0, 1.5, -0.5, float("nan"), float("inf"), -float("inf"), 1e300, 70000.0]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_uniform_at_least_is_the_float_comparison(dtype):
    # dropout's keep mask from the words' bits against the floats it replaces, at thresholds on and between
    # the uniforms' grid points (a value equal to the threshold is kept, as `uniform >= rate`)
    for i, r in enumerate(GRID):
        u = philox.uniform(77, i << 64, 5003, dtype)
        keep = philox.uniform_at_least(77, i << 64, 5003, dtype, r)
        assert keep.dtype == bool and keep.shape == (5003,)
        with np.errstate(over="ignore"):
            assert np.array_equal(keep, u >= dtype(r)), r
    # a threshold on a float32 grid point: a uniform equal to it is kept
    w = philox.stream(5, 0, 1)
    k = int(w[0] & 0x7FFFFF)
    assert philox.uniform_at_least(5, 0, 1, np.float32, k * 2.0 ** -23)[0]
    assert not philox.uniform_at_least(5, 0, 1, np.float32, (k + 1) * 2.0 ** -23)[0]


@pytest.mark.parametrize("dtype,rate,want", [
    ("float32", 0.5, [[1, 0, 0, 0, 0, 1], [1, 0, 1, 0, 1, 0]]),
    ("float64", 0.3, [[1, 1, 1, 0, 1], [0, 1, 0, 1, 1], [1, 1, 1, 1, 0]]),
    ("float16", 0.3, [[1, 0, 1, 1, 0], [1, 1, 1, 1, 1], [1, 1, 1, 0, 1]])])
def test_dropout_mask_from_bits_is_tf_values(dtype, rate, want):
    import rivulet as tf
    # TF 2.21: tf.random.set_seed(3); tf.nn.dropout(tf.ones(shape, dtype), rate, seed=9)
    tf.random.set_seed(3)
    try:
        y = tf.nn.dropout(tf.ones(np.shape(want), dtype), rate, seed=9).numpy()
    finally:
        tf.random.set_seed(None)
    scale = {"float32": 2.0, "float64": 1.4285714285714286, "float16": 1.4287109375}[dtype]
    assert y.dtype == np.dtype(dtype) and y.tolist() == (np.array(want) * scale).tolist()


def test_nondeterministic_draws_are_random_words():
    # no seed anywhere: the words come from OS-seeded PCG64, converted as TensorFlow converts Philox's
    import rivulet as tf
    tf.random.set_seed(None)
    u = tf.random.uniform([40000]).numpy()
    v = tf.random.uniform([40000]).numpy()
    assert u.dtype == np.float32 and not np.array_equal(u, v)
    assert u.min() >= 0 and u.max() < 1 and abs(u.mean() - 0.5) < 0.01
    assert np.all((u * 2 ** 23) == np.floor(u * 2 ** 23))  # TensorFlow's grid: 23 random mantissa bits
    z = tf.random.normal([40000], dtype=tf.float64).numpy()
    assert abs(z.mean()) < 0.03 and abs(z.std() - 1) < 0.03
    t = tf.random.truncated_normal([4001]).numpy()
    assert np.abs(t).max() < 2 and abs(t.std() - 0.8796) < 0.03
    i = tf.random.uniform([40000], 3, 10, dtype=tf.int64).numpy()
    assert set(np.unique(i).tolist()) == set(range(3, 10))
    keep = tf.nn.dropout(tf.ones([200, 200]), 0.3).numpy() != 0
    assert abs(keep.mean() - 0.7) < 0.02
    assert sorted(tf.random.shuffle(tf.range(50)).numpy().tolist()) == list(range(50))


def _box_muller32_by_definition(x0, x1):
    """The float32 Box-Muller as philox's docs define it: float64 log/sin/cos (NumPy's) rounded to float32, moved
    by the fixups table's ulps (glibc's logf/sinf/cosf), on byte tables of all 2**23 inputs."""
    import numpy as np
    dense = {}
    for name, (keys, deltas, _) in philox._fixups().items():
        rows = []
        for d in deltas:
            t = np.zeros(1 << 23, np.int8)
            t[keys] = d
            rows.append(t)
        dense[name] = rows
    k0, k1 = x0 & np.uint32(0x7FFFFF), x1 & np.uint32(0x7FFFFF)
    u1 = np.maximum(philox.to_float32(x0), np.float32(1e-7))
    v = (2 * np.pi * philox.to_float32(x1).astype(np.float64)).astype(np.float32).astype(np.float64)

    def libm32(f64, d):
        return (f64.astype(np.float32).view(np.int32) + d).view(np.float32)
    u2 = np.sqrt(np.float32(-2) * libm32(np.log(u1.astype(np.float64)), dense["log"][0][k0]))
    return libm32(np.sin(v), dense["sincos"][0][k1]) * u2, libm32(np.cos(v), dense["sincos"][1][k1]) * u2


def test_box_muller32_over_every_input():
    # every one of the 2**23 values of each word's 23 bits (u1's and the angle's): the angle addition sin/cos
    # and the bitmap-tested fixups give the definition's bits everywhere
    rng = np.random.default_rng(7)
    k = np.arange(1 << 23, dtype=np.uint32)
    a = k | (rng.integers(0, 512, k.size, dtype=np.uint32) << np.uint32(23))
    b = rng.permutation(k) | (rng.integers(0, 512, k.size, dtype=np.uint32) << np.uint32(23))
    want = _box_muller32_by_definition(a, b)
    got = philox.box_muller32(a, b)
    for g, w in zip(got, want):
        assert g.dtype == np.float32 and np.array_equal(g.view(np.int32), w.view(np.int32))
    # into strided outputs, as normal() passes them
    a, b = b[:70001], a[:70001]
    out = np.empty((a.size, 2), np.float32)
    philox.box_muller32(a, b, out[:, 0], out[:, 1])
    want = _box_muller32_by_definition(a, b)
    assert np.array_equal(out[:, 0].view(np.int32), want[0].view(np.int32))
    assert np.array_equal(out[:, 1].view(np.int32), want[1].view(np.int32))


def test_trig_tables():
    import math
    s, c = philox._trig_tables()
    assert len(s) == int(2 * math.pi * 64) + 2
    assert s[0] == 0.0 and c[0] == 1.0
    x = np.arange(len(s)) / 64  # correctly rounded (from 60-digit Decimals): within one ulp of the C library's
    assert np.all(np.abs(s - np.sin(x)) <= np.spacing(np.abs(s)))
    assert np.all(np.abs(c - np.cos(x)) <= np.spacing(np.abs(c)))


def test_big_draws_on_helper_threads_give_the_same_words(monkeypatch):
    n = 5 * philox._CHUNK + 3
    monkeypatch.setattr(philox, "_PARALLEL_MIN_CHUNKS", 10 ** 9)
    one = philox.stream(11, 2**32 - 7, n)
    z1 = philox.normal(11, 5 << 64, 3 * philox._BM_CHUNK + 5, np.float32)
    monkeypatch.setattr(philox, "_PARALLEL_MIN_CHUNKS", 2)
    assert np.array_equal(philox.stream(11, 2**32 - 7, n), one)
    assert np.array_equal(philox.normal(11, 5 << 64, 3 * philox._BM_CHUNK + 5, np.float32).view(np.int32),
                          z1.view(np.int32))


def test_chunked_runs_every_chunk_once_and_raises_a_chunks_error(monkeypatch):
    import threading
    monkeypatch.setattr(philox, "_PARALLEL_MIN_CHUNKS", 2)
    seen, lock = [], threading.Lock()

    def body(i, j):
        with lock:
            seen.append((i, j))
    philox.chunked(1000, 64, body)
    assert sorted(seen) == [(i, min(i + 64, 1000)) for i in range(0, 1000, 64)]

    def bad(i, j):
        if i == 128:
            raise MemoryError("chunk 2")
    with pytest.raises(MemoryError, match="chunk 2"):
        philox.chunked(1000, 64, bad)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32, np.uint64])
def test_uniform_int_remainder_by_floor_division(dtype):
    # lo + bits % (hi - lo) in wrapping unsigned arithmetic, the remainder computed as bits - span * (bits // span)
    info = np.iinfo(dtype)
    wide = np.dtype(dtype).itemsize == 8
    u = np.uint64 if wide else np.uint32
    for lo, hi in ((0, 1), (0, 1000), (3, 2**31 - 1), (int(info.max) - 5, int(info.max)),
                   (int(info.min), int(info.max)), (-7, 3)):
        if lo < info.min:
            continue
        n = 3 * philox._CHUNK + 7
        got = philox.uniform_int(21, 4 << 64, n, lo, hi, dtype)
        bits = philox.full_int(21, 4 << 64, n, u)
        mask = (1 << (64 if wide else 32)) - 1
        want = [(lo + b % ((hi - lo) & mask)) & mask for b in bits[:2000].tolist()]
        assert got.dtype == np.dtype(dtype)
        assert got[:2000].view(u).tolist() == want
        assert np.array_equal(got.view(u), (bits % u((hi - lo) & mask) + u(lo & mask)).astype(u))


def test_a_forked_child_draws_other_unseeded_words():
    import os
    if not hasattr(os, "fork"):
        pytest.skip("no fork")
    philox.entropy_stream(4)  # this thread's generator exists before the fork
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its next words, to the parent
        try:
            os.write(w, philox.entropy_stream(4).tobytes())
        finally:
            os._exit(0)
    os.close(w)
    child = b""
    while len(child) < 64:
        part = os.read(r, 64)
        if not part:
            break
        child += part
    os.close(r)
    os.waitpid(pid, 0)
    assert len(child) == 64 and child != philox.entropy_stream(4).tobytes()
