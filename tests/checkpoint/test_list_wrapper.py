"""A list assigned to a tf.train.Checkpoint is TensorFlow's ListWrapper: what is appended after a restore receives
the value the restore kept for it (TensorFlow's checkpoint guide, "Lists and dictionaries")."""
import rivulet as tf


def test_appending_to_a_restored_list_restores_the_new_element(tmp_path):
    save = tf.train.Checkpoint()
    save.listed = [tf.Variable(1.)]
    save.listed.append(tf.Variable(2.))
    save.mapped = {"one": save.listed[0]}
    save.mapped["two"] = save.listed[1]
    path = save.save(str(tmp_path / "tf_list_example"))

    restore = tf.train.Checkpoint()
    v2 = tf.Variable(0.)
    restore.mapped = {"two": v2}
    restore.restore(path)
    assert v2.numpy() == 2.0
    restore.listed = []
    assert repr(restore.listed) == "ListWrapper([])"
    v1 = tf.Variable(0.)
    restore.listed.append(v1)  # restored from the restore() above
    assert v1.numpy() == 1.0


def test_a_list_wrapper_is_still_a_list():
    ckpt = tf.train.Checkpoint()
    ckpt.items = [1, 2]
    ckpt.items += [3]
    assert ckpt.items == [1, 2, 3] and isinstance(ckpt.items, list)
