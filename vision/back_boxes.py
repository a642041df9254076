"""The geometry of detected back boxes that deck identification reads and rules on: a box snapped
to its drawing's ink, scaled or cut along its sides for another reading, its sides, and which
boxes lie on face-up cards or are a face-up box on a surer back.
"""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np

from blitzcam.vision.detections import obb_corners
from blitzcam.vision.embedding import white_balance
from blitzcam.vision.polygons import polygon_cover, polygon_iou

PAPER_SAMPLE_STEP: Final = 3  # the paper colour is estimated from every 3rd pixel
# the shares of a box a second look keeps, from each side in turn (`side_cuts`; why these:
# identify.SECOND_LOOK_ALIKE)
SECOND_LOOK_KEEP: Final = (0.5, 0.6, 0.7, 0.8)
# A back a face-up card covers more of than this lies on it: most likely the face's own figure,
# which the detector can take for a back. It never counts when the face-up card counts, however
# sure the detector is of the back; a doubted back not even on a doubted face-up card. On the
# 550 tuning scenes it kept no labelled back from counting (MODEL_CARD.md, "Face-up cards").
FACE_UP_COVER: Final = 0.3
# A face-up box that overlaps a surer counted back's box by more than this IoU is that back read
# a second time, as a face: a face-up card's box is the whole card, 4-19 times the area of a
# back's drawing box in the generated scenes (median 7), so it cannot nearly coincide with one.
# It is no face-up card: it neither counts nor keeps a back from counting. On 350 tuning scenes
# every such pair with the back the surer was a false face on a real back (MODEL_CARD.md).
FACE_ON_BACK_IOU: Final = 0.45
SNAP_GROW: Final = 1.3  # snapping looks for the drawing's ink this far around the detector's box
SNAP_SIZE: Final = 64
SNAP_AREA_RANGE: Final = (0.3, 2.0)  # a snapped box outside this share of the original is wrong


