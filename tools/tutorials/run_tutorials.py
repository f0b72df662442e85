"""How much of TensorFlow's own tutorials runs unchanged on rivulet.

Get the tutorials (a clone of tensorflow/docs at the commit in NOTEBOOKS, or any later one):

    git clone https://github.com/tensorflow/docs /tmp/tf-docs && git -C /tmp/tf-docs checkout <COMMIT>

Run against another rivulet tree (e.g. an older commit, to measure before/after) with `--src PATH/src`.

Run (needs pandas, matplotlib, seaborn, scikit-learn, ipython, imageio and Pillow beside rivulet; none of
them is a rivulet dependency):

    pip install 'pandas<3' matplotlib seaborn scikit-learn ipython imageio pillow h5py

(pandas 2, which the tutorials are written for: under pandas 3, `np.split(dataframe, ...)` in
structured_data/preprocessing_layers returns NumPy arrays and the notebook fails before reaching rivulet.)
    python tools/tutorials/run_tutorials.py --docs /tmp/tf-docs [--only quickstart/beginner] [--out report.md]

`--set guides` runs GUIDES (site/en/guide/) instead of NOTEBOOKS (site/en/tutorials/); `--only` names one of
the chosen set.

`--docs` may be a work tree or a bare mirror (the notebooks are then read with `git show COMMIT:PATH`).

What the runner does to each notebook, and nothing else:
- takes its code cells in order and runs them in one namespace, in a subprocess of its own per notebook,
  in a fresh temporary directory (the cwd), with HOME and KERAS_HOME inside it, MPLBACKEND=Agg;
- lets a cell go on past a one-line import of a package built on TensorFlow (UNSCORED_IMPORTS, below:
  `try: import tensorflow_probability as tfp` / `except ImportError: pass`), so the rest of the cell runs;
- rewrites the imports: `import tensorflow as tf` -> `import rivulet as tf`, `from tensorflow(.x) import`
  -> `from rivulet(.x) import`, `import tensorflow.x as y` -> `import rivulet.x as y`, and `import keras` /
  `from keras(.x) import` (the guides' name for `tf.keras`) and `import tf_keras as keras` / `from
  tf_keras(.x) import` (Keras 2's own package) -> rivulet's Keras;
- drops shell and magic lines (`!pip ...`, `%matplotlib`, `%load_ext`) and the `%%time` cell magic line;
  a cell that was nothing but magics or comments is not scored;
- shrinks training: an integer literal larger than MAX_EPOCHS given to `epochs=` (or to a keyword or default
  ending in `_epochs`, e.g. `max_epochs=10000`), or assigned to a name `epochs`/`EPOCHS` or ending in
  `_epochs`/`_EPOCHS` (`MAX_EPOCHS`, `initial_epochs`, `fine_tune_epochs`), or set as a default with
  `kwargs.setdefault("epochs", 5)`, becomes MAX_EPOCHS (2); a name ending in `episodes` assigned more than
  MAX_EPISODES (actor_critic's `max_episodes = 10000`) becomes MAX_EPISODES (20), and a `steps=` keyword
  given more than LONG_STEPS (1,000: pix2pix's `fit(..., steps=40000)`) becomes MAX_STEPS (10). The synthetic data
  sets are small too (a few hundred rows; MNIST 9,000, what multi_worker_with_ctl's 70 steps of 128 take;
  tfds's MNIST 6,000, horse2zebra 6 + 6), so no other rewrite is needed;
- keeps each cell's source in linecache, as IPython does (AutoGraph reads the functions a cell defines);
- shows the value of a cell's last expression with repr(), as the notebook would (a repr that raises
  fails the cell), with IPython's modules loaded as in a notebook (where ipython is installed);
- runs `%%writefile NAME` cells as IPython does (writes the file; not scored; a `.py` file's imports and
  epochs are rewritten as a cell's, since later cells import it), drops IPython's help lines
  (`obj?`) and a cell's leading indentation (IPython's leading_indent);
- serves the files the tutorials download from `synthetic.py` (the real formats: npz, IDX gzip, CIFAR's
  pickled batches in a tar.gz, the aclImdb, flower_photos and stack_overflow_16k archives, cats_and_dogs and
  mini_speech_commands (16 kHz wavs) zips, HIGGS.csv.gz, the CSVs with their real columns, Keras applications'
  h5 weights of the right shapes, ImageNet's label file, pix2pix's facades archive, ESC-50's zip of 44.1 kHz
  clips with its esc50.csv, MAESTRO's zip of MIDI files) through
  an urllib handler (and a `requests` adapter), so `tf.keras.utils.get_file`, `tf.keras.datasets.*` and `pandas.read_csv(url)` read them
  through their ordinary download path into the ordinary cache; any other URL fails as offline;
- accepts the synthetic files where a loader checks the real file's hash (rivulet.keras.data_utils'
  validate_file is told the synthetic file's sha256 is good; a real file would pass unchanged);
- puts STAND_INS (tools/tutorials/stand_ins/) on the notebook's path: `tensorflow_datasets` (tfds.load,
  builder, as_numpy, as_dataframe, show_examples and split slicing over synthetic data sets built with
  rivulet's tf.data in the real feature structures, dtypes and shapes, with fewer examples: its
  docstring and SIZES list them) and `tensorflow_examples.models.pix2pix` (pix2pix's blocks, U-Net
  generator, PatchGAN discriminator and InstanceNormalization, written for rivulet from the paper's
  architecture), `tensorflow_hub` (hub.load / KerasLayer over small random-weight modules built with rivulet
  in the real modules' interface, saved with tf.saved_model.save into the hub cache, TFHUB_CACHE_DIR, set
  inside the notebook's directory, and loaded back with tf.saved_model.load), `tensorflow_io`
  (audio.resample), `gym` (CartPole-v1's dynamics in gym 0.26's API), `keras_tuner` (Hyperband and
  RandomSearch over HyperParameters, on rivulet's Keras) and tf-models-official's
  `official.nlp.modeling.layers` (SNGP's SpectralNormalization and RandomFeatureGaussianProcess), `pretty_midi`
  (MIDI files read and written, sine-tone rendering) and an importable `fluidsynth`; the cells that use them
  are scored.
A cell passes when it raises nothing within CELL_TIMEOUT seconds. Cells that import a package which itself
imports TensorFlow (UNSCORED_IMPORTS: tensorflow_docs, tensorflow_probability, tensorflow_text,
tensorflow_compression) are not scored, nor a cell that fails with a NameError of a name such an
import would have bound (`tfc.NoisyLogistic(...)`, `tfdocs.modeling.EpochDots()` called in a helper), or of a name
bound only by a cell left unscored so (`tokenizer = MyTokenizer()` whose __init__ uses tensorflow_text), nor
the cells after the notebook's time budget runs out (they are reported as not run).
"""
import argparse
import ast
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import tokenize
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

