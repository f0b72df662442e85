"""pix2pix building blocks (stand-in, see the package's docstring): `downsample` / `upsample` blocks,
the U-Net `unet_generator`, the PatchGAN `discriminator` and `InstanceNormalization`.

The architecture, as the paper describes it: 4x4 convolutions of stride 2 with weights drawn from N(0, 0.02)
and no bias, each followed by a normalisation (batch or instance) and LeakyReLU (0.2) going down, by ReLU
(with 50% dropout in the three innermost blocks) going up; the generator's encoder halves a 256x256 image
eight times (64, 128, 256, 512 x 5 filters), the decoder doubles it back with skip connections to the
encoder's outputs and ends with a tanh; the discriminator classifies 70x70 patches (64, 128, 256 filters
down, then two stride-1 4x4 convolutions, 512 and 1 filters, each after a 1-pixel zero padding).
"""
import rivulet as tf


def _init():
    return tf.keras.initializers.RandomNormal(0.0, 0.02)


class InstanceNormalization(tf.keras.layers.Layer):
    """Normalises each image and channel over its height and width: x' = scale * (x - mean) / sqrt(var + eps)
    + offset, with a learnt scale (from N(1, 0.02)) and offset (zeros) per channel."""

    def __init__(self, epsilon=1e-5, **kwargs):
        super().__init__(**kwargs)
        self.epsilon = epsilon

    def build(self, input_shape):
        channels = input_shape[-1:]
        self.scale = self.add_weight(name="scale", shape=channels, trainable=True,
                                     initializer=tf.keras.initializers.RandomNormal(1.0, 0.02))
        self.offset = self.add_weight(name="offset", shape=channels, trainable=True, initializer="zeros")
        super().build(input_shape)

    def call(self, x):
        mean, variance = tf.nn.moments(x, axes=[1, 2], keepdims=True)
        return self.scale * ((x - mean) * tf.math.rsqrt(variance + self.epsilon)) + self.offset

    def get_config(self):
        return {**super().get_config(), "epsilon": self.epsilon}


def _norm(norm_type):
    kind = norm_type.lower()
    if kind == "batchnorm":
        return tf.keras.layers.BatchNormalization()
    if kind == "instancenorm":
        return InstanceNormalization()
    raise ValueError(f"norm_type must be 'batchnorm' or 'instancenorm', got {norm_type!r}")


def downsample(filters, size, norm_type="batchnorm", apply_norm=True):
    """Conv2D (stride 2, 'same') -> normalisation -> LeakyReLU: halves the height and width."""
    block = tf.keras.Sequential()
    block.add(tf.keras.layers.Conv2D(filters, size, strides=2, padding="same", kernel_initializer=_init(),
                                     use_bias=False))
    if apply_norm:
        block.add(_norm(norm_type))
    block.add(tf.keras.layers.LeakyReLU())
    return block


def upsample(filters, size, norm_type="batchnorm", apply_dropout=False):
    """Conv2DTranspose (stride 2, 'same') -> normalisation -> Dropout(0.5) if asked -> ReLU: doubles them."""
    block = tf.keras.Sequential()
    block.add(tf.keras.layers.Conv2DTranspose(filters, size, strides=2, padding="same",
                                              kernel_initializer=_init(), use_bias=False))
    block.add(_norm(norm_type))
    if apply_dropout:
        block.add(tf.keras.layers.Dropout(0.5))
    block.add(tf.keras.layers.ReLU())
    return block


def unet_generator(output_channels, norm_type="batchnorm"):
    """The U-Net generator: [batch, 256, 256, 3] images to [batch, 256, 256, output_channels] in [-1, 1]."""
    encoder = [downsample(64, 4, norm_type, apply_norm=False)] + [
        downsample(f, 4, norm_type) for f in (128, 256, 512, 512, 512, 512, 512)]
    decoder = [upsample(512, 4, norm_type, apply_dropout=True) for _ in range(3)] + [
        upsample(f, 4, norm_type) for f in (512, 256, 128, 64)]
    last = tf.keras.layers.Conv2DTranspose(output_channels, 4, strides=2, padding="same",
                                           kernel_initializer=_init(), activation="tanh")
    inputs = tf.keras.layers.Input(shape=[None, None, 3])
    x, skips = inputs, []
    for block in encoder:
        x = block(x)
        skips.append(x)
    for block, skip in zip(decoder, reversed(skips[:-1])):
        x = tf.keras.layers.Concatenate()([block(x), skip])
    return tf.keras.Model(inputs=inputs, outputs=last(x))


def discriminator(norm_type="batchnorm", target=True):
    """The PatchGAN discriminator: a [batch, 30, 30, 1] map of logits for a 256x256 image (concatenated with
    its target image when `target`)."""
    image = tf.keras.layers.Input(shape=[None, None, 3], name="input_image")
    inputs = [image]
    x = image
    if target:
        tar = tf.keras.layers.Input(shape=[None, None, 3], name="target_image")
        inputs.append(tar)
        x = tf.keras.layers.concatenate([image, tar])
    x = downsample(64, 4, norm_type, apply_norm=False)(x)
    x = downsample(128, 4, norm_type)(x)
    x = downsample(256, 4, norm_type)(x)
    x = tf.keras.layers.ZeroPadding2D()(x)
    x = tf.keras.layers.Conv2D(512, 4, strides=1, kernel_initializer=_init(), use_bias=False)(x)
    x = _norm(norm_type)(x)
    x = tf.keras.layers.LeakyReLU()(x)
    x = tf.keras.layers.ZeroPadding2D()(x)
    out = tf.keras.layers.Conv2D(1, 4, strides=1, kernel_initializer=_init())(x)
    return tf.keras.Model(inputs=inputs if target else image, outputs=out)
