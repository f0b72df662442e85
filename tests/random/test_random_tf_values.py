"""tf.random gives TensorFlow's numbers: golden values recorded from TensorFlow 2.21 (tensorflow-cpu, Linux).

float32 values are compared bit for bit (as their uint32 patterns); the hashes are sha256 prefixes of the raw
bytes of long draws, which exercise the float32 Box-Muller's C-library rounding (ops/philox.py) over many inputs.
"""
import hashlib
import warnings

import numpy as np
import pytest

import rivulet as tf
from rivulet.ops import random_ops

S = [7, -3]


@pytest.fixture(autouse=True)
def _no_global_seed():
    random_ops.set_seed(None)
    yield
    random_ops.set_seed(None)


def u32(t):
    return t.numpy().view(np.uint32).tolist()


def sha(t):
    return hashlib.sha256(np.ascontiguousarray(t.numpy()).tobytes()).hexdigest()[:16]


def test_stateless_uniform():
    assert u32(tf.random.stateless_uniform([6], seed=S)) == [1054771564, 1032171360, 1061118864, 1041782176, 1058470974, 1050904084]
    assert tf.random.stateless_uniform([3], seed=S, dtype=tf.float64).numpy().tolist() == [0.47713778180121613, 0.9809041063278245, 0.7182915943104444]
    assert tf.random.stateless_uniform([5], seed=S, dtype=tf.float16).numpy().view(np.uint16).tolist() == [14518, 14828, 14112, 14696, 14398]
    assert u32(tf.random.stateless_uniform([2, 2], seed=S, minval=-3., maxval=2.5)) == [[3206284824, 3223913948], [1066291660, 3221987985]]
    assert u32(tf.random.stateless_uniform([3], seed=tf.constant([-1, 2 ** 40], tf.int64))) == [1056744908, 1046257896, 1033126000]


def test_stateless_normal_and_truncated_normal():
    assert u32(tf.random.stateless_normal([6], seed=S, mean=1.0, stddev=2.0)) == [1073865452, 1079478404, 1074694372, 1072954851, 1077361539, 1040667276]
    assert tf.random.stateless_normal([3], seed=S, dtype=tf.float64).numpy().tolist() == [-0.1456107780640622, 1.2077654819729078, 0.36099545311012377]
    assert tf.random.stateless_normal([5], seed=S, dtype=tf.float16).numpy().view(np.uint16).tolist() == [14366, 15548, 14569, 14144, 15220]
    assert u32(tf.random.stateless_truncated_normal([9], seed=S)) == [1057211865, 1066895492, 1058869704, 1055390662, 1065457348, 3163667282, 1003601227, 3202162784, 3213709352]
    assert tf.random.stateless_truncated_normal([5], seed=S, dtype=tf.float64).numpy().tolist() == [-0.1456107780640622, 1.2077654819729078, -0.28848604561432045, -0.14262208278233368, 0.6654110226412603]


def test_long_normal_draws_match_bit_for_bit():
    assert sha(tf.random.stateless_normal([300000], seed=[3, 4])) == '4cc7151b75cd5649'
    assert sha(tf.random.stateless_truncated_normal([100000], seed=[3, 4])) == '3d4fd158c49916ad'
    assert sha(tf.random.stateless_normal([50000], seed=[3, 4], dtype=tf.float16)) == '43270a6770b90ae6'
    assert sha(tf.random.stateless_normal([50000], seed=[3, 4], dtype=tf.float64)) == '560da641c697c04d'


def test_stateless_integers_categorical_split_fold_in():
    assert tf.random.stateless_uniform([6], seed=S, minval=-10, maxval=1000, dtype=tf.int32).numpy().tolist() == \
        [717, 232, 638, 98, 27, 909]
    assert tf.random.stateless_uniform([4], seed=S, minval=-2 ** 40, maxval=2 ** 50,
                                       dtype=tf.int64).numpy().tolist() == [523326711112283, 789123625365960, 1122074060619295, 778913425314882]
    full = tf.random.stateless_uniform([4], seed=S, minval=None, maxval=None, dtype=tf.uint32)
    assert full.dtype == tf.uint32 and full.numpy().tolist() == [2125963867, 973626102, 694137288, 2165508788]
    assert tf.random.stateless_uniform([3], seed=S, minval=None, maxval=None, dtype=tf.int64).numpy().tolist() == \
        [4181692268747924059, -9145954649354817080, 6028316063551946271]
    assert tf.random.stateless_categorical([[0.5, 1.0, -2.0], [0., 0., 0.]], 6, seed=S).numpy().tolist() == [[1, 2, 1, 1, 0, 1], [1, 1, 2, 2, 2, 1]]
    assert tf.random.experimental.stateless_split(S, 3).numpy().tolist() == [[2125963867, 973626102], [694137288, -2129458508], [969637407, 1403576709]]
    assert tf.random.experimental.stateless_fold_in(S, 11).numpy().tolist() == [2125963867, 11]


