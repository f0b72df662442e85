"""tf.feature_column and tf.keras.layers.DenseFeatures; values recorded from TensorFlow 2.21
(tf.compat.v1.feature_column.input_layer, which computes what tf_keras's DenseFeatures does)."""
import numpy as np
import pytest

import rivulet as tf

fc = tf.feature_column


def _batch():
    return {"Age": tf.constant([0, 2, 4, 7, 1], tf.int64), "Type": tf.constant(["Cat", "Dog", "Cat", "Bird", ""]),
            "Breed1": tf.constant(["Tabby", "Mixed Breed", "Domestic Short Hair", "Tabby", "Siamese"]),
            "PhotoAmt": tf.constant([1.0, 2.0, 0.0, 5.0, 3.0]), "Id": tf.constant([0, 3, -1, 7, 2], tf.int64),
            "Id2": tf.constant([0, 3, 1, 3, 2], tf.int64), "w": tf.constant([0.5, 1.0, 2.0, 3.0, 4.0])}


def dense(columns, features=None):
    return tf.keras.layers.DenseFeatures(columns)(features or _batch()).numpy()


def hot(out):
    """The positions of the non-zero entries of each row."""
    return [np.nonzero(r)[0].tolist() for r in out]


AGE_BUCKETS = fc.bucketized_column(fc.numeric_column("Age"), [1, 3, 5])
TYPE = fc.categorical_column_with_vocabulary_list("Type", ["Cat", "Dog"])


def test_numeric_and_bucketized():
    out = dense(fc.numeric_column("PhotoAmt", normalizer_fn=lambda x: x * 2.0))
    assert out.dtype == np.float32 and out.tolist() == [[2.0], [4.0], [0.0], [10.0], [6.0]]
    assert dense(AGE_BUCKETS).tolist() == [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [0, 1, 0, 0]]
    out = dense(fc.numeric_column("v", shape=(2,)), {"v": tf.constant([[1, 2], [3, 4]])})
    assert out.tolist() == [[1.0, 2.0], [3.0, 4.0]]


def test_vocabulary_list_ignores_empty_strings_and_oov():
    # '' is dropped (zeros), 'Bird' is out of vocabulary: -1 (zeros), an OOV bucket, or default_value
    assert dense(fc.indicator_column(TYPE)).tolist() == [[1, 0], [0, 1], [1, 0], [0, 0], [0, 0]]
    oov = fc.categorical_column_with_vocabulary_list("Type", ["Cat", "Dog"], num_oov_buckets=2)
    assert hot(dense(fc.indicator_column(oov))) == [[0], [1], [0], [2], []]
    default = fc.categorical_column_with_vocabulary_list("Type", ["Cat", "Dog"], default_value=0)
    assert hot(dense(fc.indicator_column(default))) == [[0], [1], [0], [0], []]


def test_hash_bucket_ids_are_tensorflows():
    out = dense(fc.indicator_column(fc.categorical_column_with_hash_bucket("Breed1", 10)))
    assert hot(out) == [[6], [7], [9], [6], [3]]
    out = dense(fc.indicator_column(fc.categorical_column_with_hash_bucket("Id", 10, dtype=tf.int64)))
    assert hot(out) == [[5], [1], [], [8], [9]]  # integers hash their decimal text; -1 is dropped


def test_sparse_inputs():
    st = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], ["Cat", "Dog", "Dog"], [3, 2])
    assert dense(fc.indicator_column(TYPE), {"Type": st}).tolist() == [[1, 1], [0, 0], [0, 1]]
    emb = fc.embedding_column(TYPE, 2, initializer=tf.constant_initializer([[1.0, 2.0], [3.0, 4.0]]))
    assert dense(emb, {"Type": st}).tolist() == [[2, 3], [0, 0], [3, 4]]
    with pytest.raises(ValueError, match="SparseTensor is not supported. key: a"):
        dense(fc.numeric_column("a"), {"a": tf.SparseTensor([[0, 0]], [1.0], [1, 1])})


def test_identity():
    out = dense(fc.indicator_column(fc.categorical_column_with_identity("Id", 8)))
    assert hot(out) == [[0], [3], [], [7], [2]]


def test_crossed_ids_are_tensorflows():
    # the tutorial's cross: bucketized age x animal type ('' drops the row; 'Bird', id -1, is still crossed)
    assert hot(dense(fc.indicator_column(fc.crossed_column([AGE_BUCKETS, TYPE], 10)))) == [[4], [1], [1], [5], []]
    assert hot(dense(fc.indicator_column(fc.crossed_column([AGE_BUCKETS, "Breed1"], 100)))) == \
        [[94], [18], [90], [3], [51]]
    # raw string keys are crossed after the categorical columns (TensorFlow's sparse-then-dense order), and
    # their '' is crossed too
    out = dense(fc.indicator_column(fc.crossed_column(["Type", "Breed1", AGE_BUCKETS], 1000, hash_key=7)))
    assert hot(out) == [[264], [883], [717], [894], [959]]


