"""tf.saved_model.SaveOptions and LoadOptions: TensorFlow's option records. rivulet's format has no use for
most of them (no devices, no SavedModel protobufs); they are accepted and kept so code that passes them runs."""


class SaveOptions:
    __slots__ = ("namespace_whitelist", "save_debug_info", "function_aliases", "experimental_debug_stripper",
                 "experimental_io_device", "experimental_variable_policy", "experimental_custom_gradients",
                 "experimental_image_format", "experimental_skip_saver", "experimental_sharding_callback",
                 "extra_tags")

    def __init__(self, namespace_whitelist=None, save_debug_info=False, function_aliases=None,
                 experimental_debug_stripper=False, experimental_io_device=None, experimental_variable_policy=None,
                 experimental_custom_gradients=True, experimental_image_format=False,
                 experimental_skip_saver=False, experimental_sharding_callback=None, extra_tags=None):
        if function_aliases is not None and not isinstance(function_aliases, dict):
            raise TypeError(f"`function_aliases` must be a dict, got {function_aliases!r}")
        self.namespace_whitelist = list(namespace_whitelist or [])
        self.save_debug_info = bool(save_debug_info)
        self.function_aliases = dict(function_aliases or {})
        self.experimental_debug_stripper = experimental_debug_stripper
        self.experimental_io_device = experimental_io_device
        self.experimental_variable_policy = experimental_variable_policy
        self.experimental_custom_gradients = experimental_custom_gradients
        self.experimental_image_format = experimental_image_format
        self.experimental_skip_saver = experimental_skip_saver
        self.experimental_sharding_callback = experimental_sharding_callback
        self.extra_tags = extra_tags


class LoadOptions:
    __slots__ = ("allow_partial_checkpoint", "experimental_io_device", "experimental_skip_checkpoint",
                 "experimental_variable_policy", "experimental_load_function_aliases")

    def __init__(self, allow_partial_checkpoint=False, experimental_io_device=None,
                 experimental_skip_checkpoint=False, experimental_variable_policy=None,
                 experimental_load_function_aliases=False):
        self.allow_partial_checkpoint = allow_partial_checkpoint
        self.experimental_io_device = experimental_io_device
        self.experimental_skip_checkpoint = experimental_skip_checkpoint
        self.experimental_variable_policy = experimental_variable_policy
        self.experimental_load_function_aliases = experimental_load_function_aliases
