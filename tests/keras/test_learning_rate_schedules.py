"""tf.keras.optimizers.schedules; the values were recorded from TensorFlow 2.21 (float32)."""
import numpy as np
import pytest

import rivulet as tf

S = tf.keras.optimizers.schedules
STEPS = [0, 1, 5, 10, 25, 100]


@pytest.mark.parametrize("schedule, expected", [
    (lambda: S.ExponentialDecay(0.1, 10, 0.5), [0.1, 0.0933033, 0.07071068, 0.05, 0.01767767, 9.765625e-05]),
    (lambda: S.ExponentialDecay(0.1, 10, 0.5, staircase=True), [0.1, 0.1, 0.1, 0.05, 0.025, 9.765625e-05]),
    (lambda: S.PiecewiseConstantDecay([5, 10], [1.0, 0.5, 0.1]), [1.0, 1.0, 1.0, 0.5, 0.1, 0.1]),
    (lambda: S.PolynomialDecay(0.1, 10, 0.01, power=2.0), [0.1, 0.0829, 0.0325, 0.01, 0.01, 0.01]),
    (lambda: S.PolynomialDecay(0.1, 10, 0.01, cycle=True), [0.1, 0.091, 0.055, 0.01, 0.025, 0.01]),
    (lambda: S.InverseTimeDecay(0.001, 20 * 1000, 1),
     [0.001, 0.0009999501, 0.0009997501, 0.0009995003, 0.0009987516, 0.0009950249]),
    (lambda: S.InverseTimeDecay(0.5, 10, 2.0, staircase=True), [0.5, 0.5, 0.5, 0.16666667, 0.1, 0.023809524]),
    (lambda: S.CosineDecay(0.1, 50, alpha=0.1), [0.1, 0.09991121, 0.09779754, 0.09140576, 0.055, 0.01]),
    (lambda: S.CosineDecay(0.0, 50, warmup_target=0.2, warmup_steps=10), [0.0, 0.02, 0.1, 0.2, 0.15877853, 0.0]),
    (lambda: S.CosineDecayRestarts(0.1, 10, t_mul=2.0, m_mul=0.5, alpha=0.01),
     [0.1, 0.0975773, 0.0505, 0.0505, 0.008249107, 0.009555354]),
    (lambda: S.CosineDecayRestarts(0.1, 10, t_mul=1.0), [0.1, 0.09755283, 0.05, 0.1, 0.05, 0.1]),
])
def test_schedules_match_tensorflow(schedule, expected):
    s = schedule()
    got = [s(step) for step in STEPS]
    assert all(g.dtype == tf.float32 for g in got)
    np.testing.assert_allclose([float(g) for g in got], expected, rtol=2e-6, atol=1e-9)


def test_a_schedule_takes_an_array_of_steps():
    # overfit_and_underfit plots `lr_schedule(np.linspace(0, 100000))`
    lr = S.InverseTimeDecay(0.001, 20 * 1000, 1)(np.linspace(0, 100000, 5))
    assert lr.shape == (5,) and lr.dtype == tf.float32
    np.testing.assert_allclose(lr.numpy(), [0.001, 0.00044444, 0.00028571, 0.00021053, 0.00016667], rtol=1e-4)


def test_an_optimizer_follows_its_schedule_from_step_0():
    opt = tf.keras.optimizers.SGD(S.ExponentialDecay(1.0, 1, 0.5))
    v = tf.Variable(0.0)
    seen = []
    for _ in range(3):
        opt.apply_gradients([(tf.constant(1.0), v)])
        seen.append(float(v.numpy()))
    assert seen == [-1.0, -1.5, -1.75]  # TensorFlow's: rates 1, 0.5, 0.25
    # tf_keras: `learning_rate` is the rate the last update used (schedule at the step it started from)
    assert float(opt.learning_rate) == 0.25 and int(opt.iterations) == 3
    with pytest.raises(TypeError, match="hence its learning rate is not settable"):
        opt.learning_rate = 0.1


def test_a_schedule_in_fit_and_through_saving(tmp_path):
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
    model.compile(tf.keras.optimizers.Adam(S.InverseTimeDecay(0.01, 10, 1)), "mse")
    model.fit(np.ones((8, 3)), np.ones((8, 1)), epochs=2, verbose=0)
    assert int(model.optimizer.iterations) == 2
    np.testing.assert_allclose(float(model.optimizer.learning_rate), 0.01 / 1.1, rtol=1e-6)
    config = model.optimizer.get_config()["learning_rate"]
    assert config == {"module": "keras.optimizers.schedules", "class_name": "InverseTimeDecay",
                      "config": {"initial_learning_rate": 0.01, "decay_steps": 10, "decay_rate": 1,
                                 "staircase": False, "name": None}, "registered_name": None}
    model.save(tmp_path / "m.keras")
    loaded = tf.keras.models.load_model(tmp_path / "m.keras")
    assert loaded.optimizer.get_config()["learning_rate"] == config
    assert isinstance(S.deserialize(S.serialize(S.CosineDecay(0.1, 5))), S.CosineDecay)
    with pytest.raises(ValueError, match="Unknown learning rate schedule"):
        S.deserialize({"class_name": "Nope", "config": {}})
