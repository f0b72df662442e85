"""The runtime of converted code: what generated code reaches as `ag__.NAME`."""
from ..impl import converted_call  # noqa: F401
from .conditional_expressions import if_exp  # noqa: F401
from .control_flow import for_stmt, if_stmt, while_stmt  # noqa: F401
from .logical import and_, not_, or_  # noqa: F401
from .scope import ConversionOptions, FunctionScope  # noqa: F401
from .variables import Undefined, UndefinedReturnValue, ld  # noqa: F401
