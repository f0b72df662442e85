"""tf.keras.preprocessing.image.ImageDataGenerator and its iterators, as tf_keras 2.21 behaves.

Batches are NumPy arrays (images in the generator's dtype, float32 by default; labels one-hot, sparse or
binary in that dtype). Random augmentations draw from NumPy's global generator in tf_keras's order (with
`seed`, reseeded per batch as tf_keras does), so seeded runs give tf_keras's numbers. Rotations, shifts,
shears and zooms are one affine resampling per channel by SciPy's `ndimage.affine_transform` (what tf_keras
uses: `pip install scipy`); flips, channel shifts, rescaling and normalisation need only NumPy, brightness
needs Pillow (the `images` extra), as does reading image files.
"""
import os
import threading
import warnings

import numpy as np

from .. import backend, image_utils

WHITE_LIST_FORMATS = ("png", "jpg", "jpeg", "bmp", "ppm", "tif", "tiff")


def _require_scipy():
    try:
        from scipy import ndimage
    except ImportError:
        raise ImportError("ImageDataGenerator's rotations, shifts, shears and zooms (apply_affine_transform) "
                          "resample with SciPy, which is not installed: pip install scipy") from None
    return ndimage


# -- the transforms ---------------------------------------------------------------------------------------
def transform_matrix_offset_center(matrix, x, y):
    """`matrix` applied about the centre of an x-by-y image instead of its corner."""
    o_x, o_y = float(x) / 2 - 0.5, float(y) / 2 - 0.5
    to_center = np.array([[1, 0, o_x], [0, 1, o_y], [0, 0, 1]])
    back = np.array([[1, 0, -o_x], [0, 1, -o_y], [0, 0, 1]])
    return to_center @ matrix @ back


def apply_affine_transform(x, theta=0, tx=0, ty=0, shear=0, zx=1, zy=1, row_axis=1, col_axis=2, channel_axis=0,
                           fill_mode="nearest", cval=0.0, order=1):
    """Rotates (degrees), shifts, shears (degrees) and zooms one image (3-D array) about its centre; points
    from outside the image are filled per `fill_mode` ('constant', 'nearest', 'reflect', 'wrap')."""
    if len({row_axis, col_axis, channel_axis}) != 3:
        raise ValueError("'row_axis', 'col_axis', and 'channel_axis' must be distinct")
    bad = {row_axis, col_axis, channel_axis} - {0, 1, 2}
    if bad:
        raise ValueError(f"Invalid axis' indices: {bad}")
    x = np.asarray(x)
    if x.ndim != 3:
        raise ValueError("Input arrays must be multi-channel 2D images.")
    if channel_axis not in (0, 2):
        raise ValueError("Channels are allowed and the first and last dimensions.")
    parts = []
    if theta != 0:
        t = np.deg2rad(theta)
        parts.append(np.array([[np.cos(t), -np.sin(t), 0], [np.sin(t), np.cos(t), 0], [0, 0, 1]]))
    if tx != 0 or ty != 0:
        parts.append(np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1]]))
    if shear != 0:
        s = np.deg2rad(shear)
        parts.append(np.array([[1, -np.sin(s), 0], [0, np.cos(s), 0], [0, 0, 1]]))
    if zx != 1 or zy != 1:
        parts.append(np.array([[zx, 0, 0], [0, zy, 0], [0, 0, 1]]))
    if not parts:
        return x
    ndimage = _require_scipy()
    matrix = parts[0]
    for p in parts[1:]:
        matrix = matrix @ p
    matrix = transform_matrix_offset_center(matrix, x.shape[row_axis], x.shape[col_axis])
    if col_axis > row_axis:  # the matrix is in (x, y) order, arrays index (row, column): swap both
        matrix[:, [0, 1]] = matrix[:, [1, 0]]
        matrix[[0, 1]] = matrix[[1, 0]]
    channels = np.moveaxis(x, channel_axis, 0)
    out = np.stack([ndimage.affine_transform(c, matrix[:2, :2], matrix[:2, 2], order=order, mode=fill_mode,
                                             cval=cval) for c in channels], axis=0)
    return np.moveaxis(out, 0, channel_axis)


