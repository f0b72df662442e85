"""tf.math: the public math namespace. TOPLEVEL lists the names TensorFlow also exposes as tf.NAME."""
from .ops.math_ops import (add, subtract, multiply, divide, truediv, floordiv, floormod, pow, maximum, minimum,  # noqa: F401,A004
                           less, less_equal, greater, greater_equal, equal, not_equal, logical_and, logical_or,
                           logical_not, logical_xor, negative, floor, conj, cast, matmul, reduce_sum, reduce_mean)

mod = floormod
TOPLEVEL = ["add", "subtract", "multiply", "divide", "truediv", "floordiv", "floormod", "pow", "maximum", "minimum",
            "less", "less_equal", "greater", "greater_equal", "equal", "not_equal", "logical_and", "logical_or",
            "logical_not", "negative", "floor", "cast", "matmul", "reduce_sum", "reduce_mean"]
