"""What an export could not carry over, with the user's source line for each op."""
from ..graph.graph_util import user_location as where


class Problem:
    """One op (or construct) that has no ONNX form. `frame` is the op's user_frame (file, line, function)."""
    __slots__ = ("op_type", "op_name", "reason", "frame")

    def __init__(self, op_type, op_name, reason, frame):
        self.op_type, self.op_name, self.reason, self.frame = op_type, op_name, reason, frame

    @property
    def location(self):
        if not self.frame:
            return "<unknown>"
        return f"{self.frame[0]}:{self.frame[1]}"

    def __str__(self):
        return f"{where(self.frame)}: {self.op_type} '{self.op_name}': {self.reason}"

    def __repr__(self):
        return f"<Problem {self}>"


class ExportReport:
    """The outcome of rivulet.onnx.export: `problems` (why the model could not be written; empty when it was),
    `notes` (ops dropped because an ONNX model cannot carry them: prints, assertions), the ModelProto and the
    graph's input and output names."""

    def __init__(self):
        self.problems = []
        self.notes = []
        self.model = None
        self.path = None
        self.input_names = []
        self.output_names = []

    @property
    def ok(self):
        return not self.problems

    def add(self, op, reason):
        # A while loop's condition is converted twice (before the loop and in its body): report once.
        key = (op.type, op.name, reason, op.user_frame)
        if all((p.op_type, p.op_name, p.reason, p.frame) != key for p in self.problems):
            self.problems.append(Problem(op.type, op.name, reason, op.user_frame))

    def note(self, op, what):
        text = f"{where(op.user_frame)}: {op.type} '{op.name}' {what}"
        if text not in self.notes:
            self.notes.append(text)

    def __str__(self):
        if self.ok:
            head = f"Exported to {self.path}" if self.path else "Exportable"
            lines = [f"{head}: inputs {', '.join(self.input_names)} -> outputs {', '.join(self.output_names)}"]
        else:
            n = len(self.problems)
            lines = [f"Cannot export to ONNX: {n} unsupported op{'s' if n > 1 else ''}:"]
            lines += [f"  {p}" for p in self.problems]
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


class ExportError(ValueError):
    """Raised by export (strict=True) when some ops cannot be exported; `.report` lists every one of them."""

    def __init__(self, report):
        super().__init__(str(report))
        self.report = report
