"""Turn the OBB detector's raw output into boxes: confidence filter, rotated NMS. Pure numpy.

Two output layouts exist. The classic head gives (1, 4+nc+1, N): cx, cy, w, h, one score per class,
then the angle in radians; it needs NMS, done here as ultralytics does it (best class per box,
class-aware by offsetting centres by class * MAX_WH, Fast-NMS over probabilistic IoU). End-to-end
heads (YOLO26) give (1, K, 7): cx, cy, w, h, score, class, angle, already suppressed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np

MAX_WH: Final = 7680  # per-class centre offset for class-aware NMS, as ultralytics
MAX_NMS: Final = 30000  # most candidates NMS looks at
NMS_PAIRS: Final = 1 << 20  # pairs of boxes looked at a time (bounded memory)
EPS: Final = 1e-7


@dataclass(frozen=True, slots=True)
class Decoded:
    """Boxes in network-input pixels: xywhr (n,5), score (n,), class id (n,)."""

    obb: np.ndarray
    score: np.ndarray
    class_id: np.ndarray


def _covariance(obb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a = obb[..., 2] ** 2 / 12
    b = obb[..., 3] ** 2 / 12
    cos, sin = np.cos(obb[..., 4]), np.sin(obb[..., 4])
    return a * cos**2 + b * sin**2, a * sin**2 + b * cos**2, (a - b) * cos * sin


def _probiou(obb1: np.ndarray, obb2: np.ndarray) -> np.ndarray:
    """Probabilistic IoU of broadcastable (..., 5) xywhr arrays, as ultralytics' batch_probiou."""
    x1, y1, x2, y2 = obb1[..., 0], obb1[..., 1], obb2[..., 0], obb2[..., 1]
    a1, b1, c1 = _covariance(obb1)
    a2, b2, c2 = _covariance(obb2)
    denom = (a1 + a2) * (b1 + b2) - (c1 + c2) ** 2 + EPS
    t1 = ((a1 + a2) * (y1 - y2) ** 2 + (b1 + b2) * (x1 - x2) ** 2) / denom * 0.25
    t2 = ((c1 + c2) * (x2 - x1) * (y1 - y2)) / denom * 0.5
    det1 = np.clip(a1 * b1 - c1**2, 0, None)
    det2 = np.clip(a2 * b2 - c2**2, 0, None)
    t3 = (
        np.log(((a1 + a2) * (b1 + b2) - (c1 + c2) ** 2) / (4 * np.sqrt(det1 * det2) + EPS) + EPS)
        * 0.5
    )
    bd = np.clip(t1 + t2 + t3, EPS, 100.0)
    return 1 - np.sqrt(1.0 - np.exp(-bd) + EPS)


def probiou(obb1: np.ndarray, obb2: np.ndarray) -> np.ndarray:
    """(n,5) x (m,5) xywhr -> (n,m) probabilistic IoU (Gaussian Bhattacharyya distance)."""
    obb1 = np.asarray(obb1, dtype=np.float64).reshape(-1, 5)
    obb2 = np.asarray(obb2, dtype=np.float64).reshape(-1, 5)
    return _probiou(obb1[:, None, :], obb2[None, :, :])


def overlap_gate(iou_threshold: float) -> float:
    """k such that boxes whose centres are farther apart than k * (r1 + r2) (r: half diagonals)
    cannot reach `iou_threshold`: probiou's distance is at least 0.75 k^2 there (its Mahalanobis
    term, with each box's variance at most its half diagonal squared / 3). inf when no bound helps.
    """
    hd = 1.0 - iou_threshold
    if hd >= 0.999:
        return float("inf")
    needed = -np.log(1.0 - hd * hd)  # the Bhattacharyya distance at which probiou = threshold
    return float(np.sqrt(needed / 0.75)) * 1.05 + 1e-3


def fast_nms_rotated(obb: np.ndarray, score: np.ndarray, iou_threshold: float) -> np.ndarray:
    """Indices of the boxes Fast-NMS keeps, best first.

    Fast-NMS (ultralytics' choice for OBB): a box goes if any higher-scoring box overlaps it by more
    than the threshold, whether or not that box itself survives. Only pairs close enough to reach
    the threshold (see overlap_gate) get the costly probiou, and only boxes within that reach
    along x are paired at all (sorted by x: a late round's 1,900 candidates took 26-35 ms as
    256-row blocks of every pair's distance, 3-5 ms so); which pairs are looked at does not
    change the result, since a box goes when any higher-scoring one overlaps it.
    """
    order = np.argsort(-score, kind="stable")
    boxes = np.asarray(obb, np.float32)[order]  # float32 like ultralytics' torch NMS
    n = len(boxes)
    suppressed = np.zeros(n, dtype=bool)
    if n < 2:
        return order
    radius = np.hypot(boxes[:, 2], boxes[:, 3]) / 2
    gate = overlap_gate(iou_threshold)
    if np.isfinite(gate):
        # every pair the gate lets through lies within this of each other along x (a margin
        # over float32's rounding of the same test below)
        reach = gate * (radius.astype(np.float64) + float(radius.max())) * 1.001 + 1e-3
    else:
        reach = np.full(n, np.inf)
    by_x = np.argsort(boxes[:, 0], kind="stable")
    xs = boxes[by_x, 0].astype(np.float64)
    low = np.searchsorted(xs, boxes[:, 0] - reach, side="left")
    high = np.searchsorted(xs, boxes[:, 0] + reach, side="right")
    pairs_to = np.cumsum(high - low)  # pairs looked at up to each row, that row's included
    start = 0
    while start < n:  # rows in chunks of about NMS_PAIRS pairs: bounded memory
        before = int(pairs_to[start - 1]) if start else 0
        stop = max(start + 1, int(np.searchsorted(pairs_to, before + NMS_PAIRS, "right")))
        counts = high[start:stop] - low[start:stop]
        rows = np.repeat(np.arange(start, stop), counts)
        offsets = np.arange(len(rows)) - np.repeat(np.cumsum(counts) - counts, counts)
        cols = by_x[np.repeat(low[start:stop], counts) + offsets]
        lower = cols > rows  # only lower-scored boxes
        rows, cols = rows[lower], cols[lower]
        dx = boxes[rows, 0] - boxes[cols, 0]
        dy = boxes[rows, 1] - boxes[cols, 1]
        near = np.hypot(dx, dy) <= gate * (radius[rows] + radius[cols])
        rows, cols = rows[near], cols[near]
        if len(rows):
            over = _probiou(boxes[rows], boxes[cols]) > iou_threshold
            suppressed[cols[over]] = True
        start = stop
    return order[~suppressed]


