"""CTC: tf.nn.ctc_loss (dense or sparse labels, any blank_index; the loss and its gradient from one
forward-backward pass in log space), ctc_greedy_decoder, ctc_beam_search_decoder and ctc_unique_labels.
An infeasible label sequence (too long for its frames) gives an infinite loss here; TensorFlow's dense kernel
returns a large finite number (about 710 in float32) instead."""
import numpy as np

from .. import dtypes as _dt
from ..core.dispatch import bind
from ..core.op import FLOATS, defop
from ..errors import InvalidArgumentError
from ..shape import TensorShape
from . import array_ops as _a, composite, math_ops as _m
from ._rules import to_tensor


def _lse(*xs):
    m = np.maximum.reduce(xs)
    safe = np.where(np.isfinite(m), m, 0.0)
    return np.where(np.isfinite(m), safe + np.log(sum(np.exp(x - safe) for x in xs)), m)


def _ctc_one(logp, label, blank):
    """(-log p(label | logp), d loss / d logits) for one sequence; logp: [T, C] log-softmax."""
    t_len, n_cls = logp.shape
    ext = np.full(2 * len(label) + 1, blank, np.int64)
    ext[1::2] = label
    s_len = len(ext)
    neg = -np.inf
    skip = np.zeros(s_len, bool)
    skip[2:] = (ext[2:] != blank) & (ext[2:] != ext[:-2])
    alpha = np.full((t_len, s_len), neg)
    if t_len == 0:
        return (0.0 if len(label) == 0 else np.inf), np.zeros_like(logp)
    alpha[0, 0] = logp[0, ext[0]]
    if s_len > 1:
        alpha[0, 1] = logp[0, ext[1]]
    for t in range(1, t_len):
        prev = alpha[t - 1]
        a1 = np.concatenate([[neg], prev[:-1]])
        a2 = np.where(skip, np.concatenate([[neg, neg], prev[:-2]]), neg)
        alpha[t] = _lse(prev, a1, a2) + logp[t, ext]
    beta = np.full((t_len, s_len), neg)  # excluding the emission at t
    beta[-1, -1] = 0.0
    if s_len > 1:
        beta[-1, -2] = 0.0
    skip_next = np.zeros(s_len, bool)
    skip_next[:-2] = skip[2:]
    for t in range(t_len - 2, -1, -1):
        nxt = beta[t + 1] + logp[t + 1, ext]
        b1 = np.concatenate([nxt[1:], [neg]])
        b2 = np.where(skip_next, np.concatenate([nxt[2:], [neg, neg]]), neg)
        beta[t] = _lse(nxt, b1, b2)
    log_p = _lse(alpha[-1, -1], alpha[-1, -2]) if s_len > 1 else alpha[-1, -1]
    if not np.isfinite(log_p):
        return np.inf, np.zeros_like(logp)
    occ = np.exp(alpha + beta - log_p)  # [T, S]
    post = np.zeros((t_len, n_cls))
    for s in range(s_len):
        post[:, ext[s]] += occ[:, s]
    return -log_p, np.exp(logp) - post


def _sparse_rows_kernel(indices, values, dense_shape):
    """Each row's values in index order, packed to the left: (dense [rows, longest], lengths)."""
    rows = int(dense_shape[0])
    order = np.lexsort(indices.T[::-1]) if len(indices) else np.arange(0)
    per = [[] for _ in range(rows)]
    for k in order.tolist():
        per[int(indices[k, 0])].append(int(values[k]))
    width = max([len(p) for p in per] + [0])
    out = np.zeros((rows, width), np.int64)
    for r, p in enumerate(per):
        out[r, :len(p)] = p
    return out, np.asarray([len(p) for p in per], np.int64)


SPARSE_ROWS = defop("_SparseLabelRows", _sparse_rows_kernel,
                    lambda i, v, s: [(TensorShape([None, None]), _dt.int64), (TensorShape([None]), _dt.int64)],
                    num_outputs=2)


@_m._quiet
def _ctc_kernel(logits, labels, label_length, logit_length, blank_index):
    t_max, batch, n_cls = logits.shape
    x = logits.astype(np.float64)
    logp = x - np.max(x, axis=-1, keepdims=True)
    logp = logp - np.log(np.sum(np.exp(logp), axis=-1, keepdims=True))
    loss = np.zeros(batch)
    grad = np.zeros(x.shape)
    blank = blank_index % n_cls
    for b in range(batch):
        t_len = int(logit_length[b])
        if t_len > t_max:
            raise InvalidArgumentError(f"logit_length[{b}] = {t_len} is larger than the number of frames {t_max}")
        lab = np.asarray(labels[b, :int(label_length[b])], np.int64)
        loss[b], grad[:t_len, b] = _ctc_one(logp[:t_len, b], lab, blank)
    return loss.astype(logits.dtype), grad.astype(logits.dtype)


