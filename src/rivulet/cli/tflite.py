"""`python -m rivulet export-tflite DIR OUT.tflite`: a saved model's signatures as a TensorFlow Lite file."""
import sys

from . import command


def _arguments(p):
    p.add_argument("dir", help="the saved model directory (rivulet's, or TensorFlow's with the tf-interop extra)")
    p.add_argument("output", help="the .tflite file to write")
    p.add_argument("--signature", action="append", default=None, metavar="KEY",
                   help="a signature to convert (repeat for several; default: all of them)")


@command("export-tflite", "convert a saved model's signatures to a TensorFlow Lite file", _arguments)
def _export_tflite(args):
    from ..lite.converter import ConverterError, TFLiteConverter
    try:
        data = TFLiteConverter.from_saved_model(args.dir, signature_keys=args.signature).convert()
        with open(args.output, "wb") as f:
            f.write(data)
    except (ConverterError, NotImplementedError, OSError, ValueError, ImportError) as e:
        print(f"export-tflite: {type(e).__name__}: {e}", file=sys.stderr)
        raise SystemExit(1) from None
    print(f"wrote {args.output} ({len(data)} bytes)")
