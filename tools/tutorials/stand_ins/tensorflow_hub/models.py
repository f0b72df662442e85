"""The modules the tensorflow_hub stand-in serves: small random-weight models built with rivulet in the
interface of the real ones (inputs, outputs, dtypes, shapes, `training` argument, variables, signatures).
Nothing here is a trained model: predictions mean nothing.

- image classifiers ('.../classification/N'): float32 images in [0, 1] -> 1001 ImageNet logits (class 0
  'background'), `__call__(inputs, training=False)`, batch-norm moving statistics as non-trainable variables;
- image feature vectors ('.../feature_vector/N'): the same trunk -> the model's feature size (MobileNetV2
  1280, Inception V3 2048, Inception V1 1024);
- text embeddings (nnlm-en-dim50/128, gnews-swivel-20dim): a batch of strings [None] -> [None, dim]: each
  sentence split on spaces (the `-with-normalization` ones lower-case it and drop punctuation first), each
  token hashed into a bucket of a trainable table 'embeddings', the token vectors combined by sqrt(n)
  (nnlm's combiner: their sum over sqrt(number of tokens); an empty sentence gives zeros);
- YAMNet: a float32 waveform at 16 kHz [None] -> (scores [patches, 521], embeddings [patches, 1024],
  log_mel_spectrogram [frames, 64]) with YAMNet's framing (25 ms windows every 10 ms, 64 mel bands from 125
  to 7500 Hz, log(mel + 0.001), patches of 96 frames every 48, the waveform zero-padded to whole patches), and
  `class_map_path()` giving the class map CSV (index, mid, display_name) saved beside the model;
- magenta's arbitrary-image-stylization: (content, style) images -> [stylized image of the content's size].
"""
import os

import numpy as np

# (input image size or None for any size, feature size) of the image models, by the name in the handle
IMAGE_MODELS = {
    "mobilenet_v2": (224, 1280), "mobilenet_v2_100_224": (224, 1280), "mobilenet_v3": (224, 1280),
    "inception_v3": (299, 2048), "inception_v1": (None, 1024), "resnet_50": (224, 2048),
    "efficientnet": (None, 1280),
}
TEXT_MODELS = {"nnlm-en-dim50": 50, "nnlm-en-dim128": 128, "gnews-swivel-20dim": 20, "nnlm-de-dim50": 50}
TEXT_BUCKETS = 20000  # (the real nnlm tables hold ~960,000 tokens)
YAMNET_CLASSES = 521


def kind_of(handle):
    """('image', (size, features, classifier)) / ('text', (dim, normalize)) / ('yamnet', ()) for a handle."""
    h = handle.rstrip("/").lower()
    parts = h.split("/")
    if "yamnet" in parts:
        return "yamnet", ()
    if any(p.startswith("arbitrary-image-stylization") for p in parts):
        return "stylization", ()
    for name, dim in TEXT_MODELS.items():
        for p in parts:
            if p.startswith(name):
                return "text", (dim, "with-normalization" in p)
    for p in parts:
        for name, (size, feats) in IMAGE_MODELS.items():
            if p.startswith(name):
                if "classification" in parts:
                    return "image", (size, feats, True)
                if "feature_vector" in parts:
                    return "image", (size, feats, False)
    return None, ()


def _init(variables, seed):
    """He-normal kernels from a generator of their own (the notebook's global seeds are left alone)."""
    r = np.random.default_rng(seed)
    for v in variables:
        shape = tuple(v.shape)
        if len(shape) >= 2:
            fan_in = int(np.prod(shape[:-1])) if len(shape) != 4 or shape[-1] != 1 else int(np.prod(shape[:2]))
            v.assign(r.normal(0.0, np.sqrt(2.0 / max(fan_in, 1)), shape).astype(v.dtype.as_numpy_dtype))


def _trunk(tf, x, widths):
    """A MobileNet-like trunk: a strided 3x3 convolution, then depthwise-separable blocks each halving the
    size (ReLU6 and batch norm as MobileNet's)."""
    L = tf.keras.layers
    x = L.Conv2D(widths[0], 3, strides=2, padding="same", use_bias=False)(x)
    x = L.BatchNormalization()(x)
    x = L.ReLU(6.0)(x)
    for w in widths[1:]:
        x = L.DepthwiseConv2D(3, strides=2, padding="same", use_bias=False)(x)
        x = L.BatchNormalization()(x)
        x = L.ReLU(6.0)(x)
        x = L.Conv2D(w, 1, use_bias=False)(x)
        x = L.BatchNormalization()(x)
        x = L.ReLU(6.0)(x)
    return x


