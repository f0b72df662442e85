"""parse_example's fast path: the features a spec asks for, read straight from the serialized Examples.

Each record is walked once at the byte level (Example.features -> its map entries -> the wanted keys'
Feature -> the list's packed payload or bytes values) without building message objects, and each feature's
values are decoded for the whole batch at once (every packed int64 payload joined into one
`decode_varints`, every float payload into one `frombuffer`). Records repeat their layouts: a layout (a
reference record's spans and the bytes outside its wanted values) is kept per record length, and a record
whose bytes there are the reference's has its spans without a walk (_one_layout for parse_single_example,
_layout for a batch); where every wanted list has the usual form, a batch of a few lengths is cut by column
(_grouped). Anything out of the ordinary (a wire form other than what protobuf writes, a record it cannot
read, a feature missing or of the wrong size or type) returns None and parsing.py's general path decides,
with its errors; what this returns is exactly what the general path returns.
"""
import sys

import numpy as np

from .. import dtypes as _dt
from ..formats.wire import decode_varints, decode_varints_ending, read_varint

_KIND = {_dt.int64: 0x1A, _dt.float32: 0x12, _dt.string: 0x0A}  # the Feature field holding each dtype's list
_LIST_TAGS = frozenset(_KIND.values())


class _Bail(Exception):
    pass


def _bail(kind, detail=None):  # wire.read_varint's failure: leave the fast path
    return _Bail()


def _varint(buf, pos, end):
    """(value, next position) of a varint of up to 5 bytes (a length within a record); longer: _Bail."""
    result = shift = 0
    while pos < end and shift < 35:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7
    raise _Bail


def _entries(buf, wanted, found):
    """Fills found[slot] = (tag, start, end) of each wanted key's Feature list in one serialized Example.
    Lengths of one and two bytes are read inline (longer ones by _varint); an index past the record is an
    IndexError, which the callers treat as _Bail."""
    n = len(buf)
    if not n:
        return
    if buf[0] != 0x0A:
        raise _Bail
    b = buf[1]
    if b < 0x80:
        pos, ln = 2, b
    else:
        ln, pos = _varint(buf, 1, n)
    if pos + ln != n:  # one features field, filling the record (anything else: the general path)
        raise _Bail
    while pos < n:
        if buf[pos] != 0x0A:  # a map entry
            raise _Bail
        b = buf[pos + 1]
        if b < 0x80:
            pos += 2
            e_end = pos + b
        else:
            c = buf[pos + 2]
            if c < 0x80:
                pos += 3
                e_end = pos + (b & 0x7F | c << 7)
            else:
                ln, pos = _varint(buf, pos + 1, n)
                e_end = pos + ln
        if e_end > n or buf[pos] != 0x0A:
            raise _Bail
        kl = buf[pos + 1]
        if kl < 0x80:
            p = pos + 2
        else:
            kl, p = _varint(buf, pos + 1, e_end)
        k_end = p + kl
        # every entry is framed as TensorFlow checks it: key, then the Feature filling the entry (its
        # contents are read only for the keys asked for)
        if k_end + 2 > e_end or buf[k_end] != 0x12:
            raise _Bail
        b = buf[k_end + 1]
        if b < 0x80:
            q, fl = k_end + 2, b
        else:
            fl, q = _varint(buf, k_end + 1, e_end)
        if q + fl != e_end:
            raise _Bail
        pos = e_end
        slot = wanted.get(buf[p:k_end])
        if slot is None:
            continue
        p = q
        if fl == 0:  # a Feature with no list: no values, unless an earlier entry of the key has them
            if found[slot] is None:  # (TensorFlow's parser skips an empty Feature of a key seen twice)
                found[slot] = (0, p, p)
        else:
            tag = buf[p]
            if tag not in _LIST_TAGS:  # (TensorFlow: "Unsupported datatype.", even where a later entry of the
                raise _Bail              # key wins; a key byte of 0 is no 'Feature with no list')
            b = buf[p + 1] if p + 1 < e_end else 0x80
            if b < 0x80:
                p += 2
                ll = b
            else:
                ll, p = _varint(buf, p + 1, e_end)
            if p + ll != e_end:
                raise _Bail
            found[slot] = (tag, p, e_end)


_FEW = 32  # bytes of packed int64s decoded in Python


