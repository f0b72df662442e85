"""tf.config: run_functions_eagerly, functions_run_eagerly, the optimizer options, devices and threading."""
from .core.context import functions_run_eagerly, run_functions_eagerly  # noqa: F401
from .config_devices import (PhysicalDevice, LogicalDevice, LogicalDeviceConfiguration,  # noqa: F401
                             list_physical_devices, list_logical_devices, get_visible_devices, set_visible_devices,
                             get_logical_device_configuration, set_logical_device_configuration,
                             get_soft_device_placement, set_soft_device_placement, experimental, threading)


class optimizer:
    """tf.config.optimizer: switches for the graph optimisation passes (see rivulet.execute.options)."""
    from .execute.options import get_experimental_options, set_experimental_options  # noqa: F401
    get_experimental_options = staticmethod(get_experimental_options)
    set_experimental_options = staticmethod(set_experimental_options)

    @staticmethod
    def set_jit(enabled):
        """Compiles tf.functions (those not saying jit_compile=False) with the compiled tier, rivulet.jit."""
        from .function.polymorphic import set_jit_default
        set_jit_default("autoclustering" if enabled else "")

    @staticmethod
    def get_jit():
        """'autoclustering' when set_jit(True) is on, else ''."""
        from .function.polymorphic import get_jit_default
        return get_jit_default()
