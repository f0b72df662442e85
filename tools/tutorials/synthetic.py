"""Synthetic stand-ins, in the real file formats, for the files TensorFlow's tutorials download.

Each entry of `files(root)` maps a URL the tutorials fetch (through `tf.keras.utils.get_file`,
`tf.keras.datasets.*.load_data` or `pandas.read_csv(url)`) to bytes with the layout, column names, dtypes
and archive structure of the real file, but few rows and random values, so that a notebook runs in
seconds. Nothing here is real data: accuracy figures the tutorials print are meaningless on it.
"""
import csv
import gzip
import io
import os
import pickle
import struct
import tarfile
import zipfile

import numpy as np

KERAS = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
DL = "https://storage.googleapis.com/download.tensorflow.org/"


def _rng(seed):
    return np.random.default_rng(seed)


def _npz(**arrays):
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def _digits(n, seed):
    """28x28 uint8 images whose label is visible (a bright band in a label-dependent row), so models learn."""
    r = _rng(seed)
    y = r.integers(0, 10, n).astype(np.uint8)
    x = (r.random((n, 28, 28)) * 60).astype(np.uint8)
    for i, lab in enumerate(y):
        x[i, 2 + 2 * lab: 4 + 2 * lab, 4:24] = 230
    return x, y


def mnist_npz():
    # 9,000 training digits: distribute/multi_worker_with_ctl takes 70 steps of 128 from them without repeat()
    (xt, yt), (xv, yv) = _digits(9000, 1), _digits(200, 2)
    return _npz(x_train=xt, y_train=yt, x_test=xv, y_test=yv)


def _idx(arr):
    """IDX format (big-endian magic 0x0000080N, dims as uint32), as LeCun's / Zalando's files."""
    head = struct.pack(">HBB", 0, 8, arr.ndim) + b"".join(struct.pack(">I", d) for d in arr.shape)
    return gzip.compress(head + arr.astype(np.uint8).tobytes())


def fashion_files():
    (xt, yt), (xv, yv) = _digits(1200, 3), _digits(200, 4)
    return {"train-labels-idx1-ubyte.gz": _idx(yt), "train-images-idx3-ubyte.gz": _idx(xt),
            "t10k-labels-idx1-ubyte.gz": _idx(yv), "t10k-images-idx3-ubyte.gz": _idx(xv)}


def _tar_gz(members, mode="w:gz"):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode) as t:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _zip(members):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


class _Py2Pickler(pickle._Pickler):
    """Protocol 2 as Python 2 wrote CIFAR's batches: bytes as str opcodes (SHORT_BINSTRING/BINSTRING), which
    loaders read back as bytes with encoding="bytes" (Python 3's protocol 2 writes bytes as _codecs.encode
    calls, which Keras 3's loader refuses)."""

    def save_bytes(self, obj):
        n = len(obj)
        self.write((pickle.SHORT_BINSTRING + bytes([n]) if n < 256 else pickle.BINSTRING + struct.pack("<i", n))
                   + obj)
        self.memoize(obj)

    dispatch = dict(pickle._Pickler.dispatch)
    dispatch[bytes] = save_bytes


def _py2_pickle(obj):
    buf = io.BytesIO()
    _Py2Pickler(buf, protocol=2).dump(obj)
    return buf.getvalue()


def cifar10_tar():
    r = _rng(5)

    def batch(n, label):
        y = r.integers(0, 10, n)
        x = (r.random((n, 3072)) * 80).astype(np.uint8)
        x[np.arange(n), y * 100] = 255
        return _py2_pickle({b"batch_label": label, b"labels": [int(v) for v in y], b"data": x,
                            b"filenames": [b"img_%d.png" % i for i in range(n)]})

    members = {f"cifar-10-batches-py/data_batch_{i}": batch(200, b"training batch %d of 5" % i)
               for i in range(1, 6)}
    members["cifar-10-batches-py/test_batch"] = batch(200, b"testing batch 1 of 1")
    members["cifar-10-batches-py/batches.meta"] = _py2_pickle(
        {b"num_cases_per_batch": 200, b"label_names": [b"airplane", b"automobile", b"bird", b"cat", b"deer",
                                                       b"dog", b"frog", b"horse", b"ship", b"truck"],
         b"num_vis": 3072})
    return _tar_gz(members)


