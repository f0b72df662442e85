"""tf.strings."""
from .ops.string_ops import (join, length, upper, lower, substr, to_number, as_string, reduce_join,  # noqa: F401
                             regex_full_match, regex_replace, split, bytes_split, unicode_split, unicode_decode,
                             ngrams, to_hash_bucket, to_hash_bucket_fast, to_hash_bucket_strong, strip)
from .ops.string_format_ops import format  # noqa: F401,A004  (tf.strings.format)
from .ops.unicode_ops import (unicode_encode, unicode_transcode, unicode_decode_with_offsets,  # noqa: F401,E402
                              unicode_split_with_offsets, unsorted_segment_join, unicode_decode)

TOPLEVEL = []

from .ops import composite as _composite  # noqa: E402
_composite.wrap_namespace(globals(), _composite.STRING_UNARY + _composite.STRING_MORE)  # composite tensors (RaggedTensor) dispatch through its table
