"""tools/tutorials/stand_ins: the tensorflow_hub stand-in (modules built with rivulet, saved to the hub cache
and loaded back with tf.saved_model.load) and the gym stand-in (CartPole-v1), and the runner's rewrites for
the notebooks they serve (no notebook is run)."""
import hashlib
import math
import os
import sys

import numpy as np
import pytest

import rivulet as tf

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "tutorials"))
import run_tutorials as rt  # noqa: E402

sys.path.insert(0, rt.STAND_INS)
import gym  # noqa: E402  (the stand-ins)
import tensorflow_hub as hub  # noqa: E402

NNLM = "https://tfhub.dev/google/nnlm-en-dim50/2"
MOBILENET = "https://tfhub.dev/google/tf2-preview/mobilenet_v2/feature_vector/4"
CLASSIFIER = "https://tfhub.dev/google/tf2-preview/mobilenet_v2/classification/4"


def test_hub_and_tf_keras_cells_are_scored_and_episode_loops_shrink():
    assert hub.__file__.startswith(rt.STAND_INS) and gym.__file__.startswith(rt.STAND_INS)
    nb = {"cells": [{"cell_type": "code", "source": ["import tensorflow_hub as hub\nimport tf_keras as keras"]},
                    {"cell_type": "code", "source": ["import tensorflow_docs.vis.embed as embed"]}]}
    cells = rt.code_cells(nb)
    assert [c["scored"] for c in cells] == [True, False]
    assert cells[0]["code"] == "import tensorflow_hub as hub\nfrom rivulet import keras as keras"
    code = rt.transform("max_episodes = 10000\nmin_episodes_criterion = 100\nmax_steps_per_episode = 500\n"
                        "n_episodes = 5\nfrom tf_keras.layers import Dense")
    assert code.splitlines() == [f"max_episodes = {rt.MAX_EPISODES}", "min_episodes_criterion = 100",
                                 "max_steps_per_episode = 500", "n_episodes = 5",
                                 "from rivulet.keras.layers import Dense"]


@pytest.fixture
def hub_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TFHUB_CACHE_DIR", str(tmp_path))
    return tmp_path


def test_text_embedding_is_a_saved_model_in_the_hub_cache(hub_cache):
    m = hub.load(NNLM)
    folder = hub_cache / hashlib.sha1(NNLM.encode()).hexdigest()
    assert os.listdir(folder) and (hub_cache / (folder.name + ".descriptor.txt")).exists()
    assert hub.resolve(NNLM) == str(folder)
    e = m(tf.constant(["the movie was great", "", "the  movie was great"]))
    assert e.shape == (3, 50) and e.dtype == tf.float32
    np.testing.assert_array_equal(e.numpy()[1], np.zeros(50, np.float32))  # no tokens: zeros
    np.testing.assert_allclose(e.numpy()[2], e.numpy()[0], rtol=1e-6)  # empty tokens are not counted
    # sqrt(n) combiner: the sum of the token vectors over sqrt(4)
    words = m(tf.constant(["the", "movie", "was", "great"])).numpy()
    np.testing.assert_allclose(e.numpy()[0], words.sum(0) / 2.0, rtol=1e-5, atol=1e-6)
    assert [v.name for v in m.trainable_variables] == ["embeddings:0"]


