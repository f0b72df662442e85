"""tf.keras.layers.DenseFeatures: a dict of feature tensors in, the feature columns' dense outputs out.

As tf_keras 2.21's layer: the columns' outputs are flattened to [batch, n] and concatenated in the order of
their names; embedding columns' tables are this layer's trainable weights ('<column>/embedding_weights').
"""
import rivulet as tf
from rivulet.feature_column import columns as fc

from .base import Layer


class DenseFeatures(Layer):
    """Produces a dense tensor from a dict of features, given a list of dense feature columns."""

    def __init__(self, feature_columns, trainable=True, name=None, partitioner=None, **kwargs):
        if isinstance(feature_columns, dict) and "class_name" not in feature_columns:
            raise ValueError("Expected feature_columns to be a FeatureColumn or a list of them, found a dict.")
        super().__init__(name=name, trainable=trainable, **kwargs)
        self._feature_columns = fc.check_dense_columns(feature_columns)
        self._partitioner = partitioner
        self._states = {}
        self._autocast = False  # strings and ids pass through as they are

    def build(self, input_shape=None):
        for column in sorted(self._feature_columns, key=lambda c: c.name):
            for leaf in _with_parents(column):
                if isinstance(leaf, fc.EmbeddingColumn) and leaf not in self._states:
                    self._states[leaf] = leaf.create_state(self)
        self.built = True

    def call(self, features, cols_to_output_tensors=None, training=None):
        if not isinstance(features, dict):
            raise ValueError(f"We expected a dictionary here. Instead we got: {features}")
        if not self.built:
            self.build()
        cache = fc.TransformationCache(self._states)
        # (cols_to_output_tensors gets each column's [batch, n] tensor, as tf_keras fills it)
        return fc.dense_output(self._feature_columns, features, cache, cols_to_output_tensors)

    def compute_output_shape(self, input_shape):
        total = sum(fc.output_width(column) for column in self._feature_columns)
        batch = None
        if isinstance(input_shape, dict) and input_shape:
            first = next(iter(input_shape.values()))
            batch = tf.TensorShape(first)[0] if first is not None else None
        return tf.TensorShape([batch, total])

    def get_config(self):
        config = {"name": self.name, "trainable": self.trainable,
                  "dtype": self.dtype if isinstance(self.dtype, str) else getattr(self.dtype, "name", None)}
        config["feature_columns"] = [fc.serialize_feature_column(c) for c in self._feature_columns]
        config["partitioner"] = None
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        by_name = {}
        config["feature_columns"] = [fc.deserialize_feature_column(c, custom_objects, by_name)
                                     for c in config["feature_columns"]]
        return cls(**config)


def _with_parents(column):
    yield column
    for p in getattr(column, "parents", []):
        if not isinstance(p, str):
            yield from _with_parents(p)
