"""tf.audio: 16-bit PCM WAV files to float32 audio in [-1, 1) and back."""
from .ops.codec_ops import decode_wav, encode_wav  # noqa: F401