def apply_channel_shift(x, intensity, channel_axis=0):
    """Adds `intensity` to every channel, clipped to the image's own min and max."""
    x = np.moveaxis(x, channel_axis, 0)
    lo, hi = np.min(x), np.max(x)
    x = np.stack([np.clip(c + intensity, lo, hi) for c in x], axis=0)
    return np.moveaxis(x, 0, channel_axis)


def apply_brightness_shift(x, brightness, scale=True):
    """Pillow's ImageEnhance.Brightness by `brightness` (images outside [0, 255] are scaled there and back)."""
    from ..image_dataset import require_pillow
    require_pillow()
    from PIL import ImageEnhance
    lo, hi = np.min(x), np.max(x)
    local_scale = (lo < 0) or (hi > 255)
    img = image_utils.array_to_img(x, scale=local_scale or scale)
    x = image_utils.img_to_array(ImageEnhance.Brightness(img).enhance(brightness))
    if not scale and local_scale:
        x = x / 255 * (hi - lo) + lo
    return x


def flip_axis(x, axis):
    return np.flip(np.asarray(x), axis).copy()


def random_rotation(x, rg, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest", cval=0.0,
                    interpolation_order=1):
    theta = np.random.uniform(-rg, rg)
    return apply_affine_transform(x, theta=theta, row_axis=row_axis, col_axis=col_axis, channel_axis=channel_axis,
                                  fill_mode=fill_mode, cval=cval, order=interpolation_order)


def random_shift(x, wrg, hrg, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest", cval=0.0,
                 interpolation_order=1):
    h, w = x.shape[row_axis], x.shape[col_axis]
    tx = np.random.uniform(-hrg, hrg) * h
    ty = np.random.uniform(-wrg, wrg) * w
    return apply_affine_transform(x, tx=tx, ty=ty, row_axis=row_axis, col_axis=col_axis,
                                  channel_axis=channel_axis, fill_mode=fill_mode, cval=cval,
                                  order=interpolation_order)


def random_shear(x, intensity, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest", cval=0.0,
                 interpolation_order=1):
    shear = np.random.uniform(-intensity, intensity)
    return apply_affine_transform(x, shear=shear, row_axis=row_axis, col_axis=col_axis, channel_axis=channel_axis,
                                  fill_mode=fill_mode, cval=cval, order=interpolation_order)


def random_zoom(x, zoom_range, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest", cval=0.0,
                interpolation_order=1):
    if len(zoom_range) != 2:
        raise ValueError(f"`zoom_range` should be a tuple or list of two floats. Received: {zoom_range}")
    zx, zy = (1, 1) if zoom_range[0] == 1 and zoom_range[1] == 1 else \
        np.random.uniform(zoom_range[0], zoom_range[1], 2)
    return apply_affine_transform(x, zx=zx, zy=zy, row_axis=row_axis, col_axis=col_axis, channel_axis=channel_axis,
                                  fill_mode=fill_mode, cval=cval, order=interpolation_order)


def random_channel_shift(x, intensity_range, channel_axis=0):
    return apply_channel_shift(x, np.random.uniform(-intensity_range, intensity_range), channel_axis=channel_axis)


def random_brightness(x, brightness_range, scale=True):
    if len(brightness_range) != 2:
        raise ValueError(f"`brightness_range should be tuple or list of two floats. Received: {brightness_range}")
    return apply_brightness_shift(x, np.random.uniform(brightness_range[0], brightness_range[1]), scale)


