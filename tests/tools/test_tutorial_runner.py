"""tools/tutorials/run_tutorials.py: how notebook cells are rewritten, served and scored (no notebook is run)."""
import gzip
import io
import json
import os
import sys
import urllib.request

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "tutorials"))
import run_tutorials as rt  # noqa: E402
import synthetic  # noqa: E402


def test_imports_magics_and_epochs_are_rewritten():
    src = ("!pip install -q seaborn\n%matplotlib inline\nimport tensorflow as tf\n"
           "from tensorflow import keras\nfrom tensorflow.keras.layers import Dense\n"
           "import tensorflow.keras.backend as K\nEPOCHS = 50\nmodel.fit(x, y, epochs=10, verbose=0)\n"
           "model.fit(x, y, epochs=1)\nepochs = range(1, 5)")
    code = rt.transform(src)
    assert code.splitlines() == [
        "pass", "pass", "import rivulet as tf", "from rivulet import keras", "from rivulet.keras.layers import Dense",
        "import rivulet.keras.backend as K", "EPOCHS = 2", "model.fit(x, y, epochs=2, verbose=0)",
        "model.fit(x, y, epochs=1)", "epochs = range(1, 5)"]


def test_cells_left_without_code_are_not_cells():
    assert rt.transform("# Licensed under the Apache License\n# comment only") is None
    assert rt.transform("!ls saved_model") is None
    assert rt.transform("%%bash\nls") is None
    assert rt.transform("%%time\nx = 1") == "x = 1"
    assert rt.transform("if True:\n  !ls\n  y = 2") == "if True:\n  pass\n  y = 2"


def test_cells_needing_tensorflow_itself_are_not_scored():
    nb = {"cells": [{"cell_type": "markdown", "source": ["# t"]},
                    {"cell_type": "code", "source": ["import tensorflow_docs as tfdocs"]},
                    {"cell_type": "code", "source": ["x = 1"]}]}
    assert [c["scored"] for c in rt.code_cells(nb)] == [False, True]


def test_blocked_cells_count_against_the_cause_that_blocked_them():
    def cell(i, code, err=None):
        return {"index": i, "scored": True, "error": err, "defines": rt.defined_names(code)}
    report = [{"name": "nb", "cells": [
        cell(0, "ds = load()", {"type": "ValueError", "message": "bad file\nmore", "where": "", "missing": None}),
        cell(1, "m = f(ds)", {"type": "NameError", "message": "name 'ds' is not defined", "where": "",
                              "missing": "ds"}),
        cell(2, "m.fit()", {"type": "NameError", "message": "name 'm' is not defined", "where": "", "missing": "m"}),
        cell(3, "print(1)"),
        cell(4, "train()", {"type": "MemoryLimit", "message": "the cell held more than 3 GiB", "where": "",
                            "missing": None}),
        cell(5, "x", {"type": "NotRun", "message": "", "where": ""})]}]
    causes = rt.summarise(report)
    assert causes["ValueError: bad file"]["direct"] == 1 and causes["ValueError: bad file"]["blocked"] == 2
    assert causes["MemoryLimit: the cell held more than 3 GiB"]["blocked"] == 1
    md, passed, scored = rt.markdown(report, causes, "0" * 40)
    assert (passed, scored) == (1, 6)
    assert "| nb | 1 / 6 | #0: `ValueError: bad file` |" in md


def test_downloads_are_served_from_the_synthetic_files(tmp_path, monkeypatch):
    import rivulet as tf
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    files = {synthetic.KERAS + "mnist.npz": synthetic.mnist_npz()}
    files.update({synthetic.KERAS + k: v for k, v in synthetic.fashion_files().items()})
    old = urllib.request._opener
    from rivulet.keras import data_utils
    real = data_utils.validate_file
    try:
        rt._install_network(files)
        (x, y), (xt, yt) = tf.keras.datasets.mnist.load_data()  # through get_file's hash check
        assert x.shape == (9000, 28, 28) and x.dtype == np.uint8 and y.dtype == np.uint8 and xt.shape[0] == 200
        (fx, fy), _ = tf.keras.datasets.fashion_mnist.load_data()
        assert fx.shape == (1200, 28, 28) and fy.shape == (1200,)
        with pytest.raises(Exception, match="URL fetch failure"):
            tf.keras.utils.get_file("other.csv", "https://example.invalid/other.csv")
    finally:
        urllib.request.install_opener(old)
        data_utils.validate_file = real


