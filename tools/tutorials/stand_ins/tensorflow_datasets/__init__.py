"""A stand-in for `tensorflow_datasets` (tfds), for the tutorial runner only (never shipped with rivulet).

TensorFlow's tutorials read their data with `tfds.load`; this module answers the calls they make with
synthetic data sets built with rivulet's tf.data, in each real data set's feature structure, dtypes and
shapes (FeaturesDict, ClassLabel names, variable-size JPEG images decoded in the pipeline as tfds does,
PNG segmentation masks), split names and `supervised_keys`, but fewer examples (SIZES) and random values:
nothing here is real data, accuracies the notebooks print mean nothing.

What it serves: `load(name, split=None, as_supervised=False, with_info=False, shuffle_files=False,
batch_size=None, ...)` (split strings as tfds reads them: 'train', 'train[:80%]', 'train[10:20]',
'train[-10%:]', 'train+test', a list of them; `batch_size=-1` gives whole splits as tensors),
`builder(name)` (`info`, `download_and_prepare`, `as_dataset`), `as_numpy`, `as_dataframe`,
`show_examples` / `visualization.show_examples`, `features.{FeaturesDict, ClassLabel, Image, Text, Tensor}`,
`Split`, `ReadConfig`. `shuffle_files=True` changes nothing: each split is one shard here.
"""
import os
import re
import sys

import numpy as np

__version__ = "4.9.9+rivulet.standin"

_TOOLS = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if _TOOLS not in sys.path:
    sys.path.append(_TOOLS)
import synthetic  # noqa: E402  (tools/tutorials/synthetic.py: the same image / text helpers the runner serves)

from . import features  # noqa: E402
from .features import ClassLabel, FeaturesDict, Image, Scalar, Tensor, Text  # noqa: E402

# examples per split here (the real data set's counts in the comment at each entry of _CATALOG)
SIZES = {
    "mnist": {"train": 6000, "test": 1000},
    "tf_flowers": {"train": 120},
    "oxford_iiit_pet": {"train": 192, "test": 320},
    "cycle_gan/horse2zebra": {"trainA": 6, "trainB": 6, "testA": 3, "testB": 3},  # (a step: ~7 s here)
    "penguins/simple": {"train": 344},
    "penguins/processed": {"train": 334},
    "imdb_reviews/plain_text": {"train": 1000, "test": 1000, "unsupervised": 500},
}


class Split(str):
    TRAIN = "train"
    TEST = "test"
    VALIDATION = "validation"
    ALL = "all"


class ReadConfig:
    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)


class DatasetNotFoundError(ValueError):
    pass


# ---------------------------------------------------------------------------------------------- info
class SplitInfo:
    def __init__(self, name, num_examples, num_shards=1):
        self.name, self.num_examples, self.num_shards = name, num_examples, num_shards

    @property
    def shard_lengths(self):
        return [self.num_examples]

    def __repr__(self):
        return f"<SplitInfo num_examples={self.num_examples}, num_shards={self.num_shards}>"


class SplitDict(dict):
    def __getitem__(self, key):
        if key in self.keys():
            return dict.__getitem__(self, key)
        # a sliced split ('train[:80%]', 'train+test') as tfds answers it
        n = sum(b - a for _, a, b in _read_instructions(key, {k: v.num_examples for k, v in self.items()}))
        return SplitInfo(key, n)

    @property
    def total_num_examples(self):
        return sum(s.num_examples for s in self.values())


class DatasetInfo:
    def __init__(self, name, config, version, description, homepage, features, supervised_keys, splits,
                 citation=""):
        self.name, self.config_name, self.version = name, config, version
        self.description, self.homepage, self.citation = description, homepage, citation
        self.features, self.supervised_keys = features, supervised_keys
        self.splits = SplitDict((k, SplitInfo(k, v)) for k, v in splits.items())
        self.data_dir = os.path.join(os.path.expanduser("~"), "tensorflow_datasets", self.full_name)
        self.file_format = "tfrecord"
        self.disable_shuffling = False

    @property
    def full_name(self):
        return "/".join(p for p in (self.name, self.config_name, self.version) if p)

    def __repr__(self):
        feats = "\n    ".join(repr(self.features).splitlines())
        splits = "".join(f"        '{k}': {v!r},\n" for k, v in sorted(self.splits.items()))
        return (f"tfds.core.DatasetInfo(\n    name='{self.name}',\n    full_name='{self.full_name}',\n"
                f"    description=\"\"\"\n    {self.description}\n    \"\"\",\n"
                + (f"    config_name='{self.config_name}',\n" if self.config_name else "")
                + f"    homepage='{self.homepage}',\n    data_dir='{self.data_dir}',\n"
                f"    file_format={self.file_format},\n    features={feats},\n"
                f"    supervised_keys={self.supervised_keys!r},\n    disable_shuffling=False,\n"
                f"    splits={{\n{splits}    }},\n    citation=\"\"\"{self.citation}\"\"\",\n)")


