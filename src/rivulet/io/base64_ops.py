"""tf.io.encode_base64 / decode_base64: web-safe base64 ('-' and '_' for '+' and '/'), as TensorFlow's
EncodeBase64/DecodeBase64 ops: elementwise over a string tensor of any shape, padding optional on the way out and
accepted on the way in only as whole groups; anything else is InvalidArgumentError, never decoded around."""
import base64

import numpy as np

from .. import dtypes as _dt
from ..core.dispatch import bind
from ..core.op import defop
from ..core.tensor import convert_to_tensor
from ..errors import InvalidArgumentError

_STR = frozenset([_dt.string])
_ALPHABET = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def _map(x, fn):
    a = np.asarray(x, dtype=object)
    out = np.empty(a.shape, dtype=object)
    flat = out.reshape(-1)
    for i, v in enumerate(a.reshape(-1)):
        flat[i] = fn(bytes(v))
    return out


def _encode(s, pad):
    e = base64.urlsafe_b64encode(s)
    return e if pad else e.rstrip(b"=")


def _decode(s):
    if len(s) % 4 == 0 and s.endswith(b"="):  # padding: a whole group's, one or two '='
        s = s[:-2] if s.endswith(b"==") else s[:-1]
    if len(s) % 4 == 1:
        raise InvalidArgumentError("Base64 string length cannot be 1 modulo 4.")
    if not _ALPHABET.issuperset(s):
        raise InvalidArgumentError("Invalid character found in base64.")
    return base64.urlsafe_b64decode(s + b"=" * (-len(s) % 4))


def _same(x, **attrs):
    return x.shape, _dt.string


ENCODE_BASE64 = defop("EncodeBase64", lambda x, pad=False: _map(x, lambda s: _encode(s, pad)), _same, allowed=_STR)
DECODE_BASE64 = defop("DecodeBase64", lambda x: _map(x, _decode), _same, allowed=_STR)


def encode_base64(input, pad=False, name=None):
    """tf.io.encode_base64: each string as web-safe base64, '=' padding only with pad=True."""
    return bind(ENCODE_BASE64, [convert_to_tensor(input, dtype=_dt.string) if not hasattr(input, "dtype")
                                else input], {"pad": bool(pad)}, name=name)


def decode_base64(input, name=None):
    """tf.io.decode_base64: each web-safe base64 string decoded (with or without its padding)."""
    return bind(DECODE_BASE64, [convert_to_tensor(input, dtype=_dt.string) if not hasattr(input, "dtype")
                                else input], name=name)
