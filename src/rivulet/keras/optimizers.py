"""tf.keras.optimizers: SGD (momentum, Nesterov), Adam, RMSprop, Adagrad, Adadelta, Adamax, Nadam, Ftrl.

Hyperparameters live in variables and slots are created on the first `apply_gradients` (lifted out of any
trace with init_scope), so a traced train step reads the current learning rate and keeps its state.
"""
import rivulet as tf
from rivulet.checkpoint.checkpoint import apply_deferred
from rivulet.ops import training_ops
from rivulet.state.variables import ResourceVariable as _PLAIN_VARIABLE

from . import learning_rate_schedule as schedules


def _fusable(*variables):
    """Whether an update may run as one op (ops/training_ops.py) on these variables: plain float32/float64
    variables of one dtype outside any distribution strategy (whose variables aggregate their updates)."""
    if tf.distribute.has_strategy():
        return False
    dtype = variables[0].dtype
    return dtype in (tf.float32, tf.float64) and all(
        type(v) is _PLAIN_VARIABLE and v.dtype == dtype for v in variables)


def _loss_on_tape(loss, var_list, tape):
    """minimize's arguments made ready to differentiate: (loss, var_list, tape). A callable var_list is called;
    without a tape the loss must be a zero-argument callable, called on a tape made here."""
    if callable(var_list):
        var_list = var_list()
    if tape is None:
        if not callable(loss):
            raise ValueError("`tape` is required when a `Tensor` loss is passed.")
        with tf.GradientTape() as tape:
            loss = loss()
    return loss, var_list, tape


def _grad_var_pair(pair):
    """One (gradient, variable) pair of apply_gradients, checked: a tensor or None cannot be updated."""
    if not isinstance(pair, (list, tuple)) or len(pair) != 2:
        raise TypeError(f"apply_gradients expects (gradient, variable) pairs, got {pair!r}")
    g, v = pair
    if not isinstance(v, tf.Variable):
        raise TypeError(f"apply_gradients can only update tf.Variable objects, got {v!r} (of type {type(v)}) "
                        f"paired with a gradient")
    return g, v


class _VariableList(list):
    """`optimizer.variables` is a list (Keras 3) that can also be called (Keras 2's `variables()`)."""

    def __call__(self):
        return list(self)


