"""What a tf.function leaves behind: the generated source of its compiled graphs (registered with linecache
so tracebacks show it) goes when the concrete functions go."""
import gc
import linecache
import traceback

import pytest

import rivulet as tf


def _graph_sources():
    return {k for k in linecache.cache if k.startswith("<rivulet-graph")}


def test_linecache_entries_go_with_evicted_and_cleared_functions():
    gc.collect()
    before = _graph_sources()
    f = tf.function(lambda x: x * 2 + 1)
    for i in range(600):  # 600 retraces (a Python int is traced by value); the cache keeps 128
        f(i)
    gc.collect()
    assert len(_graph_sources() - before) <= f.cache_size
    f.clear_cache()
    gc.collect()
    assert len(_graph_sources() - before) == 0


def test_linecache_entries_go_with_a_deleted_function():
    gc.collect()
    before = _graph_sources()
    g = tf.function(lambda x: x + 1)
    for i in range(20):
        g(i)
    assert len(_graph_sources() - before) >= 20
    del g
    gc.collect()
    assert len(_graph_sources() - before) == 0


def test_a_live_function_still_shows_its_generated_lines_in_tracebacks():
    f = tf.function(lambda x: tf.gather(x, 5))
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        f(tf.constant([1, 2]))
    frames = traceback.extract_tb(info.value.__traceback__)
    assert any(fr.filename.startswith("<rivulet-graph") and fr.line for fr in frames)
