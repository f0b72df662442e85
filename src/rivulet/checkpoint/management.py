"""The `checkpoint` state file, tf.train.CheckpointManager, latest_checkpoint, list_variables and
load_checkpoint.

The state file is a CheckpointState protobuf in text format (`model_checkpoint_path: "ckpt-3"` ...), which
is parsed here line by line: only its four known fields are read, string escapes are decoded by hand.
"""
import glob
import os
import threading
import time

from ..graph.graph_def import text_escape  # C-style escapes, as protobuf's text format writes them
from ..errors import DataLossError
from ..log import get_logger
from ..formats.bundle import BundleReader, index_filename, open_regular

__all__ = ["CheckpointManager", "latest_checkpoint", "get_checkpoint_state", "update_checkpoint_state",
           "list_variables", "load_checkpoint", "CheckpointReader", "CheckpointState"]

_STATE = "checkpoint"
_MAX_STATE = 64 << 20  # a state file lists paths: a million of them fit
_REPEATED = ("all_model_checkpoint_paths", "all_model_checkpoint_timestamps")


class CheckpointState:
    def __init__(self, model_checkpoint_path="", all_model_checkpoint_paths=(), all_model_checkpoint_timestamps=(),
                 last_preserved_timestamp=0.0):
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = list(all_model_checkpoint_paths)
        self.all_model_checkpoint_timestamps = list(all_model_checkpoint_timestamps)
        self.last_preserved_timestamp = last_preserved_timestamp

    def __repr__(self):
        return _text(self)


def _quote(s):
    return '"' + text_escape(s) + '"'


_SIMPLE_ESCAPES = {ord("n"): 10, ord("t"): 9, ord("r"): 13, ord("a"): 7, ord("b"): 8, ord("f"): 12, ord("v"): 11,
                   ord("\\"): 92, ord('"'): 34, ord("'"): 39, ord("?"): 63}


def _unquote(s):
    """A text-format string value: one or more quoted strings (adjacent ones are joined, as protobuf's text
    format joins them) with C escapes (simple, octal, \\x hex; another escape is kept as written) and maybe a
    comment after it."""
    raw, out, i = s.encode("utf-8", "surrogateescape"), bytearray(), 0
    if not raw:
        raise ValueError("expected a string")
    while i < len(raw):
        q = raw[i]
        if q not in b"\"'":
            raise ValueError(f"bad string {s[:80]!r}")
        i += 1
        while True:
            if i >= len(raw):
                raise ValueError(f"string missing ending quote: {s[:80]!r}")
            c = raw[i]
            if c == q:
                i += 1
                break
            if c != 92:
                out.append(c)
                i += 1
                continue
            nxt = raw[i + 1] if i + 1 < len(raw) else None
            if nxt in _SIMPLE_ESCAPES:
                out.append(_SIMPLE_ESCAPES[nxt])
                i += 2
            elif nxt is not None and 48 <= nxt <= 55:
                j = i + 1
                while j < len(raw) and j < i + 4 and 48 <= raw[j] <= 55:
                    j += 1
                out.append(int(raw[i + 1:j], 8) & 0xFF)
                i = j
            elif nxt in (ord("x"), ord("X")) and i + 2 < len(raw) and chr(raw[i + 2]) in "0123456789abcdefABCDEF":
                j = i + 2
                while j < len(raw) and j < i + 4 and chr(raw[j]) in "0123456789abcdefABCDEF":
                    j += 1
                out.append(int(raw[i + 2:j], 16))
                i = j
            elif nxt is not None:  # an unknown escape stays as written, as TensorFlow's reader keeps it
                out += bytes([92, nxt])
                i += 2
            else:
                raise ValueError(f"string missing ending quote: {s[:80]!r}")
        while i < len(raw) and raw[i] in b" \t":
            i += 1
        if i < len(raw) and raw[i] == ord("#"):  # a comment after the value
            break
    return out.decode("utf-8", "replace")


def _text(state):
    lines = [f"model_checkpoint_path: {_quote(state.model_checkpoint_path)}"]
    lines += [f"all_model_checkpoint_paths: {_quote(p)}" for p in state.all_model_checkpoint_paths]
    lines += [f"all_model_checkpoint_timestamps: {t!r}" for t in state.all_model_checkpoint_timestamps]
    if state.last_preserved_timestamp:
        lines.append(f"last_preserved_timestamp: {state.last_preserved_timestamp!r}")
    return "\n".join(lines) + "\n"