class Optimizer:
    _HYPER = ("learning_rate",)

    def _checkpoint_children(self):  # checkpoints' children protocol (checkpoint/trackable.py)
        from .saving.checkpoint_names import optimizer_children
        return optimizer_children(self)

    def _checkpoint_restore_aliases(self):
        from .saving.checkpoint_names import optimizer_restore_aliases
        return optimizer_restore_aliases(self)

    def __init__(self, name, learning_rate=0.001, clipnorm=None, clipvalue=None, global_clipnorm=None, **kwargs):
        if "lr" in kwargs:
            learning_rate = kwargs.pop("lr")
        allowed = {"decay", "epsilon_hat", "use_ema", "ema_momentum", "weight_decay", "jit_compile"}
        for k in kwargs:
            if k not in allowed:
                raise TypeError(f"Unexpected keyword argument passed to optimizer: {k}. Allowed kwargs are "
                                f"{sorted(allowed | {'clipnorm', 'clipvalue', 'global_clipnorm', 'lr'})}.")
        self._name = name
        self.clipnorm, self.clipvalue, self.global_clipnorm = clipnorm, clipvalue, global_clipnorm
        self._slots = {}  # id(var) -> {slot name: variable}
        self._slot_order = []
        # a LearningRateSchedule is evaluated at `iterations` when each update starts, into the variable
        # `learning_rate` returns (tf_keras's _current_learning_rate)
        self._lr_schedule = learning_rate if isinstance(learning_rate, schedules.LearningRateSchedule) else None
        with tf.init_scope():
            self._iterations = tf.Variable(0, dtype=tf.int64, trainable=False, name="iter")
            self._lr = tf.Variable(self._scheduled_lr() if self._lr_schedule is not None else float(learning_rate),
                                   dtype=tf.float32, trainable=False, name="learning_rate")

    def _scheduled_lr(self):
        return tf.cast(self._lr_schedule(self._iterations), tf.float32)

    name = property(lambda self: self._name)
    iterations = property(lambda self: self._iterations)

    @property
    def learning_rate(self):
        return self._lr

    @learning_rate.setter
    def learning_rate(self, value):
        if self._lr_schedule is not None:
            raise TypeError("This optimizer was created with a `LearningRateSchedule` object as its "
                            "`learning_rate` constructor argument, hence its learning rate is not settable. If you "
                            "need the learning rate to be settable, you should instantiate the optimizer with a "
                            "float `learning_rate` argument.")
        self._lr.assign(float(value))

    lr = learning_rate

    @property
    def variables(self):
        out = _VariableList([self._iterations])
        for key in self._slot_order:
            out.extend(self._slots[key].values())
        return out

    def get_slot(self, var, slot_name):
        return self._slots[id(var)][slot_name]

    def get_slot_names(self):
        return list(self._SLOTS)

    _SLOTS = ()

    def _create_slots(self, var_list):
        new = [v for v in var_list if id(v) not in self._slots]
        if not new:
            return
        with tf.init_scope():
            for v in new:
                base = getattr(v, "name", "var").split(":")[0]
                self._slots[id(v)] = {
                    s: tf.Variable(tf.fill(v.shape, tf.cast(self._slot_initial(s), v.dtype)), trainable=False,
                                   name=f"{base}/{s}") for s in self._SLOTS}
                self._slot_order.append(id(v))
        apply_deferred(self)  # a checkpoint restored before the slots existed fills them now

    def _slot_initial(self, slot):
        return 0.0

    def _prepare(self, step):
        """Once per apply_gradients, before the per-variable updates (Nadam's shared momentum schedule)."""

    def _clip(self, grads):
        if self.clipvalue is not None:
            grads = [tf.clip_by_value(g, -self.clipvalue, self.clipvalue) for g in grads]
        if self.clipnorm is not None:
            grads = [tf.clip_by_norm(g, self.clipnorm) for g in grads]
        if self.global_clipnorm is not None:
            grads, _ = tf.clip_by_global_norm(grads, self.global_clipnorm)
        return grads

    def apply_gradients(self, grads_and_vars, name=None, **kwargs):
        """Applies one update per (gradient, variable) pair; pairs whose gradient is None are skipped.
        In a replica of a tf.distribute strategy the replicas' gradients are summed and the update is
        applied once for all of them."""
        pairs = [_grad_var_pair(p) for p in grads_and_vars]
        replica = tf.distribute.context.multi_replica_context()
        if replica is not None:
            return replica.merge_call(self._apply_summed, args=(pairs,))
        return self._apply(pairs)

    def _apply_summed(self, strategy, pairs):
        grads = strategy._sum_across_replicas([g for g, _ in pairs])
        return self._apply([(g, v) for g, (_, v) in zip(grads, pairs)])

    def _apply(self, pairs):
        kept = [(g, v) for g, v in pairs if g is not None]
        if not kept:
            raise ValueError(f"No gradients provided for any variable: {[getattr(v, 'name', v) for _, v in pairs]}.")
        grads = self._clip([g for g, _ in kept])
        var_list = [v for _, v in kept]
        self._create_slots(var_list)
        if self._lr_schedule is not None:
            self._lr.assign(self._scheduled_lr())
        self._iterations.assign_add(1)
        step = tf.cast(self._iterations, tf.float32)
        lr = tf.identity(self._lr)
        self._step_state = self._prepare(step)
        for g, v in zip(grads, var_list):
            if v.dtype is not tf.float32:
                self._update(tf.cast(g, v.dtype), v, tf.cast(lr, v.dtype), tf.cast(step, v.dtype))
            else:
                self._update(g, v, lr, step)
        self._step_state = None
        return self._iterations

    def minimize(self, loss, var_list, grad_loss=None, name=None, tape=None):
        """loss: a tensor recorded on `tape`, or a zero-argument callable (then a tape is made here)."""
        loss, var_list, tape = _loss_on_tape(loss, var_list, tape)
        grads = tape.gradient(loss, var_list, output_gradients=grad_loss)
        return self.apply_gradients(zip(grads, var_list))

    def _update(self, grad, var, lr, step):
        raise NotImplementedError

    def get_config(self):
        lr = schedules.serialize(self._lr_schedule) if self._lr_schedule is not None else float(self._lr.numpy())
        return {"name": self._name, "learning_rate": lr}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        if isinstance(config.get("learning_rate"), dict):
            config = dict(config, learning_rate=schedules.deserialize(config["learning_rate"], custom_objects))
        return cls(**config)


