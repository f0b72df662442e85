"""tf.keras.datasets: TensorFlow's small datasets, read from the same files, cache paths and URLs as tf_keras, with
the same dtypes, shapes, splits and shuffles. Nothing read from a file is unpickled: see safe_pickle.py."""
from . import boston_housing, cifar10, cifar100, fashion_mnist, imdb, mnist, reuters  # noqa: F401
