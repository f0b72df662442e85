"""`python -m rivulet export-onnx DIR -o model.onnx`: a saved model's signature as an ONNX file."""
import sys

from . import command
from ..onnx.export import DEFAULT_OPSET, OPSETS, SERVING


def _arguments(p):
    p.add_argument("dir", help="the saved model directory")
    p.add_argument("-o", "--output", required=True, help="the .onnx file to write")
    p.add_argument("--signature", default=SERVING, help=f"the signature to export (default: {SERVING})")
    p.add_argument("--opset", type=int, default=DEFAULT_OPSET, choices=OPSETS, metavar="N",
                   help=f"the ONNX opset, {OPSETS[0]} to {OPSETS[-1]} (default: {DEFAULT_OPSET})")


@command("export-onnx", "export a saved model's signature to an ONNX file", _arguments)
def _export_onnx(args):
    from ..onnx.export import export
    from ..onnx.report import ExportError
    try:
        report = export(args.dir, args.output, opset=args.opset, signature=args.signature)
    except (ExportError, OSError, ValueError, ImportError) as e:
        print(f"export-onnx: {e}", file=sys.stderr)
        raise SystemExit(1) from None
    print(report)