def test_synthetic_files_have_the_real_layouts():
    head = gzip.decompress(synthetic.fashion_files()["train-images-idx3-ubyte.gz"])[:16]
    assert head[:4] == b"\x00\x00\x08\x03" and int.from_bytes(head[4:8], "big") == 1200
    rows = synthetic.heart().decode().splitlines()
    assert rows[0].split(",")[-2:] == ["thal", "target"] and len(rows) == 304
    assert synthetic.auto_mpg().decode().splitlines()[7].split()[3] == "?"
    assert json.loads(json.dumps(rt.NOTEBOOKS)) == rt.NOTEBOOKS and len(rt.NOTEBOOKS) >= 17
    assert io.BytesIO(synthetic.mnist_npz()).read(2) == b"PK"


def test_set_guides_runs_the_pinned_guides_from_site_en_guide(tmp_path, monkeypatch):
    nb = {"cells": [{"cell_type": "code", "source": ["import tensorflow as tf\n", "x = tf.constant(1)"]}]}
    (tmp_path / "site/en/guide/core").mkdir(parents=True)
    (tmp_path / "site/en/guide/core/matrix_core.ipynb").write_text(json.dumps(nb))
    seen = []

    def run_notebook(name, cells, log_dir, python, src):
        seen.append((name, [c["code"] for c in cells]))
        return {0: {"cell": 0, "error": None, "seconds": 0.0}}, 0.0

    monkeypatch.setattr(rt, "run_notebook", run_notebook)
    out = tmp_path / "report.md"
    rt.main(["--set", "guides", "--docs", str(tmp_path), "--only", "core/matrix_core", "--out", str(out),
             "--logs", str(tmp_path / "logs")])
    assert seen == [("core/matrix_core", ["import rivulet as tf\nx = tf.constant(1)"])]
    md = out.read_text()
    assert "TensorFlow's guides (tensorflow/docs `7c36502127`, `site/en/guide/`)" in md
    assert "| core/matrix_core | 1 / 1 |  |" in md
    assert {"basics", "function", "data", "checkpoint", "saved_model"} <= set(rt.GUIDES)
    with pytest.raises(SystemExit):  # a tutorial is not a guide
        rt.main(["--set", "guides", "--docs", str(tmp_path), "--only", "quickstart/beginner"])


def test_synthetic_files_for_the_guides_read_back(tmp_path):
    import rivulet as tf
    path = tmp_path / "fsns.tfrec"
    path.write_bytes(synthetic.fsns_tfrec())
    raw = next(iter(tf.data.TFRecordDataset([str(path)])))  # the framing's CRCs are checked
    feature = tf.train.Example.FromString(raw.numpy()).features.feature
    assert feature["image/text"].bytes_list.value[0] == b"Rue de Provence"
    assert tf.image.decode_png(feature["image/encoded"].bytes_list.value[0]).shape == (150, 600, 3)
    rows = synthetic.wdbc().decode().splitlines()
    assert len(rows[0].split(",")) == 32 and rows[0].split(",")[1] in ("M", "B")
    assert synthetic.imagenet_labels().decode().splitlines()[0] == "background"


def test_ipython_cell_forms_run_as_in_a_notebook(tmp_path, monkeypatch):
    nb = {"cells": [{"cell_type": "code", "source": ["%%writefile missing.csv\n", "1,2\n", ",4"]},
                    {"cell_type": "code", "source": ["tf.keras.Input?"]},
                    {"cell_type": "code", "source": [" for x in [1]:\n", "   print(x)"]}]}
    cells = rt.code_cells(nb)
    assert [c["scored"] for c in cells] == [False, True]  # the help line alone is no cell
    monkeypatch.chdir(tmp_path)
    exec(cells[0]["code"], {})
    assert (tmp_path / "missing.csv").read_text() == "1,2\n,4\n"
    assert cells[1]["code"] == "for x in [1]:\n  print(x)"