def decode_raw(
    output: np.ndarray,
    *,
    num_classes: int,
    conf: float = 0.25,
    iou: float = 0.7,
    agnostic: bool = False,
    max_det: int = 300,
) -> Decoded:
    """Classic OBB head output (1, 4+nc+1, N) or (4+nc+1, N) -> suppressed boxes."""
    pred = np.asarray(output)
    if pred.ndim == 3:
        if pred.shape[0] != 1:
            raise ValueError(f"decode_raw: expected a batch of 1, got shape {pred.shape}")
        pred = pred[0]
    if pred.ndim != 2 or pred.shape[0] != 4 + num_classes + 1:
        raise ValueError(
            f"decode_raw: expected shape (1, {4 + num_classes + 1}, N) for {num_classes} classes, "
            f"got {np.asarray(output).shape}"
        )
    # a NaN score is no score (argmax would take it for the best), and a box whose centre, size
    # or angle is not a finite number is no box: it would pass suppression and break the cut
    scores = np.where(np.isnan(pred[4 : 4 + num_classes]), -np.inf, pred[4 : 4 + num_classes])
    best = scores.argmax(axis=0)
    best_score = scores[best, np.arange(pred.shape[1])]
    geometry = np.concatenate([pred[:4], pred[-1:]], axis=0)
    # nor is one with no width or height (its probabilistic IoU is NaN: never suppressed), nor
    # an infinite score
    sized = (pred[2] > 0) & (pred[3] > 0)
    keep = (best_score > conf) & np.isfinite(best_score) & np.isfinite(geometry).all(axis=0) & sized
    if not keep.any():
        return _empty()
    cand = pred[:, keep].T  # (k, 4+nc+1)
    score = best_score[keep].astype(np.float32)
    class_id = best[keep].astype(np.int64)
    obb = np.concatenate([cand[:, :4], cand[:, -1:]], axis=1).astype(np.float32)
    if len(score) > MAX_NMS:
        top = np.argsort(-score, kind="stable")[:MAX_NMS]
        obb, score, class_id = obb[top], score[top], class_id[top]
    return suppress(Decoded(obb, score, class_id), iou=iou, agnostic=agnostic, max_det=max_det)


def suppress(
    decoded: Decoded, *, iou: float = 0.7, agnostic: bool = False, max_det: int = 300
) -> Decoded:
    """The boxes Fast-NMS keeps (within a class unless `agnostic`), best first, at most
    `max_det`."""
    if not len(decoded.score):
        return _empty()
    shifted = np.array(decoded.obb, dtype=np.float32, copy=True)
    if not agnostic:
        # classes moved apart by more than any box reaches: ultralytics' fixed 7680 let a
        # face-up box suppress a back in a frame (or merged tiles) larger than that
        reach = float(np.abs(shifted[:, :4]).max(initial=0.0)) * 2 + 1
        shifted[:, :2] += decoded.class_id[:, None].astype(np.float32) * max(MAX_WH, reach)
    kept = fast_nms_rotated(shifted, decoded.score, iou)[:max_det]
    return Decoded(
        obb=decoded.obb[kept], score=decoded.score[kept], class_id=decoded.class_id[kept]
    )


def decode_end2end(output: np.ndarray, *, conf: float = 0.25, max_det: int = 300) -> Decoded:
    """End-to-end head output (1, K, 7): cx, cy, w, h, score, class, angle -> boxes above conf."""
    pred = np.asarray(output)
    if pred.ndim == 3:
        pred = pred[0]
    if pred.ndim != 2 or pred.shape[1] != 7:
        raise ValueError(
            f"decode_end2end: expected shape (1, K, 7), got {np.asarray(output).shape}"
        )
    finite = np.isfinite(pred).all(axis=1)  # NaN or inf anywhere: no box
    pred = pred[finite & (pred[:, 4] > conf)][:max_det]
    return Decoded(
        obb=np.concatenate([pred[:, :4], pred[:, 6:7]], axis=1).astype(np.float32),
        score=pred[:, 4].astype(np.float32),
        class_id=pred[:, 5].astype(np.int64),
    )


def _empty() -> Decoded:
    return Decoded(np.zeros((0, 5), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int64))
