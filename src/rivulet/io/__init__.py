"""tf.io: TFRecord files, tf.train.Example parsing, tensor serialization."""
from .parsing import (FixedLenFeature, SparseTensorValue, VarLenFeature, parse_example,  # noqa: F401
                      parse_single_example, parse_tensor, serialize_tensor)
from .tfrecord import TFRecordOptions, TFRecordWriter, tf_record_iterator  # noqa: F401
