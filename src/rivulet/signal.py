"""tf.signal: FFTs, frame/overlap_and_add, windows, stft/inverse_stft."""
from .ops.signal_ops import (fft, fft2d, fft3d, frame, hamming_window, hann_window, ifft, ifft2d,  # noqa: F401
                             ifft3d, inverse_stft, inverse_stft_window_fn, irfft, irfft2d, overlap_and_add, rfft,
                             rfft2d, stft)
from .ops.signal_ops import (dct, idct, linear_to_mel_weight_matrix, mfccs_from_log_mel_spectrograms,  # noqa: F401
                             vorbis_window, kaiser_window, kaiser_bessel_derived_window, mdct, inverse_mdct,
                             rfft3d, irfft3d)


def _shift(x, axes, sign, name):
    from .ops import array_ops as _a
    from .ops._rules import to_tensor as _to_tensor
    from . import dtypes as _dt
    x = _to_tensor(x)
    if x.shape.rank is None:
        raise ValueError(f"tf.signal.{name} needs a tensor of known rank")
    if axes is None:
        axes = list(range(x.shape.rank))
    elif isinstance(axes, int):
        axes = [axes]
    axes = [int(a) for a in axes]
    dims = [x.shape[a] for a in axes]
    if None in dims:  # sizes known only when the graph runs
        size = _a.shape(x, out_type=_dt.int32)
        shifts = _a.stack([(size[a] // 2 if sign > 0 else -(size[a] // 2)) for a in axes])
    else:
        shifts = [d // 2 if sign > 0 else -(d // 2) for d in dims]
    return _a.roll(x, shifts, axes, name=name)


def fftshift(x, axes=None, name=None):
    """Moves the zero-frequency term to the centre: a roll by size // 2 along `axes` (all by default)."""
    return _shift(x, axes, 1, name or "fftshift")


def ifftshift(x, axes=None, name=None):
    """fftshift's inverse: a roll by -(size // 2)."""
    return _shift(x, axes, -1, name or "ifftshift")
