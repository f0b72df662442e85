"""SpectralNormalization: a Dense layer whose kernel is divided by max(1, sigma / norm_multiplier), sigma its
largest singular value estimated by power iteration (the vector `u` kept between calls, updated in
training)."""
import rivulet as tf


class SpectralNormalization(tf.keras.layers.Layer):
    def __init__(self, layer, iteration=1, norm_multiplier=0.95, training=True, aggregation=None,
                 inhere_layer_name=False, **kwargs):
        if not isinstance(layer, tf.keras.layers.Layer):
            raise ValueError(f"`layer` must be a `tf.keras.layer.Layer`. Observed `{layer}`")
        if inhere_layer_name:
            kwargs.setdefault("name", layer.name)
        super().__init__(**kwargs)
        self.layer = layer
        self.iteration = iteration
        self.norm_multiplier = norm_multiplier
        self.do_power_iteration = training

    def build(self, input_shape):
        if not self.layer.built:
            self.layer.build(input_shape)
            self.layer.built = True
        kernel = self.layer.kernel
        self.u = self.add_weight(name="u", shape=(1, kernel.shape[-1]),
                                 initializer=tf.keras.initializers.RandomNormal(), trainable=False)
        super().build(input_shape)

    def _normalized_kernel(self, training):
        kernel = self.layer.kernel
        w = tf.reshape(kernel, [-1, kernel.shape[-1]])
        u = tf.identity(self.u)
        for _ in range(self.iteration):
            v = tf.math.l2_normalize(tf.matmul(u, w, transpose_b=True))
            u = tf.math.l2_normalize(tf.matmul(v, w))
        u, v = tf.stop_gradient(u), tf.stop_gradient(v)
        if training:
            self.u.assign(u)
        sigma = tf.reshape(tf.matmul(tf.matmul(v, w), u, transpose_b=True), [])
        return kernel / tf.maximum(1.0, sigma / self.norm_multiplier)

    def call(self, inputs, training=None):
        training = self.do_power_iteration if training is None else training
        layer = self.layer
        kernel = self._normalized_kernel(bool(training) if isinstance(training, bool) else training)
        if not isinstance(layer, tf.keras.layers.Dense):
            raise NotImplementedError("the SpectralNormalization stand-in wraps Dense layers")
        out = tf.tensordot(inputs, kernel, [[inputs.shape.rank - 1], [0]])
        if layer.use_bias:
            out = out + layer.bias
        return layer.activation(out) if layer.activation is not None else out

    def compute_output_shape(self, input_shape):
        return self.layer.compute_output_shape(input_shape)
