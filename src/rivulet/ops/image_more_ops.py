"""More of tf.image, as TensorFlow's composites: per_image_standardization, psnr, ssim, adjust_gamma, the YUV/YIQ
colour conversions, image_gradients and transpose."""
import numpy as np

from .. import dtypes as _dt
from . import array_ops as _a, math_ops as _m
from ._rules import static_value, to_tensor


def per_image_standardization(image, name=None):
    """(image - mean) / max(stddev, 1 / sqrt(pixels)) over each image's last three dimensions, in float32 (any
    input dtype, as TensorFlow casts it)."""
    x = to_tensor(image)
    if x.shape.rank is not None and x.shape.rank < 3:
        raise ValueError(f"'image' (shape {x.shape}) must be at least three-dimensional.")
    x = _m.cast(x, _dt.float32)
    pixels = _m.reduce_prod(_a.shape(x)[-3:])
    mean = _m.reduce_mean(x, axis=[-1, -2, -3], keepdims=True)
    stddev = _m.reduce_std(x, axis=[-1, -2, -3], keepdims=True)
    floor = _m.rsqrt(_m.cast(pixels, x.dtype))
    return _m.divide(_m.subtract(x, mean), _m.maximum(stddev, floor), name=name)


def psnr(a, b, max_val, name=None):
    """Peak signal-to-noise ratio in dB per image (float32): 20 log10(max_val) - 10 log10(MSE); integer images
    and max_val are scaled to [0, 1] first."""
    from .image_ops import convert_image_dtype
    a, b = to_tensor(a), to_tensor(b)
    mv = convert_image_dtype(_m.cast(max_val, a.dtype), _dt.float32)
    a, b = convert_image_dtype(a, _dt.float32), convert_image_dtype(b, _dt.float32)
    mse = _m.reduce_mean(_m.squared_difference(a, b), [-3, -2, -1])
    ln10 = np.log(10.0)
    return _m.subtract(_m.multiply(20.0 / ln10, _m.log(mv)), _m.multiply(10.0 / ln10, _m.log(mse)), name=name)


def _gaussian_kernel(size, sigma, dtype):
    coords = _m.subtract(_m.cast(_a.range(size), dtype), (size - 1) / 2.0)
    g = _m.multiply(_m.square(coords), _m.divide(-0.5, _m.square(sigma)))
    g = _m.add(_a.reshape(g, [1, -1]), _a.reshape(g, [-1, 1]))
    from .nn_ops import softmax
    return _a.reshape(softmax(_a.reshape(g, [1, -1])), [size, size, 1, 1])


def _ssim_per_channel(x, y, max_val, filter_size, filter_sigma, k1, k2, return_index_map):
    from .conv_ops import depthwise_conv2d
    sigma = to_tensor(float(filter_sigma), x.dtype)
    channels = x.shape[-1]
    kernel = _a.tile(_gaussian_kernel(int(filter_size), sigma, x.dtype), [1, 1, channels, 1])

    def reducer(v):
        shape = _a.shape(v)
        flat = _a.reshape(v, _a.concat([[-1], shape[-3:]], 0))
        out = depthwise_conv2d(flat, kernel, strides=[1, 1, 1, 1], padding="VALID")
        return _a.reshape(out, _a.concat([shape[:-3], _a.shape(out)[1:]], 0))

    c1 = _m.square(_m.multiply(k1, max_val))
    c2 = _m.square(_m.multiply(k2, max_val))
    mean0, mean1 = reducer(x), reducer(y)
    num0 = _m.multiply(_m.multiply(mean0, mean1), 2.0)
    den0 = _m.add(_m.square(mean0), _m.square(mean1))
    luminance = _m.divide(_m.add(num0, c1), _m.add(den0, c1))
    num1 = _m.multiply(reducer(_m.multiply(x, y)), 2.0)
    den1 = reducer(_m.add(_m.square(x), _m.square(y)))
    cs = _m.divide(_m.add(_m.subtract(num1, num0), c2), _m.add(_m.subtract(den1, den0), c2))
    value = _m.multiply(luminance, cs)
    if not return_index_map:
        value = _m.reduce_mean(value, [-3, -2])
    return value, _m.reduce_mean(cs, [-3, -2])


