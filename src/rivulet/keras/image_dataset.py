"""tf.keras.utils.image_dataset_from_directory: (image, label) batches from `directory/<class>/*.jpg|png|...`,
decoded by tf.io.decode_image (Pillow: the optional `images` extra) and resized with tf.image.resize while the
dataset is iterated."""
from . import dataset_utils

ALLOWLIST_FORMATS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")
_CHANNELS = {"rgb": 3, "rgba": 4, "grayscale": 1}
_INTERPOLATIONS = ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian", "mitchellcubic")


def require_pillow():
    try:
        from PIL import Image
    except ImportError:
        raise ImportError("Decoding images needs Pillow: `pip install rivulet[images]` (or `pip install pillow`).") \
            from None
    return Image


def _decode(data, channels, path):
    """As TensorFlow's load_image: tf.io.decode_image (a GIF's first frame), the file named in its errors."""
    import rivulet as tf
    from ..errors import InvalidArgumentError
    try:
        return tf.io.decode_image(data, channels=channels, expand_animations=False).numpy()
    except InvalidArgumentError as e:
        raise InvalidArgumentError(None, None, f"{path}: {e.message}") from None


def smart_crop_box(height, width, target_height, target_width):
    """The centred crop with the target's aspect ratio (keras's smart_resize)."""
    crop_h = min(height, int(width * target_height / target_width))
    crop_w = min(width, int(height * target_width / target_height))
    return (height - crop_h) // 2, (width - crop_w) // 2, crop_h, crop_w


def load_image(path, image_size, num_channels, interpolation, crop_to_aspect_ratio=False):
    """Reads, decodes and resizes one image file -> float32 (uint8 for 'nearest') (height, width, channels)."""
    import rivulet as tf
    from ..errors import NotFoundError
    path = dataset_utils.as_path(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise NotFoundError(None, None, f"{path}; No such file or directory") from None
    img = _decode(data, num_channels, path)
    if crop_to_aspect_ratio:
        top, left, h, w = smart_crop_box(img.shape[0], img.shape[1], *image_size)
        img = img[top:top + h, left:left + w]
    out = tf.image.resize(img, image_size, method=interpolation).numpy()
    return out


def image_dataset_from_directory(directory, labels="inferred", label_mode="int", class_names=None, color_mode="rgb",
                                 batch_size=32, image_size=(256, 256), shuffle=True, seed=None,
                                 validation_split=None, subset=None, interpolation="bilinear", follow_links=False,
                                 crop_to_aspect_ratio=False, **kwargs):
    """A tf.data.Dataset of (images, labels) batches (a list of two with subset='both'), with `.class_names` and
    `.file_paths`. Images are float32 (height, width, channels) resized to `image_size`."""
    if "smart_resize" in kwargs:
        crop_to_aspect_ratio = kwargs.pop("smart_resize")
    if kwargs:
        raise TypeError(f"Unknown keywords argument(s): {tuple(kwargs.keys())}")
    dataset_utils.check_labels_args(labels, label_mode, class_names, "image")
    if color_mode not in _CHANNELS:
        raise ValueError('`color_mode` must be one of {"rgb", "rgba", "grayscale"}. '
                         f"Received: color_mode={color_mode}")
    num_channels = _CHANNELS[color_mode]
    if interpolation not in _INTERPOLATIONS:
        raise NotImplementedError(f"Value not recognized for `interpolation`: {interpolation}. Supported "
                                  f"interpolation methods are {_INTERPOLATIONS}.")
    require_pillow()
    image_size = tuple(int(v) for v in image_size)
    import rivulet as tf
    out_dtype = tf.uint8 if interpolation == "nearest" else tf.float32

    def to_dataset(paths, labels_, label_mode_, num_classes):
        def load(p):
            img = tf.numpy_function(
                lambda q: load_image(q, image_size, num_channels, interpolation, crop_to_aspect_ratio), [p],
                out_dtype)
            img.set_shape(image_size + (num_channels,))
            return img

        ds = tf.data.Dataset.from_tensor_slices(paths).map(load)
        if label_mode_:
            ds = tf.data.Dataset.zip((ds, dataset_utils.labels_to_dataset(labels_, label_mode_, num_classes)))
        return ds

    return dataset_utils.from_directory(directory, labels, label_mode, class_names, batch_size, shuffle, seed,
                                        validation_split, subset, follow_links, ALLOWLIST_FORMATS, "images",
                                        to_dataset)
