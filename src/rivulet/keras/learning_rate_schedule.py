"""tf.keras.optimizers.schedules: learning rates as functions of the optimizer's step (tf_keras 2.21).

An optimizer given a schedule evaluates it at `optimizer.iterations` at the start of each `apply_gradients`
(the first update uses step 0) into a variable, which `optimizer.learning_rate` returns.
"""
import math

import rivulet as tf


class LearningRateSchedule:
    """The base class: `__call__(step)` returns the learning rate at `step`; `get_config`/`from_config`."""

    def __call__(self, step):
        raise NotImplementedError(f"Learning rate schedule '{self.__class__.__name__}' must override "
                                  "`__call__(self, step)`.")

    def get_config(self):
        raise NotImplementedError(f"Learning rate schedule '{self.__class__.__name__}' must override "
                                  "`get_config()` in order to be serializable.")

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _prepare(initial, step):
    initial = tf.convert_to_tensor(initial)
    if not initial.dtype.is_floating:
        initial = tf.cast(initial, tf.float32)
    return initial, initial.dtype, tf.cast(step, initial.dtype)


class ExponentialDecay(LearningRateSchedule):
    """initial_learning_rate * decay_rate ^ (step / decay_steps) (the exponent floored when `staircase`)."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False, name=None):
        if decay_steps <= 0:
            raise ValueError(f"Argument `decay_steps` must be > 0. Received: decay_steps={decay_steps}")
        self.initial_learning_rate, self.decay_steps, self.decay_rate = initial_learning_rate, decay_steps, decay_rate
        self.staircase, self.name = staircase, name

    def __call__(self, step):
        lr, dtype, step = _prepare(self.initial_learning_rate, step)
        p = step / tf.cast(self.decay_steps, dtype)
        if self.staircase:
            p = tf.floor(p)
        return tf.multiply(lr, tf.pow(tf.cast(self.decay_rate, dtype), p))

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "decay_rate": self.decay_rate, "staircase": self.staircase, "name": self.name}


class PiecewiseConstantDecay(LearningRateSchedule):
    """values[0] up to boundaries[0] (inclusive), values[1] up to boundaries[1], ..., values[-1] after."""

    def __init__(self, boundaries, values, name=None):
        if len(boundaries) != len(values) - 1:
            raise ValueError("The length of boundaries should be 1 less than the length of values. Received: "
                             f"boundaries={boundaries} of length {len(boundaries)}, and values={values} of "
                             f"length {len(values)}.")
        self.boundaries, self.values, self.name = boundaries, values, name

    def __call__(self, step):
        values = tf.convert_to_tensor(self.values)
        step = tf.convert_to_tensor(step)
        boundaries = tf.cast(tf.convert_to_tensor(self.boundaries), step.dtype)
        # the number of boundaries the step is past picks the value
        index = tf.reduce_sum(tf.cast(tf.greater(tf.expand_dims(step, -1), boundaries), tf.int32), axis=-1)
        return tf.gather(values, index)

    def get_config(self):
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class PolynomialDecay(LearningRateSchedule):
    """(initial - end) * (1 - step / decay_steps) ^ power + end, the step held at decay_steps (or, with
    `cycle`, decay_steps grown to the next multiple past the step)."""

    def __init__(self, initial_learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0, cycle=False,
                 name=None):
        self.initial_learning_rate, self.decay_steps = initial_learning_rate, decay_steps
        self.end_learning_rate, self.power, self.cycle, self.name = end_learning_rate, power, cycle, name

    def __call__(self, step):
        lr, dtype, step = _prepare(self.initial_learning_rate, step)
        end = tf.cast(self.end_learning_rate, dtype)
        power = tf.cast(self.power, dtype)
        decay_steps = tf.cast(self.decay_steps, dtype)
        if self.cycle:
            multiplier = tf.where(tf.equal(step, 0), tf.ones_like(step), tf.math.ceil(step / decay_steps))
            decay_steps = decay_steps * multiplier
        else:
            step = tf.minimum(step, decay_steps)
        return tf.add(tf.multiply(lr - end, tf.pow(1 - step / decay_steps, power)), end)

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "end_learning_rate": self.end_learning_rate, "power": self.power, "cycle": self.cycle,
                "name": self.name}


class InverseTimeDecay(LearningRateSchedule):
    """initial_learning_rate / (1 + decay_rate * step / decay_steps) (step / decay_steps floored when
    `staircase`)."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False, name=None):
        self.initial_learning_rate, self.decay_steps, self.decay_rate = initial_learning_rate, decay_steps, decay_rate
        self.staircase, self.name = staircase, name

    def __call__(self, step):
        lr, dtype, step = _prepare(self.initial_learning_rate, step)
        p = step / tf.cast(self.decay_steps, dtype)
        if self.staircase:
            p = tf.floor(p)
        return tf.divide(lr, tf.add(tf.cast(1, dtype), tf.multiply(tf.cast(self.decay_rate, dtype), p)))

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "decay_rate": self.decay_rate, "staircase": self.staircase, "name": self.name}