_WORDS = ("good great bad awful movie film plot actor story fun boring love hate best worst the a and of "
          "to is was it this that with for as on but not very really just so").split()


def _text(r, n_words, positive=None):
    words = list(r.choice(_WORDS, n_words))
    if positive is not None:
        words += ["great", "love", "best"] if positive else ["awful", "worst", "boring"]
    return " ".join(words).capitalize() + ". <br /><br />The end."


_RARE = [f"w{i:04d}" for i in range(3000)]  # a long tail, so vocabularies run past index 1287 as the real one's do


def imdb_tar():
    r = _rng(6)
    members = {}
    for split in ("train", "test"):
        for label in ("pos", "neg"):
            for i in range(60):
                # 1181_9.txt: the review text_classification prints by name
                name = "1181_9" if (split, label, i) == ("train", "pos", 0) else f"{i}_{7 if label == 'pos' else 2}"
                rare = " ".join(r.choice(_RARE, 20))
                members[f"aclImdb/{split}/{label}/{name}.txt"] = (rare + " " + _text(r, 30, label == "pos")).encode()
    for i in range(20):
        members[f"aclImdb/train/unsup/{i}_0.txt"] = _text(r, 30).encode()
    members["aclImdb/imdb.vocab"] = "\n".join(_WORDS).encode()
    members["aclImdb/README"] = b"Synthetic stand-in for the Large Movie Review Dataset v1.0\n"
    return _tar_gz(members)


def _jpeg(r, h, w):
    from PIL import Image
    arr = (r.random((h, w, 3)) * 255).astype(np.uint8)
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, format="JPEG", quality=85)
    return buf.getvalue()


def flowers_tgz():
    r = _rng(7)
    members = {"flower_photos/LICENSE.txt": b"synthetic\n"}
    for cls in ("daisy", "dandelion", "roses", "sunflowers", "tulips"):
        for i in range(24):
            members[f"flower_photos/{cls}/{1000 + i}_{cls}.jpg"] = _jpeg(r, 60 + (i % 3) * 8, 80)
    return _tar_gz(members)


def _csv(header, rows, write_header=True):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    if write_header:
        w.writerow(header)
    w.writerows(rows)
    return buf.getvalue().encode()


def auto_mpg():
    """auto-mpg.data: whitespace-separated, '?' for a missing horsepower, the car name after a tab."""
    r = _rng(8)
    lines = []
    for i in range(120):
        cyl = int(r.choice([4, 6, 8]))
        hp = "?" if i % 40 == 7 else f"{50 + cyl * 15 + r.integers(0, 30)}.0"
        disp, weight = 50.0 + cyl * 30 + r.integers(0, 40), 1800.0 + cyl * 300 + r.integers(0, 500)
        mpg = 50.0 - cyl * 3 - weight / 400 + r.normal()
        lines.append(f"{mpg:4.1f}   {cyl}   {disp:5.1f}      {hp:>5s}      {weight:6.1f}      "
                     f"{12 + r.random() * 10:4.1f}   {70 + i % 13}  {1 + i % 3}\t\"car {i}\"")
    return ("\n".join(lines) + "\n").encode()


def abalone():
    r = _rng(9)
    rows = [[round(float(v), 4) for v in r.random(7)] + [int(r.integers(1, 25))] for _ in range(300)]
    return _csv(None, rows, write_header=False)


def titanic():
    r = _rng(10)
    header = ["survived", "sex", "age", "n_siblings_spouses", "parch", "fare", "class", "deck", "embark_town",
              "alone"]
    rows = []
    for _ in range(200):
        sex = str(r.choice(["male", "female"]))
        rows.append([int(sex == "female" or r.random() < 0.2), sex, float(r.integers(1, 70)),
                     int(r.integers(0, 3)), int(r.integers(0, 3)), round(float(r.random() * 80), 4),
                     str(r.choice(["First", "Second", "Third"])), str(r.choice(["unknown", "A", "B", "C"])),
                     str(r.choice(["Southampton", "Cherbourg", "Queenstown"])), str(r.choice(["y", "n"]))])
    return _csv(header, rows)