def test_requests_downloads_are_served_too():
    requests = pytest.importorskip("requests")
    import requests.adapters
    from rivulet.keras import data_utils
    real, validate = requests.adapters.HTTPAdapter.send, data_utils.validate_file
    old = urllib.request._opener
    try:
        rt._install_network({"https://example.invalid/a.jpg": b"\xff\xd8jpeg"})
        assert requests.get("https://example.invalid/a.jpg", stream=True).raw.read() == b"\xff\xd8jpeg"
        with pytest.raises(requests.ConnectionError, match="offline"):
            requests.get("https://example.invalid/other.jpg")
    finally:
        requests.adapters.HTTPAdapter.send, data_utils.validate_file = real, validate
        urllib.request.install_opener(old)


def test_autograph_reads_the_source_of_functions_a_cell_defines(capsys):
    ns = {"__name__": "__main__"}
    rt._run_cell("import rivulet as tf\n@tf.function\ndef relu(x):\n  if tf.greater(x, 0):\n    return x\n"
                 "  else:\n    return tf.zeros_like(x)\n", ns, "<nb cell 0>")
    rt._run_cell("print(relu(tf.constant(-1.5)).numpy())", ns, "<nb cell 1>")  # a tensor `if`: a Cond op
    assert capsys.readouterr().out.strip() == "0.0"


def test_epoch_counts_named_like_epochs_are_capped_too():
    code = rt.transform("initial_epochs = 10\nfine_tune_epochs = 10\n"
                        "def compile_and_fit(model, name, max_epochs=10000):\n  pass\n"
                        "model.fit(x, epochs=initial_epochs + 3, initial_epoch=5)\nepochs_seen = 7")
    assert code.splitlines() == ["initial_epochs = 2", "fine_tune_epochs = 2",
                                 "def compile_and_fit(model, name, max_epochs=2):", "  pass",
                                 "model.fit(x, epochs=initial_epochs + 3, initial_epoch=5)", "epochs_seen = 7"]


def test_cells_that_need_a_package_built_on_tensorflow_are_not_scored():
    nb = {"cells": [{"cell_type": "code", "source": [src]} for src in (
        "import tensorflow as tf\nimport tensorflow_compression as tfc\nimport tensorflow_text as tf_text",
        "import tensorflow_docs.vis.embed as embed",
        "def get_callbacks():\n  return [tfdocs.modeling.EpochDots()]",
        "class Tok:\n  def __init__(self):\n    self.t = tf_text.UnicodeScriptTokenizer()",
        "tokenizer = Tok()", "ds = tokenizer(1)", "prior = tfc.NoisyLogistic(loc=0.)", "hist = fit(get_callbacks())",
        "x = undefined_here")]}
    cells = rt.code_cells(nb)
    assert [c["scored"] for c in cells] == [False, False, True, True, True, True, True, True, True]

    def err(name):
        return {"type": "NameError", "message": f"name '{name}' is not defined", "where": "", "missing": name}
    errors = [None, None, None, None, err("tf_text"), err("tokenizer"), err("tfc"), err("tfdocs"),
              err("undefined_here")]
    report = [dict(c, error=e, index=i) for i, (c, e) in enumerate(zip(cells, errors))]
    rt.unscore_tf_only(report)
    # tfdocs is bound by no import here: only tfc, tf_text and embed (and what cells left unscored bind) count
    assert [c["scored"] for c in report] == [False, False, True, True, False, False, False, True, True]


