"""tf.image: resize (also resize_with_pad), flips, crops and pads, dtype conversion, grayscale, brightness and contrast,
saturation and HSV, rot90, random and stateless random flips, crops, brightness, contrast and saturation,
total_variation and sobel_edges; the image
codecs (decode_jpeg/png/gif/bmp/image, encode_jpeg/png) as in tf.io."""
from .ops.image_ops import (ResizeMethod, adjust_brightness, adjust_contrast, central_crop,  # noqa: F401
                            convert_image_dtype, crop_to_bounding_box, flip_left_right, flip_up_down,
                            grayscale_to_rgb, pad_to_bounding_box, resize, resize_with_crop_or_pad, resize_with_pad,
                            rgb_to_grayscale,
                            adjust_saturation, rgb_to_hsv, hsv_to_rgb, rot90, random_brightness, random_contrast,
                            random_saturation, random_crop, random_flip_left_right, random_flip_up_down,
                            stateless_random_brightness, stateless_random_contrast, stateless_random_saturation,
                            stateless_random_crop, stateless_random_flip_left_right, stateless_random_flip_up_down,
                            adjust_hue, random_hue, stateless_random_hue)
from .ops.image_filters import sobel_edges, total_variation  # noqa: F401
from .ops.image_more_ops import (per_image_standardization, psnr, ssim, adjust_gamma, rgb_to_yuv,  # noqa: F401
                                 yuv_to_rgb, rgb_to_yiq, yiq_to_rgb, image_gradients, transpose, extract_patches,
                                 crop_and_resize, non_max_suppression, non_max_suppression_with_scores,
                                 non_max_suppression_padded, non_max_suppression_overlaps,
                                 combined_non_max_suppression, draw_bounding_boxes, ssim_multiscale)
from .ops.codec_ops import (decode_and_crop_jpeg, decode_bmp, decode_gif, decode_image, decode_jpeg,  # noqa: F401
                            decode_png, encode_jpeg, encode_png, extract_jpeg_shape, is_jpeg)
