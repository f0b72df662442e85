"""tf.random.Generator under tf.distribute: a generator made in a strategy's scope (or in strategy.run) has a
mirrored state, so every replica starts from the same counter and the state advances once per draw; each
replica draws with the key hashed with its replica id (replica 0 too, and with one replica). Values recorded
from TensorFlow 2.21 (tensorflow-cpu, two logical CPUs), eagerly and with strategy.run inside tf.function."""
import numpy as np
import pytest

import rivulet as tf

CPUS = ["/cpu:0", "/cpu:1"]

# replica 0 then replica 1, from Generator.from_seed(1) made under strategy.scope()
NORMAL = [[-0.8793044686317444, 1.468078851699829], [0.020661573857069016, 1.9473345279693604]]
UNIFORM = [[0.8676568269729614, 0.6973698139190674], [0.9606653451919556, 0.42715609073638916]]
FULL_INT = [[-6806561485574601818, -1967259665744454942], [4597341404097351072, 2565400375874236760]]
TRUNC = [[0.3297092616558075, -0.7461025714874268], [0.31959789991378784, -0.5985143184661865]]
SEEDS = [[[889985882850871325, -1940335470930423451], [0, 0]],
         [[1335627257418472962, -815917123810009433], [0, 0]]]
INT = [[59, 16], [77, 35]]
AGAIN = [[-0.37464046478271484, 0.5768615007400513], [0.23538778722286224, -1.2278598546981812]]
AFTER = [-0.30787286162376404, -0.6881572008132935]  # drawn in cross-replica context after two runs


def _local(strategy, r):
    return [x.numpy().tolist() for x in strategy.experimental_local_results(r)]


def _draws(g, split):
    a = g.normal([2])
    b = g.uniform([2])
    c = g.uniform_full_int([2], dtype=tf.int64)
    d = g.truncated_normal([2])
    e = g.make_seeds(2)
    if split:
        h = [x.normal([1]) for x in g.split(2)]
    else:
        h = [g.normal([1]), g.normal([1])]
    i = g.uniform([2], maxval=100, dtype=tf.int32)
    return a, b, c, d, e, h[0], h[1], i


def _strategy(n):
    if n == "one_device":
        return tf.distribute.OneDeviceStrategy("/cpu:0"), 1
    return tf.distribute.MirroredStrategy(CPUS[:n]), n


@pytest.mark.parametrize("n", [2, 1, "one_device"])
@pytest.mark.parametrize("in_function", [False, True])
def test_replicas_share_the_counter_and_hash_the_key(n, in_function):
    strategy, n = _strategy(n)
    with strategy.scope():
        g = tf.random.Generator.from_seed(1)
    fn = lambda: strategy.run(lambda: _draws(g, split=not in_function))  # noqa: E731
    run = tf.function(fn, autograph=False) if in_function else fn
    r = run()
    got = [_local(strategy, x) for x in r]
    assert got[0] == NORMAL[:n] and got[1] == UNIFORM[:n] and got[3] == TRUNC[:n]
    assert got[2] == FULL_INT[:n] and got[4] == SEEDS[:n] and got[7] == INT[:n]
    if in_function:  # two more normal([1]) draws
        split0, split1 = [[0.7339197397232056], [0.29965299367904663]], [[0.30450165271759033], [-0.3468323051929474]]
    else:  # split(2), then each new generator's normal([1]) (the new generators are the strategy's too)
        split0, split1 = [[0.1383771002292633], [-2.1967008113861084]], [[2.099665641784668], [0.04935915023088455]]
    assert got[5] == split0[:n] and got[6] == split1[:n]
    assert g.state.numpy().tolist() == [3585, 0, 0]  # advanced once per draw: 256 * 14 calls
    assert _local(strategy, run()[0]) == AGAIN[:n]
    assert g.state.numpy().tolist() == [7169, 0, 0]
    assert g.normal([2]).numpy().tolist() == AFTER  # cross-replica context: the plain draw
    assert g.state.numpy().tolist() == [7681, 0, 0]


def test_generator_made_in_a_replica():
    strategy = tf.distribute.MirroredStrategy(CPUS)

    def f():
        gg = tf.random.Generator.from_seed(5)
        return gg.normal([2]), gg.state.read_value()
    values, states = strategy.run(f)
    assert _local(strategy, values) == [[0.19725969433784485, -0.3631729781627655],
                                        [-1.3070067167282104, -0.29497432708740234]]
    assert _local(strategy, states) == [[517, 0, 0], [517, 0, 0]]
    state = strategy.run(lambda: tf.random.Generator.from_seed(5).state)  # the variable itself: one per replica
    assert [v.name for v in strategy.experimental_local_results(state)] == ["StateVar:0", "StateVar/replica_1:0"]
    assert _local(strategy, state) == [[5, 0, 0], [5, 0, 0]]