def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03, return_index_map=False):
    """Structural similarity per image (or the per-pixel map): an 11x11 Gaussian (sigma 1.5) window, VALID, the
    channels' mean; images as float32 in [0, 1] when integer."""
    from .image_ops import convert_image_dtype
    x, y = to_tensor(img1), to_tensor(img2)
    if x.shape.rank is not None and y.shape.rank is not None and x.shape.rank >= 3 and y.shape.rank >= 3:
        for d1, d2 in zip(x.shape.as_list()[-3:], y.shape.as_list()[-3:]):
            if d1 is not None and d2 is not None and d1 != d2:
                raise ValueError(f"Shapes {x.shape} and {y.shape} are incompatible")
        for d in x.shape.as_list()[-3:-1]:
            if d is not None and d < filter_size:
                from ..errors import InvalidArgumentError
                raise InvalidArgumentError("img1 has dimension less than filter_size.")
    mv = convert_image_dtype(_m.cast(max_val, x.dtype), _dt.float32)
    x, y = convert_image_dtype(x, _dt.float32), convert_image_dtype(y, _dt.float32)
    per_channel, _ = _ssim_per_channel(x, y, mv, filter_size, filter_sigma, k1, k2, return_index_map)
    return _m.reduce_mean(per_channel, [-1])


def adjust_gamma(image, gamma=1, gain=1):
    """gain * image ** gamma on floats in [0, 1] (integer images scaled there and back, saturating)."""
    from .image_ops import convert_image_dtype
    x = to_tensor(image)
    orig = x.dtype
    flt = x if orig in (_dt.float16, _dt.float32) else convert_image_dtype(x, _dt.float32)
    g = _a.identity(gamma) if hasattr(gamma, "dtype") else gamma
    if not hasattr(g, "dtype") and g < 0:
        raise ValueError("Gamma should be a non-negative real number.")
    adjusted = _m.multiply(gain, _m.pow(flt, _m.cast(g, flt.dtype) if hasattr(g, "dtype") else g))
    return convert_image_dtype(adjusted, orig, saturate=True)


# ---------------------------------------------------------------- colour spaces
_RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512],
               [0.114, 0.43601035, -0.10001026]]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]
_RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617], [0.114, -0.32134392, 0.31119955]]
_YIQ_TO_RGB = [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021], [0.6208248, -0.64720424, 1.70423049]]


def _colour(images, matrix, name):
    x = to_tensor(images)
    if not x.dtype.is_floating:
        raise TypeError(f"{name} needs a floating point image, got {x.dtype.name}")
    k = to_tensor(np.asarray(matrix, x.dtype.as_numpy_dtype))
    shape = _a.shape(x)
    flat = _m.matmul(_a.reshape(x, [-1, 3]), k)
    return _a.reshape(flat, shape)


def rgb_to_yuv(images):
    """RGB (floats in [0, 1]) to YUV: Y in [0, 1], U and V in [-0.5, 0.5]."""
    return _colour(images, _RGB_TO_YUV, "rgb_to_yuv")


def yuv_to_rgb(images):
    return _colour(images, _YUV_TO_RGB, "yuv_to_rgb")


def rgb_to_yiq(images):
    """RGB (floats in [0, 1]) to YIQ."""
    return _colour(images, _RGB_TO_YIQ, "rgb_to_yiq")


def yiq_to_rgb(images):
    return _colour(images, _YIQ_TO_RGB, "yiq_to_rgb")


# ---------------------------------------------------------------- image_gradients, transpose
def image_gradients(image):
    """(dy, dx): forward differences along height and width of a 4-D batch, 0 in the last row / column."""
    x = to_tensor(image)
    if x.shape.rank != 4:
        raise ValueError(f"image_gradients expects a 4D tensor [batch_size, h, w, d], not {x.shape}.")
    shape = _a.shape(x)
    dy = _m.subtract(x[:, 1:, :, :], x[:, :-1, :, :])
    dx = _m.subtract(x[:, :, 1:, :], x[:, :, :-1, :])
    dy = _a.concat([dy, _a.zeros(_a.stack([shape[0], 1, shape[2], shape[3]]), x.dtype)], 1)
    dx = _a.concat([dx, _a.zeros(_a.stack([shape[0], shape[1], 1, shape[3]]), x.dtype)], 2)
    return dy, dx


