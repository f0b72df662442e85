"""tf.distribute.cluster_resolver: who the workers are. TFConfigClusterResolver reads TF_CONFIG as
TensorFlow does; RayClusterResolver starts the workers as Ray processes and runs a function on each."""
import json
import os


class ClusterSpec:
    """tf.train.ClusterSpec: job name -> list of task addresses (or {index: address})."""

    def __init__(self, cluster):
        if isinstance(cluster, ClusterSpec):
            cluster = cluster.as_dict()
        if not isinstance(cluster, dict):
            raise TypeError(f"`cluster` must be a dictionary mapping one or more job names to lists of network "
                            f"addresses, or a `ClusterSpec`; got {cluster!r}")
        self._jobs = {}
        for job, tasks in cluster.items():
            if not isinstance(job, str):
                raise TypeError(f"Job names must be strings, got {job!r}")
            if isinstance(tasks, (list, tuple)):
                tasks = dict(enumerate(tasks))
            elif not isinstance(tasks, dict):
                raise TypeError(f"The tasks for job {job!r} must be a list or a dict, got {tasks!r}")
            self._jobs[job] = {int(i): str(a) for i, a in tasks.items()}

    @property
    def jobs(self):
        return list(self._jobs)

    def num_tasks(self, job_name):
        try:
            return len(self._jobs[job_name])
        except KeyError:
            raise ValueError(f"No such job in cluster: {job_name!r}") from None

    def task_address(self, job_name, task_index):
        try:
            return self._jobs[job_name][task_index]
        except KeyError:
            raise ValueError(f"No task with index {task_index!r} in job {job_name!r}") from None

    def as_dict(self):
        out = {}
        for job, tasks in self._jobs.items():
            idx = sorted(tasks)
            out[job] = [tasks[i] for i in idx] if idx == list(range(len(idx))) else dict(tasks)
        return out

    def __bool__(self):
        return bool(self._jobs)

    def __eq__(self, other):
        return isinstance(other, ClusterSpec) and self.as_dict() == other.as_dict()

    def __repr__(self):
        return f"ClusterSpec({self.as_dict()!r})"


class ClusterResolver:
    """The interface: cluster_spec(), master(), task_type, task_id, num_accelerators()."""
    task_type = None
    task_id = None
    rpc_layer = None
    environment = ""

    def cluster_spec(self):
        raise NotImplementedError

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        return ""

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        return {}  # CPU only


class SimpleClusterResolver(ClusterResolver):
    def __init__(self, cluster_spec, master="", task_type=None, task_id=None, environment="", num_accelerators=None,
                 rpc_layer=None):
        self._spec = ClusterSpec(cluster_spec)
        self._master = master
        self.task_type, self.task_id, self.environment, self.rpc_layer = task_type, task_id, environment, rpc_layer

    def cluster_spec(self):
        return self._spec

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        return self._master


class TFConfigClusterResolver(ClusterResolver):
    """Reads the TF_CONFIG environment variable: {"cluster": {job: [addresses]}, "task": {"type", "index"}}."""

    def __init__(self, task_type=None, task_id=None, rpc_layer=None, environment=None):
        self._task_type, self._task_id = task_type, task_id
        self.rpc_layer = rpc_layer
        self._environment = environment

    @staticmethod
    def _config():
        raw = os.environ.get("TF_CONFIG", "")
        if not raw:
            return {}
        try:
            cfg = json.loads(raw)
        except ValueError as e:
            raise ValueError(f"TF_CONFIG is not valid JSON: {e}") from None
        if not isinstance(cfg, dict):
            raise ValueError(f"TF_CONFIG must be a JSON object, got {raw!r}")
        return cfg

    def cluster_spec(self):
        return ClusterSpec(self._config().get("cluster", {}))

    @property
    def task_type(self):
        return self._task_type if self._task_type is not None else self._config().get("task", {}).get("type")

    @property
    def task_id(self):
        if self._task_id is not None:
            return self._task_id
        index = self._config().get("task", {}).get("index")
        return None if index is None else int(index)

    @property
    def environment(self):
        return self._environment if self._environment is not None else self._config().get("environment", "")


class RayClusterResolver(ClusterResolver):
    """Workers are Ray processes. `run(fn)` starts `num_workers` of them (on the local machine through
    `ray.init()`, or on the Ray cluster at `address`) and runs fn on each, where
    `tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=this)` joins the others; it returns each
    worker's result. Needs Ray: pip install 'rivulet[distribute]'."""

    def __init__(self, num_workers=2, address=None, cpus_per_worker=1, timeout=None):
        if isinstance(num_workers, bool) or not isinstance(num_workers, int) or num_workers < 1:
            raise ValueError(f"num_workers must be a positive integer, got {num_workers!r}")
        if address is not None and not isinstance(address, str):
            raise TypeError(f"address must be a string such as 'auto' or 'ray://host:10001', got {address!r}")
        self.num_workers = num_workers
        self.address = address
        self.cpus_per_worker = cpus_per_worker
        self.timeout = timeout

    def cluster_spec(self):
        return ClusterSpec({"worker": [f"ray-worker-{i}" for i in range(self.num_workers)]})

    @property
    def task_type(self):
        return "worker"

    @property
    def task_id(self):
        """This worker's index inside a function run by `run`; None in the driver."""
        from . import collective
        c = collective.current()
        return None if c is None else c.rank

    def run(self, fn, args=(), kwargs=None):
        """Runs fn(*args, **kwargs) on every worker; returns the results in worker order (tensors as NumPy).
        A worker that fails or dies makes this raise (its error, or RuntimeError naming it) after the others
        are stopped: nothing is left waiting. A worker that finishes while the others wait for it in a
        collective fails that collective (UnavailableError); a collective waits at most
        CommunicationOptions(timeout_seconds=...), 600 s unless set (DeadlineExceededError); `timeout`
        limits the whole run (TimeoutError)."""
        from .ray_runtime import run_on_workers
        return run_on_workers(self, fn, tuple(args), dict(kwargs or {}))

    def shutdown(self):
        """Stops the Ray instance `run` started (a cluster given by address is left running)."""
        from .ray_runtime import shutdown
        shutdown()
