"""Datasets from directories (one subdirectory per class), text_dataset_from_directory, and split_dataset, as
tf_keras builds them: the same file order, seeded shuffles, validation splits and printed messages. Files are read
lazily, while the dataset is iterated."""
import os
import random
import sys

import numpy as np


def _print(msg):
    sys.stdout.write(msg + "\n")
    sys.stdout.flush()


def _tf():
    import rivulet
    return rivulet


def check_validation_split_arg(validation_split, subset, shuffle, seed):
    if validation_split and not 0 < validation_split < 1:
        raise ValueError(f"`validation_split` must be between 0 and 1, received: {validation_split}")
    if (validation_split or subset) and not (validation_split and subset):
        raise ValueError("If `subset` is set, `validation_split` must be set, and inversely.")
    if subset not in ("training", "validation", "both", None):
        raise ValueError(f'`subset` must be either "training", "validation" or "both", received: {subset}')
    if validation_split and shuffle and seed is None:
        raise ValueError("If using `validation_split` and shuffling the data, you must provide a `seed` argument, "
                         "to make sure that there is no overlap between the training and validation subset.")


def check_labels_args(labels, label_mode, class_names, what):
    if labels not in ("inferred", None):
        if not isinstance(labels, (list, tuple)):
            raise ValueError(
                f"`labels` argument should be a list/tuple of integer labels, of the same size as the number of "
                f"{what} files in the target directory. If you wish to infer the labels from the subdirectory names "
                f'in the target directory, pass `labels="inferred"`. If you wish to get a dataset that only '
                f"contains {what}s (no labels), pass `labels=None`. Received: labels={labels}")
        if class_names:
            raise ValueError(f'You can only pass `class_names` if `labels="inferred"`. Received: labels={labels}, '
                             f"and class_names={class_names}")
    if label_mode not in ("int", "categorical", "binary", None):
        raise ValueError('`label_mode` argument must be one of "int", "categorical", "binary", or None. '
                         f"Received: label_mode={label_mode}")


def _in_a_cycle(top, root):
    """Whether `root` is the same real directory as one of its ancestors below `top` (reached through a link)."""
    real, path = os.path.realpath(root), root
    while len(path) > len(top):
        path = os.path.dirname(path)
        if os.path.realpath(path) == real:
            return True
    return False


def _walk_files(directory, follow_links, formats):
    """(root, fname) of the files with an allowed extension, directories and names in sorted order."""
    found = []
    for root, dirs, files in os.walk(directory, followlinks=follow_links):
        if follow_links and _in_a_cycle(directory, root):  # a link back up the tree would be walked forever
            dirs[:] = []
            continue
        found.extend((root, f) for f in files if f.lower().endswith(formats))
    found.sort(key=lambda rf: (rf[0], rf[1]))
    return found


def index_directory(directory, labels, formats, class_names=None, shuffle=True, seed=None, follow_links=False):
    """Returns (file_paths, labels, class_names). Inferred labels: one class per subdirectory (sorted, or in the
    order of `class_names`); files in sorted order, then shuffled with RandomState(seed)."""
    directory = os.fspath(directory)
    if not os.path.isdir(directory):
        from ..errors import NotFoundError
        raise NotFoundError(None, None, f"Could not find directory {directory}")
    if labels != "inferred":
        subdirs = [""]
        class_names = subdirs
    else:
        subdirs = [d for d in sorted(os.listdir(directory))
                   if os.path.isdir(os.path.join(directory, d)) and not d.startswith(".")]
        if not class_names:
            class_names = subdirs
        elif set(class_names) != set(subdirs):
            raise ValueError("The `class_names` passed did not match the names of the subdirectories of the target "
                             f"directory. Expected: {subdirs}, but received: {class_names}")
    class_indices = {name: i for i, name in enumerate(class_names)}

    filenames, label_list = [], []
    for subdir in subdirs:
        sub = os.path.join(directory, subdir)
        for root, fname in _walk_files(sub, follow_links, formats):
            filenames.append(os.path.join(subdir, os.path.relpath(os.path.join(root, fname), sub)))
            label_list.append(class_indices[subdir])
    if labels not in ("inferred", None):
        if len(labels) != len(filenames):
            raise ValueError("Expected the lengths of `labels` to match the number of files in the target "
                             f"directory. len(labels) is {len(labels)} while we found {len(filenames)} files in "
                             f"directory {directory}.")
        class_names = sorted(set(labels))
    else:  # labels=None too: tf_keras then reports the directory itself as 1 class
        labels = np.array(label_list, dtype="int32")
    _print(f"Found {len(filenames)} files belonging to {len(class_names)} classes.")
    file_paths = [os.path.join(directory, f) for f in filenames]
    if shuffle:  # globally, to erase the per-class order; the same permutation for paths and labels
        if seed is None:
            seed = np.random.randint(1e6)
        np.random.RandomState(seed).shuffle(file_paths)
        np.random.RandomState(seed).shuffle(labels)
    return file_paths, labels, class_names


