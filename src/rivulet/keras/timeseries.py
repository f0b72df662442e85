"""tf.keras.utils.timeseries_dataset_from_array: sliding windows over an array, optionally with targets, as
tf_keras builds them (start positions shuffled with RandomState(seed), then shuffled locally and batched)."""
import numpy as np


def timeseries_dataset_from_array(data, targets, sequence_length, sequence_stride=1, sampling_rate=1,
                                  batch_size=128, shuffle=False, seed=None, start_index=None, end_index=None):
    """Window i holds data[start + p_i + k * sampling_rate] for k < sequence_length, with p_i = i *
    sequence_stride; its target is targets[start + p_i]."""
    import rivulet as tf
    n = len(data)
    if start_index:
        if start_index < 0:
            raise ValueError(f"`start_index` must be 0 or greater. Received: start_index={start_index}")
        if start_index >= n:
            raise ValueError(f"`start_index` must be lower than the length of the data. Received: "
                             f"start_index={start_index}, for data of length {n}")
    if end_index:
        if start_index and end_index <= start_index:
            raise ValueError(f"`end_index` must be higher than `start_index`. Received: start_index={start_index}, "
                             f"and end_index={end_index} ")
        if end_index >= n:
            raise ValueError(f"`end_index` must be lower than the length of the data. Received: "
                             f"end_index={end_index}, for data of length {n}")
        if end_index <= 0:
            raise ValueError(f"`end_index` must be higher than 0. Received: end_index={end_index}")
    if sampling_rate <= 0:
        raise ValueError(f"`sampling_rate` must be higher than 0. Received: sampling_rate={sampling_rate}")
    if sampling_rate >= n:
        raise ValueError(f"`sampling_rate` must be lower than the length of the data. Received: "
                         f"sampling_rate={sampling_rate}, for data of length {n}")
    if sequence_stride <= 0:
        raise ValueError(f"`sequence_stride` must be higher than 0. Received: sequence_stride={sequence_stride}")
    if sequence_stride >= n:
        raise ValueError(f"`sequence_stride` must be lower than the length of the data. Received: "
                         f"sequence_stride={sequence_stride}, for data of length {n}")
    start_index = start_index or 0
    end_index = end_index or n

    num_seqs = end_index - start_index - (sequence_length - 1) * sampling_rate
    if targets is not None:
        num_seqs = min(num_seqs, len(targets))
    index_dtype = "int32" if num_seqs < 2147483647 else "int64"
    start_positions = np.arange(0, max(num_seqs, 0), sequence_stride, dtype=index_dtype)
    if shuffle:
        if seed is None:
            seed = np.random.randint(1e6)
        np.random.RandomState(seed).shuffle(start_positions)

    steps = tf.constant(np.asarray(data)[start_index:end_index])
    span = sequence_length * sampling_rate
    positions = tf.data.Dataset.from_tensor_slices(start_positions)
    dataset = positions.map(lambda p: tf.gather(steps, tf.range(p, p + span, sampling_rate)))
    if targets is not None:
        target_steps = tf.constant(np.asarray(targets)[start_index:end_index])
        dataset = tf.data.Dataset.zip((dataset, positions.map(lambda p: tf.gather(target_steps, p))))
    if batch_size is not None:
        if shuffle:
            dataset = dataset.shuffle(buffer_size=batch_size * 8, seed=seed)
        dataset = dataset.batch(batch_size)
    elif shuffle:
        dataset = dataset.shuffle(buffer_size=1024, seed=seed)
    return dataset.prefetch(tf.data.AUTOTUNE)