class SGD(Optimizer):
    """v = momentum * v - lr * g; w += v (Nesterov: w += momentum * v - lr * g). Plain w -= lr * g without
    momentum."""

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name="SGD", **kwargs):
        if not 0.0 <= momentum <= 1.0:
            raise ValueError(f"`momentum` must be between [0, 1]. Received: momentum={momentum}")
        super().__init__(name, learning_rate, **kwargs)
        self.momentum, self.nesterov = float(momentum), nesterov
        self._SLOTS = ("momentum",) if momentum else ()

    def _update(self, grad, var, lr, step):
        if not self.momentum:
            var.assign_sub(lr * grad)
            return
        m = self._slots[id(var)]["momentum"]
        new_m = self.momentum * m - lr * grad
        m.assign(new_m)
        if self.nesterov:
            var.assign_add(self.momentum * new_m - lr * grad)
        else:
            var.assign_add(new_m)

    def get_config(self):
        return {**super().get_config(), "momentum": self.momentum, "nesterov": self.nesterov}


class Adam(Optimizer):
    """m, v: running means of g and g*g; w -= lr * sqrt(1 - b2^t) / (1 - b1^t) * m / (sqrt(v) + epsilon)."""

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad=False, name="Adam",
                 **kwargs):
        super().__init__(name, learning_rate, **kwargs)
        self.beta_1, self.beta_2, self.epsilon, self.amsgrad = beta_1, beta_2, epsilon, amsgrad
        self._SLOTS = ("m", "v", "vhat") if amsgrad else ("m", "v")

    def _update(self, grad, var, lr, step):
        s = self._slots[id(var)]
        b1, b2 = self.beta_1, self.beta_2
        alpha = lr * tf.sqrt(1.0 - tf.pow(b2, step)) / (1.0 - tf.pow(b1, step))
        # tf_keras's arithmetic: m += (g - m)(1 - b1), v += (g^2 - v)(1 - b2), w -= m alpha / (sqrt(v) + eps)
        if not self.amsgrad and _fusable(var, s["m"], s["v"]):  # the same arithmetic as one op (training_ops)
            grad = tf.convert_to_tensor(grad, dtype=var.dtype)
            c = [tf.constant(x, dtype=var.dtype) for x in (1.0 - b1, 1.0 - b2, self.epsilon)]
            training_ops.keras_adam_update(var, s["m"], s["v"], grad, tf.cast(alpha, var.dtype), *c)
            return
        m = s["m"].assign_add((grad - s["m"]) * (1.0 - b1))
        v = s["v"].assign_add((tf.square(grad) - s["v"]) * (1.0 - b2))
        if self.amsgrad:
            v = s["vhat"].assign(tf.maximum(s["vhat"], v))
        var.assign_sub(m * alpha / (tf.sqrt(v) + self.epsilon))

    def get_config(self):
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon,
                "amsgrad": self.amsgrad}


class RMSprop(Optimizer):
    """ms = rho * ms + (1 - rho) * g*g; w -= lr * g / sqrt(ms + epsilon) (with optional momentum, centering)."""

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False, name="RMSprop",
                 **kwargs):
        super().__init__(name, learning_rate, **kwargs)
        self.rho, self.momentum, self.epsilon, self.centered = rho, momentum, epsilon, centered
        self._SLOTS = ("rms",) + (("momentum",) if momentum else ()) + (("mg",) if centered else ())

    def _update(self, grad, var, lr, step):
        s = self._slots[id(var)]
        rho = self.rho
        ms = s["rms"].assign(rho * s["rms"] + (1.0 - rho) * tf.square(grad))
        denom = ms
        if self.centered:
            mg = s["mg"].assign(rho * s["mg"] + (1.0 - rho) * grad)
            denom = ms - tf.square(mg)
        increment = lr * grad / tf.sqrt(denom + self.epsilon)
        if self.momentum:
            mom = s["momentum"].assign(self.momentum * s["momentum"] + increment)
            var.assign_sub(mom)
        else:
            var.assign_sub(increment)

    def get_config(self):
        return {**super().get_config(), "rho": self.rho, "momentum": self.momentum, "epsilon": self.epsilon,
                "centered": self.centered}


