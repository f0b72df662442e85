"""tf.signal: FFTs, frame/overlap_and_add, windows, stft/inverse_stft."""
from .ops.signal_ops import (fft, fft2d, fft3d, frame, hamming_window, hann_window, ifft, ifft2d,  # noqa: F401
                             ifft3d, inverse_stft, inverse_stft_window_fn, irfft, irfft2d, overlap_and_add, rfft,
                             rfft2d, stft)
