"""Shared by the iterator checkpoint tests: the first n elements an iterator gives, as lists."""
import numpy as np


def take(it, n):
    """Up to n elements of `it` (fewer at its end), each as a (nested) list."""
    out = []
    for _ in range(n):
        x = next(it, None)
        if x is None:
            break
        out.append(np.asarray(x).tolist())
    return out
