"""ExtensionTypes through tf.function (traced by their Spec), tf.cond / tf.while_loop / AutoGraph loops, and the
dispatch decorators; values as TensorFlow 2.21 gives them (its extension_type guide)."""
from typing import List, Mapping, Union

import numpy as np
import pytest

import rivulet as tf


class MaskedTensor(tf.experimental.ExtensionType):
    values: tf.Tensor
    mask: tf.Tensor

    def with_values(self, new_values):
        return MaskedTensor(new_values, self.mask)


class Player(tf.experimental.ExtensionType):
    name: tf.Tensor
    attributes: Mapping[str, tf.Tensor]


class Pastry(tf.experimental.ExtensionType):
    sweetness: tf.Tensor
    chewiness: tf.Tensor


def test_function_traces_by_spec():
    traces = []

    @tf.function
    def anonymize(player):
        traces.append(1)
        return Player("<anonymous>", player.attributes)
    r = anonymize(Player("Anne", {"height": 8.3, "speed": 28.1}))
    assert isinstance(r, Player) and r.name.numpy() == b"<anonymous>"
    np.testing.assert_allclose(r.attributes["speed"].numpy(), np.float32(28.1))
    anonymize(Player("Bart", {"height": 8.1, "speed": 25.3}))
    assert len(traces) == 1  # the same spec: no retrace
    anonymize(Player("Chuck", {"height": 11.0, "jump": 5.3}))
    assert len(traces) == 2  # other keys: a new spec


def test_input_signature_and_concrete_function():
    cookie = Pastry(sweetness=[1.2, 0.4], chewiness=[0.8, 0.2])
    spec = Pastry.Spec(tf.TensorSpec([2]), tf.TensorSpec(2))

    @tf.function(input_signature=[spec])
    def increase_sweetness(x, delta=1.0):
        return Pastry(x.sweetness + delta, x.chewiness)
    out = increase_sweetness(cookie)
    np.testing.assert_allclose(out.sweetness.numpy(), [2.2, 1.4], rtol=1e-6)

    @tf.function
    def combine(x):
        return (x.sweetness + x.chewiness) / 2
    cf = combine.get_concrete_function(spec)
    np.testing.assert_allclose(cf(cookie).numpy(), [1.0, 0.3], rtol=1e-6)


def test_cond_while_and_autograph():
    a = MaskedTensor([1., 2, 3], [True, False, True])
    b = MaskedTensor([22., 33, 108, 55], [True, True, True, False])
    assert tf.cond(tf.constant(True), lambda: a, lambda: b) is a
    out = tf.while_loop(lambda i, _: i < 10, lambda i, mt: (i + 1, mt.with_values(mt.values + 3 / 7)), [0, b])[1]
    np.testing.assert_allclose(out.values.numpy(), np.float32([26.285717, 37.285698, 112.285736, 55 + 30 / 7]),
                               rtol=1e-6)

    @tf.function
    def fn(x, b):
        if b:
            x = MaskedTensor(x, tf.less(x, 0))
        else:
            x = MaskedTensor(x, tf.greater(x, 0))
        for i in tf.range(5 if b else 7):
            x = x.with_values(x.values + 1 / 2)
        return x
    t = fn(tf.constant([1., -2, 3]), tf.constant(True))
    np.testing.assert_array_equal(t.values.numpy(), [3.5, 0.5, 5.5])
    np.testing.assert_array_equal(t.mask.numpy(), [False, True, False])
    f = fn(tf.constant([1., -2, 3]), tf.constant(False))
    np.testing.assert_array_equal(f.values.numpy(), [4.5, 1.5, 6.5])

    @tf.function
    def pick(p):  # branches of different shapes: the spec covering both
        return tf.cond(p, lambda: a, lambda: b)
    np.testing.assert_array_equal(pick(tf.constant(False)).values.numpy(), [22., 33, 108, 55])

    @tf.function
    def loop(mt):
        return tf.while_loop(lambda i, _: i < 3, lambda i, m: (i + 1, m.with_values(m.values * 2)), [0, mt])[1]
    np.testing.assert_array_equal(loop(a).values.numpy(), [8., 16, 24])


def _str(mt):
    return [repr(v) if m else "_" for v, m in zip(mt.values.numpy().tolist(), mt.mask.numpy().tolist())]


