"""Attention (Luong-style dot or concat scores) and MultiHeadAttention, with tf_keras 2's weights and masking:
masked scores get -1e9 before the softmax, masked queries give zero rows (Attention)."""
import math

import rivulet as tf

from .. import initializers
from . import _config
from .base import Layer
from .masking import get_mask


def _causal(tq, tv):
    """[1, Tq, Tv] True where a query may see a value (at or before its own position)."""
    rows = tf.expand_dims(tf.range(tq), 1)
    cols = tf.expand_dims(tf.range(tv), 0)
    return tf.expand_dims(rows >= cols, 0)


def _masked_softmax(scores, mask):
    if mask is not None:
        scores = scores - 1e9 * tf.cast(tf.logical_not(mask), scores.dtype)
    return tf.nn.softmax(scores)


class Attention(Layer):
    """softmax(query @ key^T [* scale]) @ value; inputs [query, value] or [query, value, key]."""

    def __init__(self, use_scale=False, score_mode="dot", dropout=0.0, **kwargs):
        super().__init__(**kwargs)
        if score_mode not in ("dot", "concat"):
            raise ValueError(f"Invalid value for argument score_mode. Expected one of {{'dot', 'concat'}}. "
                             f"Received: score_mode={score_mode}")
        self.use_scale, self.score_mode, self.dropout = use_scale, score_mode, dropout
        self.supports_masking = True

    def build(self, input_shape):
        self.scale = self.add_weight("scale", (), initializer="ones") if self.use_scale else None
        self.concat_score_weight = self.add_weight("concat_score_weight", (), initializer="ones") \
            if self.score_mode == "concat" else None
        self.built = True

    def _scores(self, query, key):
        if self.score_mode == "dot":
            scores = tf.matmul(query, key, transpose_b=True)
            return scores * self.scale if self.scale is not None else scores
        q, k = tf.expand_dims(query, -2), tf.expand_dims(key, -3)
        s = q + k if self.scale is None else self.scale * (q + k)
        return self.concat_score_weight * tf.reduce_sum(tf.tanh(s), -1)

    def call(self, inputs, mask=None, training=None, return_attention_scores=False, use_causal_mask=False):
        if not isinstance(inputs, (list, tuple)) or len(inputs) not in (2, 3):
            raise ValueError(f"Attention layer must be called on a list of inputs, namely [query, value] or "
                             f"[query, value, key]. Received: {inputs}.")
        query, value = inputs[0], inputs[1]
        key = inputs[2] if len(inputs) == 3 else value
        q_mask = v_mask = None
        if mask is not None:
            q_mask, v_mask = mask[0], mask[1]
        scores = self._scores(query, key)
        scores_mask = None
        if v_mask is not None:
            scores_mask = tf.expand_dims(tf.cast(v_mask, tf.bool), -2)
        if use_causal_mask:
            causal = _causal(tf.shape(scores)[-2], tf.shape(scores)[-1])
            scores_mask = causal if scores_mask is None else tf.logical_and(scores_mask, causal)
        weights = _masked_softmax(scores, scores_mask)
        if training and self.dropout > 0:
            weights = tf.nn.dropout(weights, self.dropout)
        result = tf.matmul(weights, value)
        if q_mask is not None:
            result = result * tf.cast(tf.expand_dims(q_mask, -1), result.dtype)
        return (result, weights) if return_attention_scores else result

    def compute_mask(self, inputs, mask=None):
        if mask is None or mask[0] is None:
            return None
        return tf.convert_to_tensor(mask[0])

    def get_config(self):
        return {**super().get_config(), "use_scale": self.use_scale, "score_mode": self.score_mode,
                "dropout": self.dropout}


