"""tf.custom_gradient in saved models: the gradient function of each custom-gradient op, saved as data.

A `tf.custom_gradient` inside a traced function is an `IdentityN` op whose `grad_fn` attr is the user's
Python gradient function. Saving (with `SaveOptions(experimental_custom_gradients=True)`, the default, as in
TensorFlow) traces that function into a graph, nested in the op's graph: the output gradients `dy` are its
arguments, the forward tensors it uses are captures of the op's graph, and its outputs are the gradients of
the op's inputs that are not None (`mask` says which). The file holds
`"grad_fn": {"custom_gradient": ["g7", [true, false]]}`; loading rebuilds that graph like any other and the
op's `grad_fn` becomes a `SavedGradient`, which replays it: the loaded function's gradient is the saved one,
and nothing from the file is executed. Saved without custom gradients the attr is `null`, and asking for
the gradient raises TensorFlow's LookupError (as a SavedModel loaded without them does in TensorFlow).
"""
from ..autodiff.backprop import graph_no_grad_message
from ..execute.replay import replay

TAG = "custom_gradient"


class SavedGradient:
    """A loaded custom gradient: `graph` (nested in the forward graph) maps the op's output gradients (`args`)
    to the gradients of its inputs (`outputs`, one per True in `mask`)."""

    def __init__(self, graph, args, outputs, mask):
        self.graph, self.args, self.outputs, self.mask = graph, list(args), list(outputs), list(mask)

    def __call__(self, *dys):
        g = self.graph
        out = iter(replay(g, self.args + g.internal_captures, self.outputs, list(dys) + g.external_captures))
        return [next(out) if m else None for m in self.mask]

    def __repr__(self):
        return f"<SavedGradient {self.graph.name}>"


class MissingGradient:
    """The `grad_fn` of a custom-gradient op saved without its gradient: asking for it raises LookupError."""

    def __init__(self, name, op_type="IdentityN"):
        self.name, self.type = name, op_type

    def __call__(self, *dys):
        raise LookupError(graph_no_grad_message(self))

    def __repr__(self):
        return f"<no saved gradient for {self.name}>"
