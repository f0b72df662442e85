"""tf.train.ClusterSpec (distribute/multi_worker_with_ctl builds one from its TF_CONFIG dict)."""
import rivulet as tf


def test_train_cluster_spec_is_the_cluster_resolvers_class():
    spec = tf.train.ClusterSpec({"worker": ["localhost:12345", "localhost:23456"]})
    assert spec.as_dict() == {"worker": ["localhost:12345", "localhost:23456"]}
    assert "chief" not in spec.as_dict() and spec.num_tasks("worker") == 2
    assert repr(spec) == "ClusterSpec({'worker': ['localhost:12345', 'localhost:23456']})"
    assert spec == tf.distribute.cluster_resolver.SimpleClusterResolver(spec).cluster_spec()
