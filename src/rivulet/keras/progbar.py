"""Keras's progress bar, in the format TF 2.x's Keras prints:

    1/2 [==============>...............] - ETA: 0s - loss: 0.0023
    2/2 [==============================] - 0s 13ms/step - loss: 0.0016
"""
import math
import sys
import time


def _number(v):
    return f" {v:.4f}" if abs(v) > 1e-3 else f" {v:.4e}"


def _per_step(seconds):
    if seconds >= 1:
        return f" {seconds:.0f}s/step"
    if seconds >= 1e-3:
        return f" {seconds * 1e3:.0f}ms/step"
    return f" {seconds * 1e6:.0f}us/step"


def _eta(seconds):
    if seconds > 3600:
        return f"{int(seconds) // 3600}:{(int(seconds) % 3600) // 60:02d}:{int(seconds) % 60:02d}"
    if seconds > 60:
        return f"{int(seconds) // 60}:{int(seconds) % 60:02d}"
    return f"{int(seconds)}s"


def _dynamic(stream):
    """A terminal or a notebook can redraw a line in place; a pipe or a file gets only final lines."""
    return (hasattr(stream, "isatty") and stream.isatty()) or "ipykernel" in sys.modules


class Progbar:
    """verbose=1: a bar redrawn in place on terminals (at most every `interval` seconds), and a final line;
    verbose=2: one line at the end."""

    def __init__(self, target, width=30, verbose=1, interval=0.05, stream=None):
        self.target, self.width, self.verbose, self.interval = target, width, verbose, interval
        self._stream = stream
        self._start = time.time()
        self._last_update = 0.0
        self._drawn = False
        self._width = 0  # length of the line drawn last, to blank out its tail when redrawing shorter

    def _write(self, text):
        stream = self._stream or sys.stdout
        stream.write(text)
        stream.flush()

    def update(self, current, values=(), finalize=False):
        """`values`: (name, float) pairs, already averaged (Keras's metrics are stateful)."""
        now = time.time()
        if self.verbose == 1:
            if not finalize and (now - self._last_update < self.interval or
                                 not _dynamic(self._stream or sys.stdout)):
                return
            line = self._bar(current)
            per = (now - self._start) / current if current else 0.0
            if finalize:
                line += f" - {now - self._start:.0f}s" + _per_step(per)
            else:
                line += " - ETA: " + _eta(per * (self.target - current)) if self.target else ""
            line += "".join(f" - {k}:" + _number(v) for k, v in values)
            if self._drawn:
                line = "\r" + line + " " * max(0, self._width - len(line))
            self._width = len(line.lstrip("\r"))
            self._write(line + ("\n" if finalize else ""))
            self._drawn = not finalize
            self._last_update = now
        elif self.verbose == 2 and finalize:
            digits = int(math.log10(self.target)) + 1 if self.target else 1
            line = f"{current:{digits}d}/{self.target} - {now - self._start:.0f}s"
            line += "".join(f" - {k}:" + _number(v) for k, v in values)
            self._write(line + "\n")

    def _bar(self, current):
        if not self.target:
            return f"{current:7d}/Unknown"
        digits = int(math.log10(self.target)) + 1
        done = int(self.width * current / self.target)
        bar = f"{current:{digits}d}/{self.target} ["
        if done > 0:
            bar += "=" * (done - 1) + (">" if current < self.target else "=")
        return bar + "." * (self.width - done) + "]"
