"""`python -m rivulet export-tflite DIR OUT.tflite`: a saved model's signatures as a TensorFlow Lite file.

The converter's options, as TFLiteConverter's settings:
    --optimize default         optimizations = [tf.lite.Optimize.DEFAULT]: dynamic-range quantisation
    --float16                  ... and target_spec.supported_types = [tf.float16]: float16 weights
    --int8 --representative-data FILE.npy|.npz
                               ... and representative_dataset = the file's samples: full integer quantisation
    --inference-type int8|uint8  (with --int8) inference_input_type and inference_output_type
    --signature KEY            the signatures to convert (default: all of them)
The representative data is read with NumPy, never unpickled: a .npy file holds the samples of a model with one
input, a .npz file one array per input name. An array's first axis runs over the samples: each sample is
one row of it (an array of the input's rank + 1) or a batch of one (an array of the input's rank).
"""
import sys

from . import command


def _arguments(p):
    p.add_argument("dir", help="the saved model directory (rivulet's, or TensorFlow's with the tf-interop extra)")
    p.add_argument("output", help="the .tflite file to write")
    p.add_argument("--signature", action="append", default=None, metavar="KEY",
                   help="a signature to convert (repeat for several; default: all of them)")
    p.add_argument("--optimize", choices=("none", "default"), default=None,
                   help="default: tf.lite.Optimize.DEFAULT, dynamic-range quantisation (int8 weights); "
                        "none: a float model (the default unless --float16 or --int8)")
    p.add_argument("--float16", action="store_true",
                   help="float16 quantisation: weights stored as float16 (supported_types = [tf.float16])")
    p.add_argument("--int8", action="store_true",
                   help="full integer quantisation, calibrated on --representative-data")
    p.add_argument("--representative-data", metavar="FILE", default=None,
                   help="the representative samples of --int8: a .npy file (a model of one input) or a .npz file "
                        "(an array per input name); axis 0 runs over the samples")
    p.add_argument("--inference-type", choices=("float32", "int8", "uint8"), default=None,
                   help="with --int8: the type of the model's inputs and outputs (default float32)")


def configure(converter, args):
    """Applies the command line's quantisation options to a TFLiteConverter; ValueError for bad combinations."""
    from .. import dtypes
    from ..lite.converter import Optimize
    check(args)
    if args.float16 or args.int8 or args.optimize == "default":
        converter.optimizations = [Optimize.DEFAULT]
    if args.float16:
        converter.target_spec.supported_types = [dtypes.float16]
    if args.int8:
        converter.representative_dataset = representative_dataset(args.representative_data, converter)
    if args.inference_type is not None:
        t = dtypes.as_dtype(args.inference_type)
        converter.inference_input_type = converter.inference_output_type = t
    return converter


def check(args):
    """ValueError for options that do not go together."""
    optimize = args.optimize
    if args.float16 and args.int8:
        raise ValueError("--float16 and --int8 are two different quantisations: give one of them.")
    quantised = "--float16" if args.float16 else "--int8" if args.int8 else None
    if quantised and optimize == "none":
        raise ValueError(f"{quantised} quantises the model, which needs optimizations = [tf.lite.Optimize.DEFAULT]: "
                         f"leave out --optimize none.")
    if args.representative_data is not None and not args.int8:
        raise ValueError("--representative-data is the calibration data of full integer quantization: "
                         "give --int8 with it.")
    if args.int8 and args.representative_data is None:
        raise ValueError("For full integer quantization, a `representative_dataset` must be specified "
                         "(--representative-data FILE.npy|.npz).")


def representative_dataset(path, converter):
    """A representative_dataset generator over the samples in a .npy or .npz file, for each signature the
    converter converts ((key, {input: sample}) when it converts several)."""
    if not path.endswith((".npy", ".npz")):
        raise ValueError(f"--representative-data {path}: expected a .npy or .npz file.")
    arrays = _read_samples(path)
    plans = []
    for key, specs in converter.signature_inputs():
        plans.append((key, _samples(path, key, specs, arrays)))
    several = len(plans) > 1

    def gen():
        for key, samples in plans:
            for sample in samples:
                yield (key, sample) if several else sample
    return gen