def transpose(image, name=None):
    """Swaps height and width of a 3-D image or a 4-D batch."""
    x = to_tensor(image)
    rank = x.shape.rank
    if rank == 3:
        return _a.transpose(x, [1, 0, 2], name=name)
    if rank == 4:
        return _a.transpose(x, [0, 2, 1, 3], name=name)
    raise ValueError("'image' must have either 3 or 4 dimensions.")


# ---------------------------------------------------------------- extract_patches
from ..core.dispatch import bind  # noqa: E402
from ..core.op import defop  # noqa: E402
from ..errors import InvalidArgumentError  # noqa: E402
from ..shape import TensorShape  # noqa: E402


def _patch_geometry(in_rows, in_cols, ksizes, strides, rates, padding):
    """Output size and top-left padding of each spatial dimension, as a dilated convolution's."""
    out, pads = [], []
    for n, k, s, r in zip((in_rows, in_cols), ksizes[1:3], strides[1:3], rates[1:3]):
        eff = (k - 1) * r + 1
        if padding == "VALID":
            o = (n - eff + s) // s
            pads.append(0)
        else:
            o = -(-n // s)
            pads.append(max((o - 1) * s + eff - n, 0) // 2)
        out.append(max(o, 0))
    return out, pads


def _patch_index(shape, ksizes, strides, rates, padding):
    """For each output element (row, col, patch entry) the flat index into the image (-1: padding)."""
    _, h, w, d = shape
    (oh, ow), (ph, pw) = _patch_geometry(h, w, ksizes, strides, rates, padding)
    kr, kc = ksizes[1], ksizes[2]
    i = np.arange(oh)[:, None, None, None, None] * strides[1] - ph + np.arange(kr)[None, None, :, None, None] * \
        rates[1]
    j = np.arange(ow)[None, :, None, None, None] * strides[2] - pw + np.arange(kc)[None, None, None, :, None] * \
        rates[2]
    c = np.arange(d)[None, None, None, None, :]
    i, j, c = np.broadcast_arrays(i, j, c)
    inside = (i >= 0) & (i < h) & (j >= 0) & (j < w)
    flat = np.where(inside, (i * w + j) * d + c, -1)
    return flat.reshape(oh, ow, kr * kc * d)


def _patches_kernel(images, ksizes, strides, rates, padding):
    idx = _patch_index(images.shape, ksizes, strides, rates, padding)
    flat = images.reshape(images.shape[0], -1)
    out = np.where(idx >= 0, np.take(flat, np.maximum(idx, 0), axis=1), 0).astype(images.dtype)
    return out.reshape((images.shape[0],) + idx.shape)


def _patches_grad_kernel(dy, images, ksizes, strides, rates, padding):
    idx = _patch_index(images.shape, ksizes, strides, rates, padding).reshape(-1)
    g = np.zeros((images.shape[0], int(np.prod(images.shape[1:]))), dy.dtype)
    keep = idx >= 0
    src = dy.reshape(dy.shape[0], -1)[:, keep]
    for b in range(images.shape[0]):
        np.add.at(g[b], idx[keep], src[b])
    return g.reshape(images.shape)


def _patches_infer(images, ksizes, strides, rates, padding):
    if images.shape.rank is None:
        return TensorShape([None] * 4), images.dtype
    if images.shape.rank != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {images.shape.rank}")
    n, h, w, d = images.shape.as_list()
    oh = ow = None
    if h is not None and w is not None:
        (oh, ow), _ = _patch_geometry(h, w, ksizes, strides, rates, padding)
    depth = None if d is None else ksizes[1] * ksizes[2] * d
    return TensorShape([n, oh, ow, depth]), images.dtype


EXTRACT_PATCHES_GRAD = defop("ExtractImagePatchesGrad", _patches_grad_kernel,
                             lambda dy, images, **a: (images.shape, images.dtype))
EXTRACT_PATCHES = defop("ExtractImagePatches", _patches_kernel, _patches_infer,
                        grad=lambda op, dy: (bind(EXTRACT_PATCHES_GRAD, (dy, op.inputs[0]), op.attrs),))


def _four(v, what):
    v = [int(x) for x in np.ravel(v)]
    if len(v) != 4 or v[0] != 1 or v[3] != 1:
        raise ValueError(f"{what} must be [1, rows, cols, 1], got {v}")
    return tuple(v)


def extract_patches(images, sizes, strides, rates, padding, name=None):
    """Patches of sizes[1] x sizes[2] (dilated by rates) every strides, each flattened (rows, columns, depth)
    into the depth of a [batch, out_rows, out_cols, sizes[1] * sizes[2] * depth] tensor."""
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"padding must be 'SAME' or 'VALID', got {padding!r}")
    return bind(EXTRACT_PATCHES, (to_tensor(images),), {
        "ksizes": _four(sizes, "sizes"), "strides": _four(strides, "strides"), "rates": _four(rates, "rates"),
        "padding": padding}, name=name or "ExtractImagePatches")


# ---------------------------------------------------------------- crop_and_resize
def _car_points(boxes, crop_size, image_size):
    """Source coordinates (y [n, ch], x [n, cw]) of each crop's samples, as TensorFlow's kernel computes them in
    float32."""
    ch, cw = crop_size
    h, w = image_size
    b = boxes.astype(np.float32)
    y1, x1, y2, x2 = b[:, 0:1], b[:, 1:2], b[:, 2:3], b[:, 3:4]
    f = np.float32
    if ch > 1:
        ys = y1 * f(h - 1) + np.arange(ch, dtype=f)[None] * ((y2 - y1) * f(h - 1) / f(ch - 1))
    else:
        ys = np.broadcast_to(f(0.5) * (y1 + y2) * f(h - 1), (len(b), 1))
    if cw > 1:
        xs = x1 * f(w - 1) + np.arange(cw, dtype=f)[None] * ((x2 - x1) * f(w - 1) / f(cw - 1))
    else:
        xs = np.broadcast_to(f(0.5) * (x1 + x2) * f(w - 1), (len(b), 1))
    return ys, xs


def _car_kernel(image, boxes, box_ind, crop_size, method, extrapolation_value):
    n_img, h, w, d = image.shape
    if ((box_ind < 0) | (box_ind >= n_img)).any():
        raise InvalidArgumentError(f"box_ind has values outside [0, {n_img})")
    ch, cw = (int(v) for v in crop_size)
    img = image.astype(np.float32)
    ys, xs = _car_points(boxes, (ch, cw), (h, w))
    out = np.full((len(boxes), ch, cw, d), np.float32(extrapolation_value), np.float32)
    for k in range(len(boxes)):
        im = img[box_ind[k]]
        y, x = ys[k], xs[k]
        vy = (y >= 0) & (y <= h - 1)
        vx = (x >= 0) & (x <= w - 1)
        if method == "nearest":
            yi = np.rint(np.where(vy, y, 0)).astype(np.int64)
            xi = np.rint(np.where(vx, x, 0)).astype(np.int64)
            vals = im[yi][:, xi]
        else:
            yc, xc = np.where(vy, y, 0), np.where(vx, x, 0)
            t, bt = np.floor(yc).astype(np.int64), np.ceil(yc).astype(np.int64)
            lf, rt = np.floor(xc).astype(np.int64), np.ceil(xc).astype(np.int64)
            ly, lx = (yc - t)[:, None, None], (xc - lf)[None, :, None]
            top = im[t][:, lf] + (im[t][:, rt] - im[t][:, lf]) * lx
            bottom = im[bt][:, lf] + (im[bt][:, rt] - im[bt][:, lf]) * lx
            vals = top + (bottom - top) * ly
        mask = vy[:, None] & vx[None, :]
        out[k] = np.where(mask[:, :, None], vals, out[k])
    return out


def _car_grads_kernel(dy, image, boxes, box_ind, crop_size, method, extrapolation_value):
    """(image gradient, boxes gradient) of the bilinear crop, as TensorFlow's CropAndResizeGrad* kernels."""
    n_img, h, w, d = image.shape
    ch, cw = (int(v) for v in crop_size)
    img = image.astype(np.float32)
    ys, xs = _car_points(boxes, (ch, cw), (h, w))
    g_img = np.zeros(image.shape, np.float32)
    g_box = np.zeros((len(boxes), 4), np.float32)
    hr = (h - 1) / (ch - 1) if ch > 1 else 0.0
    wr = (w - 1) / (cw - 1) if cw > 1 else 0.0
    for k in range(len(boxes)):
        b = box_ind[k]
        for yy in range(ch):
            y = ys[k, yy if ch > 1 else 0]
            if y < 0 or y > h - 1:
                continue
            t, bt = int(np.floor(y)), int(np.ceil(y))
            ly = y - t
            for xx in range(cw):
                x = xs[k, xx if cw > 1 else 0]
                if x < 0 or x > w - 1:
                    continue
                lf, rt = int(np.floor(x)), int(np.ceil(x))
                lx = x - lf
                gv = dy[k, yy, xx].astype(np.float32)
                if method == "nearest":
                    g_img[b, int(np.rint(y)), int(np.rint(x))] += gv
                    continue
                g_img[b, t, lf] += gv * (1 - ly) * (1 - lx)
                g_img[b, t, rt] += gv * (1 - ly) * lx
                g_img[b, bt, lf] += gv * ly * (1 - lx)
                g_img[b, bt, rt] += gv * ly * lx
                tl, tr, bl, br = img[b, t, lf], img[b, t, rt], img[b, bt, lf], img[b, bt, rt]
                gy = float(np.sum(((1 - lx) * (bl - tl) + lx * (br - tr)) * gv))
                gx = float(np.sum(((1 - ly) * (tr - tl) + ly * (br - bl)) * gv))
                if ch > 1:
                    g_box[k, 0] += gy * (h - 1 - yy * hr)
                    g_box[k, 2] += gy * (yy * hr)
                else:
                    g_box[k, 0] += gy * 0.5 * (h - 1)
                    g_box[k, 2] += gy * 0.5 * (h - 1)
                if cw > 1:
                    g_box[k, 1] += gx * (w - 1 - xx * wr)
                    g_box[k, 3] += gx * (xx * wr)
                else:
                    g_box[k, 1] += gx * 0.5 * (w - 1)
                    g_box[k, 3] += gx * 0.5 * (w - 1)
    return g_img.astype(image.dtype) if image.dtype.kind == "f" else g_img, g_box.astype(boxes.dtype)


CROP_AND_RESIZE_GRADS = defop("_CropAndResizeGrads", _car_grads_kernel,
                              lambda dy, image, boxes, box_ind, **a: [(image.shape, image.dtype
                                                                       if image.dtype.is_floating else _dt.float32),
                                                                      (boxes.shape, boxes.dtype)], num_outputs=2)


def _car_grad(op, dy):
    image, boxes, box_ind = op.inputs[:3]
    gi, gb = bind(CROP_AND_RESIZE_GRADS, (dy, image, boxes, box_ind), op.attrs)
    return (gi if image.dtype.is_floating else None), gb, None


def _car_infer(image, boxes, box_ind, crop_size, method, extrapolation_value):
    d = image.shape[3] if image.shape.rank == 4 else None
    return TensorShape([boxes.shape[0] if boxes.shape.rank else None, crop_size[0], crop_size[1], d]), _dt.float32


CROP_AND_RESIZE = defop("CropAndResize", _car_kernel, _car_infer, grad=_car_grad)


def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear", extrapolation_value=0.0, name=None):
    """Crops of the normalised boxes [y1, x1, y2, x2] of image[box_indices[i]], resized to crop_size (bilinear or
    nearest), float32; samples outside the image take extrapolation_value. Differentiable in image and boxes."""
    if method not in ("bilinear", "nearest"):
        raise ValueError(f"method must be 'bilinear' or 'nearest', got {method!r}")
    cs = tuple(int(v) for v in np.ravel(static_value(to_tensor(crop_size))))
    if len(cs) != 2 or min(cs) <= 0:
        raise ValueError(f"crop_size must be two positive integers, got {cs}")
    return bind(CROP_AND_RESIZE, (to_tensor(image), to_tensor(boxes, _dt.float32), to_tensor(box_indices, _dt.int32)),
                {"crop_size": cs, "method": method, "extrapolation_value": float(extrapolation_value)},
                name=name or "CropAndResize")


# ---------------------------------------------------------------- non-max suppression
def _iou_matrix(boxes):
    b = boxes.astype(np.float64)
    y1, y2 = np.minimum(b[:, 0], b[:, 2]), np.maximum(b[:, 0], b[:, 2])
    x1, x2 = np.minimum(b[:, 1], b[:, 3]), np.maximum(b[:, 1], b[:, 3])
    area = (y2 - y1) * (x2 - x1)
    ih = np.maximum(np.minimum(y2[:, None], y2[None]) - np.maximum(y1[:, None], y1[None]), 0)
    iw = np.maximum(np.minimum(x2[:, None], x2[None]) - np.maximum(x1[:, None], x1[None]), 0)
    inter = ih * iw
    union = area[:, None] + area[None] - inter
    ok = (area[:, None] > 0) & (area[None] > 0)
    return np.where(ok, inter / np.where(union > 0, union, 1), 0.0)


def _greedy(sim, scores, max_out, threshold, score_threshold, sigma):
    """TensorFlow's NMS: candidates by score (ties: lower index), each tested against the boxes selected since
    it was last scored; soft-NMS (sigma > 0) decays scores by exp(-iou^2 / (2 sigma)) and re-queues them."""
    import heapq
    scores = scores.astype(np.float64)
    scale = -0.5 / sigma if sigma > 0 else 0.0
    thr = 1.0 if sigma > 0 else threshold
    heap = [(-s, i, 0) for i, s in enumerate(scores.tolist()) if s > score_threshold]
    heapq.heapify(heap)
    selected, sel_scores = [], []
    while heap and len(selected) < max_out:
        neg, i, begin = heapq.heappop(heap)
        score = original = -neg
        hard = False
        for j in range(len(selected) - 1, begin - 1, -1):
            s = sim[i, selected[j]]
            if sigma <= 0 and s > thr:
                hard = True
                break
            score *= np.exp(scale * s * s) if s <= thr else 0.0
            if score <= score_threshold:
                break
        if hard:
            continue
        if score == original:
            selected.append(i)
            sel_scores.append(score)
        elif score > score_threshold:
            heapq.heappush(heap, (-score, i, len(selected)))
    return selected, sel_scores


def _nms_kernel(boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma, overlaps,
                pad_to_max):
    if not overlaps and (boxes.ndim != 2 or boxes.shape[1] != 4):
        raise InvalidArgumentError(f"boxes must be 2-D with 4 columns, got shape [{','.join(map(str, boxes.shape))}]")
    thr = float(iou_threshold)
    if not overlaps and not 0 <= thr <= 1:
        raise InvalidArgumentError("iou_threshold must be in [0, 1]")
    sim = boxes.astype(np.float64) if overlaps else _iou_matrix(boxes)
    m = int(max_output_size)
    sel, sc = _greedy(sim, scores, m, thr, float(score_threshold), float(soft_nms_sigma))
    n = len(sel)
    if pad_to_max:
        sel = sel + [0] * (m - n)
        sc = sc + [0.0] * (m - n)
    return np.asarray(sel, np.int32), np.asarray(sc, scores.dtype), np.int32(n)


NMS = defop("_NonMaxSuppression", _nms_kernel,
            lambda boxes, scores, m, t, s, sigma, overlaps, pad_to_max: [
                (TensorShape([None]), _dt.int32), (TensorShape([None]), scores.dtype), (TensorShape([]), _dt.int32)],
            num_outputs=3)


def _nms(boxes, scores, max_output_size, iou_threshold, score_threshold, sigma=0.0, overlaps=False, pad=False):
    b = to_tensor(boxes)
    s = to_tensor(scores)
    dt = s.dtype
    return bind(NMS, (b, s, to_tensor(max_output_size, _dt.int32), to_tensor(iou_threshold, dt),
                      to_tensor(score_threshold, dt), to_tensor(sigma, dt)),
                {"overlaps": bool(overlaps), "pad_to_max": bool(pad)}, name="NonMaxSuppression")


def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"),
                        name=None):
    """Indices (int32) of at most max_output_size boxes, greedily by score, dropping those whose IoU with a kept
    box exceeds iou_threshold and those scoring score_threshold or less."""
    return _nms(boxes, scores, max_output_size, iou_threshold, score_threshold)[0]


