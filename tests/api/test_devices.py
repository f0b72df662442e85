"""tf.device, tf.DeviceSpec and tf.config's device functions, against TensorFlow 2.21's behaviour on a CPU-only
machine (recorded from it)."""
import pytest

import rivulet as tf
from rivulet import devices as _device
from rivulet.errors import InvalidArgumentError

CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"
CPU1 = "/job:localhost/replica:0/task:0/device:CPU:1"


@pytest.fixture(autouse=True)
def _fresh_devices():
    """The logical-device split is process state that TensorFlow fixes at start-up: undo it per test."""
    def reset():
        _device._logical_config.clear()
        _device._initialized[0] = False
    reset()
    yield
    reset()


def _two_cpus():
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    return cpu


def test_physical_and_logical_devices():
    cpus = tf.config.list_physical_devices("CPU")
    assert repr(cpus) == "[PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]"
    assert tf.config.list_physical_devices() == cpus and tf.config.list_physical_devices("GPU") == []
    assert tf.config.get_logical_device_configuration(cpus[0]) is None
    _two_cpus()
    assert repr(tf.config.get_logical_device_configuration(cpus[0])[0]) == (
        "LogicalDeviceConfiguration(memory_limit=None, experimental_priority=None, "
        "experimental_device_ordinal=None)")
    assert repr(tf.config.list_logical_devices()) == (
        "[LogicalDevice(name='/device:CPU:0', device_type='CPU'), "
        "LogicalDevice(name='/device:CPU:1', device_type='CPU')]")
    assert tf.config.list_logical_devices("GPU") == []
    with pytest.raises(RuntimeError, match="Virtual devices cannot be modified after being initialized"):
        tf.config.set_logical_device_configuration(cpus[0], [tf.config.LogicalDeviceConfiguration()] * 3)
    with pytest.raises(ValueError, match="Setting memory limit on CPU virtual devices is currently not supported"):
        _device._initialized[0] = False
        tf.config.set_logical_device_configuration(cpus[0], [tf.config.LogicalDeviceConfiguration(memory_limit=9)])


def test_experimental_and_threading_names():
    cpu = tf.config.list_physical_devices("CPU")[0]
    with pytest.raises(ValueError, match="Cannot set memory growth on non-GPU and non-Pluggable devices"):
        tf.config.experimental.set_memory_growth(cpu, True)
    with pytest.raises(KeyError):
        tf.config.experimental.get_memory_growth(cpu)
    with pytest.raises(ValueError, match="Allocator stats not available for device 'CPU:0'"):
        tf.config.experimental.get_memory_info("CPU:0")
    assert tf.config.experimental.get_device_details(cpu) == {}
    assert tf.config.get_visible_devices() == [cpu] and tf.config.set_visible_devices([], "GPU") is None
    assert tf.config.get_soft_device_placement() is True
    assert tf.config.experimental.VirtualDeviceConfiguration is tf.config.LogicalDeviceConfiguration
    assert tf.config.threading.get_inter_op_parallelism_threads() == 0
    tf.config.threading.set_intra_op_parallelism_threads(2)
    assert tf.config.threading.get_intra_op_parallelism_threads() == 2
    tf.config.list_logical_devices()
    with pytest.raises(RuntimeError, match="Intra op parallelism cannot be modified after initialization"):
        tf.config.threading.set_intra_op_parallelism_threads(3)
    assert tf.config.experimental.enable_op_determinism() is None


def test_device_scopes_place_eager_tensors_and_variables():
    _two_cpus()
    x = tf.constant(1.0)
    assert x.device == CPU0
    with tf.device("/CPU:1"):
        y = tf.constant(2.0)
        z = x + y
        v = tf.Variable(3.0)
        assert tf.reduce_sum(tf.stack([x, y])).device == CPU1
    assert (y.device, z.device, v.device) == (CPU1, CPU1, CPU1)
    assert (y + 1).device == CPU0  # outside the scope, ops run on the default device
    with tf.device("/job:localhost"):
        with tf.device("CPU:1"):
            assert (x + 1).device == CPU1  # nested scopes merge
        with tf.device(None):
            assert (x + 1).device == CPU0
    for name in ["cpu:0", "/device:CPU:0", CPU0, "CPU", "/cpu:0", "/GPU:0", "GPU:7", "", None, "CPU:5"]:
        with tf.device(name):  # soft placement: devices this machine lacks mean CPU:0
            assert (x * 2).device == CPU0, name


def test_bad_device_strings():
    x = tf.constant(1.0)
    with pytest.raises(ValueError, match="Unknown attribute 'foo' is encountered while parsing the device spec: "
                                         "'foo'"):
        tf.device("foo")
    with pytest.raises(ValueError, match="Multiple device types are not allowed while parsing the device spec: "
                                         "/CPU:0/GPU:0."):
        tf.device("/CPU:0/GPU:0")
    with pytest.raises(ValueError, match="Unknown attribute 'XLA_CPU'"):
        tf.device("XLA_CPU:0")
    with tf.device("/job:worker"):
        with pytest.raises(InvalidArgumentError, match="/job:worker/replica:0/task:0/device:CPU:0 unknown device."):
            x * 2
    with pytest.raises(RuntimeError, match="tf.device does not support functions"):
        tf.device(lambda op: "/cpu:0")


def test_graph_ops_record_the_requested_device():
    seen = {}

    @tf.function
    def f(a):
        with tf.device("/CPU:0"):
            b = a * 2
        with tf.device("GPU:0"):
            c = b + 1
        seen.update(b=b.device, b_op=b.op.device, a=a.device, c=c.device)
        return c

    assert f(tf.constant(1.0)).numpy() == 3.0
    assert seen == {"b": "/device:CPU:0", "b_op": "/device:CPU:0", "a": "", "c": "/device:GPU:0"}


def test_device_spec():
    assert tf.DeviceSpec.from_string("/job:foo/cpu:1").to_string() == "/job:foo/device:CPU:1"
    assert repr(tf.DeviceSpec(job="w", device_type="gpu", device_index=0)) == \
        "<DeviceSpec(job=w, replica=None, task=None, device_type=GPU, device_index=0)>"
    assert tf.DeviceSpec.from_string("gpu").to_string() == "/device:GPU:*"
    assert tf.DeviceSpec.from_string("/task:1").to_string() == "/task:1"
    merged = tf.DeviceSpec(job="a", device_type="CPU").make_merged_spec(tf.DeviceSpec(device_index=1))
    assert merged.to_string() == "/job:a/device:CPU:1"
    assert tf.DeviceSpec.from_string("CPU:0").replace(device_index=2).to_string() == "/device:CPU:2"
