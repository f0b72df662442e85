"""CIFAR's "python version" batches: each a pickled dict {b'data': uint8 (N, 3072), b'labels': [...], ...}, read
with the data-only pickle reader."""

import numpy as np

from .safe_pickle import loads, read_limited

MAX_BATCH_BYTES = 1 << 30  # a real batch is ~31 MB (CIFAR-100's train file ~155 MB)


def load_batch(fpath, label_key="labels"):
    """Returns `(data, labels)`: data uint8 of shape (N, 3, 32, 32), labels a list of N ints."""
    with open(fpath, "rb") as f:
        raw = read_limited(f, MAX_BATCH_BYTES, f"{fpath}: not a CIFAR batch")
    d = loads(raw, what=f"{fpath}: not a CIFAR batch")
    if not isinstance(d, dict):
        raise ValueError(f"{fpath}: not a CIFAR batch: it holds a {type(d).__name__}, not a dict.")
    d = {k.decode("utf8", "replace") if isinstance(k, bytes) else k: v for k, v in d.items()}
    data, labels = d.get("data"), d.get(label_key)
    if not isinstance(data, np.ndarray) or data.dtype != np.uint8 or data.ndim != 2 or data.shape[1] != 3072:
        raise ValueError(f"{fpath}: not a CIFAR batch: 'data' must be a uint8 array of shape (N, 3072).")
    if not isinstance(labels, list) or len(labels) != len(data):
        raise ValueError(f"{fpath}: not a CIFAR batch: {label_key!r} must be a list of {len(data)} labels.")
    if not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 256 for v in labels):
        raise ValueError(f"{fpath}: not a CIFAR batch: {label_key!r} must hold class indices in [0, 256).")
    return data.reshape(data.shape[0], 3, 32, 32), labels
