"""Running a function on Ray worker processes, with a reducer actor through which they exchange arrays.

Each worker is a Ray actor holding one replica; the reducer is a threaded actor where the workers' n-th
collective calls meet: it sums (in worker order, so every worker gets bit-identical results) or concatenates
what they send and hands the result back to all. The driver watches the workers: one that raises or dies
aborts the reducer (so the others stop waiting), every actor is killed, and the error is raised here; one
that finishes while others still run is reported to the reducer, so a collective that waits for it fails at
once (UnavailableError) instead of at its timeout (DeadlineExceededError, collective.DEFAULT_TIMEOUT).
"""
import os
import sys
import threading
import time

import numpy as np

_started_by_us = [False]
_NAMES = {"sum": "all_reduce", "gather": "all_gather", "broadcast": "broadcast"}


def _ray():
    try:
        import ray
    except ImportError:
        raise ImportError("tf.distribute on Ray needs Ray, an optional extra: pip install 'rivulet[distribute]'") \
            from None
    return ray


def _workers(ranks, size=None):
    ranks = sorted(ranks)
    return f"worker{'s' if len(ranks) > 1 else ''} {', '.join(map(str, ranks))}" + (f" of {size}" if size else "")


class Reducer:
    """Where the workers' collective calls meet (a Ray actor with one thread per waiting worker).

    `exchange` answers ("ok", result) or ("error", error class name, message): the worker raises it as
    a rivulet.errors exception (Ray would wrap an exception raised here in its own)."""

    def __init__(self, size):
        self._size = size
        self._cond = threading.Condition()
        self._slots = {}  # seq -> {"kind", "parts": {rank: value}, "result", "taken": int}
        self._failed = None  # (error class name, message): once set, every collective fails with it
        self._gone = {}  # rank -> "finished" or "died": workers that will make no more collective calls

    def _fail(self, error, message):
        if self._failed is None:
            self._failed = (error, message)
        self._cond.notify_all()

    def _check_gone(self):
        """A slot still waiting for a worker that has gone can never complete: fail it now."""
        for seq, slot in self._slots.items():
            missing = [r for r in self._gone if r not in slot["parts"]]
            if slot["result"] is None and missing:
                waiting = len(slot["parts"])
                self._fail("UnavailableError",
                           f"{_workers([missing[0]], self._size)} {self._gone[missing[0]]} while "
                           f"{_workers(slot['parts'])} wait{'s' if waiting == 1 else ''} in "
                           f"{_NAMES[slot['kind']]} #{seq} (every worker must make the same collective calls)")
                return

    def exchange(self, kind, seq, rank, value, timeout=None):
        with self._cond:
            slot = None if self._failed else self._slots.setdefault(
                seq, {"kind": kind, "parts": {}, "result": None, "taken": 0})
            if slot is not None and slot["kind"] != kind:
                self._fail("InternalError", f"workers disagree at collective #{seq}: {_NAMES[slot['kind']]} and "
                                            f"{_NAMES[kind]} (every worker must make the same collective calls in "
                                            f"the same order)")
            elif slot is not None:
                slot["parts"][rank] = value
                if len(slot["parts"]) == self._size:
                    slot["result"] = _combine(kind, [slot["parts"][r] for r in range(self._size)])
                    self._cond.notify_all()
                else:
                    self._check_gone()
                    if not self._cond.wait_for(lambda: slot["result"] is not None or self._failed, timeout=timeout):
                        late = [r for r in range(self._size) if r not in slot["parts"]]
                        self._fail("DeadlineExceededError",
                                   f"Collective {_NAMES[kind]} #{seq} timed out after {timeout:g} s: "
                                   f"{_workers(late, self._size)} did not arrive (set another limit with "
                                   f"tf.distribute.experimental.CommunicationOptions(timeout_seconds=...))")
            if slot is None or slot["result"] is None:  # failed (a collective that completed still returns)
                return ("error",) + self._failed
            slot["taken"] += 1
            if slot["taken"] == self._size:
                del self._slots[seq]
            return ("ok", slot["result"])

    def worker_gone(self, rank, how):
        """Worker `rank` has finished or died: collectives that wait for it fail now. Returns who waits
        where, for the driver's message."""
        with self._cond:
            self._gone[rank] = how
            self._check_gone()
            return self.waiting()

    def waiting(self):
        """Who waits in which collective ("worker 0 of 2 waiting in all_reduce #5"), or ""."""
        with self._cond:
            return "; ".join(f"{_workers(s['parts'])} waiting in {_NAMES[s['kind']]} #{seq}"
                             for seq, s in self._slots.items() if s["result"] is None and s["parts"])

    def abort(self, why):
        with self._cond:
            self._fail("AbortedError", why)

    def ping(self):
        return os.getpid()


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
        from .. import errors

        def exchange(kind, seq, value):
            reply = ray.get(reducer.exchange.remote(kind, seq, rank, value, comm.timeout))
            if reply[0] == "ok":
                return reply[1]
            raise getattr(errors, reply[1])(reply[2])
        comm = collective.SequencedCommunicator(rank, size, exchange)
        collective.set_communicator(comm)

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
    results, failure = [None] * n, None
    deadline = None if resolver.timeout is None else time.monotonic() + resolver.timeout
    try:
        # Every actor must exist before any can fail: Ray ignores a kill that reaches a worker process before
        # the actor it is to host has started, and that actor then lives on holding its CPUs, so later runs
        # wait forever to be scheduled (seen when worker 0 raised before worker 1 had started).
        _wait_started(ray, resolver, workers + [reducer], deadline)
        refs = [w.run.remote(fn, args, kwargs) for w in workers]
        pending = list(refs)
        while pending and failure is None:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, pending = ray.wait(pending, num_returns=1, timeout=left)
            if not ready:
                try:
                    where = ray.get(reducer.waiting.remote(), timeout=10)
                except Exception:
                    where = ""
                failure = TimeoutError(f"the workers did not finish within {resolver.timeout} s"
                                       + (f" ({where})" if where else ""))
                break
            i = refs.index(ready[0])
            try:
                results[i] = ray.get(ready[0])
                if pending:  # the others must not wait for it in a collective
                    reducer.worker_gone.remote(i, "finished")
            except ray.exceptions.RayTaskError as e:  # the function raised on worker i: raise its error
                failure = e.as_instanceof_cause()
            except ray.exceptions.RayActorError as e:
                failure = RuntimeError(f"Ray worker {i} of {n} died while running {getattr(fn, '__name__', fn)!r}"
                                       f"{_waiting(ray, reducer, i)}: "
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


STARTUP_TIMEOUT = 300.0  # seconds the workers may take to be scheduled and start when the run has no timeout


def _wait_started(ray, resolver, actors, deadline):
    """Waits until every actor (the workers, then the reducer) answers; raises TimeoutError naming those Ray
    has not started (the cluster lacks the CPUs they ask for, or their processes cannot start)."""
    limit = STARTUP_TIMEOUT if deadline is None else max(0.0, deadline - time.monotonic())
    pings = [a.ping.remote() for a in actors]
    ready, _ = ray.wait(pings, num_returns=len(pings), timeout=limit)
    late = [i for i, p in enumerate(pings) if p not in ready]
    if late:
        n = resolver.num_workers
        who = _workers([i for i in late if i < n], n) if late[0] < n else "the collective reducer"
        try:
            free = f"; the cluster has {ray.available_resources().get('CPU', 0):g} CPUs free"
        except Exception:
            free = ""
        within = STARTUP_TIMEOUT if resolver.timeout is None else resolver.timeout
        raise TimeoutError(f"Ray did not start {who} within {within:g} s: each worker asks for "
                           f"{resolver.cpus_per_worker} CPU (RayClusterResolver(cpus_per_worker=...)){free}")
    for i, p in enumerate(pings):
        try:
            ray.get(p)
        except ray.exceptions.RayActorError as e:
            raise RuntimeError(f"Ray worker {i} of {resolver.num_workers} died while starting: "
                               f"{str(e).splitlines()[0] if str(e) else type(e).__name__}") from None


def _waiting(ray, reducer, rank):
    """ " (worker 0 of 2 waiting in all_reduce #5)" when other workers wait for the dead one, else ""."""
    try:
        where = ray.get(reducer.worker_gone.remote(rank, "died"), timeout=10)
    except Exception:  # the reducer is gone too: the message goes without it
        return ""
    return f" ({where})" if where else ""


def shutdown():
    if _started_by_us[0]:
        _ray().shutdown()
        _started_by_us[0] = False