def test_cross_replica_and_plain_generators():
    strategy = tf.distribute.MirroredStrategy(CPUS)
    plain = tf.random.Generator.from_seed(1)  # not the strategy's: each replica advances the one state
    assert _local(strategy, strategy.run(lambda: plain.normal([2]))) == [
        [0.4384227395057678, -0.5343984365463257], [1.6307176351547241, 0.007847783155739307]]
    assert plain.state.numpy().tolist() == [1025, 0, 0]
    with strategy.scope():
        g = tf.random.Generator.from_seed(1)
        assert g.normal([2]).numpy().tolist() == [0.4384227395057678, -0.5343984365463257]  # not hashed
        assert g.state.numpy().tolist() == [513, 0, 0]
    other = tf.distribute.MirroredStrategy(["/cpu:0"])
    with pytest.raises(RuntimeError, match="Mixing different tf.distribute.Strategy objects"):
        other.run(lambda: g.normal([2]))


@pytest.mark.parametrize("in_function", [False, True])
def test_draws_around_a_merge(in_function):
    strategy = tf.distribute.MirroredStrategy(CPUS)
    with strategy.scope():
        g = tf.random.Generator.from_seed(7)

    def h():
        a = g.normal([2])
        total = tf.distribute.get_replica_context().all_reduce("sum", a)
        return a, total, g.normal([1])
    fn = lambda: strategy.run(h)  # noqa: E731
    run = tf.function(fn, autograph=False) if in_function else fn
    a, total, b = [_local(strategy, x) for x in run()]
    assert a == [[1.03587806224823, 1.7041481733322144], [-0.4795108437538147, -0.398133248090744]]
    np.testing.assert_allclose(total, [[0.5563672184944153, 1.306014895439148]] * 2, rtol=1e-6)
    assert b == [[-0.0010462639620527625], [0.658079206943512]]
    assert g.state.numpy().tolist() == [775, 0, 0]


def test_dynamic_shape_inside_function():
    strategy = tf.distribute.MirroredStrategy(CPUS)
    with strategy.scope():
        g = tf.random.Generator.from_seed(1)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.int32)], autograph=False)
    def run(shape):
        return strategy.run(lambda: g.normal(shape))
    assert _local(strategy, run(tf.constant([2]))) == NORMAL
    assert g.state.numpy().tolist() == [513, 0, 0]


@pytest.mark.parametrize("in_function", [False, True])
def test_skip_in_replicas_and_copies(in_function):
    strategy = tf.distribute.MirroredStrategy(CPUS)
    with strategy.scope():
        g = tf.random.Generator.from_seed(3)

    def f():
        g.skip(3)  # each replica's counter, once
        return g.uniform([2], dtype=tf.float64)
    fn = lambda: strategy.run(f)  # noqa: E731
    run = tf.function(fn, autograph=False) if in_function else fn
    assert _local(strategy, run()) == [[0.004532380579020279, 0.9133685957873945],
                                       [0.03262511032043158, 0.19780551878714148]]
    assert g.state.numpy().tolist() == [1283, 0, 0]
    with strategy.scope():
        g.skip(2)
        copy = tf.random.Generator(copy_from=g)
    assert g.state.numpy().tolist() == [1795, 0, 0]
    assert _local(strategy, run()) == [[0.08904302869322955, 0.355474631497801],
                                       [0.5387065584996462, 0.6378081090448535]]
    assert _local(strategy, strategy.run(lambda: copy.normal([1]))) == [[-1.1363353729248047], [2.190716505050659]]
    assert copy.state.numpy().tolist() == [2051, 0, 0]


# Replicas drawing different amounts in one run (replica 1 a longer shape; replica 0 alone in a tf.cond branch):
# each replica's copy of the state advances by its own draws only, so the copies drift apart and stay apart in
# later runs; a cross-replica draw advances every copy. Values from TF 2.21, the same eagerly, with
# strategy.run inside tf.function and with strategy.run(tf.function(fn)).
DRIFT = [  # (values replica 0, values replica 1, state after the run)
    ([-0.8793044686317444, 1.468078851699829], [0.020661573857069016, 1.9473345279693604, -1.693806767463684], 513),
    ([-0.5039703249931335, -0.1730082631111145], [-1.4009829759597778, 0.6224623322486877], 1025),
    ([0.16718746721744537, 0.304257869720459], [0.0, 0.0], 1537),
    ([0.3297092616558075, -0.7461025714874268], [-0.30880358815193176, 0.42458269000053406], 2049)]