def test_embedding_combiners_and_weights():
    col = fc.embedding_column(TYPE, 3, initializer=tf.constant_initializer(np.arange(6.0).reshape(2, 3)))
    layer = tf.keras.layers.DenseFeatures(col, name="dense_features")
    assert layer(_batch()).numpy().tolist() == [[0, 1, 2], [3, 4, 5], [0, 1, 2], [0, 0, 0], [0, 0, 0]]
    assert [(v.name, v.shape.as_list()) for v in layer.trainable_weights] == \
        [("dense_features/Type_embedding/embedding_weights:0", [2, 3])]
    init = tf.constant_initializer(np.arange(16.0).reshape(8, 2))
    ident = fc.categorical_column_with_identity("Id", 8)
    for combiner in ("sum", "sqrtn"):
        out = dense(fc.embedding_column(ident, 2, combiner=combiner, initializer=init))
        assert out.tolist() == [[0, 1], [6, 7], [0, 0], [14, 15], [4, 5]]
    weighted = fc.weighted_categorical_column(fc.categorical_column_with_identity("Id2", 8), "w")
    assert dense(fc.indicator_column(weighted)).tolist() == [
        [0.5, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 1, 0, 0, 0, 0], [0, 2, 0, 0, 0, 0, 0, 0], [0, 0, 0, 3, 0, 0, 0, 0],
        [0, 0, 4, 0, 0, 0, 0, 0]]
    assert dense(fc.embedding_column(weighted, 2, initializer=init)).tolist() == \
        [[0, 1], [6, 7], [2, 3], [6, 7], [4, 5]]


def test_columns_in_name_order_names_and_reprs():
    cols = [fc.numeric_column("PhotoAmt"), fc.indicator_column(TYPE), AGE_BUCKETS, fc.numeric_column("Age")]
    assert dense(cols).tolist() == [[0, 1, 0, 0, 0, 1, 1, 0], [2, 0, 1, 0, 0, 2, 0, 1], [4, 0, 0, 1, 0, 0, 1, 0],
                                    [7, 0, 0, 0, 1, 5, 0, 0], [1, 0, 1, 0, 0, 3, 0, 0]]
    assert [c.name for c in cols] == ["PhotoAmt", "Type_indicator", "Age_bucketized", "Age"]
    assert fc.crossed_column([AGE_BUCKETS, TYPE], 10).name == "Age_bucketized_X_Type"
    assert fc.weighted_categorical_column(TYPE, "w").name == "Type_weighted_by_w"
    assert repr(fc.numeric_column("a")) == \
        "NumericColumn(key='a', shape=(1,), default_value=None, dtype=tf.float32, normalizer_fn=None)"
    assert repr(fc.indicator_column(TYPE)) == (
        "IndicatorColumn(categorical_column=VocabularyListCategoricalColumn(key='Type', vocabulary_list=('Cat', "
        "'Dog'), dtype=tf.string, default_value=-1, num_oov_buckets=0))")


def test_make_parse_example_spec():
    spec = fc.make_parse_example_spec([fc.numeric_column("a", shape=(2,), default_value=1.0), TYPE, AGE_BUCKETS,
                                       fc.categorical_column_with_hash_bucket("Id", 10, dtype=tf.int64)])
    assert sorted(spec) == ["Age", "Id", "Type", "a"]
    assert tuple(spec["a"].shape) == (2,) and spec["a"].default_value == (1.0, 1.0)
    assert spec["a"].dtype == tf.float32 and spec["Age"].default_value is None
    assert isinstance(spec["Type"], tf.io.VarLenFeature) and spec["Type"].dtype == tf.string
    assert spec["Id"].dtype == tf.int64