# ---------------------------------------------------------------------------------------------- data
_PETS = ("Abyssinian american_bulldog american_pit_bull_terrier basset_hound beagle Bengal Birman Bombay boxer "
         "British_Shorthair chihuahua Egyptian_Mau english_cocker_spaniel english_setter german_shorthaired "
         "great_pyrenees havanese japanese_chin keeshond leonberger Maine_Coon miniature_pinscher newfoundland "
         "Persian pomeranian pug Ragdoll Russian_Blue saint_bernard samoyed scottish_terrier shiba_inu Siamese "
         "Sphynx staffordshire_bull_terrier wheaten_terrier yorkshire_terrier").split()


def _mnist(split, n):
    x, y = synthetic._digits(n, {"train": 31, "test": 32}[split])
    return {"image": x[..., None], "label": y.astype(np.int64)}


def _flowers(split, n):
    r = np.random.default_rng(33)
    # JPEGs of varied sizes, as the real photos (320x240 and larger): at least 220x310, data_augmentation
    # crops 210x300 out of them
    sizes = [(int(r.integers(220, 300)), int(r.integers(310, 400))) for _ in range(n)]
    return {"image": [synthetic._jpeg(r, h, w) for h, w in sizes], "label": r.integers(0, 5, n).astype(np.int64)}


def _pets(split, n):
    r = np.random.default_rng({"train": 34, "test": 35}[split])
    images, masks, names = [], [], []
    label = r.integers(0, 37, n).astype(np.int64)
    for i in range(n):
        h, w = int(r.integers(112, 176)), int(r.integers(112, 176))
        images.append(synthetic._jpeg(r, h, w))
        # a trimap: 1 the pet (an ellipse), 2 the background, 3 the border between them
        yy, xx = np.mgrid[:h, :w]
        d = ((yy - h / 2) / (h / 3)) ** 2 + ((xx - w / 2) / (w / 3)) ** 2
        m = np.where(d < 0.8, 1, np.where(d < 1.2, 3, 2)).astype(np.uint8)[..., None]
        masks.append(synthetic._png(m[..., 0]))
        names.append(f"{_PETS[label[i]]}_{i + 1}.jpg".encode())
    species = np.array([0 if _PETS[k][0].isupper() else 1 for k in label], np.int64)  # cats' names are capitalised
    return {"file_name": np.array(names, object), "image": images, "label": label,
            "segmentation_mask": masks, "species": species}


def _horse2zebra(split, n):
    r = np.random.default_rng({"trainA": 36, "trainB": 37, "testA": 38, "testB": 39}[split])
    return {"image": [synthetic._jpeg(r, 256, 256) for _ in range(n)],
            "label": np.full(n, 0 if split.endswith("A") else 1, np.int64)}


def _penguin_rows(n, seed):
    r = np.random.default_rng(seed)
    species = r.integers(0, 3, n).astype(np.int64)
    # culmen length / depth (mm), flipper length (mm), body mass (g) about each species' means
    means = np.array([[38.8, 18.3, 190.0, 3700.0], [48.8, 18.4, 196.0, 3733.0], [47.5, 15.0, 217.0, 5076.0]])
    x = means[species] * (1 + 0.05 * r.standard_normal((n, 4)))
    return x.astype(np.float32), species, r


def _penguins_simple(split, n):
    x, species, r = _penguin_rows(n, 40)
    x[[3, 271]] = np.nan  # two birds the real table has no measurements for
    return {"body_mass_g": x[:, 3], "culmen_depth_mm": x[:, 1], "culmen_length_mm": x[:, 0],
            "flipper_length_mm": x[:, 2], "island": r.integers(0, 3, n).astype(np.int64),
            "sex": r.integers(0, 3, n).astype(np.int64), "species": species}