CTC_LOSS = defop(
    "_CTCLossDense", _ctc_kernel,
    lambda logits, labels, ll, gl, blank_index: [(TensorShape([logits.shape[1] if logits.shape.rank else None]),
                                                  logits.dtype), (logits.shape, logits.dtype)],
    num_outputs=2, allowed=FLOATS,
    grad=lambda op, dloss, _: (_m.multiply(_a.expand_dims(_a.expand_dims(dloss, 0), 2), op.outputs[1]),
                               None, None, None))


def ctc_loss(labels, logits, label_length, logit_length, logits_time_major=True, unique=None, blank_index=None,
             name=None):
    """Per-example CTC loss, -log p(labels | logits): labels dense [batch, max_label] with label_length (blank
    index 0 by default) or a SparseTensor (blank_index required); logits [frames, batch, classes] (or batch-major)
    unnormalised; negative blank_index counts from the number of classes. Infeasible labels give inf."""
    if composite.is_kind(labels, "sparse") or type(labels).__name__ == "SparseTensor":
        if blank_index is None:
            raise ValueError("Argument `blank_index` must be provided when `labels` is a `SparseTensor`.")
        sp = labels
        labels, label_length = bind(SPARSE_ROWS, (sp.indices, _m.cast(sp.values, _dt.int64), sp.dense_shape))
    elif blank_index is None:
        blank_index = 0
    x = to_tensor(logits)
    if not logits_time_major:
        x = _a.transpose(x, [1, 0, 2])
    lab = to_tensor(labels)
    loss, _ = bind(CTC_LOSS, (x, _m.cast(lab, _dt.int64), _m.cast(to_tensor(label_length), _dt.int64),
                             _m.cast(to_tensor(logit_length), _dt.int64)), {"blank_index": int(blank_index)},
                   name=name or "CTCLoss")
    return loss


# ---------------------------------------------------------------- decoders
def _greedy_kernel(logits, lengths, merge_repeated, blank_index):
    t_max, batch, n_cls = logits.shape
    blank = blank_index % n_cls
    paths, scores = [], np.zeros((batch, 1), logits.dtype)
    for b in range(batch):
        t_len = int(lengths[b])
        best = np.argmax(logits[:t_len, b], axis=-1)
        scores[b, 0] = -np.sum(np.max(logits[:t_len, b], axis=-1)) if t_len else 0
        out, prev = [], None
        for k in best.tolist():
            if k != blank and not (merge_repeated and k == prev):
                out.append(k)
            prev = k
        paths.append(out)
    width = max([len(p) for p in paths] + [0])
    idx = np.asarray([[b, i] for b, p in enumerate(paths) for i in range(len(p))], np.int64).reshape(-1, 2)
    vals = np.asarray([v for p in paths for v in p], np.int64)
    return idx, vals, np.asarray([batch, width], np.int64), scores


GREEDY = defop("CTCGreedyDecoder", _greedy_kernel,
               lambda logits, lengths, **a: [(TensorShape([None, 2]), _dt.int64), (TensorShape([None]), _dt.int64),
                                             (TensorShape([2]), _dt.int64),
                                             (TensorShape([logits.shape[1] if logits.shape.rank else None, 1]),
                                              logits.dtype)],
               num_outputs=4, allowed=FLOATS)


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True, blank_index=None):
    """([SparseTensor of the best paths], -sum of the best logits per example [batch, 1]): the most likely class
    each frame, repeats merged (merge_repeated), blanks (the last class by default) removed."""
    x = to_tensor(inputs)
    n_cls = x.shape[-1]
    blank = (n_cls - 1 if blank_index is None else int(blank_index)) if n_cls is not None else \
        (-1 if blank_index is None else int(blank_index))
    idx, vals, shape, scores = bind(GREEDY, (x, _m.cast(to_tensor(sequence_length), _dt.int64)),
                                    {"merge_repeated": bool(merge_repeated), "blank_index": blank},
                                    name="CTCGreedyDecoder")
    sparse = composite.kind("sparse")
    return [sparse(idx, vals, shape)], scores


def _unique_kernel(labels):
    out = np.zeros(labels.shape, labels.dtype)
    idx = np.zeros(labels.shape, np.int32)
    for b, row in enumerate(labels.tolist()):
        seen = {}
        for i, v in enumerate(row):
            if v not in seen:
                seen[v] = len(seen)
            idx[b, i] = seen[v]
        out[b, :len(seen)] = list(seen)
    return out, idx


