"""tf.keras.regularizers: penalties on weights, added to the model's losses."""
import numbers

import rivulet as tf


class Regularizer:
    def __call__(self, x):
        return 0.0

    def get_config(self):
        return {}


class L1L2(Regularizer):
    def __init__(self, l1=0.0, l2=0.0):
        for name, v in (("l1", l1), ("l2", l2)):
            if isinstance(v, bool) or not isinstance(v, numbers.Real) or not v >= 0:
                raise ValueError(f"Invalid value for argument {name}: expected a non-negative float. Received: "
                                 f"{name}={v!r}")
        self.l1, self.l2 = float(l1), float(l2)

    def __call__(self, x):
        total = tf.constant(0.0, dtype=x.dtype)
        if self.l1:
            total += self.l1 * tf.reduce_sum(tf.abs(x))
        if self.l2:
            total += self.l2 * tf.reduce_sum(tf.square(x))
        return total

    def get_config(self):
        return {"l1": self.l1, "l2": self.l2}


class L1(L1L2):
    def __init__(self, l1=0.01):
        super().__init__(l1=l1)


class L2(L1L2):
    def __init__(self, l2=0.01):
        super().__init__(l2=l2)


l1, l2, l1_l2 = L1, L2, L1L2


def get(identifier):
    if identifier is None or callable(identifier):
        return identifier
    if isinstance(identifier, str):
        table = {"l1": L1, "l2": L2, "l1_l2": L1L2}
        if identifier not in table:
            raise ValueError(f"Unknown regularizer: {identifier}")
        return table[identifier]()
    raise ValueError(f"Could not interpret regularizer identifier: {identifier!r}")