@pytest.mark.parametrize("mode", ["eager", "in_function", "function_run"])
def test_replicas_drawing_different_amounts_drift_apart(mode):
    strategy = tf.distribute.MirroredStrategy(CPUS)
    with strategy.scope():
        g = tf.random.Generator.from_seed(1)

    def rid():
        return tf.distribute.get_replica_context().replica_id_in_sync_group

    def shapes():
        return g.normal(tf.stack([2 + rid()]))

    def same():
        return g.normal([2])

    def only_replica_0():
        return tf.cond(tf.equal(rid(), 0), lambda: g.normal([2]), lambda: tf.zeros([2]))

    def run(f):
        if mode == "eager":
            return strategy.run(f)
        if mode == "in_function":
            return tf.function(lambda: strategy.run(f))()
        return strategy.run(tf.function(f))
    for f, (v0, v1, state) in zip([shapes, same, only_replica_0, same], DRIFT):
        assert _local(strategy, run(f)) == [v0, v1]
        assert g.state.numpy().tolist() == [state, 0, 0]
    assert _local(strategy, g.state) == [[2049, 0, 0], [1793, 0, 0]]  # each replica's copy
    assert g.normal([1]).numpy().tolist() == [0.9560716152191162]  # cross-replica: every copy advances
    assert _local(strategy, strategy.run(same)) == [[0.3115498721599579, -0.7102406024932861],
                                                    [0.4980259835720062, 1.0395907163619995]]
    g.reset_from_seed(1)  # every copy
    assert _local(strategy, strategy.run(same)) == NORMAL


def test_tf_function_each_replica_calls():
    """strategy.run(lambda: f(x)) with f a tf.function: traced per replica, as TensorFlow's (its function cache
    keys on the device), so each replica draws with its own id and copy of the state (replica 1 ran replica 0's
    trace). Tracing counts and values from TF 2.21."""
    strategy = tf.distribute.MirroredStrategy(CPUS)
    with strategy.scope():
        g = tf.random.Generator.from_seed(1)

    @tf.function
    def f(x):
        return g.normal([2]) + x
    assert _local(strategy, strategy.run(lambda: f(1.0))) == [[0.12069553136825562, 2.468078851699829],
                                                               [1.0206615924835205, 2.9473345279693604]]
    assert (g.state.numpy().tolist(), f.experimental_get_tracing_count()) == ([513, 0, 0], 2)
    want = [[[0.49602967500686646, 0.8269917368888855], [1.1251838207244873, 0.7458595633506775]],
            [[1.1671874523162842, 1.304257869720459], [0.6429815292358398, 0.520473062992096]]]
    for values, state in zip(want, [1025, 1537]):
        assert _local(strategy, strategy.run(lambda: f(tf.constant(1.0)))) == values
        assert g.state.numpy().tolist() == [state, 0, 0]
    assert f.experimental_get_tracing_count() == 4
    assert f(tf.constant(0.0)).numpy().tolist() == [-0.44956639409065247, 1.6220768690109253]  # cross-replica
    assert f.experimental_get_tracing_count() == 5


def test_local_results_of_mirrored_variables():
    """A variable made for a strategy of two replicas (in its scope or in strategy.run) is TensorFlow's
    MirroredVariable: experimental_local_results gives a copy per replica, named and placed as TF 2.21's."""
    strategy = tf.distribute.MirroredStrategy(CPUS)
    with strategy.scope():
        w = tf.Variable([1.0, 2.0], name="w")
    copies = strategy.experimental_local_results(strategy.run(lambda: w))
    assert [c.name for c in copies] == ["w:0", "w/replica_1:0"]
    assert [c.device for c in copies] == ["/job:localhost/replica:0/task:0/device:CPU:0",
                                          "/job:localhost/replica:0/task:0/device:CPU:1"]
    assert repr(copies[1]) == ("<tf.Variable 'w/replica_1:0' shape=(2,) dtype=float32, "
                               "numpy=array([1., 2.], dtype=float32)>")
    w.assign([3.0, 4.0])
    assert _local(strategy, w) == [[3.0, 4.0], [3.0, 4.0]]
    assert (tf.constant(1.0) + copies[1]).numpy().tolist() == [4.0, 5.0]
    with pytest.raises(NotImplementedError, match="replicas share one variable"):
        copies[1].assign([5.0, 6.0])  # (TensorFlow would update that copy alone)

    def made_in_run():
        return tf.Variable(3.0)
    assert [c.name for c in strategy.experimental_local_results(strategy.run(made_in_run))] == [
        "Variable:0", "Variable/replica_1:0"]
    assert len(strategy.experimental_local_results(tf.Variable(1.0))) == 1  # made outside the strategy
    one = tf.distribute.MirroredStrategy(CPUS[:1])
    with one.scope():
        assert len(one.experimental_local_results(tf.Variable(1.0))) == 1


