"""The oneDNN primitive cache (execute/onednn.py, the most recently used kept) from several threads running
convolutions of more shapes than it keeps: each primitive pushed out is destroyed only once no thread runs it,
every result is right, nothing raises. The cache is made small here so that eviction happens on every few calls
(it is 512 in use; the code path is the same)."""
import threading

import numpy as np
import pytest

from rivulet.execute import onednn

pytestmark = pytest.mark.skipif(onednn.api() is None, reason="the onednn extra (onednn-cpu-gomp) is not installed")


def _ref(x, w):  # VALID, stride 1: the convolution by its definition
    kh, kw = w.shape[:2]
    oh, ow = x.shape[1] - kh + 1, x.shape[2] - kw + 1
    out = np.zeros((x.shape[0], oh, ow, w.shape[3]), np.float64)
    for i in range(kh):
        for j in range(kw):
            out += np.einsum("nhwc,co->nhwo", x[:, i:i + oh, j:j + ow], w[i, j], dtype=np.float64)
    return out.astype(np.float32)


@pytest.mark.parametrize("cache_max, split", [(4, False), (64, False), (4, True)])
def test_threads_running_more_shapes_than_the_cache_keeps(monkeypatch, cache_max, split):
    monkeypatch.setattr(onednn.api(), "cache", {})
    monkeypatch.setattr(onednn, "_CACHE_MAX", cache_max)
    if split:  # every problem takes the thread choice (one or every core, probed every millisecond), so each
        # shape has a primitive per count and the threads share, record into and probe the same choices
        monkeypatch.setattr(onednn.api(), "choices", {})
        monkeypatch.setattr(onednn, "_SPLIT_MIN_WORK", 0)
        monkeypatch.setattr(onednn, "_PROBE_S", 0.001)
    destroyed, real = [], onednn.Primitive.destroy
    monkeypatch.setattr(onednn.Primitive, "destroy", lambda self: destroyed.append(self) or real(self))
    rs = np.random.default_rng(0)
    w = rs.standard_normal((2, 2, 3, 4)).astype(np.float32)
    cases = []
    for n in range(1, 4):
        for h in range(3, 3 + 24):  # 72 shapes
            x = rs.standard_normal((n, h, 5, 3)).astype(np.float32)
            cases.append((x, _ref(x, w)))
    errors, start = [], threading.Barrier(4)

    def work(k):
        try:
            start.wait()
            order = np.random.default_rng(k).permutation(len(cases))
            for i in list(order) * 2:
                x, want = cases[i]
                got = onednn.conv2d(x, w, (1, 1), (1, 1), ((0, 0), (0, 0)))
                np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads)
    assert errors == [], errors[:3]
    cache = onednn.api().cache
    assert len(cache) <= cache_max and destroyed  # pushed out and destroyed
    if split and onednn.api().set_threads is not None:
        assert onednn.api().choices  # the choices were taken
    assert not any(p in destroyed for p in cache.values())  # what the cache holds is alive
    assert len({id(p) for p in destroyed}) == len(destroyed)  # each destroyed once
    assert all(p.users == 0 for p in cache.values())


def test_primitive_thread_choice_records_times_from_threads_one_at_a_time():
    """Two threads running one primitive record their times one after the other: a probe of another thread that
    replaced the kept times while this one averaged them mixed the two (and, cleared between this one's
    `recent and` and its len(recent), divided by zero)."""
    t = onednn._Threads()
    other = []

    class Recent(list):
        fired = False

        def __iter__(self):  # sum(recent): another thread's probe comes in here
            if not Recent.fired:
                Recent.fired = True
                th = threading.Thread(target=t.record, args=(False, 1e-9, True, 0.0))
                th.start()
                th.join(0.2)  # with the lock it waits for this record to finish
                other.append(th)
            return super().__iter__()

    t.recent = Recent([1.0, 1.0, 1.0])
    t.record(True, 0.5, True, 0.0)  # a probe faster than the kept times
    other[0].join(5)
    # this probe (0.5 against 1.0: faster) then the other's (1e-9 against 0.5: faster): both taken, the
    # backoff reset by each (mixed, this one compared 0.5 with the other's 1e-9 and doubled it)
    assert t.recent == [1e-9] and t.one is False and t.backoff == onednn._PROBE_S
