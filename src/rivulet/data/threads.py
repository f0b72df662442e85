"""Work on background threads: parallel map and prefetch, each with a bounded buffer.

NumPy releases the GIL inside its kernels, so threads overlap the pipeline with the consumer's work (a
training step). Threads are daemons that hold no reference to the iterator using them: when an iterator is
abandoned, a weakref finalizer tells its threads to stop, and they exit (nothing is left behind).
"""
import collections
import os
import queue
import threading
import time
import weakref

from .dataset import AUTOTUNE
from .functions import StructuredFunction
from .transforms import _Unary, _count, _fn_name

_STOP = object()
_CHEAP_S = 50e-6  # below this per element, threads cost more than they give under the GIL


def autotune_parallelism():
    """AUTOTUNE's parallelism: the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class ParallelMapDataset(_Unary):
    _tf_name = "_ParallelMapDataset"

    def __init__(self, input_dataset, map_func, num_parallel_calls, deterministic):
        fn = StructuredFunction(map_func, (input_dataset.element_spec,), _fn_name(map_func, "map"))
        super().__init__(input_dataset, fn.output_spec)
        self._fn = fn
        n = _count(num_parallel_calls, "num_parallel_calls")
        if n != AUTOTUNE and n <= 0:
            from ..errors import InvalidArgumentError
            raise InvalidArgumentError("num_parallel_calls must be greater than zero or tf.data.AUTOTUNE.")
        self._parallel = n
        self._deterministic = deterministic is not False
        self._cheap = None  # AUTOTUNE measures the function once per dataset

    def _make_iter(self):
        n = self._parallel
        if n == AUTOTUNE:
            if self._cheap is None or self._cheap:
                return self._autotuned()
            n = autotune_parallelism()
        if n == 1:
            fn = self._fn
            return (fn(e) for e in self._input._make_iter())
        return _ParallelMapIterator(self._fn, self._input._make_iter(), n)

    def _autotuned(self, it=None):
        """AUTOTUNE: time the first elements; when the function is cheaper than a thread handoff (or the
        machine has one core) run it inline, else hand the rest to worker threads. `it`: the input's iterator
        (a restored position's), else a new one."""
        fn = self._fn
        it = self._input._make_iter() if it is None else it
        t0 = time.perf_counter()
        k = 0
        for e in it:
            yield fn(e)
            k += 1
            if k == 32:
                break
        if k < 32:
            return
        cheap = (time.perf_counter() - t0) / k < _CHEAP_S or autotune_parallelism() == 1
        self._cheap = cheap
        if cheap:
            for e in it:
                yield fn(e)
        else:
            yield from _ParallelMapIterator(fn, it, autotune_parallelism())


class _Pool:
    """Daemon workers running (fn, chunk, result slot) tasks; stop() ends them."""

    def __init__(self, n):
        self.tasks = queue.SimpleQueue()
        self.threads = [threading.Thread(target=_work, args=(self.tasks,), daemon=True, name="rivulet-data-map")
                        for _ in range(n)]
        for t in self.threads:
            t.start()

    @staticmethod
    def stop(tasks, n):
        for _ in range(n):
            tasks.put(_STOP)


def _work(tasks):
    while True:
        task = tasks.get()
        if task is _STOP:
            return
        fn, chunk, slot = task
        try:
            slot.result = fn.call_many(chunk)
        except BaseException as e:  # handed to the consumer, raised there
            slot.error = e
        slot.done.set()


class _Slot:
    __slots__ = ("done", "result", "error")

    def __init__(self):
        self.done, self.result, self.error = threading.Event(), None, None


class _ParallelMapIterator:
    """Chunks of input elements mapped on `n` workers, results yielded in input order; at most 2n chunks in
    flight (the bounded buffer)."""
    CHUNK = 16

    def __init__(self, fn, it, n):
        self._fn, self._it, self._n = fn, it, n
        self._pool = _Pool(n)
        self._pending = collections.deque()
        self._buffer = collections.deque()
        self._exhausted = False
        self._close = weakref.finalize(self, _Pool.stop, self._pool.tasks, n)  # runs once: here or at gc

    def __iter__(self):
        return self

    def _fill(self):
        while not self._exhausted and len(self._pending) < 2 * self._n:
            chunk = []
            for e in self._it:
                chunk.append(e)
                if len(chunk) == self.CHUNK:
                    break
            else:
                self._exhausted = True
            if chunk:
                slot = _Slot()
                self._pool.tasks.put((self._fn, chunk, slot))
                self._pending.append(slot)

    def __next__(self):
        if self._buffer:
            return self._buffer.popleft()
        self._fill()
        if not self._pending:
            self._close()  # the end: the workers exit now
            raise StopIteration
        slot = self._pending.popleft()
        slot.done.wait()
        if slot.error is not None:
            self._exhausted = True
            self._pending.clear()
            self._close()
            err, slot.error = slot.error, None
            raise err
        self._buffer.extend(slot.result)
        self._fill()
        return self._buffer.popleft()


class PrefetchDataset(_Unary):
    _tf_name = "_PrefetchDataset"

    def __init__(self, input_dataset, buffer_size):
        super().__init__(input_dataset)
        n = _count(buffer_size, "buffer_size")
        if n != AUTOTUNE and n < 0:
            from ..errors import InvalidArgumentError
            raise InvalidArgumentError("buffer_size must be >= 0 or tf.data.AUTOTUNE.")
        self._size = n

    def _make_iter(self):
        if self._size == 0:
            return self._input._make_iter()
        size = self._size if self._size != AUTOTUNE else 2 * autotune_parallelism()
        return _PrefetchIterator(self._input._make_iter(), size)


class _PrefetchIterator:
    """A producer thread fills a bounded queue from the input iterator; errors and the end travel through
    the queue in order."""

    def __init__(self, it, size):
        self._q = queue.Queue(maxsize=size)
        self._stop = threading.Event()
        self._done = False
        t = threading.Thread(target=_produce, args=(it, self._q, self._stop), daemon=True,
                             name="rivulet-data-prefetch")
        t.start()
        self._thread = t
        weakref.finalize(self, _halt, self._q, self._stop)

    def __iter__(self):
        return self

    def __next__(self):
        if self._done:
            raise StopIteration
        kind, value = self._q.get()
        if kind == 0:
            return value
        self._done = True
        if kind == 1:
            raise StopIteration
        raise value


def _produce(it, q, stop):
    try:
        for e in it:
            while True:
                try:
                    q.put((0, e), timeout=0.05)
                    break
                except queue.Full:
                    if stop.is_set():
                        return
            if stop.is_set():
                return
        item = (1, None)
    except BaseException as e:  # the consumer raises it where it reads this position
        item = (2, e)
    finally:
        close = getattr(it, "close", None)
        if close is not None:
            try:
                close()
            except Exception:
                pass
    while not stop.is_set():
        try:
            q.put(item, timeout=0.05)
            return
        except queue.Full:
            continue


def _halt(q, stop):
    stop.set()
    try:  # free a producer blocked on a full queue now rather than at its next timeout
        while True:
            q.get_nowait()
    except queue.Empty:
        pass
