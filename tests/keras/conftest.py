import pytest

import rivulet as tf


@pytest.fixture(autouse=True)
def _fresh_keras_state():
    """Default layer names restart at `dense` in every test; random values are reproducible."""
    tf.keras.backend.clear_session()
    tf.keras.utils.set_random_seed(1234)  # as tf_keras: tf.random.set_seed alone leaves initializers unseeded
    yield