def test_keras_layer_trainable_flag_and_fine_tuning(hub_cache):
    frozen = hub.KerasLayer(NNLM, input_shape=[], dtype=tf.string)
    assert (len(frozen.trainable_weights), len(frozen.non_trainable_weights)) == (0, 1)
    layer = hub.KerasLayer(NNLM, input_shape=[], dtype=tf.string, trainable=True)
    assert (len(layer.trainable_weights), len(layer.non_trainable_weights)) == (1, 0)
    model = tf.keras.Sequential([layer, tf.keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss=tf.keras.losses.BinaryCrossentropy(from_logits=True))
    before = layer.trainable_weights[0].numpy().copy()
    model.fit(tf.constant(["good film", "bad film"]), np.array([1.0, 0.0]), epochs=1, verbose=0)
    assert not np.array_equal(before, layer.trainable_weights[0].numpy())  # gradients reach the loaded table
    assert layer.get_config()["handle"] == NNLM


def test_image_modules_keras_layer_arguments(hub_cache):
    x = np.random.default_rng(0).random((2, 224, 224, 3)).astype(np.float32)
    tf.keras.backend.clear_session()
    hub.load(MOBILENET)  # built in a process of its own: the notebook's layer names are left alone
    assert tf.keras.layers.Dense(5).name == "dense"
    features = hub.KerasLayer(MOBILENET, input_shape=(224, 224, 3), trainable=False)
    assert features(x).shape == (2, 1280)
    assert features.trainable_weights == [] and len(features.non_trainable_weights) > 10  # BN statistics too
    model = tf.keras.Sequential([features, tf.keras.layers.Dense(5)])
    assert model.output_shape == (None, 5)
    assert hub.load(CLASSIFIER)(x, training=False).shape == (2, 1001)
    by_signature = hub.KerasLayer(CLASSIFIER, signature="serving_default", output_key="output_0")
    np.testing.assert_allclose(by_signature(x).numpy(), hub.load(CLASSIFIER)(x).numpy(), rtol=1e-5, atol=1e-5)
    as_dict = hub.KerasLayer(CLASSIFIER, signature="serving_default", signature_outputs_as_dict=True)
    assert list(as_dict(x)) == ["output_0"]
    with pytest.raises(ValueError, match="output_key"):
        hub.KerasLayer(CLASSIFIER, output_key="logits")(x)
    with pytest.raises(ValueError, match="no module"):
        hub.load("https://tfhub.dev/google/unknown/1")


def test_yamnet_interface(hub_cache):
    import csv
    yamnet = hub.load("https://tfhub.dev/google/yamnet/1")
    wav = np.sin(np.arange(16000) / 16000 * 2 * np.pi * 440).astype(np.float32)
    scores, embeddings, spectrogram = yamnet(wav)
    # one second is padded to two patches of 0.96 s every 0.48 s: 144 frames of 10 ms
    assert (scores.shape, embeddings.shape, spectrogram.shape) == ((2, 521), (2, 1024), (144, 64))
    assert 0.0 <= float(tf.reduce_min(scores)) and float(tf.reduce_max(scores)) <= 1.0
    assert yamnet(np.zeros(100, np.float32))[0].shape == (1, 521)
    with open(yamnet.class_map_path().numpy().decode()) as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 521 and rows[0]["display_name"] == "Speech"


def test_cartpole_dynamics_and_api():
    env = gym.make("CartPole-v1")
    assert env.action_space.n == 2 and env.observation_space.shape == (4,)
    obs, info = env.reset(seed=42)
    assert obs.dtype == np.float32 and obs.shape == (4,) and np.all(np.abs(obs) <= 0.05) and info == {}
    np.testing.assert_array_equal(env.reset(seed=42)[0], obs)
    env.unwrapped.state = (0.0, 0.0, 0.0, 0.0)
    obs, reward, terminated, truncated, _ = env.step(np.int64(1))
    # from rest, a push right of 10 N: x'' = 9.756, theta'' = -14.634 (the classic equations), one Euler step
    np.testing.assert_allclose(obs, [0.0, 0.19512196, 0.0, -0.29268292], rtol=1e-6)
    assert (reward, terminated, truncated) == (1.0, False, False)
    env.unwrapped.state = (0.0, 0.0, 12 * 2 * math.pi / 360 - 1e-4, 1.0)
    assert env.step(0)[2] is True  # the pole leans past 12 degrees
    env.reset(seed=0)
    steps = 0
    while True:
        env.unwrapped.state = (0.0, 0.0, 0.0, 0.0)  # kept upright: only the time limit ends it
        steps += 1
        if env.step(steps % 2)[3]:
            break
    assert steps == 500
    picture = gym.make("CartPole-v1", render_mode="rgb_array")
    picture.reset(seed=1)
    frame = picture.render()
    assert frame.shape == (400, 600, 3) and frame.dtype == np.uint8 and (frame == 0).any()
    with pytest.raises(AssertionError):
        env.step(2)


def test_stylization_module(hub_cache):
    m = hub.load("https://tfhub.dev/google/magenta/arbitrary-image-stylization-v1-256/2")
    r = np.random.default_rng(1)
    out = m(tf.constant(r.random((1, 40, 30, 3), np.float32)), tf.constant(r.random((1, 256, 256, 3), np.float32)))
    assert isinstance(out, list) and out[0].shape == (1, 40, 30, 3)
    assert 0.0 <= float(tf.reduce_min(out[0])) and float(tf.reduce_max(out[0])) <= 1.0


def test_tensorflow_io_resample_in_a_traced_function():
    import tensorflow_io as tfio
    assert tfio.__file__.startswith(rt.STAND_INS)

    @tf.function
    def down(x, rate):
        return tfio.audio.resample(x, rate_in=rate, rate_out=16000)
    x = tf.constant(np.arange(12, dtype=np.float32))
    y = down(x, tf.constant(24000, tf.int64))  # 2/3 of the samples, between neighbours
    np.testing.assert_allclose(y.numpy(), np.arange(8) * 1.5, rtol=1e-6)
    two = tfio.audio.resample(tf.stack([x, -x], 1), 8000, 16000)
    assert two.shape == (24, 2) and two.numpy()[1].tolist() == [0.5, -0.5]


def test_long_steps_loops_shrink_and_short_ones_stay():
    assert rt.transform("fit(train_ds, test_ds, steps=40000)") == f"fit(train_ds, test_ds, steps={rt.MAX_STEPS})"
    assert rt.transform("run(img, steps=100, m_steps=5000, validation_steps=5000)") == \
        "run(img, steps=100, m_steps=5000, validation_steps=5000)"


def test_synthetic_audio_and_facades_files(tmp_path):
    import csv
    import io
    import tarfile
    import zipfile
    import synthetic
    wav, rate = tf.audio.decode_wav(synthetic.miaow_wav())
    assert int(rate) == 16000 and wav.shape == (107680, 1)
    z = zipfile.ZipFile(io.BytesIO(synthetic.esc50_zip()))
    rows = list(csv.DictReader(io.StringIO(z.read("ESC-50-master/meta/esc50.csv").decode())))
    assert list(rows[0]) == ["filename", "fold", "target", "category", "esc10", "src_file", "take"]
    assert {r["category"] for r in rows} >= {"dog", "cat"} and {r["fold"] for r in rows} == set("12345")
    clip, rate = tf.audio.decode_wav(z.read("ESC-50-master/audio/" + rows[0]["filename"]))
    assert int(rate) == 44100 and clip.shape == (5 * 44100, 1)
    t = tarfile.open(fileobj=io.BytesIO(synthetic.facades_tgz()))
    names = t.getnames()
    assert "facades/train/100.jpg" in names and any(n.startswith("facades/val/") for n in names)
    assert tf.io.decode_jpeg(t.extractfile("facades/train/1.jpg").read()).shape == (256, 512, 3)


def test_keras_tuner_hyperband_search(tmp_path):
    import json
    import keras_tuner as kt
    assert kt.__file__.startswith(rt.STAND_INS)
    hp = kt.HyperParameters()
    assert hp.Int("units", min_value=32, max_value=512, step=32) == 32  # defaults before a search
    assert hp.Choice("lr", values=[1e-2, 1e-3]) == 1e-2 and hp.get("units") == 32
    import random
    sampled = hp._sample(random.Random(0))
    assert sampled.get("units") in range(32, 513, 32) and sampled.get("lr") in (1e-2, 1e-3)

    def build(hp):
        model = tf.keras.Sequential([tf.keras.layers.Dense(hp.Int("units", 1, 4), input_shape=(3,)),
                                     tf.keras.layers.Dense(1)])
        model.compile(optimizer=tf.keras.optimizers.Adam(hp.Choice("lr", [0.1, 0.01])), loss="mse")
        return model
    tuner = kt.Hyperband(build, objective="val_loss", max_epochs=2, factor=3, seed=1, directory=str(tmp_path),
                         project_name="p")
    assert [(n, e) for n, e, _ in tuner._brackets()] == [(2, 2)]
    assert [(n, e) for n, e, _ in kt.Hyperband(build, "val_loss", max_epochs=10, factor=3,
                                                   directory=str(tmp_path))._brackets()] == [(9, 1), (5, 3), (3, 10)]
    x = np.random.default_rng(0).random((20, 3)).astype(np.float32)
    tuner.search(x, x.sum(1), epochs=50, validation_split=0.2, verbose=0)
    scores = [t.score for t in tuner.trials]
    assert len(scores) == 2 and tuner._best_trials(1)[0].score == min(scores)
    best = tuner.get_best_hyperparameters(num_trials=1)[0]
    assert tuner.hypermodel.build(best).layers[0].units == best.get("units")
    record = json.loads((tmp_path / "p" / "trial_0000" / "trial.json").read_text())
    assert record["status"] == "COMPLETED" and set(record["hyperparameters"]["values"]) == {"units", "lr"}


def test_sngp_layers_stand_in():
    import official.nlp.modeling.layers as nlp_layers
    assert nlp_layers.__file__.startswith(rt.STAND_INS)
    dense = tf.keras.layers.Dense(8, kernel_initializer=tf.keras.initializers.Constant(1.0), use_bias=False)
    sn = nlp_layers.SpectralNormalization(dense, iteration=50, norm_multiplier=0.9)
    x = tf.ones([1, 4])
    y = sn(x, training=True)  # kernel of ones: sigma = sqrt(4 * 8), normalised to 0.9
    np.testing.assert_allclose(np.linalg.norm(sn._normalized_kernel(False).numpy(), 2), 0.9, rtol=1e-4)
    np.testing.assert_allclose(y.numpy(), np.full((1, 8), 4 * 0.9 / np.sqrt(32)), rtol=1e-4)
    gp = nlp_layers.RandomFeatureGaussianProcess(units=3, num_inducing=16, gp_cov_momentum=-1)
    feats = tf.random.normal([5, 4], seed=1)
    logits, cov = gp(feats)
    assert logits.shape == (5, 3) and cov.shape == (5, 5)
    gp(feats, training=True)  # the precision accumulates the batch's features: the variances shrink
    _, cov2 = gp(feats)
    assert np.all(np.diag(cov2.numpy()) < np.diag(cov.numpy()))
    gp.reset_covariance_matrix()
    np.testing.assert_allclose(gp(feats)[1].numpy(), cov.numpy(), rtol=1e-5)
    adjusted = nlp_layers.gaussian_process.mean_field_logits(logits, cov, mean_field_factor=np.pi / 8)
    scale = np.sqrt(1 + np.pi / 8 * np.diag(cov.numpy()))[:, None]
    np.testing.assert_allclose(adjusted.numpy(), logits.numpy() / scale, rtol=1e-5)


def test_pretty_midi_round_trip_and_maestro_files(tmp_path):
    import io
    import zipfile
    import pretty_midi
    import synthetic
    assert pretty_midi.__file__.startswith(rt.STAND_INS)
    assert pretty_midi.note_number_to_name(60) == "C4" and pretty_midi.note_number_to_name(61) == "C#4"
    assert pretty_midi.note_name_to_number("A4") == 69
    assert pretty_midi.program_to_instrument_name(0) == "Acoustic Grand Piano"
    assert pretty_midi.instrument_name_to_program("acoustic grand piano") == 0
    pm = pretty_midi.PrettyMIDI()
    piano = pretty_midi.Instrument(program=pretty_midi.instrument_name_to_program("Violin"))
    piano.notes += [pretty_midi.Note(100, 60, 0.0, 0.5), pretty_midi.Note(90, 64, 0.5, 1.25)]
    pm.instruments.append(piano)
    pm.write(str(tmp_path / "a.mid"))
    back = pretty_midi.PrettyMIDI(str(tmp_path / "a.mid"))
    assert len(back.instruments) == 1 and back.instruments[0].program == 40
    got = [(n.pitch, n.velocity, round(n.start, 3), round(n.end, 3)) for n in back.instruments[0].notes]
    assert got == [(60, 100, 0.0, 0.5), (64, 90, 0.5, 1.25)]
    assert back.get_end_time() == pytest.approx(1.25, abs=1e-3)
    wave = back.fluidsynth(fs=8000)
    assert wave.shape[0] == int(8000 * back.get_end_time()) + 1 and np.abs(wave).max() == pytest.approx(1.0)
    z = zipfile.ZipFile(io.BytesIO(synthetic.maestro_zip()))
    midis = [n for n in z.namelist() if n.endswith(".midi")]
    assert len(midis) == 6 and all(n.startswith("maestro-v2.0.0/20") for n in midis)
    (tmp_path / "m.midi").write_bytes(z.read(midis[0]))
    perf = pretty_midi.PrettyMIDI(str(tmp_path / "m.midi"))
    assert perf.resolution == 384 and len(perf.instruments[0].notes) >= 240
    assert [c.number for c in perf.instruments[0].control_changes] == [64, 64]