def test_stateless_is_the_same_in_a_function():
    f = tf.function(lambda seed: tf.random.stateless_normal([6], seed=seed, mean=1.0, stddev=2.0))
    assert u32(f(tf.constant(S))) == [1073865452, 1079478404, 1074694372, 1072954851, 1077361539, 1040667276]


def test_generator_from_seed():
    g = tf.random.Generator.from_seed(1)
    want = [0.4384227395057678, [1070614865, 1026129617, 3184869911, 1061884747, 3222388864], [1537, 0, 0], [1075776330, 1081769466, 1076067843], [3, 4, 4, 3], [1058446618, 1036183473, 1049418732, 3191788659, 3219617910, 1072458089], [11242719187036315870, 13974531510636968912], [5377, 0, 0]]
    assert g.normal([]).numpy() == np.float32(want[0])  # the example: 0.43842274
    assert u32(g.normal([5])) == want[1]
    assert g.state.numpy().tolist() == want[2]  # the counter advances 256 per value drawn
    assert u32(g.uniform([3], minval=2., maxval=4.)) == want[3]
    assert g.uniform([4], minval=3, maxval=9, dtype=tf.int64).numpy().tolist() == want[4]
    assert u32(g.truncated_normal([6])) == want[5]
    assert g.uniform_full_int([2]).numpy().tolist() == want[6]
    assert g.state.numpy().tolist() == want[7]
    assert tf.random.Generator.from_seed(2 ** 70 + 5).state.numpy().tolist() == [5, 64, 0]
    assert tf.random.Generator.from_seed([3, 4]).state.numpy().tolist() == [0, 3, 4]
    assert tf.random.Generator.from_seed(1).algorithm == tf.random.Algorithm.PHILOX == 1


def test_generator_make_seeds_and_split():
    g = tf.random.Generator.from_seed(42)
    assert g.make_seeds(2).numpy().tolist() == [[-2783742675338139001, 5602131996525061434], [0, 0]]
    want = [[0, 0, -7195967063916773985], [0, 0, -2979667909047701217], [3207007254, 1028133543, 1067979252], [1066, 0, 0]]
    parts = g.split(2)
    assert [p.state.numpy().tolist() for p in parts] == want[:2]
    assert u32(parts[1].normal([3])) == want[2]
    assert g.state.numpy().tolist() == want[3]


def test_generator_inside_tf_function_continues_the_stream():
    g = tf.random.Generator.from_seed(9)
    f = tf.function(lambda: g.normal([2]))
    want = [[3206192732, 3191140078], [3196435149, 3216092123], [1066216642, 3189127513], [1545, 0, 0]]
    assert [u32(f()), u32(f()), u32(g.normal([2]))] == want[:3]
    assert g.state.numpy().tolist() == want[3]


def test_global_generator():
    g = tf.random.get_global_generator()
    assert tf.random.get_global_generator() is g
    mine = tf.random.Generator.from_seed(1)
    tf.random.set_global_generator(mine)
    try:
        assert tf.random.get_global_generator().normal([]).numpy() == np.float32(0.43842274)
    finally:
        tf.random.set_global_generator(g)
    a, b = tf.random.Generator.from_non_deterministic_state(), tf.random.Generator.from_non_deterministic_state()
    assert a.state.numpy().tolist() != b.state.numpy().tolist()


def test_stateful_ops_under_seeds():
    tf.random.set_seed(5)
    assert [u32(tf.random.uniform([3], seed=7)), u32(tf.random.uniform([5], seed=7))] == [[1055201784, 1058990574, 1048880316], [1061672554, 1055416708, 1046876664, 1043738456, 1051427056]]
    assert u32(tf.random.normal([4], seed=7, mean=2., stddev=3.)) == [3206420928, 3208827192, 1087754698, 1055399936]
    assert u32(tf.random.truncated_normal([5], seed=8)) == [3212117544, 3188250517, 1070189794, 3188724040, 1060910163]
    assert tf.random.uniform([5], seed=7, minval=-4, maxval=100, dtype=tf.int32).numpy().tolist() == [18, 3, 75, 56, 83]
    assert tf.random.uniform([3], seed=7, dtype=tf.float64).numpy().tolist() == [0.5797102984427605, 0.07255541961785372, 0.6443857207582466]
    assert [tf.random.shuffle(tf.range(11), seed=7).numpy().tolist() for _ in range(2)] == [[10, 6, 3, 7, 9, 5, 4, 1, 2, 8, 0], [7, 3, 1, 5, 10, 2, 9, 6, 8, 0, 4]]
    logits = [[0.5, 1.0, -2.0], [0., 0., 0.]]
    assert [tf.random.categorical(logits, 5, seed=7).numpy().tolist() for _ in range(2)] == [[[1, 0, 1, 0, 0], [2, 0, 1, 2, 0]], [[0, 0, 0, 0, 1], [1, 0, 2, 0, 1]]]
    assert tf.nn.dropout(tf.ones([3, 4]), 0.5, seed=9).numpy().tolist() == [[2.0, 0.0, 0.0, 2.0], [2.0, 2.0, 0.0, 2.0], [0.0, 0.0, 0.0, 2.0]]