def _parse(text, path):
    state = CheckpointState()
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, value = line.partition(":")
        value = value.strip()
        try:
            if name == "model_checkpoint_path":
                state.model_checkpoint_path = _unquote(value)
            elif name == "all_model_checkpoint_paths":
                state.all_model_checkpoint_paths.append(_unquote(value))
            elif name == "all_model_checkpoint_timestamps":
                state.all_model_checkpoint_timestamps.append(float(value.split("#")[0]))
            elif name == "last_preserved_timestamp":
                state.last_preserved_timestamp = float(value.split("#")[0])
            else:
                raise ValueError(f"unknown field {name!r}")
        except ValueError as e:
            raise ValueError(f"Invalid checkpoint state file {path}: {e}") from None
    return state


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The CheckpointState in `checkpoint_dir` (relative paths made absolute), or None."""
    path = os.path.join(os.fspath(checkpoint_dir), latest_filename or _STATE)
    try:
        f = open_regular(path)
    except FileNotFoundError:
        return None
    except DataLossError as e:  # a FIFO or /dev/zero would block or never end
        raise ValueError(f"Invalid checkpoint state: {e.message}") from None
    with f:
        raw = f.read(_MAX_STATE + 1)
    if len(raw) > _MAX_STATE:
        raise ValueError(f"Invalid checkpoint state file {path}: larger than {_MAX_STATE} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"Invalid checkpoint state file {path}: not UTF-8 text") from None
    try:
        state = _parse(text, path)
    except ValueError as e:  # TensorFlow's reader logs a text-format ParseError and ignores the file
        get_logger().warning(f"ParseError: {str(e).split(': ', 1)[-1]}")
        get_logger().warning(f"{path}: Checkpoint ignored")
        return None
    if not state.model_checkpoint_path:
        raise ValueError(f"Invalid checkpoint state loaded from {checkpoint_dir}")
    d = os.fspath(checkpoint_dir)
    fix = lambda p: p if os.path.isabs(p) else os.path.join(d, p)  # noqa: E731
    state.model_checkpoint_path = fix(state.model_checkpoint_path)
    state.all_model_checkpoint_paths = [fix(p) for p in state.all_model_checkpoint_paths]
    return state


def update_checkpoint_state(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None,
                            all_model_checkpoint_timestamps=None, last_preserved_timestamp=None):
    """Writes `save_dir/checkpoint`, with paths inside save_dir stored relative to it (as TensorFlow does)."""
    save_dir = os.fspath(save_dir) or "."

    def rel(p):
        p = os.fspath(p)
        return os.path.relpath(p, save_dir) if os.path.dirname(os.path.abspath(p)) == os.path.abspath(save_dir) \
            else p
    state = CheckpointState(rel(model_checkpoint_path), [rel(p) for p in all_model_checkpoint_paths or ()],
                            all_model_checkpoint_timestamps or (), last_preserved_timestamp or 0.0)
    os.makedirs(save_dir, exist_ok=True)
    path = os.path.join(save_dir, _STATE)
    tmp = f"{path}.tmp{os.getpid()}_{threading.get_ident()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(_text(state))
    os.replace(tmp, path)


def checkpoint_exists(prefix):
    return os.path.exists(index_filename(prefix))


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The prefix of the newest checkpoint recorded in `checkpoint_dir`'s state file, or None."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state and checkpoint_exists(state.model_checkpoint_path):
        return state.model_checkpoint_path
    return None


def _resolve(ckpt_dir_or_file):
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        latest = latest_checkpoint(path)
        if latest is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given directory {path}")
        return latest
    return path


class CheckpointReader:
    """What tf.train.load_checkpoint returns."""

    def __init__(self, prefix):
        self._reader = BundleReader(prefix)

    def get_tensor(self, tensor_str):
        arr = self._reader.get_tensor(tensor_str)
        return arr.reshape(-1)[0] if arr.dtype == object and arr.shape == () else arr

    def has_tensor(self, tensor_str):
        return self._reader.has_tensor(tensor_str)

    def get_variable_to_shape_map(self):
        return self._reader.shape_map()

    def get_variable_to_dtype_map(self):
        return self._reader.dtype_map()


def load_checkpoint(ckpt_dir_or_file):
    """A reader for a checkpoint prefix, or for the latest checkpoint in a directory."""
    return CheckpointReader(_resolve(ckpt_dir_or_file))


def load_variable(ckpt_dir_or_file, name):
    """The value of the tensor `name` in the checkpoint (a variable's name may end in ':0', dropped as
    TensorFlow does), as the reader's get_tensor gives it."""
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


