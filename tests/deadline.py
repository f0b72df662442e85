"""A hang turned into a test failure: `with deadline(5): ...` raises TimeoutError after 5 s (SIGALRM)."""
import contextlib
import signal


@contextlib.contextmanager
def deadline(seconds):
    def fire(*_):
        raise TimeoutError(f"still running after {seconds} s")
    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
