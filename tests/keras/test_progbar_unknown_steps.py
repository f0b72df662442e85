"""evaluate/fit on a dataset of unknown cardinality: the progress bar, drawn 'N/Unknown' while running, ends
as 'N/N [====]' with the batches seen, as tf_keras's ProgbarLogger finalizes it (it printed
'0/Unknown - 0s 0us/step' for evaluate: audio/music_generation's evaluate cells)."""
import rivulet as tf


def test_bar_of_unknown_steps_ends_with_the_batches_seen(capsys):
    ds = tf.data.Dataset.range(10).filter(lambda x: x >= 0).map(
        lambda x: (tf.cast([x], tf.float32), tf.cast([x], tf.float32))).batch(3)
    assert int(ds.cardinality()) == -2  # unknown
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(1,))])
    model.compile("sgd", "mse")
    model.evaluate(ds)
    last = capsys.readouterr().out.replace("\r", "\n").strip().splitlines()[-1]
    assert last.startswith("4/4 [==============================] - ") and "Unknown" not in last
    model.fit(ds, epochs=1)
    last = capsys.readouterr().out.replace("\r", "\n").strip().splitlines()[-1]
    assert last.startswith("4/4 [==============================] - ")
