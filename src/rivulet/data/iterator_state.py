"""An iterator's checkpointed state (tf.train.Checkpoint(iterator=it)): data only, never pickled.

TensorFlow saves an iterator as one value under `<path>/.ATTRIBUTES/ITERATOR_STATE` (a variant tensor
holding each stage's position and buffers). rivulet saves, under the same key, a 1-D string tensor:

    [b"rivulet.data.Iterator/1", element_spec as printed, position, number of random stages,
     then for each random stage (shuffle, sample_from_datasets, rejection_resample): seed, seed, iteration]

(numbers as decimal text). An iterator whose own repeat has epochs of unknown length that draw random numbers
(data/seek.py `tracked_repeat`: a shuffle before a filter, repeated) saves `rivulet.data.Iterator/2`: the same
entries, then the repeat's epoch and the position inside that epoch. An iterator whose shuffle draws from an
endless or unindexable input (data/seek.py `saved_shuffle`: reached from the top through maps, prefetches, batches,
takes and skips) saves `rivulet.data.Iterator/3`: the same entries, then the shuffle's state as TensorFlow saves
its buffer: started (0 or 1), the buffer's length (at most its buffer_size), and each buffered element's
components as serialized TensorProtos; its generator and its input are placed from the position (as many numbers
drawn as elements given; the input at elements given + buffered), so restoring costs the buffer whatever the
position says (a version-1 state of such a pipeline is replayed up to 2**16 elements, else refused). When that
shuffle's input is itself a repeat of random epochs of unknown length (`shuffle -> filter -> repeat -> shuffle`:
data/seek.py `tracked_repeat` of the shuffle's input), the state is `rivulet.data.Iterator/4`: as version 3, with
that repeat's epoch and the position inside it (at the shuffle's input position) before the shuffle's state, so
the input is placed by remaking at most one epoch (a version-3 state of such a pipeline replays its input up to
2**16 elements, else is refused). Restoring starts the iterator again with
the random stages as recorded and goes to the position (data/seek.py: by indexing where the stages allow, by
setting the random stages to the saved epoch and remaking at most that epoch's elements, else by remaking the
elements before it), so the elements that follow are those the saved iterator would have given; a position
past its epoch's end is InvalidArgumentError (a version-1 state of such a pipeline is read as epoch 0). As TensorFlow, saving refuses a
pipeline with external state (a generator, py_function, stateful random ops in a function) unless its options
say experimental_external_state_policy WARN or IGNORE (then such stages draw anew). A checkpoint of another pipeline (other
element_spec or random stages), or a malformed value, raises InvalidArgumentError; nothing is changed then.
"""
import re

import numpy as np

from ..errors import DataLossError, FailedPreconditionError, InvalidArgumentError, OutOfRangeError

MAGIC = b"rivulet.data.Iterator/1"
MAGIC_EPOCH = b"rivulet.data.Iterator/2"  # followed, after the random stages, by the repeat's epoch and position
MAGIC_SHUFFLE = b"rivulet.data.Iterator/3"  # followed, after the random stages, by the saved shuffle's state
MAGIC_SHUFFLE_EPOCH = b"rivulet.data.Iterator/4"  # as /3, the shuffle input's repeat's epoch and position first
ATTRIBUTE = "ITERATOR_STATE"
_MAX = (1 << 63) - 1


def check_saveable(dataset):
    """TensorFlow refuses to save an iterator whose pipeline has external state (a generator, a py_function,
    a stateful random op in a function) unless the dataset's options say
    `experimental_external_state_policy` WARN or IGNORE: FailedPreconditionError naming the op."""
    from .options import ExternalStatePolicy
    policy = dataset.options().experimental_external_state_policy
    if policy in (ExternalStatePolicy.WARN, ExternalStatePolicy.IGNORE):
        return
    for d in dataset._lineage():
        op = "PyFunc" if type(d).__name__ == "GeneratorDataset" else None
        for v in vars(d).values():
            graph = getattr(v, "graph", None) if hasattr(v, "python_function") else None
            if op is None and graph is not None:
                op = next((o.type for o in graph.get_operations() if o.type in _STATEFUL), None)
        if op is not None:
            raise FailedPreconditionError(None, None, f"{op} is stateful. [Op:SerializeIterator]")


_STATEFUL = frozenset(["PyFunc", "EagerPyFunc", "RandomUniform", "RandomUniformInt", "RandomStandardNormal",
                       "TruncatedNormal", "Multinomial", "RandomShuffle", "RandomGamma", "RandomPoisson"])