class MultiHeadAttention(Layer):
    """Scaled dot-product attention over `num_heads` learned projections of [batch, time, dim] inputs."""

    def __init__(self, num_heads, key_dim, value_dim=None, dropout=0.0, use_bias=True, output_shape=None,
                 attention_axes=None, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, query_shape=None, value_shape=None, key_shape=None,
                 softmax_robust_masking=False, **kwargs):
        # query/value/key_shape come back from get_config (the shapes weights were built for): the first call
        # rebuilds from the real inputs, so they need no action here.
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        if attention_axes is not None and tuple(attention_axes if isinstance(attention_axes, (list, tuple))
                                                else [attention_axes]) not in ((1,), (-2,)):
            raise NotImplementedError("rivulet's MultiHeadAttention attends over the time axis of 3-D inputs only "
                                      "(attention_axes=None)")
        self.num_heads, self.key_dim = num_heads, key_dim
        self.value_dim = value_dim if value_dim else key_dim
        self.dropout, self.use_bias, self._output_shape = dropout, use_bias, output_shape
        self.attention_axes = attention_axes
        _config.init_settings(self, "kernel", kernel_initializer, kernel_regularizer, kernel_constraint)
        _config.init_settings(self, "bias", bias_initializer, bias_regularizer, bias_constraint)
        self.supports_masking = True
        self._shapes = (None, None, None)

    def _dense(self, name, shape, bias_shape):
        # each projection draws from its own copy of the initializer (tf_keras clones it per sublayer)
        kernel = _config.add_weight(self, "kernel", f"{name}/kernel", shape,
                                    initializer=_fresh(self.kernel_initializer))
        bias = _config.add_weight(self, "bias", f"{name}/bias", bias_shape,
                                  initializer=_fresh(self.bias_initializer)) if self.use_bias else None
        return kernel, bias

    def _build_from(self, query, value, key):
        q_dim, v_dim, k_dim = query.shape[-1], value.shape[-1], key.shape[-1]
        for t in (query, value, key):
            if t.shape.rank != 3:
                raise NotImplementedError(f"rivulet's MultiHeadAttention takes 3-D [batch, time, dim] inputs; got "
                                          f"shape {t.shape}")
        h = self.num_heads
        self._shapes = tuple(t.shape.as_list() for t in (query, value, key))
        out_dim = self._output_shape if self._output_shape is not None else q_dim
        if isinstance(out_dim, (list, tuple)):
            if len(out_dim) != 1:
                raise NotImplementedError("rivulet's MultiHeadAttention supports a 1-D output_shape only")
            out_dim = out_dim[0]
        with tf.init_scope():
            self.query_kernel, self.query_bias = self._dense("query", (q_dim, h, self.key_dim), (h, self.key_dim))
            self.key_kernel, self.key_bias = self._dense("key", (k_dim, h, self.key_dim), (h, self.key_dim))
            self.value_kernel, self.value_bias = self._dense("value", (v_dim, h, self.value_dim),
                                                             (h, self.value_dim))
            self.output_kernel, self.output_bias = self._dense("attention_output", (h, self.value_dim, out_dim),
                                                               (out_dim,))
        self.built = True

    def build(self, input_shape):
        self.built = False  # weights are made on the first call, from the shapes of query, value and key

    def _maybe_build(self, inputs):
        # The first positional input is only the query: weights wait for call() to see value and key too.
        pass

    def _project(self, x, kernel, bias):
        y = tf.einsum("abc,cde->abde", x, kernel)
        return y + bias if bias is not None else y

    def call(self, query, value, key=None, attention_mask=None, return_attention_scores=False, training=None,
             use_causal_mask=False):
        key = value if key is None else key
        query, value, key = (tf.convert_to_tensor(t) if not isinstance(t, tf.Tensor) else t
                             for t in (query, value, key))
        if not self.built or getattr(self, "query_kernel", None) is None:
            self._build_from(query, value, key)
        mask = self._attention_mask(query, value, key, attention_mask, use_causal_mask)
        q = self._project(query, self.query_kernel, self.query_bias)
        k = self._project(key, self.key_kernel, self.key_bias)
        v = self._project(value, self.value_kernel, self.value_bias)
        q = q * tf.cast(1.0 / math.sqrt(float(self.key_dim)), q.dtype)
        scores = tf.einsum("aecd,abcd->acbe", k, q)
        weights = _masked_softmax(scores, None if mask is None else tf.expand_dims(mask, 1))
        dropped = tf.nn.dropout(weights, self.dropout) if training and self.dropout > 0 else weights
        out = tf.einsum("acbe,aecd->abcd", dropped, v)
        out = tf.einsum("abcd,cde->abe", out, self.output_kernel)
        if self.output_bias is not None:
            out = out + self.output_bias
        return (out, weights) if return_attention_scores else out

    def _attention_mask(self, query, value, key, attention_mask, use_causal_mask):
        """Keras combines the query/value/key masks, the explicit attention_mask and the causal mask."""
        mask = None
        q_mask, v_mask, k_mask = get_mask(query), get_mask(value), get_mask(key)
        if q_mask is not None:
            mask = tf.expand_dims(tf.cast(q_mask, tf.bool), -1)
        for m in (v_mask, k_mask):
            if m is not None:
                m = tf.expand_dims(tf.cast(m, tf.bool), -2)
                mask = m if mask is None else tf.logical_and(mask, m)
        if use_causal_mask:
            c = _causal(tf.shape(query)[1], tf.shape(value)[1])
            mask = c if mask is None else tf.logical_and(mask, c)
        if attention_mask is not None:
            a = tf.cast(attention_mask, tf.bool)
            mask = a if mask is None else tf.logical_and(mask, a)
        return mask

    def get_config(self):
        return {**super().get_config(), "num_heads": self.num_heads, "key_dim": self.key_dim,
                "value_dim": self.value_dim, "dropout": self.dropout, "use_bias": self.use_bias,
                "output_shape": self._output_shape, "attention_axes": self.attention_axes,
                "query_shape": self._shapes[0], "value_shape": self._shapes[1], "key_shape": self._shapes[2],
                "softmax_robust_masking": False,
                "activity_regularizer": _config.serialize(self.activity_regularizer),
                **_config.settings(self, "kernel", "bias")}


def _fresh(init):
    return type(init).from_config(init.get_config()) if isinstance(init, initializers.Initializer) else init
