"""tf.keras.preprocessing.image."""
from ..image_utils import array_to_img, img_to_array, load_img, save_img  # noqa: F401
