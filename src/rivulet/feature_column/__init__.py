"""tf.feature_column (deprecated in TensorFlow, still in TF 2.21 and in many programs)."""
from .columns import (bucketized_column, categorical_column_with_hash_bucket,  # noqa: F401
                      categorical_column_with_identity, categorical_column_with_vocabulary_file,
                      categorical_column_with_vocabulary_list, crossed_column, embedding_column, indicator_column,
                      make_parse_example_spec, numeric_column, weighted_categorical_column)

__all__ = ["bucketized_column", "categorical_column_with_hash_bucket", "categorical_column_with_identity",
           "categorical_column_with_vocabulary_file", "categorical_column_with_vocabulary_list", "crossed_column",
           "embedding_column", "indicator_column", "make_parse_example_spec", "numeric_column",
           "weighted_categorical_column"]