def _read_samples(path):
    """The array of a .npy file or the arrays of a .npz file; a damaged or hostile file is a ValueError naming
    it (NumPy's own errors for such files are of many types: BadZipFile, zlib.error, tokenize.TokenError,
    TypeError...)."""
    import tokenize
    import zipfile
    import zlib

    import numpy as np
    try:
        data = np.load(path, allow_pickle=False)  # (an object array, which needs unpickling, is refused)
        if isinstance(data, np.ndarray):
            return data
        with data:
            arrays = {k: data[k] for k in data.files}
    except (zipfile.BadZipFile, zlib.error, tokenize.TokenError, SyntaxError, EOFError, OverflowError,
            MemoryError, NotImplementedError, TypeError) as e:  # TypeError: a header dict of bytes and str keys
        raise ValueError(f"--representative-data {path} is not a readable .npy/.npz file: {e}") from None
    except OSError as e:
        if e.filename is not None:  # the path itself (missing, a directory, no permission): as it is
            raise
        raise ValueError(f"--representative-data {path} is not a readable .npy/.npz file: {e}") from None
    odd = sorted(k for k, v in arrays.items() if not isinstance(v, np.ndarray))
    if odd:  # a member not saved by np.save (no .npy header) comes back as bytes
        raise ValueError(f"--representative-data {path}: member(s) {', '.join(odd)} of the .npz file are not "
                         f".npy arrays.")
    return arrays


def _samples(path, key, specs, arrays):
    """[{input name: one sample}] of one signature."""
    import numpy as np
    if isinstance(arrays, np.ndarray):
        if len(specs) != 1:
            raise ValueError(f"--representative-data {path}: a .npy file holds the samples of one input, and "
                             f"signature '{key}' has {len(specs)} ({', '.join(n for n, _, _ in specs)}): give a .npz "
                             f"file with an array for each of them.")
        arrays = {specs[0][0]: arrays}
    missing = [n for n, _, _ in specs if n not in arrays]
    if missing:
        raise ValueError(f"--representative-data {path} has no array for input(s) {', '.join(missing)} of signature "
                         f"'{key}' (it has {', '.join(sorted(arrays)) or 'none'}).")
    columns, count = {}, None
    for name, shape, dtype in specs:
        a = arrays[name]
        if a.dtype.kind not in "biuf" or np.dtype(dtype).kind not in "biuf" or \
                (np.dtype(dtype).kind == "f") != (a.dtype.kind == "f"):
            raise ValueError(f"--representative-data {path}: input '{name}' of signature '{key}' is {np.dtype(dtype)}, "
                             f"the file's array is {a.dtype}.")
        if a.dtype.kind in "biu" and a.size and not np.array_equal(a.astype(dtype).astype(a.dtype), a):
            raise ValueError(f"--representative-data {path}: input '{name}' of signature '{key}' is "
                             f"{np.dtype(dtype)}, and the file's {a.dtype} array holds values it cannot hold "
                             f"({a.min()} to {a.max()}).")
        with np.errstate(over="ignore"):
            cast = a.astype(dtype, copy=False)
        if a.dtype.kind == "f" and not np.array_equal(np.isfinite(cast), np.isfinite(a)):
            raise ValueError(f"--representative-data {path}: input '{name}' of signature '{key}' is "
                             f"{np.dtype(dtype)}, and the file's {a.dtype} array holds values too large for it.")
        a = cast
        rank = len(shape)
        if a.ndim == rank + 1:
            rows = [a[i] for i in range(a.shape[0])]
        elif a.ndim == rank and rank > 0:
            rows = [a[i:i + 1] for i in range(a.shape[0])]
        else:
            rows = None
        if rows is None or (rows and not _fits(rows[0].shape, shape)):
            raise ValueError(f"--representative-data {path}: input '{name}' of signature '{key}' has shape "
                             f"{_shape(shape)}, and the file's array of shape {tuple(a.shape)} is neither samples of "
                             f"it (stacked along a first axis) nor a batch of them.")
        if count is not None and len(rows) != count:
            raise ValueError(f"--representative-data {path}: the arrays of signature '{key}' hold different numbers "
                             f"of samples ({count} and {len(rows)}).")
        count = len(rows)
        columns[name] = rows
    return [{n: columns[n][i] for n in columns} for i in range(count or 0)]


def _fits(got, shape):
    return len(got) == len(shape) and all(d is None or d == g for g, d in zip(got, shape))


def _shape(shape):
    return "(" + ", ".join("None" if d is None else str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


@command("export-tflite", "convert a saved model's signatures to a TensorFlow Lite file", _arguments)
def _export_tflite(args):
    from ..lite.converter import ConverterError, TFLiteConverter
    try:
        check(args)
        converter = TFLiteConverter.from_saved_model(args.dir, signature_keys=args.signature)
        data = configure(converter, args).convert()
        with open(args.output, "wb") as f:
            f.write(data)
    except (ConverterError, NotImplementedError, OSError, ValueError, ImportError) as e:
        print(f"export-tflite: {type(e).__name__}: {e}", file=sys.stderr)
        raise SystemExit(1) from None
    print(f"wrote {args.output} ({len(data)} bytes)")