def non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5,
                                    score_threshold=float("-inf"), soft_nms_sigma=0.0, name=None):
    """(indices, their scores): with soft_nms_sigma > 0 Soft-NMS, overlapping boxes' scores decayed by
    exp(-iou^2 / (2 sigma)) instead of dropped."""
    sel, sc, _ = _nms(boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma)
    return sel, sc


def non_max_suppression_padded(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"),
                               pad_to_max_output_size=False, name=None, sorted_input=False,
                               canonicalized_coordinates=False, tile_size=512):
    """(indices, number valid): indices zero-padded to max_output_size when pad_to_max_output_size."""
    sel, _, n = _nms(boxes, scores, max_output_size, iou_threshold, score_threshold, pad=pad_to_max_output_size)
    return sel, n


def non_max_suppression_overlaps(overlaps, scores, max_output_size, overlap_threshold=0.5,
                                 score_threshold=float("-inf"), name=None):
    """non_max_suppression on a given [n, n] overlap matrix instead of boxes' IoU."""
    return _nms(overlaps, scores, max_output_size, overlap_threshold, score_threshold, overlaps=True)[0]


# ---------------------------------------------------------------- combined_non_max_suppression
def _combined_kernel(boxes, scores, max_per_class, max_total, iou_threshold, score_threshold, pad_per_class,
                     clip_boxes):
    batch, n, q, _ = boxes.shape
    n_cls = scores.shape[2]
    m_class, m_total = int(max_per_class), int(max_total)
    size = min(m_total, m_class * n_cls) if pad_per_class else m_total
    out_boxes = np.zeros((batch, size, 4), np.float32)
    out_scores = np.zeros((batch, size), np.float32)
    out_classes = np.zeros((batch, size), np.float32)
    valid = np.zeros(batch, np.int32)
    for b in range(batch):
        cands = []
        for c in range(n_cls):
            bx = boxes[b, :, c if q > 1 else 0]
            sel, sc = _greedy(_iou_matrix(bx), scores[b, :, c], m_class, float(iou_threshold),
                              float(score_threshold), 0.0)
            cands += [(s, c, i) for i, s in zip(sel, sc)]
        cands.sort(key=lambda t: -t[0])  # stable: class order, then each class's selection order
        cands = cands[:size]
        for k, (s, c, i) in enumerate(cands):
            box = boxes[b, i, c if q > 1 else 0].astype(np.float32)
            out_boxes[b, k] = np.clip(box, 0, 1) if clip_boxes else box
            out_scores[b, k] = s
            out_classes[b, k] = c
        valid[b] = len(cands)
    return out_boxes, out_scores, out_classes, valid


