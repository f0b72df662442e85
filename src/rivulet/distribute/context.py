"""Which strategy is current and whether code runs in a replica or in cross-replica context.

Per thread, like TensorFlow: `strategy.scope()` enters cross-replica context; `strategy.run` runs each
replica's function in a thread of its own whose context is (strategy, ReplicaContext(i)). Outside any scope
the default strategy (one replica) and its replica context are current.
"""
import threading


class _Stack(threading.local):
    def __init__(self):
        self.entries = []  # (strategy, replica context or None for cross-replica), innermost last


_stack = _Stack()


def push(strategy, replica_context):
    _stack.entries.append((strategy, replica_context))


def pop():
    _stack.entries.pop()


def entries():
    return list(_stack.entries)


def set_entries(entries):
    _stack.entries = list(entries)


def _top():
    from .strategy import default_strategy
    if _stack.entries:
        return _stack.entries[-1]
    s = default_strategy()
    return s, s._default_replica_context


def get_strategy():
    """tf.distribute.get_strategy: the current strategy (the default one outside every scope)."""
    return _top()[0]


def has_strategy():
    """tf.distribute.has_strategy: True inside a non-default strategy's scope or replica function."""
    return bool(_stack.entries)


def get_replica_context():
    """tf.distribute.get_replica_context: the ReplicaContext in replica context, None in cross-replica
    context (inside `strategy.scope()` but outside `strategy.run`)."""
    return _top()[1]


def in_cross_replica_context():
    return _top()[1] is None


def multi_replica_context():
    """The current ReplicaContext when it belongs to a strategy of more than one replica, else None: the
    check Keras' optimizers and losses make before synchronising."""
    if not _stack.entries:
        return None
    strategy, rc = _stack.entries[-1]
    if rc is None or strategy.num_replicas_in_sync == 1:
        return None
    return rc


from ..ops.random_ops import register_replica_context as _register  # noqa: E402  (tf.random.Generator's replicas)
_register(lambda: _stack.entries[-1] if _stack.entries else None)
