"""Devices: tf.DeviceSpec, tf.device, and the logical CPUs tf.config describes.

rivulet computes everything on the host CPU, but keeps TensorFlow's device bookkeeping: device strings are
parsed and validated as TensorFlow parses them, `tf.device` scopes nest and merge, eager tensors and
variables carry the device their op was placed on, graph ops carry the device they were asked for. Like
TensorFlow with soft placement (its eager default), a request for a device that does not exist (a GPU, or
CPU:5 when there is one CPU) places on CPU:0; a job other than localhost fails when an op runs.
`tf.config.set_logical_device_configuration` splits the CPU into several logical CPUs (CPU:0, CPU:1 ...),
which are real placement targets: tensors made under `tf.device('/CPU:1')` report that device.
"""
import threading

from .core import context
from .errors import InvalidArgumentError

LOCAL_JOB = "localhost"
_TYPES = ("CPU", "GPU", "TPU")


class DeviceSpec:
    """tf.DeviceSpec: (job, replica, task, device_type, device_index), each possibly None."""

    __slots__ = ("_job", "_replica", "_task", "_device_type", "_device_index", "_str")

    def __init__(self, job=None, replica=None, task=None, device_type=None, device_index=None):
        self._job = None if job is None else str(job)
        self._replica = None if replica is None else int(replica)
        self._task = None if task is None else int(task)
        self._device_type = None if device_type is None else (
            str(device_type).upper() if str(device_type).upper() in _TYPES else str(device_type))
        self._device_index = None if device_index is None else int(device_index)
        self._str = self._render()

    job = property(lambda self: self._job)
    replica = property(lambda self: self._replica)
    task = property(lambda self: self._task)
    device_type = property(lambda self: self._device_type)
    device_index = property(lambda self: self._device_index)

    def _render(self):
        out = ""
        if self._job is not None:
            out += f"/job:{self._job}"
        if self._replica is not None:
            out += f"/replica:{self._replica}"
        if self._task is not None:
            out += f"/task:{self._task}"
        if self._device_type is not None or self._device_index is not None:
            out += f"/device:{self._device_type or '*'}:{'*' if self._device_index is None else self._device_index}"
        return out

    def to_string(self):
        return self._str

    @classmethod
    def from_string(cls, spec):
        return cls(*parse_name(spec))

    def parse_from_string(self, spec):
        return DeviceSpec.from_string(spec)

    def replace(self, **kwargs):
        fields = dict(job=self._job, replica=self._replica, task=self._task, device_type=self._device_type,
                      device_index=self._device_index)
        fields.update(kwargs)
        return DeviceSpec(**fields)

    def make_merged_spec(self, dev):
        """`dev`'s fields where set, this spec's elsewhere."""
        return DeviceSpec(*(b if b is not None else a for a, b in zip(self._fields(), dev._fields())))

    def _fields(self):
        return self._job, self._replica, self._task, self._device_type, self._device_index

    def __eq__(self, other):
        return isinstance(other, DeviceSpec) and self._fields() == other._fields()

    def __hash__(self):
        return hash(self._fields())

    def __repr__(self):
        return f"<DeviceSpec(job={self._job}, replica={self._replica}, task={self._task}, " \
               f"device_type={self._device_type}, device_index={self._device_index})>"


def parse_name(spec):
    """(job, replica, task, device_type, device_index) of a device string such as '/job:localhost/replica:0/
    task:0/device:CPU:0', '/cpu:0', 'GPU:1' or 'CPU'; ValueError as TensorFlow's for anything else."""
    if isinstance(spec, DeviceSpec):
        return spec._fields()
    if not isinstance(spec, str):
        raise ValueError(f"Expected a device string, got {spec!r} of type {type(spec).__name__}")
    job = replica = task = dtype = index = None
    for part in spec.split("/"):
        if not part:
            continue
        ly = part.split(":")
        head = ly[0].lower()
        if len(ly) == 2 and head == "job":
            job = ly[1]
        elif len(ly) == 2 and head == "replica":
            replica = _int_field(ly[1], spec)
        elif len(ly) == 2 and head == "task":
            task = _int_field(ly[1], spec)
        elif (len(ly) in (1, 2) and ly[0].upper() in _TYPES) or (len(ly) in (2, 3) and head == "device"):
            if dtype is not None:
                raise ValueError(f"Multiple device types are not allowed while parsing the device spec: {spec}.")
            if head == "device":
                ly = ly[1:]
                if ly[0].upper() not in _TYPES and ly[0] != "*":
                    raise ValueError(f"Unknown attribute '{ly[0]}' is encountered while parsing the device spec: "
                                     f"'{spec}'.")
            dtype = None if ly[0] == "*" else ly[0].upper()
            if len(ly) == 2 and ly[1] != "*":
                index = _int_field(ly[1], spec)
        else:
            raise ValueError(f"Unknown attribute '{ly[0]}' is encountered while parsing the device spec: '{spec}'.")
    return job, replica, task, dtype, index