COMBINED_NMS = defop("CombinedNonMaxSuppression", _combined_kernel,
                     lambda boxes, scores, m, t, i, s, pad_per_class, clip_boxes: [
                         (TensorShape([boxes.shape[0], None, 4]), _dt.float32),
                         (TensorShape([boxes.shape[0], None]), _dt.float32),
                         (TensorShape([boxes.shape[0], None]), _dt.float32),
                         (TensorShape([boxes.shape[0]]), _dt.int32)], num_outputs=4)


def combined_non_max_suppression(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold=0.5,
                                 score_threshold=float("-inf"), pad_per_class=False, clip_boxes=True, name=None):
    """Per batch item, NMS in each class (boxes [batch, n, q, 4], q = 1 shared or one per class; scores
    [batch, n, classes]), then the best max_total_size over classes: (boxes, scores, classes, valid count),
    zero-padded; boxes clipped to [0, 1] unless clip_boxes=False."""
    out = bind(COMBINED_NMS, (to_tensor(boxes, _dt.float32), to_tensor(scores, _dt.float32),
                              to_tensor(max_output_size_per_class, _dt.int32), to_tensor(max_total_size, _dt.int32),
                              to_tensor(iou_threshold, _dt.float32), to_tensor(score_threshold, _dt.float32)),
               {"pad_per_class": bool(pad_per_class), "clip_boxes": bool(clip_boxes)},
               name=name or "CombinedNonMaxSuppression")
    return tuple(out)


