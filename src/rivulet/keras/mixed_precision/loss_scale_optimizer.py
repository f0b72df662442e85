"""tf.keras.mixed_precision.LossScaleOptimizer: loss scaling around another optimizer.

The loss is multiplied by the loss scale before differentiating (`get_scaled_loss`) so small float16
gradients do not underflow; the gradients are divided by it again (`get_unscaled_gradients`). With dynamic
scaling (the default: start at 2**15), `apply_gradients` skips a step whose gradients hold an inf or NaN and
halves the scale (never below 1), and doubles it after `dynamic_growth_steps` (2000) finite steps in a row.
`minimize` (and so `Model.fit`) does all three.
"""
import rivulet as tf

from ..optimizers import Optimizer, _grad_var_pair, _loss_on_tape

_DEFAULT_INITIAL_SCALE = 2 ** 15
_DEFAULT_GROWTH_STEPS = 2000
_MULTIPLIER = 2.0


class _DynamicLossScaleState:
    """The dynamic scale's variables, named as tf_keras's checkpoints name them."""

    def __init__(self, initial_scale, growth_steps):
        self.initial_loss_scale = float(initial_scale)
        self.growth_steps = int(growth_steps)
        with tf.init_scope():
            self.current_loss_scale = tf.Variable(self.initial_loss_scale, dtype=tf.float32, trainable=False,
                                                  name="current_loss_scale")
            self.counter = tf.Variable(0, dtype=tf.int64, trainable=False, name="good_steps")

    def _checkpoint_children(self):
        return [("current_loss_scale", self.current_loss_scale), ("good_steps", self.counter)]

    def update(self, grads):
        """Updates the scale for these (unscaled) gradients; returns whether they may be applied."""
        finite = _all_finite(grads)

        def grow():
            def double():
                new = self.current_loss_scale * _MULTIPLIER
                tf.cond(tf.math.is_finite(new), lambda: self.current_loss_scale.assign(new),
                        lambda: tf.identity(self.current_loss_scale))
                self.counter.assign(0)
                return tf.constant(True)

            def count():
                self.counter.assign_add(1)
                return tf.constant(True)
            return tf.cond(self.counter + 1 >= self.growth_steps, double, count)

        def shrink():
            self.counter.assign(0)
            self.current_loss_scale.assign(tf.maximum(self.current_loss_scale / _MULTIPLIER, 1.0))
            return tf.constant(False)
        tf.cond(finite, grow, shrink)
        return finite


def _all_finite(grads):
    checks = [tf.reduce_all(tf.math.is_finite(g)) for g in grads if g is not None]
    if not checks:
        return tf.constant(True)
    return tf.reduce_all(tf.stack(checks))


