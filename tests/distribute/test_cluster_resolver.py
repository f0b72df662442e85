"""Cluster resolvers and MultiWorkerMirroredStrategy outside any worker (one worker, as TensorFlow)."""
import json

import pytest

import rivulet as tf


def test_tf_config_resolver(monkeypatch):
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": {"worker": ["host1:2222", "host2:2222"]},
                                                "task": {"type": "worker", "index": 1}}))
    r = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    assert r.cluster_spec().as_dict() == {"worker": ["host1:2222", "host2:2222"]}
    assert (r.task_type, r.task_id) == ("worker", 1)
    assert r.cluster_spec().num_tasks("worker") == 2
    with pytest.raises(ValueError, match="RayClusterResolver"):
        tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=r)
    monkeypatch.setenv("TF_CONFIG", "{not json")
    with pytest.raises(ValueError, match="TF_CONFIG is not valid JSON"):
        r.cluster_spec()


def test_single_worker_strategy(monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    s = tf.distribute.MultiWorkerMirroredStrategy()
    assert s.num_replicas_in_sync == 1 and s.extended.should_checkpoint
    assert s.extended.worker_devices == ("/job:worker/replica:0/task:0/device:CPU:0",)
    with s.scope():
        v = tf.Variable(2.0)
    out = s.run(lambda: v * 3.0)
    assert float(s.reduce("SUM", out, axis=None)) == 6.0


def test_ray_resolver_arguments():
    with pytest.raises(ValueError, match="num_workers"):
        tf.distribute.cluster_resolver.RayClusterResolver(num_workers=0)
    with pytest.raises(TypeError, match="address"):
        tf.distribute.cluster_resolver.RayClusterResolver(address=5)
    r = tf.distribute.cluster_resolver.RayClusterResolver(num_workers=3)
    assert r.cluster_spec().as_dict() == {"worker": ["ray-worker-0", "ray-worker-1", "ray-worker-2"]}
    assert r.task_id is None and r.task_type == "worker"
    with pytest.raises(TypeError):
        tf.distribute.cluster_resolver.ClusterSpec(["not", "a", "dict"])
