import json
import os
import shutil

import numpy as np
import pytest

pytest.importorskip("google.protobuf")
pytest.importorskip("tensorboard.compat.proto.meta_graph_pb2")

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
with open(os.path.join(FIXTURES, "MANIFEST.json")) as _f:
    MANIFEST = {e["name"]: e for e in json.load(_f)}
NAMES = sorted(MANIFEST)
SERVING = [n for n in NAMES if MANIFEST[n].get("serving", True)]  # those with a serving_default signature


def fixture_dir(name):
    return os.path.join(FIXTURES, name)


def io(name):
    with np.load(fixture_dir(name) + ".io.npz", allow_pickle=False) as f:
        return dict(f)


def serving_inputs(name):
    """The serving_default inputs TensorFlow was called with, {name: array}."""
    return {k: io(name)[f"in_{k}"] for k in MANIFEST[name]["inputs"]}


@pytest.fixture
def copy_of(tmp_path):
    """copy_of(name) -> a writable copy of a fixture directory (for corrupting it)."""
    def make(name):
        dst = tmp_path / name
        while dst.exists():
            dst = dst.with_name(dst.name + "_")
        shutil.copytree(fixture_dir(name), dst)
        return str(dst)
    return make