# ---------------------------------------------------------------- draw_bounding_boxes
def _draw_kernel(images, boxes, colors):
    out = np.array(images, copy=True)
    n, h, w, depth = out.shape
    table = np.asarray(colors, np.float64).reshape(len(colors), -1) if np.size(colors) else np.asarray(
        [[1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1], [0.5, 0, 0.5, 1], [0.5, 0.5, 0, 1],
         [0.5, 0, 0, 1], [0, 0, 0.5, 1], [0, 1, 1, 1], [1, 0, 1, 1]])
    if table.shape[1] < depth:
        raise InvalidArgumentError(f"colors must have at least {depth} channels, got {table.shape[1]}")
    for b in range(n):
        for k in range(boxes.shape[1]):
            color = table[k % len(table), :depth].astype(out.dtype)
            y0, x0, y1, x1 = (int(np.float32(v) * (d - 1)) for v, d in zip(boxes[b, k], (h, w, h, w)))
            if y0 > y1 or x0 > x1 or y0 >= h or y1 < 0 or x0 >= w or x1 < 0:
                continue  # inverted or outside the image: not drawn, as TensorFlow
            cy0, cy1, cx0, cx1 = max(y0, 0), min(y1, h - 1), max(x0, 0), min(x1, w - 1)
            if y0 >= 0:
                out[b, y0, cx0:cx1 + 1] = color
            if y1 < h:
                out[b, y1, cx0:cx1 + 1] = color
            if x0 >= 0:
                out[b, cy0:cy1 + 1, x0] = color
            if x1 < w:
                out[b, cy0:cy1 + 1, x1] = color
    return out


