"""rivulet.lite (tf.lite): convert traced functions, Keras models and saved models to TensorFlow Lite
flatbuffers without TensorFlow, and run them in LiteRT.

    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    open("model.tflite", "wb").write(converter.convert())
    runner = tf.lite.Interpreter(model_content=converter.convert()).get_signature_runner()

Quantisation as TensorFlow's converter does it: `converter.optimizations = [tf.lite.Optimize.DEFAULT]`
(dynamic range), with `target_spec.supported_types = [tf.float16]` (float16) or a `representative_dataset`
(full integer). Converting needs the `tflite` and `flatbuffers` packages, running (and calibrating) needs
`ai-edge-litert`: the `tflite` extra (pip install 'rivulet[tflite]') has all three.
"""
from .converter import (ConverterError, Optimize, OpsSet, RepresentativeDataset, TargetSpec,  # noqa: F401
                        TFLiteConverter)
from .interpreter import Interpreter  # noqa: F401