def _packed(buf, start, end):
    """(payload start, end) of a numeric list's one packed field; an empty list is (start, start)."""
    if start == end:
        return start, start
    if buf[start] != 0x0A:
        raise _Bail
    ln = buf[start + 1] if start + 1 < end else 0x80
    p = start + 2
    if ln >= 0x80:
        ln, p = _varint(buf, start + 1, end)
    if p + ln != end:
        raise _Bail
    return p, end


def _bytes_values(buf, start, end):
    out = []
    while start < end:
        if buf[start] != 0x0A:
            raise _Bail
        ln = buf[start + 1] if start + 1 < end else 0x80
        start += 2
        if ln >= 0x80:
            ln, start = _varint(buf, start - 1, end)
        if start + ln > end:
            raise _Bail
        out.append(buf[start:start + ln])
        start += ln
    return out


def _numeric(records, spans, dt):
    """(values of every record joined, per-record counts as a list) of a numeric feature."""
    parts, lengths = [], []
    part, length = parts.append, lengths.append
    want = _KIND[dt]
    for buf, (tag, start, end) in zip(records, spans):
        if tag == want and start < end and buf[start] == 0x0A:  # the usual: one packed field, a short length
            ln = buf[start + 1]
            if ln < 0x80 and start + 2 + ln == end:
                part(buf[start + 2:end])
                length(ln)
                continue
        if start == end:
            if tag and tag != want:
                raise _Bail
            parts.append(b"")
            lengths.append(0)
            continue
        if tag != want or buf[start] != 0x0A:
            raise _Bail
        ln = buf[start + 1]
        if ln < 0x80:
            p = start + 2
        else:
            ln, p = _varint(buf, start + 1, end)
        if p + ln != end:
            raise _Bail
        parts.append(buf[p:end])
        lengths.append(ln)
    joined = parts[0] if len(parts) == 1 else b"".join(parts)
    if dt is _dt.float32:
        counts = [ln >> 2 for ln in lengths]
        if 4 * sum(counts) != len(joined):  # a payload not whole floats (sum(ln & 3) == 0: each is 0)
            raise _Bail
        return np.frombuffer(joined, dtype="<f4").astype(np.float32), counts
    if len(joined) <= _FEW:  # a few values (a label): NumPy's per-call cost exceeds a plain loop's
        values, counts = [], []
        for part in parts:
            pos, end, c = 0, len(part), 0
            while pos < end:
                v, pos = read_varint(part, pos, end, _bail)
                values.append(v)
                c += 1
            counts.append(c)
        return np.array(values, dtype=np.uint64).view(np.int64), counts
    if joined.isascii():  # every value below 128 (labels, small ids): one byte each
        return np.frombuffer(joined, dtype=np.uint8).astype(np.int64), lengths
    a = np.frombuffer(joined, dtype=np.uint8)
    got = decode_varints(a)
    if got is None:
        raise _Bail
    ended = np.cumsum(a < 0x80)  # varints ended up to each byte
    bounds = np.cumsum(lengths)
    if 0 in lengths:  # an empty payload: it ends where the one before it ends
        if (a[bounds[np.asarray(lengths) > 0] - 1] >= 0x80).any():  # a payload cut inside a varint
            raise _Bail
        done = np.concatenate(([0], ended))[bounds]
    else:
        if (a[bounds - 1] >= 0x80).any():  # a payload cut inside a varint
            raise _Bail
        done = ended[bounds - 1]
    return got[0].view(np.int64), np.diff(done, prepend=0).tolist()


def _strings(records, spans):
    values, counts = [], []
    value, count = values.append, counts.append
    for buf, (tag, start, end) in zip(records, spans):
        if tag == 0x0A and start < end and buf[start] == 0x0A:  # the usual: one value, a short length
            b = buf[start + 1]
            if b < 0x80:
                p, ln = start + 2, b
            else:
                c = buf[start + 2]
                p, ln = start + 3, (b & 0x7F | c << 7) if c < 0x80 else end  # (longer: never p + ln == end)
            if p + ln == end:
                value(buf[p:end])
                count(1)
                continue
        if tag and tag != 0x0A:
            raise _Bail
        v = _bytes_values(buf, start, end)
        values += v
        counts.append(len(v))
    arr = np.empty(len(values), dtype=object)
    arr[:] = values
    return arr, counts