# -- iterators ---------------------------------------------------------------------------------------------
class Iterator:
    """Endless batches of index arrays (reshuffled each pass when `shuffle`); also indexable like a
    keras.utils.Sequence (`len(it)` batches per epoch, `it[i]`)."""

    white_list_formats = WHITE_LIST_FORMATS

    def __init__(self, n, batch_size, shuffle, seed):
        self.n, self.batch_size, self.seed, self.shuffle = n, batch_size, seed, shuffle
        self.batch_index = 0
        self.total_batches_seen = 0
        self.lock = threading.Lock()
        self.index_array = None
        self.index_generator = self._flow_index()

    def _set_index_array(self):
        self.index_array = np.random.permutation(self.n) if self.shuffle else np.arange(self.n)

    def __getitem__(self, idx):
        if idx >= len(self):
            raise ValueError(f"Asked to retrieve element {idx}, but the Sequence has length {len(self)}")
        if self.seed is not None:
            np.random.seed(self.seed + self.total_batches_seen)
        self.total_batches_seen += 1
        if self.index_array is None:
            self._set_index_array()
        return self._get_batches_of_transformed_samples(
            self.index_array[self.batch_size * idx:self.batch_size * (idx + 1)])

    def __len__(self):
        return (self.n + self.batch_size - 1) // self.batch_size

    def on_epoch_end(self):
        self._set_index_array()

    def reset(self):
        self.batch_index = 0

    def _flow_index(self):
        self.reset()
        while True:
            if self.seed is not None:
                np.random.seed(self.seed + self.total_batches_seen)
            if self.batch_index == 0:
                self._set_index_array()
            start = (self.batch_index * self.batch_size) % self.n if self.n else 0
            self.batch_index = self.batch_index + 1 if self.n > start + self.batch_size else 0
            self.total_batches_seen += 1
            yield self.index_array[start:start + self.batch_size]

    def __iter__(self):
        return self

    def __next__(self):
        return self.next()

    def next(self):
        with self.lock:
            index_array = next(self.index_generator)
        return self._get_batches_of_transformed_samples(index_array)

    def _get_batches_of_transformed_samples(self, index_array):
        raise NotImplementedError


def _image_shape(color_mode, target_size, data_format):
    if color_mode not in ("rgb", "rgba", "grayscale"):
        raise ValueError("Invalid color mode:", color_mode, '; expected "rgb", "rgba", or "grayscale".')
    channels = {"rgba": 4, "rgb": 3, "grayscale": 1}[color_mode]
    return tuple(target_size) + (channels,) if data_format == "channels_last" else (channels,) + tuple(target_size)


def _split(generator, subset):
    if subset is None:
        return None
    if subset == "validation":
        return (0, generator._validation_split)
    if subset == "training":
        return (generator._validation_split, 1)
    raise ValueError(f'Invalid subset name: {subset};expected "training" or "validation"')


def _iter_valid_files(directory, follow_links):
    for root, _, files in sorted(os.walk(directory, followlinks=follow_links), key=lambda w: w[0]):
        for fname in sorted(files):
            if fname.lower().endswith(".tiff"):
                warnings.warn('Using ".tiff" files with multiple bands will cause distortion. Please verify your '
                              'output.')
            if fname.lower().endswith(WHITE_LIST_FORMATS):
                yield root, fname


