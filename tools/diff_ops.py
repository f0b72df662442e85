"""Differential checker: rivulet's public ops against TensorFlow 2.21, value by value.

Not part of CI. Run it by hand:

    python tools/diff_ops.py [--tf /tmp/tfvenv/bin/python] [--only SUBSTRING] [--modes eager,graph,grad]
                             [--group unary,binary,...] [--verbose] [--json out.json]

What it does: builds a list of cases (an op's public path such as ``math.add``, its tensor arguments
described by dtype, shape and the values to fill them with, its Python attributes) over dtypes
(float16/32/64, bfloat16 where both have it, int8..int64, uint8..uint64, bool, complex64/128, string),
shapes (scalars, empty dimensions, broadcasting pairs, incompatible pairs), special values (nan, +-inf,
-0.0, integer min/max, overflow) and attributes (axis negative / out of range, keepdims, ...). The same
file runs each case in TensorFlow (``--worker``, in a subprocess of TensorFlow's venv: rivulet's code
never imports TensorFlow) and in rivulet (in this process), in up to four modes:

- ``eager``  the op called on eager tensors;
- ``graph``  the op called inside ``tf.function`` on the same tensors (traced, then run);
- ``grad``   ``tf.GradientTape`` first-order gradients of the summed outputs with respect to every
             floating/complex tensor argument (eagerly), for cases whose outputs are floating;
- ``ggrad``  the same gradient computed inside ``tf.function``;
- ``repr``   (on request) the eager result's repr() and str(), as print() shows them;
- ``dyn``    the op inside ``tf.function`` traced with every dimension unknown (``input_signature`` of
             ``[None] * rank``): the values, and the static shapes the traced graph gave its outputs.

Each result is either the outputs (dtype, shape and values; composites by their components) or the name
of the exception class raised. Values compare exactly for integers, bools and strings, within an ulp
tolerance for floats (``--ulps``, relative to the result dtype's epsilon; nan must meet nan, inf the same
inf; a -0.0 against +0.0 is reported only with ``--signed-zeros``). When TensorFlow raises, rivulet must
raise the same class.

The TF worker streams one JSON line per case, so a TensorFlow abort on one case costs only that case
(the worker restarts after it). Nothing is unpickled: results travel as JSON.

Triage of what a full run reports (TF 2.21 vs rivulet, 2026-11-26). Fixed where they were wrong (each with a test
in tests/ops/test_diff_regressions.py): unsorted_segment_max/min of an empty segment (and ragged reduce_max of an
empty row), integer reduce_euclidean_norm, float64 hann/hamming windows, float64 gelu, elu/selu rounding,
reshape of empty tensors with -1, zeros_like of strings, ones_like/pow dtype checks, fft of empty tensors,
frame/stft and rfft/irfft of unknown length in graphs, strings.ngrams in graphs, einsum's gradient with '...',
float floormod's sign of zero, real/conj of bool, error classes of reductions, scans and FFTs; added the missing
tf.math.log_sigmoid/softsign/xlog1py/angle, tf.strings.strip, tf.signal.fftshift/ifftshift,
tf.linalg.normalize. What remains, deliberate or harmless:

- bfloat16: rivulet has no bfloat16 dtype; those cases are skipped.
- Last-ulp differences of transcendental functions and gradients (tanh', lgamma/digamma in float64 ~1e-15,
  approximate gelu and elu/selu where Eigen's float32 exp is an ulp off the correctly rounded one, 2-D real
  FFTs, float32 inv/solve/eigvalsh/l2_normalize/moments gradients): NumPy's and Eigen's algorithms differ.
- Sums of many floats: Eigen's reduction order is not NumPy's pairwise one (1e7 x 0.1 in float32: TF
  1000001.4, rivulet 1000000.1); TF sums float16 in float16 (65504 + 65504 - 65504 is inf there).
- Denormal results: TF's CPU kernels flush them to zero (softplus(-100.) is 0 in TF, 3.8e-44 here).
- Out-of-range float to unsigned casts (undefined in C++): TF's own result depends on the array length.
- Complex division/multiplication with 0, inf or nan operands: TF's naive formula gives nan where NumPy's
  gives inf or 0; tf.unique of float16 keeps -0.0 and 0.0 apart in TF; reduce_mean of an empty complex
  tensor is 0 in TF (nan here, as for floats in both).
- Eigenvector / singular-vector signs (eigh, svd, qr): LAPACK drivers differ; both factorizations are valid.
- Static shapes traced with unknown dims: rivulet is sometimes more precise (gather_nd with batch_dims),
  TF sometimes (tile by 0, linalg.diag with k); the values agree. TF's grappler turns reshape(x, [-1, -1])
  of a known shape into x in graphs (rivulet raises, as TF eagerly).
- Graph-mode error classes where TF fails in the kernel and rivulet while tracing (softmax/roll/transpose
  with a bad axis or perm, argmax of a scalar); ops TF declares without a CPU kernel (Round/Unique of complex,
  Rint of half, Reciprocal of ints: NotFoundError) or refuses (real/conj of bool) that rivulet computes; unary
  ``+tensor`` (TF has no __pos__).
- Limitations that raise (never a wrong value): a reduction axis that is a tensor unknown when tracing;
  overlap_and_add of unknown frames, pinv(rcond=None) of unknown dims; einsum's gradient with a repeated
  subscript ('ii'); bincount with axis=-1; strings.reduce_join of ragged tensors; the ops listed as
  "missing in rivulet".
- Printed forms (``--modes eager,repr``): float32 results an ulp apart print differently in the 8th digit
  (tf.exp(1.) prints 2.7182817 in TF, 2.718282 here: NumPy's float32 exp is not Eigen's; computing through
  float64 would match more often at 8x the cost); max/min/relu of -0.0 and 0.0 keep a different zero (TF's
  float32 and float64 kernels differ there themselves); TF 2.21 with NumPy 2 prints a 0-d float32 tensor's
  repr as the Python float (numpy=0.10000000149011612), rivulet as float32 (numpy=0.1).
- Open, outside tools/ and ops/ (reported): Python scalars against tensors of another dtype follow TF's
  conversion only partly (int8 + 300 wraps to int8 in TF; int32 * 2.5 is TypeError in TF; 3 + float16 is an
  error in TF graphs; tf.constant(-1, tf.uint8) wraps to 255 in TF); leaky_relu's alpha is float32-rounded in
  TF (float64 leaky_relu(-1.) is -0.20000000298023224); tf.nest.flatten(expand_composites=True) of ragged.
"""
from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# ---------------------------------------------------------------------------------------------------------
# Case descriptions (plain JSON: both processes build their tensors from them)
# ---------------------------------------------------------------------------------------------------------

FLOATS = ["float16", "float32", "float64"]
BF = ["bfloat16"]
SINTS = ["int8", "int16", "int32", "int64"]
UINTS = ["uint8", "uint16", "uint32", "uint64"]
INTS = SINTS + UINTS
COMPLEX = ["complex64", "complex128"]
ALL_NUM = FLOATS + BF + INTS + COMPLEX

FPOOL = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.75, 1e-3, 100.0, "nan", "inf", "-inf", 7.0, -0.25, 2.0]
FPOOL_NICE = [0.5, -1.25, 2.0, 0.75, -0.3, 1.5, -2.0, 0.1, 3.0, -0.6, 1.1, 0.9]
FPOOL_POS = [0.5, 1.25, 2.0, 0.75, 0.3, 1.5, 4.0, 0.1, 3.0, 0.6, 1.1, 0.9]
FPOOL_UNIT = [0.5, -0.25, 0.75, -0.9, 0.1, 0.3, -0.6, 0.0, 0.95, -0.05]


def ipool(dtype):
    info = np.iinfo(dtype)
    base = [0, 1, 7, 100, 3, 2, 5] if info.min == 0 else [0, 1, -1, 7, -7, 100, -3, 2, 5]
    return base + [int(info.max), int(info.min)]


def ipool_small(dtype):
    return [0, 1, 2, 3, 5, 4, 6] if np.iinfo(dtype).min == 0 else [0, 1, -1, 2, -3, 3, 5, -2, 4]


CPOOL = [[1.0, 2.0], [-0.5, 0.0], [0.0, -1.0], [3.0, 0.25], [0.0, 0.0], ["nan", 1.0], ["inf", 0.0]]
CPOOL_NICE = [[1.0, 2.0], [-0.5, 0.5], [0.25, -1.0], [3.0, 0.25], [0.7, -0.4], [1.5, 1.0]]
SPOOL = ["", "abc", "Hello World", "h\u00e9llo", " pad ", "12", "-3.5", "a,b,,c"]


def T(dtype, shape, pool=None, off=0):
    """A tensor argument: dtype, shape, values taken cyclically from pool starting at off."""
    return {"T": dtype, "shape": list(shape), "pool": pool, "off": off}


def default_pool(dtype, nice=False):
    if dtype in FLOATS or dtype == "bfloat16":
        return FPOOL_NICE if nice else FPOOL
    if dtype in COMPLEX:
        return CPOOL_NICE if nice else CPOOL
    if dtype == "bool":
        return [True, False, True, True, False]
    if dtype == "string":
        return SPOOL
    return ipool_small(dtype) if nice else ipool(dtype)


def C(fn, *args, group="misc", **kwargs):
    return {"fn": fn, "args": list(args), "kwargs": kwargs, "group": group}


def _shapes1():
    return [(), (0,), (2, 3), (1, 0, 2)]