def _penguins_processed(split, n):
    x, species, _ = _penguin_rows(n, 41)
    x = (x - x.min(0)) / (x.max(0) - x.min(0))  # normalised to [0, 1], as the processed config's features
    return {"features": x.astype(np.float32), "species": species}


def _imdb(split, n):
    r = np.random.default_rng({"train": 42, "test": 43, "unsupervised": 44}[split])
    label = r.integers(0, 2, n).astype(np.int64) if split != "unsupervised" else np.full(n, -1, np.int64)
    text = [synthetic._text(r, int(r.integers(20, 120)), None if lab < 0 else bool(lab)).encode()
            for lab in label]
    return {"label": label, "text": np.array(text, object)}


# name -> {config: (version(s), description, homepage, features, supervised_keys, make)}; the real counts:
# mnist 60,000 / 10,000; tf_flowers 3,670; oxford_iiit_pet 3,680 / 3,669; horse2zebra 1,067 / 1,334 / 120 / 140;
# penguins 344 (simple) and 334 (processed); imdb_reviews 25,000 / 25,000 / 50,000
def _catalog():
    img = Image
    return {
        "mnist": {None: (("3.0.1",), "The MNIST database of handwritten digits.",
                         "http://yann.lecun.com/exdb/mnist/",
                         lambda: FeaturesDict({"image": img(shape=(28, 28, 1)), "label": ClassLabel(num_classes=10)}),
                         ("image", "label"), _mnist)},
        "tf_flowers": {None: (("3.0.1",), "A large set of images of flowers",
                              "https://www.tensorflow.org/tutorials/load_data/images",
                              lambda: FeaturesDict({"image": img(), "label": ClassLabel(
                                  names=["dandelion", "daisy", "tulips", "sunflowers", "roses"])}),
                              ("image", "label"), _flowers)},
        "oxford_iiit_pet": {None: (("3.2.0",), "The Oxford-IIIT pet dataset is a 37 category pet image "
                                   "dataset with roughly 200 images for each class.",
                                   "http://www.robots.ox.ac.uk/~vgg/data/pets/",
                                   lambda: FeaturesDict({"file_name": Text(), "image": img(),
                                                         "label": ClassLabel(names=_PETS),
                                                         "segmentation_mask": img(shape=(None, None, 1)),
                                                         "species": ClassLabel(names=["Cat", "Dog"])}),
                                   ("image", "label"), _pets)},
        "cycle_gan": {"horse2zebra": (("3.0.0",), "A dataset consisting of images from two classes A and B "
                                      "(For example: horses/zebras, apple/orange,...)",
                                      "https://junyanz.github.io/CycleGAN/",
                                      lambda: FeaturesDict({"image": img(), "label": ClassLabel(names=["A", "B"])}),
                                      ("image", "label"), _horse2zebra)},
        "penguins": {
            "processed": (("1.0.0",), "Measurements for three penguin species observed in the Palmer "
                          "Archipelago, Antarctica.", "https://allisonhorst.github.io/palmerpenguins/",
                          lambda: FeaturesDict({"features": Tensor(shape=(4,), dtype="float32"),
                                                "species": ClassLabel(names=["Adelie", "Chinstrap", "Gentoo"])}),
                          ("features", "species"), _penguins_processed),
            "simple": (("1.0.0",), "Measurements for three penguin species observed in the Palmer "
                       "Archipelago, Antarctica.", "https://allisonhorst.github.io/palmerpenguins/",
                       lambda: FeaturesDict({
                           "body_mass_g": Scalar("float32"), "culmen_depth_mm": Scalar("float32"),
                           "culmen_length_mm": Scalar("float32"), "flipper_length_mm": Scalar("float32"),
                           "island": ClassLabel(names=["Biscoe", "Dream", "Torgersen"]),
                           "sex": ClassLabel(names=["FEMALE", "MALE", "NA"]),
                           "species": ClassLabel(names=["Adelie", "Chinstrap", "Gentoo"])}),
                       None, _penguins_simple)},
        "imdb_reviews": {"plain_text": (("1.0.0",), "Large Movie Review Dataset.",
                                        "http://ai.stanford.edu/~amaas/data/sentiment/",
                                        lambda: FeaturesDict({"label": ClassLabel(names=["neg", "pos"]),
                                                              "text": Text()}),
                                        ("text", "label"), _imdb)},
    }


_DEFAULT_CONFIG = {"penguins": "processed", "imdb_reviews": "plain_text", "cycle_gan": "apple2orange"}


