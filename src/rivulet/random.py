"""tf.random."""
import types as _types

from .ops.random_ops import set_seed, uniform, normal, truncated_normal, categorical, shuffle  # noqa: F401
from .ops.random_ops import (stateless_uniform, stateless_normal, stateless_truncated_normal,  # noqa: F401
                             stateless_categorical, Generator, Algorithm, get_global_generator,
                             set_global_generator, stateless_split as _split, stateless_fold_in as _fold_in)

experimental = _types.SimpleNamespace(
    Generator=Generator, Algorithm=Algorithm, get_global_generator=get_global_generator,
    set_global_generator=set_global_generator, stateless_split=_split, stateless_fold_in=_fold_in)

split, fold_in = _split, _fold_in  # tf.random.split / tf.random.fold_in: TensorFlow's names for the two

TOPLEVEL = []
