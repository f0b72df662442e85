"""tf.function: tracing Python into graphs, the cache of ConcreteFunctions, and calling them."""
from ..state import variables as _variables
from . import tracing as _tracing

_variables.register_lift(_tracing.eager_value)  # tf.init_scope lifts a variable's initial value out of a trace
