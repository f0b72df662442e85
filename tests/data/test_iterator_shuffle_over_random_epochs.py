"""A shuffle whose buffer is saved (over an endless input) whose input is itself a repeat of random epochs of
unknown length (`shuffle -> filter -> repeat -> shuffle`): its state (rivulet.data.Iterator/4) holds, besides the
buffer, that repeat's epoch and the position inside it at the shuffle's input position, so restoring remakes at
most one epoch of the input. Before, the input was placed by replaying it to the saved position: a hostile far
position ran until stopped."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.data import iterator_state
from rivulet.errors import InvalidArgumentError
from tests.data.iterating import take as _take
from tests.deadline import deadline


PIPELINES = {
    "filtered-epochs": lambda: tf.data.Dataset.range(40).shuffle(8, seed=1).filter(
        lambda x: x % 3 == 0).repeat().shuffle(16, seed=2),
    "batched-prefetched": lambda: tf.data.Dataset.range(40).shuffle(8, seed=1).filter(
        lambda x: x % 3 == 0).repeat().shuffle(5, seed=2).map(lambda x: x + 1).batch(3).prefetch(2),
    "tiny-epochs": lambda: tf.data.Dataset.range(6).shuffle(6, seed=1).filter(
        lambda x: x < 2).repeat().shuffle(3, seed=2).prefetch(1),
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_restored_iterators_continue_as_the_uninterrupted_one(tmp_path, name):
    make = PIPELINES[name]
    want = _take(iter(make()), 700)
    # within, at and across the input's epoch boundaries (14 or 2 elements an epoch); 650: past the 64 epoch
    # starts the cursor keeps
    for pos in (0, 1, 13, 14, 15, 29, 100, 650):
        it = iter(make())
        _take(it, pos)
        if pos:
            assert iterator_state.encode(it._res, it.element_spec)[0] == b"rivulet.data.Iterator/4"
        path = tf.train.Checkpoint(iterator=it).write(str(tmp_path / f"c{pos}"))
        fresh = iter(make())
        with deadline(10):
            tf.train.Checkpoint(iterator=fresh).read(path).assert_consumed()
        assert _take(fresh, 30) == want[pos:pos + 30], pos
        assert _take(it, 30) == want[pos:pos + 30], pos  # saving changed nothing


def test_the_state_says_the_input_epoch_and_a_far_position_comes_back_at_once():
    make = PIPELINES["filtered-epochs"]
    it = iter(make())
    _take(it, 3)
    items = iterator_state.encode(it._res, it.element_spec)
    # 3 given + 16 buffered = the input's element 19: epoch 1 (14 elements an epoch), its element 5
    assert items[0] == b"rivulet.data.Iterator/4" and list(items[10:14]) == [b"1", b"5", b"1", b"16"]
    items[2] = b"%d" % 2 ** 40  # 2**40 elements given, the input's epoch far on: was a replay to 2**40 + 16
    items[10] = b"%d" % 2 ** 36
    far = iter(make())
    with deadline(5):
        iterator_state.restore(far._res, far.element_spec, items)
    got = _take(far, 20)
    assert len(got) == 20 and all(x % 3 == 0 for x in got)
    again = iter(make())
    with deadline(5):
        iterator_state.restore(again._res, again.element_spec, items)
    assert _take(again, 20) == got


@pytest.mark.parametrize("epoch,offset,problem", [
    (b"3", b"20", "past that epoch.s end"),  # an epoch holds 14
    (b"%d" % 2 ** 50, b"2", "do not fit"),  # more epochs than elements before
])
def test_an_epoch_that_does_not_fit_is_refused_and_changes_nothing(epoch, offset, problem):
    make = PIPELINES["filtered-epochs"]
    it = iter(make())
    _take(it, 40)
    items = iterator_state.encode(it._res, it.element_spec)
    items[10], items[11] = epoch, offset
    want = _take(iter(make()), 50)[40:]
    with deadline(5), pytest.raises(InvalidArgumentError, match=problem):
        iterator_state.restore(it._res, it.element_spec, items)
    assert _take(it, 10) == want


def test_a_state_without_the_epoch_replays_a_near_input_and_refuses_a_far_one():
    make = PIPELINES["filtered-epochs"]
    it = iter(make())
    _take(it, 30)
    items = list(iterator_state.encode(it._res, it.element_spec))
    v3 = np.array([b"rivulet.data.Iterator/3"] + items[1:10] + items[12:], dtype=object)
    near = iter(make())
    iterator_state.restore(near._res, near.element_spec, v3)
    assert _take(near, 10) == _take(iter(make()), 40)[30:]
    v3[2] = b"%d" % 2 ** 40
    with deadline(5), pytest.raises(InvalidArgumentError, match="older rivulet"):
        iterator_state.restore(iter(make())._res, it.element_spec, v3)
    # an epoch for a pipeline whose shuffle's input has no such repeat
    other = iter(tf.data.Dataset.range(40).shuffle(8, seed=1).repeat().shuffle(16, seed=2))
    with pytest.raises(InvalidArgumentError, match="repeat of epochs of unknown length"):
        iterator_state.restore(other._res, other.element_spec, items and np.array(items, dtype=object))