# tensorflow/docs at this commit; the notebooks that need no packages importing TensorFlow themselves for most
# of their cells, other than those the stand-ins serve.
COMMIT = "7c3650212740204359d4ceae481abc79345541be"
NOTEBOOKS = [
    "quickstart/beginner", "quickstart/advanced",
    "keras/classification", "keras/regression", "keras/save_and_load", "keras/text_classification",
    "load_data/numpy", "load_data/csv", "load_data/pandas_dataframe", "load_data/tfrecord",
    "images/cnn", "images/classification",
    "structured_data/preprocessing_layers", "structured_data/time_series", "structured_data/imbalanced_data",
    "generative/autoencoder", "generative/dcgan",
    "customization/basics", "customization/custom_layers",
    "distribute/custom_training", "distribute/input",
    # added 2026-11-26: their tensorflow_datasets / tensorflow_text / tensorflow_docs cells are not scored
    "load_data/images", "load_data/text", "keras/overfit_and_underfit", "images/transfer_learning",
    "generative/adversarial_fgsm", "generative/cvae", "distribute/multi_worker_with_keras", "audio/simple_audio",
    "distribute/multi_worker_with_ctl", "structured_data/feature_columns",
    # added 2026-11-26 with keras.applications InceptionV3 and VGG19 (stand-in weights files of their layout)
    "generative/deepdream", "generative/style_transfer",
    # added 2026-11-26 with the tensorflow_datasets and tensorflow_examples (pix2pix) stand-ins (stand_ins/):
    # their cells are scored; tensorflow_compression's are not
    "customization/custom_training_walkthrough", "distribute/keras", "distribute/save_and_load",
    "images/data_augmentation", "images/segmentation", "generative/cyclegan", "generative/data_compression",
    "optimization/compression",
    # added 2026-11-26 with the tensorflow_hub stand-in (stand_ins/tensorflow_hub: modules built with rivulet,
    # saved to the hub cache as SavedModels and loaded back)
    "images/transfer_learning_with_hub", "keras/text_classification_with_hub", "interpretability/integrated_gradients",
    "audio/transfer_learning_audio",  # (and tensorflow_io's audio.resample: stand_ins/tensorflow_io)
    # added 2026-11-26: its 40,000-step loop (`steps=40000`) capped at MAX_STEPS; the facades archive served
    "generative/pix2pix",
    # added 2026-11-26 with the gym stand-in (stand_ins/gym: CartPole-v1's dynamics in gym 0.26's interface)
    "reinforcement_learning/actor_critic",
    # added 2026-11-26 with the keras_tuner stand-in (stand_ins/keras_tuner: Hyperband and RandomSearch over
    # HyperParameters on rivulet's Keras)
    "keras/keras_tuner",
    # added 2026-11-26 with the tf-models-official stand-in (stand_ins/official: SNGP's two layers)
    "understanding/sngp",
    # added 2026-11-26 with the pretty_midi and fluidsynth stand-ins (MIDI files read and written, sine tones)
    "audio/music_generation",
]
# what the runner puts on the notebook's path in place of packages built on TensorFlow: tensorflow_datasets
# (synthetic data sets in the real feature structures, made with rivulet's tf.data), tensorflow_examples'
# models.pix2pix (the pix2pix blocks, U-Net generator and PatchGAN discriminator, written for rivulet),
# tensorflow_hub (modules built with rivulet, saved and loaded as SavedModels), tensorflow_io's audio.resample,
# gym's CartPole-v1, keras_tuner's searches and tf-models-official's SNGP layers
STAND_INS = os.path.join(HERE, "stand_ins")
PREFIX = "site/en/tutorials/"

