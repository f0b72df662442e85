"""tf.image: resize, flips, crops and pads, dtype conversion, grayscale, brightness and contrast."""
from .ops.image_ops import (ResizeMethod, adjust_brightness, adjust_contrast, central_crop,  # noqa: F401
                            convert_image_dtype, crop_to_bounding_box, flip_left_right, flip_up_down,
                            grayscale_to_rgb, pad_to_bounding_box, resize, resize_with_crop_or_pad, rgb_to_grayscale)
