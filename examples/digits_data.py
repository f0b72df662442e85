"""Train the digits MLP (examples/digits.py) from a tf.data input pipeline: the images are written to a
TFRecord file as tf.train.Example records, read back, parsed, shuffled, batched and prefetched.

    pip install scikit-learn      # the "examples" extra; the data ships with it (no download)
    PYTHONPATH=src python examples/digits_data.py
"""
import os
import sys
import tempfile
import time

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import rivulet as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from digits import build_model  # noqa: E402  (the same model as examples/digits.py)

FEATURES = {"pixels": tf.io.FixedLenFeature([64], tf.int64), "label": tf.io.FixedLenFeature([], tf.int64)}


def write_records(path, images, labels):
    with tf.io.TFRecordWriter(path) as writer:
        for img, label in zip(images, labels):
            example = tf.train.Example(features=tf.train.Features(feature={
                "pixels": tf.train.Feature(int64_list=tf.train.Int64List(value=img.astype(np.int64))),
                "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[int(label)])),
            }))
            writer.write(example.SerializeToString())


def parse(record):
    example = tf.io.parse_single_example(record, FEATURES)
    pixels = tf.cast(example["pixels"], tf.float32) / 16.0  # intensities 0..16 -> 0..1
    return pixels, example["label"]


def main(epochs=20):
    tf.keras.utils.set_random_seed(0)
    digits = load_digits()
    x_train, x_test, y_train, y_test = train_test_split(digits.data, digits.target, test_size=0.25,
                                                        random_state=0, stratify=digits.target)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "digits-train.tfrecord")
        write_records(path, x_train, y_train)
        # Parse once, cache the parsed examples in memory, then shuffle and batch each epoch.
        train = (tf.data.TFRecordDataset(path)
                 .map(parse, num_parallel_calls=tf.data.AUTOTUNE)
                 .cache()
                 .shuffle(2048, seed=0)
                 .batch(32)
                 .prefetch(tf.data.AUTOTUNE))
        val = tf.data.Dataset.from_tensor_slices(((x_test / 16.0).astype("float32"), y_test)).batch(128)
        print(train.element_spec)

        model = build_model()
        start = time.perf_counter()
        model.fit(train, epochs=epochs, validation_data=val, verbose=2)
        seconds = time.perf_counter() - start
        loss, accuracy = model.evaluate(val, verbose=0)
    print(f"trained in {seconds:.1f}s; test loss {loss:.4f}, test accuracy {accuracy:.2%}")
    return accuracy


if __name__ == "__main__":
    main()
