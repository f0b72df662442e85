"""Command line: `python -m rivulet` runs the tour; subcommands are registered in COMMANDS by this package's
modules (saved_model.py: show, run, graph; onnx.py: export-onnx; tflite.py: export-tflite).

The errors a command can meet on bad input (a damaged or missing saved model, inputs that do not fit, an op
failing on them, a file it cannot write, a missing optional package) are printed as one line on stderr,
without a traceback, and exit with status 1. Anything else is a bug in rivulet and keeps its traceback.
"""
import argparse
import sys

from ..errors import OpError

# tf.errors.OpError covers SavedModelError (a DataLossError) and the errors of running a graph.
REPORTED = (OpError, OSError, ValueError, ImportError)

COMMANDS = {}  # name -> (help, add_arguments(parser) or None, run(args))


def command(name, help, arguments=None):  # noqa: A002
    def deco(fn):
        COMMANDS[name] = (help, arguments, fn)
        return fn
    return deco


@command("tour", "the guided tour of rivulet (default)",
         lambda p: p.add_argument("--quick", action="store_true", help="skip the timing sections"))
def _tour(args):
    from ..tour import run
    run(quick=args.quick)


def main(argv=None):
    from . import saved_model, onnx, tflite  # noqa: F401  (register show, run, graph; export-onnx; export-tflite)
    ap = argparse.ArgumentParser(prog="python -m rivulet", description="rivulet: tf.function graphs on NumPy")
    sub = ap.add_subparsers(dest="cmd")
    for name, (h, add, _) in COMMANDS.items():
        p = sub.add_parser(name, help=h)
        if add:
            add(p)
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help")):
        argv = ["tour"] + argv  # no command: the tour (with its options)
    args = ap.parse_args(argv)
    try:
        COMMANDS[args.cmd][2](args)
    except REPORTED as e:
        sys.stderr.write(f"{ap.prog} {args.cmd}: error: {type(e).__name__}: {one_line(e)}\n")
        raise SystemExit(1) from None


def one_line(e):
    """An error's message on one line (a graph execution error spans several)."""
    msg = e.message if isinstance(e, OpError) else str(e)
    return " ".join(ln.strip() for ln in msg.splitlines() if ln.strip()) or type(e).__name__
