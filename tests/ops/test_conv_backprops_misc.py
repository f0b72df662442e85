"""tf.nn.depthwise_conv2d_backprop_input/filter, tf.required_space_to_batch_paddings, tf.AggregationMethod:
values recorded from TensorFlow 2.21 (the first 20 values, 4 decimals)."""
import numpy as np

import rivulet as tf

DWIN = [0.41659998893737793, 3.012399911880493, -2.253200054168701, -1.2151999473571777, -0.6735000014305115,
    0.8881000280380249, -0.0868000015616417, -0.9402999877929688, -1.059499979019165, -1.5615999698638916,
    1.2896000146865845, 1.5152000188827515, -2.003499984741211, -0.5861999988555908, 4.212600231170654,
    0.6722999811172485, -3.6210999488830566, 0.5619999766349792, -2.0155999660491943, 3.4563000202178955]
DWF = [2.1828999519348145, -4.132500171661377, -2.8773999214172363, 1.1576000452041626, -1.7331000566482544,
    0.16329999268054962, 1.8309999704360962, -0.4668999910354614, -2.2760000228881836, -0.6428999900817871,
    0.8339999914169312, 1.7063000202178955, -1.5880999565124512, -2.222899913787842, 0.9532999992370605,
    -1.0051000118255615, 1.6689000129699707, -0.9276999831199646, 2.2857000827789307, -3.0833001136779785]


def test_depthwise_backprops():
    rng = np.random.default_rng(4)
    x = tf.constant(rng.normal(size=(1, 5, 5, 2)).astype(np.float32))
    w = tf.constant(rng.normal(size=(3, 3, 2, 2)).astype(np.float32))
    dy = tf.constant(rng.normal(size=(1, 3, 3, 4)).astype(np.float32))
    gi = tf.nn.depthwise_conv2d_backprop_input([1, 5, 5, 2], w, dy, [1, 2, 2, 1], 'SAME')
    assert gi.shape == (1, 5, 5, 2)
    np.testing.assert_allclose(gi.numpy().ravel()[:20], DWIN, atol=1e-4)
    gf = tf.nn.depthwise_conv2d_backprop_filter(x, [3, 3, 2, 2], dy, [1, 2, 2, 1], 'SAME')
    assert gf.shape == (3, 3, 2, 2)
    np.testing.assert_allclose(gf.numpy().ravel()[:20], DWF, atol=1e-4)


def test_required_space_to_batch_paddings_and_aggregation_method():
    pads, crops = tf.required_space_to_batch_paddings([5, 7], [2, 3], [[1, 0], [0, 1]])
    assert pads.numpy().tolist() == [[1, 0], [0, 2]] and crops.numpy().tolist() == [[0, 0], [0, 1]]
    assert (tf.AggregationMethod.ADD_N, tf.AggregationMethod.DEFAULT, tf.AggregationMethod.EXPERIMENTAL_TREE) == \
        (0, 0, 1)