CTC_UNIQUE = defop("_CTCUniqueLabels", _unique_kernel,
                   lambda labels: [(labels.shape, labels.dtype), (labels.shape, _dt.int32)], num_outputs=2)


def ctc_unique_labels(labels, name=None):
    """(each row's distinct labels in first-seen order, zero-padded; the index of each label among them)."""
    u, i = bind(CTC_UNIQUE, (to_tensor(labels),), name=name or "ctc_unique_labels")
    return u, i


def _beam_one(logp, beam_width, top_paths, blank):
    """Prefix beam search over log-probabilities [T, C]: (top paths, their log-probabilities)."""
    neg = -np.inf
    beams = {(): (0.0, neg)}  # prefix -> (log p ending in blank, log p ending in a label)
    for t in range(logp.shape[0]):
        y = logp[t]
        nxt = {}

        def add(prefix, pb, pnb):
            ob, onb = nxt.get(prefix, (neg, neg))
            nxt[prefix] = (np.logaddexp(ob, pb), np.logaddexp(onb, pnb))

        for prefix, (pb, pnb) in beams.items():
            total = np.logaddexp(pb, pnb)
            add(prefix, total + y[blank], neg)
            if prefix:
                add(prefix, neg, pnb + y[prefix[-1]])
            for c in range(len(y)):
                if c == blank:
                    continue
                if prefix and c == prefix[-1]:
                    add(prefix + (c,), neg, pb + y[c])
                else:
                    add(prefix + (c,), neg, total + y[c])
        ranked = sorted(nxt.items(), key=lambda kv: -np.logaddexp(*kv[1]))
        beams = dict(ranked[:beam_width])
    ranked = sorted(beams.items(), key=lambda kv: -np.logaddexp(*kv[1]))[:top_paths]
    return [list(p) for p, _ in ranked], [float(np.logaddexp(*v)) for _, v in ranked]


@_m._quiet
def _beam_kernel(logits, lengths, beam_width, top_paths):
    t_max, batch, n_cls = logits.shape
    x = logits.astype(np.float64)
    logp = x - np.max(x, axis=-1, keepdims=True)
    logp = logp - np.log(np.sum(np.exp(logp), axis=-1, keepdims=True))
    paths = [[] for _ in range(top_paths)]
    scores = np.full((batch, top_paths), -np.inf, logits.dtype)
    for b in range(batch):
        found, logs = _beam_one(logp[:int(lengths[b]), b], beam_width, top_paths, n_cls - 1)
        for k in range(top_paths):
            paths[k].append(found[k] if k < len(found) else [])
            if k < len(logs):
                scores[b, k] = logs[k]
    out = []
    for k in range(top_paths):
        width = max([len(p) for p in paths[k]] + [0])
        idx = np.asarray([[b, i] for b, p in enumerate(paths[k]) for i in range(len(p))], np.int64).reshape(-1, 2)
        vals = np.asarray([v for p in paths[k] for v in p], np.int64)
        out += [idx, vals, np.asarray([batch, width], np.int64)]
    return tuple(out) + (scores,)


BEAM = defop("_CTCBeamSearchDecoder", _beam_kernel,
             lambda logits, lengths, beam_width, top_paths: [
                 (TensorShape([None, 2]), _dt.int64), (TensorShape([None]), _dt.int64), (TensorShape([2]), _dt.int64)
             ] * top_paths + [(TensorShape([logits.shape[1] if logits.shape.rank else None, top_paths]), logits.dtype)],
             num_outputs=lambda attrs: 3 * attrs["top_paths"] + 1, allowed=FLOATS)


def ctc_beam_search_decoder(inputs, sequence_length, beam_width=100, top_paths=1):
    """([top_paths SparseTensors of decoded paths], their log-probabilities [batch, top_paths]): prefix beam
    search over the softmax of the logits, the last class the blank. Equal to TensorFlow's where its beam keeps
    every prefix's mass; TensorFlow's kernel can end with more probability on a path when pruning at a narrow
    beam_width evicts beams mid-step (seen at beam_width=10 over 12 frames), so scores can differ there."""
    if top_paths > beam_width:
        raise ValueError("top_paths must be <= beam_width")
    out = bind(BEAM, (to_tensor(inputs), _m.cast(to_tensor(sequence_length), _dt.int64)),
               {"beam_width": int(beam_width), "top_paths": int(top_paths)}, name="CTCBeamSearchDecoder")
    sparse = composite.kind("sparse")
    return [sparse(*out[3 * k:3 * k + 3]) for k in range(top_paths)], out[-1]
