"""Bad input to the public API gets a clear error of TensorFlow's type naming what was wrong; never an
internal AttributeError/IndexError/ZeroDivisionError, a hang, or a silently wrong result.

Each row: (id, call, expected exception type, fragment of the message)."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.errors import InvalidArgumentError


class _Unrelated:
    pass


CASES = [
    # --- conversion
    ("constant-mixed-str-int", lambda: tf.constant([1, "a"]), ValueError, "mixed types"),
    ("constant-list-with-None", lambda: tf.constant([1, None]), ValueError, "NoneType"),
    ("constant-unrelated-object", lambda: tf.constant(_Unrelated()), ValueError, "unsupported type"),
    ("convert-nested-unrelated", lambda: tf.convert_to_tensor([[1.0, _Unrelated()]]), ValueError, "_Unrelated"),
    ("constant-object-array-with-int", lambda: tf.constant(np.array([1, "a"], dtype=object)), ValueError,
     "Unsupported object type int"),
    ("constant-shape-None-dim", lambda: tf.constant(1, shape=[2, None]), ValueError, "fully defined `shape`"),
    ("constant-shape-negative", lambda: tf.constant([1, 2, 3], shape=[-1]), ValueError, "`shape`"),
    # --- dtypes and specs
    ("as_dtype-None", lambda: tf.as_dtype(None), TypeError, "None"),
    ("cast-to-None", lambda: tf.cast(tf.ones([2]), None), TypeError, "None"),
    ("spec-from-None", lambda: tf.TensorSpec.from_tensor(None), ValueError, "should be a tf.Tensor"),
    ("string-constant-of-None", lambda: tf.constant([None], dtype=tf.string), ValueError, "NoneType"),
    ("strings-split-None", lambda: tf.strings.split(None), ValueError, "(None)"),
    ("einsum-equation-None", lambda: tf.einsum(None, tf.ones([2, 3])), TypeError, "`equation`"),
    # --- lists of tensors
    ("concat-empty", lambda: tf.concat([], axis=0), InvalidArgumentError, "at least one tensor"),
    ("concat-empty-graph", lambda: tf.function(lambda: tf.concat([], 0))(), ValueError, "at least one tensor"),
    ("concat-axis-None", lambda: tf.concat([tf.ones([2]), tf.ones([2])], axis=None), ValueError, "`axis`"),
    ("stack-axis-float", lambda: tf.stack([tf.ones([2])], axis=0.5), TypeError, "`axis`"),
    # --- static int arguments: None, floats, strings, vectors where a scalar goes
    ("expand_dims-axis-None", lambda: tf.expand_dims(tf.ones([2]), None), ValueError, "`axis` must be an integer"),
    ("expand_dims-axis-float", lambda: tf.expand_dims(tf.ones([2]), 1.5), TypeError, "got 1.5"),
    ("expand_dims-axis-vector", lambda: tf.expand_dims(tf.ones([2]), [0, 1]), InvalidArgumentError,
     "`axis` must be a scalar"),
    ("squeeze-axis-str", lambda: tf.squeeze(tf.ones([2, 1]), axis="a"), TypeError, "`axis`"),
    ("roll-shift-float", lambda: tf.roll(tf.ones([3]), 1.5, axis=0), TypeError, "`shift`"),
    ("roll-shift-None", lambda: tf.roll(tf.ones([3]), None, axis=0), ValueError, "`shift`"),
    ("one_hot-depth-None", lambda: tf.one_hot([0, 1], None), ValueError, "`depth`"),
    ("pad-paddings-None", lambda: tf.pad(tf.ones([2]), None), ValueError, "`paddings`"),
    ("transpose-perm-str", lambda: tf.transpose(tf.ones([2, 3]), perm="ab"), TypeError, "`perm`"),
    ("reverse-axis-None", lambda: tf.reverse(tf.ones([3]), None), ValueError, "`axis`"),
    # --- reductions and scans
    ("reduce-duplicate-axes", lambda: tf.reduce_sum(tf.ones([2, 3]), axis=[0, 0]), InvalidArgumentError,
     "duplicate dimension"),
    ("reduce-duplicate-negative-axes", lambda: tf.reduce_max(tf.ones([2, 3]), axis=[1, -1]), InvalidArgumentError,
     "duplicate dimension"),
    ("reduce-float-axis", lambda: tf.reduce_sum(tf.ones([2, 3]), axis=1.5), TypeError, "`axis`"),
    ("reduce-matrix-axis", lambda: tf.reduce_mean(tf.ones([2, 3]), axis=[[0], [1]]), InvalidArgumentError,
     "scalar or a vector"),
    ("cumsum-vector-axis", lambda: tf.cumsum(tf.ones([3]), axis=[0]), InvalidArgumentError, "must be a scalar"),
    ("cumsum-axis-None", lambda: tf.cumsum(tf.ones([3]), axis=None), ValueError, "`axis`"),
    ("argmax-vector-axis", lambda: tf.math.argmax(tf.ones([2]), axis=tf.constant([0, 0])), InvalidArgumentError,
     "must be a scalar"),
    # --- nn
    ("conv2d-stride-0", lambda: tf.nn.conv2d(tf.ones([1, 4, 4, 1]), tf.ones([3, 3, 1, 1]), 0, "SAME"),
     InvalidArgumentError, "`strides` must be positive"),
    ("conv2d-stride-0-graph", lambda: tf.function(lambda x: tf.nn.conv2d(x, tf.ones([3, 3, 1, 1]), 0, "SAME"))(
        tf.ones([1, 4, 4, 1])), ValueError, "`strides` must be positive"),
    ("conv2d-dilation-0", lambda: tf.nn.conv2d(tf.ones([1, 4, 4, 1]), tf.ones([3, 3, 1, 1]), 1, "SAME",
                                               dilations=0), InvalidArgumentError, "`dilations`"),
    ("conv2d-stride-str", lambda: tf.nn.conv2d(tf.ones([1, 4, 4, 1]), tf.ones([3, 3, 1, 1]), "a", "SAME"),
     TypeError, "`strides`"),
    ("max_pool-stride-0", lambda: tf.nn.max_pool2d(tf.ones([1, 4, 4, 1]), 2, 0, "VALID"), InvalidArgumentError,
     "`strides`"),
    ("max_pool-ksize-0", lambda: tf.nn.max_pool2d(tf.ones([1, 4, 4, 1]), 0, 1, "VALID"), InvalidArgumentError,
     "`ksize`"),
    ("avg_pool-ksize-negative", lambda: tf.nn.avg_pool2d(tf.ones([1, 4, 4, 1]), -1, 2, "VALID"),
     InvalidArgumentError, "`ksize`"),
    ("bias_add-bad-data_format", lambda: tf.nn.bias_add(tf.ones([2, 3]), tf.ones([3]), data_format="bogus"),
     ValueError, "`data_format`"),
    # --- array/linalg shapes that were accepted silently
    ("boolean_mask-axis-out-of-range", lambda: tf.boolean_mask(tf.ones([3]), [True, False, True], axis=3),
     ValueError, "`axis` 3"),
    ("set_diag-short-diagonal", lambda: tf.linalg.set_diag(tf.ones([3, 3]), tf.ones([2])), InvalidArgumentError,
     "diagonal must have shape [3]"),
    ("set_diag-short-diagonal-graph", lambda: tf.function(lambda x: tf.linalg.set_diag(x, tf.ones([2])))(
        tf.ones([3, 3])), ValueError, "diagonal must have shape [3]"),
    ("set_diag-unbatched-diagonal", lambda: tf.linalg.set_diag(tf.ones([2, 4, 4]), tf.zeros([4])),
     InvalidArgumentError, "diagonal must have shape [2, 4]"),
    ("matmul-transpose-and-adjoint", lambda: tf.matmul(tf.ones([2, 2]), tf.ones([2, 2]), transpose_a=True,
                                                      adjoint_a=True), ValueError, "`transpose_a` and `adjoint_a`"),
    # --- control flow
    ("while_loop-string-cond", lambda: tf.while_loop(lambda i: "a", lambda i: i + 1, [0]), TypeError,
     "scalar bool"),
    ("while_loop-vector-cond", lambda: tf.while_loop(lambda i: tf.constant([True, False]), lambda i: i + 1, [0]),
     TypeError, "scalar bool"),
    ("while_loop-no-loop_vars", lambda: tf.while_loop(lambda i: i < 3, lambda i: i + 1, []), ValueError,
     "'loop_vars' must be provided"),
    ("while_loop-parallel_iterations-0", lambda: tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0],
                                                               parallel_iterations=0), TypeError,
     "'parallel_iterations'"),
    ("switch_case-vector-index", lambda: tf.switch_case(tf.constant([0, 1]), [lambda: 1, lambda: 2]),
     InvalidArgumentError, "'branch_index' must be a scalar"),
    ("tensor_array-size-str", lambda: tf.TensorArray(tf.float32, size="a"), TypeError, "'a'"),
    ("tensor_array-size-negative", lambda: tf.TensorArray(tf.float32, size=-1), ValueError, "`size` must be >= 0"),
    ("tensor_array-float-index", lambda: tf.TensorArray(tf.float32, size=2).write(0.5, 1.0), TypeError, "0.5"),
    ("tensor_array-unstack-scalar", lambda: tf.TensorArray(tf.float32, size=2).unstack(tf.constant(1.0)),
     ValueError, "rank >= 1"),
    ("tensor_array-unstack-scalar-graph", lambda: tf.function(
        lambda x: tf.TensorArray(tf.float32, size=1).unstack(x))(tf.constant(1.0)), ValueError, "rank >= 1"),
    ("tensor_array-unstack-too-many", lambda: tf.TensorArray(tf.float32, size=2).unstack(tf.ones([3])),
     ValueError, "Cannot unstack 3 tensors into a TensorArray of static size 2"),
    # --- variables and tapes
    ("variable-name-int", lambda: tf.Variable(1.0, name=5), ValueError, "`name`"),
    ("variable-string-assign_add", lambda: tf.Variable("a").assign_add("b"), InvalidArgumentError,
     "string variable"),
    ("batch_jacobian-rank-1", lambda: _batch_jacobian_of_vector(), ValueError, "rank at least 2"),
    # --- keras
    ("Dense-units-None", lambda: tf.keras.layers.Dense(None), ValueError, "units=None"),
    ("Dense-units-fraction", lambda: tf.keras.layers.Dense(2.5), ValueError, "units=2.5"),
    ("Dense-called-on-None", lambda: tf.keras.layers.Dense(2)(None), ValueError, "should be tensors"),
    ("Dense-called-on-str", lambda: tf.keras.layers.Dense(2)("a"), ValueError, "should be tensors"),
    ("Conv2D-filters-negative", lambda: tf.keras.layers.Conv2D(-1, 3), ValueError, "`filters`"),
    ("Conv2D-kernel-0", lambda: tf.keras.layers.Conv2D(2, 0), ValueError, "`kernel_size`"),
    ("Conv2D-strides-0", lambda: tf.keras.layers.Conv2D(2, 3, strides=0), ValueError, "`strides`"),
    ("MaxPooling2D-pool-0", lambda: tf.keras.layers.MaxPooling2D(0), ValueError, "`pool_size`"),
    ("MaxPooling2D-strides-0", lambda: tf.keras.layers.MaxPooling2D(2, strides=0), ValueError, "`strides`"),
    ("Embedding-input_dim-negative", lambda: tf.keras.layers.Embedding(-1, 2), ValueError, "`input_dim`"),
    ("Embedding-output_dim-0", lambda: tf.keras.layers.Embedding(3, 0), ValueError, "`output_dim`"),
    ("fit-x-None", lambda: _compiled().fit(None, tf.ones([4, 2]), verbose=0), ValueError, "`x` is None"),
    ("fit-x-str", lambda: _compiled().fit("abc", tf.ones([4, 2]), verbose=0), ValueError, "batch dimension"),
    ("fit-batch_size-negative", lambda: _compiled().fit(tf.ones([4, 3]), tf.ones([4, 2]), batch_size=-1,
                                                        verbose=0), ValueError, "`batch_size`"),
    ("fit-batch_size-float", lambda: _compiled().fit(tf.ones([4, 3]), tf.ones([4, 2]), batch_size=2.5,
                                                     verbose=0), ValueError, "`batch_size`"),
    ("fit-steps-negative", lambda: _compiled().fit(tf.ones([4, 3]), tf.ones([4, 2]), steps_per_epoch=-1,
                                                   verbose=0), ValueError, "`steps`"),
    ("fit-callback-not-callback", lambda: _compiled().fit(tf.ones([4, 3]), tf.ones([4, 2]), callbacks=[5],
                                                          verbose=0), TypeError, "Callback"),
    ("fit-callbacks-not-list", lambda: _compiled().fit(tf.ones([4, 3]), tf.ones([4, 2]), callbacks=5,
                                                       verbose=0), TypeError, "`callbacks`"),
    ("fit-class_weight-not-dict", lambda: _compiled().fit(tf.ones([4, 3]), tf.ones([4, 2]), class_weight=5,
                                                          verbose=0), ValueError, "`class_weight`"),
    ("evaluate-x-None", lambda: _compiled().evaluate(None, verbose=0), ValueError, "`x` is None"),
    ("apply_gradients-None-variable", lambda: tf.keras.optimizers.SGD().apply_gradients([(tf.ones([2]), None)]),
     TypeError, "tf.Variable"),
    ("apply_gradients-tensor-variable", lambda: tf.keras.optimizers.SGD().apply_gradients(
        [(tf.ones([2]), tf.constant([1.0, 2.0]))]), TypeError, "tf.Variable"),
    ("apply_gradients-not-pairs", lambda: tf.keras.optimizers.SGD().apply_gradients([tf.ones([2])]), TypeError,
     "(gradient, variable) pairs"),
]


def _compiled():
    m = tf.keras.Sequential([tf.keras.layers.Dense(2)])
    m.compile(optimizer="sgd", loss="mse")
    return m


def _batch_jacobian_of_vector():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * 2
    return t.batch_jacobian(y, x)


@pytest.mark.parametrize("call,exc,fragment", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input(call, exc, fragment):
    with pytest.raises(exc) as info:
        call()
    assert fragment in str(info.value)


def test_spec_is_compatible_with_unrelated_is_false():
    spec = tf.TensorSpec([2], tf.float32)
    assert spec.is_compatible_with(None) is False
    assert spec.is_compatible_with(_Unrelated()) is False
    assert spec.is_compatible_with(tf.ones([2]))


def test_lists_that_tensorflow_accepts():
    assert tf.stack([]).shape == (0,) and tf.stack([]).dtype == tf.float32
    assert tf.concat(tf.ones([2]), axis=0).shape == (2,)  # a lone tensor concatenates with nothing
    assert tf.reduce_sum(tf.ones([2, 3]), axis=[0, 1]).numpy() == 6.0
    assert tf.expand_dims(tf.ones([2]), [0]).shape == (1, 2)


def test_while_loop_python_bool_condition_still_works():
    assert tf.while_loop(lambda i: True, lambda i: i + 1, [0], maximum_iterations=3)[0].numpy() == 3
    assert tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0])[0].numpy() == 3


def test_tensor_array_dynamic_unstack_grows():
    ta = tf.TensorArray(tf.float32, size=2, dynamic_size=True).unstack(tf.ones([3]))
    assert ta.size().numpy() == 3


def test_keras_arguments_keras_accepts():
    assert tf.keras.layers.Dense(2.0).units == 2  # an integral float, as Keras 2 took it
    m = _compiled()
    assert m.fit(tf.ones([4, 3]), tf.ones([4, 2]), batch_size=0, verbose=0) is not None  # 0 means the default


def test_strings_still_convert():
    assert tf.constant(["a", b"b"]).dtype == tf.string
    assert tf.constant(np.array([b"a", "b"], dtype=object)).numpy().tolist() == [b"a", b"b"]
    assert tf.constant([["a"], ["b"]]).shape == (2, 1)


@pytest.mark.parametrize("call, error, fragment", [
    (lambda: tf.reshape(tf.ones([6]), [[2, 3]]), tf.errors.InvalidArgumentError, "vector"),
    (lambda: tf.zeros([[2]]), tf.errors.InvalidArgumentError, "vector"),
    (lambda: tf.random.uniform([2.5]), tf.errors.InvalidArgumentError, "integers"),
    (lambda: tf.random.normal([[2]]), tf.errors.InvalidArgumentError, "vector"),
    (lambda: tf.matmul(tf.ones([2, 2]), tf.ones([2, 2]), transpose_a="yes"), TypeError, "transpose_a"),
    (lambda: tf.matmul(tf.ones([2, 2]), tf.ones([2, 2]), adjoint_b=1), TypeError, "adjoint_b"),
])
def test_shape_vectors_and_bool_flags(call, error, fragment):
    with pytest.raises(error, match=fragment):
        call()


@pytest.mark.parametrize("call, fragment", [
    (lambda: tf.keras.Input(shape=(-1,)), "non-negative"),
    (lambda: tf.keras.Input(shape=(2.5,)), "non-negative int"),
    (lambda: tf.keras.regularizers.L2(-1), "l2"),
    (lambda: tf.keras.regularizers.L1L2(l1="a"), "l1"),
    (lambda: tf.keras.layers.BatchNormalization(axis=5)(tf.ones([2, 3])), "Invalid axis"),
])
def test_keras_arguments_out_of_range(call, fragment):
    with pytest.raises(ValueError, match=fragment):
        call()


def test_keras_arguments_in_range_still_work():
    assert tf.keras.Input(shape=(np.int64(3), None)).shape.as_list() == [None, 3, None]
    assert tf.keras.regularizers.L2(np.float32(0.5))(tf.ones([2])).numpy() == pytest.approx(1.0)
    assert tf.keras.layers.BatchNormalization(axis=-1)(tf.ones([2, 3])).shape == (2, 3)


def test_as_dtype_takes_tensorflow_enum_numbers_but_not_bools():
    assert tf.as_dtype(1) is tf.float32 and tf.as_dtype(9) is tf.int64 and tf.as_dtype(7) is tf.string
    with pytest.raises(TypeError):
        tf.as_dtype(True)
