"""An iterator whose shuffle draws from an endless (or unindexable) input checkpoints the shuffle itself, as
TensorFlow's iterator state holds its shuffle buffer: the buffered elements (serialized tensors, a composite's
components), and so the generator's place (as many numbers drawn as elements given) and the input's position
(elements given + buffered). Restoring costs the buffer's size, whatever position the checkpoint claims, and
gives exactly what the uninterrupted iterator gives.

Before, such a checkpoint held only the position, and restoring remade every element before it: a hostile
position (2**40) ran until the time limit."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.data import iterator_state
from tests.data.iterating import take as _take
from tests.deadline import deadline


PIPELINES = {
    "repeat-shuffle": lambda: tf.data.Dataset.range(40).repeat().shuffle(7, seed=3),
    "repeat-shuffle-batch": lambda: tf.data.Dataset.range(40).repeat().shuffle(7, seed=3).batch(3),
    "reshuffled-below": lambda: tf.data.Dataset.range(40).shuffle(10, seed=5).repeat().shuffle(
        7, seed=3, reshuffle_each_iteration=True),
    "map-skip-batch-prefetch": lambda: tf.data.Dataset.range(40).repeat().map(lambda x: x * 2).shuffle(
        50, seed=8).skip(3).batch(5).prefetch(3),
    "parallel-map": lambda: tf.data.Dataset.range(40).repeat().shuffle(16, seed=1).map(
        lambda x: x + 1, num_parallel_calls=4).batch(2),
    "finite-filter": lambda: tf.data.Dataset.range(40).filter(lambda x: x % 2 == 0).shuffle(8, seed=2),
    "finite-repeat-batch": lambda: tf.data.Dataset.range(40).repeat(3).shuffle(16, seed=1).batch(4).prefetch(2),
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_restored_iterators_continue_as_the_uninterrupted_one(tmp_path, name):
    make = PIPELINES[name]
    want = _take(iter(make()), 160)
    for pos in (0, 1, 5, 39, 40, 41, 83, 130):  # within, at and across epoch boundaries of the input
        if pos > len(want):
            continue
        it = iter(make())
        _take(it, pos)
        assert iterator_state.encode(it._res, it.element_spec)[0] == b"rivulet.data.Iterator/3"  # the buffer
        path = tf.train.Checkpoint(iterator=it).write(str(tmp_path / f"c{pos}"))
        fresh = iter(make())
        tf.train.Checkpoint(iterator=fresh).read(path).assert_consumed()
        assert _take(fresh, 12) == want[pos:pos + 12], pos
        assert _take(it, 12) == want[pos:pos + 12], pos  # saving changed nothing


@pytest.mark.parametrize("seed", ["op-seed", "unseeded", "global-seed"])
def test_unseeded_and_globally_seeded_shuffles_come_back_with_their_numbers(tmp_path, seed):
    def make():
        ds = tf.data.Dataset.range(40).repeat()
        return ds.shuffle(9, seed=11) if seed == "op-seed" else ds.shuffle(9)
    if seed == "global-seed":
        tf.random.set_seed(4)
    try:
        for pos in (3, 45, 90):
            it = iter(make())
            _take(it, pos)
            assert iterator_state.encode(it._res, it.element_spec)[0] == b"rivulet.data.Iterator/3"
            path = tf.train.Checkpoint(iterator=it).write(str(tmp_path / f"c{pos}"))
            want = _take(it, 15)
            fresh = iter(make())  # unseeded: other seeds, replaced by the saved ones
            tf.train.Checkpoint(iterator=fresh).read(path).assert_consumed()
            assert _take(fresh, 15) == want, pos
    finally:
        tf.random.set_seed(None)


def test_the_state_holds_the_buffer_and_a_far_position_comes_back_at_once():
    make = PIPELINES["repeat-shuffle-batch"]
    it = iter(make())
    _take(it, 4)
    items = iterator_state.encode(it._res, it.element_spec)
    assert items[0] == b"rivulet.data.Iterator/3" and items[2] == b"4"
    assert list(items[7:9]) == [b"1", b"7"] and len(items) == 9 + 7  # started, 7 buffered elements of 1 tensor
    assert tf.io.parse_tensor(items[9], tf.int64).dtype == tf.int64
    # a position of 2**40 batches (2**40 * 3 elements of the shuffle): the generator and the input are moved
    # there (PCG64.advance, the repeat's epochs skipped), the buffer as saved: before, every element was remade
    items[2] = b"%d" % 2 ** 40
    far = iter(make())
    with deadline(5):
        iterator_state.restore(far._res, far.element_spec, items)
    got = _take(far, 10)
    assert len(got) == 10 and all(0 <= x < 40 for b in got for x in b)
    again = iter(make())
    with deadline(5):
        iterator_state.restore(again._res, again.element_spec, items)
    assert _take(again, 10) == got


def test_ragged_and_sparse_elements_in_the_buffer(tmp_path):
    rt = tf.ragged.constant([[1], [2, 3], [], [4, 5, 6]])
    sp = tf.sparse.from_dense(tf.constant([[0, 7], [8, 0], [0, 0], [9, 9]]))

    def make():
        return tf.data.Dataset.from_tensor_slices((rt, sp)).repeat().shuffle(3, seed=4)

    def flat(x):
        r, s = x
        return (r.numpy().tolist(), s.indices.numpy().tolist(), s.values.numpy().tolist())
    want = [flat(x) for x in make().take(30)]
    for pos in (2, 5, 13):
        it = iter(make())
        for _ in range(pos):
            next(it)
        path = tf.train.Checkpoint(iterator=it).write(str(tmp_path / f"c{pos}"))
        fresh = iter(make())
        tf.train.Checkpoint(iterator=fresh).read(path).assert_consumed()
        assert [flat(next(fresh)) for _ in range(10)] == want[pos:pos + 10]


def test_a_state_after_the_last_partial_batch_restores_to_the_end():
    # 9 elements in batches of 4: after the third batch the position (12 of the shuffle's elements) is past the
    # 9 it gave; its empty buffer says it ended (before, its input was sought past its end)
    def make():
        return tf.data.Dataset.range(10).filter(lambda x: x < 9).shuffle(4, seed=1).batch(4)
    want = _take(iter(make()), 5)
    assert [len(b) for b in want] == [4, 4, 1]
    for pos in range(4):
        it = iter(make())
        _take(it, pos)
        items = iterator_state.encode(it._res, it.element_spec)
        fresh = iter(make())
        iterator_state.restore(fresh._res, fresh.element_spec, items)
        assert _take(fresh, 5) == want[pos:], pos


def _items(make=PIPELINES["repeat-shuffle"], pos=3):
    it = iter(make())
    _take(it, pos)
    return list(iterator_state.encode(it._res, it.element_spec))


@pytest.mark.parametrize("change,error,problem", [
    (lambda s: s[:9] + [b"x" * 20] + s[10:], tf.errors.InvalidArgumentError, "the shuffle buffer: "),
    (lambda s: s[:8] + [b"8"] + s[9:] + [s[9]], tf.errors.InvalidArgumentError,
     r"buffer length 8 is out of range \[0, 7\]"),
    (lambda s: s[:8] + [b"6"] + s[9:-1], tf.errors.InvalidArgumentError, "holds 6 elements of 7, but its input"),
    (lambda s: s[:-1], tf.errors.InvalidArgumentError, "expected 16 entries"),
    (lambda s: s[:7] + [b"2"] + s[8:], tf.errors.InvalidArgumentError, "started flag 2"),
    (lambda s: s[:7] + [b"0"] + s[8:], tf.errors.InvalidArgumentError, "not started at position 3"),
    (lambda s: s[:9] + [tf.io.serialize_tensor(tf.constant(1.5)).numpy()] + s[10:], tf.errors.InvalidArgumentError,
     r"the shuffle buffer: Type mismatch between parsed tensor \(float\) and dtype \(int64\)"),
    (lambda s: s[:9] + [tf.io.serialize_tensor(tf.constant([1, 2], tf.int64)).numpy()] + s[10:],
     tf.errors.DataLossError, r"an element of shape \(2,\)"),
    (lambda s: s[:8] + [b"0"], tf.errors.InvalidArgumentError, "empty buffer of a shuffle over an endless input"),
], ids=["bad-record", "longer-than-buffer-size", "short-buffer", "cut", "flag", "not-started", "dtype", "shape",
        "empty"])
def test_a_damaged_buffer_is_refused_and_changes_nothing(change, error, problem):
    make = PIPELINES["repeat-shuffle"]
    state = np.array(change(_items()), dtype=object)
    it = iter(make())
    head = _take(it, 2)
    with deadline(5), pytest.raises(error, match=problem):
        iterator_state.restore(it._res, it.element_spec, state)
    assert head + _take(it, 3) == _take(iter(make()), 5)


def test_a_buffer_state_for_another_pipeline_is_refused():
    state = np.array(_items(), dtype=object)
    plain = iter(tf.data.Dataset.range(40).shuffle(7, seed=3))  # a shuffle cut from its permutation: no buffer
    with pytest.raises(tf.errors.InvalidArgumentError, match="shuffle's buffer is saved"):
        iterator_state.restore(plain._res, plain.element_spec, state)


def test_states_of_the_earlier_format_replay_a_near_position_and_refuse_a_far_one():
    make = PIPELINES["repeat-shuffle"]
    want = _take(iter(make()), 60)
    items = _items()
    v1 = np.array([iterator_state.MAGIC] + items[1:7], dtype=object)  # position and random stages, no buffer
    v1[2] = b"50"
    it = iter(make())
    iterator_state.restore(it._res, it.element_spec, v1)
    assert _take(it, 10) == want[50:60]
    v1[2] = b"%d" % 2 ** 40
    with deadline(5), pytest.raises(tf.errors.InvalidArgumentError, match="older rivulet, which did not save"):
        iterator_state.restore(it._res, it.element_spec, v1)