def test_dispatch_for_api_and_unregister():
    @tf.experimental.dispatch_for_api(tf.stack)
    def masked_stack(values: List[MaskedTensor], axis=0):
        return MaskedTensor(tf.stack([v.values for v in values], axis), tf.stack([v.mask for v in values], axis))
    x = MaskedTensor([1, 2, 3], [True, True, False])
    y = MaskedTensor([4, 5, 6], [False, True, True])
    s = tf.stack([x, y])
    np.testing.assert_array_equal(s.mask.numpy(), [[True, True, False], [False, True, True]])
    tf.experimental.unregister_dispatch_for(masked_stack)
    with pytest.raises(ValueError):
        tf.stack([x, y])
    with pytest.raises(ValueError, match="was not registered"):
        tf.experimental.unregister_dispatch_for(masked_stack)

    @tf.experimental.dispatch_for_api(tf.stack)
    def masked_stack_v2(values: List[Union[MaskedTensor, tf.Tensor]], axis=0):
        values = [v if isinstance(v, MaskedTensor) else MaskedTensor(v, tf.ones_like(v, tf.bool)) for v in values]
        return MaskedTensor(tf.stack([v.values for v in values], axis), tf.stack([v.mask for v in values], axis))
    try:
        s = tf.stack([x, tf.constant([4, 5, 6]), x])
        np.testing.assert_array_equal(s.mask.numpy(), [[True, True, False], [True, True, True],
                                                      [True, True, False]])
        np.testing.assert_array_equal(tf.stack([tf.constant(1), tf.constant(2)]).numpy(), [1, 2])
    finally:
        tf.experimental.unregister_dispatch_for(masked_stack_v2)


def test_dispatch_elementwise_and_matmul():
    @tf.experimental.dispatch_for_unary_elementwise_apis(MaskedTensor)
    def unary(api_func, x):
        return MaskedTensor(api_func(x.values), x.mask)

    @tf.experimental.dispatch_for_binary_elementwise_apis(MaskedTensor, MaskedTensor)
    def binary(api_func, x, y):
        return MaskedTensor(api_func(x.values, y.values), x.mask & y.mask)

    @tf.experimental.dispatch_for_api(tf.matmul)
    def masked_matmul(a: MaskedTensor, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
                      a_is_sparse=False, b_is_sparse=False, output_type=None, grad_a=False, grad_b=False, name=None):
        return tf.matmul(tf.where(a.mask, a.values, tf.zeros_like(a.values)), b)
    try:
        x = MaskedTensor([1, -2, -3], [True, False, True])
        assert _str(tf.abs(x)) == ["1", "_", "3"]
        ones = tf.ones_like(x, dtype=tf.float32)
        assert ones.values.dtype == tf.float32 and _str(ones) == ["1.0", "_", "1.0"]
        y = MaskedTensor([[4], [5]], [[True], [False]])
        s = tf.math.add(x, y)
        np.testing.assert_array_equal(s.values.numpy(), [[5, 2, 1], [6, 3, 2]])
        np.testing.assert_array_equal(s.mask.numpy(), [[True, False, True], [False, False, False]])
        m = MaskedTensor([[1., 2], [3, 4]], [[True, False], [False, True]])
        np.testing.assert_array_equal(tf.matmul(m, tf.constant([[1.], [1.]])).numpy(), [[1.], [4.]])
        np.testing.assert_array_equal(tf.matmul(tf.ones([1, 2]), tf.ones([2, 1])).numpy(), [[2.]])
    finally:
        for h in (unary, binary, masked_matmul):
            tf.experimental.unregister_dispatch_for(h)
    with pytest.raises(ValueError):
        tf.abs(MaskedTensor([1], [True]))


def test_nest_expand_composites():
    mt = MaskedTensor([1, 2], [True, False])
    flat = tf.nest.flatten({"a": mt, "b": 3}, expand_composites=True)
    assert len(flat) == 3 and flat[2] == 3
    np.testing.assert_array_equal(flat[0].numpy(), [1, 2])
    assert tf.nest.flatten(mt) == [mt]
    spec = tf.type_spec_from_value(mt)
    assert tf.nest.flatten(spec, expand_composites=True) == [tf.TensorSpec([2], tf.int32), tf.TensorSpec([2], tf.bool)]
    r = tf.nest.pack_sequence_as(mt, [tf.constant([5, 6]), tf.constant([False, False])], expand_composites=True)
    assert isinstance(r, MaskedTensor)
    np.testing.assert_array_equal(r.values.numpy(), [5, 6])
    r = tf.nest.pack_sequence_as(spec, [tf.constant([5, 6]), tf.constant([False, False])], expand_composites=True)
    assert isinstance(r, MaskedTensor)  # (TensorFlow packs a spec's components into a value)
    doubled = tf.nest.map_structure(lambda t: t * 2 if t.dtype == tf.int32 else t, [mt], expand_composites=True)
    np.testing.assert_array_equal(doubled[0].values.numpy(), [2, 4])
    tf.nest.assert_same_structure(mt, MaskedTensor([1, 2, 3], [True, False, True]), expand_composites=True)
    with pytest.raises(ValueError, match="don't have the same nested structure"):
        tf.nest.assert_same_structure(mt, 3, expand_composites=True)
    assert not tf.nest.is_nested(mt)