def _int_field(text, spec):
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"Invalid device spec '{spec}': '{text}' is not an integer") from None


# ---------------------------------------------------------------- logical devices
_lock = threading.Lock()
_logical_config = {}  # physical device name -> list of LogicalDeviceConfiguration
_initialized = [False]  # set once the logical devices were listed or used: they are fixed from then on


def cpu_count():
    """How many logical CPUs there are (1 unless set_logical_device_configuration split the CPU)."""
    return len(_logical_config.get("/physical_device:CPU:0") or ()) or 1


def mark_initialized():
    _initialized[0] = True


def full_name(device_type, index):
    return f"/job:{LOCAL_JOB}/replica:0/task:0/device:{device_type}:{index}"


DEFAULT = full_name("CPU", 0)


# ---------------------------------------------------------------- tf.device
class _Placement:
    """The current device scope: the merged spec, the string graph ops record, and where eager ops go."""

    __slots__ = ("spec", "graph_string", "eager", "error")

    def __init__(self, spec):
        self.spec = spec
        self.graph_string = spec.to_string()
        self.eager, self.error = _resolve(spec)


def _resolve(spec):
    """(eager device name or None for the default CPU:0, error to raise when an op runs or None)."""
    job, replica, task = spec.job, spec.replica, spec.task
    if (job not in (None, LOCAL_JOB)) or replica not in (None, 0) or task not in (None, 0):
        name = f"/job:{job or LOCAL_JOB}/replica:{replica or 0}/task:{task or 0}/device:" \
               f"{spec.device_type or 'CPU'}:{spec.device_index or 0}"
        return None, InvalidArgumentError(f"{name} unknown device.")
    if spec.device_type in (None, "CPU") and spec.device_index and spec.device_index < cpu_count():
        return full_name("CPU", spec.device_index), None
    return None, None  # CPU:0, or soft placement of a device this machine does not have


class device:
    """tf.device(name): ops created inside run (eagerly) or are recorded (in graphs) on that device."""

    def __init__(self, device_name):
        if callable(device_name) and not isinstance(device_name, DeviceSpec):
            raise RuntimeError("tf.device does not support functions.")
        self._spec = None if device_name in (None, "") else DeviceSpec(*parse_name(device_name))
        self._saved = None
        self._bumped = False

    def __enter__(self):
        mark_initialized()
        st = context.state
        self._saved = outer = st.device
        if self._spec is None:
            st.device = None
        else:
            spec = outer.spec.make_merged_spec(self._spec) if outer is not None else self._spec
            st.device = _Placement(spec)
        # Tensor operators take an eager fast path that skips bind(): off while placement matters.
        self._bumped = st.device is not None and (st.device.eager is not None or st.device.error is not None)
        if self._bumped:
            context._bump(1)
        return self

    def __exit__(self, *exc):
        context.state.device = self._saved
        if self._bumped:
            context._bump(-1)
        return False


def place(outs, placement):
    """Records the eager device of the outputs of an op run under `placement` (called by bind)."""
    if placement.error is not None:
        raise placement.error
    if placement.eager is not None:
        for t in outs:
            t._device = placement.eager


def current_eager_device():
    """The device an eager tensor or variable made now is on."""
    p = context.state.device
    if p is None:
        return DEFAULT
    if p.error is not None:
        raise p.error
    return p.eager or DEFAULT


# ---------------------------------------------------------------- tf.debugging.set_log_device_placement
_log_placement = [False]


def set_log_device_placement(enabled):
    """Records the setting; rivulet does not log each op (every op runs on the host CPU), and says so once."""
    enabled = bool(enabled)
    if enabled and not _log_placement[0]:
        from .log import logger
        logger.warning(
            "tf.debugging.set_log_device_placement: rivulet does not log per-op placement; every op runs on %s "
            "(or on the logical CPU of its tf.device scope).", DEFAULT)
    _log_placement[0] = enabled


def get_log_device_placement():
    return _log_placement[0]