class DirectoryIterator(Iterator):
    """Batches of images read from `directory/<class>/...` files (what `flow_from_directory` returns)."""

    allowed_class_modes = {"categorical", "binary", "sparse", "input", None}

    def __init__(self, directory, image_data_generator, target_size=(256, 256), color_mode="rgb", classes=None,
                 class_mode="categorical", batch_size=32, shuffle=True, seed=None, data_format=None,
                 save_to_dir=None, save_prefix="", save_format="png", follow_links=False, subset=None,
                 interpolation="nearest", keep_aspect_ratio=False, dtype=None):
        data_format = data_format or "channels_last"
        self.image_data_generator = image_data_generator
        self.target_size = tuple(target_size)
        self.keep_aspect_ratio = keep_aspect_ratio
        self.color_mode = color_mode
        self.data_format = data_format
        self.image_shape = _image_shape(color_mode, self.target_size, data_format)
        self.save_to_dir, self.save_prefix, self.save_format = save_to_dir, save_prefix, save_format
        self.interpolation = interpolation
        self.split = _split(image_data_generator, subset) if image_data_generator is not None else None
        self.subset = subset
        self.directory = os.fspath(directory)
        self.classes_arg = classes
        if class_mode not in self.allowed_class_modes:
            raise ValueError(f"Invalid class_mode: {class_mode}; expected one of \"categorical\", \"binary\", "
                             f"\"sparse\", \"input\" or None.")
        self.class_mode = class_mode
        self.dtype = dtype or backend.floatx()
        if not classes:
            classes = sorted(d for d in os.listdir(self.directory)
                             if os.path.isdir(os.path.join(self.directory, d)))
        self.num_classes = len(classes)
        self.class_indices = dict(zip(classes, range(len(classes))))
        labels, filenames = [], []
        for name in classes:
            sub = os.path.join(self.directory, name)
            files = list(_iter_valid_files(sub, follow_links))
            if self.split:
                start, stop = int(self.split[0] * len(files)), int(self.split[1] * len(files))
                files = files[start:stop]
            for root, fname in files:
                labels.append(self.class_indices[name])
                filenames.append(os.path.join(name, os.path.relpath(os.path.join(root, fname), sub)))
        self.filenames = filenames
        self.samples = len(filenames)
        self.classes = np.array(labels, dtype="int32")
        self._filepaths = [os.path.join(self.directory, f) for f in filenames]
        print(f"Found {self.samples} images belonging to {self.num_classes} classes.")
        self.sample_weight = None
        super().__init__(self.samples, batch_size, shuffle, seed)

    @property
    def filepaths(self):
        return self._filepaths

    @property
    def labels(self):
        return self.classes

    def _get_batches_of_transformed_samples(self, index_array):
        batch_x = np.zeros((len(index_array),) + self.image_shape, dtype=self.dtype)
        for i, j in enumerate(index_array):
            img = image_utils.load_img(self._filepaths[j], color_mode=self.color_mode, target_size=self.target_size,
                                       interpolation=self.interpolation, keep_aspect_ratio=self.keep_aspect_ratio)
            x = image_utils.img_to_array(img, data_format=self.data_format)
            if hasattr(img, "close"):
                img.close()
            gen = self.image_data_generator
            if gen:
                x = gen.standardize(gen.apply_transform(x, gen.get_random_transform(x.shape)))
            batch_x[i] = x
        _save_batch(self, batch_x, index_array)
        if self.class_mode == "input":
            batch_y = batch_x.copy()
        elif self.class_mode in ("binary", "sparse"):
            batch_y = self.classes[index_array].astype(self.dtype)
        elif self.class_mode == "categorical":
            batch_y = np.zeros((len(batch_x), len(self.class_indices)), dtype=self.dtype)
            batch_y[np.arange(len(index_array)), self.classes[index_array]] = 1.0
        else:
            return batch_x
        return batch_x, batch_y


def _save_batch(it, batch_x, index_array):
    if not it.save_to_dir:
        return
    for i, j in enumerate(index_array):
        img = image_utils.array_to_img(batch_x[i], it.data_format, scale=True)
        img.save(os.path.join(it.save_to_dir, f"{it.save_prefix}_{j}_{np.random.randint(1e7)}.{it.save_format}"))


