"""File formats, beneath every subsystem that reads or writes them: the protobuf wire codec (wire.py),
TensorProto encoding (tensor_proto.py), CRC-32C (crc32c.py), TFRecord framing (records.py), TFRecord files
with their GZIP/ZLIB streams (tfrecord.py), the sstable behind a checkpoint's .index (sstable.py), the tensor
bundle of checkpoints and SavedModel variables (bundle.py, with checkpoint_wire.py: the codec whose readers
raise DataLossError) and the TrackableObjectGraph message (object_graph.py). They import only the base layer.

When the hand codec is used and when the protobuf library is:
- The hand codec (no dependency) for every message rivulet writes, and for reading the messages whose schema
  is small and fixed: checkpoints (BundleHeaderProto, BundleEntryProto, TrackableObjectGraph),
  tf.train.Example, TFRecord and event files. These are on the core's path, which needs only NumPy, and the
  hand readers check every length against the bytes there are before allocating.
- The protobuf library (the `tf-interop` extra, with tensorboard's compiled messages) only for TensorFlow's
  saved_model.pb (MetaGraphDef, FunctionDef, SavedObjectGraph), whose schema is large and versioned;
  saved_model/tf_import/ validates what it parses before anything is built from it. The variables next to it
  are read with the hand codec, like any checkpoint.
"""
