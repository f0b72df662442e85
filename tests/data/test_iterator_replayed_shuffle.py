"""A shuffle of an endless input below a stage the saved-shuffle chain does not pass through (a filter, a zip, an
interleave): its buffer is not saved, so restoring replays the pipeline to the position. That replay is bounded:
a position past OLD_REPLAY_LIMIT (2**16) is refused at save (FailedPreconditionError, as TensorFlow refuses a
state it cannot save) and at restore (InvalidArgumentError, a hostile state: before, it ran until stopped); the
positions below it come back exactly, across the epochs of the repeat below."""
import pytest

import rivulet as tf
from rivulet.data import iterator_state, seek
from rivulet.errors import FailedPreconditionError, InvalidArgumentError
from tests.data.iterating import take as _take
from tests.deadline import deadline


R = tf.data.Dataset.range(20)
PIPELINES = {
    "filter": lambda: R.repeat().shuffle(16, seed=2).filter(lambda x: x % 3 == 0),
    "zip": lambda: tf.data.Dataset.zip((R.repeat().shuffle(4, seed=2), R.repeat().map(lambda x: x * 10))),
    "interleave": lambda: R.repeat().shuffle(4, seed=2).interleave(
        lambda x: tf.data.Dataset.range(x % 3), cycle_length=2),
    "filter-batch-prefetch": lambda: R.repeat().shuffle(5, seed=1).filter(lambda x: x < 15).batch(4).prefetch(2),
    "saved-shuffle-over-filter": lambda: R.repeat().shuffle(3, seed=1).filter(lambda x: x % 2 == 0).shuffle(
        4, seed=2),
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_near_positions_come_back_exactly(tmp_path, name):
    make = PIPELINES[name]
    want = _take(iter(make()), 140)
    for pos in (0, 1, 6, 7, 19, 20, 21, 45, 100):  # across the repeat's epochs of 20
        it = iter(make())
        _take(it, pos)
        path = tf.train.Checkpoint(iterator=it).write(str(tmp_path / f"c{pos}"))
        fresh = iter(make())
        with deadline(10):
            tf.train.Checkpoint(iterator=fresh).read(path).assert_consumed()
        assert _take(fresh, 25) == want[pos:pos + 25], pos
        assert _take(it, 25) == want[pos:pos + 25], pos
        # the same state at a hostile far position: refused at once (was replayed until stopped)
        items = iterator_state.encode(it._res, it.element_spec)
        items[2] = b"%d" % 2 ** 40
        with deadline(5), pytest.raises(InvalidArgumentError, match="positions past 65536 are refused"):
            iterator_state.restore(iter(make())._res, it.element_spec, items)


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_a_hostile_far_position_is_refused_at_once(name):
    make = PIPELINES[name]
    it = iter(make())
    _take(it, 3)
    items = iterator_state.encode(it._res, it.element_spec)
    items[2] = b"%d" % 2 ** 40
    # (saved-shuffle-over-filter: the saved shuffle's input, a filter over a shuffle, is placed by replaying)
    with deadline(5), pytest.raises(InvalidArgumentError, match="positions past 65536 are refused"):
        iterator_state.restore(it._res, it.element_spec, items)
    assert len(_take(it, 5)) == 5  # the iterator goes on as it was


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_a_state_past_the_replay_limit_is_refused_at_save(monkeypatch, tmp_path, name):
    monkeypatch.setattr(seek, "OLD_REPLAY_LIMIT", 30)
    make = PIPELINES[name]
    it = iter(make())
    _take(it, 20)
    tf.train.Checkpoint(iterator=it).write(str(tmp_path / "near"))  # below the limit: saved
    _take(it, 15)
    with pytest.raises(FailedPreconditionError, match="positions past 30 are refused"):
        tf.train.Checkpoint(iterator=it).write(str(tmp_path / "far"))


def test_a_shuffle_under_a_stage_of_known_length_is_not_limited(monkeypatch, tmp_path):
    # zip with a finite side: its length bounds any position; take() then repeat(): epochs are skipped by count
    monkeypatch.setattr(seek, "OLD_REPLAY_LIMIT", 5)
    endless = iter(tf.data.Dataset.zip((R.repeat().shuffle(4, seed=2), R.repeat())))
    _take(endless, 15)
    with pytest.raises(FailedPreconditionError, match="positions past 5 are refused"):  # both sides endless
        tf.train.Checkpoint(iterator=endless).write(str(tmp_path / "endless"))
    for make in (lambda: tf.data.Dataset.zip((R.repeat().shuffle(4, seed=2), R)),
                 lambda: R.repeat().shuffle(4, seed=2).take(9).repeat()):
        want = _take(iter(make()), 30)
        it = iter(make())
        _take(it, 15)
        path = tf.train.Checkpoint(iterator=it).write(str(tmp_path / "c"))
        fresh = iter(make())
        tf.train.Checkpoint(iterator=fresh).read(path)
        assert _take(fresh, 10) == want[15:25]
