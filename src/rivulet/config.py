"""tf.config: run_functions_eagerly, functions_run_eagerly, and the optimizer options."""
from .core.context import functions_run_eagerly, run_functions_eagerly  # noqa: F401


class experimental:
    """tf.config.experimental (nothing device-specific: rivulet runs on the CPU)."""

    @staticmethod
    def list_physical_devices(device_type=None):
        return list_physical_devices(device_type)


class PhysicalDevice:
    def __init__(self, name, device_type):
        self.name, self.device_type = name, device_type

    def __repr__(self):
        return f"PhysicalDevice(name='{self.name}', device_type='{self.device_type}')"


def list_physical_devices(device_type=None):
    cpu = PhysicalDevice("/physical_device:CPU:0", "CPU")
    return [cpu] if device_type in (None, "CPU") else []


class optimizer:
    """tf.config.optimizer: switches for the graph optimisation passes (see rivulet.optimize.options)."""
    from .optimize.options import get_experimental_options, set_experimental_options  # noqa: F401
    get_experimental_options = staticmethod(get_experimental_options)
    set_experimental_options = staticmethod(set_experimental_options)

    _jit = [""]

    @staticmethod
    def set_jit(enabled):
        """Compiles tf.functions (those not saying jit_compile=False) with the compiled tier, rivulet.jit."""
        optimizer._jit[0] = "autoclustering" if enabled else ""

    @staticmethod
    def get_jit():
        """'autoclustering' when set_jit(True) is on, else ''."""
        return optimizer._jit[0]