def traffic_gz():
    r = _rng(11)
    header = ["holiday", "temp", "rain_1h", "snow_1h", "clouds_all", "weather_main", "weather_description",
              "date_time", "traffic_volume"]
    rows = [["None", round(260 + float(r.random()) * 40, 2), 0.0, 0.0, int(r.integers(0, 100)),
             str(r.choice(["Clouds", "Clear", "Rain"])), "scattered clouds",
             f"2012-10-{2 + i // 24:02d} {i % 24:02d}:00:00", int(r.integers(100, 7000))] for i in range(600)]
    return gzip.compress(_csv(header, rows))


def fonts_zip():
    r = _rng(12)
    header = ["font", "fontVariant", "m_label", "strength", "italic", "orientation", "m_top", "m_left",
              "originalH", "originalW", "h", "w"] + [f"r{i}c{j}" for i in range(20) for j in range(20)]
    members = {}
    for font in ("AGENCY", "ARIAL", "BAITI", "BANKGOTHIC", "BASKERVILLE", "BAUHAUS"):
        rows = [[font, "scanned", int(r.integers(33, 127)), 0.4, 0, 0.0, int(r.integers(0, 60)),
                 int(r.integers(0, 60)), 40, 30, 20, 20] + [int(v) for v in r.integers(1, 256, 400)]
                for _ in range(30)]
        members[f"{font}.csv"] = _csv(header, rows)
    return _zip(members)


def heart():
    r = _rng(13)
    header = ["age", "sex", "cp", "trestbps", "chol", "fbs", "restecg", "thalach", "exang", "oldpeak", "slope",
              "ca", "thal", "target"]
    rows = [[int(r.integers(29, 77)), int(r.integers(0, 2)), int(r.integers(0, 5)), int(r.integers(94, 200)),
             int(r.integers(126, 564)), int(r.integers(0, 2)), int(r.integers(0, 3)), int(r.integers(71, 202)),
             int(r.integers(0, 2)), round(float(r.random() * 6), 1), int(r.integers(1, 4)), int(r.integers(0, 4)),
             str(r.choice(["fixed", "normal", "reversible"])), int(r.integers(0, 2))] for _ in range(303)]
    return _csv(header, rows)


def petfinder_zip():
    r = _rng(14)
    header = ["Type", "Age", "Breed1", "Gender", "Color1", "Color2", "MaturitySize", "FurLength", "Vaccinated",
              "Sterilized", "Health", "Fee", "Description", "PhotoAmt", "AdoptionSpeed"]
    rows = [[str(r.choice(["Cat", "Dog"])), int(r.integers(1, 100)), str(r.choice(["Tabby", "Mixed Breed",
                                                                                   "Domestic Short Hair"])),
             str(r.choice(["Male", "Female"])), str(r.choice(["Black", "Brown", "White"])),
             str(r.choice(["White", "No Color", "Cream"])), str(r.choice(["Small", "Medium", "Large"])),
             str(r.choice(["Short", "Medium", "Long"])), str(r.choice(["Yes", "No", "Not Sure"])),
             str(r.choice(["Yes", "No", "Not Sure"])), str(r.choice(["Healthy", "Minor Injury"])),
             int(r.choice([0, 50, 100])), "Nibble is a 3+ month old ball of cuteness.", int(r.integers(0, 10)),
             int(r.integers(0, 5))] for _ in range(400)]
    return _zip({"petfinder-mini/petfinder-mini.csv": _csv(header, rows)})