def build_cases():
    cases = []
    add = cases.append

    # ---- unary elementwise -------------------------------------------------------------------------
    unary_float = ["abs", "negative", "sign", "square", "sqrt", "rsqrt", "exp", "expm1", "log", "log1p",
                   "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh",
                   "atanh", "sigmoid", "log_sigmoid", "softplus", "reciprocal", "floor", "ceil", "round",
                   "rint", "erf", "erfc", "erfinv", "ndtri", "lgamma", "digamma", "is_nan", "is_inf",
                   "is_finite", "reciprocal_no_nan", "softsign", "bessel_i0e", "bessel_i1e", "bessel_i0",
                   "bessel_i1", "real", "imag", "conj", "angle", "exp2" if False else "log"]
    unary_float = list(dict.fromkeys(unary_float))
    for name in unary_float:
        for dt in FLOATS + BF + ["int32", "int64", "complex64", "bool"]:
            shapes = [(), (2, 3), (0,)] if dt in ("float32",) else [(2, 3)]
            for sh in shapes:
                add(C(f"math.{name}", T(dt, sh, default_pool(dt)), group="unary"))
        # values where gradients are well defined
        add(C(f"math.{name}", T("float32", (2, 3), FPOOL_POS if name in ("log", "sqrt", "rsqrt", "lgamma",
                                                                        "digamma", "acosh", "reciprocal")
                                 else FPOOL_UNIT), group="unary_grad"))
        add(C(f"math.{name}", T("float64", (3,), FPOOL_POS if name in ("log", "sqrt", "rsqrt", "lgamma",
                                                                      "digamma", "acosh", "reciprocal")
                                 else FPOOL_UNIT), group="unary_grad"))
    for name in ["abs", "negative", "sign", "square"]:
        for dt in INTS:
            add(C(f"math.{name}", T(dt, (2, 5)), group="unary_int"))
    for name in ["logical_not"]:
        add(C(f"math.{name}", T("bool", (2, 3)), group="unary"))
        add(C(f"math.{name}", T("int32", (2, 3)), group="unary"))
    for dt in INTS:
        add(C("bitwise.invert", T(dt, (3, 3)), group="unary_int"))
    for name in ["relu", "relu6", "elu", "selu", "gelu", "silu", "softsign", "softplus", "sigmoid", "tanh",
                 "leaky_relu", "log_softmax", "softmax", "swish", "crelu"]:
        for dt in ["float16", "float32", "float64", "int32"]:
            add(C(f"nn.{name}", T(dt, (2, 4), FPOOL if dt != "int32" else None), group="nn"))
        add(C(f"nn.{name}", T("float32", (3, 4), FPOOL_NICE), group="nn_grad"))
    add(C("nn.leaky_relu", T("float32", (2, 4), FPOOL_NICE), alpha=0.3, group="nn"))
    add(C("nn.gelu", T("float32", (2, 4), FPOOL_NICE), approximate=True, group="nn"))
    add(C("nn.softmax", T("float32", (2, 4), FPOOL_NICE), axis=0, group="nn"))
    add(C("nn.softmax", T("float32", (2, 4), FPOOL_NICE), axis=2, group="nn"))
    add(C("nn.log_softmax", T("float32", (2, 4), FPOOL_NICE), axis=-2, group="nn"))
    add(C("nn.softmax", T("float32", (), FPOOL_NICE), group="nn"))
    add(C("nn.l2_normalize", T("float32", (2, 4), FPOOL_NICE), axis=1, group="nn"))
    add(C("nn.l2_normalize", T("float32", (2, 4), [0.0]), axis=-1, group="nn"))
    add(C("math.l2_normalize", T("float64", (2, 4), FPOOL_NICE), axis=None, group="nn"))
    add(C("nn.moments", T("float32", (3, 4), FPOOL_NICE), axes=[0], group="nn"))
    add(C("nn.moments", T("float32", (3, 4), FPOOL_NICE), axes=[0, 1], keepdims=True, group="nn"))
    add(C("nn.bias_add", T("float32", (2, 3), FPOOL_NICE), T("float32", (3,), FPOOL_NICE, 3), group="nn"))
    add(C("nn.bias_add", T("float32", (2, 3), FPOOL_NICE), T("float32", (2,), FPOOL_NICE, 3), group="nn"))
    add(C("nn.dropout", T("float32", (2, 3), FPOOL_NICE), rate=0.0, group="nn"))

    # ---- losses --------------------------------------------------------------------------------------
    for dt in ["float32", "float64", "float16"]:
        add(C("nn.sigmoid_cross_entropy_with_logits", labels=T(dt, (2, 3), [0.0, 1.0, 0.3]),
              logits=T(dt, (2, 3), FPOOL_NICE), group="loss"))
        add(C("nn.softmax_cross_entropy_with_logits", labels=T(dt, (2, 3), [0.2, 0.5, 0.3]),
              logits=T(dt, (2, 3), FPOOL_NICE), group="loss"))
        add(C("nn.weighted_cross_entropy_with_logits", labels=T(dt, (2, 3), [0.0, 1.0, 0.3]),
              logits=T(dt, (2, 3), FPOOL_NICE), pos_weight=2.0, group="loss"))
    add(C("nn.softmax_cross_entropy_with_logits", labels=T("float32", (2, 3), [0.2, 0.5, 0.3]),
          logits=T("float32", (2, 3), FPOOL_NICE), axis=0, group="loss"))
    add(C("nn.softmax_cross_entropy_with_logits", labels=T("float32", (3,), [0.2, 0.5, 0.3]),
          logits=T("float32", (3,), FPOOL), group="loss"))
    for ldt in ["int32", "int64"]:
        add(C("nn.sparse_softmax_cross_entropy_with_logits", labels=T(ldt, (2,), [2, 0]),
              logits=T("float32", (2, 3), FPOOL_NICE), group="loss"))
    add(C("nn.sparse_softmax_cross_entropy_with_logits", labels=T("int32", (2,), [3, 0]),
          logits=T("float32", (2, 3), FPOOL_NICE), group="loss"))
    add(C("nn.sparse_softmax_cross_entropy_with_logits", labels=T("int32", (2,), [-1, 0]),
          logits=T("float32", (2, 3), FPOOL_NICE), group="loss"))
    add(C("nn.sparse_softmax_cross_entropy_with_logits", labels=T("int32", (3,), [1, 0, 2]),
          logits=T("float32", (2, 3), FPOOL_NICE), group="loss"))
    add(C("nn.sparse_softmax_cross_entropy_with_logits", labels=T("int32", (2,), [1, 0]),
          logits=T("float64", (2, 3), FPOOL), group="loss"))
    add(C("nn.log_poisson_loss", T("float32", (4,), FPOOL_POS), T("float32", (4,), FPOOL_NICE), group="loss"))
    add(C("nn.log_poisson_loss", T("float32", (4,), FPOOL_POS), T("float32", (4,), FPOOL_NICE),
          compute_full_loss=True, group="loss"))
    add(C("nn.l2_loss", T("float32", (2, 3), FPOOL_NICE), group="loss"))
    add(C("nn.l2_loss", T("float16", (2, 3), FPOOL_NICE), group="loss"))
    add(C("nn.compute_average_loss", T("float32", (4,), FPOOL_NICE), group="loss"))
    add(C("nn.compute_average_loss", T("float32", (4,), FPOOL_NICE), global_batch_size=8, group="loss"))

    # ---- binary elementwise --------------------------------------------------------------------------
    binary = ["add", "subtract", "multiply", "divide", "truediv", "floordiv", "floormod", "mod", "pow",
              "maximum", "minimum", "squared_difference", "atan2", "divide_no_nan", "multiply_no_nan",
              "xdivy", "xlogy", "xlog1py", "equal", "not_equal", "less", "less_equal", "greater",
              "greater_equal", "truncatediv", "truncatemod", "realdiv", "igamma", "igammac", "zeta",
              "polygamma", "nextafter", "scalar_mul"]
    pairs = [((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 3)), ((0, 3), (1, 3)),
             ((2, 3), (2,))]
    for name in binary:
        path = name if name in ("truncatediv", "truncatemod", "realdiv") else f"math.{name}"
        for dt in FLOATS + BF + ["int8", "int32", "int64", "uint8", "uint32", "complex64", "bool", "string"]:
            prs = pairs if dt in ("float32", "int32") else pairs[:1]
            for sa, sb in prs:
                add(C(path, T(dt, sa, default_pool(dt)), T(dt, sb, default_pool(dt), 5),
                      group="binary"))
        # gradient-friendly values, broadcasting
        for sa, sb in pairs[:4]:
            add(C(path, T("float32", sa, FPOOL_POS), T("float32", sb, FPOOL_NICE, 3),
                  group="binary_grad"))
        add(C(path, T("float64", (2, 3), FPOOL_POS), T("float64", (3,), FPOOL_POS, 3),
              group="binary_grad"))
        # dtype mismatches and Python scalars
        add(C(path, T("float32", (2,), FPOOL_NICE), T("float64", (2,), FPOOL_NICE), group="promo"))
        add(C(path, T("int32", (2,), [3, -7]), T("int64", (2,), [2, 2]), group="promo"))
        add(C(path, T("float32", (2,), FPOOL_NICE), T("int32", (2,), [2, 3]), group="promo"))
        add(C(path, T("int32", (3,), [7, -7, 5]), 2, group="promo"))
        add(C(path, T("int32", (3,), [7, -7, 5]), 2.5, group="promo"))
        add(C(path, T("float32", (3,), FPOOL_NICE), 2, group="promo"))
        add(C(path, 3, T("float16", (3,), FPOOL_NICE), group="promo"))
        add(C(path, T("uint8", (3,), [250, 3, 0]), 10, group="promo"))
        add(C(path, T("int8", (3,), [120, -128, 3]), 300, group="promo"))
    # integer division edge cases
    for name in ["floordiv", "floormod", "truncatediv", "truncatemod", "mod", "divide", "pow"]:
        path = name if name.startswith("trunc") else f"math.{name}"
        for dt in SINTS:
            add(C(path, T(dt, (4,), [7, -7, 7, -7]), T(dt, (4,), [2, 2, -2, -2]), group="intdiv"))
            add(C(path, T(dt, (2,), [5, 0]), T(dt, (2,), [0, 0]), group="intdiv"))
            mn = int(np.iinfo(dt).min)
            add(C(path, T(dt, (1,), [mn]), T(dt, (1,), [-1]), group="intdiv"))
        add(C(path, T("int32", (4,), [2, 3, -2, 0]), T("int32", (4,), [3, 0, 3, 0]), group="intdiv"))
        add(C(path, T("int32", (2,), [2, 3]), T("int32", (2,), [-1, -2]), group="intdiv"))
    # overflow
    for dt in INTS:
        mx, mn = int(np.iinfo(dt).max), int(np.iinfo(dt).min)
        add(C("math.add", T(dt, (2,), [mx, mn]), T(dt, (2,), [1, mn]), group="overflow"))
        add(C("math.multiply", T(dt, (2,), [mx, mn]), T(dt, (2,), [2, 3]), group="overflow"))
        add(C("math.abs", T(dt, (1,), [mn]), group="overflow"))
        add(C("math.negative", T(dt, (1,), [mn]), group="overflow"))
        add(C("math.reduce_sum", T(dt, (3,), [mx, mx, 1]), group="overflow"))
        add(C("math.cumsum", T(dt, (3,), [mx, 1, 1]), group="overflow"))
    for dt in ["float16", "float32"]:
        big = float(np.finfo(dt).max)
        add(C("math.add", T(dt, (2,), [big, -big]), T(dt, (2,), [big, -big]), group="overflow"))
        add(C("math.exp", T(dt, (2,), [100.0, -100.0]), group="overflow"))
        add(C("math.reduce_sum", T(dt, (3,), [big, big, -big]), group="overflow"))
        add(C("math.reduce_mean", T(dt, (2,), [big, big]), group="overflow"))
        add(C("math.square", T(dt, (1,), [big]), group="overflow"))
    # logical / bitwise
    for name in ["logical_and", "logical_or", "logical_xor"]:
        for sa, sb in pairs:
            add(C(f"math.{name}", T("bool", sa), T("bool", sb, None, 1), group="logical"))
        add(C(f"math.{name}", T("int32", (2,)), T("int32", (2,)), group="logical"))
    for name in ["bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift"]:
        for dt in INTS:
            add(C(f"bitwise.{name}", T(dt, (5,), ipool_small(dt)),
                  T(dt, (5,), [1, 2, 3, 0, 7] if name.endswith("shift") else ipool(dt), 2), group="bitwise"))
        add(C(f"bitwise.{name}", T("int32", (3,), [1, -8, 5]), T("int32", (3,), [40, 33, -1]), group="bitwise"))
    # comparisons of special values
    for name in ["equal", "not_equal", "less", "greater_equal", "maximum", "minimum"]:
        add(C(f"math.{name}", T("float32", (6,), [0.0, "nan", "inf", -0.0, "nan", 1.0]),
              T("float32", (6,), [-0.0, "nan", "inf", 0.0, 1.0, "nan"]), group="special"))

    # ---- n-ary ---------------------------------------------------------------------------------------
    add(C("math.add_n", [T("float32", (2, 3), FPOOL_NICE), T("float32", (2, 3), FPOOL_NICE, 2)], group="nary"))
    add(C("math.add_n", [T("float32", (2, 3), FPOOL_NICE), T("float32", (3,), FPOOL_NICE, 2)], group="nary"))
    add(C("math.add_n", [T("int32", (2,))], group="nary"))
    add(C("math.accumulate_n", [T("float32", (2, 3), FPOOL_NICE), T("float32", (2, 3), FPOOL_NICE, 2)],
          group="nary"))
    add(C("math.polyval", [T("float32", (), [2.0]), T("float32", (), [3.0])], T("float32", (3,), FPOOL_NICE),
          group="nary"))
    add(C("math.lbeta", T("float32", (2, 3), FPOOL_POS), group="nary"))
    add(C("math.betainc", T("float32", (3,), FPOOL_POS), T("float32", (3,), FPOOL_POS, 2),
          T("float32", (3,), [0.1, 0.5, 0.9]), group="nary"))
    for dt in ["float32", "int32", "float16"]:
        add(C("clip_by_value", T(dt, (2, 4), default_pool(dt)), 0, 5, group="nary"))
        add(C("clip_by_value", T(dt, (2, 4), default_pool(dt, True)), T(dt, (4,), default_pool(dt, True)),
              T(dt, (2, 1), [5, 6]), group="nary"))
    add(C("clip_by_value", T("float32", (2, 4), FPOOL_NICE), -0.5, 0.5, group="nary_grad"))
    add(C("clip_by_norm", T("float32", (2, 4), FPOOL_NICE), 1.0, group="nary"))
    add(C("clip_by_norm", T("float32", (2, 4), FPOOL_NICE), 1.0, axes=[1], group="nary"))
    add(C("clip_by_global_norm", [T("float32", (2, 4), FPOOL_NICE), T("float32", (3,), FPOOL_NICE)], 1.0,
          group="nary"))
    add(C("where", T("bool", (2, 3)), T("float32", (2, 3), FPOOL_NICE), T("float32", (2, 3), FPOOL_NICE, 4),
          group="nary"))
    add(C("where", T("bool", (2, 1)), T("float32", (1, 3), FPOOL_NICE), T("float32", (3,), FPOOL_NICE, 4),
          group="nary"))
    add(C("where", T("bool", (2, 3)), T("float32", (2, 3), FPOOL_NICE), T("int32", (2, 3)), group="nary"))
    add(C("where", T("bool", (2, 3)), group="nary"))
    add(C("where", T("float32", (2, 3), FPOOL), group="nary"))
    add(C("where", T("bool", (0, 3)), group="nary"))
    add(C("math.lerp" if False else "math.scalar_mul", 2.0, T("float32", (3,), FPOOL_NICE), group="nary"))

    # ---- reductions ----------------------------------------------------------------------------------
    reductions = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_all",
                  "reduce_any", "reduce_logsumexp", "reduce_std", "reduce_variance", "reduce_euclidean_norm",
                  "count_nonzero"]
    axes = [None, 0, -1, 1, [0, 1], [], 2, -3, [0, 0]]
    for name in reductions:
        for dt in ["float32", "float64", "float16", "int32", "int64", "uint8", "int8", "bool", "complex64"]:
            pool = default_pool(dt)
            add(C(f"math.{name}", T(dt, (2, 3), pool), group="reduce"))
            add(C(f"math.{name}", T(dt, (0, 3), pool), axis=0, group="reduce"))
        for ax in axes:
            for kd in [False, True]:
                add(C(f"math.{name}", T("float32", (2, 3), FPOOL_NICE), axis=ax, keepdims=kd, group="reduce_grad"))
                add(C(f"math.{name}", T("int32", (2, 3), None), axis=ax, keepdims=kd, group="reduce"))
                add(C(f"math.{name}", T("bool", (2, 3), None), axis=ax, keepdims=kd, group="reduce"))
        add(C(f"math.{name}", T("float32", (2, 3), FPOOL), axis=T("int64", (1,), [1]), group="reduce"))
        add(C(f"math.{name}", T("float32", ()), group="reduce"))
        add(C(f"math.{name}", T("float32", (0,)), group="reduce"))
        add(C(f"math.{name}", T("float32", (2, 0)), axis=1, group="reduce"))
        add(C(f"math.{name}", T("float32", (4,), FPOOL), group="reduce"))
    for name in ["argmax", "argmin"]:
        for dt in ["float32", "float64", "int32", "int64", "uint8", "float16", "bool", "complex64"]:
            add(C(f"math.{name}", T(dt, (3, 4), default_pool(dt)), group="reduce"))
        for ax in [0, 1, -1, -2, 2, None]:
            add(C(f"math.{name}", T("float32", (3, 4), FPOOL), axis=ax, group="reduce"))
        add(C(f"math.{name}", T("float32", (3, 4), FPOOL), output_type="int32", group="reduce"))
        add(C(f"math.{name}", T("float32", (0, 4)), axis=0, group="reduce"))
        add(C(f"math.{name}", T("float32", (4,), ["nan", 1.0, "nan", 5.0]), group="reduce"))
        add(C(f"math.{name}", T("float32", ()), group="reduce"))
    for name in ["cumsum", "cumprod", "cumulative_logsumexp"]:
        for dt in ["float32", "float64", "int32", "int64", "float16", "uint8", "bool"]:
            add(C(f"math.{name}", T(dt, (2, 3), default_pool(dt, True)), group="scan"))
        for ax in [0, 1, -1, 2, -3]:
            for excl, rev in [(False, False), (True, False), (False, True), (True, True)]:
                add(C(f"math.{name}", T("float32", (2, 3), FPOOL_NICE), axis=ax, exclusive=excl, reverse=rev,
                      group="scan_grad"))
        add(C(f"math.{name}", T("float32", ()), group="scan"))
    for dt in ["float32", "int32"]:
        add(C("math.segment_sum", T(dt, (4, 2), default_pool(dt, True)), T("int32", (4,), [0, 0, 1, 3]),
              group="segment"))
    for name in ["segment_sum", "segment_mean", "segment_max", "segment_min", "segment_prod"]:
        add(C(f"math.{name}", T("float32", (4, 2), FPOOL_NICE), T("int32", (4,), [0, 0, 1, 3]), group="segment"))
        add(C(f"math.{name}", T("float32", (4, 2), FPOOL_NICE), T("int64", (4,), [0, 2, 1, 3]), group="segment"))
        add(C(f"math.{name}", T("float32", (4, 2), FPOOL_NICE), T("int32", (3,), [0, 1, 1]), group="segment"))
        add(C(f"math.{name}", T("float32", (4,), FPOOL_NICE), T("int32", (4,), [-1, 0, 1, 1]), group="segment"))
    for name in ["unsorted_segment_sum", "unsorted_segment_mean", "unsorted_segment_max",
                 "unsorted_segment_min", "unsorted_segment_prod", "unsorted_segment_sqrt_n"]:
        for dt in ["float32", "int32", "float64"]:
            add(C(f"math.{name}", T(dt, (4, 2), default_pool(dt, True)), T("int32", (4,), [2, 0, 2, -1]), 3,
                  group="segment"))
        add(C(f"math.{name}", T("float32", (4, 2), FPOOL_NICE), T("int32", (4,), [2, 0, 5, 1]), 3, group="segment"))
        add(C(f"math.{name}", T("float32", (4, 2), FPOOL_NICE), T("int32", (2, 2), [2, 0, 1, 1]), 3,
              group="segment"))
    add(C("math.bincount", T("int32", (6,), [1, 1, 3, 0, 5, 1]), group="segment"))
    add(C("math.bincount", T("int32", (6,), [1, 1, 3, 0, 5, 1]), minlength=8, group="segment"))
    add(C("math.bincount", T("int32", (6,), [1, 1, 3, 0, 5, 1]), maxlength=3, group="segment"))
    add(C("math.bincount", T("int32", (3,), [1, 2, 1]), weights=T("float32", (3,), FPOOL_NICE), group="segment"))
    add(C("math.bincount", T("int32", (0,)), group="segment"))
    add(C("math.bincount", T("int32", (2,), [-1, 2]), group="segment"))
    add(C("math.bincount", T("int64", (2, 3), [0, 1, 2, 2, 1]), axis=-1, group="segment"))
    add(C("math.confusion_matrix", T("int32", (4,), [0, 1, 2, 1]), T("int32", (4,), [0, 2, 2, 1]), group="segment"))
    add(C("math.top_k", T("float32", (2, 5), FPOOL), k=3, group="sort"))
    add(C("math.top_k", T("int32", (5,), None), k=5, group="sort"))
    add(C("math.top_k", T("float32", (5,), FPOOL), k=6, group="sort"))
    add(C("math.top_k", T("float32", (3,), [1.0, 1.0, 2.0]), k=2, sorted=False, group="sort"))
    add(C("math.in_top_k", T("int32", (2,), [1, 0]), T("float32", (2, 3), FPOOL_NICE), k=1, group="sort"))
    for dt in ["float32", "int32", "int64", "uint8", "float64", "float16", "string"]:
        add(C("sort", T(dt, (2, 5), default_pool(dt)), group="sort"))
        add(C("argsort", T(dt, (2, 5), default_pool(dt)), group="sort"))
    add(C("sort", T("float32", (2, 5), FPOOL), direction="DESCENDING", group="sort"))
    add(C("argsort", T("float32", (2, 5), FPOOL), direction="DESCENDING", stable=True, group="sort"))
    add(C("sort", T("float32", (2, 5), FPOOL), axis=0, group="sort"))
    add(C("argsort", T("int32", (6,), [3, 1, 3, 1, 0, 3]), stable=True, group="sort"))
    add(C("sort", T("float32", ()), group="sort"))
    add(C("searchsorted", T("float32", (5,), [1.0, 2.0, 2.0, 3.0, 5.0]), T("float32", (4,), [2.0, 0.0, 6.0, 2.5]),
          group="sort"))
    add(C("searchsorted", T("float32", (5,), [1.0, 2.0, 2.0, 3.0, 5.0]), T("float32", (4,), [2.0, 0.0, 6.0, 2.5]),
          side="right", out_type="int64", group="sort"))
    add(C("math.unsorted_segment_sum", T("float32", (3,), FPOOL_NICE), T("int32", (3,), [0, 1, 0]), 2,
          group="segment_grad"))

    # ---- array ops -----------------------------------------------------------------------------------
    a23 = T("float32", (2, 3), FPOOL_NICE)
    a234 = T("float32", (2, 3, 4), FPOOL_NICE)
    for dt in ["float32", "int32", "int64", "bool", "string", "float16", "complex64", "uint8"]:
        x = T(dt, (2, 3), default_pool(dt))
        add(C("reshape", x, [3, 2], group="array"))
        add(C("transpose", x, group="array"))
        add(C("concat", [x, T(dt, (2, 3), default_pool(dt), 2)], axis=0, group="array"))
        add(C("stack", [x, x], axis=1, group="array"))
        add(C("tile", x, [2, 1], group="array"))
        add(C("gather", x, [1, 0, 1], axis=0, group="array"))
        add(C("reverse", x, [1], group="array"))
        add(C("expand_dims", x, 0, group="array"))
        add(C("zeros_like", x, group="array"))
        add(C("ones_like", x, group="array"))
        add(C("identity", x, group="array"))
        add(C("size", x, group="array"))
        add(C("rank", x, group="array"))
        add(C("shape", x, group="array"))
        add(C("pad", x, [[1, 0], [0, 2]], group="array"))
        add(C("broadcast_to", T(dt, (3,), default_pool(dt)), [2, 3], group="array"))
        add(C("fill", [2, 2], T(dt, (), default_pool(dt)), group="array"))
        add(C("unique", T(dt, (5,), default_pool(dt)), group="array"))
    add(C("reshape", a23, [-1], group="array_grad"))
    add(C("reshape", a23, [4, -1], group="array"))
    add(C("reshape", a23, [-1, -1], group="array"))
    add(C("reshape", T("float32", (0, 3)), [-1, 0], group="array"))
    add(C("reshape", T("float32", (0, 3)), [0, -1], group="array"))
    add(C("reshape", a23, [], group="array"))
    add(C("reshape", T("float32", (1, 1), [3.0]), [], group="array"))
    add(C("transpose", a234, [2, 0, 1], group="array_grad"))
    add(C("transpose", a234, [2, 0], group="array"))
    add(C("transpose", a234, [2, 0, 0], group="array"))
    add(C("transpose", T("complex64", (2, 2), CPOOL_NICE), conjugate=True, group="array"))
    add(C("concat", [a23, T("float32", (2, 1), FPOOL_NICE)], axis=1, group="array_grad"))
    add(C("concat", [a23, T("float32", (2, 1), FPOOL_NICE)], axis=0, group="array"))
    add(C("concat", [a23, a23], axis=-1, group="array"))
    add(C("concat", [a23, a23], axis=2, group="array"))
    add(C("concat", [a23, T("int32", (2, 3))], axis=0, group="array"))
    add(C("concat", [a23], axis=0, group="array"))
    add(C("concat", [T("float32", ()), T("float32", ())], axis=0, group="array"))
    add(C("stack", [a23, a23], axis=-1, group="array_grad"))
    add(C("stack", [a23, a23], axis=3, group="array"))
    add(C("stack", [a23, T("float32", (3, 2))], group="array"))
    add(C("stack", [], group="array"))
    add(C("unstack", a23, axis=1, group="array_grad"))
    add(C("unstack", a23, axis=-1, group="array"))
    add(C("unstack", a23, axis=2, group="array"))
    add(C("split", T("float32", (6, 2), FPOOL_NICE), 3, group="array_grad"))
    add(C("split", T("float32", (6, 2), FPOOL_NICE), [1, 2, 3], group="array"))
    add(C("split", T("float32", (6, 2), FPOOL_NICE), [1, -1, 3], group="array"))
    add(C("split", T("float32", (6, 2), FPOOL_NICE), 4, group="array"))
    add(C("split", T("float32", (6, 2), FPOOL_NICE), 2, axis=-1, group="array"))
    add(C("tile", a23, [0, 2], group="array"))
    add(C("tile", a23, [2], group="array"))
    add(C("tile", a23, [2, 3], group="array_grad"))
    add(C("pad", a23, [[1, 1], [2, 0]], mode="REFLECT", group="array_grad"))
    add(C("pad", a23, [[1, 1], [2, 0]], mode="SYMMETRIC", group="array"))
    add(C("pad", a23, [[1, 1], [3, 0]], mode="REFLECT", group="array"))
    add(C("pad", a23, [[1, 1], [2, 0]], constant_values=7.5, group="array"))
    add(C("pad", a23, [[1, 1]], group="array"))
    add(C("pad", a23, [[-1, 1], [0, 0]], group="array"))
    add(C("gather", a23, [2, 0], axis=1, group="array_grad"))
    add(C("gather", a23, [[1, 0], [0, 0]], group="array"))
    add(C("gather", a23, [3], group="array"))
    add(C("gather", a23, [-1], group="array"))
    add(C("gather", a23, [1, 0], axis=-1, group="array"))
    add(C("gather", T("float32", (2, 3, 2), FPOOL_NICE), [[1, 0], [0, 1]], axis=2, batch_dims=1, group="array"))
    add(C("gather", T("float32", (2, 3), FPOOL_NICE), T("int64", (2, 2), [1, 0, 2, 2]), axis=1, batch_dims=1,
          group="array"))
    add(C("gather_nd", a23, [[1, 2], [0, 0]], group="array_grad"))
    add(C("gather_nd", a23, [[1], [0]], group="array"))
    add(C("gather_nd", a23, [[2, 0]], group="array"))
    add(C("gather_nd", T("float32", (2, 2, 3), FPOOL_NICE), [[1], [0]], batch_dims=1, group="array"))
    add(C("slice", a234, [1, 0, 1], [1, 2, -1], group="array_grad"))
    add(C("slice", a234, [1, 0, 1], [2, 2, -1], group="array"))
    add(C("strided_slice", a234, [0, 0, 0], [2, 3, 4], [1, 2, 2], group="array_grad"))
    add(C("strided_slice", a234, [1, -1], [0, 0], [-1, -1], group="array"))
    add(C("strided_slice", a234, [1], [2], [1], shrink_axis_mask=1, group="array"))
    add(C("strided_slice", a234, [0, 1], [0, 2], [1, 1], begin_mask=1, end_mask=1, new_axis_mask=0,
          ellipsis_mask=0, group="array"))
    add(C("strided_slice", a234, [0, 1], [0, 3], [1, 1], ellipsis_mask=1, group="array"))
    add(C("strided_slice", a234, [0, 0], [1, 1], [1, 0], group="array"))
    add(C("strided_slice", a234, [5], [6], [1], shrink_axis_mask=1, group="array"))
    add(C("reverse", a234, [0, -1], group="array_grad"))
    add(C("reverse", a234, [3], group="array"))
    add(C("reverse", a234, [0, 0], group="array"))
    add(C("squeeze", T("float32", (1, 3, 1), FPOOL_NICE), group="array_grad"))
    add(C("squeeze", T("float32", (1, 3, 1), FPOOL_NICE), axis=[-1], group="array"))
    add(C("squeeze", T("float32", (1, 3, 1), FPOOL_NICE), axis=[1], group="array"))
    add(C("expand_dims", a23, -1, group="array_grad"))
    add(C("expand_dims", a23, 3, group="array"))
    add(C("expand_dims", a23, -4, group="array"))
    add(C("expand_dims", a23, -3, group="array"))
    add(C("one_hot", T("int32", (3,), [0, 2, 5]), 3, group="array"))
    add(C("one_hot", T("int32", (3,), [0, -1, 1]), 3, on_value=5.0, off_value=-1.0, group="array"))
    add(C("one_hot", T("int64", (2, 2), [0, 1, 1, 0]), 2, axis=0, dtype="int32", group="array"))
    add(C("one_hot", T("uint8", (2,), [0, 1]), 2, group="array"))
    add(C("one_hot", T("float32", (2,), [0.0, 1.0]), 2, group="array"))
    add(C("range", 5, group="array"))
    add(C("range", 1, 10, 3, group="array"))
    add(C("range", 0.5, 3, group="array"))
    add(C("range", 5, 1, -2, group="array"))
    add(C("range", 5, 1, group="array"))
    add(C("range", 0, 1, 0, group="array"))
    add(C("range", 5, dtype="float64", group="array"))
    add(C("range", T("int64", (), [4]), group="array"))
    add(C("linspace", 0.0, 1.0, 5, group="array"))
    add(C("linspace", T("float32", (2,), [0.0, 1.0]), T("float32", (2,), [1.0, 3.0]), 3, axis=-1, group="array"))
    add(C("linspace", 0.0, 1.0, 1, group="array"))
    add(C("eye", 3, group="array"))
    add(C("eye", 2, 3, batch_shape=[2], dtype="int32", group="array"))
    add(C("zeros", [2, 0], group="array"))
    add(C("ones", [2], dtype="int8", group="array"))
    add(C("fill", [2, -1], 1.0, group="array"))
    for dt_to in ["float32", "int32", "uint8", "int64", "bool", "float16", "complex64", "int8", "uint32"]:
        add(C("cast", T("float32", (15,), FPOOL), dt_to, group="cast"))
        add(C("cast", T("int64", (11,), ipool("int64")), dt_to, group="cast"))
        add(C("cast", T("bool", (3,)), dt_to, group="cast"))
        add(C("cast", T("complex64", (3,), CPOOL_NICE), dt_to, group="cast"))
        add(C("cast", T("float64", (4,), [1e40, -1e40, 300.7, -129.5]), dt_to, group="cast"))
    add(C("cast", T("float32", (3,), FPOOL_NICE), "float64", group="cast_grad"))
    add(C("cast", T("float32", (3,), FPOOL_NICE), "int32", group="cast_grad"))
    add(C("cast", T("string", (2,)), "int32", group="cast"))
    add(C("saturate_cast", T("float32", (6,), [1e10, -1e10, 300.7, -129.5, "nan", 3.3]), "uint8", group="cast"))
    add(C("saturate_cast", T("int64", (3,), [1 << 40, -(1 << 40), 5]), "int16", group="cast"))
    add(C("bitcast", T("float32", (2,), [1.0, -2.0]), "int32", group="cast"))
    add(C("bitcast", T("int32", (2,), [1, 2]), "uint8", group="cast"))
    add(C("bitcast", T("uint8", (2, 4), [0, 0, 128, 63]), "float32", group="cast"))
    add(C("boolean_mask", a23, T("bool", (2,), [True, False]), group="array_grad"))
    add(C("boolean_mask", a23, T("bool", (2, 3)), group="array"))
    add(C("boolean_mask", a23, T("bool", (3,)), axis=1, group="array"))
    add(C("boolean_mask", a23, T("bool", (3,)), group="array"))
    add(C("roll", a23, 1, 1, group="array_grad"))
    add(C("roll", a23, [1, -4], [0, 1], group="array"))
    add(C("roll", a23, 1, 2, group="array"))
    add(C("roll", a23, [1, 1], [1, 1], group="array"))
    add(C("einsum", "ij,jk->ik", a23, T("float32", (3, 2), FPOOL_NICE), group="array_grad"))
    add(C("einsum", "ij->j", a23, group="array"))
    add(C("einsum", "ii->i", T("float32", (3, 3), FPOOL_NICE), group="array"))
    add(C("einsum", "...j,j->...", a234, T("float32", (4,), FPOOL_NICE), group="array"))
    add(C("einsum", "ij,jk->ik", a23, T("float32", (2, 2), FPOOL_NICE), group="array"))
    add(C("einsum", "ij,jk->ik", T("int32", (2, 3)), T("int32", (3, 2)), group="array"))
    add(C("tensordot", a23, T("float32", (3, 2), FPOOL_NICE), 1, group="array_grad"))
    add(C("tensordot", a23, T("float32", (3, 2), FPOOL_NICE), [[1], [0]], group="array"))
    add(C("tensordot", a23, T("float32", (2, 3), FPOOL_NICE), 0, group="array"))
    add(C("repeat", a23, 2, axis=1, group="array_grad"))
    add(C("repeat", a23, [1, 2], axis=0, group="array"))
    add(C("repeat", a23, 2, group="array"))
    add(C("meshgrid", T("float32", (2,), FPOOL_NICE), T("float32", (3,), FPOOL_NICE), group="array"))
    add(C("meshgrid", T("float32", (2,), FPOOL_NICE), T("float32", (3,), FPOOL_NICE), indexing="ij", group="array"))
    add(C("scatter_nd", [[1], [3]], T("float32", (2,), FPOOL_NICE), [5], group="array_grad"))
    add(C("scatter_nd", [[1], [1]], T("int32", (2,), [3, 4]), [3], group="array"))
    add(C("scatter_nd", [[5]], T("int32", (1,), [3]), [3], group="array"))
    add(C("tensor_scatter_nd_update", a23, [[0, 1]], T("float32", (1,), [9.0]), group="array_grad"))
    add(C("tensor_scatter_nd_add", a23, [[1]], T("float32", (1, 3), FPOOL_NICE), group="array"))
    add(C("tensor_scatter_nd_max", a23, [[1, 1]], T("float32", (1,), [9.0]), group="array"))
    add(C("tensor_scatter_nd_sub", a23, [[2, 1]], T("float32", (1,), [9.0]), group="array"))
    add(C("math.invert_permutation", T("int32", (4,), [2, 0, 3, 1]), group="array"))
    add(C("math.invert_permutation", T("int32", (3,), [2, 2, 1]), group="array"))
    add(C("sequence_mask", T("int32", (3,), [1, 3, 0]), group="array"))
    add(C("sequence_mask", T("int32", (3,), [1, 3, 0]), 4, dtype="float32", group="array"))
    add(C("sequence_mask", T("int32", (2,), [1, -1]), 4, group="array"))
    add(C("unravel_index", T("int32", (3,), [0, 5, 3]), [2, 3], group="array"))
    add(C("math.reduce_sum", T("float32", (2, 3), FPOOL_NICE), axis=1, group="array"))
    add(C("diag_part" if False else "linalg.diag", T("float32", (3,), FPOOL_NICE), group="linalg_grad"))
    add(C("linalg.diag_part", T("float32", (2, 3), FPOOL_NICE), group="linalg_grad"))
    add(C("linalg.set_diag", T("float32", (2, 3), FPOOL_NICE), T("float32", (2,), [9.0, 8.0]), group="linalg"))
    add(C("linalg.band_part", T("float32", (3, 4), FPOOL_NICE), 1, 0, group="linalg_grad"))
    add(C("linalg.band_part", T("float32", (3, 4), FPOOL_NICE), -1, 1, group="linalg"))
    add(C("linalg.trace", T("float32", (2, 3, 3), FPOOL_NICE), group="linalg_grad"))
    add(C("linalg.trace", T("int32", (3, 2)), group="linalg"))
    add(C("linalg.det", T("float32", (3, 3), FPOOL_NICE), group="linalg_grad"))
    add(C("linalg.det", T("float64", (2, 2, 2), FPOOL_NICE), group="linalg"))
    add(C("linalg.det", T("float32", (2, 3), FPOOL_NICE), group="linalg"))
    add(C("linalg.slogdet", T("float32", (3, 3), FPOOL_NICE), group="linalg"))
    add(C("linalg.logdet", T("float64", (2, 2), [2.0, 0.5, 0.5, 3.0]), group="linalg_grad"))
    add(C("linalg.inv", T("float32", (3, 3), FPOOL_NICE), group="linalg_grad"))
    add(C("linalg.inv", T("float32", (2, 2), [1.0, 2.0, 2.0, 4.0]), group="linalg"))
    add(C("linalg.inv", T("int32", (2, 2)), group="linalg"))
    add(C("linalg.solve", T("float32", (3, 3), FPOOL_NICE), T("float32", (3, 2), FPOOL_NICE, 1), group="linalg_grad"))
    add(C("linalg.cholesky", T("float64", (2, 2), [2.0, 0.5, 0.5, 3.0]), group="linalg_grad"))
    add(C("linalg.norm", T("float32", (2, 3), FPOOL_NICE), group="linalg_grad"))
    add(C("linalg.norm", T("float32", (2, 3), FPOOL_NICE), ord=1, axis=1, group="linalg"))
    add(C("linalg.norm", T("float32", (2, 3), FPOOL_NICE), ord="fro", axis=[0, 1], group="linalg"))
    add(C("linalg.norm", T("float32", (2, 3), FPOOL_NICE), ord=np.inf, axis=-1, keepdims=True, group="linalg"))
    add(C("linalg.norm", T("float32", (3, 3), FPOOL_NICE), ord=2, axis=[0, 1], group="linalg"))
    add(C("linalg.norm", T("float32", (2, 3), FPOOL_NICE), ord=-1, group="linalg"))
    add(C("norm", T("float32", (2, 3), FPOOL_NICE), axis=1, group="linalg"))
    add(C("linalg.matmul", a23, T("float32", (3, 2), FPOOL_NICE), group="linalg_grad"))
    add(C("linalg.matmul", a23, a23, transpose_b=True, group="linalg"))
    add(C("linalg.matmul", a23, a23, group="linalg"))
    add(C("linalg.matmul", T("int32", (2, 3)), T("int32", (3, 2)), group="linalg"))
    add(C("linalg.matmul", T("float32", (2, 2, 3), FPOOL_NICE), T("float32", (3, 4), FPOOL_NICE), group="linalg"))
    add(C("linalg.matvec", a23, T("float32", (3,), FPOOL_NICE), group="linalg_grad"))
    add(C("linalg.cross", T("float32", (2, 3), FPOOL_NICE), T("float32", (2, 3), FPOOL_NICE, 2), group="linalg_grad"))
    add(C("linalg.tensor_diag_part" if False else "linalg.adjoint", T("complex64", (2, 3), CPOOL_NICE), group="linalg"))
    add(C("linalg.matrix_transpose", a234, group="linalg"))
    add(C("linalg.eye", 2, group="linalg"))
    add(C("linalg.normalize", a23, axis=1, group="linalg"))
    add(C("linalg.global_norm", [a23, T("float32", (2,), FPOOL_NICE)], group="linalg"))
    add(C("linalg.qr", T("float64", (3, 2), FPOOL_NICE), group="linalg"))
    add(C("linalg.eigh", T("float64", (2, 2), [2.0, 0.5, 0.5, 3.0]), group="linalg"))
    add(C("linalg.lstsq", T("float64", (3, 2), FPOOL_NICE), T("float64", (3, 1), FPOOL_NICE, 2), group="linalg"))
    add(C("linalg.triangular_solve", T("float32", (2, 2), [2.0, 0.0, 1.0, 3.0]), T("float32", (2, 1), [1.0, 2.0]),
          group="linalg_grad"))
    add(C("linalg.l2_normalize", a23, axis=0, group="linalg"))
    add(C("linalg.pinv", T("float64", (2, 3), FPOOL_NICE), group="linalg"))
    add(C("linalg.expm", T("float64", (2, 2), [0.1, 0.2, -0.3, 0.4]), group="linalg"))
    add(C("linalg.logm", T("complex128", (2, 2), [[1.0, 0.0], [0.1, 0.0], [0.0, 0.0], [1.0, 0.0]]), group="linalg"))
    add(C("linalg.svd", T("float64", (3, 2), FPOOL_NICE), compute_uv=False, group="linalg"))
    add(C("linalg.matrix_rank", T("float64", (3, 3), [1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 1.0, 0.0, 1.0]), group="linalg"))
    add(C("linalg.lu_solve" if False else "linalg.tridiagonal_solve" if False else "linalg.diag",
          T("float32", (2, 3), FPOOL_NICE), k=1, group="linalg"))

    # ---- strings -------------------------------------------------------------------------------------
    s = T("string", (2, 4), SPOOL)
    add(C("strings.length", s, group="strings"))
    add(C("strings.length", s, unit="UTF8_CHAR", group="strings"))
    add(C("strings.upper", s, group="strings"))
    add(C("strings.lower", T("string", (3,), ["ABC", "H\u00c9llo", "x"]), group="strings"))
    add(C("strings.strip", s, group="strings"))
    add(C("strings.substr", s, 1, 2, group="strings"))
    add(C("strings.substr", s, 0, 20, group="strings"))
    add(C("strings.substr", T("string", (2,), ["abcdef", "xy"]), 3, 1, group="strings"))
    add(C("strings.substr", T("string", (2,), ["abcdef", "xyz"]), -2, 2, group="strings"))
    add(C("strings.substr", T("string", (2,), ["h\u00e9llo", "xyz"]), 1, 2, unit="UTF8_CHAR", group="strings"))
    add(C("strings.join", [T("string", (2,), ["a", "b"]), T("string", (2,), ["c", "d"])], separator="-",
          group="strings"))
    add(C("strings.join", [T("string", (2,), ["a", "b"]), T("string", (), ["c"])], group="strings"))
    add(C("strings.reduce_join", s, group="strings"))
    add(C("strings.reduce_join", s, axis=1, separator="|", group="strings"))
    add(C("strings.reduce_join", s, axis=0, keepdims=True, group="strings"))
    add(C("strings.reduce_join", s, axis=-1, group="strings"))
    add(C("strings.reduce_join", s, axis=2, group="strings"))
    add(C("strings.to_number", T("string", (3,), ["1.5", "-3", "1e3"]), group="strings"))
    add(C("strings.to_number", T("string", (3,), ["1", "-3", "12"]), out_type="int32", group="strings"))
    add(C("strings.to_number", T("string", (2,), ["1.5", "abc"]), group="strings"))
    add(C("strings.to_number", T("string", (2,), [" 7", "3000000000"]), out_type="int32", group="strings"))
    add(C("strings.to_number", T("string", (2,), ["nan", "-inf"]), out_type="float64", group="strings"))
    for dt in ["float32", "int32", "int64", "bool", "float64", "float16", "complex64", "uint8", "int8"]:
        add(C("strings.as_string", T(dt, (5,), default_pool(dt)), group="strings"))
    add(C("strings.as_string", T("float32", (3,), FPOOL_NICE), precision=2, group="strings"))
    add(C("strings.as_string", T("float32", (3,), [1e10, 1e-7, 3.0]), scientific=True, group="strings"))
    add(C("strings.as_string", T("int32", (3,), [1, -22, 333]), width=5, fill="0", group="strings"))
    add(C("strings.as_string", T("float32", (3,), [1e10, 1e-7, 3.0]), shortest=True, group="strings"))
    add(C("strings.regex_replace", s, "l+", "L", group="strings"))
    add(C("strings.regex_replace", s, "l", "L", replace_global=False, group="strings"))
    add(C("strings.regex_full_match", s, "[a-z]+", group="strings"))
    add(C("strings.split", T("string", (2,), ["a b  c", ""]), group="strings"))
    add(C("strings.split", T("string", (2,), ["a,b,,c", "x"]), sep=",", group="strings"))
    add(C("strings.split", T("string", (), ["a,b,,c"]), sep=",", maxsplit=1, group="strings"))
    add(C("strings.format", "x={} y={}", [T("int32", (), [3]), T("float32", (2,), FPOOL_NICE)], group="strings"))
    add(C("strings.bytes_split", T("string", (2,), ["abc", ""]), group="strings"))
    add(C("strings.unicode_split", T("string", (2,), ["h\u00e9", "ab"]), "UTF-8", group="strings"))
    add(C("strings.unicode_decode", T("string", (2,), ["h\u00e9", "ab"]), "UTF-8", group="strings"))
    add(C("strings.to_hash_bucket_fast", s, 10, group="strings"))
    add(C("strings.to_hash_bucket_strong", s, 10, [1, 2], group="strings"))
    add(C("strings.to_hash_bucket", s, 10, group="strings"))
    add(C("strings.ngrams", T("string", (4,), ["a", "b", "c", "d"]), 2, group="strings"))
    add(C("strings.unsorted_segment_join", T("string", (3,), ["a", "b", "c"]), T("int32", (3,), [1, 0, 1]), 2,
          separator=":", group="strings"))
    add(C("strings.startswith" if False else "strings.regex_full_match", T("string", (2,), ["ab", "b"]), "a.*",
          group="strings"))
    add(C("strings.upper", T("int32", (2,)), group="strings"))
    add(C("strings.unicode_script", T("int32", (3,), [65, 0x4E00, 0x0410]), group="strings"))
    add(C("strings.unicode_encode", T("int32", (3,), [104, 233, 65]), "UTF-8", group="strings"))
    add(C("strings.substr", s, T("int32", (2, 4), [0, 1, 2, 0]), T("int32", (2, 4), [1, 2, 3, 1]),
          group="strings"))
    add(C("strings.substr", T("string", (1,), ["abc"]), 5, 1, group="strings"))
    add(C("math.add", T("string", (2,), ["a", "b"]), T("string", (2,), ["c", "d"]), group="strings"))

    # ---- sparse / ragged -----------------------------------------------------------------------------
    add(C("sparse.from_dense", a23, group="sparse"))
    add(C("sparse.to_dense", {"Sparse": [[[0, 1], [1, 2]], T("float32", (2,), [3.0, 4.0]), [2, 3]]}, group="sparse"))
    add(C("sparse.to_dense", {"Sparse": [[[0, 1], [1, 2]], T("int32", (2,), [3, 4]), [2, 3]]}, default_value=7,
          group="sparse"))
    add(C("sparse.reduce_sum", {"Sparse": [[[0, 1], [1, 2], [1, 0]], T("float32", (3,), [3.0, 4.0, 5.0]), [2, 3]]},
          axis=1, group="sparse"))
    add(C("sparse.reduce_sum", {"Sparse": [[[0, 1], [1, 2], [1, 0]], T("float32", (3,), [3.0, 4.0, 5.0]), [2, 3]]},
          group="sparse"))
    add(C("sparse.reduce_max", {"Sparse": [[[0, 1], [1, 2], [1, 0]], T("float32", (3,), [-3.0, 4.0, 5.0]), [2, 3]]},
          axis=1, group="sparse"))
    add(C("sparse.sparse_dense_matmul", {"Sparse": [[[0, 1], [1, 2]], T("float32", (2,), [3.0, 4.0]), [2, 3]]},
          T("float32", (3, 2), FPOOL_NICE), group="sparse"))
    add(C("sparse.add", {"Sparse": [[[0, 1], [1, 2]], T("float32", (2,), [3.0, 4.0]), [2, 3]]},
          {"Sparse": [[[0, 1], [1, 0]], T("float32", (2,), [1.0, -4.0]), [2, 3]]}, group="sparse"))
    add(C("sparse.add", {"Sparse": [[[0, 1], [1, 2]], T("float32", (2,), [3.0, 4.0]), [2, 3]]}, a23, group="sparse"))
    add(C("sparse.transpose", {"Sparse": [[[0, 1], [1, 2]], T("float32", (2,), [3.0, 4.0]), [2, 3]]}, group="sparse"))
    add(C("sparse.reorder", {"Sparse": [[[1, 2], [0, 1]], T("float32", (2,), [3.0, 4.0]), [2, 3]]}, group="sparse"))
    add(C("sparse.reshape", {"Sparse": [[[0, 1], [1, 2]], T("float32", (2,), [3.0, 4.0]), [2, 3]]}, [3, -1],
          group="sparse"))
    add(C("sparse.slice", {"Sparse": [[[0, 1], [1, 2]], T("float32", (2,), [3.0, 4.0]), [2, 3]]}, [0, 1], [2, 1],
          group="sparse"))
    add(C("sparse.concat", 1, [{"Sparse": [[[0, 1]], T("float32", (1,), [3.0]), [2, 3]]},
                               {"Sparse": [[[1, 0]], T("float32", (1,), [4.0]), [2, 2]]}], group="sparse"))
    add(C("sparse.retain", {"Sparse": [[[0, 1], [1, 2]], T("float32", (2,), [3.0, 4.0]), [2, 3]]},
          T("bool", (2,), [False, True]), group="sparse"))
    add(C("sparse.fill_empty_rows", {"Sparse": [[[0, 1]], T("float32", (1,), [3.0])  , [3, 3]]}, 9.0,
          group="sparse"))
    add(C("sparse.maximum", {"Sparse": [[[0, 1], [1, 2]], T("float32", (2,), [3.0, 4.0]), [2, 3]]},
          {"Sparse": [[[0, 1], [1, 0]], T("float32", (2,), [5.0, -4.0]), [2, 3]]}, group="sparse"))
    add(C("sparse.softmax", {"Sparse": [[[0, 1], [0, 2], [1, 0]], T("float32", (3,), [3.0, 4.0, 1.0]), [2, 3]]},
          group="sparse"))
    add(C("sparse.to_indicator", {"Sparse": [[[0, 0], [1, 0]], T("int64", (2,), [1, 3]), [2, 1]]}, 4, group="sparse"))
    add(C("sparse.segment_sum", T("float32", (4, 2), FPOOL_NICE), T("int32", (3,), [0, 2, 3]),
          T("int32", (3,), [0, 0, 1]), group="sparse"))
    add(C("sparse.segment_mean", T("float32", (4, 2), FPOOL_NICE), T("int32", (3,), [0, 2, 3]),
          T("int32", (3,), [0, 0, 2]), group="sparse"))
    add(C("sparse.eye", 3, group="sparse"))
    rg = {"Ragged": [T("float32", (5,), FPOOL_NICE), [0, 2, 2, 5]]}
    rgi = {"Ragged": [T("int32", (5,), [1, 2, 3, 4, 5]), [0, 2, 2, 5]]}
    add(C("ragged.constant", [[1, 2], [3]], group="ragged"))
    add(C("ragged.constant", [[1.5, 2.0], []], group="ragged"))
    add(C("ragged.constant", [[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1, group="ragged"))
    add(C("ragged.constant", [["a", "b"], ["c"]], group="ragged"))
    add(C("ragged.range", T("int32", (3,), [0, 2, 5]), T("int32", (3,), [3, 2, 8]), group="ragged"))
    add(C("ragged.row_splits_to_segment_ids", T("int64", (4,), [0, 2, 2, 5]), group="ragged"))
    add(C("ragged.segment_ids_to_row_splits", T("int64", (4,), [0, 0, 2, 2]), group="ragged"))
    add(C("ragged.stack_dynamic_partitions", T("float32", (4,), FPOOL_NICE), T("int32", (4,), [1, 0, 1, 2]), 3,
          group="ragged"))
    add(C("math.reduce_sum", rg, axis=1, group="ragged"))
    add(C("math.reduce_mean", rg, axis=1, group="ragged"))
    add(C("math.reduce_max", rg, axis=1, group="ragged"))
    add(C("math.reduce_sum", rg, axis=0, group="ragged"))
    add(C("math.reduce_sum", rg, group="ragged"))
    add(C("math.reduce_prod", rgi, axis=-1, group="ragged"))
    add(C("math.reduce_min", rgi, axis=1, group="ragged"))
    add(C("math.add", rg, 1.0, group="ragged"))
    add(C("math.multiply", rg, rg, group="ragged"))
    add(C("math.exp", rg, group="ragged"))
    add(C("math.cast" if False else "cast", rgi, "float32", group="ragged"))
    add(C("concat", [rg, rg], axis=0, group="ragged"))
    add(C("concat", [rg, rg], axis=1, group="ragged"))
    add(C("stack", [rg, rg], axis=0, group="ragged"))
    add(C("gather", rg, [2, 0], group="ragged"))
    add(C("ragged.boolean_mask", rg, {"Ragged": [T("bool", (5,), [True, False, True, True, False]), [0, 2, 2, 5]]},
          group="ragged"))
    add(C("shape", rg, group="ragged"))
    add(C("size", rg, group="ragged"))
    add(C("where", {"Ragged": [T("bool", (5,), [True, False, True, True, False]), [0, 2, 2, 5]]}, rg,
          {"Ragged": [T("float32", (5,), [9.0]), [0, 2, 2, 5]]}, group="ragged"))
    add(C("math.argmax", rg, axis=1, group="ragged"))
    add(C("strings.length", {"Ragged": [T("string", (3,), ["ab", "", "xyz"]), [0, 1, 3]]}, group="ragged"))
    add(C("strings.reduce_join", {"Ragged": [T("string", (3,), ["ab", "", "xyz"]), [0, 1, 3]]}, axis=1,
          group="ragged"))
    add(C("ragged.map_flat_values" if False else "math.segment_sum", T("float32", (3,), FPOOL_NICE),
          T("int32", (3,), [0, 1, 1]), group="ragged"))

    # ---- signal --------------------------------------------------------------------------------------
    for dt in ["complex64", "complex128"]:
        x = T(dt, (2, 4), CPOOL_NICE)
        for name in ["fft", "ifft"]:
            add(C(f"signal.{name}", x, group="signal"))
        add(C("signal.fft2d", x, group="signal"))
        add(C("signal.ifft2d", x, group="signal"))
        add(C("signal.fft3d", T(dt, (2, 2, 2), CPOOL_NICE), group="signal"))
    add(C("signal.fft", T("float32", (4,), FPOOL_NICE), group="signal"))
    add(C("signal.fft", T("complex64", (), CPOOL_NICE), group="signal"))
    add(C("signal.fft", T("complex64", (2, 0), CPOOL_NICE), group="signal"))
    for dt in ["float32", "float64"]:
        x = T(dt, (2, 6), FPOOL_NICE)
        add(C("signal.rfft", x, group="signal_grad"))
        add(C("signal.rfft", x, [4], group="signal"))
        add(C("signal.rfft", x, [8], group="signal"))
        add(C("signal.irfft", T("complex64" if dt == "float32" else "complex128", (2, 4), CPOOL_NICE),
              group="signal"))
        add(C("signal.irfft", T("complex64" if dt == "float32" else "complex128", (2, 4), CPOOL_NICE), [5],
              group="signal"))
        add(C("signal.rfft2d", T(dt, (3, 4), FPOOL_NICE), group="signal"))
        add(C("signal.irfft2d", T("complex64" if dt == "float32" else "complex128", (3, 3), CPOOL_NICE),
              group="signal"))
        add(C("signal.fftshift", x, group="signal"))
        add(C("signal.ifftshift", x, axes=1, group="signal"))
        add(C("signal.hann_window", 5, dtype=dt, group="signal"))
        add(C("signal.hamming_window", 6, periodic=False, dtype=dt, group="signal"))
        add(C("signal.frame", T(dt, (10,), FPOOL_NICE), 4, 3, group="signal"))
        add(C("signal.frame", T(dt, (10,), FPOOL_NICE), 4, 3, pad_end=True, pad_value=-1, group="signal"))
        add(C("signal.overlap_and_add", T(dt, (3, 4), FPOOL_NICE), 2, group="signal"))
        add(C("signal.dct", T(dt, (2, 5), FPOOL_NICE), group="signal"))
        add(C("signal.dct", T(dt, (2, 5), FPOOL_NICE), type=3, norm="ortho", group="signal"))
        add(C("signal.idct", T(dt, (2, 5), FPOOL_NICE), type=2, group="signal"))
        add(C("signal.stft", T(dt, (32,), FPOOL_NICE), 8, 4, group="signal"))
        add(C("signal.stft", T(dt, (32,), FPOOL_NICE), 8, 4, fft_length=16, pad_end=True, group="signal"))
    add(C("signal.fft", T("complex64", (4,), CPOOL_NICE), group="signal_grad"))
    add(C("signal.irfft", T("complex64", (4,), CPOOL_NICE), group="signal_grad"))
    add(C("signal.linear_to_mel_weight_matrix", 4, 9, 8000, 20.0, 4000.0, group="signal"))
    add(C("signal.mfccs_from_log_mel_spectrograms", T("float32", (2, 6), FPOOL_NICE), group="signal"))

    # ---- random stateless ----------------------------------------------------------------------------
    for seed in [[1, 2], [0, 0], [-5, 7]]:
        add(C("random.stateless_uniform", [2, 3], seed, group="random"))
        add(C("random.stateless_normal", [5], seed, group="random"))
        add(C("random.stateless_truncated_normal", [5], seed, group="random"))
        add(C("random.stateless_uniform", [4], seed, minval=2, maxval=10, dtype="int32", group="random"))
        add(C("random.stateless_uniform", [4], seed, minval=-5, maxval=100, dtype="int64", group="random"))
        add(C("random.stateless_uniform", [3], seed, dtype="float64", group="random"))
        add(C("random.stateless_uniform", [3], seed, dtype="float16", minval=1.0, maxval=3.0, group="random"))
        add(C("random.stateless_normal", [3], seed, mean=2.0, stddev=3.0, dtype="float64", group="random"))
        add(C("random.stateless_categorical", T("float32", (2, 3), FPOOL_NICE), 4, seed, group="random"))
        add(C("random.stateless_binomial", [4], seed, 10, 0.3, group="random"))
        add(C("random.stateless_poisson", [4], seed, 3.0, group="random"))
        add(C("random.stateless_gamma", [4], seed, 2.0, group="random"))
        add(C("random.stateless_uniform", [4], seed, dtype="uint32", minval=None, maxval=None, group="random"))
        add(C("random.stateless_parameterized_truncated_normal", [3], seed, group="random"))
    add(C("random.stateless_uniform", [4], T("int64", (2,), [3, 4]), group="random"))
    add(C("random.stateless_uniform", [4], [1, 2, 3], group="random"))
    add(C("random.stateless_uniform", [4], [1, 2], dtype="int32", group="random"))
    add(C("random.stateless_uniform", [0, 3], [1, 2], group="random"))
    add(C("random.stateless_uniform", [], [1, 2], group="random"))
    # ---- many values per op (accuracy over magnitudes) ---------------------------------------------------
    rng = np.random.default_rng(7)
    wide = (np.sign(rng.standard_normal(400)) * 10.0 ** rng.uniform(-6, 3, 400)).tolist()
    wide += np.linspace(-12, 12, 97).tolist()
    for name in unary_float + ["sigmoid", "softplus"]:
        for dt in ["float32", "float64", "float16"]:
            add(C(f"math.{name}", T(dt, (len(wide),), wide), group="wide"))
    for name in ["relu", "elu", "selu", "gelu", "silu", "softsign", "log_softmax", "softmax"]:
        for dt in ["float32", "float64"]:
            add(C(f"nn.{name}", T(dt, (len(wide) // 7, 7), wide), group="wide"))
    for name in ["add", "subtract", "multiply", "divide", "pow", "atan2", "floormod", "floordiv", "squared_difference",
                 "xlogy", "xdivy", "maximum", "truncatemod" if False else "divide_no_nan"]:
        for dt in ["float32", "float64"]:
            add(C(f"math.{name}", T(dt, (len(wide),), wide), T(dt, (len(wide),), wide, 11), group="wide"))
    for name in ["reduce_sum", "reduce_mean", "reduce_logsumexp", "reduce_std", "reduce_variance",
                 "reduce_euclidean_norm", "cumsum", "cumprod"]:
        for dt in ["float32", "float64"]:
            add(C(f"math.{name}", T(dt, (len(wide) // 7, 7), [v / 100 for v in wide]), axis=-1, group="wide"))

    # ---- gradients at the special points (0, ties, boundaries) -----------------------------------------
    zt = [0.0, -0.0, 1.0, 1.0, -2.0, 0.0]
    for name in ["math.abs", "math.sqrt", "math.rsqrt", "math.sign", "nn.relu", "nn.relu6", "nn.leaky_relu",
                 "nn.elu", "math.log", "math.reciprocal", "math.square", "math.softplus", "math.reduce_max",
                 "math.reduce_min", "math.reduce_euclidean_norm", "math.reduce_logsumexp", "linalg.norm",
                 "math.l2_normalize", "math.round", "math.floor", "math.xlogy" if False else "math.tanh",
                 "math.reduce_prod", "math.cumprod", "math.atan", "math.acos", "math.asin", "math.log1p",
                 "math.reduce_std", "math.reciprocal_no_nan", "nn.softmax", "nn.log_softmax", "math.lgamma"]:
        add(C(name, T("float32", (6,), zt), group="gradspecial_grad"))
    add(C("nn.relu6", T("float32", (4,), [6.0, 0.0, 7.0, -1.0]), group="gradspecial_grad"))
    add(C("math.reduce_max", T("float32", (2, 3), [1.0, 1.0, 0.5, 2.0, 2.0, 2.0]), axis=1, group="gradspecial_grad"))
    add(C("math.reduce_min", T("float32", (2, 3), [1.0, 1.0, 0.5, 2.0, 2.0, 2.0]), axis=0, group="gradspecial_grad"))
    add(C("math.argmax" if False else "math.top_k", T("float32", (5,), [1.0, 3.0, 3.0, 0.0, 2.0]), k=2,
          group="gradspecial_grad"))
    for name in ["maximum", "minimum", "pow", "xlogy", "xdivy", "divide_no_nan", "squared_difference", "atan2",
                 "multiply_no_nan", "floormod", "truediv", "divide"]:
        add(C(f"math.{name}", T("float32", (6,), zt), T("float32", (6,), [0.0, 0.0, 1.0, 2.0, -2.0, 3.0]),
              group="gradspecial_grad"))
    add(C("clip_by_value", T("float32", (5,), [-1.0, 0.0, 0.5, 1.0, 2.0]), 0.0, 1.0, group="gradspecial_grad"))
    add(C("clip_by_norm", T("float32", (3,), [0.0, 0.0, 0.0]), 1.0, group="gradspecial_grad"))
    add(C("where", T("bool", (3,), [True, False, True]), T("float32", (3,), [1.0, 0.0, 4.0]),
          T("float32", (3,), [0.0, -1.0, 0.0]), group="gradspecial_grad"))
    add(C("nn.sigmoid_cross_entropy_with_logits", labels=T("float32", (3,), [0.0, 1.0, 0.5]),
          logits=T("float32", (3,), [0.0, -100.0, 100.0]), group="gradspecial_grad"))
    add(C("nn.softmax_cross_entropy_with_logits", labels=T("float32", (2, 3), [0.0, 1.0, 0.0]),
          logits=T("float32", (2, 3), [0.0, -100.0, 100.0, 1.0, 1.0, 1.0]), group="gradspecial_grad"))
    add(C("math.reduce_mean", T("float32", (0, 3)), axis=0, group="gradspecial_grad"))
    add(C("math.reduce_sum", T("float32", (0, 3)), group="gradspecial_grad"))
    add(C("linalg.matmul", T("float32", (0, 3)), T("float32", (3, 2), FPOOL_NICE), group="gradspecial_grad"))
    add(C("gather", T("float32", (4, 2), FPOOL_NICE), [1, 1, 3], group="gradspecial_grad"))
    add(C("math.segment_max", T("float32", (4,), [1.0, 1.0, 2.0, 0.0]), T("int32", (4,), [0, 0, 1, 1]),
          group="gradspecial_grad"))
    add(C("math.unsorted_segment_max", T("float32", (4,), [1.0, 1.0, 2.0, 0.0]), T("int32", (4,), [0, 0, 1, 1]), 3,
          group="gradspecial_grad"))

    # ---- linalg with batches ----------------------------------------------------------------------------
    spd = [4.0, 1.0, 0.5, 1.0, 3.0, 0.2, 0.5, 0.2, 2.0]
    add(C("linalg.matmul", T("float32", (2, 1, 2, 3), FPOOL_NICE), T("float32", (3, 3, 2), FPOOL_NICE, 1),
          group="linalgb_grad"))
    add(C("linalg.matmul", T("float64", (2, 2, 3), FPOOL_NICE), T("float64", (2, 2, 3), FPOOL_NICE, 1),
          adjoint_b=True, group="linalgb_grad"))
    add(C("linalg.matmul", T("complex64", (2, 2), CPOOL_NICE), T("complex64", (2, 2), CPOOL_NICE, 1),
          adjoint_a=True, group="linalgb_grad"))
    add(C("linalg.matmul", T("float32", (2, 3), FPOOL_NICE), T("float32", (3,), FPOOL_NICE), group="linalgb"))
    add(C("linalg.matmul", T("float16", (2, 3), FPOOL_NICE), T("float16", (3, 2), FPOOL_NICE), group="linalgb_grad"))
    add(C("linalg.matmul", T("int64", (2, 3), None), T("int64", (3, 2), None), group="linalgb"))
    add(C("linalg.matmul", T("bool", (2, 3), None), T("bool", (3, 2), None), group="linalgb"))
    for name in ["inv", "det", "slogdet", "cholesky", "logdet", "eigvalsh", "trace", "diag_part", "adjoint"]:
        add(C(f"linalg.{name}", T("float64", (2, 3, 3), spd), group="linalgb_grad"))
        add(C(f"linalg.{name}", T("float32", (3, 3), spd), group="linalgb_grad"))
    add(C("linalg.solve", T("float64", (2, 3, 3), spd), T("float64", (2, 3, 2), FPOOL_NICE), adjoint=True,
          group="linalgb_grad"))
    add(C("linalg.cholesky_solve", T("float64", (3, 3), [2.0, 0.0, 0.0, 0.5, 1.5, 0.0, 0.2, 0.1, 1.0]),
          T("float64", (3, 1), FPOOL_NICE), group="linalgb_grad"))
    add(C("linalg.triangular_solve", T("float64", (2, 3, 3), spd), T("float64", (2, 3, 1), FPOOL_NICE), lower=False,
          group="linalgb_grad"))
    add(C("linalg.qr", T("float64", (2, 4, 3), FPOOL_NICE), group="linalgb"))
    add(C("linalg.qr", T("float64", (3, 2), FPOOL_NICE), full_matrices=True, group="linalgb"))
    add(C("linalg.svd", T("float64", (2, 3, 2), FPOOL_NICE), group="linalgb"))
    add(C("linalg.band_part", T("float32", (2, 3, 4), FPOOL_NICE), 0, -1, group="linalgb_grad"))
    add(C("linalg.diag", T("float32", (2, 3), FPOOL_NICE), group="linalgb_grad"))
    add(C("linalg.tensordot" if False else "tensordot", T("float32", (2, 3, 4), FPOOL_NICE),
          T("float32", (4, 3, 2), FPOOL_NICE, 1), [[1, 2], [1, 0]], group="linalgb_grad"))
    for eq, shapes in [("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]), ("ij->", [(2, 3)]), ("ij,ij->ij", [(2, 3), (2, 3)]),
                       ("i,j->ij", [(2,), (3,)]), ("bhqd,bhkd->bhqk", [(1, 2, 3, 4), (1, 2, 2, 4)]),
                       ("ab...,b->a...", [(2, 3, 2), (3,)]), ("ji", [(2, 3)]), ("ii", [(3, 3)])]:
        add(C("einsum", eq, *[T("float32", sh, FPOOL_NICE, i) for i, sh in enumerate(shapes)], group="linalgb_grad"))

    # ---- more gradients: losses, segments, gathers, scatters, sorting ------------------------------------
    lg = T("float32", (2, 3), FPOOL_NICE)
    add(C("nn.sigmoid_cross_entropy_with_logits", labels=T("float32", (2, 3), [0.0, 1.0, 0.3]), logits=lg,
          group="moregrad_grad"))
    add(C("nn.softmax_cross_entropy_with_logits", labels=T("float32", (2, 3), [0.2, 0.5, 0.3]), logits=lg,
          group="moregrad_grad"))
    add(C("nn.softmax_cross_entropy_with_logits", labels=T("float32", (3, 2), [0.2, 0.5, 0.3]),
          logits=T("float32", (3, 2), FPOOL_NICE), axis=0, group="moregrad_grad"))
    add(C("nn.sparse_softmax_cross_entropy_with_logits", labels=T("int64", (2,), [2, 0]), logits=lg,
          group="moregrad_grad"))
    add(C("nn.l2_loss", lg, group="moregrad_grad"))
    add(C("nn.moments", T("float32", (3, 4), FPOOL_NICE), axes=[0], group="moregrad_grad"))
    add(C("nn.log_softmax", T("float32", (2, 3), FPOOL_NICE), axis=0, group="moregrad_grad"))
    for name in ["segment_sum", "segment_mean", "segment_max", "segment_min", "segment_prod"]:
        add(C(f"math.{name}", T("float32", (4, 2), FPOOL_NICE), T("int32", (4,), [0, 0, 1, 3]), group="moregrad_grad"))
    for name in ["unsorted_segment_sum", "unsorted_segment_mean", "unsorted_segment_max", "unsorted_segment_prod"]:
        add(C(f"math.{name}", T("float32", (4, 2), FPOOL_NICE), T("int32", (4,), [2, 0, 2, -1]), 3,
              group="moregrad_grad"))
    add(C("gather", T("float32", (2, 3, 2), FPOOL_NICE), [[1, 0], [2, 2]], axis=1, batch_dims=1, group="moregrad_grad"))
    add(C("gather_nd", T("float32", (2, 2, 3), FPOOL_NICE), [[1], [0]], batch_dims=1, group="moregrad_grad"))
    add(C("tensor_scatter_nd_add", lg, [[1, 2], [1, 2]], T("float32", (2,), [9.0, 1.0]), group="moregrad_grad"))
    add(C("tensor_scatter_nd_max", lg, [[1, 1]], T("float32", (1,), [9.0]), group="moregrad_grad"))
    add(C("math.top_k", T("float32", (2, 4), FPOOL_NICE), k=2, group="moregrad_grad"))
    add(C("sort", T("float32", (2, 4), FPOOL_NICE), direction="DESCENDING", group="moregrad_grad"))
    add(C("math.cumulative_logsumexp" if False else "math.reduce_logsumexp", T("float32", (2, 3), ["-inf"]),
          axis=1, group="moregrad_grad"))
    add(C("math.cumsum", lg, axis=1, exclusive=True, reverse=True, group="moregrad_grad"))
    add(C("math.cumprod", T("float32", (5,), [2.0, 0.0, 3.0, 0.0, 1.5]), group="moregrad_grad"))
    add(C("math.reduce_prod", T("float32", (2, 3), [2.0, 0.0, 3.0, 0.0, 0.0, 1.5]), axis=1, group="moregrad_grad"))
    add(C("sparse.sparse_dense_matmul", {"Sparse": [[[0, 1], [1, 2]], T("float32", (2,), [3.0, 4.0]), [2, 3]]},
          T("float32", (3, 2), FPOOL_NICE), group="moregrad_grad"))
    add(C("math.reduce_sum", rg, axis=1, group="moregrad_grad"))
    add(C("math.reduce_mean", {"Ragged": [T("float32", (5,), FPOOL_NICE), [0, 2, 2, 5]]}, axis=1,
          group="moregrad_grad"))
    add(C("linalg.normalize", lg, axis=1, group="moregrad_grad"))
    add(C("nn.l2_normalize", lg, axis=1, group="moregrad_grad"))
    add(C("math.reduce_variance", lg, axis=0, group="moregrad_grad"))
    add(C("math.reduce_std", lg, axis=[0, 1], group="moregrad_grad"))
    add(C("math.divide_no_nan", lg, T("float32", (3,), [0.0, 2.0, 0.0]), group="moregrad_grad"))
    add(C("math.sqrt", T("float32", (3,), [0.0, 4.0, 1e-30]), group="moregrad_grad"))
    add(C("broadcast_to", T("float32", (3,), FPOOL_NICE), [2, 2, 3], group="moregrad_grad"))
    add(C("tile", T("float32", (1, 3), FPOOL_NICE), [2, 2], group="moregrad_grad"))
    add(C("repeat", T("float32", (2, 2), FPOOL_NICE), [1, 3], axis=1, group="moregrad_grad"))
    add(C("stack", [T("float32", (2,), FPOOL_NICE), T("float32", (2,), FPOOL_NICE, 3)], axis=1, group="moregrad_grad"))

    # ---- Python operators -----------------------------------------------------------------------------
    for name in ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "lt", "le", "gt", "ge", "eq", "ne",
                 "and_", "or_", "xor"]:
        for dt in ["float32", "int32", "int64", "float16", "bool", "uint8", "float64", "complex64", "string"]:
            add(C(f"operator.{name}", T(dt, (2, 3), default_pool(dt)), T(dt, (3,), default_pool(dt), 4),
                  group="operator"))
        for other in [2, 2.5, -1, True, [1, 2, 3], 0]:
            add(C(f"operator.{name}", T("float32", (2, 3), FPOOL_NICE), other, group="operator"))
            add(C(f"operator.{name}", T("int32", (2, 3), None), other, group="operator"))
            add(C(f"operator.{name}", other, T("int32", (2, 3), None), group="operator"))
            add(C(f"operator.{name}", other, T("float32", (3,), FPOOL_NICE), group="operator"))
        add(C(f"operator.{name}", T("float32", (2, 3), FPOOL_POS), T("float32", (3,), FPOOL_NICE, 3),
              group="operator_grad"))
        add(C(f"operator.{name}", T("int32", (2,), [1, 2]), T("float32", (2,), FPOOL_NICE), group="operator"))
        add(C(f"operator.{name}", T("int8", (2,), [100, -100]), 100, group="operator"))
    for name in ["neg", "abs", "invert", "pos"]:
        for dt in ["float32", "int32", "bool", "uint8", "int8"]:
            add(C(f"operator.{name}", T(dt, (2, 3), default_pool(dt)), group="operator"))
    add(C("operator.matmul", T("float32", (2, 3), FPOOL_NICE), T("float32", (3, 2), FPOOL_NICE), group="operator"))
    x3 = T("float32", (3, 4, 5), FPOOL_NICE)
    for idx in [1, -1, 3, {"slice": [1, None]}, {"slice": [None, None, -1]}, {"slice": [5, 1, -2]},
                {"index": [1, 2]}, {"index": [{"slice": [None]}, None, 1]}, {"index": ["...", 2]},
                {"index": ["...", None]}, {"index": [None, "...", {"slice": [1, 3]}]}, {"index": [-1, -1, -1]},
                {"index": [{"slice": [1, 100]}, {"slice": [-100, 2]}]}, {"index": [0, {"slice": [3, 1]}]},
                {"index": [T("int32", (), [1]), {"slice": [T("int64", (), [1]), None]}]},
                {"index": ["...", "..."]}, {"index": [1, 2, 3, 4]}, {"index": [{"slice": [None, None, 0]}]},
                T("bool", (3,), [True, False, True]), [0, 2]]:
        add(C("operator.getitem", x3, idx, group="getitem_grad"))
    add(C("operator.getitem", T("int32", (5,)), {"slice": [1, -1, 2]}, group="getitem"))
    add(C("operator.getitem", T("string", (3,)), -1, group="getitem"))
    add(C("operator.getitem", T("float32", ()), None, group="getitem"))

    # ---- tf.constant / convert_to_tensor dtype inference -----------------------------------------------
    for v in [1, 1.5, True, "s", [1, 2], [1.0, 2], [1, 2.5], [True, False], 2 ** 31, -(2 ** 31) - 1, 2 ** 63,
              [1, 2 ** 40], [[1], [2, 3]], [], [[]], 1e39, [{"complex": [1, 2]}], ["a", "b"], [1, "a"], None]:
        add(C("constant_py", v, group="constant"))
    for v, dt in [(1.7, "int32"), (-1, "uint8"), (300, "int8"), (1e39, "float32"), (2.5, "bool"), ([1, 2], "float16"),
                  (1, "string"), ("1", "int32"), ({"complex": [1, 2]}, "float32"), (65520.0, "float16"), (True, "int32"),
                  (3, "complex64"), ([1.5], "int64")]:
        add(C("constant_py", v, dtype=dt, group="constant"))
    for v in [1, 2.5, [1, 2], [[1.0], [2.0]], True, 2 ** 40]:
        add(C("convert_to_tensor", v, group="constant"))
        add(C("convert_to_tensor", v, dtype_hint="float32", group="constant"))
        add(C("convert_to_tensor", v, dtype="int64", group="constant"))
    return cases


# ---------------------------------------------------------------------------------------------------------
# Running a case (shared by both sides: ``tf`` is TensorFlow in the worker, rivulet here)
# ---------------------------------------------------------------------------------------------------------

def _fval(v):
    if isinstance(v, str):
        return float(v)
    return v


def _values(dtype, shape, pool, off):
    n = int(np.prod(shape)) if shape else 1
    pool = pool if pool is not None else default_pool(dtype)
    vals = [pool[(off + i) % len(pool)] for i in range(n)]
    return vals


def _np_array(dtype, shape, pool, off):
    vals = _values(dtype, shape, pool, off)
    if dtype == "string":
        arr = np.array([v.encode("utf-8") if isinstance(v, str) else v for v in vals], dtype=object)
    elif dtype in COMPLEX:
        arr = np.array([complex(_fval(v[0]), _fval(v[1])) if isinstance(v, list) else complex(_fval(v))
                        for v in vals], dtype=dtype)
    elif dtype == "bool":
        arr = np.array([bool(v) for v in vals], dtype=bool)
    elif dtype in FLOATS or dtype == "bfloat16":
        arr = np.array([_fval(v) for v in vals], dtype=np.float64)
    else:
        info = np.iinfo(dtype)
        arr = np.array([int(min(max(int(_fval(v)), info.min), info.max)) for v in vals], dtype=dtype)
    return arr.reshape(shape)


class Skip(Exception):
    pass


def _make(tf, spec):
    """Build the arguments: tensors from their specs, composites, lists, dtype names."""
    if isinstance(spec, dict) and "T" in spec:
        dtype = spec["T"]
        dt = getattr(tf, dtype, None)
        if dt is None:
            raise Skip(f"no dtype {dtype}")
        arr = _np_array(dtype, spec["shape"], spec["pool"], spec["off"])
        if dtype == "string":
            return tf.constant(arr.tolist() if arr.ndim else arr.item(), dtype=tf.string) if arr.size else \
                tf.zeros(arr.shape, tf.string)
        if dtype in FLOATS or dtype == "bfloat16":
            return tf.cast(tf.constant(arr, dtype=tf.float64), dt)
        return tf.constant(arr, dtype=dt)
    if isinstance(spec, dict) and "Sparse" in spec:
        ind, vals, shape = spec["Sparse"]
        return tf.sparse.SparseTensor(tf.constant(ind, tf.int64), _make(tf, vals), tf.constant(shape, tf.int64))
    if isinstance(spec, dict) and "Ragged" in spec:
        vals, splits = spec["Ragged"]
        return tf.RaggedTensor.from_row_splits(_make(tf, vals), tf.constant(splits, tf.int64))
    if isinstance(spec, dict) and "slice" in spec:
        return slice(*spec["slice"])
    if isinstance(spec, dict) and "index" in spec:  # a tuple of indices (slices, None, Ellipsis, ints)
        return tuple(Ellipsis if i == "..." else _make(tf, i) for i in spec["index"])
    if isinstance(spec, dict) and "complex" in spec:
        return complex(*spec["complex"])
    if isinstance(spec, dict) and "tuple" in spec:
        return tuple(_make(tf, i) for i in spec["tuple"])
    if isinstance(spec, list):
        return [_make(tf, s) for s in spec]
    return spec


_DTYPE_KW = {"dtype", "out_type", "output_type", "dtype_hint"}


def _resolve(tf, path):
    if path.startswith("operator."):  # Python's operators on tensors (x + y, x[1:, None] ...)
        import operator
        return getattr(operator, path.split(".", 1)[1])
    if path == "constant_py":  # tf.constant of a Python value, dtype inferred
        return lambda v, **kw: tf.constant(v, **kw)
    obj = tf
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _tensors_in(tf, obj, out):
    if isinstance(obj, (list, tuple)):
        for o in obj:
            _tensors_in(tf, o, out)
    elif isinstance(obj, tf.Tensor):
        out.append(obj)
    return out


def _replace(tf, obj, it):
    if isinstance(obj, list):
        return [_replace(tf, o, it) for o in obj]
    if isinstance(obj, tuple):
        return tuple(_replace(tf, o, it) for o in obj)
    if isinstance(obj, tf.Tensor):
        return next(it)
    return obj


def encode(tf, out):
    """Outputs as JSON: a list of leaves, each {dtype, shape, v} (or composites by their parts)."""
    if out is None:
        return None
    if isinstance(out, (list, tuple)):
        return [encode(tf, o) for o in out]
    if isinstance(out, tf.RaggedTensor):
        return {"ragged": [encode(tf, out.flat_values)] + [encode(tf, s) for s in out.nested_row_splits]}
    if isinstance(out, tf.sparse.SparseTensor):
        return {"sparse": [encode(tf, out.indices), encode(tf, out.values), encode(tf, out.dense_shape)]}
    if hasattr(out, "indices") and hasattr(out, "values") and hasattr(out, "dense_shape"):  # IndexedSlices
        return encode(tf, tf.convert_to_tensor(out))
    if isinstance(out, tf.TensorShape):
        return {"tshape": out.as_list() if out.rank is not None else None}
    if not isinstance(out, tf.Tensor):
        if isinstance(out, (int, float, bool, str, bytes)):
            return {"py": repr(out)}
        return {"py": type(out).__name__}
    arr = out.numpy()
    dtype = out.dtype.name
    shape = list(arr.shape)
    if dtype == "string":
        v = [b.hex() for b in np.asarray(arr, dtype=object).reshape(-1).tolist()]
    elif dtype.startswith("complex"):
        a = np.asarray(arr).reshape(-1)
        v = [a.real.astype(np.float64).tolist(), a.imag.astype(np.float64).tolist()]
    elif dtype in FLOATS or dtype == "bfloat16":
        v = np.asarray(arr).astype(np.float64).reshape(-1).tolist()
    elif dtype == "bool":
        v = np.asarray(arr).reshape(-1).astype(bool).tolist()
    else:
        v = np.asarray(arr).reshape(-1).tolist()
    return {"dtype": dtype, "shape": shape, "v": v}


def _is_float_out(tf, out):
    leaves = _tensors_in(tf, out if isinstance(out, (list, tuple)) else [out], [])
    return bool(leaves) and all(t.dtype.is_floating or t.dtype.is_complex for t in leaves)


def run_case(tf, case, modes):
    res = {}
    try:
        args = _make(tf, case["args"])
        kwargs = {k: (getattr(tf, v) if k in _DTYPE_KW and isinstance(v, str) else _make(tf, v))
                  for k, v in case["kwargs"].items()}
        fn = _resolve(tf, case["fn"])
    except Skip as e:
        return {"skip": str(e)}
    except AttributeError as e:
        return {"skip": f"missing: {e}"}
    except Exception as e:  # noqa: BLE001 - building the inputs failed
        return {"skip": f"build {type(e).__name__}: {e}"}
    tensors = _tensors_in(tf, args, [])
    kw_keys = [k for k, v in kwargs.items() if isinstance(v, tf.Tensor)]
    kw_tensors = [kwargs[k] for k in kw_keys]
    flat = tensors + kw_tensors

    def call(*ts):
        it = iter(ts[:len(tensors)])
        a = _replace(tf, args, it)
        kw = dict(kwargs)
        for k, t in zip(kw_keys, ts[len(tensors):]):
            kw[k] = t
        return fn(*a, **kw)

    eager_out = None
    if "eager" in modes:
        try:
            eager_out = call(*flat)
            res["eager"] = {"ok": encode(tf, eager_out)}
        except Exception as e:  # noqa: BLE001
            res["eager"] = {"err": type(e).__name__, "msg": str(e)[:300]}
        if "repr" in modes and isinstance(eager_out, tf.Tensor):  # the printed form, as print() shows it
            res["repr"] = {"ok": {"py": repr(eager_out) + "\n" + str(eager_out)}}
    if "graph" in modes:
        try:
            out = tf.function(call)(*flat)
            res["graph"] = {"ok": encode(tf, out)}
        except Exception as e:  # noqa: BLE001
            res["graph"] = {"err": type(e).__name__, "msg": str(e)[:300]}
    if "dyn" in modes and flat:
        # traced with every dimension unknown (rank known): the values, and the static shapes the graph gave
        sig = [tf.TensorSpec([None] * t.shape.rank, t.dtype) for t in flat]
        static = []

        def dyn_call(*ts):
            out = call(*ts)
            static.extend(None if not isinstance(t, tf.Tensor) else
                          (t.shape.as_list() if t.shape.rank is not None else "?")
                          for t in (out if isinstance(out, (list, tuple)) else [out]))
            return out
        try:
            out = tf.function(dyn_call, input_signature=sig)(*flat)
            res["dyn"] = {"ok": [encode(tf, out), {"py": repr(static)}]}
        except Exception as e:  # noqa: BLE001
            res["dyn"] = {"err": type(e).__name__, "msg": str(e)[:300]}
    wrt = [i for i, t in enumerate(flat) if t.dtype.is_floating or t.dtype.is_complex]
    can_grad = (wrt and eager_out is not None and not isinstance(eager_out, (tf.RaggedTensor, tf.sparse.SparseTensor))
                and _is_float_out(tf, eager_out) and case["group"].endswith("_grad"))
    if can_grad:
        def grads(*ts):
            with tf.GradientTape() as tape:
                for i in wrt:
                    tape.watch(ts[i])
                y = call(*ts)
            return tape.gradient(y, [ts[i] for i in wrt])
        if "grad" in modes:
            try:
                res["grad"] = {"ok": encode(tf, grads(*flat))}
            except Exception as e:  # noqa: BLE001
                res["grad"] = {"err": type(e).__name__, "msg": str(e)[:300]}
        if "ggrad" in modes:
            try:
                res["ggrad"] = {"ok": encode(tf, tf.function(grads)(*flat))}
            except Exception as e:  # noqa: BLE001
                res["ggrad"] = {"err": type(e).__name__, "msg": str(e)[:300]}
    return res


def worker(cases_path, out_path, start):
    """The TensorFlow side: one JSON line per case, flushed, so an abort loses one case only."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf  # noqa: F401 - only in TensorFlow's venv, never in rivulet
    tf.get_logger().setLevel("ERROR")
    with open(cases_path) as f:
        payload = json.load(f)
    cases, modes = payload["cases"], payload["modes"]
    with open(out_path, "a") as out:
        for i in range(start, len(cases)):
            out.write(json.dumps({"i": i, "started": True}) + "\n")
            out.flush()
            r = run_case(tf, cases[i], modes)
            out.write(json.dumps({"i": i, "r": r}) + "\n")
            out.flush()


def run_tf(tf_python, cases, modes):
    with tempfile.TemporaryDirectory() as d:
        cpath = os.path.join(d, "cases.json")
        opath = os.path.join(d, "out.jsonl")
        with open(cpath, "w") as f:
            json.dump({"cases": cases, "modes": modes}, f)
        results = {}
        start = 0
        while start < len(cases):
            subprocess.run([tf_python, os.path.abspath(__file__), "--worker", cpath, opath, str(start)],
                           check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            last_started = start - 1
            with open(opath) as f:
                for line in f:
                    rec = json.loads(line)
                    if "r" in rec:
                        results[rec["i"]] = rec["r"]
                    last_started = max(last_started, rec["i"])
            if last_started < start:
                break
            if last_started in results:
                start = last_started + 1
            else:
                results[last_started] = {"crash": True}
                start = last_started + 1
        return results


# ---------------------------------------------------------------------------------------------------------
# Comparison
# ---------------------------------------------------------------------------------------------------------

_EPS = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "float32": 2.0 ** -23, "float64": 2.0 ** -52,
        "complex64": 2.0 ** -23, "complex128": 2.0 ** -52}
_TINY = {"float16": 6e-5, "bfloat16": 1e-30, "float32": 1e-30, "float64": 1e-300,
         "complex64": 1e-30, "complex128": 1e-300}


def _cmp_float(a, b, dtype, ulps, signed_zeros):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    na, nb = np.isnan(a), np.isnan(b)
    if not np.array_equal(na, nb):
        return f"nan positions differ: tf {_short(a)} vs rivulet {_short(b)}"
    m = ~na
    a, b = a[m], b[m]
    ia, ib = np.isinf(a), np.isinf(b)
    if not np.array_equal(ia, ib) or not np.array_equal(a[ia], b[ib]):
        return f"inf differ: tf {_short(a)} vs rivulet {_short(b)}"
    a, b = a[~ia], b[~ib]
    scale = np.maximum(np.maximum(np.abs(a), np.abs(b)), _TINY[dtype] * 1e3 if dtype == "float16" else 1e-6)
    tol = ulps * _EPS[dtype] * scale
    bad = np.abs(a - b) > tol
    if bad.any():
        k = int(np.argmax(bad))
        return f"values differ (e.g. tf {a[k]!r} vs rivulet {b[k]!r}): tf {_short(a)} vs rivulet {_short(b)}"
    if signed_zeros:
        z = (a == 0) & (np.signbit(a) != np.signbit(b))
        if z.any():
            return "sign of zero differs"
    return None


def _short(a, n=8):
    a = list(a)[:n] if isinstance(a, list) else np.asarray(a).reshape(-1)[:n].tolist()
    return "[" + ", ".join(repr(x) for x in a) + "]"


def compare(t, r, ulps, signed_zeros, path="out"):
    """None when equal, else a description of the first difference."""
    if t is None or r is None:
        if t is None and r is None:
            return None
        return f"{path}: tf {'None' if t is None else 'value'} vs rivulet {'None' if r is None else 'value'}"
    if isinstance(t, list) or isinstance(r, list):
        if not (isinstance(t, list) and isinstance(r, list)):
            return f"{path}: structure differs"
        if len(t) != len(r):
            return f"{path}: {len(t)} outputs vs {len(r)}"
        for i, (x, y) in enumerate(zip(t, r)):
            d = compare(x, y, ulps, signed_zeros, f"{path}[{i}]")
            if d:
                return d
        return None
    for key in ("ragged", "sparse"):
        if key in t or key in r:
            if key not in t or key not in r:
                return f"{path}: tf {list(t)[0]} vs rivulet {list(r)[0]}"
            return compare(t[key], r[key], ulps, signed_zeros, f"{path}.{key}")
    if "py" in t or "py" in r or "tshape" in t or "tshape" in r:
        return None if t == r else f"{path}: tf {t} vs rivulet {r}"
    if t["dtype"] != r["dtype"]:
        return f"{path}: dtype tf {t['dtype']} vs rivulet {r['dtype']}"
    if t["shape"] != r["shape"]:
        return f"{path}: shape tf {t['shape']} vs rivulet {r['shape']}"
    dt = t["dtype"]
    if dt in _EPS:
        if dt.startswith("complex"):
            d = _cmp_float(t["v"][0], r["v"][0], dt, ulps, signed_zeros) or \
                _cmp_float(t["v"][1], r["v"][1], dt, ulps, signed_zeros)
        else:
            d = _cmp_float(t["v"], r["v"], dt, ulps, signed_zeros)
        return f"{path} ({dt}): {d}" if d else None
    if t["v"] != r["v"]:
        if dt == "string":
            tv = [bytes.fromhex(x) for x in t["v"]][:6]
            rv = [bytes.fromhex(x) for x in r["v"]][:6]
            return f"{path} (string): tf {tv} vs rivulet {rv}"
        return f"{path} ({dt}): tf {t['v'][:8]} vs rivulet {r['v'][:8]}"
    return None


def describe(case):
    def d(a):
        if isinstance(a, dict) and "T" in a:
            return f"{a['T']}{tuple(a['shape'])}" + (f"<{_short(_values(a['T'], a['shape'], a['pool'], a['off']), 4)}>"
                                                      if a["pool"] is not None and a['T'] != "string" else "")
        if isinstance(a, dict):
            return next(iter(a))
        if isinstance(a, list):
            return "[" + ", ".join(d(x) for x in a) + "]"
        return repr(a)
    parts = [d(a) for a in case["args"]] + [f"{k}={d(v)}" for k, v in case["kwargs"].items()]
    return f"{case['fn']}({', '.join(parts)})"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tf", default="/tmp/tfvenv/bin/python")
    p.add_argument("--only", default=None, help="substring of the op path")
    p.add_argument("--group", default=None, help="comma-separated case groups")
    p.add_argument("--modes", default="eager,graph,grad,ggrad,dyn")
    p.add_argument("--ulps", type=float, default=8.0)
    p.add_argument("--signed-zeros", action="store_true")
    p.add_argument("--verbose", action="store_true")
    p.add_argument("--json", default=None, help="write the mismatches here")
    p.add_argument("--limit", type=int, default=None)
    a = p.parse_args(argv)
    modes = a.modes.split(",")
    cases = build_cases()
    if a.only:
        keys = a.only.split(",")
        cases = [c for c in cases if any(k in c["fn"] for k in keys)]
    if a.group:
        gs = set(a.group.split(","))
        cases = [c for c in cases if c["group"] in gs or c["group"].replace("_grad", "") in gs]
    if a.limit:
        cases = cases[:a.limit]
    t0 = time.time()
    tf_res = run_tf(a.tf, cases, modes)
    t1 = time.time()
    sys.path.insert(0, os.path.join(ROOT, "src"))
    import rivulet  # noqa: E402
    mism, missing, stats = [], {}, {"cases": len(cases), "skipped": 0, "compared": 0, "tf_crash": 0}
    for i, case in enumerate(cases):
        t = tf_res.get(i, {"crash": True})
        if "crash" in t:
            stats["tf_crash"] += 1
            continue
        if "skip" in t:
            stats["skipped"] += 1
            if a.verbose:
                print(f"[skip] {describe(case)}: {t['skip'][:160]}")
            continue
        r = run_case(rivulet, case, modes)
        if "skip" in r:
            if r["skip"].startswith("no dtype"):
                stats["skipped"] += 1
            else:
                missing.setdefault(case["fn"], r["skip"])
            continue
        for mode in modes:
            if mode not in t and mode not in r:
                continue
            stats["compared"] += 1
            tm, rm = t.get(mode), r.get(mode)
            if tm is None or rm is None:
                if tm is not None and "err" not in tm:
                    mism.append((case, mode, f"tf computed it, rivulet did not run this mode (eager: {r.get('eager')})"))
                continue
            if "err" in tm:
                if "err" not in rm:
                    mism.append((case, mode, f"tf raised {tm['err']}: {tm['msg'][:160]!r}; rivulet returned a value"))
                elif tm["err"] != rm["err"]:
                    mism.append((case, mode, f"error class: tf {tm['err']} vs rivulet {rm['err']} "
                                             f"({tm['msg'][:120]!r} / {rm['msg'][:120]!r})"))
                continue
            if "err" in rm:
                mism.append((case, mode, f"rivulet raised {rm['err']}: {rm['msg'][:200]!r}"))
                continue
            if mode == "repr" and t.get("eager") != r.get("eager"):
                continue  # printed forms are compared where the values are bit-identical
            d = compare(tm["ok"], rm["ok"], a.ulps, a.signed_zeros)
            if d:
                mism.append((case, mode, d))
    for case, mode, d in mism:
        print(f"[{mode}] {describe(case)}\n    {d}")
    for fn, why in sorted(missing.items()):
        print(f"[missing in rivulet] {fn}: {why[:120]}")
    print(f"\n{stats['cases']} cases, {stats['compared']} comparisons, {len(mism)} mismatches, {len(missing)} ops missing in rivulet, "
          f"{stats['skipped']} skipped (TF could not build it, or a dtype rivulet lacks), {stats['tf_crash']} TF crashes; "
          f"TF {t1 - t0:.0f}s, rivulet {time.time() - t1:.0f}s")
    if a.json:
        with open(a.json, "w") as f:
            json.dump([{"case": c, "mode": m, "diff": d} for c, m, d in mism], f, indent=1)
    return 1 if mism else 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        sys.exit(main())