@pytest.mark.parametrize("kind", ["mirrored", "one_device"])
def test_one_replica_run_of_a_traced_function(kind):
    """TF 2.21: a one-replica MirroredStrategy's run(tf_function) traces the function's Python in replica
    context (the draw is hashed with replica id 0); OneDeviceStrategy, and a tf.function the replica's Python
    calls, reuse the trace made outside (the plain draw). The function's own tracing count stays 1."""
    strategy = tf.distribute.MirroredStrategy(CPUS[:1]) if kind == "mirrored" else tf.distribute.OneDeviceStrategy(
        "/cpu:0")
    with strategy.scope():
        g = tf.random.Generator.from_seed(1)

    @tf.function
    def f():
        return g.normal([2])
    assert f().numpy().tolist() == [0.4384227395057678, -0.5343984365463257]
    assert strategy.run(lambda: f()).numpy().tolist() == [1.6307176351547241, 0.007847783155739307]
    want = [0.16718746721744537, 0.304257869720459] if kind == "mirrored" else [-0.7925308346748352,
                                                                                0.37646856904029846]
    assert strategy.run(f).numpy().tolist() == want
    assert (f.experimental_get_tracing_count(), g.state.numpy().tolist()) == (1, [1537, 0, 0])


def test_restore_and_assign_set_every_copy(tmp_path):
    """As on TF 2.21's mirrored state: restoring a checkpoint, or assigning the state in cross-replica
    context, sets every replica's copy (copies that had drifted apart meet again); in a replica it is refused."""
    strategy = tf.distribute.MirroredStrategy(CPUS)
    with strategy.scope():
        g = tf.random.Generator.from_seed(1)

    def shapes():
        return g.normal(tf.stack([2 + tf.distribute.get_replica_context().replica_id_in_sync_group]))
    strategy.run(shapes)
    ckpt = tf.train.Checkpoint(g=g)
    path = ckpt.write(str(tmp_path / "ck"))
    strategy.run(shapes)
    assert _local(strategy, g.state) == [[1025, 0, 0], [1537, 0, 0]]
    ckpt.read(path)
    assert _local(strategy, g.state) == [[513, 0, 0], [513, 0, 0]]
    assert _local(strategy, strategy.run(lambda: g.normal([1]))) == [[-0.5039703249931335], [0.1251838058233261]]
    strategy.run(shapes)
    g.state.assign([7, 0, 0])
    assert _local(strategy, g.state) == [[7, 0, 0], [7, 0, 0]]
    assert type(g.state).__name__ == "MirroredVariable"  # (TF 2.21 too)
    with pytest.raises(NotImplementedError, match="inside a replica"):
        strategy.run(lambda: g.state.assign([1, 0, 0]))


def test_draws_in_a_while_loop_of_replica_dependent_length():
    """Replica r draws r + 1 times in a tf.while_loop: each copy of the state advances by its own draws, in a
    compiled step and eagerly (TF 2.21's values)."""
    strategy = tf.distribute.MirroredStrategy(CPUS)
    with strategy.scope():
        g = tf.random.Generator.from_seed(3)

    def f():
        n = tf.distribute.get_replica_context().replica_id_in_sync_group + 1
        return tf.while_loop(lambda i, acc: i < n, lambda i, acc: (i + 1, acc + g.uniform([2])),
                             (tf.constant(0), tf.zeros([2])))[1]
    step = tf.function(lambda: strategy.run(f))
    want = [([[0.2942095994949341, 0.08704996109008789], [1.2413309812545776, 0.9108350276947021]], 515, 1027),
            ([[0.9806836843490601, 0.04300892353057861], [0.9439970254898071, 0.706545352935791]], 1027, 2051),
            ([[0.9440138339996338, 0.6162203550338745], [1.0200881958007812, 0.7878232002258301]], 1539, 3075)]
    for run, (values, s0, s1) in zip([step, step, lambda: strategy.run(f)], want):
        assert _local(strategy, run()) == values
        assert _local(strategy, g.state) == [[s0, 0, 0], [s1, 0, 0]]
