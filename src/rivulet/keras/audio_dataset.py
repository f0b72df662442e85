"""tf.keras.utils.audio_dataset_from_directory: (audio, label) batches from `directory/<class>/*.wav`, decoded by
tf.audio.decode_wav while the dataset is iterated; clips of different lengths are zero-padded per batch."""
import numpy as np

from . import dataset_utils

ALLOWED_FORMATS = (".wav",)


def _to_dataset(paths, labels, label_mode, num_classes, output_sequence_length):
    import rivulet as tf
    samples = -1 if output_sequence_length is None else output_sequence_length
    ds = tf.data.Dataset.from_tensor_slices(paths).map(
        lambda p: tf.audio.decode_wav(tf.io.read_file(p), desired_samples=samples)[0])
    if label_mode:
        ds = tf.data.Dataset.zip((ds, dataset_utils.labels_to_dataset(labels, label_mode, num_classes)))
    return ds


def _prepare(dataset, batch_size, shuffle, seed, class_names, output_sequence_length, labelled):
    import rivulet as tf
    dataset = dataset.prefetch(tf.data.AUTOTUNE)
    if batch_size is not None:
        if shuffle:
            dataset = dataset.shuffle(buffer_size=batch_size * 8, seed=seed)
        if output_sequence_length is None:
            dataset = dataset.padded_batch(batch_size, padded_shapes=([None, None], []) if labelled else [None, None])
        else:
            dataset = dataset.batch(batch_size)
    elif shuffle:
        dataset = dataset.shuffle(buffer_size=1024, seed=seed)
    dataset.class_names = class_names
    return dataset


def audio_dataset_from_directory(directory, labels="inferred", label_mode="int", class_names=None, batch_size=32,
                                 sampling_rate=None, output_sequence_length=None, ragged=False, shuffle=True,
                                 seed=None, validation_split=None, subset=None, follow_links=False):
    """A tf.data.Dataset of (audio, label) batches, audio float32 (batch, samples, channels); with subset='both',
    a (training, validation) tuple. `.class_names` lists the classes."""
    dataset_utils.check_labels_args(labels, label_mode, class_names, "audio")
    if ragged and output_sequence_length is not None:
        raise ValueError("Cannot set both `ragged` and `output_sequence_length`")
    if ragged:
        raise NotImplementedError("audio_dataset_from_directory(ragged=True): rivulet's tf.data does not carry "
                                  "RaggedTensors yet; leave ragged=False to get zero-padded batches.")
    if sampling_rate is not None:
        if not isinstance(sampling_rate, int):
            raise ValueError(f"`sampling_rate` should have an integer value. Received: sampling_rate={sampling_rate}")
        if sampling_rate <= 0:
            raise ValueError(f"`sampling_rate` should be higher than 0. Received: sampling_rate={sampling_rate}")
        raise ImportError("To use the argument `sampling_rate`, you should install tensorflow_io, which rivulet "
                          "cannot use: resample the files beforehand, or leave sampling_rate=None.")
    if labels is None or label_mode is None:
        labels = label_mode = None
    dataset_utils.check_validation_split_arg(validation_split, subset, shuffle, seed)
    if seed is None:
        seed = np.random.randint(1e6)
    paths, labels, class_names = dataset_utils.index_directory(directory, labels, ALLOWED_FORMATS, class_names,
                                                               shuffle, seed, follow_links)
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError(f'When passing `label_mode="binary"`, there must be exactly 2 class_names. Received: '
                         f"class_names={class_names}")
    out = []
    for sub in (["training", "validation"] if subset == "both" else [subset]):
        sub_paths, sub_labels = dataset_utils.get_training_or_validation_split(paths, labels, validation_split, sub)
        if not sub_paths:
            kind = f"{sub} " if subset == "both" else ""
            raise ValueError(f"No {kind}audio files found in directory {directory}. Allowed format(s): "
                             f"{ALLOWED_FORMATS}")
        ds = _to_dataset(list(sub_paths), sub_labels, label_mode, len(class_names), output_sequence_length)
        out.append(_prepare(ds, batch_size, shuffle and not (subset == "both" and sub == "validation"), seed,
                            class_names, output_sequence_length, bool(label_mode)))
    return tuple(out) if subset == "both" else out[0]
