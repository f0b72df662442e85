"""tf.config's device functions: rivulet has one physical device, the CPU, which
set_logical_device_configuration can split into several logical CPUs (see rivulet.devices)."""
import collections
import types as _types

from . import devices as _device

PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])


class LogicalDeviceConfiguration(collections.namedtuple(
        "LogicalDeviceConfiguration", ["memory_limit", "experimental_priority", "experimental_device_ordinal"])):
    """One logical device to make from a physical one (memory_limit applies to GPUs only)."""

    def __new__(cls, memory_limit=None, experimental_priority=None, experimental_device_ordinal=None):
        return super().__new__(cls, memory_limit, experimental_priority, experimental_device_ordinal)


_CPU = PhysicalDevice("/physical_device:CPU:0", "CPU")
_visible = [True]  # whether the CPU is visible (it must stay so: TensorFlow refuses to hide it)
_soft_placement = [True]
_threads = {"inter": 0, "intra": 0}


def _check_device(dev):
    if not isinstance(dev, PhysicalDevice) or dev != _CPU:
        raise ValueError(f"Unrecognized device: {dev!r}")


def list_physical_devices(device_type=None):
    return [_CPU] if device_type is None or str(device_type).upper() == "CPU" else []


def list_logical_devices(device_type=None):
    _device.mark_initialized()
    if device_type is not None and str(device_type).upper() != "CPU":
        return []
    return [LogicalDevice(f"/device:CPU:{i}", "CPU") for i in range(_device.cpu_count())]


def get_visible_devices(device_type=None):
    return list_physical_devices(device_type)


def set_visible_devices(devices, device_type=None):
    devices = [devices] if isinstance(devices, PhysicalDevice) else list(devices)
    for d in devices:
        _check_device(d)
    if device_type is not None and str(device_type).upper() != "CPU":
        return  # hiding devices of a type rivulet does not have (GPUs): nothing to do
    if _CPU not in devices:
        raise ValueError("CPU device must be visible")


def get_logical_device_configuration(device):
    _check_device(device)
    return _device._logical_config.get(device.name)


def set_logical_device_configuration(device, logical_devices):
    """Splits the CPU into len(logical_devices) logical CPUs; only before the devices are first used."""
    _check_device(device)
    configs = None if logical_devices is None else list(logical_devices)
    for c in configs or ():
        if not isinstance(c, LogicalDeviceConfiguration):
            raise ValueError(f"Expected a list of tf.config.LogicalDeviceConfiguration, got {c!r}")
        if c.memory_limit is not None:
            raise ValueError("Setting memory limit on CPU virtual devices is currently not supported")
    with _device._lock:
        if _device._initialized[0]:
            if configs == _device._logical_config.get(device.name):
                return
            raise RuntimeError("Virtual devices cannot be modified after being initialized")
        if configs:
            _device._logical_config[device.name] = configs
        else:
            _device._logical_config.pop(device.name, None)


def get_soft_device_placement():
    return _soft_placement[0]


def set_soft_device_placement(enabled):
    _soft_placement[0] = bool(enabled)  # rivulet always places softly (there is only the CPU)


def _set_memory_growth(device, enable):
    _check_device(device)
    if _device._logical_config.get(device.name):
        raise ValueError("Cannot set memory growth on device when virtual devices configured")
    raise ValueError("Cannot set memory growth on non-GPU and non-Pluggable devices")


def _get_memory_growth(device):
    _check_device(device)
    raise KeyError(device)  # as TensorFlow: the CPU has no memory-growth entry


def _get_memory_info(device):
    raise ValueError(f"Allocator stats not available for device '{device}'")


def _get_device_details(device):
    _check_device(device)
    return {}


def _threading_setter(which, label):
    def setter(num_threads):
        if _device._initialized[0] and int(num_threads) != _threads[which]:
            raise RuntimeError(f"{label} parallelism cannot be modified after initialization.")
        _threads[which] = int(num_threads)
    return setter


threading = _types.SimpleNamespace(
    get_inter_op_parallelism_threads=lambda: _threads["inter"],
    set_inter_op_parallelism_threads=_threading_setter("inter", "Inter op"),
    get_intra_op_parallelism_threads=lambda: _threads["intra"],
    set_intra_op_parallelism_threads=_threading_setter("intra", "Intra op"),
)


def _deterministic_ops(enabled=None):
    """rivulet's CPU kernels are deterministic already; enable/disable only record the setting."""
    if enabled is not None:
        _flags["determinism"] = bool(enabled)
    return _flags["determinism"]


_flags = {"determinism": False}

experimental = _types.SimpleNamespace(
    list_physical_devices=list_physical_devices,
    list_logical_devices=list_logical_devices,
    get_visible_devices=get_visible_devices,
    set_visible_devices=set_visible_devices,
    get_virtual_device_configuration=get_logical_device_configuration,
    set_virtual_device_configuration=set_logical_device_configuration,
    VirtualDeviceConfiguration=LogicalDeviceConfiguration,
    set_memory_growth=_set_memory_growth,
    get_memory_growth=_get_memory_growth,
    get_memory_info=_get_memory_info,
    reset_memory_stats=lambda device: _get_memory_info(device),
    get_device_details=_get_device_details,
    get_device_policy=lambda: "silent",
    set_device_policy=lambda policy: None,
    enable_op_determinism=lambda: (_deterministic_ops(True), None)[1],
    disable_op_determinism=lambda: (_deterministic_ops(False), None)[1],
    is_op_determinism_enabled=lambda: _deterministic_ops(),
    enable_tensor_float_32_execution=lambda enabled: None,  # float32 matmuls are exact float32 here
    tensor_float_32_execution_enabled=lambda: False,
)
