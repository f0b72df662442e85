"""Placeholders for variables AutoGraph could not give a value, and the load that checks for them."""


class Undefined:
    """The value of a variable that is not defined (yet) where the converted code needs to name it."""
    __slots__ = ("symbol_name",)

    def __init__(self, symbol_name):
        self.symbol_name = symbol_name

    def read(self):
        raise UnboundLocalError(f"'{self.symbol_name}' is used before assignment")

    def __repr__(self):
        return self.symbol_name


class UndefinedReturnValue:
    """retval_ before any return statement ran: the function returns None."""


def ld(v):
    """A read of a variable in converted code."""
    if isinstance(v, Undefined):
        return v.read()
    return v