def get_training_or_validation_split(samples, labels, validation_split, subset):
    """The last `validation_split` of the (shuffled) samples are the validation subset."""
    if not validation_split:
        return samples, labels
    num_val_samples = int(validation_split * len(samples))
    if subset == "training":
        _print(f"Using {len(samples) - num_val_samples} files for training.")
        return samples[:-num_val_samples], labels[:-num_val_samples] if labels is not None else None
    if subset == "validation":
        _print(f"Using {num_val_samples} files for validation.")
        return samples[-num_val_samples:], labels[-num_val_samples:] if labels is not None else None
    raise ValueError(f'`subset` must be either "training" or "validation", received: {subset}')


def labels_to_dataset(labels, label_mode, num_classes):
    tf = _tf()
    # a user's list of labels converts as TensorFlow converts Python ints (int32), inferred ones are int32 already
    label_ds = tf.data.Dataset.from_tensor_slices(labels if isinstance(labels, np.ndarray) else list(labels))
    if label_mode == "binary":
        return label_ds.map(lambda x: tf.expand_dims(tf.cast(x, "float32"), axis=-1))
    if label_mode == "categorical":
        return label_ds.map(lambda x: tf.one_hot(x, num_classes))
    return label_ds


def finish(dataset, batch_size, shuffle, seed, training=True):
    """Local shuffling (training subsets only), batching and prefetching, as tf_keras's loaders end."""
    tf = _tf()
    if batch_size is not None:
        if shuffle and training:
            dataset = dataset.shuffle(buffer_size=batch_size * 8, seed=seed)
        dataset = dataset.batch(batch_size)
    elif shuffle and training:
        dataset = dataset.shuffle(buffer_size=1024, seed=seed)
    return dataset.prefetch(tf.data.AUTOTUNE)


def from_directory(directory, labels, label_mode, class_names, batch_size, shuffle, seed, validation_split, subset,
                   follow_links, formats, what, to_dataset):
    """The shared body of text_/image_dataset_from_directory; `to_dataset(paths, labels, num_classes)` builds the
    unbatched dataset of one subset."""
    if labels is None or label_mode is None:
        labels = label_mode = None
    check_validation_split_arg(validation_split, subset, shuffle, seed)
    if seed is None:
        seed = np.random.randint(1e6)
    paths, labels, class_names = index_directory(directory, labels, formats, class_names, shuffle, seed,
                                                 follow_links)
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError(f'When passing `label_mode="binary"`, there must be exactly 2 class_names. Received: '
                         f"class_names={class_names}")
    allowed = "Allowed format: .txt" if formats == (".txt",) else f"Allowed formats: {formats}"
    subsets = ["training", "validation"] if subset == "both" else [subset]
    out = []
    for sub in subsets:
        sub_paths, sub_labels = get_training_or_validation_split(paths, labels, validation_split, sub)
        if not sub_paths:
            kind = f"{sub} " if subset == "both" else ""
            raise ValueError(f"No {kind}{what} found in directory {directory}. {allowed}")
        ds = to_dataset(list(sub_paths), sub_labels if label_mode else None, label_mode, len(class_names))
        ds = finish(ds, batch_size, shuffle, seed, training=(sub != "validation" or subset != "both"))
        ds.class_names = class_names
        ds.file_paths = list(sub_paths)
        out.append(ds)
    return out if subset == "both" else out[0]


def as_path(path):
    """A path as numpy_function hands it over (a 0-d array of bytes) -> str."""
    if isinstance(path, np.ndarray):
        path = path.item()
    return path.decode("utf-8", "surrogateescape") if isinstance(path, bytes) else str(path)


def _read_text(path, max_length):
    from ..errors import NotFoundError
    path = as_path(path)
    try:
        with open(path, "rb") as f:
            data = f.read() if max_length is None else f.read(max_length)
    except FileNotFoundError:
        raise NotFoundError(None, None, f"{path}; No such file or directory") from None
    return np.array(data, dtype=object)


def text_dataset_from_directory(directory, labels="inferred", label_mode="int", class_names=None, batch_size=32,
                                max_length=None, shuffle=True, seed=None, validation_split=None, subset=None,
                                follow_links=False):
    """A tf.data.Dataset of (text, label) batches from `directory/<class>/*.txt` (a list of two with
    subset='both'); `.class_names` lists the classes."""
    check_labels_args(labels, label_mode, class_names, "text")
    tf = _tf()

    def to_dataset(paths, labels_, label_mode_, num_classes):
        def read(p):
            t = tf.numpy_function(lambda q: _read_text(q, max_length), [p], tf.string)
            t.set_shape(())
            return t

        ds = tf.data.Dataset.from_tensor_slices(paths).map(read)
        if label_mode_:
            ds = tf.data.Dataset.zip((ds, labels_to_dataset(labels_, label_mode_, num_classes)))
        return ds

    return from_directory(directory, labels, label_mode, class_names, batch_size, shuffle, seed, validation_split,
                          subset, follow_links, (".txt",), "text files", to_dataset)