class CosineDecay(LearningRateSchedule):
    """A linear warmup from initial_learning_rate to warmup_target over warmup_steps (when a target is given),
    then a cosine from there down to alpha times it over decay_steps."""

    def __init__(self, initial_learning_rate, decay_steps, alpha=0.0, name=None, warmup_target=None,
                 warmup_steps=0):
        self.initial_learning_rate, self.decay_steps, self.alpha, self.name = (initial_learning_rate, decay_steps,
                                                                                alpha, name)
        self.warmup_target, self.warmup_steps = warmup_target, warmup_steps

    def __call__(self, step):
        lr, dtype, step = _prepare(self.initial_learning_rate, step)
        decay_steps = tf.cast(self.decay_steps, dtype)
        alpha = tf.cast(self.alpha, dtype)

        def decay(start, s):
            s = tf.minimum(s, decay_steps)
            cosine = 0.5 * (1.0 + tf.cos(tf.constant(math.pi, dtype) * s / decay_steps))
            return tf.multiply(start, (1 - alpha) * cosine + alpha)

        if self.warmup_target is None:
            return decay(lr, step)
        target = tf.cast(self.warmup_target, dtype)
        warmup_steps = tf.cast(self.warmup_steps, dtype)
        warm = lr + (target - lr) * (step / tf.maximum(warmup_steps, 1))
        return tf.where(step < warmup_steps, warm, decay(target, step - warmup_steps))

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "alpha": self.alpha, "name": self.name, "warmup_target": self.warmup_target,
                "warmup_steps": self.warmup_steps}


class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay restarted after first_decay_steps, each period t_mul times longer and its start m_mul
    times lower (SGDR)."""

    def __init__(self, initial_learning_rate, first_decay_steps, t_mul=2.0, m_mul=1.0, alpha=0.0, name=None):
        self.initial_learning_rate, self.first_decay_steps = initial_learning_rate, first_decay_steps
        self._t_mul, self._m_mul, self.alpha, self.name = t_mul, m_mul, alpha, name

    def __call__(self, step):
        lr, dtype, step = _prepare(self.initial_learning_rate, step)
        first = tf.cast(self.first_decay_steps, dtype)
        alpha, t_mul, m_mul = (tf.cast(v, dtype) for v in (self.alpha, self._t_mul, self._m_mul))
        done = step / first
        if self._t_mul == 1.0:
            i_restart = tf.floor(done)
            done = done - i_restart
        else:
            i_restart = tf.floor(tf.math.log(1.0 - done * (1.0 - t_mul)) / tf.math.log(t_mul))
            sum_r = (1.0 - t_mul ** i_restart) / (1.0 - t_mul)
            done = (done - sum_r) / t_mul ** i_restart
        m_fac = m_mul ** i_restart
        cosine = 0.5 * m_fac * (1.0 + tf.cos(tf.constant(math.pi, dtype) * done))
        return tf.multiply(lr, (1 - alpha) * cosine + alpha)

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate, "first_decay_steps": self.first_decay_steps,
                "t_mul": self._t_mul, "m_mul": self._m_mul, "alpha": self.alpha, "name": self.name}


_CLASSES = {c.__name__: c for c in (ExponentialDecay, PiecewiseConstantDecay, PolynomialDecay, InverseTimeDecay,
                                    CosineDecay, CosineDecayRestarts)}


def serialize(learning_rate_schedule, use_legacy_format=False):
    """{'module', 'class_name', 'config', 'registered_name'} as tf_keras writes it."""
    if not isinstance(learning_rate_schedule, LearningRateSchedule):
        raise ValueError(f"Could not serialize {learning_rate_schedule!r}: not a LearningRateSchedule.")
    name = type(learning_rate_schedule).__name__
    if use_legacy_format:
        return {"class_name": name, "config": learning_rate_schedule.get_config()}
    builtin = _CLASSES.get(name) is type(learning_rate_schedule)
    return {"module": "keras.optimizers.schedules" if builtin else type(learning_rate_schedule).__module__,
            "class_name": name, "config": learning_rate_schedule.get_config(),
            "registered_name": None if builtin else name}


def deserialize(config, custom_objects=None, use_legacy_format=False):
    """The schedule a `serialize` dict names (a built-in class, or one in `custom_objects`)."""
    if not isinstance(config, dict) or "class_name" not in config or "config" not in config:
        raise ValueError(f"Could not deserialize a learning rate schedule from {config!r}: expected a dict with "
                         "'class_name' and 'config'.")
    name = config["class_name"]
    cls = (custom_objects or {}).get(name) or _CLASSES.get(name)
    if cls is None:
        raise ValueError(f"Unknown learning rate schedule: '{name}'. Please ensure you are using a "
                         "`keras.utils.custom_object_scope` and that this object is included in the scope.")
    return cls.from_config(config["config"])