def _feature(records, spans, dt):
    return _strings(records, spans) if dt is _dt.string else _numeric(records, spans, dt)


_GROUP = 8  # records of one length, at least, checked against one another at once


_LAYOUTS = {}  # (id(wanted), record length) -> (wanted, found, framing columns, the framing's bytes, payloads)


def _layout(records, idx, wanted, slots, length, any_size=False):
    """The reference layout of records of `length`: a record's spans, the columns outside its wanted features'
    values and its bytes there, and each wanted feature's payload columns (see _payloads); kept for the next
    batches (a dataset's records repeat their layouts). Made from a group of _GROUP records or more (or any,
    with `any_size`). The cache holds `wanted` itself, so that its id is not reused while the entry lives."""
    key = (id(wanted), length)
    lay = _LAYOUTS.get(key)
    if lay is not None and lay[0] is wanted:
        return lay
    if len(idx) < _GROUP and not any_size or 10 * length > _LAYOUT_BYTES:
        return None  # (a record past 1/10 of the budget: walked, not compared byte for byte, nor kept)
    ref = records[idx[0]]
    found = [None] * len(slots)
    _entries(ref, wanted, found)
    payloads = _payloads(ref, found, slots)
    framing = np.ones(length, dtype=bool)
    for f, pay in zip(found, payloads):
        if pay:
            framing[pay[0]:pay[1]] = False
        elif f is not None:
            framing[f[1]:f[2]] = False
    keep = np.flatnonzero(framing)
    edges = np.flatnonzero(np.diff(framing.view(np.int8), prepend=0, append=0)).tolist()
    pieces = [(a, ref[a:b]) for a, b in zip(edges[::2], edges[1::2])]  # the framing's runs, as bytes
    lay = (wanted, found, keep, np.frombuffer(ref, dtype=np.uint8)[keep], payloads if all(payloads) else None,
           pieces)
    _keep(_LAYOUTS, key, lay, 10 * len(keep))
    return lay


