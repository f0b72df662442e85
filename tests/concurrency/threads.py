"""Runs calls on threads of their own (optionally released together) and fails with what any of them raised."""
import threading


def run_in_threads(calls, together=False, timeout=60):
    """Each of `calls` (no-argument callables) on its own thread; asserts that all ended and none raised."""
    errors = []
    barrier = threading.Barrier(len(calls)) if together else None

    def body(call):
        try:
            if barrier is not None:
                barrier.wait()
            call()
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    ts = [threading.Thread(target=body, args=(c,)) for c in calls]
    for t in ts:
        t.start()
    for t in ts:
        t.join(timeout)
    assert not any(t.is_alive() for t in ts)
    assert errors == [], errors
    return ts
