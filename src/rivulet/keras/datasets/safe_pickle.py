"""A pickle reader for data only: the CIFAR batches and the object arrays inside imdb.npz / reuters.npz are pickles,
and unpickling runs whatever callable the file names. This reader interprets the binary opcodes itself and builds
only dicts, lists, tuples, numbers, strings, bytes and NumPy arrays of plain dtypes. The handful of globals that
NumPy's own array pickles name are recognised as markers, never imported or called, and any other global, opcode
or shape is refused with a ValueError."""
import math
import struct

import numpy as np

_NUMERIC = {"b1", "i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "f2", "f4", "f8"}
_RECONSTRUCT = {("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct")}
_SCALAR = {("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar")}
_FROMBUFFER = {("numpy.core.numeric", "_frombuffer"), ("numpy._core.numeric", "_frombuffer")}
_NDARRAY = ("numpy", "ndarray")
_DTYPE = ("numpy", "dtype")
_ENCODE = {("_codecs", "encode")}  # Python 3 writes bytes as _codecs.encode(text, 'latin1') under protocol 2
_MAX_INT_BYTES = 64
_MAX_DIMS = 32


def _ascii(v):
    if isinstance(v, bytes):
        return v.decode("latin1")
    return v if isinstance(v, str) else None


_INT_OPS = frozenset(b"KMJ")


class _Global:
    __slots__ = ("key",)

    def __init__(self, key):
        self.key = key


class _Stub:
    """An object REDUCE made and BUILD completes. Pickle's BUILD mutates in place, so the memo entries that hold the
    stub (stored between the two) are pointed at the finished object."""

    def __init__(self):
        self.memo_keys = []


class _ArrayStub(_Stub):
    """numpy's _reconstruct(ndarray, (0,), b'b'): an empty array that BUILD fills from its state."""


class _DtypeStub(_Stub):
    def __init__(self, descr):
        super().__init__()
        self.descr = descr


class _Reader:
    def __init__(self, data, what, allow_object):
        self.data, self.pos, self.what, self.allow_object = bytes(data), 0, what, allow_object
        self.stack, self.marks, self.memo = [], [], {}

    def fail(self, detail):
        raise ValueError(f"{self.what}: {detail}")

    def read(self, n):
        if n < 0 or self.pos + n > len(self.data):
            self.fail("the pickle is truncated")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def uint(self, n):
        return int.from_bytes(self.read(n), "little")

    def line(self):
        end = bytes(self.data[self.pos:self.pos + 257]).find(b"\n")
        if end < 0:
            self.fail("a GLOBAL opcode's name is unterminated or too long")
        text = bytes(self.read(end + 1)[:-1])
        if not text.isascii():
            self.fail("a GLOBAL opcode's name is not ASCII")
        return text.decode("ascii")

    def text(self, n):
        try:
            return str(self.read(n), "utf-8", "surrogatepass")
        except UnicodeDecodeError:
            self.fail("a string in the pickle is not valid UTF-8")

    def push(self, v):
        self.stack.append(v)

    def pop(self):
        if not self.stack:
            self.fail("the pickle pops an empty stack")
        return self.stack.pop()

    def pop_mark(self):
        if not self.marks:
            self.fail("the pickle has no MARK where one is needed")
        items, self.stack = self.stack, self.marks.pop()
        return items

    def top(self, *types):
        if not self.stack or not isinstance(self.stack[-1], types):
            self.fail(f"the pickle modifies something that is not a {' or '.join(t.__name__ for t in types)}")
        return self.stack[-1]

    def key(self, k):
        if not isinstance(k, (str, bytes, int)) or isinstance(k, bool):
            self.fail(f"a dict key in the pickle is a {type(k).__name__}, not a string or an integer")
        return k

    # --- globals, REDUCE and BUILD: only NumPy's array and dtype pickles ---

    def reduce(self, func, args):
        if not isinstance(func, _Global) or not isinstance(args, tuple):
            self.fail("the pickle calls something that is not a recognised NumPy constructor")
        key = func.key
        if key in _ENCODE:
            if (len(args) == 2 and isinstance(args[0], str) and args[1] in ("latin1", "latin-1")
                    and all(ord(c) < 256 for c in args[0])):
                return args[0].encode("latin1")
        elif key in _RECONSTRUCT:
            if len(args) == 3 and isinstance(args[0], _Global) and args[0].key == _NDARRAY:
                return _ArrayStub()
        elif key == _DTYPE:
            if len(args) == 3 and isinstance(args[0], (str, bytes)):  # bytes: Python 2's str
                return _DtypeStub(_ascii(args[0]))
        elif key in _SCALAR:  # a NumPy scalar: (dtype, its bytes)
            if (len(args) == 2 and isinstance(args[0], np.dtype) and args[0] != np.dtype(object)
                    and isinstance(args[1], (bytes, bytearray)) and len(args[1]) == args[0].itemsize):
                return np.frombuffer(bytes(args[1]), dtype=args[0])[0]
        elif key in _FROMBUFFER:
            if len(args) == 4 and isinstance(args[0], (bytes, bytearray)) and isinstance(args[1], np.dtype):
                return self.array(args[2], args[1], args[3] == "F", args[0])
        self.fail(f"the pickle calls {key[0]}.{key[1]} with arguments this reader does not accept")

    def build(self, obj, state):
        if isinstance(obj, _DtypeStub):
            return self.dtype(obj.descr, state)
        if isinstance(obj, _ArrayStub) and isinstance(state, tuple) and len(state) in (4, 5):
            shape, dtype, fortran, raw = state[-4:]
            return self.array(shape, dtype, fortran, raw)
        self.fail("the pickle sets the state of something that is not a NumPy array or dtype")

    def dtype(self, descr, state):
        order = _ascii(state[1]) if isinstance(state, tuple) and len(state) >= 2 else None
        if order not in ("<", ">", "|", "="):
            self.fail(f"the dtype {descr!r} in the pickle has an unexpected state")
        if descr == "O8" and self.allow_object:
            return np.dtype(object)
        if descr not in _NUMERIC:
            self.fail(f"the pickle holds an array of dtype {descr!r}; only plain numeric arrays are read")
        return np.dtype(descr if order in ("|", "=") else order + descr)

    def array(self, shape, dtype, fortran, raw):
        if not isinstance(dtype, np.dtype):
            self.fail("an array in the pickle has no valid dtype")
        if (not isinstance(shape, tuple) or len(shape) > _MAX_DIMS
                or not all(isinstance(d, int) and not isinstance(d, bool) and 0 <= d < 2 ** 62 for d in shape)):
            self.fail("an array in the pickle has an invalid shape")
        count = math.prod(shape)
        order = "F" if fortran is True else "C"
        if dtype == np.dtype(object):
            if not isinstance(raw, list) or len(raw) != count:
                self.fail(f"an object array of shape {shape} in the pickle does not hold {count} items")
            out = np.empty(count, dtype=object)
            for i, item in enumerate(raw):  # item by item: NumPy must not turn nested lists into more axes
                out[i] = item
            return out.reshape(shape, order=order)
        if not isinstance(raw, (bytes, bytearray)) or len(raw) != count * dtype.itemsize:
            self.fail(f"an array of shape {shape} and dtype {dtype} in the pickle does not hold "
                      f"{count * dtype.itemsize} bytes of data")
        return np.frombuffer(bytearray(raw), dtype=dtype).reshape(shape, order=order)

    # --- the opcode loop ---

    def ints(self):
        """A run of BININT1/BININT2/BININT opcodes (word lists are mostly that), read without the general loop;
        the last few bytes of the data are left to it, so that nothing here reads past the end."""
        data, pos, push, end = self.data, self.pos, self.stack.append, len(self.data) - 5
        from_bytes = int.from_bytes
        while pos <= end:
            op = data[pos]
            if op == 0x4B:
                push(data[pos + 1])
                pos += 2
            elif op == 0x4D:
                push(data[pos + 1] | data[pos + 2] << 8)
                pos += 3
            elif op == 0x4A:
                push(from_bytes(data[pos + 1:pos + 5], "little", signed=True))
                pos += 5
            else:
                break
        self.pos = pos

    def run(self):
        push = self.push  # not self.stack.append: MARK and the pops of a mark replace self.stack
        while True:
            if self.pos <= len(self.data) - 5 and self.data[self.pos] in _INT_OPS:  # ints() moves on
                self.ints()
                continue
            op = bytes(self.read(1))
            if op == b"\x80":  # PROTO
                if self.uint(1) > 5:
                    self.fail("the pickle uses a protocol newer than 5")
            elif op == b"\x95":  # FRAME: a length hint only
                self.uint(8)
            elif op == b".":  # STOP
                if len(self.stack) != 1 or self.marks:
                    self.fail("the pickle ends with a malformed stack")
                return self.stack[0]
            elif op == b"(":
                self.marks.append(self.stack)
                self.stack = []
            elif op == b"0":
                self.pop()
            elif op == b"1":
                self.pop_mark()
            elif op == b"N":
                push(None)
            elif op == b"\x88":
                push(True)
            elif op == b"\x89":
                push(False)
            elif op == b"J":
                push(int.from_bytes(self.read(4), "little", signed=True))
            elif op == b"K":
                push(self.uint(1))
            elif op == b"M":
                push(self.uint(2))
            elif op in (b"\x8a", b"\x8b"):  # LONG1, LONG4
                n = self.uint(1 if op == b"\x8a" else 4)
                if n > _MAX_INT_BYTES:
                    self.fail("the pickle holds an integer too large for a data file")
                push(int.from_bytes(self.read(n), "little", signed=True))
            elif op == b"G":
                push(struct.unpack(">d", self.read(8))[0])
            elif op in (b"U", b"C"):  # SHORT_BINSTRING (Python 2 str, read as bytes), SHORT_BINBYTES
                push(bytes(self.read(self.uint(1))))
            elif op == b"T":
                n = int.from_bytes(self.read(4), "little", signed=True)
                push(bytes(self.read(n)))
            elif op == b"B":
                push(bytes(self.read(self.uint(4))))
            elif op == b"\x8e":
                push(bytes(self.read(self.uint(8))))
            elif op == b"\x96":
                push(bytearray(self.read(self.uint(8))))
            elif op == b"\x8c":
                push(self.text(self.uint(1)))
            elif op == b"X":
                push(self.text(self.uint(4)))
            elif op == b"\x8d":
                push(self.text(self.uint(8)))
            elif op == b"}":
                push({})
            elif op == b"]":
                push([])
            elif op == b")":
                push(())
            elif op == b"t":
                push(tuple(self.pop_mark()))
            elif op in (b"\x85", b"\x86", b"\x87"):
                n = op[0] - 0x84
                if len(self.stack) < n:
                    self.fail("the pickle pops an empty stack")
                items = tuple(self.stack[-n:])
                del self.stack[-n:]
                push(items)
            elif op == b"l":
                push(self.pop_mark())
            elif op == b"d":
                items = self.pop_mark()
                if len(items) % 2:
                    self.fail("a DICT opcode has an odd number of items")
                push({self.key(k): v for k, v in zip(items[::2], items[1::2])})
            elif op == b"a":
                v = self.pop()
                self.top(list).append(v)
            elif op == b"e":
                items = self.pop_mark()
                self.top(list).extend(items)
            elif op == b"s":
                v, k = self.pop(), self.pop()
                self.top(dict)[self.key(k)] = v
            elif op == b"u":
                items = self.pop_mark()
                if len(items) % 2:
                    self.fail("a SETITEMS opcode has an odd number of items")
                d = self.top(dict)
                for k, v in zip(items[::2], items[1::2]):
                    d[self.key(k)] = v
            elif op in (b"q", b"r", b"\x94"):  # BINPUT, LONG_BINPUT, MEMOIZE
                if not self.stack:
                    self.fail("the pickle memoizes an empty stack")
                idx = len(self.memo) if op == b"\x94" else self.uint(1 if op == b"q" else 4)
                self.memo[idx] = self.stack[-1]
                if isinstance(self.stack[-1], _Stub):
                    self.stack[-1].memo_keys.append(idx)
            elif op in (b"h", b"j"):
                idx = self.uint(1 if op == b"h" else 4)
                if idx not in self.memo:
                    self.fail(f"the pickle refers to memo entry {idx}, which it never stored")
                push(self.memo[idx])
            elif op == b"c":
                module = self.line()
                push(_Global((module, self.line())))
            elif op == b"\x93":
                name, module = self.pop(), self.pop()
                if not isinstance(name, str) or not isinstance(module, str):
                    self.fail("a STACK_GLOBAL opcode's names are not strings")
                push(_Global((module, name)))
            elif op == b"R":
                args, func = self.pop(), self.pop()
                push(self.reduce(func, args))
            elif op == b"b":
                state, obj = self.pop(), self.pop()
                done = self.build(obj, state)
                for idx in obj.memo_keys:
                    if self.memo.get(idx) is obj:
                        self.memo[idx] = done
                push(done)
            else:
                self.fail(f"the pickle uses opcode {op!r} at byte {self.pos - 1}, which a data-only reader "
                          "does not accept")


def read_limited(f, limit, what):
    """f's remaining bytes, refusing more than `limit`, in chunks (read(limit) would reserve `limit` up front)."""
    chunks, total = [], 0
    while True:
        chunk = f.read(1 << 20)
        if not chunk:
            return b"".join(chunks)
        total += len(chunk)
        if total > limit:
            raise ValueError(f"{what}: larger than {limit} bytes.")
        chunks.append(chunk)


def loads(data, what="pickle", allow_object=False):
    """Reads a pickle of plain data and NumPy arrays; `what` names the source in error messages. Object arrays
    (of lists, as imdb.npz holds) only with `allow_object`."""
    return _Reader(data, what, allow_object).run()
