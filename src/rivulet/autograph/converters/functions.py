"""The converted function: named tf__<name>, undecorated, its body inside ag__.FunctionScope(...)."""

from ..pyct import templates
from . import base

_SCOPE = """
with ag__.FunctionScope(fname, 'fscope', ag__.ConversionOptions(recursive=True, user_requested=user, \
optional_features=(), internal_convert_user_code=True)) as fscope:
    body
"""


def transform(node, ctx):
    body = base.located(templates.replace(_SCOPE, fname=templates.constant(ctx.name), body=node.body,
                                          user=templates.constant(ctx.user_requested)), node.body[0])
    node.body = body
    node.name = "tf__" + ctx.name
    node.decorator_list = []
    return node
