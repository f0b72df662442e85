"""tf.strings.format: the StringFormat op, tensors summarized in the template as tf.print shows them
(logging_ops.format_value, one summary for both)."""
import numpy as np

from .. import dtypes as _dt
from ..core.dispatch import bind
from ..core.op import defop
from ..shape import TensorShape
from ._rules import to_tensor
from .logging_ops import format_value


def _string_format_kernel(*values, template, placeholder, summarize):
    parts = template.split(placeholder)
    out = [parts[0]]
    for v, rest in zip(values, parts[1:]):
        out.append(format_value(v, summarize))
        out.append(rest)
    return np.array("".join(out).encode("utf-8", errors="surrogateescape"), dtype=object)


def _string_format_infer(*values, template, placeholder, summarize):
    if template.count(placeholder) != len(values):
        raise ValueError(f"Number of placeholders in template ({template.count(placeholder)}) does not match the "
                         f"number of inputs ({len(values)})")
    return TensorShape([]), _dt.string


STRING_FORMAT = defop("StringFormat", _string_format_kernel, _string_format_infer, grad=None)


def format(template, inputs, placeholder="{}", summarize=3, name=None):  # noqa: A001  (TensorFlow's name)
    """A scalar string: `template` with each `placeholder` replaced by the next input, tensors summarized as
    tf.print shows them (`summarize` elements at each end of every dimension; -1 for all)."""
    from ..core.tensor import Tensor
    if isinstance(inputs, Tensor):
        inputs = [inputs]
    count = template.count(placeholder)
    if count != len(inputs):
        raise ValueError(f"The template expects {count} tensors, but the inputs only has {len(inputs)}. Please "
                         f"ensure the number of placeholders in template matches inputs length.")
    tensors = tuple(to_tensor(x) for x in inputs)
    return bind(STRING_FORMAT, tensors, {"template": str(template), "placeholder": str(placeholder),
                                         "summarize": int(summarize)}, name=name or "StringFormat")
