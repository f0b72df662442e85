"""tf.io.gfile on local files; results and errors as TensorFlow 2.21's (recorded with tensorflow-cpu)."""
import pytest

import rivulet as tf

g = tf.io.gfile


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "f.txt").write_text("hi\n")
    return tmp_path


def test_listing_and_reading(tree):
    assert sorted(g.listdir(str(tree / "a"))) == ["b", "f.txt"]
    assert g.glob(str(tree / "*" / "*")) == [str(tree / "a" / "b"), str(tree / "a" / "f.txt")]
    assert g.exists(str(tree / "a")) and not g.exists(str(tree / "x")) and g.isdir(str(tree / "a"))
    assert list(g.walk(str(tree))) == [(str(tree), ["a"], []), (str(tree / "a"), ["b"], ["f.txt"]),
                                       (str(tree / "a" / "b"), [], [])]
    st = g.stat(str(tree / "a" / "f.txt"))
    assert (st.length, st.is_directory, type(st).__name__) == (3, False, "FileStatistics") and st.mtime_nsec > 0
    with g.GFile(str(tree / "a" / "f.txt")) as f:
        assert f.read() == "hi\n" and f.size() == 3
    with g.GFile(str(tree / "a" / "f.txt"), "rb") as f:
        assert f.read() == b"hi\n"
    assert g.join("a", "b") == "a/b"


def test_changes(tree):
    g.makedirs(str(tree / "c" / "d"))
    g.mkdir(str(tree / "e"))
    g.mkdir(str(tree / "e"))  # already there: nothing happens, as in TensorFlow
    with g.GFile(str(tree / "e" / "w.txt"), "w") as f:
        f.write("x")
    g.copy(str(tree / "e" / "w.txt"), str(tree / "e" / "v.txt"))
    g.rename(str(tree / "e" / "v.txt"), str(tree / "e" / "u.txt"))
    assert sorted(g.listdir(str(tree / "e"))) == ["u.txt", "w.txt"]
    g.remove(str(tree / "e" / "u.txt"))
    g.rmtree(str(tree / "c"))
    assert sorted(g.listdir(str(tree))) == ["a", "e"]


def test_errors_match_tensorflow(tree):
    nope, f = str(tree / "nope"), str(tree / "a" / "f.txt")
    with pytest.raises(tf.errors.NotFoundError, match=f"^Could not find directory {nope}$"):
        g.listdir(nope)
    with pytest.raises(tf.errors.NotFoundError, match=f"^Could not find directory {f}$"):
        g.listdir(f)
    with pytest.raises(tf.errors.NotFoundError, match=f"^{nope}; No such file or directory$"):
        g.remove(nope)
    with pytest.raises(tf.errors.NotFoundError, match=f"^{nope} not found$"):
        g.rmtree(nope)
    with pytest.raises(tf.errors.NotFoundError, match=f"^{nope}; No such file or directory$"):
        g.stat(nope)
    with pytest.raises(tf.errors.NotFoundError, match=f"^{nope}; No such file or directory$"):
        g.GFile(nope).read()
    for fn in (g.rename, g.copy):
        with pytest.raises(tf.errors.AlreadyExistsError, match="^file already exists$"):
            fn(f, f)