class LossScaleOptimizer(Optimizer):
    """LossScaleOptimizer(inner_optimizer, dynamic=True, initial_scale=None, dynamic_growth_steps=None)."""

    def __init__(self, inner_optimizer, dynamic=True, initial_scale=None, dynamic_growth_steps=None):
        if not isinstance(inner_optimizer, Optimizer):
            raise TypeError('"inner_optimizer" must be an instance of `tf.keras.optimizers.Optimizer` or '
                            f"`tf.keras.optimizers.experimental.Optimizer`, but got: {inner_optimizer}.")
        if not isinstance(dynamic, bool):
            raise TypeError(f'"dynamic" argument to LossScaleOptimizer.__init__ must be a bool, but got: '
                            f"{dynamic!r}")
        if isinstance(inner_optimizer, LossScaleOptimizer):
            raise TypeError(f"LossScaleOptimizer cannot wrap another LossScaleOptimizer, but got: "
                            f"{inner_optimizer}")
        self._inner = inner_optimizer
        self._dynamic = dynamic
        self._name = inner_optimizer.name
        if dynamic:
            if initial_scale is None:
                initial_scale = _DEFAULT_INITIAL_SCALE
            if dynamic_growth_steps is None:
                dynamic_growth_steps = _DEFAULT_GROWTH_STEPS
            self._loss_scale = _DynamicLossScaleState(initial_scale, dynamic_growth_steps)
            self._initial_scale = float(initial_scale)
            self._growth_steps = int(dynamic_growth_steps)
        else:
            if initial_scale is None:
                raise ValueError('"initial_scale" must be specified if "dynamic" is False')
            if dynamic_growth_steps is not None:
                raise ValueError(f'"dynamic_growth_steps" must be None if "dynamic" is False, but got: '
                                 f"{dynamic_growth_steps}")
            self._loss_scale = None
            self._initial_scale = float(initial_scale)
            self._growth_steps = None

    def _checkpoint_children(self):
        out = [("inner_optimizer", self._inner)]
        if self._loss_scale is not None:
            out.append(("loss_scale", self._loss_scale))
        return out

    def _checkpoint_restore_aliases(self):
        return []

    # -- what it is ------------------------------------------------------------------------------------
    inner_optimizer = property(lambda self: self._inner)
    dynamic = property(lambda self: self._dynamic)
    initial_scale = property(lambda self: self._initial_scale)
    dynamic_growth_steps = property(lambda self: self._growth_steps)
    iterations = property(lambda self: self._inner.iterations)
    _iterations = property(lambda self: self._inner._iterations)
    _lr = property(lambda self: self._inner._lr)
    _slots = property(lambda self: self._inner._slots)
    _slot_order = property(lambda self: self._inner._slot_order)
    _SLOTS = property(lambda self: self._inner._SLOTS)

    def _create_slots(self, var_list):
        self._inner._create_slots(var_list)

    def get_slot(self, var, slot_name):
        return self._inner.get_slot(var, slot_name)

    def get_slot_names(self):
        return self._inner.get_slot_names()

    @property
    def loss_scale(self):
        """The current loss scale, a float32 scalar tensor."""
        if self._loss_scale is not None:
            return tf.convert_to_tensor(self._loss_scale.current_loss_scale)
        return tf.constant(self._initial_scale, tf.float32)

    @property
    def dynamic_counter(self):
        """Finite steps since the scale last changed (a variable), or None without dynamic scaling."""
        return self._loss_scale.counter if self._loss_scale is not None else None

    @property
    def learning_rate(self):
        return self._inner.learning_rate

    @learning_rate.setter
    def learning_rate(self, value):
        self._inner.learning_rate = value

    lr = learning_rate

    @property
    def variables(self):
        out = list(self._inner.variables)
        if self._loss_scale is not None:
            out += [self._loss_scale.current_loss_scale, self._loss_scale.counter]
        return out

    # -- scaling -----------------------------------------------------------------------------------------
    def get_scaled_loss(self, loss):
        """loss * loss_scale (a callable loss: a callable giving that)."""
        if callable(loss):
            def scaled():
                value = loss()
                return value * tf.cast(self.loss_scale, value.dtype)
            return scaled
        loss = tf.convert_to_tensor(loss)
        return loss * tf.cast(self.loss_scale, loss.dtype)

    def get_unscaled_gradients(self, grads):
        """Each gradient divided by the loss scale (None stays None)."""
        reciprocal = 1.0 / self.loss_scale
        return [g * tf.cast(reciprocal, g.dtype) if g is not None else None for g in grads]

    # -- steps -------------------------------------------------------------------------------------------
    def apply_gradients(self, grads_and_vars, name=None, **kwargs):
        """Applies the (unscaled) gradients through the inner optimizer unless one is inf/NaN (dynamic
        scaling: then nothing is applied and the scale halves)."""
        pairs = [_grad_var_pair(p) for p in grads_and_vars]
        if self._loss_scale is None:
            return self._inner.apply_gradients(pairs, name=name, **kwargs)
        grads = [g for g, _ in pairs]
        apply = self._loss_scale.update(grads)

        def step():
            self._inner.apply_gradients(pairs, name=name, **kwargs)
            return tf.constant(True)
        if tf.executing_eagerly():
            if bool(apply):
                step()
        else:
            self._inner._create_slots([v for g, v in pairs if g is not None])
            tf.cond(apply, step, lambda: tf.constant(False))
        return self._inner.iterations

    def minimize(self, loss, var_list, grad_loss=None, name=None, tape=None):
        """Scales the loss, differentiates, unscales the gradients and applies them."""
        loss, var_list, tape = _loss_on_tape(loss, var_list, tape)
        loss = tf.convert_to_tensor(loss)
        # d(loss * scale) = scale * d(loss): the scale enters as the output gradient, so the tape need not
        # record the multiplication.
        seed = tf.ones_like(loss) * tf.cast(self.loss_scale, loss.dtype)
        if grad_loss is not None:
            seed = seed * grad_loss
        grads = tape.gradient(loss, var_list, output_gradients=seed)
        return self.apply_gradients(zip(self.get_unscaled_gradients(grads), var_list), name=name)

    def get_config(self):
        return {"inner_optimizer": {"module": "keras.optimizers", "class_name": type(self._inner).__name__,
                                    "config": self._inner.get_config(), "registered_name": None},
                "dynamic": self._dynamic, "initial_scale": self._initial_scale,
                "dynamic_growth_steps": self._growth_steps}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from ..saving.serialization import deserialize_keras_object
        config = dict(config)
        inner = config.pop("inner_optimizer", None)
        if isinstance(inner, dict):
            inner = deserialize_keras_object(inner, custom_objects, printable_module_name="optimizer")
        return cls(inner, **config)

    def __getattr__(self, name):  # hyperparameters and slots of the inner optimizer (opt.beta_1 ...)
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.__dict__["_inner"], name)

    def __repr__(self):
        return f"<rivulet.keras.mixed_precision.LossScaleOptimizer object at 0x{id(self):x}>"