# `--set guides`: TensorFlow's guides (site/en/guide/, same commit) on what rivulet implements. Left out:
# GPUs/TPUs/DTensor (gpu, tpu, dtensor_overview, core/distribution), tf.compat.v1, Estimators and the migrate/
# guides (TF1 side by side) and jax2tf. core/mlp_core and
# effective_tf2 load MNIST through the tensorflow_datasets stand-in.
GUIDES = [
    "basics", "tensor", "variable", "autodiff", "intro_to_graphs", "intro_to_modules", "basic_training_loops",
    "function", "advanced_autodiff", "ragged_tensor", "sparse_tensor", "tensor_slicing", "random_numbers",
    "data", "data_performance", "checkpoint", "saved_model", "mixed_precision", "distributed_training",
    "core/quickstart_core", "core/logistic_regression_core", "core/matrix_core", "core/optimizers_core",
    "core/mlp_core", "effective_tf2", "graph_optimization", "tf_numpy", "tf_numpy_type_promotion", "extension_type",
]
SETS = {"tutorials": ("site/en/tutorials/", NOTEBOOKS), "guides": ("site/en/guide/", GUIDES)}

MAX_EPOCHS = 2
MAX_EPISODES = 20  # reinforcement learning loops: episodes (each one training step)
LONG_STEPS, MAX_STEPS = 1000, 10  # a `steps=` loop longer than LONG_STEPS runs MAX_STEPS
CELL_TIMEOUT = 240  # seconds per cell
NOTEBOOK_TIMEOUT = 900  # seconds per notebook
# resident bytes; a cell past it ends the notebook (the machine is shared). 5 GiB: generative/cyclegan's step
# (two 54M-parameter U-Nets, two discriminators, Adam) peaks at 3.0 GB in rivulet, 3.9 GB in TensorFlow 2.21
MEMORY_LIMIT = 5 << 30
UNSCORED_IMPORTS = ("tensorflow_docs", "tensorflow_probability", "tensorflow_text", "tensorflow_compression")