class NumpyArrayIterator(Iterator):
    """Batches from in-memory images `x` (rank 4) and optional labels `y` (what `flow` returns)."""

    def __init__(self, x, y, image_data_generator, batch_size=32, shuffle=False, sample_weight=None, seed=None,
                 data_format=None, save_to_dir=None, save_prefix="", save_format="png", subset=None,
                 ignore_class_split=False, dtype=None):
        self.dtype = dtype or backend.floatx()
        data_format = data_format or "channels_last"
        if isinstance(x, (tuple, list)):
            if not isinstance(x[1], list):
                x_misc = [np.asarray(x[1])]
            else:
                x_misc = [np.asarray(xx) for xx in x[1]]
            x = x[0]
            for xx in x_misc:
                if len(x) != len(xx):
                    raise ValueError("All of the arrays in `x` should have the same length. Found a pair with: "
                                     f"len(x[0]) = {len(x)}, len(x[?]) = {len(xx)}")
        else:
            x_misc = []
        x = np.asarray(getattr(x, "numpy", lambda: x)())
        if y is not None:
            y = np.asarray(getattr(y, "numpy", lambda: y)())
            if len(x) != len(y):
                raise ValueError("`x` (images tensor) and `y` (labels) should have the same length. Found: "
                                 f"x.shape = {x.shape}, y.shape = {y.shape}")
        if sample_weight is not None:
            sample_weight = np.asarray(sample_weight)
            if len(x) != len(sample_weight):
                raise ValueError("`x` (images tensor) and `sample_weight` should have the same length. Found: "
                                 f"x.shape = {x.shape}, sample_weight.shape = {sample_weight.shape}")
        if subset is not None:
            if subset not in ("training", "validation"):
                raise ValueError(f"Invalid subset name: {subset}; expected \"training\" or \"validation\".")
            split_idx = int(len(x) * image_data_generator._validation_split)
            if y is not None and not ignore_class_split and \
                    not np.array_equal(np.unique(y[:split_idx]), np.unique(y[split_idx:])):
                raise ValueError("Training and validation subsets have different number of classes after the "
                                 "split. If your numpy arrays are sorted by the label, you might want to shuffle "
                                 "them.")
            keep = slice(None, split_idx) if subset == "validation" else slice(split_idx, None)
            x = x[keep]
            x_misc = [xx[keep] for xx in x_misc]
            if y is not None:
                y = y[keep]
            if sample_weight is not None:
                sample_weight = sample_weight[keep]
        self.x = np.asarray(x, dtype=self.dtype)
        self.x_misc = x_misc
        if self.x.ndim != 4:
            raise ValueError(f"Input data in `NumpyArrayIterator` should have rank 4. You passed an array with "
                             f"shape {self.x.shape}")
        channels_axis = 3 if data_format == "channels_last" else 1
        if self.x.shape[channels_axis] not in (1, 3, 4):
            warnings.warn(f"NumpyArrayIterator is set to use the data format convention \"{data_format}\" "
                          f"(channels on axis {channels_axis}), i.e. expected either 1, 3, or 4 channels on axis "
                          f"{channels_axis}. However, it was passed an array with shape {self.x.shape} "
                          f"({self.x.shape[channels_axis]} channels).")
        self.y = y
        self.sample_weight = sample_weight
        self.image_data_generator = image_data_generator
        self.data_format = data_format
        self.save_to_dir, self.save_prefix, self.save_format = save_to_dir, save_prefix, save_format
        super().__init__(self.x.shape[0], batch_size, shuffle, seed)

    def _get_batches_of_transformed_samples(self, index_array):
        batch_x = np.zeros((len(index_array),) + self.x.shape[1:], dtype=self.dtype)
        gen = self.image_data_generator
        for i, j in enumerate(index_array):
            x = self.x[j]
            params = gen.get_random_transform(x.shape)
            x = gen.apply_transform(x.astype(self.dtype), params)
            batch_x[i] = gen.standardize(x)
        _save_batch(self, batch_x, index_array)
        batch_x_miscs = [xx[index_array] for xx in self.x_misc]
        output = (batch_x if not batch_x_miscs else [batch_x] + batch_x_miscs,)
        if self.y is None:
            return output[0]
        output += (self.y[index_array],)
        if self.sample_weight is not None:
            output += (self.sample_weight[index_array],)
        return output