def jena_zip():
    """jena_climate_2009_2016.csv: a row every 10 minutes from 01.01.2009 00:10:00 (dd.mm.yyyy hh:mm:ss)."""
    import datetime
    r = _rng(15)
    header = ["Date Time", "p (mbar)", "T (degC)", "Tpot (K)", "Tdew (degC)", "rh (%)", "VPmax (mbar)",
              "VPact (mbar)", "VPdef (mbar)", "sh (g/kg)", "H2OC (mmol/mol)", "rho (g/m**3)", "wv (m/s)",
              "max. wv (m/s)", "wd (deg)"]
    t0 = datetime.datetime(2009, 1, 1, 0, 10)
    rows = []
    for i in range(6 * 24 * 60):  # 60 days, 1440 hourly samples after the tutorial's [5::6]
        t = t0 + datetime.timedelta(minutes=10 * i)
        temp = 5 + 8 * np.sin(2 * np.pi * i / 144) + r.normal()
        wv = -9999.0 if i == 100 else round(float(abs(r.normal(2, 1))), 2)
        rows.append([t.strftime("%d.%m.%Y %H:%M:%S"), round(990 + float(r.normal()) * 5, 2), round(float(temp), 2),
                     round(273.15 + float(temp), 2), round(float(temp) - 3, 2), round(80 + float(r.normal()), 1),
                     # vapour pressures and humidity vary with the temperature (a constant column's std is 0:
                     # the tutorial's normalisation then made every value NaN and every training loss nan)
                     *[round(base + 0.2 * float(temp - 5) + 0.1 * float(r.normal()), 2)
                       for base in (6.5, 5.0, 1.5, 3.1, 5.0)], round(1300 + float(r.normal()) * 10, 2), wv,
                     round(wv + 1 if wv > 0 else wv, 2), round(float(r.random()) * 360, 1)])
    return _zip({"jena_climate_2009_2016.csv": _csv(header, rows)})


def creditcard():
    r = _rng(16)
    header = ["Time"] + [f"V{i}" for i in range(1, 29)] + ["Amount", "Class"]
    rows = []
    for i in range(2000):
        fraud = int(i % 100 == 3)
        rows.append([float(i)] + [round(float(v) + (3 if fraud else 0), 6) for v in r.normal(size=28)]
                    + [round(float(r.random()) * 200, 2), fraud])
    return _csv(header, rows)


def ecg():
    r = _rng(17)
    rows = []
    for i in range(500):
        normal = int(i % 3 != 0)
        sig = np.sin(np.linspace(0, 6, 140) + (0 if normal else 1.5)) + r.normal(size=140) * 0.1
        rows.append([round(float(v), 6) for v in sig] + [float(normal)])
    return _csv(None, rows, write_header=False)


def _png(arr):
    from PIL import Image
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, format="PNG")
    return buf.getvalue()


def _varint(n):
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number, payload):
    """A length-delimited protobuf field (wire type 2)."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _example(features):
    """A serialized tf.train.Example: {key: list of bytes (BytesList) or of ints (Int64List, packed)}."""
    body = b""
    for key, values in features.items():
        if isinstance(values[0], bytes):
            feature = _field(1, b"".join(_field(1, v) for v in values))
        else:
            feature = _field(3, _field(1, b"".join(_varint(v & (2 ** 64 - 1)) for v in values)))
        body += _field(1, _field(1, key.encode()) + _field(2, feature))
    return _field(1, body)


def _crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def _tfrecords(records):
    """TFRecord framing: length (uint64 LE), its masked CRC-32C, the data, the data's masked CRC-32C."""
    def masked(data):
        c = _crc32c(data)
        return struct.pack("<I", (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF)
    out = b""
    for rec in records:
        head = struct.pack("<Q", len(rec))
        out += head + masked(head) + rec + masked(rec)
    return out


def fsns_tfrec():
    """FSNS test records: a 600x150 street-sign PNG (four 150x150 views) with its text and label ids."""
    r = _rng(19)
    recs = []
    for text in (b"Rue de Provence", b"Avenue Victor Hugo", b"Boulevard Saint-Michel"):
        img = (r.random((150, 600, 3)) * 255).astype(np.uint8)
        recs.append(_example({"image/encoded": [_png(img)], "image/format": [b"PNG"], "image/text": [text],
                              "image/class": [int(c) % 134 for c in text], "image/width": [600],
                              "image/orig_width": [150]}))
    return _tfrecords(recs)


def illiad(seed):
    r = _rng(seed)
    words = ["Achilles", "wrath", "the", "of", "sing", "goddess", "Troy", "ships", "Greeks", "and", "his", "spear"]
    return ("\n".join(" ".join(r.choice(words, 8)) for _ in range(300)) + "\n").encode()


def wdbc():
    """wdbc.data: id, diagnosis (M/B), 30 real-valued features; no header."""
    r = _rng(20)
    rows = []
    for i in range(300):
        malignant = i % 3 == 0
        rows.append([842302 + i, "M" if malignant else "B"]
                    + [round(float(v) * (1.5 if malignant else 1.0), 4) for v in r.random(30) * 20 + 0.1])
    return _csv(None, rows, write_header=False)


def imagenet_labels():
    return ("background\n" + "".join(f"class {i}\n" for i in range(1, 1001))).encode()


def application_weights(name, builder, **kwargs):
    """Weights of the right shapes in tf_keras's h5 layout for a keras.applications model (random: the guides
    only run the model), made with rivulet's own model and save_weights when a guide fetches them."""
    def make():
        import tempfile
        import rivulet as tf
        tf.keras.utils.set_random_seed(0)
        model = getattr(tf.keras.applications, builder)(weights=None, **kwargs)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, name)
            model.save_weights(path)
            with open(path, "rb") as f:
                return f.read()
    return make