class Adagrad(Optimizer):
    """acc += g*g; w -= lr * g / (sqrt(acc) + epsilon), the accumulator starting at initial_accumulator_value."""

    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7, name="Adagrad", **kwargs):
        if initial_accumulator_value < 0.0:
            raise ValueError(f"`initial_accumulator_value` must be non-negative. Received: "
                             f"initial_accumulator_value={initial_accumulator_value}")
        super().__init__(name, learning_rate, **kwargs)
        self.initial_accumulator_value, self.epsilon = initial_accumulator_value, epsilon
        self._SLOTS = ("accumulator",)

    def _slot_initial(self, slot):
        return float(self.initial_accumulator_value)

    def _update(self, grad, var, lr, step):
        acc = self._slots[id(var)]["accumulator"]
        acc = acc.assign_add(tf.square(grad))
        var.assign_sub(lr * grad / (tf.sqrt(acc) + self.epsilon))

    def get_config(self):
        return {**super().get_config(), "initial_accumulator_value": self.initial_accumulator_value,
                "epsilon": self.epsilon}


class Adadelta(Optimizer):
    """Running means of g*g and of the squared updates set each step's size: delta = sqrt(E[dx^2] + eps) /
    sqrt(E[g^2] + eps) * g; w -= lr * delta."""

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-7, name="Adadelta", **kwargs):
        super().__init__(name, learning_rate, **kwargs)
        self.rho, self.epsilon = rho, epsilon
        self._SLOTS = ("accumulated_grad", "accumulated_delta_var")

    def _update(self, grad, var, lr, step):
        s = self._slots[id(var)]
        rho, eps = self.rho, self.epsilon
        acc_g = s["accumulated_grad"].assign(rho * s["accumulated_grad"] + (1.0 - rho) * tf.square(grad))
        delta = tf.sqrt(s["accumulated_delta_var"] + eps) / tf.sqrt(acc_g + eps) * grad
        s["accumulated_delta_var"].assign(rho * s["accumulated_delta_var"] + (1.0 - rho) * tf.square(delta))
        var.assign_sub(lr * delta)

    def get_config(self):
        return {**super().get_config(), "rho": self.rho, "epsilon": self.epsilon}


class Adamax(Optimizer):
    """Adam with the infinity norm: u = max(b2 * u, |g|); w -= lr / (1 - b1^t) * m / (u + epsilon)."""

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, name="Adamax", **kwargs):
        super().__init__(name, learning_rate, **kwargs)
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon
        self._SLOTS = ("m", "u")

    def _update(self, grad, var, lr, step):
        s = self._slots[id(var)]
        b1 = self.beta_1
        m = s["m"].assign(b1 * s["m"] + (1.0 - b1) * grad)
        u = s["u"].assign(tf.maximum(self.beta_2 * s["u"], tf.abs(grad)))
        var.assign_sub(lr / (1.0 - tf.pow(b1, step)) * m / (u + self.epsilon))

    def get_config(self):
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon}


class Nadam(Optimizer):
    """Adam with Nesterov momentum and the momentum schedule b1 * (1 - 0.5 * 0.96^t)."""

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, name="Nadam", **kwargs):
        super().__init__(name, learning_rate, **kwargs)
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon
        self._SLOTS = ("m", "v")
        with tf.init_scope():
            self._u_product = tf.Variable(1.0, dtype=tf.float32, trainable=False, name="u_product")

    def _prepare(self, step):
        b1 = self.beta_1
        u_t = b1 * (1.0 - 0.5 * tf.pow(0.96, step))
        u_t1 = b1 * (1.0 - 0.5 * tf.pow(0.96, step + 1.0))
        product = self._u_product.assign(self._u_product * u_t)
        return u_t, u_t1, product, product * u_t1

    def _update(self, grad, var, lr, step):
        s = self._slots[id(var)]
        u_t, u_t1, product, product_next = (tf.cast(x, var.dtype) for x in self._step_state)
        m = s["m"].assign(s["m"] + (grad - s["m"]) * (1.0 - self.beta_1))
        v = s["v"].assign(s["v"] + (tf.square(grad) - s["v"]) * (1.0 - self.beta_2))
        m_hat = u_t1 * m / (1.0 - product_next) + (1.0 - u_t) * grad / (1.0 - product)
        v_hat = v / (1.0 - tf.pow(self.beta_2, step))
        var.assign_sub(lr * m_hat / (tf.sqrt(v_hat) + self.epsilon))

    def get_config(self):
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon}


