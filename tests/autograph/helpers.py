"""Shared by the AutoGraph tests: run a function as tf.function and look at the ops of its graph."""
import rivulet as tf


def op_types(fn, *args):
    """Types of the ops in the graph tf.function(fn) traces for args (nested sub-graphs not included)."""
    return [op.type for op in tf.function(fn).get_concrete_function(*args).graph.get_operations()]


def staged(fn, *args):
    """The control-flow ops (If/While and their stateful forms) in fn's graph."""
    return [t for t in op_types(fn, *args) if t in ("If", "StatelessIf", "While", "StatelessWhile")]


def value(t):
    return t.numpy() if hasattr(t, "numpy") else t
