"""tfds.features as the stand-in serves them: FeaturesDict, ClassLabel, Image, Text, Tensor and scalars."""
import numpy as np


class FeatureConnector:
    shape = ()
    dtype = "float32"
    encoded = False  # whether the column holds encoded bytes the pipeline decodes (images)

    def _tf_dtype(self):
        import rivulet as tf
        return tf.as_dtype(self.dtype)

    def column(self, values):
        return np.asarray(values, dtype=None if self.dtype == "string" else self.dtype)

    def decode(self, t):
        return t

    def __repr__(self):
        return f"{type(self).__name__}(shape={tuple(self.shape)}, dtype={self.dtype})"


class Tensor(FeatureConnector):
    def __init__(self, *, shape, dtype, encoding=None, doc=None):
        self.shape, self.dtype = tuple(shape), np.dtype(dtype).name if dtype != "string" else "string"


class Scalar(FeatureConnector):
    """A scalar feature (`tf.float32` in a FeaturesDict): printed by its dtype alone, as tfds does."""
    def __init__(self, dtype):
        self.shape, self.dtype = (), np.dtype(dtype).name

    def __repr__(self):
        return self.dtype


class Text(FeatureConnector):
    dtype = "string"

    def __init__(self, encoder=None, doc=None):
        pass

    def column(self, values):
        return np.array([v if isinstance(v, bytes) else str(v).encode() for v in values], dtype=object)


class ClassLabel(FeatureConnector):
    dtype = "int64"

    def __init__(self, *, num_classes=None, names=None, names_file=None, doc=None):
        if names is not None:
            self._names = [str(n) for n in names]
        elif num_classes is not None:
            self._names = [str(i) for i in range(num_classes)]
        else:
            raise ValueError("ClassLabel needs num_classes or names")

    @property
    def num_classes(self):
        return len(self._names)

    @property
    def names(self):
        return list(self._names)

    def int2str(self, int_value):
        i = int(int_value)
        if not 0 <= i < self.num_classes:
            raise ValueError(f"Invalid integer class label {i}")
        return self._names[i]

    def str2int(self, str_value):
        str_value = str_value.decode() if isinstance(str_value, bytes) else str(str_value)
        if str_value in self._names:
            return self._names.index(str_value)
        if str_value.isdigit() and int(str_value) < self.num_classes:
            return int(str_value)
        raise ValueError(f"Invalid string class label {str_value}")

    def __repr__(self):
        return f"ClassLabel(shape=(), dtype=int64, num_classes={self.num_classes})"


class Image(FeatureConnector):
    """uint8 images; a column of encoded JPEG/PNG bytes is decoded in the pipeline (shape (None, None, c)),
    as tfds stores and reads images; a column of arrays (MNIST's fixed 28x28x1) is served as is."""
    dtype = "uint8"

    def __init__(self, *, shape=None, dtype=None, encoding_format=None, use_colormap=False, doc=None):
        self.shape = tuple(shape) if shape is not None else (None, None, 3)
        self.dtype = np.dtype(dtype).name if dtype is not None else "uint8"

    def column(self, values):
        if isinstance(values, np.ndarray) and values.dtype != object:
            self.encoded = False
            return values.astype(self.dtype)
        self.encoded = True
        return np.array(list(values), dtype=object)

    def decode(self, t):
        import rivulet as tf
        if not self.encoded:
            return t
        img = tf.io.decode_image(t, channels=self.shape[-1], expand_animations=False)
        return img


class FeaturesDict(FeatureConnector):
    def __init__(self, feature_dict, doc=None):
        self._features = dict(feature_dict)

    def __getitem__(self, key):
        return self._features[key]

    def __contains__(self, key):
        return key in self._features

    def __iter__(self):
        return iter(self._features)

    def keys(self):
        return self._features.keys()

    def items(self):
        return self._features.items()

    def values(self):
        return self._features.values()

    @property
    def shape(self):
        return {k: f.shape for k, f in self._features.items()}

    @property
    def dtype(self):
        import rivulet as tf
        return {k: tf.as_dtype(f.dtype) for k, f in self._features.items()}

    def dataset(self, columns):
        """A tf.data.Dataset of the examples whose feature values `columns` holds (one entry per feature)."""
        import rivulet as tf
        sliced = {k: self._features[k].column(columns[k]) for k in sorted(self._features)}
        ds = tf.data.Dataset.from_tensor_slices(sliced)
        if any(f.encoded for f in self._features.values()):
            feats = self._features
            ds = ds.map(lambda ex: {k: feats[k].decode(v) for k, v in ex.items()})
        return ds

    def __repr__(self):
        body = "".join(f"    '{k}': {self._features[k]!r},\n" for k in sorted(self._features))
        return "FeaturesDict({\n" + body + "})"