class Ftrl(Optimizer):
    """Follow-the-regularized-leader (McMahan et al., 2013). Per weight: n (accumulator of g*g, starting at
    initial_accumulator_value) and z (linear). With p = -learning_rate_power and the step's g' = g +
    2 * l2_shrinkage * w: z += g' - (n_new^p - n^p) / lr * w; n = n_new; w = (clip(z, -l1, l1) - z) /
    (n^p / lr + 2 * (l2 + beta / (2 * lr)))."""

    def __init__(self, learning_rate=0.001, learning_rate_power=-0.5, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0, name="Ftrl",
                 l2_shrinkage_regularization_strength=0.0, beta=0.0, **kwargs):
        for arg, value in (("initial_accumulator_value", initial_accumulator_value),
                           ("l1_regularization_strength", l1_regularization_strength),
                           ("l2_regularization_strength", l2_regularization_strength),
                           ("l2_shrinkage_regularization_strength", l2_shrinkage_regularization_strength)):
            if value < 0.0:
                raise ValueError(f"`{arg}` needs to be positive or zero. Received: {arg}={value}.")
        if learning_rate_power > 0.0:
            raise ValueError(f"`learning_rate_power` needs to be negative or zero. Received: "
                             f"learning_rate_power={learning_rate_power}.")
        super().__init__(name, learning_rate, **kwargs)
        self.learning_rate_power = learning_rate_power
        self.initial_accumulator_value = initial_accumulator_value
        self.l1_regularization_strength = l1_regularization_strength
        self.l2_regularization_strength = l2_regularization_strength
        self.l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
        self.beta = beta
        self._SLOTS = ("accumulator", "linear")

    def _slot_initial(self, slot):
        return float(self.initial_accumulator_value) if slot == "accumulator" else 0.0

    def _update(self, grad, var, lr, step):
        s = self._slots[id(var)]
        n, z = s["accumulator"], s["linear"]
        power = -self.learning_rate_power
        l1 = self.l1_regularization_strength
        l2 = self.l2_regularization_strength + self.beta / (2.0 * lr)
        shrunk = grad + 2.0 * self.l2_shrinkage_regularization_strength * var if \
            self.l2_shrinkage_regularization_strength else grad
        n_new = n + tf.square(grad)
        z_new = z.assign_add(shrunk - (tf.pow(n_new, power) - tf.pow(n, power)) / lr * var)
        quadratic = tf.pow(n_new, power) / lr + 2.0 * l2
        var.assign((tf.clip_by_value(z_new, -l1, l1) - z_new) / quadratic)
        n.assign(n_new)

    def get_config(self):
        return {**super().get_config(), "learning_rate_power": self.learning_rate_power,
                "initial_accumulator_value": self.initial_accumulator_value,
                "l1_regularization_strength": self.l1_regularization_strength,
                "l2_regularization_strength": self.l2_regularization_strength,
                "l2_shrinkage_regularization_strength": self.l2_shrinkage_regularization_strength,
                "beta": self.beta}


_BY_NAME = {"sgd": SGD, "adam": Adam, "rmsprop": RMSprop, "adagrad": Adagrad, "adadelta": Adadelta,
            "adamax": Adamax, "nadam": Nadam, "ftrl": Ftrl}


def _legacy_module():
    """tf.keras.optimizers.legacy (tf_keras's OptimizerV2 classes, which understanding/sngp uses): the same
    update rules as the optimizers above, under the legacy names; their time-based `decay` is refused rather
    than ignored."""
    import sys
    import types
    mod = types.ModuleType(__name__ + ".legacy", _legacy_module.__doc__)

    def legacy(cls):
        def __init__(self, *args, decay=0.0, **kwargs):
            if decay:
                raise NotImplementedError(f"rivulet's tf.keras.optimizers.legacy.{cls.__name__} has no time-based "
                                          f"`decay` (got decay={decay}); use a LearningRateSchedule")
            cls.__init__(self, *args, **kwargs)
        return type(cls.__name__, (cls,), {"__init__": __init__, "__module__": mod.__name__,
                                           "__doc__": cls.__doc__})
    mod.Optimizer = Optimizer
    for cls in (SGD, Adam, RMSprop, Adagrad, Adadelta, Adamax, Nadam, Ftrl):
        setattr(mod, cls.__name__, legacy(cls))
    sys.modules[mod.__name__] = mod
    return mod


legacy = _legacy_module()


def get(identifier):
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, str):
        cls = _BY_NAME.get(identifier.lower())
        if cls is None:
            raise ValueError(f"Could not interpret optimizer identifier: {identifier}")
        return cls()
    raise ValueError(f"Could not interpret optimizer identifier: {identifier!r}")
