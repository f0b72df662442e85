"""tf.io: TFRecord files, tf.train.Example and SequenceExample parsing, tensor serialization (and TensorProtos,
tensor_util.py), base64, files (read_file, write_file), raw bytes and CSV records (decode_raw, decode_csv), the image
codecs (decode_jpeg/png/gif/bmp/image, encode_jpeg/png)."""
from .parsing import (FixedLenFeature, RaggedFeature, SparseTensorValue, VarLenFeature,  # noqa: F401
                      parse_example, parse_single_example)
from .sequence_example import (FixedLenSequenceFeature, parse_sequence_example,  # noqa: F401
                               parse_single_sequence_example)
from ..ops.serialize_ops import parse_tensor, serialize_tensor  # noqa: F401
from ..formats.tfrecord import TFRecordOptions, TFRecordWriter, tf_record_iterator  # noqa: F401
from ..ops.codec_ops import (decode_and_crop_jpeg, decode_bmp, decode_csv, decode_gif, decode_image,  # noqa: F401
                             decode_jpeg, decode_png, decode_raw, encode_jpeg, encode_png, extract_jpeg_shape,
                             is_jpeg, read_file, write_file)
from .base64_ops import decode_base64, encode_base64  # noqa: F401,E402
from . import gfile  # noqa: F401,E402
