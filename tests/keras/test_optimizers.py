import numpy as np
import pytest

import rivulet as tf

opt_mod = tf.keras.optimizers
W0 = np.array([1.0, -2.0], "float32")
GRADS = [np.array([0.5, -1.5], "float32") * (i + 1) for i in range(3)]


def _run(opt):
    v = tf.Variable(W0)
    for g in GRADS:
        opt.apply_gradients([(tf.constant(g), v)])
    return v.numpy()


def test_sgd_plain_momentum_and_nesterov():
    np.testing.assert_allclose(_run(opt_mod.SGD(0.1)), W0 - 0.1 * sum(GRADS), rtol=1e-6)
    for nesterov in (False, True):
        w, m = W0.copy(), np.zeros(2, "float32")
        for g in GRADS:
            m = 0.9 * m - 0.1 * g
            w = w + (0.9 * m - 0.1 * g if nesterov else m)
        np.testing.assert_allclose(_run(opt_mod.SGD(0.1, momentum=0.9, nesterov=nesterov)), w, rtol=1e-5)


def test_adam():
    w, m, v = W0.copy(), np.zeros(2), np.zeros(2)
    for t, g in enumerate(GRADS, 1):
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        w = w - 0.1 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t) * m / (np.sqrt(v) + 1e-7)
    opt = opt_mod.Adam(0.1)
    np.testing.assert_allclose(_run(opt), w, rtol=1e-5)
    assert int(opt.iterations) == 3


def test_rmsprop():
    w, ms = W0.copy(), np.zeros(2)
    for g in GRADS:
        ms = 0.9 * ms + 0.1 * g * g
        w = w - 0.1 * g / np.sqrt(ms + 1e-7)
    np.testing.assert_allclose(_run(opt_mod.RMSprop(0.1)), w, rtol=1e-5)


def test_minimize_with_callable_loss_and_learning_rate_setter():
    v = tf.Variable(3.0)
    opt = opt_mod.SGD(learning_rate=0.5)
    opt.minimize(lambda: v * v, [v])  # grad 6 -> 3 - 0.5 * 6
    assert float(v) == pytest.approx(0.0)
    opt.learning_rate = 0.25
    v.assign(2.0)
    opt.minimize(lambda: v * v, [v])
    assert float(v) == pytest.approx(1.0)
    assert float(opt.learning_rate) == pytest.approx(0.25)


def test_none_gradients_are_skipped_but_all_none_is_an_error():
    a, b = tf.Variable(1.0), tf.Variable(1.0)
    opt = opt_mod.SGD(1.0)
    opt.apply_gradients([(tf.constant(0.5), a), (None, b)])
    assert float(a) == 0.5 and float(b) == 1.0
    with pytest.raises(ValueError, match="No gradients provided"):
        opt.apply_gradients([(None, a)])


def test_training_step_inside_tf_function_keeps_slot_state():
    v = tf.Variable(W0)
    opt = opt_mod.Adam(0.1)

    @tf.function
    def step(g):
        opt.apply_gradients([(g, v)])

    for g in GRADS:
        step(tf.constant(g))
    np.testing.assert_allclose(v.numpy(), _run(opt_mod.Adam(0.1)), rtol=1e-5)
    assert int(opt.iterations) == 3 and len(opt.variables) == 3


def test_get_by_name():
    assert isinstance(opt_mod.get("adam"), opt_mod.Adam)
    with pytest.raises(ValueError):
        opt_mod.get("adagradx")


def test_adagrad_starts_its_accumulator_at_initial_accumulator_value():
    w, acc = W0.copy(), np.full(2, 0.1)
    for g in GRADS:
        acc = acc + g * g
        w = w - 0.1 * g / (np.sqrt(acc) + 1e-7)
    opt = opt_mod.Adagrad(0.1)
    np.testing.assert_allclose(_run(opt), w, rtol=1e-5)
    assert [s.numpy().tolist() for s in opt.variables[1:]] == [pytest.approx(0.1 + sum(g * g for g in GRADS))]
    with pytest.raises(ValueError, match="initial_accumulator_value"):
        opt_mod.Adagrad(initial_accumulator_value=-1.0)