def snap_to_ink(image: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """The detector's box moved onto the drawing's own ink: its minimum-area rectangle.

    The detector's box is a few pixels off (median IoU ~0.7 with the label), and the shape
    comparison is a coarse ink map in box coordinates, so an offset or a turn of the box reads
    as another drawing. Labels and reference boxes are the minimum-area rectangle of the
    drawing's visible pixels; snapping gives the same here. Ink is looked for a little around
    the box; ink blobs centred outside the box (a neighbour's drawing) are ignored. Returns the
    box unchanged when no convincing drawing is found.
    """
    corners = np.asarray(corners, np.float32)
    centre = corners.mean(axis=0)
    grown = centre + (corners - centre) * SNAP_GROW
    src = np.stack([grown[2], grown[1], grown[3]])
    dst = np.float32([[0, 0], [SNAP_SIZE, 0], [0, SNAP_SIZE]])
    matrix = cv2.getAffineTransform(src, dst)
    patch = cv2.warpAffine(
        image,
        matrix,
        (SNAP_SIZE, SNAP_SIZE),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    _, ink = inkness(patch)
    flat = ink.ravel()
    k = int(0.98 * (flat.size - 1))
    level = max(0.25, 0.5 * float(np.partition(flat, k)[k]))  # half the strong ink
    mask = (ink > level).astype(np.uint8)
    blobs = cv2.dilate(mask, np.ones((3, 3), np.uint8))
    n, labels, _, centroids = cv2.connectedComponentsWithStats(blobs, connectivity=8)
    lo, hi = SNAP_SIZE * (1 - 1 / SNAP_GROW) / 2, SNAP_SIZE * (1 + 1 / SNAP_GROW) / 2
    inside = np.zeros(n, bool)
    inside[1:] = np.all((centroids[1:] >= lo) & (centroids[1:] <= hi), axis=1)
    points = np.argwhere(mask.astype(bool) & inside[labels])[:, ::-1].astype(np.float32) + 0.5
    if len(points) < 8:
        return corners
    inverse = cv2.invertAffineTransform(matrix)
    in_image = points @ inverse[:, :2].T + inverse[:, 2]
    (cx, cy), (w, h), angle = cv2.minAreaRect(in_image.reshape(-1, 1, 2).astype(np.float32))
    share = (w * h) / max(abs(cv2.contourArea(corners)), 1e-6)
    if not SNAP_AREA_RANGE[0] <= share <= SNAP_AREA_RANGE[1]:
        return corners
    obb = np.array([[cx, cy, w, h, np.deg2rad(angle)]], np.float32)
    return obb_corners(obb)[0]


def scaled_boxes(corners: np.ndarray, scales: tuple[float, ...]) -> np.ndarray:
    """(..., 4, 2) boxes -> (..., 1 + len(scales), 4, 2): each box itself (its very values),
    then the box scaled about its centre by each factor in turn, corners in the box's own
    order."""
    c = np.asarray(corners, np.float32)
    centre = c.mean(axis=-2, keepdims=True)[..., None, :, :]
    factors = np.asarray(scales, np.float32).reshape(-1, 1, 1)
    scaled = centre + (c[..., None, :, :] - centre) * factors
    return np.concatenate([c[..., None, :, :], scaled], axis=-3)


def side_cuts(corners: np.ndarray, keeps: tuple[float, ...] = SECOND_LOOK_KEEP) -> np.ndarray:
    """(4, 2) box -> (4 * len(keeps), 4, 2): for each share in `keeps`, that much of the box kept
    from each of its four sides in turn (the rest cut away), corners in the box's own order."""
    c = np.asarray(corners, np.float64)
    along, across = c[1] - c[0], c[3] - c[0]

    def at(u: float, v: float) -> np.ndarray:
        return c[0] + u * along + v * across

    cuts = []
    for keep in keeps:
        # (u0, u1, v0, v1): the kept span along the box's first side, then across it
        spans = ((0, keep, 0, 1), (1 - keep, 1, 0, 1), (0, 1, 0, keep), (0, 1, 1 - keep, 1))
        for u0, u1, v0, v1 in spans:
            cuts.append([at(u0, v0), at(u1, v0), at(u1, v1), at(u0, v1)])
    return np.asarray(cuts, np.float32).reshape(-1, 4, 2)


def inkness(patch_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """White-balanced patches (float32 0..1) and ink maps: 1 - darkest channel relative to paper.

    Works on one (H,W,3) patch or a stack (n,H,W,3) (see `white_balance`).
    """
    balanced = white_balance(patch_bgr, sample_step=PAPER_SAMPLE_STEP)
    darkest = np.minimum(np.minimum(balanced[..., 0], balanced[..., 1]), balanced[..., 2])
    return balanced, 1.0 - darkest


def box_sides(corners: np.ndarray) -> np.ndarray:
    """(..., 4, 2) boxes -> (..., 2) their long and short sides."""
    a = np.linalg.norm(corners[..., 1, :] - corners[..., 0, :], axis=-1)
    b = np.linalg.norm(corners[..., 2, :] - corners[..., 1, :], axis=-1)
    return np.stack([np.maximum(a, b), np.minimum(a, b)], axis=-1)


def _may_overlap(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(n, 4, 2) and (m, 4, 2) boxes -> (n, m) bool: their upright bounding boxes overlap. Only
    such pairs can overlap at all: a frame holds ~60 backs, and exact overlap costs far more."""
    low, high = a.min(axis=1), a.max(axis=1)
    other_low, other_high = b.min(axis=1), b.max(axis=1)
    return np.all((low[:, None] < other_high[None]) & (other_low[None] < high[:, None]), axis=2)


def faces_on_surer_backs(
    faces: np.ndarray,
    face_confidence: np.ndarray,
    backs: np.ndarray,
    back_confidence: np.ndarray,
    iou: float = FACE_ON_BACK_IOU,
) -> np.ndarray:
    """(m, 4, 2) face-up boxes and their (m,) confidences, (n, 4, 2) back boxes and theirs ->
    (m,) bool: the face-up box overlaps a more confident back's box by more than `iou`."""
    out = np.zeros(len(faces), bool)
    near = _may_overlap(faces, backs) & (back_confidence[None] > face_confidence[:, None])
    for face, back in zip(*np.nonzero(near), strict=True):
        if not out[face] and polygon_iou(faces[face], backs[back]) > iou:
            out[face] = True
    return out


def on_face_up(backs: np.ndarray, faces: np.ndarray, cover: float = FACE_UP_COVER) -> np.ndarray:
    """(n, 4, 2) back boxes, (m, 4, 2) face-up cards -> (n,) bool: a face-up card covers more
    than `cover` of the back's box."""
    out = np.zeros(len(backs), bool)
    for back, face in zip(*np.nonzero(_may_overlap(backs, faces)), strict=True):
        if not out[back] and polygon_cover(backs[back], faces[face]) > cover:
            out[back] = True
    return out
