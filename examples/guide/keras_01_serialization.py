# Serialization cells of the Keras guides: a custom layer's get_config/from_config ("Making new layers
# and models via subclassing"), a functional model's config and JSON ("The Functional API"), and a model
# with a registered custom layer saved and loaded back.
import os
import tempfile

import numpy as np
import rivulet as tf

keras = tf.keras
layers = keras.layers
os.chdir(tempfile.mkdtemp())


@keras.saving.register_keras_serializable(package="MyLayers")
class Linear(keras.layers.Layer):
    def __init__(self, units=32, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.units), initializer="random_normal", trainable=True)
        self.b = self.add_weight(shape=(self.units,), initializer="random_normal", trainable=True)

    def call(self, inputs):
        return tf.matmul(inputs, self.w) + self.b

    def get_config(self):
        config = super().get_config()
        config.update({"units": self.units})
        return config


layer = Linear(64)
config = layer.get_config()
print(config)
new_layer = Linear.from_config(config)
print(new_layer.units)

inputs = keras.Input(shape=(784,), name="digits")
x = layers.Dense(64, activation="relu", name="dense_1")(inputs)
x = layers.Dense(64, activation="relu", name="dense_2")(x)
outputs = layers.Dense(10, name="predictions")(x)
model = keras.Model(inputs=inputs, outputs=outputs, name="mnist_model")
config = model.get_config()
print(config["name"], [layer["class_name"] for layer in config["layers"]])
print(config["input_layers"], config["output_layers"])
new_model = keras.Model.from_config(config)
print([layer.name for layer in new_model.layers], new_model.count_params())
json_config = model.to_json()
print(keras.models.model_from_json(json_config).count_params())

model = keras.Sequential([keras.Input(shape=(3,)), Linear(4), layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(np.ones((4, 3), "float32"), np.zeros((4, 1), "float32"), verbose=0)
model.save("custom.keras")
reconstructed = keras.models.load_model("custom.keras")
x = np.random.default_rng(0).standard_normal((2, 3)).astype("float32")
np.testing.assert_allclose(model.predict(x, verbose=0), reconstructed.predict(x, verbose=0), rtol=1e-6)
print(type(reconstructed.layers[0]).__name__, reconstructed.layers[0].units)
print(keras.saving.get_registered_name(Linear))