def encode(resource, element_spec):
    check_saveable(resource._dataset)
    with resource._lock:
        position, random_state, where = resource.position, list(resource.random_state), resource.epoch_position()
        shuffled = resource.shuffle_state()
    _check_replayable(resource, position, shuffled)
    if shuffled:
        where = shuffled[2]
    magic = MAGIC if where is None and shuffled is None else MAGIC_EPOCH if shuffled is None else \
        MAGIC_SHUFFLE if where is None else MAGIC_SHUFFLE_EPOCH
    items = [magic, repr(element_spec).encode(), b"%d" % position, b"%d" % len(random_state)]
    for st in random_state:
        items.extend(b"%d" % int(x) for x in st)
    if where is not None:
        items.extend(b"%d" % x for x in where)
    if shuffled is not None:
        items.extend(_shuffle_items(shuffled))
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


def _check_replayable(resource, position, shuffled):
    """A shuffle of an endless input below a stage the saved-shuffle chain does not pass through (a filter, zip,
    interleave, flat_map...) has no saved buffer: its iterator is restored by replaying up to OLD_REPLAY_LIMIT
    elements, so a state past that is refused at save (FailedPreconditionError), as TensorFlow refuses a state it
    cannot save, rather than at restore."""
    from .dataset import INFINITE
    from .seek import OLD_REPLAY_LIMIT, replayed_shuffle
    shuffle = resource._shuffle[0] if resource._shuffle is not None else None
    if shuffled and shuffled[1] + len(shuffled[0]) > OLD_REPLAY_LIMIT and shuffle._input._card() == INFINITE \
            and replayed_shuffle(shuffle._input) is not None:  # the saved shuffle's input: placed by replaying
        position = shuffled[1] + len(shuffled[0])
    elif position <= OLD_REPLAY_LIMIT or replayed_shuffle(resource._dataset, stop=shuffle) is None:
        return
    raise FailedPreconditionError(
        None, None, f"Iterator checkpoint: this iterator (position {position}) has a shuffle of an endless input "
        "below a stage other than map, batch, prefetch, take or skip (a filter, zip, interleave...), whose "
        f"buffer is not saved: restoring it replays the pipeline, and positions past {OLD_REPLAY_LIMIT} are "
        "refused. [Op:SerializeIterator]")


def _int(b, what, lo=0, hi=_MAX):
    if not isinstance(b, bytes) or not re.fullmatch(rb"-?[0-9]{1,20}", b):
        raise InvalidArgumentError(f"Iterator checkpoint: {what} is not a number: {b!r:.60}")
    v = int(b)
    if not lo <= v <= hi:
        raise InvalidArgumentError(f"Iterator checkpoint: {what} {v} is out of range [{lo}, {hi}].")
    return v


def _shuffle_items(shuffled):
    """A saved shuffle's entries: started (0 or 1), the buffer's length, then each buffered element's components
    as serialized TensorProtos (tf.io.serialize_tensor; a composite's: its components), in buffer order."""
    if shuffled is False:
        return [b"0", b"0"]
    from .composites import serialized_records
    buf = shuffled[0]
    out = [b"1", b"%d" % len(buf)]
    for e in buf:
        out.extend(serialized_records(e))
    return out


def _shuffle_decode(a, at, position, shuffle, path, where=None):
    """The saved shuffle's (buffer, elements given, where) from entries at..., or None (not started); where: its
    input's repeat's (epoch, position in it), or None (version 3); checked against
    the live shuffle's buffer_size and element_spec. DataLossError for an element that is no element of it."""
    from .composites import read_elements, record_layout, record_specs
    from .seek import repeat_position
    if a.size < at + 2:
        raise InvalidArgumentError(f"Iterator checkpoint: expected the shuffle's state after entry {at}, got "
                                   f"{a.size} entries.")
    started = _int(a[at], "the shuffle's started flag", 0, 1)
    cap = min(shuffle._buffer, 1 << 20)
    n = _int(a[at + 1], "the shuffle's buffer length", 0, cap)
    spec = shuffle.element_spec
    per = len(record_specs(record_layout(spec), spec))
    if a.size != at + 2 + n * per:
        raise InvalidArgumentError(f"Iterator checkpoint: expected {at + 2 + n * per} entries (a shuffle buffer of "
                                   f"{n} elements of {per} components), got {a.size}.")
    if not started:
        if n or position or where not in (None, (0, 0)):
            raise InvalidArgumentError(f"Iterator checkpoint: a shuffle not started at position {position} "
                                       f"holding {n} elements.")
        return None
    if n == 0 and position == 0:
        raise InvalidArgumentError("Iterator checkpoint: a started shuffle with an empty buffer at position 0.")
    records = a[at + 2:]
    if any(not isinstance(r, bytes) for r in records):
        raise InvalidArgumentError("Iterator checkpoint: a shuffle buffer entry is not bytes.")
    what = "Iterator checkpoint: the shuffle buffer"
    try:
        buf = list(read_elements(iter(records), spec, n, what, f"{what} ends early.", f"{what} holds more."))
    except (InvalidArgumentError, DataLossError) as e:
        if e.message.startswith(what):
            raise
        raise type(e)(None, None, f"{what}: {e.message}") from None
    return buf, repeat_position(path, position), where