# --- split_dataset ---

def _to_samples(dataset):
    """A dataset, an array or a tuple/list of arrays -> (list of samples, how to rebuild)."""
    tf = _tf()
    if isinstance(dataset, tf.data.Dataset):
        batch = _batch_size(dataset)
        if batch is not None:
            dataset = dataset.unbatch()
        samples = list(dataset.as_numpy_iterator())
        return samples, ("dataset", dataset.element_spec, batch)
    if isinstance(dataset, np.ndarray):
        return list(dataset), ("array", None, None)
    if isinstance(dataset, (list, tuple)):
        arrays = [np.asarray(a) for a in dataset]
        if not arrays or any(a.ndim == 0 for a in arrays):
            raise ValueError("A list/tuple `dataset` must hold arrays with a first dimension.")
        if len({len(a) for a in arrays}) != 1:
            raise ValueError("The lengths of the arrays in `dataset` must be the same; received lengths "
                             f"{[len(a) for a in arrays]}.")
        return list(zip(*arrays)), ("tuple", None, None)
    raise TypeError("The `dataset` argument must be either a `tf.data.Dataset` object or a list/tuple of arrays. "
                    f"Received: dataset={dataset} of type {type(dataset)}")


def _batch_size(dataset):
    """The batch size of a dataset made by .batch() (only that dataset itself: tf_keras looks no further)."""
    from ..data.transforms import BatchDataset
    return dataset._n if isinstance(dataset, BatchDataset) else None


def _rescale_sizes(left_size, right_size, total):
    for name, v in (("left_size", left_size), ("right_size", right_size)):
        if v is not None and type(v) not in (int, float):
            raise TypeError(f"Invalid `{name}` Type. Expected: int or float or None, Received: type({name})="
                            f"{type(v)}.")
    if left_size == 0 and right_size == 0:
        raise ValueError("Both `left_size` and `right_size` are zero. At least one of the split sizes must be "
                         "non-zero.")
    for name, v in (("left_size", left_size), ("right_size", right_size)):
        if (type(v) is int and (v <= 0 or v >= total)) or (type(v) is float and (v <= 0 or v >= 1)):
            raise ValueError(f"`{name}` should be either a positive integer smaller than {total}, or a float "
                             f"within the range `[0, 1]`. Received: {name}={v}")
    if type(left_size) is float and type(right_size) is float and left_size + right_size > 1:
        raise ValueError("The sum of `left_size` and `right_size` is greater than 1. It must be less than or "
                         "equal to 1.")
    left = round(left_size * total) if type(left_size) is float else left_size
    right = round(right_size * total) if type(right_size) is float else right_size
    if left is None:
        left = total - right
    elif right is None:
        right = total - left
    if left + right > total:
        raise ValueError(f"The sum of `left_size` and `right_size` should be smaller than the {total}. Received: "
                         f"left_size + right_size = {left + right}and total_length = {total}")
    for split, side in ((left, "left"), (right, "right")):
        if split == 0:
            raise ValueError(f"With `dataset` of length {total}, `left_size`={left} and `right_size`={right}."
                             f"Resulting {side} side dataset split will be empty. Adjust any of the aforementioned "
                             "parameters")
    return int(left), int(right)


def _rebuild(samples, how):
    tf = _tf()
    kind, spec, _ = how
    if kind == "array":
        return np.array(samples)
    if kind == "tuple":
        return tuple(np.array(column) for column in zip(*samples))
    flat = [tf.nest.flatten(s) for s in samples]
    columns = [np.array(c) for c in zip(*flat)]
    return tf.nest.pack_sequence_as(spec, columns)


def split_dataset(dataset, left_size=None, right_size=None, shuffle=False, seed=None):
    """Splits a dataset or arrays into two tf.data.Datasets of `left_size` and `right_size` samples (ints, or
    fractions of the whole), shuffled first with Python's `random` seeded by `seed` when `shuffle`."""
    tf = _tf()
    if right_size is None and left_size is None:
        raise ValueError("At least one of the `left_size` or `right_size` must be specified. Received: "
                         "left_size=None and right_size=None")
    samples, how = _to_samples(dataset)
    if shuffle:
        if seed is None:
            seed = random.randint(0, int(1e6))
        random.seed(seed)
        random.shuffle(samples)
    left, right = _rescale_sizes(left_size, right_size, len(samples))
    out = []
    for part in (samples[:left], samples[len(samples) - right:]):
        ds = tf.data.Dataset.from_tensor_slices(_rebuild(part, how))
        if how[2] is not None:
            ds = ds.batch(how[2])
        out.append(ds.prefetch(tf.data.AUTOTUNE))
    return tuple(out)