def list_builders():
    return sorted(_catalog())


def _parse_name(name):
    """'oxford_iiit_pet:3.*.*', 'penguins/processed', 'mnist:3.0.1' -> (name, config, version pattern)."""
    m = re.fullmatch(r"([\w-]+)(?:/([\w.-]+))?(?::([\d*]+\.[\d*]+\.[\d*]+))?", name.strip())
    if not m:
        raise ValueError(f"Parsing builder name string {name} failed.\nThe builder name string must be of the "
                         "following format:\n  dataset_name[/config_name][:version][/kwargs]")
    return m.group(1), m.group(2), m.group(3)


class DatasetBuilder:
    def __init__(self, name, data_dir=None, config=None, version=None):
        ds_name, cfg, ver = _parse_name(name)
        cat = _catalog()
        if ds_name not in cat:
            raise DatasetNotFoundError(
                f"Dataset {ds_name} not found.\nAvailable datasets (in the tutorial runner's stand-in for "
                f"tensorflow_datasets): {', '.join(sorted(cat))}")
        configs = cat[ds_name]
        cfg = cfg or config or _DEFAULT_CONFIG.get(ds_name)
        if cfg not in configs:
            raise ValueError(f"BuilderConfig {cfg} not found for dataset {ds_name}. Here are the available "
                             f"configs (served by the stand-in): {[c for c in configs if c]}")
        versions, desc, home, feats, sup, self._make = configs[cfg]
        ver = ver or version
        if ver and ver != "experimental_latest":
            pat = re.compile(str(ver).replace(".", r"\.").replace("*", r"\d+") + "$")
            match = [v for v in versions if pat.match(v)]
            if not match:
                raise AssertionError(f"Dataset {ds_name} cannot be loaded at version {ver}, only: "
                                     f"{', '.join(versions)}.")
            versions = match
        key = ds_name + (f"/{cfg}" if cfg else "")
        self.name = ds_name
        self.info = DatasetInfo(ds_name, cfg, versions[0], desc, home, feats(), sup, SIZES[key])
        self._key = key
        self.data_dir = data_dir or self.info.data_dir

    def download_and_prepare(self, *args, **kwargs):
        return None

    def _split_data(self, split):
        cache = _CACHE.setdefault(self._key, {})
        if split not in cache:
            cache[split] = self._make(split, self.info.splits[split].num_examples)
        return cache[split]

    def as_dataset(self, split=None, batch_size=None, shuffle_files=False, as_supervised=False,
                   decoders=None, read_config=None):
        import rivulet as tf
        if split is None:
            split = {k: k for k in self.info.splits}
        if isinstance(split, dict):
            return {k: self.as_dataset(v, batch_size, shuffle_files, as_supervised) for k, v in split.items()}
        if isinstance(split, (list, tuple)):
            return [self.as_dataset(s, batch_size, shuffle_files, as_supervised) for s in split]
        if as_supervised and not self.info.supervised_keys:
            raise ValueError(f"as_supervised=True but {self.name} does not support a supervised structure.")
        ds = None
        for name, a, b in _read_instructions(str(split), {k: v.num_examples for k, v in self.info.splits.items()}):
            data = self._split_data(name)
            part = self.info.features.dataset({k: v[a:b] for k, v in data.items()})
            ds = part if ds is None else ds.concatenate(part)
        if as_supervised:
            x, y = self.info.supervised_keys
            ds = ds.map(lambda ex: (ex[x], ex[y]))
        if batch_size == -1:
            n = int(ds.cardinality())
            return tf.data.Dataset.get_single_element(ds.batch(max(n, 1)))
        if batch_size:
            ds = ds.batch(batch_size)
        return ds.prefetch(tf.data.AUTOTUNE)


_CACHE = {}


def _read_instructions(spec, sizes):
    """'train[:80%]+test' -> [(split, start, stop)], with tfds's slicing (percent boundaries rounded to the
    closest example)."""
    out = []
    for part in spec.split("+"):
        m = re.fullmatch(r"\s*(\w+)\s*(?:\[\s*([-\d]*)\s*(%?)\s*:\s*([-\d]*)\s*(%?)\s*\])?\s*", part)
        if not m or m.group(1) not in sizes:
            raise ValueError(f"Unknown split '{part.strip()}'. Should be one of {sorted(sizes)}.")
        name, n = m.group(1), sizes[m.group(1)]

        def bound(text, pct, default):
            if text == "":
                return default
            v = int(text)
            if pct:
                if not -100 <= v <= 100:
                    raise ValueError("Percent slice boundaries should be in [-100, 100].")
                v = int(round(v * n / 100.0))
            return v

        a = bound(m.group(2) or "", m.group(3), 0)
        b = bound(m.group(4) or "", m.group(5), n)
        a, b, _ = slice(a, b).indices(n)
        out.append((name, a, max(a, b)))
    return out


