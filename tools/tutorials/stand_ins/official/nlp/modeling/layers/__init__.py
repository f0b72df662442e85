"""official.nlp.modeling.layers (stand-in): SpectralNormalization, RandomFeatureGaussianProcess."""
from . import gaussian_process  # noqa: F401
from .gaussian_process import RandomFeatureGaussianProcess  # noqa: F401
from .spectral_normalization import SpectralNormalization  # noqa: F401