def stack_overflow_tgz():
    """stack_overflow_16k.tar.gz: train/ and test/ with a folder per language of numbered .txt questions, and
    README.md, at the archive's top level (no enclosing folder), as the real one."""
    r = _rng(22)
    words = {"csharp": "class public void var linq using namespace string", "java": "class public void static "
             "import package string arraylist", "javascript": "function var let const document window jquery "
             "json", "python": "def import self list dict print lambda pandas"}
    common = "how do i get the a an in of to is my when what why can error value".split()
    members = {"README.md": b"Synthetic stand-in for the Stack Overflow questions data set (16k)\n"}
    for split in ("train", "test"):
        for lang, own in words.items():
            own = own.split()
            for i in range(40):
                # 1755.txt: the question load_data/text prints by name
                name = 1755 if (split, lang, i) == ("train", "python", 0) else 100 + i
                text = " ".join(list(r.choice(common, 12)) + list(r.choice(own, 6)) + list(r.choice(_RARE, 20)))
                members[f"{split}/{lang}/{name}.txt"] = ('"' + text.capitalize() + '?"\n').encode()
    return _tar_gz(members)


def higgs_gz():
    """HIGGS.csv.gz: no header, the label then 28 features, each written as %.18e; the tutorial reads the
    first 11,000 rows (1,000 to validate, 10,000 to train), so there are 11,000."""
    r = _rng(23)
    n = 11000
    label = (r.random(n) < 0.53).astype(np.float64)
    x = np.abs(r.normal(1.0, 0.5, (n, 28))) + label[:, None] * 0.3 * (np.arange(28) < 5)
    body = "\n".join(",".join("%.18e" % v for v in row) for row in np.column_stack([label, x]))
    return gzip.compress((body + "\n").encode(), compresslevel=1)


def cats_and_dogs_zip():
    """cats_and_dogs_filtered.zip: cats_and_dogs_filtered/{train,validation}/{cats,dogs}/cat.N.jpg; 192
    validation images make the tutorial's 6 batches (one to test), 64 train images keep it quick."""
    r = _rng(24)
    members = {"cats_and_dogs_filtered/vectorize.py": b"# synthetic\n"}
    n = 0
    for split, count in (("train", 32), ("validation", 96)):
        for cls in ("cats", "dogs"):
            for _ in range(count):
                members[f"cats_and_dogs_filtered/{split}/{cls}/{cls[:-1]}.{n}.jpg"] = _jpeg(r, 90 + n % 3 * 10, 100)
                n += 1
    return _zip(members)


