"""Command line: `python -m rivulet` runs the tour; subcommands are registered in COMMANDS."""
import argparse
import sys

COMMANDS = {}  # name -> (help, add_arguments(parser) or None, run(args))


def command(name, help, arguments=None):  # noqa: A002
    def deco(fn):
        COMMANDS[name] = (help, arguments, fn)
        return fn
    return deco


@command("tour", "the guided tour of rivulet (default)",
         lambda p: p.add_argument("--quick", action="store_true", help="skip the timing sections"))
def _tour(args):
    from .tour import run
    run(quick=args.quick)


def main(argv=None):
    from .saved_model import commands  # noqa: F401  (registers show, run, graph)
    from .onnx import commands as _onnx_commands  # noqa: F401  (registers export-onnx)
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
    COMMANDS[args.cmd][2](args)