def test_global_seed_alone_eagerly_and_in_a_function():
    tf.random.set_seed(3)
    assert [u32(tf.random.uniform([3])), u32(tf.random.normal([3]))] == [[1040768768, 1058102994, 1056841520], [1070942667, 1060407250, 1072611146]]
    tf.random.set_seed(3)
    fn = tf.function(lambda: (tf.random.normal([3]), tf.random.uniform([2], 0, 5), tf.random.uniform([2], seed=4)))
    assert [[u32(t) for t in fn()], [u32(t) for t in fn()]] == [[[3220090644, 1062042149, 3202542940], [1081670508, 1075949884], [1064073730, 1052616976]], [[1007151023, 1066648581, 1070665057], [1077902946, 1078804218], [1061632906, 1046888576]]]


def test_keras_initializers_with_a_seed():
    init = tf.keras.initializers
    assert u32(init.GlorotUniform(seed=5)([3, 2])) == [[3212164624, 1060767174], [1065668254, 3199084044], [1018873472, 3198174554]]
    assert u32(init.GlorotNormal(seed=5)([3, 2])) == [[1062547112, 1041044213], [3183417912, 1059515214], [1063974378, 3208743779]]
    assert u32(init.HeNormal(seed=11)([2, 2, 3, 4])) == [[[[1048870932, 1023502150, 3172980172, 1041516083], [3198128442, 3207225939, 1060433949, 1062693799], [3178803702, 3189665291, 3205709437, 3198280382]], [[3199325219, 1042922791, 1027003485, 1063582891], [1006080391, 3169501823, 1046921763, 1043486524], [1019037064, 3205556566, 1057396656, 1000267126]]], [[[3192042471, 1061132047, 3201268742, 3202929945], [1032049836, 3188427852, 3189398402, 1052533432], [1039386371, 1056469688, 3191952449, 3204558265]], [[1049512946, 1044428152, 3183666555, 1001145965], [1058267954, 3182868739, 1056738715, 3187453672], [1022539184, 1041970167, 1032183959, 3209823573]]]]
    assert u32(init.RandomNormal(mean=1.0, stddev=0.5, seed=3)([4])) == [1059719554, 1072383081, 1057432311, 1067903097]
    assert u32(init.RandomUniform(seed=3)([4])) == [3170442163, 1026815153, 995329232, 1024176327]
    assert u32(init.TruncatedNormal(seed=3)([4])) == [3171519075, 1034657960, 3175178664, 1022952197]


def test_keras_set_random_seed_gives_tensorflows_model_weights():
    tf.keras.backend.clear_session()
    tf.keras.utils.set_random_seed(1)
    m = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(2,)), tf.keras.layers.Dense(2)])
    assert [u32(w) for w in m.weights] == [[[3204918101, 1061898476, 1064690308], [3199195228, 3213059268, 3210382388]], [0, 0, 0], [[1045216704, 3193643156], [1060008750, 1041124840], [3201031930, 1020776768]], [0, 0]]


def test_unseeded_initializer_keeps_its_seed_and_warns_on_reuse():
    init = tf.keras.initializers.GlorotUniform()
    a = init([3, 3]).numpy()
    with pytest.warns(UserWarning, match="is unseeded and being called multiple times"):
        b = init([3, 3]).numpy()
    np.testing.assert_array_equal(a, b)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        init2 = tf.keras.initializers.GlorotUniform(seed=1)
        init2([2]), init2([2])  # seeded: no warning


def test_generator_draws_from_threads_are_disjoint():
    import threading
    g = tf.random.Generator.from_seed(3)
    out = []

    def work():
        for _ in range(50):
            out.append(g.uniform_full_int([1], dtype=tf.int64).numpy()[0])
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(out)) == 200 and g.state.numpy().tolist() == [3 + 200 * 256, 0, 0]
