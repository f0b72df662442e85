"""The op library, by family. Each module defines its ops once (rule, kernel, gradient) and the public
TensorFlow-named functions that bind them."""