def test_vocabulary_file(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("Cat\nDog\n")
    col = fc.categorical_column_with_vocabulary_file("Type", str(path))
    assert col.vocabulary_size == 2 and col.num_buckets == 2
    assert hot(dense(fc.indicator_column(col))) == [[0], [1], [0], [], []]


def test_bad_columns_and_inputs():
    with pytest.raises(ValueError, match="must be a DenseColumn"):
        tf.keras.layers.DenseFeatures([TYPE])
    with pytest.raises(ValueError, match="not supported for crossing"):
        fc.crossed_column([fc.categorical_column_with_hash_bucket("a", 3), "b"], 10)
    with pytest.raises(ValueError, match="sorted list"):
        fc.bucketized_column(fc.numeric_column("a"), [3, 1])
    with pytest.raises(ValueError, match="expected a dictionary"):
        tf.keras.layers.DenseFeatures(fc.numeric_column("a"))(tf.constant([[1.0]]))
    with pytest.raises(ValueError, match="Feature b is not in features dictionary"):
        dense(fc.numeric_column("b"), {"a": tf.constant([1.0])})
    with pytest.raises(ValueError, match="dtype must be compatible"):
        dense(fc.indicator_column(fc.categorical_column_with_hash_bucket("Id", 10)))


def test_gradients_reach_the_embedding_table_in_tf_function():
    col = fc.embedding_column(TYPE, 2, initializer=tf.constant_initializer(1.0))
    layer = tf.keras.layers.DenseFeatures([col, AGE_BUCKETS])

    @tf.function
    def step(features):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(layer(features))
        return tape.gradient(loss, layer.trainable_weights)[0]

    g = step(_batch())
    assert tf.convert_to_tensor(g).numpy().tolist() == [[2.0, 2.0], [1.0, 1.0]]  # Cat twice, Dog once


def test_config_round_trip():
    cols = [fc.numeric_column("PhotoAmt"), fc.indicator_column(fc.crossed_column([AGE_BUCKETS, TYPE], 10)),
            fc.embedding_column(fc.categorical_column_with_hash_bucket("Breed1", 5), 2, combiner="sqrtn",
                                initializer=tf.constant_initializer(0.5))]
    layer = tf.keras.layers.DenseFeatures(cols, name="feats")
    config = layer.get_config()
    assert config["name"] == "feats" and [c["class_name"] for c in config["feature_columns"]] == \
        ["NumericColumn", "IndicatorColumn", "EmbeddingColumn"]
    again = tf.keras.layers.DenseFeatures.from_config(config)
    assert again._feature_columns[1] == cols[1]
    assert np.array_equal(again(_batch()).numpy(), layer(_batch()).numpy())


def test_fit_on_a_dataset_of_dataframe_columns():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"Type": ["Cat", "Dog"] * 8, "Age": np.arange(16, dtype=np.int64),
                       "target": np.tile([0, 1], 8)})
    labels = df.pop("target")
    ds = tf.data.Dataset.from_tensor_slices((dict(df), labels)).batch(4)
    assert ds.element_spec[0]["Age"].dtype == tf.int64  # a pandas int64 column stays int64, as in TensorFlow
    model = tf.keras.Sequential([tf.keras.layers.DenseFeatures([fc.indicator_column(TYPE), AGE_BUCKETS,
                                                                fc.embedding_column(
                                                                    TYPE, 2, initializer=tf.constant_initializer(0.1))]),
                                 tf.keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss=tf.keras.losses.BinaryCrossentropy(from_logits=True))
    hist = model.fit(ds, epochs=2, verbose=0)
    assert len(hist.history["loss"]) == 2
    table = model.layers[0].weights[0].numpy()
    assert table.shape == (2, 2) and not np.allclose(table, 0.1)  # the embedding was trained


def test_weights_and_saved_model_round_trip(tmp_path):
    def make():
        return tf.keras.Sequential([tf.keras.layers.DenseFeatures([fc.numeric_column("Age"), fc.indicator_column(TYPE),
                                                                   fc.embedding_column(TYPE, 2)]),
                                    tf.keras.layers.Dense(1)])
    model = make()
    x = {"Age": tf.constant([1.0, 2.0]), "Type": tf.constant(["Cat", "x"])}
    y = model(x).numpy()
    model.save_weights(str(tmp_path / "ckpt"))
    other = make()
    other(x)
    other.load_weights(str(tmp_path / "ckpt"))
    assert np.array_equal(other(x).numpy(), y)
    tf.saved_model.save(model, str(tmp_path / "sm"))
    assert np.allclose(tf.saved_model.load(str(tmp_path / "sm"))(x).numpy(), y)


def test_cols_to_output_tensors_holds_each_columns_batch_by_n_tensor():
    # tf_keras's DenseFeatures fills it with the reshaped ([batch, n]) tensor each column adds to the output
    grid = tf.feature_column.numeric_column("g", shape=(2, 2))
    age = tf.feature_column.numeric_column("age")
    layer = tf.keras.layers.DenseFeatures([grid, age])
    per_column = {}
    out = layer({"g": np.arange(8, dtype=np.float32).reshape(2, 2, 2), "age": np.float32([[30.0], [40.0]])},
                cols_to_output_tensors=per_column)
    assert per_column[grid].shape == (2, 4) and per_column[age].shape == (2, 1)
    np.testing.assert_array_equal(out.numpy(), np.concatenate([per_column[age].numpy(), per_column[grid].numpy()], 1))
    np.testing.assert_array_equal(per_column[grid].numpy(), [[0, 1, 2, 3], [4, 5, 6, 7]])