DRAW_BOXES = defop("DrawBoundingBoxesV2", _draw_kernel, lambda images, boxes, colors: (images.shape, images.dtype),
                   allowed=frozenset([_dt.float16, _dt.float32]))


def draw_bounding_boxes(images, boxes, colors, name=None):
    """The images with each box's outline ([y_min, x_min, y_max, x_max], normalised) drawn one pixel wide in the
    colour colors[k % len(colors)] (later boxes over earlier ones)."""
    x = to_tensor(images)
    c = to_tensor(np.zeros((0, 4), np.float32) if colors is None else colors, _dt.float32)
    return bind(DRAW_BOXES, (x, to_tensor(boxes, _dt.float32), c), name=name or "DrawBoundingBoxesV2")


# ---------------------------------------------------------------- ssim_multiscale
_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def ssim_multiscale(img1, img2, max_val, power_factors=_MSSSIM_WEIGHTS, filter_size=11, filter_sigma=1.5, k1=0.01,
                    k2=0.03):
    """Multi-scale SSIM: contrast-structure terms of each scale (2x2 average-pooled between scales, odd sizes
    padded symmetrically) and the SSIM of the last, combined as a weighted geometric mean; the channels' mean."""
    from .image_ops import convert_image_dtype
    from .nn_ops import avg_pool2d, relu
    x, y = to_tensor(img1), to_tensor(img2)
    mv = convert_image_dtype(_m.cast(max_val, x.dtype), _dt.float32)
    imgs = [convert_image_dtype(x, _dt.float32), convert_image_dtype(y, _dt.float32)]
    head = _a.shape(imgs[0])[:-3]
    mcs = []
    ssim_pc = None
    for k in range(len(power_factors)):
        if k > 0:
            tails = _a.shape(imgs[0])[-3:]
            flat = [_a.reshape(v, _a.concat([[-1], tails], 0)) for v in imgs]
            rem = np.asarray(static_value(tails)) % np.array([2, 2, 1]) if static_value(tails) is not None else None
            if rem is None:
                raise ValueError("rivulet's ssim_multiscale needs the image sizes known when traced")
            if rem.any():
                pads = [[0, 0], [0, int(rem[0])], [0, int(rem[1])], [0, 0]]
                flat = [_a.pad(v, pads, mode="SYMMETRIC") for v in flat]
            down = [avg_pool2d(v, [2, 2], [2, 2], "VALID") for v in flat]
            imgs = [_a.reshape(v, _a.concat([head, _a.shape(v)[1:]], 0)) for v in down]
        ssim_pc, cs = _ssim_per_channel(imgs[0], imgs[1], mv, filter_size, filter_sigma, k1, k2, False)
        mcs.append(relu(cs))
    mcs.pop()
    stacked = _a.stack(mcs + [relu(ssim_pc)], axis=-1)
    ms = _m.reduce_prod(_m.pow(stacked, to_tensor(np.asarray(power_factors, np.float32))), [-1])
    return _m.reduce_mean(ms, [-1])
