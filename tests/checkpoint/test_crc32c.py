"""CRC-32C: the NumPy paths (bytewise, positional table, lanes) and google-crc32c's C library agree."""
import numpy as np
import pytest

from rivulet.formats import crc32c


def _bytewise(data, crc=0):
    return crc32c._update_py(crc ^ 0xFFFFFFFF, data) ^ 0xFFFFFFFF


@pytest.mark.parametrize("n", [0, 1, 4, 5, 47, 48, 49, 100, 1000, 4095, 4096, 4097, 70000])
def test_numpy_paths_equal_bytewise(n):
    data = np.random.default_rng(n).integers(0, 256, n, dtype=np.uint8).tobytes()
    for start in (0, 0x12345678, 0xFFFFFFFF):
        assert crc32c.numpy_extend(start, data) == _bytewise(data, start)


def test_known_values():
    # RFC 3720 B.4's vectors (32 bytes of 0x00, of 0xFF, ascending), and 4 KB of 0xFF through the table path
    assert crc32c.numpy_extend(0, bytes(32)) == 0x8A9136AA
    assert crc32c.numpy_extend(0, b"\xff" * 32) == 0x62A8AB43
    assert crc32c.numpy_extend(0, bytes(range(32))) == 0x46DD794E
    assert crc32c.numpy_extend(0, b"123456789" * 100) == _bytewise(b"123456789" * 100)
    assert crc32c.value(b"123456789") == 0xE3069283


def test_buffers_are_read_in_place():
    """bytes, bytearray, memoryview (sliced) and arrays of any dtype give the same sum as their bytes."""
    a = np.random.default_rng(0).random((300, 700)).astype(np.float32)
    raw = a.tobytes()
    want = crc32c.numpy_extend(0, raw)
    assert crc32c.value(a) == crc32c.value(bytearray(raw)) == crc32c.value(memoryview(raw)) == want
    assert crc32c.value(memoryview(raw)[5:70005]) == crc32c.numpy_extend(0, raw[5:70005])
    assert crc32c.extend(crc32c.value(raw[:1000]), memoryview(raw)[1000:]) == want


@pytest.mark.skipif(not crc32c.native(), reason="google-crc32c (the fast-io extra) is not installed")
def test_native_equals_numpy():
    rng = np.random.default_rng(1)
    for n in [0, 1, 7, 100, 3072, (1 << 20) + 13, 3 * (1 << 20)]:
        data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        for start in (0, 0xDEADBEEF):
            assert crc32c.extend(start, data) == crc32c.numpy_extend(start, data)
            assert crc32c.extend(start, bytearray(data)) == crc32c.numpy_extend(start, data)


def test_without_the_extra_numpy_is_used(monkeypatch):
    monkeypatch.setattr(crc32c, "_NATIVE", [None])
    assert not crc32c.native()
    data = bytes(range(256)) * 50
    assert crc32c.value(data) == _bytewise(data)


def test_numpy_path_reads_arrays_as_bytes():
    """Arrays of any size and dtype (the bundle reader's uint8 buffers) are summed as their bytes."""
    rng = np.random.default_rng(2)
    for n in [3, 40, 1000, 10000]:
        a = rng.integers(0, 256, n, dtype=np.uint8)
        assert crc32c.numpy_extend(0, a) == crc32c.numpy_extend(0, a.tobytes()) == _bytewise(a.tobytes())
    f = rng.random((3, 5)).astype(np.float32)
    assert crc32c.numpy_extend(7, f) == crc32c.numpy_extend(7, f.tobytes())