def test_synthetic_files_of_the_added_tutorials_have_the_real_layouts():
    import tarfile
    import zipfile
    with tarfile.open(fileobj=io.BytesIO(synthetic.stack_overflow_tgz())) as t:
        names = t.getnames()
    assert "train/python/1755.txt" in names and "README.md" in names
    assert {n.split("/")[1] for n in names if n.startswith("test/")} == {"csharp", "java", "javascript", "python"}
    rows = gzip.decompress(synthetic.higgs_gz()).decode().splitlines()
    assert len(rows) == 11000 and len(rows[0].split(",")) == 29 and rows[0].split(",")[0] in (
        "1.000000000000000000e+00", "0.000000000000000000e+00")
    with zipfile.ZipFile(io.BytesIO(synthetic.cats_and_dogs_zip())) as z:
        names = z.namelist()
    assert sum(n.startswith("cats_and_dogs_filtered/validation/dogs/") for n in names) == 96
    index = json.loads(synthetic.imagenet_class_index())
    assert len(index) == 1000 and len(index["999"]) == 2


def test_a_cell_goes_on_past_an_import_of_a_package_built_on_tensorflow():
    nb = {"cells": [{"cell_type": "code", "source": [
        "import numpy as np\nimport tensorflow as tf\nimport tensorflow_probability as tfp\nimport time"]}]}
    (cell,) = rt.code_cells(nb)
    assert cell["code"].splitlines() == ["import numpy as np", "import rivulet as tf",
                                         "try: import tensorflow_probability as tfp",
                                         "except ImportError: pass", "import time"]
    assert not cell["scored"]
    ns = {}
    exec(cell["code"].replace("import rivulet as tf", ""), ns)  # (no tensorflow_probability here)
    assert "time" in ns and "np" in ns


def test_a_python_file_written_by_a_cell_is_rewritten_as_cells_are(tmp_path, monkeypatch):
    nb = {"cells": [{"cell_type": "code", "source": [
        "%%writefile mnist_setup.py\n", "\n", "import tensorflow as tf\n", "model.fit(ds, epochs=70)"]},
        {"cell_type": "code", "source": ["%%writefile notes.txt\n", "import tensorflow as tf"]}]}
    cells = rt.code_cells(nb)
    monkeypatch.chdir(tmp_path)
    for c in cells:
        exec(c["code"], {})
    assert (tmp_path / "mnist_setup.py").read_text() == "\nimport rivulet as tf\nmodel.fit(ds, epochs=2)\n"
    assert (tmp_path / "notes.txt").read_text() == "import tensorflow as tf\n"  # not Python: as written


def test_synthetic_speech_commands_are_16khz_wavs():
    import zipfile
    import rivulet as tf
    with zipfile.ZipFile(io.BytesIO(synthetic.speech_commands_zip())) as z:
        names = z.namelist()
        wav = z.read("mini_speech_commands/no/01bb6a2a_nohash_0.wav")
    assert {n.split("/")[1] for n in names if n.endswith(".wav")} == {
        "down", "go", "left", "no", "right", "stop", "up", "yes"}
    audio, rate = tf.audio.decode_wav(wav, desired_channels=1)
    assert int(rate) == 16000 and audio.shape[1] == 1 and audio.shape[0] <= 16000


def test_a_percent_line_continuing_a_statement_is_python_not_a_magic():
    # distribute/multi_worker_with_ctl: print('Epoch: %d ...'\n %(epoch.numpy(), ...))
    code = rt.transform("print('Epoch: %d.'\n      %(e, f))\n!ls\nif x:\n  %timeit f()\ny = '''\n%s\n'''")
    assert code.splitlines() == ["print('Epoch: %d.'", "      %(e, f))", "pass", "if x:", "  pass", "y = '''",
                                 "%s", "'''"]


# ---------------------------------------------------------------------------------------------- tfds stand-in
sys.path.insert(0, rt.STAND_INS)
import tensorflow_datasets as tfds  # noqa: E402  (the stand-in: tools/tutorials/stand_ins)


