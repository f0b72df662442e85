"""The seed guides' models, as the guides write them, shared by the exporters' seed tests
(tests/onnx/test_onnx_seeds.py, tests/lite/test_tflite_seeds.py)."""
import rivulet as tf


def function_to_get_faster(x, y, b):
    x = tf.matmul(x, y)
    x = x + b
    return x


@tf.function
def my_relu(x):
    return tf.maximum(0., x)


class SequentialModel(tf.keras.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.flatten = tf.keras.layers.Flatten(input_shape=(28, 28))
        self.my_layers = [tf.keras.layers.Dense(64, activation="relu") for _ in range(10)]
        self.dropout = tf.keras.layers.Dropout(0.2)
        self.dense_2 = tf.keras.layers.Dense(10)

    def call(self, x):
        x = self.flatten(x)
        for layer in self.my_layers:
            x = layer(x)
        x = self.dropout(x)
        return self.dense_2(x)


def simple_relu(x):
    if tf.greater(x, 0):
        return x
    else:
        return 0


def conv_net():
    """A tf.function of Conv2D(4, 3), relu, MaxPooling2D(2), Flatten and Dense(3), its layers made now."""
    conv = tf.keras.layers.Conv2D(4, 3)
    pool = tf.keras.layers.MaxPooling2D(2)
    flat = tf.keras.layers.Flatten()
    dense = tf.keras.layers.Dense(3)

    @tf.function
    def net(image):
        return dense(flat(pool(tf.nn.relu(conv(image)))))
    return net


class Scale(tf.Module):
    def __init__(self):
        self.w = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
        self.b = tf.Variable([0.5, -0.5], name="b")

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    def __call__(self, x):
        return tf.nn.sigmoid(x @ self.w + self.b)