def image_module(tf, size, features, classifier, seed):
    L = tf.keras.layers
    inp = L.Input((size, size, 3))
    x = _trunk(tf, inp, (16, 24, 32, 64))
    x = L.Conv2D(features, 1, use_bias=False)(x)
    x = L.BatchNormalization()(x)
    x = L.ReLU(6.0)(x)
    x = L.GlobalAveragePooling2D()(x)
    if classifier:
        x = L.Dense(1001)(x)
    model = tf.keras.Model(inp, x)
    _init(model.trainable_weights, seed)

    class ImageModule(tf.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        @tf.function
        def __call__(self, inputs, training=False):
            return self.model(inputs, training=training)

    m = ImageModule()
    spec = tf.TensorSpec([None, size, size, 3], tf.float32)
    for training in (False, True):
        m.__call__.get_concrete_function(spec, training)
    return m, {"serving_default": m.__call__.get_concrete_function(spec, False)}


def text_module(tf, dim, normalize, seed):
    r = np.random.default_rng(seed)
    table = r.normal(0.0, 1.0 / np.sqrt(dim), (TEXT_BUCKETS, dim)).astype(np.float32)

    class TextModule(tf.Module):
        def __init__(self):
            super().__init__()
            self.embeddings = tf.Variable(table, name="embeddings")

        @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
        def __call__(self, sentences):
            s = sentences
            if normalize:
                s = tf.strings.regex_replace(tf.strings.lower(s), r"[^a-z0-9 ]", " ")
            tokens = tf.strings.split(s, sep=" ")
            ids = tf.strings.to_hash_bucket_fast(tokens.flat_values, TEXT_BUCKETS)
            empty = tf.equal(tokens.flat_values, "")  # `sep` keeps empty tokens between two spaces
            rows = tokens.value_rowids()
            vectors = tf.gather(self.embeddings, ids) * tf.expand_dims(1.0 - tf.cast(empty, tf.float32), 1)
            n = tf.shape(sentences)[0]
            total = tf.math.unsorted_segment_sum(vectors, rows, n)
            count = tf.math.unsorted_segment_sum(1.0 - tf.cast(empty, tf.float32), rows, n)
            return total / tf.expand_dims(tf.sqrt(tf.maximum(count, 1.0)), 1)

    m = TextModule()
    return m, {"default": m.__call__.get_concrete_function()}


# YAMNet's front end (its published parameters)
SAMPLE_RATE = 16000
WINDOW, HOP, FFT = 400, 160, 512  # 25 ms, 10 ms
MEL_BANDS, MEL_LOW, MEL_HIGH = 64, 125.0, 7500.0
PATCH_FRAMES, PATCH_HOP = 96, 48  # 0.96 s, 0.48 s


def mel_matrix():
    """[FFT // 2 + 1, MEL_BANDS] triangular filters on the HTK mel scale (1127 ln(1 + f / 700)), the DC bin
    left out, as YAMNet's front end uses."""
    def mel(f):
        return 1127.0 * np.log1p(np.asarray(f, np.float64) / 700.0)
    bins = FFT // 2 + 1
    freqs = np.linspace(0.0, SAMPLE_RATE / 2, bins)[1:]
    edges = np.linspace(mel(MEL_LOW), mel(MEL_HIGH), MEL_BANDS + 2)
    m = mel(freqs)[:, None]
    lower, center, upper = edges[:-2], edges[1:-1], edges[2:]
    w = np.maximum(0.0, np.minimum((m - lower) / (center - lower), (upper - m) / (upper - center)))
    return np.concatenate([np.zeros((1, MEL_BANDS)), w]).astype(np.float32)


def class_map_csv():
    names = ["Speech", "Child speech, kid speaking", "Conversation", "Narration, monologue", "Babbling"]
    names += [f"Sound {i}" for i in range(len(names), YAMNET_CLASSES)]
    names[67:80] = ["Animal", "Domestic animals, pets", "Dog", "Bark", "Yip", "Howl", "Bow-wow", "Growling",
                    "Whimper (dog)", "Cat", "Purr", "Meow", "Hiss"]
    lines = ["index,mid,display_name"]
    for i, name in enumerate(names):
        lines.append(f'{i},/m/{i:05x},"{name}"' if "," in name else f"{i},/m/{i:05x},{name}")
    return "\n".join(lines) + "\n"


def yamnet_module(tf, seed, directory):
    L = tf.keras.layers
    inp = L.Input((PATCH_FRAMES, MEL_BANDS, 1))
    x = _trunk(tf, inp, (16, 32, 64))
    x = L.GlobalAveragePooling2D()(x)
    emb = L.Dense(1024, activation="relu")(x)
    scores = L.Dense(YAMNET_CLASSES, activation="sigmoid")(emb)
    net = tf.keras.Model(inp, [scores, emb])
    _init(net.trainable_weights, seed)
    mel = mel_matrix()
    os.makedirs(os.path.join(directory, "assets"), exist_ok=True)
    class_map = os.path.join(directory, "assets", "yamnet_class_map.csv")
    with open(class_map, "w") as f:
        f.write(class_map_csv())
    min_samples = (PATCH_FRAMES - 1) * HOP + WINDOW  # 15600: one whole patch
    hop_samples = PATCH_HOP * HOP  # 7680

    class YAMNet(tf.Module):
        def __init__(self):
            super().__init__()
            self.net = net

        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def __call__(self, waveform):
            n = tf.shape(waveform)[0]
            padded_n = tf.maximum(n, min_samples)
            extra = padded_n - min_samples
            hops = (extra + hop_samples - 1) // hop_samples
            pad = min_samples + hops * hop_samples - n
            wav = tf.pad(waveform, [[0, pad]])
            stft = tf.abs(tf.signal.stft(wav, WINDOW, HOP, FFT))
            log_mel = tf.math.log(tf.matmul(stft, tf.constant(mel)) + 0.001)
            patches = tf.signal.frame(log_mel, PATCH_FRAMES, PATCH_HOP, axis=0)
            s, e = self.net(tf.expand_dims(patches, -1), training=False)
            return s, e, log_mel

        @tf.function(input_signature=[])
        def class_map_path(self):
            return tf.constant(class_map)

    m = YAMNet()
    return m, {"serving_default": m.__call__.get_concrete_function()}


def stylization_module(tf, seed):
    """magenta/arbitrary-image-stylization: `module(content, style)` -> [stylized], float32 images in [0, 1]
    of the content's size; here the content's per-channel statistics moved to the style's (AdaIN on the
    pixels) plus a random 3x3 convolution of them, clipped to [0, 1]."""
    kernel = np.random.default_rng(seed).normal(0.0, 0.05, (3, 3, 3, 3)).astype(np.float32)

    class Stylization(tf.Module):
        def __init__(self):
            super().__init__()
            self.kernel = tf.Variable(kernel, name="kernel")

        @tf.function(input_signature=[tf.TensorSpec([None, None, None, 3], tf.float32),
                                      tf.TensorSpec([None, None, None, 3], tf.float32)])
        def __call__(self, placeholder, placeholder_1):
            c_mean, c_var = tf.nn.moments(placeholder, axes=[1, 2], keepdims=True)
            s_mean, s_var = tf.nn.moments(placeholder_1, axes=[1, 2], keepdims=True)
            x = (placeholder - c_mean) * tf.sqrt((s_var + 1e-5) / (c_var + 1e-5)) + s_mean
            x = x + tf.nn.conv2d(x, self.kernel, 1, "SAME")
            return [tf.clip_by_value(x, 0.0, 1.0)]

    m = Stylization()
    return m, {"serving_default": m.__call__.get_concrete_function()}


def build(handle, directory):
    """Builds the module for `handle` and saves it as a SavedModel in `directory`."""
    import zlib

    import rivulet as tf
    kind, args = kind_of(handle)
    seed = zlib.crc32(handle.encode())
    if kind == "image":
        module, signatures = image_module(tf, *args, seed)
    elif kind == "text":
        module, signatures = text_module(tf, *args, seed)
    elif kind == "yamnet":
        module, signatures = yamnet_module(tf, seed, directory)
    elif kind == "stylization":
        module, signatures = stylization_module(tf, seed)
    else:
        raise ValueError(f"the tensorflow_hub stand-in has no module for {handle!r} (it serves image "
                         f"classifiers and feature vectors of {sorted(IMAGE_MODELS)}, the text embeddings "
                         f"{sorted(TEXT_MODELS)}, YAMNet and arbitrary-image-stylization)")
    tf.saved_model.save(module, directory, signatures=signatures)
