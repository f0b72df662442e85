# The saving cells of TensorFlow's "Introduction to modules, layers and models" guide (checkpoints of a
# tf.Module) and of the Keras guides (a Sequential model saved as .keras and as weights), in a scratch dir.
import os
import tempfile

import numpy as np
import rivulet as tf

os.chdir(tempfile.mkdtemp())


class Dense(tf.Module):
    def __init__(self, in_features, out_features, name=None):
        super().__init__(name=name)
        self.w = tf.Variable(tf.random.normal([in_features, out_features]), name='w')
        self.b = tf.Variable(tf.zeros([out_features]), name='b')

    def __call__(self, x):
        y = tf.matmul(x, self.w) + self.b
        return tf.nn.relu(y)


class MySequentialModule(tf.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.dense_1 = Dense(in_features=3, out_features=3)
        self.dense_2 = Dense(in_features=3, out_features=2)

    def __call__(self, x):
        x = self.dense_1(x)
        return self.dense_2(x)


my_model = MySequentialModule(name="the_model")
chkp_path = "my_checkpoint"
checkpoint = tf.train.Checkpoint(model=my_model)
checkpoint.write(chkp_path)
print(sorted(f for f in os.listdir(".") if f.startswith("my_checkpoint")))
for name, shape in tf.train.list_variables(chkp_path):
    print(name, shape)

new_model = MySequentialModule()
new_checkpoint = tf.train.Checkpoint(model=new_model)
new_checkpoint.restore("my_checkpoint")
x = tf.constant([[2.0, 2.0, 2.0]])
print(np.array_equal(new_model(x).numpy(), my_model(x).numpy()))

manager = tf.train.CheckpointManager(tf.train.Checkpoint(model=my_model), "ckpts", max_to_keep=2)
for _ in range(3):
    print(os.path.basename(manager.save()))
print([os.path.basename(p) for p in manager.checkpoints], os.path.basename(tf.train.latest_checkpoint("ckpts")))

keras = tf.keras
model = keras.Sequential([keras.layers.Dense(4, activation="relu", input_shape=(3,), name="hidden"),
                          keras.layers.Dense(1, name="out")])
model.compile(optimizer="adam", loss="mse")
model.fit(np.ones((8, 3), "float32"), np.ones((8, 1), "float32"), epochs=1, verbose=0)
model.save("my_model.keras")
reloaded = keras.models.load_model("my_model.keras")
print(type(reloaded).__name__, [layer.name for layer in reloaded.layers], type(reloaded.optimizer).__name__)
print(np.allclose(reloaded.predict(np.ones((2, 3)), verbose=0), model.predict(np.ones((2, 3)), verbose=0)))
model.save_weights("weights/ckpt")
print(sorted(os.listdir("weights")))
print([name for name, _ in tf.train.list_variables("weights/ckpt")][:5])
config = model.get_config()
print(config["name"], [layer["class_name"] for layer in config["layers"]])
print(keras.Sequential.from_config(config).count_params())