def _matches(records, idx, pieces):
    """Whether two records of the group (its middle and last) have the layout's framing bytes: `startswith`
    stops at the first byte that differs, so a group whose framing varies (a feature not asked for whose
    bytes differ from record to record, as an image's) costs microseconds instead of the whole group's bytes
    gathered and compared (12 ms for 32 records of 150 KB) on every batch."""
    for i in (idx[len(idx) // 2], idx[-1]):
        r = records[i]
        for at, piece in pieces:
            if not r.startswith(piece, at):
                return False
    return True


_LAYOUT_BYTES = 32 << 20  # the bytes a layout cache holds, at most (each layout holds about its record's size)
_HELD = {}  # id(cache) -> the bytes it holds now


def _keep(cache, key, lay, size):
    """cache[key] = lay, the cache emptied first where it holds 256 layouts or would pass _LAYOUT_BYTES (records of
    many big lengths: an unwanted feature's bytes are framing); a layout past the budget alone is not kept."""
    if size > _LAYOUT_BYTES:
        return
    held = _HELD.get(id(cache), 0) + size
    if len(cache) >= 256 or held > _LAYOUT_BYTES:
        cache.clear()
        held = size
    _HELD[id(cache)] = held
    cache[key] = lay


def _payloads(buf, found, slots):
    """Per wanted feature of a reference record, (start, end) of its values' bytes when its list has the usual
    form (numbers: one packed field with a one-byte length; strings: one value with a length of one or two
    bytes), else False. The list's own field key and length then count as framing: a record that matches the
    layout has its values exactly there."""
    out = []
    for f, (code, want, *_) in zip(found, slots):
        pay = False
        if f is not None and f[0] == want and f[1] + 2 <= f[2] and buf[f[1]] == 0x0A:
            _, s, e = f
            ln = buf[s + 1]
            if ln < 0x80 and s + 2 + ln == e:
                pay = (s + 2, e)
            elif not code and ln >= 0x80 and s + 3 <= e:
                c = buf[s + 2]
                if c < 0x80 and s + 3 + (ln & 0x7F | c << 7) == e:
                    pay = (s + 3, e)
        out.append(pay)
    return out


def _by_length(records):
    """{record length: [indices of the records of that length]}."""
    by_length = {}
    for i, r in enumerate(records):
        by_length.setdefault(len(r), []).append(i)
    return by_length


def _all_entries(records, wanted, slots, by_length=None):
    """_entries of every record. Records of one length whose bytes all equal a reference record's outside its
    wanted features' values (so every byte _entries reads, and the rest of the framing, is the same) have its
    spans: one NumPy comparison for the group instead of a walk per record. The reference is the group's first
    record, or one of that length from an earlier batch."""
    nk = len(slots)
    founds = [None] * len(records)
    if len(records) >= 2 * _GROUP:
        if by_length is None:
            by_length = _by_length(records)
        for length, idx in by_length.items():
            if len(idx) < 3 or not length:
                continue
            lay = _layout(records, idx, wanted, slots, length)
            if lay is None or not _matches(records, idx, lay[5]):
                continue
            _, found, keep, ref, _, _ = lay
            rows = np.frombuffer(b"".join([records[i] for i in idx]), dtype=np.uint8).reshape(len(idx), length)
            for i, same in zip(idx, (rows[:, keep] == ref).all(1).tolist()):
                if same:
                    founds[i] = found
    for i, r in enumerate(records):
        if founds[i] is None:
            found = founds[i] = [None] * nk
            _entries(r, wanted, found)
    return founds


_FEW_LENGTHS = 4  # record lengths in a batch, at most, for the grouped path


_SEEN = {}  # (id(wanted), record length, single or batch) -> times met without a layout


def _sighted(wanted, length, kind, times):
    """Whether records of `length` have now been met `times` times without a layout of theirs: a layout is
    made for a length that repeats (records of many lengths would pay for layouts never used again)."""
    key = (id(wanted), length, kind)
    n = _SEEN.get(key, 0) + 1
    if n >= times:
        _SEEN.pop(key, None)
        return True
    if len(_SEEN) >= 4096:
        _SEEN.clear()
    _SEEN[key] = n
    return False


def _grouped(records, wanted, slots, nd, by_length):
    """parse() of a batch whose records have a few lengths, each record matching its length's layout (framing
    and list headers equal a reference record's) where every wanted feature has the usual form: each feature's
    values are then the same columns of every record of a length, cut from the group's rows at once (numbers
    decoded per group, checked to hold as many values in every record), and put back in batch order. None
    when the batch is not such (the per-record path decides). A length met in no earlier batch, in fewer than
    _GROUP records, gets no layout yet."""
    if len(by_length) > _FEW_LENGTHS:
        return None
    lays = []
    for length, idx in by_length.items():
        if not length:
            return None
        lay = _layout(records, idx, wanted, slots, length,
                      any_size=(id(wanted), length) in _LAYOUTS or _sighted(wanted, length, 1, 2))
        if lay is None or lay[4] is None or not _matches(records, idx, lay[5]):
            return None
        lays.append((idx, lay))
    groups = []
    for idx, (_, _, keep, ref, payloads, _) in lays:
        rows = np.frombuffer(b"".join([records[i] for i in idx]), dtype=np.uint8).reshape(len(idx), -1)
        if not (rows[:, keep] == ref).all():
            return None
        groups.append((idx, rows, payloads))
    b = len(records)
    if len(groups) == 1:
        inv = None
    else:
        inv = np.empty(b, dtype=np.intp)
        inv[np.array([i for idx, _, _ in groups for i in idx], dtype=np.intp)] = np.arange(b, dtype=np.intp)
    dense_out, sparse_out = [], [[], [], []]
    for slot, (code, _, n, dims, _) in enumerate(slots):
        if not code:
            arr = np.empty(b, dtype=object)
            for idx, _, payloads in groups:
                p, e = payloads[slot]
                vals = [records[i][p:e] for i in idx]
                if inv is None:
                    arr[:] = vals
                else:
                    arr[idx] = vals
            values = arr.reshape(b, 1)
        else:
            blocks, widths = [], set()
            for _, rows, payloads in groups:
                p, e = payloads[slot]
                blocks.append(np.array(rows[:, p:e]))  # a copy (of the few columns): the values own their memory
                widths.add(e - p)
            flat = blocks[0].reshape(-1) if inv is None else np.concatenate([x.reshape(-1) for x in blocks])
            if code == 1:
                if len(widths) != 1:
                    return None
                m = widths.pop()
                if m & 3:
                    return None
                values = flat.view("<f4") if _LITTLE else flat.view("<f4").astype(np.float32)
                values = values.reshape(b, m >> 2)
            elif len(widths) == 1 and (flat < 0x80).all():  # every value below 128: a byte each
                values = flat.astype(np.int64).reshape(b, next(iter(widths)))
            else:
                got = decode_varints_ending(flat)
                if got is None or len(got[0]) % b:
                    return None
                values, ends = got
                c = len(values) // b
                # each record holds c varints, the last ending at its last byte
                bounds = (np.arange(1, b + 1) * (next(iter(widths))) if len(widths) == 1 else
                          np.cumsum(np.repeat([x.shape[1] for x in blocks], [x.shape[0] for x in blocks])))
                if not c or not (ends[c - 1::c] + 1 == bounds).all():
                    return None
                values = values.view(np.int64).reshape(b, c)
            if inv is not None:
                values = values[inv]
        c = values.shape[1]
        if n is not None:
            if c != n:
                return None
            dense_out.append(values.reshape([b] + dims))
        else:
            sparse_out[0].append(_grid(b, c).copy())
            sparse_out[1].append(values.reshape(-1))
            sparse_out[2].append(np.array([b, c], dtype=np.int64))
    return tuple(sparse_out[0] + sparse_out[1] + sparse_out[2] + dense_out)


_NO_FEATURE = (0, 0, 0)
_PLANS = {}  # the spec's keys -> the lookup table of the keys wanted


def _one_int64s(buf, start, end):
    """The packed int64 payload buf[start:end] as a list of ints (each byte's bits from a table per position
    in its varint; varints of up to six bytes, 42 bits, read unrolled)."""
    out = []
    p1, p2, p3, p4, p5 = _PLACED[1:6]
    while start < end:
        b = buf[start]
        if b < 0x80:
            out.append(b)
            start += 1
            continue
        if start + 6 <= end:
            v = b & 0x7F | p1[buf[start + 1]]
            if buf[start + 1] < 0x80:
                out.append(v)
                start += 2
                continue
            b = buf[start + 2]
            v |= p2[b]
            if b < 0x80:
                out.append(v)
                start += 3
                continue
            b = buf[start + 3]
            v |= p3[b]
            if b < 0x80:
                out.append(v)
                start += 4
                continue
            b = buf[start + 4]
            v |= p4[b]
            if b < 0x80:
                out.append(v)
                start += 5
                continue
            b = buf[start + 5]
            v |= p5[b]
            if b < 0x80:
                out.append(v)
                start += 6
                continue
        v, k = buf[start] & 0x7F, 1  # longer, or near the end: byte by byte, checked
        start += 1
        while True:
            if start >= end or k > 9:
                raise _Bail
            b = buf[start]
            start += 1
            v |= _PLACED[k][b]
            if b < 0x80:
                break
            k += 1
        v &= 0xFFFFFFFFFFFFFFFF
        out.append(v - (1 << 64) if v >= 1 << 63 else v)
    return out


_PLACED = [[(b & 0x7F) << 7 * k for b in range(256)] for k in range(10)]  # a byte's bits at its place


_LAST_PLAN = [None]  # (the five arguments, the plan) of the last _plan call: a graph op passes the same objects


def _plan(dense_keys, dense_types, dense_shapes, sparse_keys, sparse_types):
    """(keys wanted -> slot, [(code, tag, element count or None, dims, _form(dims))] per slot): the spec read
    once. code: 0 string, 1 float32, 2 int64."""
    last = _LAST_PLAN[0]
    if last is not None and last[0] is dense_keys and last[1] is dense_types and last[2] is dense_shapes and \
            last[3] is sparse_keys and last[4] is sparse_types:
        return last[5]
    key = (dense_keys, sparse_keys)
    got = _PLANS.get(key)
    if got is not None and (got[0] is dense_types and got[1] is sparse_types and got[2] is dense_shapes or
                            got[0] == dense_types and got[1] == sparse_types and got[2] == dense_shapes):
        _LAST_PLAN[0] = (dense_keys, dense_types, dense_shapes, sparse_keys, sparse_types, got[3])
        return got[3]
    keys = dense_keys + sparse_keys
    wanted = {k.encode(): i for i, k in enumerate(keys)}
    if len(wanted) != len(keys):
        return None
    codes = {_dt.string: 0, _dt.float32: 1, _dt.int64: 2}
    slots = [(codes[dt], _KIND[dt], shape.num_elements(), shape.as_list(), _form(shape.as_list()))
             for dt, shape in zip(dense_types, dense_shapes)]
    slots += [(codes[dt], _KIND[dt], None, None, None) for dt in sparse_types]
    if len(_PLANS) > 256:
        _PLANS.clear()
    _PLANS[key] = (dense_types, sparse_types, dense_shapes, (wanted, slots))
    return wanted, slots


def _form(dims):
    """How _parse_one shapes a dense feature's values: 0 a scalar (shape []), 1 a vector of them all (shape
    [n]), else the shape as a tuple."""
    return 0 if not dims else 1 if len(dims) == 1 else tuple(dims)


_LITTLE = sys.byteorder == "little"
_SPARSE_ONE = {}  # values in a record -> (the sparse indices [[0], [1] ...], the dense shape [n]): copied out


_SMALL = 4096  # values, at most, of the index arrays kept (the grids' [b * c, 2], the single records' [n, 1])


def _sparse_one(n):
    got = _SPARSE_ONE.get(n)
    if got is None:
        got = (np.arange(n, dtype=np.int64)[:, None], np.array([n], dtype=np.int64))
        if n <= _SMALL:  # (a long list's indices are not kept: lists of many lengths would keep them all)
            if len(_SPARSE_ONE) > 256:
                _SPARSE_ONE.clear()
            _SPARSE_ONE[n] = got
    return got


_ONE_LAYOUTS = {}  # (id(wanted), record length) -> (wanted, spans, [(position, framing bytes there)], payloads)


def _one_layout(buf, wanted, found, slots):
    """Keeps the layout of one record for the next records of its length: its spans and the bytes outside its
    wanted features' values (framing, keys, the features not asked for). A record of that length with those
    bytes has those spans (every byte _entries reads is among them): a few `startswith` instead of a walk.
    Where every wanted feature's list has the usual form (_payloads), the lists' own headers count as framing
    too and the values' positions are kept. The cache holds `wanted` itself, so that its id is not reused
    while the entry lives."""
    payloads = _payloads(buf, found, slots)
    if not all(payloads):
        payloads = None
    values = payloads if payloads is not None else [(f[1], f[2]) for f in found if f is not None]
    pieces, at = [], 0
    for start, end in sorted(values):
        if start > at:
            pieces.append((at, buf[at:start]))
        at = max(at, end)
    if at < len(buf):
        pieces.append((at, buf[at:]))
    _keep(_ONE_LAYOUTS, (id(wanted), len(buf)), (wanted, tuple(found), pieces, payloads), len(buf))


def _parse_one(buf, wanted, slots, nd):
    """parse() of one record (parse_single_example, a dataset's map): one NumPy call per output where it can
    (a scalar made as one, the sparse indices and shape copied from a cache per length)."""
    lay = _ONE_LAYOUTS.get((id(wanted), len(buf)))
    pays = None
    if lay is not None and lay[0] is wanted:
        found, pays = lay[1], lay[3]
        for at, piece in lay[2]:
            if not buf.startswith(piece, at):
                found, pays = [None] * len(slots), None
                _entries(buf, wanted, found)
                break
    else:
        found = [None] * len(slots)
        _entries(buf, wanted, found)
        if buf and _sighted(wanted, len(buf), 0, 3):
            _one_layout(buf, wanted, found, slots)
    outs = []
    for slot, (f, (code, want, n, dims, form)) in enumerate(zip(found, slots)):
        if pays is not None:  # the layout's: each list in the usual form, its values at these positions
            p, e = pays[slot]
        else:
            if f is None:
                if n is not None:
                    return None
                f = _NO_FEATURE
            tag, start, end = f
            if tag and tag != want:
                return None
        if not code:
            vals = [buf[p:e]] if pays is not None else _bytes_values(buf, start, end)
            if n is not None and len(vals) != n:
                return None
            if form == 0:
                arr = np.empty((), dtype=object)
                arr[()] = vals[0]
            else:
                arr = np.empty(len(vals), dtype=object)
                arr[:] = vals
        else:
            if pays is None:
                p, e = _packed(buf, start, end)
            if code == 1:
                if (e - p) & 3:
                    return None
                if _LITTLE:
                    arr = np.frombuffer(buf, dtype=np.float32, count=(e - p) >> 2, offset=p).copy()
                else:
                    arr = np.frombuffer(buf, dtype="<f4", count=(e - p) >> 2, offset=p).astype(np.float32)
                if n is not None and len(arr) != n:
                    return None
            else:
                if e - p <= _FEW:
                    vals = _one_int64s(buf, p, e)
                    if n is not None and len(vals) != n:
                        return None
                    arr = np.array(vals[0] if form == 0 else vals, dtype=np.int64)
                else:
                    got = decode_varints(np.frombuffer(buf, dtype=np.uint8, count=e - p, offset=p))
                    if got is None:
                        return None
                    arr = got[0].view(np.int64)
                    if n is not None and len(arr) != n:
                        return None
        if form is not None and form != 1 and arr.ndim != len(dims):
            arr = arr.reshape(dims)
        outs.append(arr)
    if nd == len(outs):
        return tuple(outs)
    sparse = outs[nd:]
    idx, shapes = [], []
    for v in sparse:
        i, s = _sparse_one(len(v))
        idx.append(i.copy())
        shapes.append(s.copy())
    return tuple(idx + sparse + shapes + outs[:nd])


_GRIDS = {}  # (records, values each) -> the sparse indices [[0, 0], [0, 1] ... [b - 1, c - 1]]


def _grid(b, c):
    g = _GRIDS.get((b, c))
    if g is None:
        g = np.stack(np.divmod(np.arange(b * c, dtype=np.int64), c), 1) if c else np.zeros((0, 2), np.int64)
        if b * c <= _SMALL:
            if len(_GRIDS) > 64:
                _GRIDS.clear()
            _GRIDS[b, c] = g
    return g


def parse(records, dense_keys, dense_types, dense_shapes, sparse_keys, sparse_types, scalar):
    """The ParseExampleV2 outputs (as parsing._parse_kernel gives them) of `records` (a list of bytes), or
    None when the general path must decide."""
    plan = _plan(dense_keys, dense_types, dense_shapes, sparse_keys, sparse_types)
    if plan is None:
        return None
    wanted, slots = plan
    nd, nk = len(dense_keys), len(slots)
    try:
        if scalar:
            return _parse_one(records[0], wanted, slots, nd)
        if not records:
            return None
        by_length = None
        if len(records) >= 2 * _GROUP:
            by_length = _by_length(records)
            got = _grouped(records, wanted, slots, nd, by_length)
            if got is not None:
                return got
        spans = list(zip(*_all_entries(records, wanted, slots, by_length)))
        for slot in range(nk):
            if None in spans[slot]:
                if slot < nd:
                    return None  # a missing dense feature: its default (or error) is the general path's
                spans[slot] = [f or _NO_FEATURE for f in spans[slot]]
        b = len(records)
        dense_out = []
        for slot in range(nd):
            _, _, n, dims, _ = slots[slot]
            values, counts = _feature(records, spans[slot], dense_types[slot])
            if counts.count(n) != b:
                return None
            dense_out.append(values.reshape([b] + dims))
        sparse_out = [[], [], []]
        for slot, dt in enumerate(sparse_types):
            values, counts = _feature(records, spans[nd + slot], dt)
            longest = max(counts)
            if counts.count(longest) == b:  # as many values in every record: the index grid, cached
                sparse_out[0].append(_grid(b, longest).copy())
            else:
                counts = np.array(counts, dtype=np.int64)
                starts = np.cumsum(counts) - counts
                j = np.arange(len(values), dtype=np.int64) - np.repeat(starts, counts)
                sparse_out[0].append(np.stack([np.repeat(np.arange(b, dtype=np.int64), counts), j], 1))
            sparse_out[1].append(values)
            sparse_out[2].append(np.array([b, longest], dtype=np.int64))
    except (_Bail, IndexError):
        return None
    return tuple(sparse_out[0] + sparse_out[1] + sparse_out[2] + dense_out)
