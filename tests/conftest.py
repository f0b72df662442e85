import pytest

import rivulet as tf


@pytest.fixture(autouse=True)
def _reset_run_functions_eagerly():
    yield
    tf.config.run_functions_eagerly(False)