def builder(name, *, data_dir=None, try_gcs=False, **builder_kwargs):
    return DatasetBuilder(name, data_dir=data_dir, config=builder_kwargs.get("config"),
                          version=builder_kwargs.get("version"))


def load(name, *, split=None, data_dir=None, batch_size=None, shuffle_files=False, download=True,
         as_supervised=False, decoders=None, read_config=None, with_info=False, builder_kwargs=None,
         download_and_prepare_kwargs=None, as_dataset_kwargs=None, try_gcs=False):
    b = builder(name, data_dir=data_dir, **(builder_kwargs or {}))
    if download:
        b.download_and_prepare()
    ds = b.as_dataset(split=split, batch_size=batch_size, shuffle_files=shuffle_files,
                      as_supervised=as_supervised, **(as_dataset_kwargs or {}))
    return (ds, b.info) if with_info else ds


def as_numpy(dataset):
    """A tf.data.Dataset as an iterable of NumPy structures; tensors (batch_size=-1) as NumPy arrays."""
    import rivulet as tf
    if isinstance(dataset, tf.data.Dataset):
        return dataset.as_numpy_iterator()
    return tf.nest.map_structure(lambda t: t.numpy() if hasattr(t, "numpy") else t, dataset)


def _flat(elem, prefix=""):
    if isinstance(elem, dict):
        out = {}
        for k in elem:
            out.update(_flat(elem[k], f"{prefix}{k}/"))
        return out
    if isinstance(elem, (tuple, list)):
        out = {}
        for i, v in enumerate(elem):
            out.update(_flat(v, f"{prefix}{i}/"))
        return out
    return {prefix[:-1]: elem}


def as_dataframe(ds, ds_info=None):
    """The examples of `ds` as a pandas DataFrame, a column per (flattened) feature."""
    try:
        import pandas as pd
    except ImportError as e:
        raise ImportError("tfds.as_dataframe needs pandas: pip install pandas") from e
    rows = [_flat(ex) for ex in as_numpy(ds)]
    return pd.DataFrame(rows)


def show_examples(ds, ds_info, rows=3, cols=3, plot_scale=3.0, image_key=None, **kwargs):
    """A grid of the data set's images with their labels (ClassLabel names); returns the figure."""
    import matplotlib.pyplot as plt
    feats = ds_info.features
    keys = [k for k, f in feats.items() if isinstance(f, Image)]
    if image_key is None:
        if not keys:
            raise ValueError("Visualisation not supported for dataset `{}`".format(ds_info.name))
        image_key = keys[0]
    label_keys = [k for k, f in feats.items() if isinstance(f, ClassLabel)]
    fig = plt.figure(figsize=(plot_scale * cols, plot_scale * rows))
    for i, ex in enumerate(as_numpy(ds.take(rows * cols))):
        if isinstance(ex, tuple):  # as_supervised
            ex = dict(zip(ds_info.supervised_keys, ex))
        ax = fig.add_subplot(rows, cols, i + 1)
        img = ex[image_key]
        ax.imshow(img[..., 0] if img.ndim == 3 and img.shape[-1] == 1 else img,
                  cmap="gray" if img.ndim == 3 and img.shape[-1] == 1 else None)
        ax.axis("off")
        if label_keys and label_keys[0] in ex:
            lab = int(ex[label_keys[0]])
            ax.set_title(f"{feats[label_keys[0]].int2str(lab)} ({lab})")
    plt.show()
    return fig


class _Visualization:
    show_examples = staticmethod(show_examples)


visualization = _Visualization()


class core:  # tfds.core.DatasetInfo, tfds.core.SplitInfo, ...
    DatasetInfo = DatasetInfo
    SplitInfo = SplitInfo
    SplitDict = SplitDict
    DatasetBuilder = DatasetBuilder
    DatasetNotFoundError = DatasetNotFoundError
