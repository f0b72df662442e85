"""tf.keras.utils.pad_sequences: a list of variable-length sequences -> one (num_samples, maxlen, ...) array."""
import numpy as np


def pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre", truncating="pre", value=0.0):
    """Pads (or truncates) every sequence to `maxlen` (default: the longest), at the start ('pre') or the end
    ('post'); the items after the first axis keep the first non-empty sequence's shape."""
    if not hasattr(sequences, "__len__"):
        raise ValueError("`sequences` must be iterable.")
    if padding not in ("pre", "post"):
        raise ValueError(f'Padding type "{padding}" not understood')
    if truncating not in ("pre", "post"):
        raise ValueError(f'Truncating type "{truncating}" not understood')
    lengths, sample_shape = [], None
    for x in sequences:
        try:
            lengths.append(len(x))
        except TypeError as e:
            raise ValueError(f"`sequences` must be a list of iterables. Found non-iterable: {x}") from e
        if sample_shape is None and len(x):
            sample_shape = np.asarray(x).shape[1:]
    sample_shape = sample_shape or ()
    if maxlen is None:
        maxlen = max(lengths) if lengths else 0
    maxlen = int(maxlen)
    if maxlen < 0:
        raise ValueError(f"`maxlen` must be non-negative. Received: maxlen={maxlen}")
    is_str = np.issubdtype(np.dtype(dtype), np.str_) if dtype is not object else False
    if isinstance(value, str) and dtype is not object and not is_str:
        raise ValueError(f"`dtype` {dtype} is not compatible with `value`'s type: {type(value)}\n"
                         "You should set `dtype=object` for variable length strings.")

    out = np.full((len(lengths), maxlen) + tuple(sample_shape), value, dtype=dtype)
    for idx, s in enumerate(sequences):
        if not len(s) or not maxlen:
            continue
        trunc = np.asarray(s[-maxlen:] if truncating == "pre" else s[:maxlen], dtype=dtype)
        if trunc.shape[1:] != tuple(sample_shape):
            raise ValueError(f"Shape of sample {trunc.shape[1:]} of sequence at position {idx} is different from "
                             f"expected shape {tuple(sample_shape)}")
        if padding == "post":
            out[idx, :len(trunc)] = trunc
        else:
            out[idx, -len(trunc):] = trunc
    return out
