"""TensorFlow's exception classes (tf.errors). Each carries an error code like TensorFlow's."""

OK, CANCELLED, UNKNOWN, INVALID_ARGUMENT, DEADLINE_EXCEEDED, NOT_FOUND, ALREADY_EXISTS = 0, 1, 2, 3, 4, 5, 6
PERMISSION_DENIED, RESOURCE_EXHAUSTED, FAILED_PRECONDITION, ABORTED, OUT_OF_RANGE = 7, 8, 9, 10, 11
UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS, UNAUTHENTICATED = 12, 13, 14, 15, 16


class OpError(Exception):
    """Base of the errors raised while running an op (eagerly or inside a graph)."""
    error_code = UNKNOWN

    def __init__(self, node_def=None, op=None, message="", *args):
        # Accept TensorFlow's (node_def, op, message) signature and the short (message) form.
        if op is None and not message and isinstance(node_def, str):
            node_def, message = None, node_def
        if isinstance(message, str) and message.endswith("]"):
            message = with_op_name_suffix(message)
        super().__init__(message)
        self.node_def, self.op, self.message = node_def, op, message

    def __str__(self):
        return self.message


# TensorFlow 2.x ends an eager op error with " name: " and the name its Python wrapper passed: "" for most ops,
# the default name for some, nothing for ops whose wrappers pass none (recorded from TensorFlow 2.21).
_NO_NAME = frozenset(["Reshape", "Transpose", "Slice", "Tile", "BroadcastTo", "SelectV2", "Pad", "PadV2",
                      "MirrorPad", "ReverseV2", "SegmentSum", "SegmentMean", "SegmentMax", "SegmentMin",
                      "SegmentProd", "UnsortedSegmentSum", "UnsortedSegmentMax", "UnsortedSegmentMin",
                      "UnsortedSegmentProd", "ScatterNd", "TensorScatterUpdate", "TensorScatterAdd",
                      "TensorScatterSub", "TensorScatterMax", "TensorScatterMin", "GatherNd", "GatherV2"])
_DEFAULT_NAME = {"ConcatV2": "concat", "Pack": "stack", "Split": "split", "SplitV": "split",
                 "StridedSlice": "strided_slice/"}


def with_op_name_suffix(message):
    """An eager error message ending in "[Op:NAME]" gets TensorFlow's " name: ..." suffix."""
    start = message.rfind(" [Op:")
    if start < 0 or "]" in message[start + 5:-1]:
        return message
    op = message[start + 5:-1]
    if op in _NO_NAME:
        return message
    return f"{message} name: {_DEFAULT_NAME.get(op, '')}"


def _make(name, code, base=OpError):
    cls = type(name, (base,), {"error_code": code, "__module__": __name__})
    return cls


CancelledError = _make("CancelledError", CANCELLED)
UnknownError = _make("UnknownError", UNKNOWN)
InvalidArgumentError = _make("InvalidArgumentError", INVALID_ARGUMENT)
DeadlineExceededError = _make("DeadlineExceededError", DEADLINE_EXCEEDED)
NotFoundError = _make("NotFoundError", NOT_FOUND)
AlreadyExistsError = _make("AlreadyExistsError", ALREADY_EXISTS)
PermissionDeniedError = _make("PermissionDeniedError", PERMISSION_DENIED)
ResourceExhaustedError = _make("ResourceExhaustedError", RESOURCE_EXHAUSTED)
FailedPreconditionError = _make("FailedPreconditionError", FAILED_PRECONDITION)
AbortedError = _make("AbortedError", ABORTED)
OutOfRangeError = _make("OutOfRangeError", OUT_OF_RANGE)
UnimplementedError = _make("UnimplementedError", UNIMPLEMENTED)
InternalError = _make("InternalError", INTERNAL)
UnavailableError = _make("UnavailableError", UNAVAILABLE)
DataLossError = _make("DataLossError", DATA_LOSS)
UnauthenticatedError = _make("UnauthenticatedError", UNAUTHENTICATED)


class OperatorNotAllowedInGraphError(TypeError):
    """A symbolic tensor was used where only a concrete Python value works (bool, iteration)."""


def next_or_end_of_sequence(iterator):
    """next(iterator), as an iterator's get_next() gives it: OutOfRangeError 'End of sequence' at the end."""
    try:
        return next(iterator)
    except StopIteration:
        raise OutOfRangeError("End of sequence") from None