def _wav(samples, rate=16000):
    """A 16-bit PCM mono RIFF/WAVE file."""
    import wave
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes((np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes())
    return buf.getvalue()


def speech_commands_zip():
    """mini_speech_commands.zip: mini_speech_commands/<word>/<speaker>_nohash_<n>.wav (16 kHz 16-bit mono, at
    most one second: some shorter, as real clips are) and README.md; each word a tone of its own in noise. 50
    clips a word: the notebook halves its 20% validation split (batches of 64) by `shard`, which leaves the
    validation half empty (no `val_loss`, in TensorFlow too) unless that split holds two batches."""
    r = _rng(25)
    members = {"mini_speech_commands/README.md": b"Synthetic stand-in for the mini Speech Commands data set\n"}
    for k, word in enumerate(("down", "go", "left", "no", "right", "stop", "up", "yes")):
        for i in range(50):
            n = 16000 if i % 4 else 13000 + 500 * (i % 3)
            t = np.arange(n) / 16000
            sig = 0.5 * np.sin(2 * np.pi * (200 + 150 * k) * t) + 0.1 * r.normal(size=n)
            # 01bb6a2a_nohash_0.wav: the clip simple_audio reads by name
            name = "01bb6a2a_nohash_0" if (word, i) == ("no", 0) else f"{i:04x}abcd_nohash_{i % 3}"
            members[f"mini_speech_commands/{word}/{name}.wav"] = _wav(sig)
    return _zip(members)


def miaow_wav():
    """miaow_16k.wav: 6.73 s at 16 kHz, mono 16-bit (a rising and falling tone in noise)."""
    r = _rng(31)
    t = np.arange(int(6.73 * 16000)) / 16000
    f = 500 + 300 * np.sin(2 * np.pi * 0.4 * t)
    return _wav(0.4 * np.sin(2 * np.pi * np.cumsum(f) / 16000) + 0.05 * r.normal(size=t.size))


ESC50_CLASSES = {"dog": (0, True), "rooster": (1, True), "cat": (5, False), "rain": (10, True)}


def esc50_zip():
    """ESC-50's master.zip: ESC-50-master/meta/esc50.csv (filename, fold, target, category, esc10, src_file,
    take) and ESC-50-master/audio/<fold>-<src>-<take>-<target>.wav (5 s at 44.1 kHz, mono 16-bit, as the
    real clips), fewer of them: 2 dog and 2 cat clips per fold, 1 rooster and 1 rain (the real set has 8 of
    each of its 50 classes per fold)."""
    r = _rng(32)
    rate = 44100
    t = np.arange(5 * rate) / rate
    rows = []
    members = {"ESC-50-master/README.md": b"Synthetic stand-in for ESC-50\n"}
    for fold in range(1, 6):
        for category, (target, esc10) in ESC50_CLASSES.items():
            for k in range(2 if category in ("dog", "cat") else 1):
                src = 100000 + 1000 * fold + 10 * target + k
                name = f"{fold}-{src}-A-{target}.wav"
                tone = np.sin(2 * np.pi * (150 + 60 * target + 20 * k) * t) * (np.sin(2 * np.pi * 2 * t) > 0)
                members["ESC-50-master/audio/" + name] = _wav(0.3 * tone + 0.05 * r.normal(size=t.size), rate)
                rows.append([name, fold, target, category, esc10, src, "A"])
    members["ESC-50-master/meta/esc50.csv"] = _csv(
        ["filename", "fold", "target", "category", "esc10", "src_file", "take"], sorted(rows))
    return _zip(members)


def facades_tgz():
    """pix2pix's facades.tar.gz: facades/{train,test,val}/<n>.jpg, each 256x512 (the photo on the left, its
    label map on the right); 7 training images (1-6 and 100.jpg, which the notebook shows), 3 test, 3 val
    (the real set: 400, 106, 100)."""
    r = _rng(33)
    members = {}
    for split, names in (("train", [1, 2, 3, 4, 5, 6, 100]), ("test", [1, 2, 3]), ("val", [1, 2, 3])):
        for n in names:
            members[f"facades/{split}/{n}.jpg"] = _jpeg(r, 256, 512)
    return _tar_gz(members)


def maestro_zip():
    """maestro-v2.0.0-midi.zip: maestro-v2.0.0/<year>/<name>.midi (Standard MIDI Files of one piano, 384
    ticks a beat, sustain pedal changes; written with the pretty_midi stand-in) and maestro-v2.0.0.csv; 6
    performances of 240 notes each (the real set: 1,282 of thousands of notes)."""
    import sys
    stand_ins = os.path.join(os.path.dirname(os.path.abspath(__file__)), "stand_ins")
    if stand_ins not in sys.path:
        sys.path.append(stand_ins)
    import pretty_midi
    r = _rng(34)
    members = {"maestro-v2.0.0/LICENSE": b"Synthetic stand-in for the MAESTRO data set\n"}
    rows = []
    for k in range(6):
        pm = pretty_midi.PrettyMIDI(resolution=384)
        piano = pretty_midi.Instrument(program=0)
        t, pitch = 0.0, 60 + k
        for _ in range(240):
            pitch = int(np.clip(pitch + r.integers(-5, 6), 30, 96))
            duration = float(r.choice([0.12, 0.25, 0.5, 0.75]))
            piano.notes.append(pretty_midi.Note(int(r.integers(40, 110)), pitch, t, t + duration))
            if r.random() < 0.3:  # a chord tone
                piano.notes.append(pretty_midi.Note(int(r.integers(40, 110)), pitch - 4, t, t + duration))
            t += float(r.choice([0.0, 0.1, 0.2, 0.3]))
        piano.control_changes += [pretty_midi.ControlChange(64, 100, 0.5), pretty_midi.ControlChange(64, 0, 3.0)]
        pm.instruments.append(piano)
        buf = io.BytesIO()
        pm.write(buf)
        name = f"{2004 + k % 3}/MIDI-Unprocessed_SMF_{k:02d}_R1_2004_01-05_ORIG_MID--AUDIO_{k:02d}_R1_2004_wav.midi"
        members["maestro-v2.0.0/" + name] = buf.getvalue()
        rows.append(["Composer", f"Piece {k}", "train", 2004 + k % 3, name, name[:-5] + ".wav", round(t, 3)])
    members["maestro-v2.0.0/maestro-v2.0.0.csv"] = _csv(
        ["canonical_composer", "canonical_title", "split", "year", "midi_filename", "audio_filename", "duration"],
        rows)
    return _zip(members)


def imagenet_class_index():
    """imagenet_class_index.json: {"0": [wnid, name], ...} for the 1000 classes (made-up names)."""
    import json
    return json.dumps({str(i): [f"n{1440764 + i:08d}", f"class_{i}"] for i in range(1000)}).encode()


def files():
    """URL -> bytes: every file the chosen tutorials fetch."""
    r = _rng(18)
    out = {KERAS + "mnist.npz": mnist_npz(),
           "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz": cifar10_tar(),
           "https://ai.stanford.edu/~amaas/data/sentiment/aclImdb_v1.tar.gz": imdb_tar(),
           DL + "example_images/flower_photos.tgz": flowers_tgz(),
           DL + "example_images/592px-Red_sunflower.jpg": _jpeg(r, 120, 90),
           DL + "example_images/320px-Felis_catus-cat_on_snow.jpg": _jpeg(r, 213, 320),
           DL + "example_images/194px-New_East_River_Bridge_from_Brooklyn_det.4a09796u.jpg": _jpeg(r, 146, 194),
           "http://archive.ics.uci.edu/ml/machine-learning-databases/auto-mpg/auto-mpg.data": auto_mpg(),
           DL + "data/abalone_train.csv": abalone(),
           "https://storage.googleapis.com/tf-datasets/titanic/train.csv": titanic(),
           "https://storage.googleapis.com/tf-datasets/titanic/eval.csv": titanic(),
           "https://archive.ics.uci.edu/ml/machine-learning-databases/00492/Metro_Interstate_Traffic_Volume.csv.gz":
               traffic_gz(),
           "https://archive.ics.uci.edu/ml/machine-learning-databases/00417/fonts.zip": fonts_zip(),
           DL + "data/heart.csv": heart(),
           "http://storage.googleapis.com/download.tensorflow.org/data/petfinder-mini.zip": petfinder_zip(),
           KERAS + "jena_climate_2009_2016.csv.zip": jena_zip(),
           DL + "data/creditcard.csv": creditcard(),
           "http://storage.googleapis.com/download.tensorflow.org/data/ecg.csv": ecg(),
           # the guides (--set guides)
           DL + "data/fsns-20160927/testdata/fsns-00000-of-00001": fsns_tfrec(),
           DL + "data/creditcard.zip": _zip({"creditcard.csv": creditcard()}),
           "https://archive.ics.uci.edu/ml/machine-learning-databases/breast-cancer-wisconsin/wdbc.data": wdbc(),
           DL + "example_images/grace_hopper.jpg": _jpeg(r, 606, 517),
           DL + "data/ImageNetLabels.txt": imagenet_labels(),
           "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet/mobilenet_1_0_224_tf.h5":
               application_weights("mobilenet_1_0_224_tf.h5", "MobileNet"),
           "https://imagen.research.google/main_gallery_images/a-photo-of-a-corgi-dog-riding-a-bike-in-times-square.jpg":
               _jpeg(r, 256, 256),
           # the tutorials added with load_data/text, keras/overfit_and_underfit, images/transfer_learning,
           # generative/adversarial_fgsm, audio/simple_audio
           DL + "data/stack_overflow_16k.tar.gz": stack_overflow_tgz(),
           "http://mlphysics.ics.uci.edu/data/higgs/HIGGS.csv.gz": higgs_gz,
           "https://download.mlcc.google.com/mledu-datasets/cats_and_dogs_filtered.zip": cats_and_dogs_zip(),
           DL + "example_images/YellowLabradorLooking_new.jpg": _jpeg(r, 577, 700),
           DL + "data/imagenet_class_index.json": imagenet_class_index(),
           "http://storage.googleapis.com/download.tensorflow.org/data/mini_speech_commands.zip": speech_commands_zip}
    mv2 = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet_v2/"
    for name, kwargs in (("mobilenet_v2_weights_tf_dim_ordering_tf_kernels_1.0_224.h5", {}),
                         ("mobilenet_v2_weights_tf_dim_ordering_tf_kernels_1.0_160_no_top.h5",
                          {"include_top": False, "input_shape": (160, 160, 3)}),
                         # images/segmentation's U-Net encoder
                         ("mobilenet_v2_weights_tf_dim_ordering_tf_kernels_1.0_128_no_top.h5",
                          {"include_top": False, "input_shape": (128, 128, 3)})):
        out[mv2 + name] = application_weights(name, "MobileNetV2", **kwargs)
    apps = "https://storage.googleapis.com/tensorflow/keras-applications/"
    # generative/deepdream (InceptionV3 without its top) and generative/style_transfer (VGG19, with and without)
    for name, builder, kwargs in (
            ("inception_v3/inception_v3_weights_tf_dim_ordering_tf_kernels_notop.h5", "InceptionV3",
             {"include_top": False}),
            ("vgg19/vgg19_weights_tf_dim_ordering_tf_kernels.h5", "VGG19", {}),
            ("vgg19/vgg19_weights_tf_dim_ordering_tf_kernels_notop.h5", "VGG19", {"include_top": False})):
        out[apps + name] = application_weights(name.split("/")[1], builder, **kwargs)
    out[DL + "example_images/Vassily_Kandinsky%2C_1913_-_Composition_7.jpg"] = _jpeg(r, 300, 400)
    for i, name in enumerate(("cowper.txt", "derby.txt", "butler.txt")):
        out[DL + "data/illiad/" + name] = illiad(21 + i)
    # interpretability/integrated_gradients
    images = "http://storage.googleapis.com/download.tensorflow.org/example_images/"
    out[images + "San_Francisco_fireboat_showing_off.jpg"] = _jpeg(r, 480, 640)
    out[images + "Giant_Panda_2.jpeg"] = _jpeg(r, 400, 600)
    # generative/pix2pix
    out["http://efrosgans.eecs.berkeley.edu/pix2pix/datasets/facades.tar.gz"] = facades_tgz
    # audio/music_generation
    out["https://storage.googleapis.com/magentadata/datasets/maestro/v2.0.0/maestro-v2.0.0-midi.zip"] = maestro_zip
    # audio/transfer_learning_audio
    out["https://storage.googleapis.com/audioset/miaow_16k.wav"] = miaow_wav()
    out["https://github.com/karoldvl/ESC-50/archive/master.zip"] = esc50_zip
    for name, data in fashion_files().items():
        out[KERAS + name] = data
    return out
