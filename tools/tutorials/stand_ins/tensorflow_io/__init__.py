"""A stand-in for `tensorflow_io` (tfio), for the tutorial runner only (never shipped with rivulet): the one
function audio/transfer_learning_audio calls, `tfio.audio.resample(input, rate_in, rate_out)`, written with
rivulet ops so it runs inside tf.function and tf.data maps as tfio's op does. It interpolates linearly between
neighbouring samples (tfio filters with a band-limited kernel first; nothing here depends on the difference).
"""
__version__ = "0.37.1"


class audio:  # noqa: N801 (tfio.audio.resample)
    @staticmethod
    def resample(input, rate_in, rate_out, name=None):  # noqa: A002 (tfio's name)
        """[samples] or [samples, channels] at rate_in -> floor(samples * rate_out / rate_in) samples."""
        import rivulet as tf
        x = tf.convert_to_tensor(input)
        if x.shape.rank not in (1, 2):
            raise ValueError(f"resample takes a 1-D [samples] or 2-D [samples, channels] input, got shape {x.shape}")
        r_in, r_out = tf.cast(rate_in, tf.float64), tf.cast(rate_out, tf.float64)
        n = tf.shape(x)[0]
        m = tf.cast(tf.floor(tf.cast(n, tf.float64) * r_out / r_in), tf.int32)
        pos = tf.cast(tf.range(m), tf.float64) * r_in / r_out
        lo = tf.cast(tf.floor(pos), tf.int32)
        hi = tf.minimum(lo + 1, n - 1)
        frac = tf.cast(pos - tf.floor(pos), x.dtype)
        if x.shape.rank == 2:
            frac = tf.expand_dims(frac, 1)
        a, b = tf.gather(x, lo), tf.gather(x, hi)
        return a + (b - a) * frac
