"""FunctionScope: the context a converted function body runs in; it turns retval_ into the return value."""
from .variables import UndefinedReturnValue


class ConversionOptions:
    def __init__(self, recursive=True, user_requested=False, optional_features=(), internal_convert_user_code=True):
        self.recursive, self.user_requested = recursive, user_requested
        self.optional_features, self.internal_convert_user_code = optional_features, internal_convert_user_code

    def __repr__(self):
        return (f"ConversionOptions(recursive={self.recursive}, user_requested={self.user_requested}, "
                f"optional_features={self.optional_features}, "
                f"internal_convert_user_code={self.internal_convert_user_code})")


class FunctionScope:
    def __init__(self, function_name, scope_name, options):
        self.function_name, self.name, self.options = function_name, scope_name, options

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def ret(self, value, did_return):
        return None if isinstance(value, UndefinedReturnValue) else value
