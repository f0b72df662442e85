"""RandomFeatureGaussianProcess: a Gaussian-process output layer approximated with random Fourier features
(cos(x W + b), W ~ N(0, 1) on inputs scaled by 1/sqrt(gp_kernel_scale), b ~ U(0, 2 pi), scaled by
sqrt(2 / num_inducing)), a trained linear readout (L2-regularised) plus a fixed output bias, and the
Laplace approximation of its posterior covariance: a precision matrix starting at ridge * I, accumulated
from each training batch's features (exactly with gp_cov_momentum < 0, else as a moving average), giving
ridge * Phi P^-1 Phi^T at inference (the identity while training); `mean_field_logits` scales logits by
1 / sqrt(1 + factor * variance)."""
import math

import rivulet as tf


class RandomFeatureGaussianProcess(tf.keras.layers.Layer):
    def __init__(self, units, num_inducing=1024, gp_kernel_type="gaussian", gp_kernel_scale=1.0,
                 gp_output_bias=0.0, normalize_input=False, gp_kernel_scale_trainable=False,
                 gp_output_bias_trainable=False, gp_cov_momentum=0.999, gp_cov_ridge_penalty=1.0,
                 scale_random_features=True, use_custom_random_features=True,
                 custom_random_features_initializer=None, custom_random_features_activation=None,
                 l2_regularization=1e-6, gp_cov_likelihood="gaussian", return_gp_cov=True,
                 return_random_features=False, dtype=None, name="random_feature_gaussian_process",
                 **gp_output_kwargs):
        super().__init__(name=name, dtype=dtype)
        if gp_cov_likelihood != "gaussian":
            raise NotImplementedError("the RandomFeatureGaussianProcess stand-in has the gaussian likelihood")
        self.units, self.num_inducing = units, num_inducing
        self.gp_kernel_scale, self.gp_output_bias = gp_kernel_scale, gp_output_bias
        self.normalize_input = normalize_input
        self.gp_cov_momentum, self.gp_cov_ridge_penalty = gp_cov_momentum, gp_cov_ridge_penalty
        self.scale_random_features = scale_random_features
        self.l2_regularization = l2_regularization
        self.return_gp_cov, self.return_random_features = return_gp_cov, return_random_features
        self.gp_output_bias_trainable = gp_output_bias_trainable
        self.feature_initializer = custom_random_features_initializer or \
            tf.keras.initializers.RandomNormal(stddev=1.0)
        self.feature_activation = custom_random_features_activation or tf.math.cos

    def build(self, input_shape):
        d = input_shape[-1]
        if self.normalize_input:
            self._input_norm_layer = tf.keras.layers.LayerNormalization(name="gp_input_normalization")
        self.random_kernel = self.add_weight(name="gp_random_feature/kernel", shape=(d, self.num_inducing),
                                             initializer=self.feature_initializer, trainable=False)
        self.random_bias = self.add_weight(
            name="gp_random_feature/bias", shape=(self.num_inducing,), trainable=False,
            initializer=tf.keras.initializers.RandomUniform(0.0, 2.0 * math.pi))
        self.output_kernel = self.add_weight(
            name="gp_output_weights/kernel", shape=(self.num_inducing, self.units),
            regularizer=tf.keras.regularizers.l2(self.l2_regularization))
        self.output_bias = self.add_weight(
            name="gp_output_bias", shape=(self.units,), trainable=self.gp_output_bias_trainable,
            initializer=tf.keras.initializers.Constant(self.gp_output_bias))
        self.precision_matrix = self.add_weight(
            name="gp_covariance/gp_precision_matrix", shape=(self.num_inducing, self.num_inducing),
            trainable=False, initializer=tf.keras.initializers.Identity(gain=self.gp_cov_ridge_penalty))
        super().build(input_shape)

    def reset_covariance_matrix(self):
        self.precision_matrix.assign(tf.eye(self.num_inducing) * self.gp_cov_ridge_penalty)

    def call(self, inputs, global_step=None, training=None):
        x = inputs
        if self.normalize_input:
            x = self._input_norm_layer(x)
        x = x * (1.0 / math.sqrt(self.gp_kernel_scale))
        features = self.feature_activation(tf.matmul(x, self.random_kernel) + self.random_bias)
        if self.scale_random_features:
            features = features * math.sqrt(2.0 / self.num_inducing)
        logits = tf.matmul(features, self.output_kernel) + self.output_bias
        if training:
            batch = tf.matmul(features, features, transpose_a=True)
            if self.gp_cov_momentum > 0:
                n = tf.cast(tf.shape(features)[0], features.dtype)
                new = self.gp_cov_momentum * self.precision_matrix + (1.0 - self.gp_cov_momentum) * batch / n
            else:
                new = self.precision_matrix + batch
            self.precision_matrix.assign(new)
            covmat = tf.eye(tf.shape(features)[0])
        else:
            covmat = self.gp_cov_ridge_penalty * tf.matmul(
                features, tf.matmul(tf.linalg.inv(self.precision_matrix), features, transpose_b=True))
        if not self.return_gp_cov:
            return (logits, features) if self.return_random_features else logits
        return (logits, covmat, features) if self.return_random_features else (logits, covmat)


def mean_field_logits(logits, covariance_matrix=None, mean_field_factor=1.0):
    if mean_field_factor is None or mean_field_factor < 0:
        return logits
    variances = 1.0 if covariance_matrix is None else tf.linalg.diag_part(covariance_matrix)
    scale = tf.sqrt(1.0 + variances * mean_field_factor)
    if len(logits.shape) > 1 and covariance_matrix is not None:
        scale = tf.expand_dims(scale, axis=-1)
    return logits / scale
