"""tf.experimental.extension_type: the namespace TensorFlow 2.21 exposes there (as_dict)."""


def as_dict(value):
    """The fields of an ExtensionType value, as a dict {name: value} in field order."""
    return {f.name: getattr(value, f.name) for f in value._tf_extension_type_fields()}
