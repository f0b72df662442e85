"""rivulet.lite (tf.lite): convert traced functions, Keras models and saved models to TensorFlow Lite
flatbuffers without TensorFlow, and run them in LiteRT.

    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    open("model.tflite", "wb").write(converter.convert())
    runner = tf.lite.Interpreter(model_content=converter.convert()).get_signature_runner()

Converting needs the `tflite` and `flatbuffers` packages, running needs `ai-edge-litert`: the `tflite` extra
(pip install 'rivulet[tflite]') has all three.
"""
from .converter import ConverterError, Optimize, OpsSet, TargetSpec, TFLiteConverter  # noqa: F401
from .interpreter import Interpreter  # noqa: F401
