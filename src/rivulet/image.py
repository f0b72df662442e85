"""tf.image: resize, flips, crops and pads, dtype conversion, grayscale, brightness and contrast,
total_variation and sobel_edges; the image
codecs (decode_jpeg/png/gif/bmp/image, encode_jpeg/png) as in tf.io."""
from .ops.image_ops import (ResizeMethod, adjust_brightness, adjust_contrast, central_crop,  # noqa: F401
                            convert_image_dtype, crop_to_bounding_box, flip_left_right, flip_up_down,
                            grayscale_to_rgb, pad_to_bounding_box, resize, resize_with_crop_or_pad, rgb_to_grayscale)
from .ops.image_filters import sobel_edges, total_variation  # noqa: F401
from .ops.codec_ops import (decode_and_crop_jpeg, decode_bmp, decode_gif, decode_image, decode_jpeg,  # noqa: F401
                            decode_png, encode_jpeg, encode_png, extract_jpeg_shape, is_jpeg)
