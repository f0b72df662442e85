"""What the jit tests share: the compiled tier at once (a module opts in with
`pytestmark = pytest.mark.usefixtures("compile_at_once")`)."""
import pytest

import rivulet as tf


@pytest.fixture
def compile_at_once():
    """Compile on the first call, in the caller's thread: each test sees the compiled tier at once."""
    old = tf.jit.configure()
    tf.jit.configure(warmup_calls=0, background=False)
    yield
    tf.jit.configure(**old)