# -- the generator -----------------------------------------------------------------------------------------
class ImageDataGenerator:
    """Real-time image augmentation and normalisation over NumPy arrays (`flow`) or image folders
    (`flow_from_directory`)."""

    def __init__(self, featurewise_center=False, samplewise_center=False, featurewise_std_normalization=False,
                 samplewise_std_normalization=False, zca_whitening=False, zca_epsilon=1e-6, rotation_range=0,
                 width_shift_range=0.0, height_shift_range=0.0, brightness_range=None, shear_range=0.0,
                 zoom_range=0.0, channel_shift_range=0.0, fill_mode="nearest", cval=0.0, horizontal_flip=False,
                 vertical_flip=False, rescale=None, preprocessing_function=None, data_format=None,
                 validation_split=0.0, interpolation_order=1, dtype=None):
        self.dtype = dtype or backend.floatx()
        self.featurewise_center = featurewise_center
        self.samplewise_center = samplewise_center
        self.featurewise_std_normalization = featurewise_std_normalization
        self.samplewise_std_normalization = samplewise_std_normalization
        self.zca_whitening = zca_whitening
        self.zca_epsilon = zca_epsilon
        self.rotation_range = rotation_range
        self.width_shift_range = width_shift_range
        self.height_shift_range = height_shift_range
        self.shear_range = shear_range
        self.zoom_range = zoom_range
        self.channel_shift_range = channel_shift_range
        if fill_mode not in ("constant", "nearest", "reflect", "wrap"):
            raise ValueError(f"fill_mode must be one of 'constant', 'nearest', 'reflect' or 'wrap', got "
                             f"{fill_mode!r}")
        self.fill_mode = fill_mode
        self.cval = cval
        self.horizontal_flip = horizontal_flip
        self.vertical_flip = vertical_flip
        self.rescale = rescale
        self.preprocessing_function = preprocessing_function
        self.interpolation_order = interpolation_order
        data_format = data_format or "channels_last"
        if data_format not in ("channels_last", "channels_first"):
            raise ValueError('`data_format` should be `"channels_last"` (channel after row and column) or '
                             f'`"channels_first"` (channel before row and column). Received: {data_format}')
        self.data_format = data_format
        self.channel_axis, self.row_axis, self.col_axis = (1, 2, 3) if data_format == "channels_first" else (3, 1, 2)
        if validation_split and not 0 < validation_split < 1:
            raise ValueError("`validation_split` must be strictly between 0 and 1.  Received: "
                             f"{validation_split}")
        self._validation_split = validation_split
        self.mean = self.std = self.zca_whitening_matrix = None
        if isinstance(zoom_range, (float, int)):
            self.zoom_range = [1 - zoom_range, 1 + zoom_range]
        elif len(zoom_range) == 2 and all(isinstance(v, (float, int)) for v in zoom_range):
            self.zoom_range = [zoom_range[0], zoom_range[1]]
        else:
            raise ValueError("`zoom_range` should be a float or a tuple or list of two floats. Received: "
                             f"{zoom_range}")
        if zca_whitening:
            if not featurewise_center:
                self.featurewise_center = True
                warnings.warn("This ImageDataGenerator specifies `zca_whitening`, which overrides setting of "
                              "`featurewise_center`.")
            if featurewise_std_normalization:
                self.featurewise_std_normalization = False
                warnings.warn("This ImageDataGenerator specifies `zca_whitening` which overrides setting of"
                              "`featurewise_std_normalization`.")
        if featurewise_std_normalization and not featurewise_center:
            self.featurewise_center = True
            warnings.warn("This ImageDataGenerator specifies `featurewise_std_normalization`, which overrides "
                          "setting of `featurewise_center`.")
        if samplewise_std_normalization and not samplewise_center:
            self.samplewise_center = True
            warnings.warn("This ImageDataGenerator specifies `samplewise_std_normalization`, which overrides "
                          "setting of `samplewise_center`.")
        if brightness_range is not None:
            if not isinstance(brightness_range, (tuple, list)) or len(brightness_range) != 2:
                raise ValueError("`brightness_range should be tuple or list of two floats. Received: "
                                 f"{brightness_range}")
        self.brightness_range = brightness_range

    def flow(self, x, y=None, batch_size=32, shuffle=True, sample_weight=None, seed=None, save_to_dir=None,
             save_prefix="", save_format="png", ignore_class_split=False, subset=None):
        return NumpyArrayIterator(x, y, self, batch_size=batch_size, shuffle=shuffle, sample_weight=sample_weight,
                                  seed=seed, data_format=self.data_format, save_to_dir=save_to_dir,
                                  save_prefix=save_prefix, save_format=save_format,
                                  ignore_class_split=ignore_class_split, subset=subset, dtype=self.dtype)

    def flow_from_directory(self, directory, target_size=(256, 256), color_mode="rgb", classes=None,
                            class_mode="categorical", batch_size=32, shuffle=True, seed=None, save_to_dir=None,
                            save_prefix="", save_format="png", follow_links=False, subset=None,
                            interpolation="nearest", keep_aspect_ratio=False):
        return DirectoryIterator(directory, self, target_size=target_size, color_mode=color_mode, classes=classes,
                                 class_mode=class_mode, data_format=self.data_format, batch_size=batch_size,
                                 shuffle=shuffle, seed=seed, save_to_dir=save_to_dir, save_prefix=save_prefix,
                                 save_format=save_format, follow_links=follow_links, subset=subset,
                                 interpolation=interpolation, keep_aspect_ratio=keep_aspect_ratio,
                                 dtype=self.dtype)

    def standardize(self, x):
        """The normalisation steps, in place where NumPy allows (as tf_keras): preprocessing_function,
        rescale, sample-wise then feature-wise centring and scaling, ZCA whitening."""
        if self.preprocessing_function:
            x = self.preprocessing_function(x)
        if self.rescale:
            x *= self.rescale
        if self.samplewise_center:
            x -= np.mean(x, keepdims=True)
        if self.samplewise_std_normalization:
            x /= np.std(x, keepdims=True) + 1e-6
        if self.featurewise_center:
            if self.mean is not None:
                x -= self.mean
            else:
                warnings.warn("This ImageDataGenerator specifies `featurewise_center`, but it hasn't been fit on "
                              "any training data. Fit it first by calling `.fit(numpy_data)`.")
        if self.featurewise_std_normalization:
            if self.std is not None:
                x /= self.std + 1e-6
            else:
                warnings.warn("This ImageDataGenerator specifies `featurewise_std_normalization`, but it hasn't "
                              "been fit on any training data. Fit it first by calling `.fit(numpy_data)`.")
        if self.zca_whitening:
            if self.zca_whitening_matrix is not None:
                flat = x.reshape(-1, int(np.prod(x.shape[-3:])))
                x = np.reshape(flat @ self.zca_whitening_matrix, x.shape)
            else:
                warnings.warn("This ImageDataGenerator specifies `zca_whitening`, but it hasn't been fit on any "
                              "training data. Fit it first by calling `.fit(numpy_data)`.")
        return x

    def get_random_transform(self, img_shape, seed=None):
        """The random parameters of one image's transform, drawn in tf_keras's order."""
        row, col = self.row_axis - 1, self.col_axis - 1
        if seed is not None:
            np.random.seed(seed)
        theta = np.random.uniform(-self.rotation_range, self.rotation_range) if self.rotation_range else 0
        tx = _shift(self.height_shift_range, img_shape[row])
        ty = _shift(self.width_shift_range, img_shape[col])
        shear = np.random.uniform(-self.shear_range, self.shear_range) if self.shear_range else 0
        if self.zoom_range[0] == 1 and self.zoom_range[1] == 1:
            zx, zy = 1, 1
        else:
            zx, zy = np.random.uniform(self.zoom_range[0], self.zoom_range[1], 2)
        flip_horizontal = (np.random.random() < 0.5) * self.horizontal_flip
        flip_vertical = (np.random.random() < 0.5) * self.vertical_flip
        channel_shift_intensity = None
        if self.channel_shift_range != 0:
            channel_shift_intensity = np.random.uniform(-self.channel_shift_range, self.channel_shift_range)
        brightness = None
        if self.brightness_range is not None:
            brightness = np.random.uniform(self.brightness_range[0], self.brightness_range[1])
        return {"theta": theta, "tx": tx, "ty": ty, "shear": shear, "zx": zx, "zy": zy,
                "flip_horizontal": flip_horizontal, "flip_vertical": flip_vertical,
                "channel_shift_intensity": channel_shift_intensity, "brightness": brightness}

    def apply_transform(self, x, transform_parameters):
        """Applies get_random_transform's parameters to one image (3-D array)."""
        row, col, channel = self.row_axis - 1, self.col_axis - 1, self.channel_axis - 1
        p = transform_parameters
        x = apply_affine_transform(x, p.get("theta", 0), p.get("tx", 0), p.get("ty", 0), p.get("shear", 0),
                                   p.get("zx", 1), p.get("zy", 1), row_axis=row, col_axis=col, channel_axis=channel,
                                   fill_mode=self.fill_mode, cval=self.cval, order=self.interpolation_order)
        if p.get("channel_shift_intensity") is not None:
            x = apply_channel_shift(x, p["channel_shift_intensity"], channel)
        if p.get("flip_horizontal", False):
            x = flip_axis(x, col)
        if p.get("flip_vertical", False):
            x = flip_axis(x, row)
        if p.get("brightness") is not None:
            x = apply_brightness_shift(x, p["brightness"], False)
        return x

    def random_transform(self, x, seed=None):
        return self.apply_transform(x, self.get_random_transform(x.shape, seed))

    def fit(self, x, augment=False, rounds=1, seed=None):
        """Computes the feature-wise mean/std (and the ZCA matrix) of sample images `x` (rank 4)."""
        x = np.asarray(x, dtype=self.dtype)
        if x.ndim != 4:
            raise ValueError(f"Input to `.fit()` should have rank 4. Got array with shape: {x.shape}")
        if seed is not None:
            np.random.seed(seed)
        x = np.copy(x)
        if self.rescale:
            x *= self.rescale
        if augment:
            ax = np.zeros((rounds * x.shape[0],) + x.shape[1:], dtype=self.dtype)
            for r in range(rounds):
                for i in range(x.shape[0]):
                    ax[i + r * x.shape[0]] = self.random_transform(x[i])
            x = ax
        shape = [1, 1, 1]
        shape[self.channel_axis - 1] = x.shape[self.channel_axis]
        if self.featurewise_center:
            self.mean = np.reshape(np.mean(x, axis=(0, self.row_axis, self.col_axis)), shape)
            x -= self.mean
        if self.featurewise_std_normalization:
            self.std = np.reshape(np.std(x, axis=(0, self.row_axis, self.col_axis)), shape)
            x /= self.std + 1e-6
        if self.zca_whitening:
            n = len(x)
            flat = np.reshape(x, (n, -1))
            u, s, _ = np.linalg.svd(flat.T, full_matrices=False)
            s_inv = np.sqrt(n) / (s + self.zca_epsilon)
            self.zca_whitening_matrix = (u * s_inv) @ u.T


def _shift(shift_range, size):
    """A height/width shift in pixels: a choice from a list or int range (random sign), or uniform in
    +-range for a float; fractions (< 1) are of the image's size."""
    if not shift_range:
        return 0
    try:
        t = np.random.choice(shift_range)
        t *= np.random.choice([-1, 1])
    except ValueError:  # a float: not a 1-D array-like
        t = np.random.uniform(-shift_range, shift_range)
    if np.max(shift_range) < 1:
        t *= size
    return t