def test_tensorflow_datasets_is_served_by_the_stand_in_and_its_cells_are_scored():
    assert tfds.__file__.startswith(rt.STAND_INS)
    nb = {"cells": [{"cell_type": "code", "source": ["import tensorflow as tf\nimport tensorflow_datasets as tfds"]},
                    {"cell_type": "code", "source": ["import tensorflow_compression as tfc"]},
                    {"cell_type": "code", "source": ["from tensorflow_examples.models.pix2pix import pix2pix"]}]}
    assert [c["scored"] for c in rt.code_cells(nb)] == [True, False, True]


def test_tfds_load_reads_splits_and_slices_as_tfds_does():
    import rivulet as tf
    (a, b, c), info = tfds.load("tf_flowers", split=["train[:80%]", "train[80%:90%]", "train[90%:]"],
                                with_info=True, as_supervised=True)
    n = info.splits["train"].num_examples
    assert [int(d.cardinality()) for d in (a, b, c)] == [round(.8 * n), round(.9 * n) - round(.8 * n),
                                                         n - round(.9 * n)]
    assert a.element_spec == (tf.TensorSpec((None, None, 3), tf.uint8), tf.TensorSpec((), tf.int64))
    image, label = next(iter(a))
    assert image.shape[2] == 3 and image.shape[0] >= 210 and image.shape[1] >= 300  # data_augmentation's crop
    assert info.features["label"].num_classes == 5 and info.features["label"].int2str(1) == "daisy"
    assert info.splits["train[:80%]"].num_examples == round(.8 * n)
    # split=None: every split, by name; the feature dict as stored when not as_supervised
    ds = tfds.load("mnist")
    assert sorted(ds) == ["test", "train"]
    assert ds["train"].element_spec == {"image": tf.TensorSpec((28, 28, 1), tf.uint8),
                                        "label": tf.TensorSpec((), tf.int64)}
    # batch_size=-1: the whole split as tensors; 'train[10:20]+test[:5]' concatenates
    x, y = tfds.load("mnist", split="train[10:20]+test[:5]", batch_size=-1, as_supervised=True)
    assert x.shape == (15, 28, 28, 1) and y.dtype == tf.int64
    pets, info = tfds.load("oxford_iiit_pet:3.*.*", with_info=True)
    ex = next(iter(pets["train"]))
    assert ex["segmentation_mask"].shape[2] == 1 and set(np.unique(ex["segmentation_mask"])) <= {1, 2, 3}
    assert info.version == "3.2.0" and info.features["label"].num_classes == 37
    with pytest.raises(AssertionError, match="cannot be loaded at version 9"):
        tfds.load("oxford_iiit_pet:9.*.*")
    with pytest.raises(ValueError, match="Unknown split"):
        tfds.load("mnist", split="validation")
    with pytest.raises(tfds.core.DatasetNotFoundError, match="Dataset nope not found"):
        tfds.load("nope")


def test_tfds_features_print_as_tfds_prints_them():
    _, info = tfds.load("penguins/processed", split="train", with_info=True)
    assert repr(info.features) == ("FeaturesDict({\n    'features': Tensor(shape=(4,), dtype=float32),\n"
                                   "    'species': ClassLabel(shape=(), dtype=int64, num_classes=3),\n})")
    _, info = tfds.load("penguins/simple", split="train", with_info=True)
    assert "    'body_mass_g': float32,\n" in repr(info.features)
    df = tfds.as_dataframe(tfds.load("penguins/processed", split="train[:3]", as_supervised=True), info)
    assert df.shape == (3, 2) and list(df.columns) == ["0", "1"]


def test_a_cells_source_is_kept_with_every_line_ending_in_a_newline_as_ipython_keeps_it():
    import linecache
    ns = {"__name__": "__main__"}
    rt._run_cell("import rivulet as tf\nds = tf.data.Dataset.range(3)", ns, "<nb cell 0>")
    # images/data_augmentation: a lambda on the cell's last line, which AutoGraph reads back
    rt._run_cell("ds2 = ds.map(\n  lambda x: x * 2)", ns, "<nb cell 1>")
    assert linecache.getlines("<nb cell 1>") == ["ds2 = ds.map(\n", "  lambda x: x * 2)\n"]
    assert list(ns["ds2"].as_numpy_iterator()) == [0, 2, 4]


