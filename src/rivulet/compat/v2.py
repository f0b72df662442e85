"""tf.compat.v2: TensorFlow 2's API, which is rivulet's own (`import rivulet.compat.v2 as tf` is `rivulet`)."""
import rivulet as _rivulet


def __getattr__(name):
    return getattr(_rivulet, name)


def __dir__():
    return dir(_rivulet)
