"""An iterator over a repeat of epochs of unknown length that draw random numbers (a shuffle before a filter)
checkpoints the epoch it is in and its position there: a restore sets the random stages to that epoch and
remakes at most that epoch, and gives exactly what the uninterrupted iterator gives.

Before, such a checkpoint held only the position, and restoring remade every element before it (a far
position, from an old or a hostile checkpoint, ran for hours)."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.data import iterator_state
from tests.data.iterating import take as _take
from tests.deadline import deadline


def _epochs(count=None):
    # 14 elements an epoch (the multiples of 3 below 40), in another order each epoch
    return tf.data.Dataset.range(40).shuffle(10, seed=3).filter(lambda x: x % 3 == 0).repeat(count)


PIPELINES = {
    "plain": lambda: _epochs(),
    "batch-prefetch": lambda: _epochs().batch(4).prefetch(2),
    "map-skip-batch": lambda: _epochs().map(lambda x: x + 1, num_parallel_calls=tf.data.AUTOTUNE).skip(17).batch(5),
    "finite-batch": lambda: _epochs(3).batch(4),
    # random epochs below an interleave or a flat_map (before, replayed: they were thought to draw more than once
    # an epoch), the datasets the functions make shuffled too
    "interleave": lambda: tf.data.Dataset.range(5).shuffle(5, seed=3).interleave(
        lambda x: tf.data.Dataset.range(x).shuffle(3, seed=7), cycle_length=2).repeat(),
    "flat-map": lambda: tf.data.Dataset.range(6).shuffle(4, seed=1).flat_map(
        lambda x: tf.data.Dataset.range(x % 3)).repeat().batch(3),
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_restored_iterators_continue_as_the_uninterrupted_one(tmp_path, name):
    make = PIPELINES[name]
    want = _take(iter(make()), 80)
    for pos in (0, 1, 13, 14, 15, 29, 60):
        if pos > len(want):
            continue
        it = iter(make())
        _take(it, pos)
        path = tf.train.Checkpoint(iterator=it).write(str(tmp_path / f"c{pos}"))
        fresh = iter(make())
        tf.train.Checkpoint(iterator=fresh).read(path).assert_consumed()
        assert _take(fresh, 12) == want[pos:pos + 12], pos
        if pos == 0:
            continue  # a new iteration's state: (0, 0), the skip not run yet
        # the epoch and the position in it place the elements: a far position (old code remade every element
        # before it) comes back at once with the same elements
        items = iterator_state.encode(it._res, it.element_spec)
        items[2] = b"%d" % (2 ** 40 + pos)
        far = iter(make())
        with deadline(5):
            iterator_state.restore(far._res, far.element_spec, items)
        assert _take(far, 12) == want[pos:pos + 12], pos


def test_the_state_says_the_epoch_and_the_position_in_it():
    it = iter(_epochs())
    _take(it, 50)  # three epochs of 14, then 8 of the fourth
    items = iterator_state.encode(it._res, it.element_spec)
    assert items[0] == b"rivulet.data.Iterator/2" and items[2] == b"50" and list(items[-2:]) == [b"3", b"8"]
    it = iter(_epochs(3).batch(4))
    _take(it, 20)  # to the end: 42 elements in 11 batches
    assert list(iterator_state.encode(it._res, it.element_spec)[-2:]) == [b"2", b"14"]
    plain = iter(tf.data.Dataset.range(40).filter(lambda x: x % 3 == 0).repeat())  # no random stage: version 1
    assert iterator_state.encode(plain._res, plain.element_spec)[0] == b"rivulet.data.Iterator/1"


def _state(pos, epoch, offset):
    it = iter(_epochs())
    items = list(iterator_state.encode(it._res, it.element_spec))
    items[2], items[-2], items[-1] = b"%d" % pos, b"%d" % epoch, b"%d" % offset
    return np.array(items, dtype=object)


def test_a_far_position_remakes_one_epoch_at_most():
    want = _take(iter(_epochs()), 14 * 6)
    it = iter(_epochs())
    with deadline(5):
        iterator_state.restore(it._res, it.element_spec, _state(2 ** 62, 5, 3))  # epoch 5: as after 5 * 14 + 3
    assert _take(it, 5) == want[5 * 14 + 3:5 * 14 + 8]


@pytest.mark.parametrize("pos,epoch,offset,problem", [
    (2 ** 62, 0, 2 ** 62, "position 4611686018427387904 in epoch 0 of the repeat is past that epoch's end"),
    (20, 1, 15, "past that epoch's end"),
    (2, 3, 0, "do not fit the position 2"),  # each epoch before holds an element
    (5, 0, 6, "do not fit the position 5"),
])
def test_a_position_past_its_epoch_is_invalid_argument_and_changes_nothing(pos, epoch, offset, problem):
    it = iter(_epochs())
    head = _take(it, 3)
    with deadline(5), pytest.raises(tf.errors.InvalidArgumentError, match=problem):
        iterator_state.restore(it._res, it.element_spec, _state(pos, epoch, offset))
    assert head + _take(it, 3) == _take(iter(_epochs()), 6)


def test_states_of_the_other_version_are_refused_or_read_as_epoch_zero():
    want = _take(iter(_epochs()), 20)
    it = iter(_epochs())
    v1 = np.array([iterator_state.MAGIC] + list(_state(5, 0, 5)[1:-2]), dtype=object)  # an older rivulet's
    iterator_state.restore(it._res, it.element_spec, v1)
    assert _take(it, 3) == want[5:8]
    v1[2] = b"15"
    with pytest.raises(tf.errors.InvalidArgumentError, match="read as epoch 0"):
        iterator_state.restore(it._res, it.element_spec, v1)
    plain = iter(tf.data.Dataset.range(40).filter(lambda x: x % 3 == 0).repeat())
    v2 = np.array(list(iterator_state.encode(plain._res, plain.element_spec)) + [b"0", b"1"], dtype=object)
    v2[0] = iterator_state.MAGIC_EPOCH
    with pytest.raises(tf.errors.InvalidArgumentError, match="has none"):
        iterator_state.restore(plain._res, plain.element_spec, v2)


def test_tiny_epochs_far_ahead_of_the_iterator_are_remembered_within_bounds():
    # one-element epochs, 16384 of them prefetched ahead of the iterator: each save still finds its epoch, and
    # the starts kept are those from the iterator's position on (an endless run keeps no list of every epoch)
    def make():
        return tf.data.Dataset.range(1).shuffle(1, seed=2).filter(lambda x: x >= 0).repeat().batch(256).prefetch(64)
    it = iter(make())
    _take(it, 100)
    items = iterator_state.encode(it._res, it.element_spec)
    assert list(items[-2:]) == [b"25600", b"0"]
    again = iter(make())
    with deadline(5):
        iterator_state.restore(again._res, again.element_spec, items)
    assert _take(again, 1) == [[0] * 256]
    plain = iter(_epochs())
    _take(plain, 14 * 400)
    assert len(plain._res._cursor._starts) <= 65


def test_a_filter_over_an_endless_repeat_skips_whole_epochs():
    # 14 of each epoch's 40 elements pass: position 14e + r is epoch e's r-th kept element (before: every
    # element before the position was remade, for hours at a far one)
    def make():
        return tf.data.Dataset.range(40).repeat().filter(lambda x: x % 3 == 0)
    want = _take(iter(make()), 60)
    for pos in (1, 13, 14, 15, 29, 45):
        it = iter(make())
        _take(it, pos)
        items = iterator_state.encode(it._res, it.element_spec)
        again = iter(make())
        iterator_state.restore(again._res, again.element_spec, items)
        assert _take(again, 10) == want[pos:pos + 10]
    items[2] = b"%d" % (14 * 10 ** 15 + 3)
    with deadline(5):
        iterator_state.restore(again._res, again.element_spec, items)
    assert _take(again, 3) == [9, 12, 15]
    none = iter(tf.data.Dataset.range(40).repeat().filter(lambda x: x > 100))  # keeps nothing, never ends
    items = iterator_state.encode(none._res, none.element_spec)
    items[2] = b"5"
    with deadline(5), pytest.raises(tf.errors.InvalidArgumentError, match="keeps no element"):
        iterator_state.restore(none._res, none.element_spec, items)


def test_a_refused_iterator_state_leaves_the_checkpoints_variables_as_they_were(tmp_path, monkeypatch):
    it = iter(_epochs())
    _take(it, 1)
    original = iterator_state.encode

    def past_the_epoch(resource, spec):  # position 30 said to lie in epoch 0, of 14 elements
        items = original(resource, spec)
        items[2], items[-1] = b"30", b"30"
        return items
    monkeypatch.setattr(iterator_state, "encode", past_the_epoch)
    path = tf.train.Checkpoint(a=tf.Variable(3.0), iterator=it).write(str(tmp_path / "c"))
    monkeypatch.setattr(iterator_state, "encode", original)
    v, fresh = tf.Variable(0.0), iter(_epochs())
    with pytest.raises(tf.errors.InvalidArgumentError, match="past that epoch's end"):
        tf.train.Checkpoint(a=v, iterator=fresh).read(path)
    assert float(v.numpy()) == 0.0  # was 3.0: the variable was assigned before the iterator refused
    assert _take(fresh, 2) == _take(iter(_epochs()), 2)
