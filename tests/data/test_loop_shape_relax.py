"""`for x in dataset` inside tf.function where the body changes a loop variable's shape (the function guide's
train(dataset) cell): TensorFlow runs the loop as Dataset.reduce, which relaxes the variable's shape to one
covering both instead of failing. Values recorded from TensorFlow 2.21."""
import rivulet as tf


def test_loss_shape_relaxes_from_scalar_to_unknown():
    @tf.function
    def train(dataset):
        loss = tf.constant(0)
        for x, y in dataset:
            loss += tf.abs(y - x)
        return loss

    ds = tf.data.Dataset.from_generator(lambda: [(1, 1)] * 3, (tf.int32, tf.int32))
    cf = train.get_concrete_function(ds)
    assert cf.structured_outputs.shape.rank is None  # TensorFlow: Tensor("Identity:0", dtype=int32)
    out = train(ds)
    assert out.shape == () and int(out) == 0
    ds2 = tf.data.Dataset.from_generator(lambda: [(1, [1, 2])], (tf.int32, tf.int32))
    assert train(ds2).numpy().tolist() == [0, 1]


def test_loop_keeping_shapes_is_traced_once():
    traces = []

    @tf.function
    def total(dataset):
        s = tf.constant(0, tf.int64)
        for x in dataset:
            traces.append(1)
            s += x
        return s
    assert int(total(tf.data.Dataset.range(5))) == 10
    assert len(traces) == 1