def unscored_names(code):
    """Names a cell's imports of UNSCORED_IMPORTS bind (`tfds`, `tfdocs`, `embed`)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] in UNSCORED_IMPORTS:
                    names.add(a.asname or a.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in UNSCORED_IMPORTS:
            names.update(a.asname or a.name for a in node.names)
    return names


def unscore_tf_only(cells):
    """Cells (in order, with 'code', 'scored', 'error') failing with a NameError of a name only a package that
    needs TensorFlow would have bound, directly or through a cell left unscored so, are not scored."""
    tf_only = set()
    for c in cells:
        tf_only |= unscored_names(c["code"])
        err = c.get("error")
        if err and err.get("type") == "NameError" and err.get("missing") in tf_only:
            c["scored"] = False
            tf_only |= set(defined_names(c["code"]))


# ---------------------------------------------------------------------------------------------- cells
def read_notebook(docs, path):
    full = os.path.join(docs, path)
    if os.path.isfile(full):
        with open(full, encoding="utf-8") as f:
            return json.load(f)
    out = subprocess.run(["git", "-C", docs, "show", f"{COMMIT}:{path}"], capture_output=True, check=False)
    if out.returncode != 0:
        out = subprocess.run(["git", "-C", docs, "show", f"HEAD:{path}"], capture_output=True, check=True)
    return json.loads(out.stdout)


_IMPORT_RULES = [
    (re.compile(r"^(\s*)import tensorflow as (\w+)"), r"\1import rivulet as \2"),
    (re.compile(r"^(\s*)import tensorflow\.([\w.]+) as (\w+)"), r"\1import rivulet.\2 as \3"),
    (re.compile(r"^(\s*)from tensorflow(\.[\w.]+)? import"), r"\1from rivulet\2 import"),
    (re.compile(r"^(\s*)import tensorflow\s*$"), r"\1import rivulet as tensorflow"),
    # TF 2.21's guides spell tf.keras as the top-level `keras` package; rivulet's Keras is rivulet.keras.
    (re.compile(r"^(\s*)import keras\s*$"), r"\1from rivulet import keras"),
    (re.compile(r"^(\s*)from keras(\.[\w.]+)? import"), r"\1from rivulet.keras\2 import"),
    # tf_keras (Keras 2 as a package of its own, which text_classification_with_hub imports) is rivulet's Keras
    (re.compile(r"^(\s*)import tf_keras as (\w+)"), r"\1from rivulet import keras as \2"),
    (re.compile(r"^(\s*)import tf_keras\s*$"), r"\1from rivulet import keras as tf_keras"),
    (re.compile(r"^(\s*)from tf_keras(\.[\w.]+)? import"), r"\1from rivulet.keras\2 import"),
]
# `epochs=50`, and a keyword or default named like it (`max_epochs=10000`); a name ending in `epochs`/`EPOCHS`
# (`EPOCHS`, `initial_epochs`, `fine_tune_epochs`) assigned an integer literal
_EPOCH_KW = re.compile(r"\b((?:[A-Za-z]\w*_)?(?:epochs|EPOCHS)\s*=\s*)(\d+)\b")
_EPOCH_NAME = re.compile(r"^(\s*(?:[A-Za-z]\w*_)?(?:epochs|EPOCHS)\s*=\s*)(\d+)\s*$")
# a keyword argument's default set in a dict: `kwargs.setdefault("epochs", 5)` (optimization/compression)
_EPOCH_DEFAULT = re.compile(r"""(\.setdefault\(\s*["'](?:[A-Za-z]\w*_)?epochs["']\s*,\s*)(\d+)\b""")


def _shrink(m):
    return m.group(1) + (str(MAX_EPOCHS) if int(m.group(2)) > MAX_EPOCHS else m.group(2))


# `max_episodes = 10000` (reinforcement_learning/actor_critic's loop until CartPole is solved): a name ending in
# `episodes`/`EPISODES` assigned an integer literal
_EPISODE_NAME = re.compile(r"^(\s*(?:[A-Za-z]\w*_)?(?:episodes|EPISODES)\s*=\s*)(\d+)\s*$")


def _shrink_episodes(m):
    return m.group(1) + (str(MAX_EPISODES) if int(m.group(2)) > MAX_EPISODES else m.group(2))


# `fit(train_dataset, test_dataset, steps=40000)` (generative/pix2pix's training loop): a `steps=` keyword
# given more than LONG_STEPS (deepdream's steps=100 and the guides' steps=10 stay)
_STEPS_KW = re.compile(r"(?<![\w.])(steps\s*=\s*)(\d+)\b")


def _shrink_steps(m):
    return m.group(1) + (str(MAX_STEPS) if int(m.group(2)) > LONG_STEPS else m.group(2))


# `import tensorflow_probability as tfp` (a one-line import of a package built on TensorFlow): the rest of its
# cell still runs (cvae imports `time` after it); the cell is not scored
_UNSCORED_IMPORT = re.compile(r"^(\s*)((?:import|from)\s+(?:%s)\b[^\\(]*)$" % "|".join(UNSCORED_IMPORTS))
_HELP = re.compile(r"^\s*[\w.]+\?{1,2}\s*$")  # IPython's `obj?` / `obj??`: shows help


REWRITE_IMPORTS = [True]  # False: the cells run on TensorFlow itself (bench/bench_programs.py's baseline)


def _rewrite(line):
    """A line's imports and epoch counts as run on rivulet."""
    for pat, rep in _IMPORT_RULES if REWRITE_IMPORTS[0] else ():
        line = pat.sub(rep, line)
    line = _UNSCORED_IMPORT.sub(r"\1try: \2\n\1except ImportError: pass", line)
    line = _EPOCH_KW.sub(_shrink, line)
    line = _EPOCH_DEFAULT.sub(_shrink, line)
    line = _EPISODE_NAME.sub(_shrink_episodes, line)
    line = _STEPS_KW.sub(_shrink_steps, line)
    return _EPOCH_NAME.sub(_shrink, line)


def _continues(lines):
    """Whether the next line continues a statement of `lines` (open brackets, a multi-line string, a
    backslash): IPython reads a `%`/`!` there as Python, not as a magic (`'%d' \\n %(x)` in print calls)."""
    if not lines:
        return False
    src = "\n".join(lines) + "\n"
    try:
        for _ in tokenize.generate_tokens(io.StringIO(src).readline):
            pass
    except tokenize.TokenError:
        return True
    except (SyntaxError, ValueError):
        return False
    return src.rstrip().endswith("\\")


def transform(source):
    """The cell's code as run on rivulet, or None when nothing is left to run."""
    lines = source.splitlines()
    if lines and lines[0].startswith("%%writefile"):
        # IPython writes the cell's text to the file (later cells read it)
        name = lines[0].split(None, 1)[1].strip() if len(lines[0].split(None, 1)) > 1 else ""
        body = lines[1:]
        if name.endswith(".py"):  # a module later cells import (mnist_setup.py): its code is rewritten too
            body = [_rewrite(line) for line in body]
        body = "\n".join(body) + "\n"
        return f"with open({name!r}, 'w') as _f:\n    _f.write({body!r})"
    if lines and lines[0].startswith("%%"):
        if not lines[0].startswith("%%time"):
            return None  # %%bash ...: not Python
        lines = lines[1:]
    lines = textwrap.dedent("\n".join(lines)).splitlines()  # IPython drops a cell's leading indentation
    out = []
    for line in lines:
        s = line.strip()
        if (s.startswith("!") or s.startswith("%") or _HELP.match(line)) and not _continues(out):
            # keep the block structure: a shell line inside an `if` becomes `pass`
            out.append(line[:len(line) - len(line.lstrip())] + "pass")
            continue
        out.append(_rewrite(line))
    code = "\n".join(out)
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code  # scored: it fails as it would
    if not any(not isinstance(n, ast.Pass) for n in tree.body):
        return None
    return code


def code_cells(nb):
    cells = []
    for c in nb["cells"]:
        if c.get("cell_type") != "code":
            continue
        src = "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
        code = transform(src)
        if code is None:
            continue
        scored = not any(re.search(rf"^\s*(?:try: )?(import|from)\s+{m}\b", code, re.M) for m in UNSCORED_IMPORTS)
        scored = scored and not src.startswith("%%writefile")  # runs (later cells read the file), not scored
        cells.append({"source": src, "code": code, "scored": scored})
    return cells


def defined_names(code):
    """Names a cell binds at top level (to see later NameErrors as blocked by it)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    names = set()
    for node in tree.body:
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                names.add(n.id)
            elif isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
                names.add(n.name)
            elif isinstance(n, ast.alias):
                names.add((n.asname or n.name).split(".")[0])
    return sorted(names)


# ---------------------------------------------------------------------------------------------- child
class CellTimeout(BaseException):
    pass


_GOOD = set()  # the sha256 of every stand-in served: validate_file accepts them in place of the real file's hash


def _resolve(files, url):
    """A file's bytes; a callable stand-in (an expensive one, made only when fetched) is called once
    (a big one each time it is fetched)."""
    import hashlib
    data = files.get(url)
    if callable(data):
        make, data = data, data()
        _GOOD.add(hashlib.sha256(data).hexdigest())
        # a big one (VGG19's 548 MiB of weights) is not held by the notebook's process: made again if fetched again
        files[url] = data if len(data) < (64 << 20) else make
    return data


def _install_network(files, backend="rivulet"):
    import hashlib
    import io
    import urllib.error
    import urllib.request
    import urllib.response
    from email.message import Message

    class Synthetic(urllib.request.BaseHandler):
        def _open(self, req):
            url = req.full_url
            data = _resolve(files, url)
            if data is None:
                raise urllib.error.URLError(f"offline (the tutorial runner has no stand-in for {url})")
            headers = Message()
            headers["Content-Length"] = str(len(data))
            headers["Content-Type"] = "application/octet-stream"
            resp = urllib.response.addinfourl(io.BytesIO(data), headers, url, 200)
            resp.msg = "OK"
            return resp

        http_open = https_open = _open
        handler_order = 100  # before urllib's own HTTP(S)Handler

    urllib.request.install_opener(urllib.request.build_opener(Synthetic))
    try:  # requests.get(url) (core/matrix_core) goes through its adapters, not urllib
        import requests
        import requests.adapters
    except ImportError:
        requests = None
    if requests is not None:
        def send(self, request, **kwargs):
            data = _resolve(files, request.url)
            if data is None:
                raise requests.ConnectionError(
                    f"offline (the tutorial runner has no stand-in for {request.url})", request=request)
            resp = requests.Response()
            resp.status_code, resp.url, resp.request, resp.reason = 200, request.url, request, "OK"
            resp.raw = io.BytesIO(data)
            resp.headers["Content-Length"] = str(len(data))
            return resp

        requests.adapters.HTTPAdapter.send = send
    _GOOD.update(hashlib.sha256(d).hexdigest() for d in files.values() if not callable(d))  # lazy ones: once made
    try:
        if backend == "tensorflow":  # the baseline run: Keras 3's get_file checks hashes in file_utils
            from keras.src.utils import file_utils as data_utils
        else:
            from rivulet.keras import data_utils
        real = data_utils.validate_file
    except (ImportError, AttributeError):  # a rivulet without get_file: nothing to accept
        return

    def validate_file(fpath, file_hash, algorithm="auto", chunk_size=65535):
        if data_utils.hash_file(fpath, "sha256") in _GOOD:
            return True
        return real(fpath, file_hash, algorithm, chunk_size)

    data_utils.validate_file = validate_file


def _close_figures():
    """As IPython's inline backend: a cell's figures are shown and closed when it ends, so the next cell draws
    on new axes (core/mlp_core plots a line after a seaborn countplot: on the countplot's categorical axis it fails)."""
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is not None:
        try:
            plt.close("all")
        except Exception:
            pass


def _run_cell(code, ns, filename):
    import linecache
    # as IPython does (each line ending in a newline, the last one too), so inspect.getsource (AutoGraph)
    # finds the functions a cell defines
    linecache.cache[filename] = (len(code), None, [line + "\n" for line in code.splitlines()], filename)
    tree = ast.parse(code, filename)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    exec(compile(tree, filename, "exec"), ns)
    if last is not None:
        value = eval(compile(last, filename, "eval"), ns)
        if value is not None:
            print(repr(value)[:2000])


def child(spec_path, out_path):
    import signal
    with open(spec_path) as f:
        spec = json.load(f)
    sys.path.insert(0, HERE)
    sys.path.insert(0, STAND_INS)  # `import tensorflow_datasets` finds the stand-in
    import synthetic
    _install_network(synthetic.files(), spec.get("backend", "rivulet"))
    try:  # no stubs: matplotlib's own Agg backend draws every figure (MPLBACKEND=Agg is set too)
        import matplotlib
        matplotlib.use("Agg")
    except ImportError:
        pass
    try:  # the notebooks run under IPython: its modules are loaded there (tf_keras' plot_model checks one)
        import IPython.core.magics.namespace  # noqa: F401
    except ImportError:
        pass

    def alarm(signum, frame):
        raise CellTimeout(f"cell ran past {CELL_TIMEOUT} s")

    signal.signal(signal.SIGALRM, alarm)
    ns = {"__name__": "__main__"}
    state = {"cell": None, "t0": 0.0}
    lock = threading.Lock()

    def watchdog(out):
        """Ends the process when a cell holds more than MEMORY_LIMIT or outlives its alarm (stuck in C)."""
        page = os.sysconf("SC_PAGE_SIZE")
        while True:
            time.sleep(0.5)
            with open("/proc/self/statm") as f:
                rss = int(f.read().split()[1]) * page
            i, t0 = state["cell"], state["t0"]
            if i is None:
                continue
            why = None
            if rss > MEMORY_LIMIT:
                why = ("MemoryLimit", f"the cell held more than {MEMORY_LIMIT >> 30} GiB")
            elif time.perf_counter() - t0 > CELL_TIMEOUT + 30:
                why = ("CellTimeout", f"cell ran past {CELL_TIMEOUT} s")
            if why:
                with lock:
                    out.write(json.dumps({"cell": i, "error": {"type": why[0], "message": why[1], "where": "",
                                                               "missing": None},
                                          "seconds": round(time.perf_counter() - t0, 2)}) + "\n")
                    out.flush()
                sys.stdout.write(f"\n[runner] {why[1]}: the notebook stops here\n")
                sys.stdout.flush()
                os._exit(3)

    with open(out_path, "w") as out:
        threading.Thread(target=watchdog, args=(out,), daemon=True).start()
        for i, cell in enumerate(spec["cells"]):
            t0 = time.perf_counter()
            state["t0"], state["cell"] = t0, i
            err = None
            signal.alarm(CELL_TIMEOUT)
            try:
                _run_cell(cell["code"], ns, f"<{spec['name']} cell {i}>")
            except (Exception, CellTimeout, SystemExit) as e:
                tb = traceback.extract_tb(e.__traceback__)
                where = next((f"{fr.filename}:{fr.lineno}" for fr in reversed(tb)
                              if "rivulet" in fr.filename or fr.filename.startswith("<")), "")
                err = {"type": type(e).__name__, "message": str(e), "where": where,
                       "missing": getattr(e, "name", None) if isinstance(e, NameError) else None}
            finally:
                signal.alarm(0)
                _close_figures()
            sys.stdout.flush()
            with lock:
                state["cell"] = None
                out.write(json.dumps({"cell": i, "error": err,
                                      "seconds": round(time.perf_counter() - t0, 2)}) + "\n")
                out.flush()


# ---------------------------------------------------------------------------------------------- parent
def run_notebook(name, cells, log_dir, python, src, backend="rivulet"):
    work = tempfile.mkdtemp(prefix="tut-" + name.replace("/", "-") + "-")
    spec = os.path.join(work, "spec.json")
    res = os.path.join(work, "results.jsonl")
    with open(spec, "w") as f:
        json.dump({"name": name, "cells": cells, "backend": backend}, f)
    env = dict(os.environ, HOME=work, KERAS_HOME=os.path.join(work, ".keras"), MPLBACKEND="Agg",
               TFHUB_CACHE_DIR=os.path.join(work, "tfhub_modules"),
               PYTHONPATH=os.pathsep.join((src, STAND_INS, os.environ.get("PYTHONPATH", ""))),
               TF_CPP_MIN_LOG_LEVEL="2")
    log = os.path.join(log_dir, name.replace("/", "-") + ".log")
    t0 = time.time()
    with open(log, "w") as lf:
        try:
            subprocess.run([python, os.path.abspath(__file__), "--child", spec, res], cwd=work, env=env,
                           stdout=lf, stderr=subprocess.STDOUT, timeout=NOTEBOOK_TIMEOUT, check=False)
        except subprocess.TimeoutExpired:
            lf.write(f"\n[runner] notebook ran past {NOTEBOOK_TIMEOUT} s\n")
    results = {}
    if os.path.exists(res):
        with open(res) as f:
            for line in f:
                r = json.loads(line)
                results[r["cell"]] = r
    shutil.rmtree(work, ignore_errors=True)
    return results, time.time() - t0


def cause_of(err):
    msg = err["message"].strip().splitlines()[0] if err["message"].strip() else ""
    msg = re.sub(r"0x[0-9a-f]+", "0x..", msg)
    msg = re.sub(r"/tmp/tut-[^/\s'\"]+", "<cwd>", msg)  # the notebook's temporary directory
    return f"{err['type']}: {msg[:110]}"


def summarise(report):
    """Per notebook passed/scored; causes ranked by the cells they fail directly or block (NameErrors of
    names a failed cell would have bound)."""
    causes = {}
    for nb in report:
        failed_defs = {}
        stopper = None  # the cause that ended the notebook: it blocks every cell not run
        for c in nb["cells"]:
            if not c["scored"]:
                continue
            err = c.get("error")
            if err is None:
                continue
            cause = cause_of(err) if err["type"] != "NotRun" else None
            if cause is None:
                root = stopper or "NotRun: the notebook's time budget ran out"
                causes.setdefault(root, {"direct": 0, "blocked": 0, "where": set()})["blocked"] += 1
                continue
            if err["type"] in ("MemoryLimit", "CellTimeout"):
                stopper = cause
            if err.get("missing") and err["missing"] in failed_defs:
                root = failed_defs[err["missing"]]
                causes.setdefault(root, {"direct": 0, "blocked": 0, "where": set()})["blocked"] += 1
                root_cause = root
            else:
                e = causes.setdefault(cause, {"direct": 0, "blocked": 0, "where": set()})
                e["direct"] += 1
                e["where"].add(f"{nb['name']}#{c['index']}")
                root_cause = cause
            for n in c["defines"]:
                failed_defs.setdefault(n, root_cause)
    return causes


def markdown(report, causes, commit, which="tutorials"):
    lines = [f"TensorFlow's {which} (tensorflow/docs `{commit[:10]}`, `{SETS[which][0]}`), run unchanged on "
             "rivulet with synthetic data in the real file formats (`tools/tutorials/run_tutorials.py`):", "",
             "| notebook | cells passed / scored | first failing cell: cause |", "|---|---:|---|"]
    tp = ts = 0
    for nb in report:
        sc = [c for c in nb["cells"] if c["scored"]]
        p = sum(1 for c in sc if c.get("error") is None)
        tp, ts = tp + p, ts + len(sc)
        first = next((c for c in sc if c.get("error")), None)
        why = f"#{first['index']}: `{cause_of(first['error'])[:90]}`" if first else ""
        lines.append(f"| {nb['name']} | {p} / {len(sc)} | {why.replace('|', '/')} |")
    lines.append(f"| **all** | **{tp} / {ts} ({100 * tp / max(ts, 1):.0f}%)** | |")
    lines += ["", "Failing causes, by cells they fail (directly + cells blocked by a name they did not define):", "",
              "| cells | cause | where (notebook#cell) |", "|---:|---|---|"]
    for cause, e in sorted(causes.items(), key=lambda kv: -(kv[1]["direct"] + kv[1]["blocked"])):
        where = ", ".join(sorted(e["where"])[:4]) + (" ..." if len(e["where"]) > 4 else "")
        lines.append(f"| {e['direct']} + {e['blocked']} | `{cause.replace('|', '/')}` | {where} |")
    return "\n".join(lines) + "\n", tp, ts


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", help="a tensorflow/docs clone or bare mirror")
    ap.add_argument("--set", default="tutorials", choices=sorted(SETS),
                    help="which pinned list to run: NOTEBOOKS (site/en/tutorials/) or GUIDES (site/en/guide/)")
    ap.add_argument("--only", action="append", help="a notebook of the chosen set (repeatable)")
    ap.add_argument("--out", help="write the markdown report here")
    ap.add_argument("--json", help="write per-cell results here")
    ap.add_argument("--logs", default=os.path.join(tempfile.gettempdir(), "rivulet-tutorial-logs"))
    ap.add_argument("--src", default=os.path.join(REPO, "src"),
                    help="the rivulet source tree to run (default: this checkout's src/)")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return child(*args.child)
    if not args.docs:
        ap.error("--docs is required (see this file's docstring for how to get tensorflow/docs)")
    os.makedirs(args.logs, exist_ok=True)
    prefix, names = SETS[args.set]
    unknown = [n for n in args.only or () if n not in names]
    if unknown:
        ap.error(f"not in the {args.set} set: {', '.join(unknown)} (choose from: {', '.join(names)})")
    report = []
    for name in args.only or names:
        nb = read_notebook(args.docs, prefix + name + ".ipynb")
        cells = code_cells(nb)
        results, secs = run_notebook(name, cells, args.logs, sys.executable, os.path.abspath(args.src))
        entry = {"name": name, "seconds": round(secs, 1), "cells": []}
        for i, c in enumerate(cells):
            r = results.get(i)
            err = r["error"] if r else {"type": "NotRun", "message": "the notebook's time ran out", "where": ""}
            entry["cells"].append({"index": i, "scored": c["scored"], "error": err, "code": c["code"],
                                   "defines": defined_names(c["code"]), "seconds": r["seconds"] if r else None})
        unscore_tf_only(entry["cells"])
        for c in entry["cells"]:
            del c["code"]
        sc = [c for c in entry["cells"] if c["scored"]]
        print(f"{name}: {sum(1 for c in sc if c['error'] is None)}/{len(sc)} in {secs:.0f} s", flush=True)
        report.append(entry)
    causes = summarise(report)
    md, tp, ts = markdown(report, causes, COMMIT, args.set)
    print(md)
    if args.out:
        with open(args.out, "w") as f:
            f.write(md)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
