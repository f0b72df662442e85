"""The reducer where the Ray workers' collectives meet, run in threads of this process (no Ray): a worker
that finished or died fails the collective the others wait in at once, a wait has a limit, and workers
that disagree on the collective are told."""
import threading
import time

import numpy as np

from rivulet.distribute.ray_runtime import Reducer


def _exchange_in_thread(reducer, *args):
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("reply", reducer.exchange(*args)), daemon=True)
    t.start()
    return t, out


def _wait_until_waiting(reducer):
    deadline = time.monotonic() + 5
    while not reducer._slots and time.monotonic() < deadline:
        time.sleep(0.01)


def test_a_worker_gone_fails_the_wait_at_once():
    r = Reducer(3)
    t, out = _exchange_in_thread(r, "sum", 1, 0, [np.ones(2)], 600)
    _wait_until_waiting(r)
    assert r.worker_gone(2, "died") == "worker 0 waiting in all_reduce #1"
    t.join(5)
    assert out["reply"][:2] == ("error", "UnavailableError")
    assert out["reply"][2].startswith("worker 2 of 3 died while worker 0 waits in all_reduce #1")
    # later calls fail too, without waiting
    assert r.exchange("gather", 2, 1, np.ones(1), 600)[1] == "UnavailableError"


def test_a_collective_after_a_worker_finished_fails_without_waiting():
    r = Reducer(2)
    assert r.worker_gone(1, "finished") == ""
    start = time.monotonic()
    reply = r.exchange("gather", 1, 0, np.ones(1), 600)
    assert time.monotonic() - start < 1
    assert reply == ("error", "UnavailableError", "worker 1 of 2 finished while worker 0 waits in all_gather #1 "
                                                  "(every worker must make the same collective calls)")


def test_a_wait_past_its_timeout_and_a_disagreement():
    r = Reducer(3)
    start = time.monotonic()
    reply = r.exchange("sum", 4, 1, [np.ones(1)], 0.2)
    assert time.monotonic() - start < 2
    assert reply[:2] == ("error", "DeadlineExceededError")
    assert reply[2].startswith("Collective all_reduce #4 timed out after 0.2 s: workers 0, 2 of 3 did not arrive")
    r = Reducer(2)
    t, out = _exchange_in_thread(r, "sum", 1, 0, [np.ones(1)], 600)
    _wait_until_waiting(r)
    reply = r.exchange("gather", 1, 1, np.ones(1), 600)
    t.join(5)
    assert reply[:2] == out["reply"][:2] == ("error", "InternalError")
    assert "disagree at collective #1: all_reduce and all_gather" in reply[2]


def test_workers_that_all_arrive_get_the_sum():
    r = Reducer(2)
    t, out = _exchange_in_thread(r, "sum", 1, 0, [np.array([1.0, 2.0])], 600)
    mine = r.exchange("sum", 1, 1, [np.array([10.0, 20.0])], 600)
    t.join(5)
    assert mine[0] == out["reply"][0] == "ok"
    np.testing.assert_array_equal(mine[1][0], [11.0, 22.0])
    assert r.worker_gone(0, "finished") == "" and not r._slots  # nothing left waiting