def test_reduce_retracing_generalizes_the_spec():
    traces = []

    @tf.function(reduce_retracing=True)
    def f(x):
        traces.append(1)
        return x.values * 2
    for k in (2, 3, 4, 5):
        f(MaskedTensor(tf.ones([k]), tf.ones([k]) > 0))
    assert len(traces) == 2 and f.experimental_get_tracing_count() == 2  # TensorFlow 2.21: 2


def test_elementwise_dispatch_reaches_tensorflows_other_elementwise_apis():
    @tf.experimental.dispatch_for_unary_elementwise_apis(MaskedTensor)
    def unary(api_func, x):
        return MaskedTensor(api_func(x.values), x.mask)

    @tf.experimental.dispatch_for_binary_elementwise_apis(Union[MaskedTensor, tf.Tensor], Union[MaskedTensor,
                                                                                                  tf.Tensor])
    def binary(api_func, x, y):
        x = x if isinstance(x, MaskedTensor) else MaskedTensor(x, tf.ones_like(x, tf.bool))
        y = y if isinstance(y, MaskedTensor) else MaskedTensor(y, tf.ones_like(y, tf.bool))
        return MaskedTensor(api_func(x.values, y.values), x.mask & y.mask)
    try:
        x = MaskedTensor([1., -2.], [True, False])
        assert _str(tf.nn.relu(x)) == ["1.0", "_"]  # TensorFlow 2.21 dispatches tf.nn.relu too
        np.testing.assert_allclose(tf.math.erf(x).values.numpy(), [0.84270084, -0.99532235], rtol=1e-6)
        r = tf.math.add(tf.constant([1., 2.]), x)  # a Tensor and a MaskedTensor: Union annotations
        assert _str(r) == ["2.0", "_"]
        np.testing.assert_allclose(tf.math.atan2(x, x).values.numpy(), [0.7853982, -2.3561945], rtol=1e-6)
        np.testing.assert_array_equal(tf.nn.relu(tf.constant([-1., 3.])).numpy(), [0., 3.])  # tensors as before
        with pytest.raises(ValueError):
            tf.math.add(x, 1)  # (1 is neither: TensorFlow converts x and fails too)
    finally:
        tf.experimental.unregister_dispatch_for(unary)
        tf.experimental.unregister_dispatch_for(binary)


def test_graph_cond_returns_a_ragged_tensor():
    @tf.function
    def g(p, r):
        return tf.cond(p, lambda: r * 2, lambda: r)
    out = g(tf.constant(True), tf.ragged.constant([[1, 2], [3]]))
    assert out.to_list() == [[2, 4], [6]]  # TensorFlow 2.21's value (was a conversion error)


def test_dispatch_for_binary_elementwise_assert_apis():
    seen = []

    @tf.experimental.dispatch_for_binary_elementwise_assert_apis(MaskedTensor, MaskedTensor)
    def handler(assert_func, x, y):
        seen.append(1)
        return assert_func(x.values, y.values)
    try:
        x = MaskedTensor([1, 2], [True, False])
        assert tf.debugging.assert_equal(x, x) is None and tf.debugging.assert_less(x, MaskedTensor([3, 4], x.mask)) \
            is None
        assert len(seen) == 2
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.debugging.assert_greater(x, x)
    finally:
        tf.experimental.unregister_dispatch_for(handler)


def test_gradient_tape_watches_components():
    class Scaled(tf.experimental.ExtensionType):
        values: tf.Tensor
        scale: tf.Tensor
    mt = Scaled(tf.constant([1., 2.]), tf.constant(3.))
    with tf.GradientTape(persistent=True) as t:
        t.watch(mt)  # its component tensors (TensorFlow 2.21 watches a composite's components)
        y = tf.reduce_sum(mt.values * mt.scale)
    gv, gs = t.gradient(y, [mt.values, mt.scale])
    np.testing.assert_array_equal(gv.numpy(), [3., 3.])
    assert float(gs) == 3.0
    with pytest.raises(ValueError, match="Type Scaled is not supported as a gradient source or gradient target."):
        t.gradient(y, mt)
