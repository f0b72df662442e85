"""Running a function on Ray worker processes, with a reducer actor through which they exchange arrays.

Each worker is a Ray actor holding one replica; the reducer is a threaded actor where the workers' n-th
collective calls meet: it sums (in worker order, so every worker gets bit-identical results) or concatenates
what they send and hands the result back to all. The driver watches the workers: one that raises or dies
aborts the reducer (so the others stop waiting), every actor is killed, and the error is raised here.
"""
import os
import sys
import threading
import time

import numpy as np

_started_by_us = [False]
_WAIT = 600.0  # seconds a worker waits at a collective for the others before giving up


def _ray():
    try:
        import ray
    except ImportError:
        raise ImportError("tf.distribute on Ray needs Ray, an optional extra: pip install 'rivulet[distribute]'") \
            from None
    return ray


class Reducer:
    """Where the workers' collective calls meet (a Ray actor with one thread per waiting worker)."""

    def __init__(self, size):
        self._size = size
        self._cond = threading.Condition()
        self._slots = {}  # seq -> {"parts": {rank: value}, "result": ..., "taken": int}
        self._aborted = None

    def exchange(self, kind, seq, rank, value):
        with self._cond:
            if self._aborted:
                raise RuntimeError(self._aborted)
            slot = self._slots.setdefault(seq, {"kind": kind, "parts": {}, "result": None, "taken": 0})
            if slot["kind"] != kind:
                self._aborted = (f"workers disagree at collective #{seq}: {slot['kind']} and {kind} (every worker "
                                 f"must make the same collective calls in the same order)")
                self._cond.notify_all()
                raise RuntimeError(self._aborted)
            slot["parts"][rank] = value
            if len(slot["parts"]) == self._size:
                parts = [slot["parts"][r] for r in range(self._size)]
                slot["result"] = _combine(kind, parts)
                self._cond.notify_all()
            elif not self._cond.wait_for(lambda: slot["result"] is not None or self._aborted, timeout=_WAIT):
                self._aborted = f"collective #{seq}: only {len(slot['parts'])} of {self._size} workers arrived"
                self._cond.notify_all()
            if self._aborted:
                raise RuntimeError(self._aborted)
            slot["taken"] += 1
            result = slot["result"]
            if slot["taken"] == self._size:
                del self._slots[seq]
            return result

    def abort(self, why):
        with self._cond:
            self._aborted = why
            self._cond.notify_all()


def _combine(kind, parts):
    if kind == "sum":
        out = [np.array(a, copy=True) for a in parts[0]]
        for p in parts[1:]:
            for o, a in zip(out, p):
                o += a
        return out
    if kind == "broadcast":
        return parts[0]
    return parts  # gather: each worker concatenates


class Worker:
    """One replica's process (a Ray actor)."""

    def __init__(self, rank, size, reducer):
        import ray
        from . import collective

        def exchange(kind, seq, value):
            return ray.get(reducer.exchange.remote(kind, seq, rank, value))
        collective.set_communicator(collective.SequencedCommunicator(rank, size, exchange))

    def run(self, fn, args, kwargs):
        from .. import nest
        out = fn(*args, **kwargs)
        return nest.map_structure(lambda v: v.numpy() if hasattr(v, "numpy") else v, out)

    def ping(self):
        return os.getpid()


def _init(resolver):
    ray = _ray()
    if not ray.is_initialized():
        src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        path = os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH", "")) if p)
        kw = dict(include_dashboard=False, log_to_driver=True, configure_logging=False,
                  runtime_env={"env_vars": {"PYTHONPATH": path}})
        if resolver.address is None:
            kw["num_cpus"] = max(os.cpu_count() or 1, resolver.num_workers * resolver.cpus_per_worker)
            kw["object_store_memory"] = 200 * 1024 * 1024
        ray.init(address=resolver.address, **kw)
        _started_by_us[0] = resolver.address is None
    return ray


def run_on_workers(resolver, fn, args, kwargs):
    ray = _init(resolver)
    n = resolver.num_workers
    threads = str(max(1, (os.cpu_count() or 1) // n))  # BLAS threads per worker: the cores shared out
    # workers import what the driver can: functions are sent by reference to their modules
    path = os.pathsep.join(dict.fromkeys(p for p in sys.path if p and os.path.isdir(p)))
    env = {"OPENBLAS_NUM_THREADS": threads, "OMP_NUM_THREADS": threads, "MKL_NUM_THREADS": threads,
           "PYTHONPATH": path}
    reducer = ray.remote(num_cpus=0, max_concurrency=n + 4)(Reducer).remote(n)
    worker_cls = ray.remote(num_cpus=resolver.cpus_per_worker, max_restarts=0)(Worker)
    workers = [worker_cls.options(runtime_env={"env_vars": env}).remote(i, n, reducer) for i in range(n)]
    refs = [w.run.remote(fn, args, kwargs) for w in workers]
    results, failure = [None] * n, None
    deadline = None if resolver.timeout is None else time.monotonic() + resolver.timeout
    try:
        pending = list(refs)
        while pending and failure is None:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, pending = ray.wait(pending, num_returns=1, timeout=left)
            if not ready:
                failure = TimeoutError(f"the workers did not finish within {resolver.timeout} s")
                break
            i = refs.index(ready[0])
            try:
                results[i] = ray.get(ready[0])
            except ray.exceptions.RayTaskError as e:  # the function raised on worker i: raise its error
                failure = e.as_instanceof_cause()
            except ray.exceptions.RayActorError as e:
                failure = RuntimeError(f"Ray worker {i} of {n} died while running {getattr(fn, '__name__', fn)!r}: "
                                       f"{str(e).splitlines()[0] if str(e) else type(e).__name__}")
            except Exception as e:  # the result could not be fetched (worker gone, object lost)
                failure = RuntimeError(f"Ray worker {i} of {n} failed: {type(e).__name__}: {e}")
        if failure is not None:
            try:
                ray.get(reducer.abort.remote(f"stopped: another worker failed ({failure})"), timeout=10)
            except Exception:
                pass
            raise failure
        return results
    finally:
        for a in workers + [reducer]:
            try:
                ray.kill(a)
            except Exception:
                pass


def shutdown():
    if _started_by_us[0]:
        _ray().shutdown()
        _started_by_us[0] = False
