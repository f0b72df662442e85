"""tf.nn.ctc_loss (dense/sparse labels, blank index, batch-major, gradient), ctc_greedy_decoder,
ctc_beam_search_decoder and ctc_unique_labels: values recorded from TensorFlow 2.21 (5 decimals)."""
import numpy as np
import pytest

import rivulet as tf

_rng = np.random.default_rng(5)
LOGITS = _rng.normal(size=(6, 3, 5)).astype(np.float32)
LABELS = [[1, 2, 2, 0], [3, 0, 0, 0], [4, 1, 3, 2]]
LAB_LEN, LOG_LEN = [3, 1, 4], [6, 4, 5]
R = dict(rtol=0, atol=2e-5)


def test_ctc_loss_values():
    logits, labels = tf.constant(LOGITS), tf.constant(LABELS)
    want = [9.10774, 4.12317, 5.34341]
    np.testing.assert_allclose(tf.nn.ctc_loss(labels, logits, LAB_LEN, LOG_LEN, blank_index=0).numpy(), want, **R)
    np.testing.assert_allclose(tf.nn.ctc_loss(labels, logits, LAB_LEN, LOG_LEN).numpy(), want, **R)
    np.testing.assert_allclose(tf.nn.ctc_loss(labels, tf.transpose(logits, [1, 0, 2]), LAB_LEN, LOG_LEN,
                                              logits_time_major=False, blank_index=0).numpy(), want, **R)
    shifted = labels - 1 + tf.cast(labels == 0, tf.int32)
    np.testing.assert_allclose(tf.nn.ctc_loss(shifted, logits, LAB_LEN, LOG_LEN, blank_index=-1).numpy(),
                               [6.98857, 3.96279, 5.21202], **R)
    sp = tf.sparse.from_dense(labels)
    np.testing.assert_allclose(tf.nn.ctc_loss(sp, logits, None, LOG_LEN, blank_index=0).numpy(), want, **R)
    sp2 = tf.sparse.from_dense(tf.constant([[0, 1, 1, 0], [2, 0, 0, 0]]))
    np.testing.assert_allclose(tf.nn.ctc_loss(sp2, logits[:, :2], None, LOG_LEN[:2], blank_index=-1).numpy(),
                               [5.58289, 3.96279], **R)
    with pytest.raises(ValueError, match="Argument `blank_index` must be provided when `labels` is a `SparseTensor`."):
        tf.nn.ctc_loss(sp, logits, None, LOG_LEN)


def test_ctc_loss_gradient():
    logits = tf.constant(LOGITS)
    with tf.GradientTape() as t:
        t.watch(logits)
        loss = tf.reduce_sum(tf.nn.ctc_loss(tf.constant(LABELS), logits, LAB_LEN, LOG_LEN, blank_index=0) *
                             tf.constant([1.0, 2.0, 0.5]))
    g = t.gradient(loss, logits).numpy().ravel()[:12]
    np.testing.assert_allclose(g, [-0.44791, -0.43557, 0.12722, 0.24833, 0.50793, -0.56563, 0.12256, 0.09717,
                                   -0.74636, 1.09227, -0.01559, 0.01784], **R)
    f = tf.function(lambda x: tf.nn.ctc_loss(tf.constant(LABELS), x, LAB_LEN, LOG_LEN, blank_index=0))
    np.testing.assert_allclose(f(logits).numpy(), [9.10774, 4.12317, 5.34341], **R)


def _parts(s):
    return s.indices.numpy().tolist(), s.values.numpy().tolist(), s.dense_shape.numpy().tolist()


def test_decoders():
    logits = tf.constant(LOGITS)
    (d,), neg = tf.nn.ctc_greedy_decoder(logits, [6, 4, 5])
    assert _parts(d) == ([[0, 0], [0, 1], [1, 0], [1, 1], [1, 2], [2, 0], [2, 1], [2, 2]], [1, 3, 1, 3, 0, 3, 0, 3],
                         [3, 3])
    np.testing.assert_allclose(neg.numpy(), [[-3.43403], [-3.37495], [-6.92769]], **R)
    (d,), _ = tf.nn.ctc_greedy_decoder(logits, [6, 4, 5], merge_repeated=False)
    assert _parts(d)[1] == [1, 1, 1, 3, 1, 3, 0, 3, 0, 0, 3]
    (d,), _ = tf.nn.ctc_greedy_decoder(logits, [6, 4, 5], blank_index=0)
    assert _parts(d)[1] == [4, 1, 4, 3, 4, 1, 3, 3, 3, 4]
    decoded, logp = tf.nn.ctc_beam_search_decoder(logits, [6, 4, 5], beam_width=4, top_paths=2)
    assert [_parts(p)[1] for p in decoded] == [[3, 1, 3, 1, 0, 3, 0, 3], [1, 0, 3, 3, 0, 3, 0, 1]]
    np.testing.assert_allclose(logp.numpy(), [[-3.73273, -3.95851], [-2.8513, -2.94376], [-2.49769, -3.06635]], **R)


def test_ctc_unique_labels():
    u, i = tf.nn.ctc_unique_labels(tf.constant([[3, 4, 4, 3], [1, 1, 2, 0]]))
    assert u.numpy().tolist() == [[3, 4, 0, 0], [1, 2, 0, 0]] and i.numpy().tolist() == [[0, 1, 1, 0], [0, 0, 1, 2]]