def list_variables(ckpt_dir_or_file):
    """[(key, shape)] of every tensor in the checkpoint, sorted by key."""
    reader = load_checkpoint(ckpt_dir_or_file)
    return sorted(reader.get_variable_to_shape_map().items())


def _delete(prefix, directory):
    """Removes a checkpoint's files, those inside `directory` only: a manager sweeps the checkpoints its state
    file lists, and a forged or moved state file may name paths anywhere (TensorFlow would delete them)."""
    root = os.path.realpath(directory)
    for path in [index_filename(prefix)] + glob.glob(glob.escape(prefix) + ".data-?????-of-?????"):
        where = os.path.realpath(os.path.dirname(os.path.abspath(path)))
        if (where != root and not where.startswith(root.rstrip(os.sep) + os.sep)) or not os.path.isfile(path):
            continue  # (isfile is also False for a name too long to stat)
        try:
            os.remove(path)
        except FileNotFoundError:
            pass


class CheckpointManager:
    """Numbered checkpoints in one directory, keeping the newest `max_to_keep` (and one every
    `keep_checkpoint_every_n_hours`), recorded in the directory's `checkpoint` file."""

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
                 checkpoint_name="ckpt", step_counter=None, checkpoint_interval=None, init_fn=None):
        if not directory:
            raise ValueError("directory cannot be None.")
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError(f"Expected a positive integer or `None` for `max_to_keep`, got {max_to_keep}.")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not None.")
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._keep_every = keep_checkpoint_every_n_hours
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        self._last_checkpoint_step = None
        self._init_fn = init_fn
        self._lock = threading.RLock()
        state = get_checkpoint_state(self._directory) if os.path.isdir(self._directory) else None
        now = time.time()
        self._maybe_delete = {}
        if state is not None:
            stamps = state.all_model_checkpoint_timestamps
            if len(stamps) != len(state.all_model_checkpoint_paths):
                stamps = [now] * len(state.all_model_checkpoint_paths)
            for p, t in zip(state.all_model_checkpoint_paths, stamps):
                self._maybe_delete[p] = min(t, now)  # a clock gone backwards never preserves a checkpoint
            self._latest = state.model_checkpoint_path
            self._last_preserved = state.last_preserved_timestamp or now
        else:
            self._latest = None
            self._last_preserved = now

    directory = property(lambda self: self._directory)
    checkpoint_interval = property(lambda self: self._checkpoint_interval)
    latest_checkpoint = property(lambda self: self._latest)

    @property
    def checkpoints(self):
        return list(self._maybe_delete)

    def _sweep(self):
        if self._max_to_keep is None:
            return
        while len(self._maybe_delete) > self._max_to_keep:
            path = next(iter(self._maybe_delete))
            stamp = self._maybe_delete.pop(path)
            if self._keep_every is not None and stamp - self._keep_every * 3600.0 >= self._last_preserved:
                self._last_preserved = stamp
                continue
            _delete(path, self._directory)

    def save(self, checkpoint_number=None, check_interval=True, options=None):
        """Writes a new checkpoint; returns its path, or None when `checkpoint_interval` says not yet."""
        with self._lock:
            if self._checkpoint_interval is not None:
                step = int(getattr(self._step_counter, "numpy", lambda: self._step_counter)())
                if check_interval and self._last_checkpoint_step is not None and \
                        step < self._last_checkpoint_step + self._checkpoint_interval:
                    return None
                self._last_checkpoint_step = step
            counter = self._checkpoint.save_counter
            counter.assign_add(1)
            if checkpoint_number is None:
                checkpoint_number = int(counter.numpy())
            path = self._checkpoint.write(f"{self._prefix}-{int(checkpoint_number)}")
            self._maybe_delete.pop(path, None)
            self._maybe_delete[path] = time.time()
            self._latest = path
            self._sweep()
            update_checkpoint_state(self._directory, self._latest, list(self._maybe_delete),
                                    list(self._maybe_delete.values()), self._last_preserved)
            return path

    def restore_or_initialize(self):
        """Restores the latest checkpoint and returns its path, or runs `init_fn` and returns None."""
        if self._latest is not None:
            self._checkpoint.restore(self._latest)
            if self._checkpoint_interval is not None:
                self._last_checkpoint_step = int(self._step_counter.numpy())
            return self._latest
        if self._init_fn is not None:
            self._init_fn()
        return None