def test_adadelta_and_adamax():
    w, eg, ed = W0.copy(), np.zeros(2), np.zeros(2)
    for g in GRADS:
        eg = 0.95 * eg + 0.05 * g * g
        delta = np.sqrt(ed + 1e-7) / np.sqrt(eg + 1e-7) * g
        ed = 0.95 * ed + 0.05 * delta * delta
        w = w - 0.5 * delta
    np.testing.assert_allclose(_run(opt_mod.Adadelta(0.5)), w, rtol=1e-5)
    w, m, u = W0.copy(), np.zeros(2), np.zeros(2)
    for t, g in enumerate(GRADS, 1):
        m = 0.9 * m + 0.1 * g
        u = np.maximum(0.999 * u, np.abs(g))
        w = w - 0.1 / (1 - 0.9 ** t) * m / (u + 1e-7)
    np.testing.assert_allclose(_run(opt_mod.Adamax(0.1)), w, rtol=1e-5)


def test_nadam_momentum_schedule_is_shared_by_all_variables():
    def reference():
        w, m, v, prod = W0.copy(), np.zeros(2), np.zeros(2), 1.0
        for t, g in enumerate(GRADS, 1):
            u_t, u_next = 0.9 * (1 - 0.5 * 0.96 ** t), 0.9 * (1 - 0.5 * 0.96 ** (t + 1))
            prod *= u_t
            m = 0.9 * m + 0.1 * g
            v = 0.999 * v + 0.001 * g * g
            m_hat = u_next * m / (1 - prod * u_next) + (1 - u_t) * g / (1 - prod)
            w = w - 0.1 * m_hat / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-7)
        return w
    np.testing.assert_allclose(_run(opt_mod.Nadam(0.1)), reference(), rtol=1e-5)
    # Two variables updated in one step see the same schedule (it advances once per step, not per variable).
    opt, a, b = opt_mod.Nadam(0.1), tf.Variable(W0), tf.Variable(W0)
    step = tf.function(lambda g: opt.apply_gradients([(g, a), (g, b)]))
    for g in GRADS:
        step(tf.constant(g))
    np.testing.assert_allclose(a.numpy(), reference(), rtol=1e-5)
    np.testing.assert_allclose(b.numpy(), reference(), rtol=1e-5)


@pytest.mark.parametrize("name, cls, lr", [("adagrad", "Adagrad", 0.001), ("adadelta", "Adadelta", 0.001),
                                           ("adamax", "Adamax", 0.001), ("Nadam", "Nadam", 0.001)])
def test_more_optimizers_by_name_with_their_default_learning_rates(name, cls, lr):
    opt = opt_mod.get(name)
    assert type(opt) is getattr(opt_mod, cls) and opt.name == cls
    assert float(opt.learning_rate) == pytest.approx(lr)


def test_adam_slots_follow_tf_keras_arithmetic():
    """m += (g - m)(1 - b1), v += (g^2 - v)(1 - b2) as tf_keras 2.21 / Keras 3 (values recorded from TensorFlow
    2.21: b1 m + (1 - b1) g rounds differently in the last place)."""
    v = tf.Variable([0.3, -7.1, 1e-3])
    opt = tf.keras.optimizers.Adam(0.1)
    for _ in range(5):
        opt.apply_gradients([(tf.constant([1e-3, 3.3, -0.07]), v)])
    np.testing.assert_array_equal(opt.get_slot(v, "m").numpy(),
                                  np.float32([0.00040951004484668374, 1.3513829708099365, -0.028665700927376747]))
    np.testing.assert_array_equal(opt.get_slot(v, "v").numpy(),
                                  np.float32([4.990011071015488e-09, 0.054341211915016174, 2.445104837534018e-05]))
    np.testing.assert_allclose(v.numpy(), [-0.19897602498531342, -7.5999956130981445, 0.5009815096855164],
                               rtol=1e-6)