def test_an_epoch_count_set_as_a_keyword_default_is_capped_too():
    # optimization/compression: train_model(..., **kwargs) with kwargs.setdefault("epochs", 5)
    code = rt.transform('kwargs.setdefault("epochs", 5)\nkwargs.setdefault("verbose", 5)\n'
                        "kw.setdefault('max_epochs', 1)")
    assert code.splitlines() == ['kwargs.setdefault("epochs", 2)', 'kwargs.setdefault("verbose", 5)',
                                 "kw.setdefault('max_epochs', 1)"]


def test_pix2pix_stand_in_builds_the_papers_blocks():
    import rivulet as tf
    from tensorflow_examples.models.pix2pix import pix2pix
    x = tf.random.uniform([2, 16, 16, 3])
    down = pix2pix.downsample(8, 4, norm_type="instancenorm")
    assert down(x).shape == (2, 8, 8, 8)
    assert [type(l).__name__ for l in down.layers] == ["Conv2D", "InstanceNormalization", "LeakyReLU"]
    up = pix2pix.upsample(5, 4, apply_dropout=True)
    assert up(x).shape == (2, 32, 32, 5)
    assert [type(l).__name__ for l in up.layers] == ["Conv2DTranspose", "BatchNormalization", "Dropout", "ReLU"]
    norm = pix2pix.InstanceNormalization()
    y = norm(x * 3 + 1).numpy()
    scale = norm.scale.numpy()
    np.testing.assert_allclose(y.mean(axis=(1, 2)), np.zeros((2, 3)) + norm.offset.numpy(), atol=1e-5)
    np.testing.assert_allclose(y.std(axis=(1, 2)), np.broadcast_to(np.abs(scale), (2, 3)), rtol=1e-3)
    disc = pix2pix.discriminator(norm_type="instancenorm", target=True)
    assert [i.name for i in disc.inputs] == ["input_image", "target_image"]
    assert disc([tf.zeros((1, 64, 64, 3))] * 2).shape == (1, 6, 6, 1)  # 256x256 gives the paper's 30x30


def test_tensorflow_baseline_keeps_the_imports(monkeypatch):
    # bench/bench_programs.py runs the same cells on TensorFlow itself: imports kept, epochs still capped
    monkeypatch.setattr(rt, "REWRITE_IMPORTS", [False])
    assert rt.transform("import tensorflow as tf\nmodel.fit(x, epochs=10)").splitlines() == [
        "import tensorflow as tf", "model.fit(x, epochs=2)"]


def test_cifar_batches_are_python2_pickles():
    # as the real files (Python 2 str opcodes, read as bytes): no _codecs.encode call, which Keras 3 refuses
    import pickle
    import pickletools
    import tarfile
    with tarfile.open(fileobj=io.BytesIO(synthetic.cifar10_tar())) as tar:
        data = tar.extractfile("cifar-10-batches-py/data_batch_1").read()
    ops = {op.name for op, _, _ in pickletools.genops(data)}
    assert "SHORT_BINSTRING" in ops and "BINSTRING" in ops and "SHORT_BINBYTES" not in ops
    assert b"_codecs" not in data
    batch = pickle.loads(data, encoding="bytes")
    assert batch[b"data"].shape == (200, 3072) and len(batch[b"labels"]) == 200


def test_jena_columns_vary():
    # the tutorial divides each column by its std: a constant synthetic column made every value (and loss) NaN
    import csv
    import zipfile
    with zipfile.ZipFile(io.BytesIO(synthetic.jena_zip())) as z:
        rows = list(csv.reader(io.TextIOWrapper(z.open("jena_climate_2009_2016.csv"))))
    cols = np.array([[float(v) for v in r[1:]] for r in rows[1:]])
    assert (cols.std(axis=0) > 0).all()
