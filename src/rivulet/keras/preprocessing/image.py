"""tf.keras.preprocessing.image: image files <-> arrays, and ImageDataGenerator's augmentation."""
from ..image_utils import array_to_img, img_to_array, load_img, save_img  # noqa: F401
from ._image_generator import (DirectoryIterator, ImageDataGenerator, Iterator, NumpyArrayIterator,  # noqa: F401
                               apply_affine_transform, apply_brightness_shift, apply_channel_shift,
                               random_brightness, random_channel_shift, random_rotation, random_shear,
                               random_shift, random_zoom)