def decode(value, element_spec, n_random, tracked=False, shuffle=None):
    """(position, random_state) from a checkpointed value, checked against the live iterator's pipeline."""
    return decode_state(value, element_spec, n_random, tracked, shuffle)[:2]


def decode_state(value, element_spec, n_random, tracked, shuffle=None):
    """(position, random_state, (epoch, position in it) or the shuffle's saved (buffer, elements given) or
    None); `tracked`: whether the live iterator's pipeline has a tracked repeat (only its states may say an
    epoch); `shuffle`: its saved shuffle's (dataset, path, ...) (only its states hold a buffer)."""
    a = np.asarray(value)
    if a.dtype != object or a.ndim != 1 or a.size < 4 or not isinstance(a[0], bytes) or \
            a[0] not in (MAGIC, MAGIC_EPOCH, MAGIC_SHUFFLE, MAGIC_SHUFFLE_EPOCH):
        raise InvalidArgumentError("Iterator checkpoint: the saved ITERATOR_STATE is not a rivulet iterator state "
                                   f"(dtype {a.dtype}, shape {list(a.shape)}); TensorFlow's own iterator states "
                                   "cannot be restored.")
    spec = a[1]
    if not isinstance(spec, bytes) or spec != repr(element_spec).encode():
        saved = spec.decode(errors="replace") if isinstance(spec, bytes) else repr(spec)
        raise InvalidArgumentError(f"Iterator checkpoint: it was saved for a dataset with element_spec "
                                   f"{saved:.300}, but this iterator's is {element_spec!r:.300}.")
    position = _int(a[2], "position")
    n = _int(a[3], "number of random stages", 0, 1 << 16)
    if n != n_random:
        raise InvalidArgumentError(f"Iterator checkpoint: it was saved for a pipeline with {n} random stages "
                                   f"(shuffle, sample_from_datasets, rejection_resample), this one has {n_random}.")
    if a[0] in (MAGIC_SHUFFLE, MAGIC_SHUFFLE_EPOCH):
        if shuffle is None:
            raise InvalidArgumentError("Iterator checkpoint: it was saved for a pipeline whose shuffle's buffer is "
                                       "saved (a shuffle of an endless or unindexable input); this one has none.")
        epoch = a[0] == MAGIC_SHUFFLE_EPOCH
        if epoch and shuffle[3] is None:
            raise InvalidArgumentError("Iterator checkpoint: it was saved for a pipeline whose shuffle's input is a "
                                       "repeat of epochs of unknown length that draw random numbers; this one's is "
                                       "not.")
        at = 4 + 3 * n + 2 * epoch
        if a.size < at:
            raise InvalidArgumentError(f"Iterator checkpoint: expected more than {at} entries, got {a.size}.")
        random_state = _random_states(a, n)
        where = (_int(a[at - 2], "epoch"), _int(a[at - 1], "position in the epoch")) if epoch else None
        return position, random_state, _shuffle_decode(a, at, position, shuffle[0], shuffle[1], where)
    epoch = a[0] == MAGIC_EPOCH
    if epoch and not tracked:
        raise InvalidArgumentError("Iterator checkpoint: it was saved for a pipeline whose repeat() has epochs of "
                                   "unknown length that draw random numbers; this one has none.")
    want = 4 + 3 * n + 2 * epoch
    if a.size != want:
        raise InvalidArgumentError(f"Iterator checkpoint: expected {want} entries, got {a.size}.")
    random_state = _random_states(a, n)
    where = (_int(a[-2], "epoch"), _int(a[-1], "position in the epoch")) if epoch else None
    if where is not None and position == 0 and where != (0, 0):
        raise InvalidArgumentError(f"Iterator checkpoint: position 0 in epoch {where[0]} at {where[1]}.")
    return position, random_state, where


def _random_states(a, n):
    return [tuple(_int(a[4 + 3 * k + j], "random state", 0 if j == 2 else -_MAX - 1,
                       _MAX if j == 2 else (1 << 64) - 1) for j in range(3)) for k in range(n)]


def restore(resource, element_spec, value):
    from .graph_ops import random_stages
    position, random_state, where = decode_state(value, element_spec, len(random_stages(resource._dataset)),
                                                 resource.tracked(), resource._shuffle)
    if not resource.restart_at(position, random_state, where):
        raise OutOfRangeError(f"Iterator checkpoint: the dataset ended before the saved position {position}.")
