"""Deck identity of each detected back: compare its drawing to the enrolled references.

Pure functions. A drawing is described by three things, each robust to what a webcam does to it:
- `ink`: the hue of its ink after white-balancing on the paper around it (colour casts cancel);
- `shape`: its ink map, warped from the oriented box to a small square (perspective and box size
  cancel), compared by normalised cross-correlation;
- `strokes`: a histogram of stroke directions relative to the box, which survives a drawing that
  is partly covered by another card (its box then covers only the visible part).
The box's 90/180-degree ambiguity is handled by trying the four quarter turns. Colour alone cannot
tell green-pump from green-bucket; shape and strokes can.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np

from blitzcam.vision.detections import UNKNOWN_DECK, Detections, obb_corners

SIZE: Final = 48  # side of the square a drawing is warped to (a multiple of SHAPE_SIZE)
SHAPE_SIZE: Final = 16  # ink maps are compared this coarse: webcam drawings are small and soft
STROKE_CELLS: Final = 2  # stroke histograms per cell of a 2 x 2 grid
ORIENT_BINS: Final = 16  # stroke directions over [0, pi); a quarter turn moves them by 8 bins
PAPER_SAMPLE_STEP: Final = 3  # the paper colour is estimated from every 3rd pixel
INK_MIN: Final = 0.35  # inkness from which a pixel counts as ink for its colour
HUE_SIGMA_DEG: Final = 28.0
GREY_SATURATION: Final = 0.18  # below this the ink has no hue (black, grey)
SHAPE_BLUR: Final = 0.8
SHAPE_WEIGHT: Final = 0.8  # of the shape score: cross-correlation; the rest: stroke directions
UNKNOWN_BELOW: Final = 0.65  # under this similarity a back is "unknown" (tuned on synthetic scenes)
SNAP_GROW: Final = 1.3  # snapping looks for the drawing's ink this far around the detector's box
SNAP_SIZE: Final = 64
SNAP_AREA_RANGE: Final = (0.3, 2.0)  # a snapped box outside this share of the original is wrong


@dataclass(frozen=True, slots=True)
class DrawingFeatures:
    """What identification compares, for one or more drawings (leading axis n)."""

    shape: np.ndarray  # (n, turns, SHAPE_SIZE**2) float32: zero-mean unit-norm ink maps
    strokes: np.ndarray  # (n, turns, STROKE_CELLS**2 * ORIENT_BINS): unit-norm direction histograms
    hue: np.ndarray  # (n,) float32 degrees
    saturation: np.ndarray  # (n,) float32 in [0, 1]

    def __len__(self) -> int:
        return len(self.hue)


def warp_box(image: np.ndarray, corners: np.ndarray, size: int = SIZE) -> np.ndarray:
    """The (4,2) oriented box of `image` (ultralytics corner order) stretched onto a square."""
    corners = np.asarray(corners, np.float32)
    src = np.stack([corners[2], corners[1], corners[3]])  # box-frame (0,0), (w,0), (0,h)
    dst = np.float32([[0, 0], [size, 0], [0, size]])
    matrix = cv2.getAffineTransform(src, dst)
    return cv2.warpAffine(
        image, matrix, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )


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


def inkness(patch_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """White-balanced patches (float32 0..1) and ink maps: 1 - darkest channel relative to paper.

    Works on one (H,W,3) patch or a stack (n,H,W,3); the paper is each patch's 85th percentile
    per channel, so a colour cast of the light divides out.
    """
    patch = np.asarray(patch_bgr, np.float32)
    flat = patch.reshape(*patch.shape[:-3], -1, 3)[
        ..., ::PAPER_SAMPLE_STEP, :
    ]  # a sample is enough
    k = int(0.85 * (flat.shape[-2] - 1))
    paper = np.partition(flat, k, axis=-2)[..., k, :]
    paper = np.maximum(paper, 8.0).reshape(*patch.shape[:-3], 1, 1, 3)
    balanced = np.clip(patch * (1.0 / paper), 0.0, 1.0)
    darkest = np.minimum(np.minimum(balanced[..., 0], balanced[..., 1]), balanced[..., 2])
    return balanced, 1.0 - darkest


def _unit(rows: np.ndarray) -> np.ndarray:
    rows = rows - rows.mean(axis=-1, keepdims=True)
    return rows / np.maximum(np.linalg.norm(rows, axis=-1, keepdims=True), 1e-6)


def _blur_stack(maps: np.ndarray, ksize: int, sigma: float) -> np.ndarray:
    """Gaussian blur of (n,H,W) maps at once (OpenCV treats them as channels, 512 at a time)."""
    out = np.empty_like(maps)
    for start in range(0, len(maps), 512):
        chunk = np.ascontiguousarray(maps[start : start + 512].transpose(1, 2, 0))
        blurred = cv2.GaussianBlur(chunk, (ksize, ksize), sigma)
        out[start : start + 512] = blurred.reshape(*chunk.shape).transpose(2, 0, 1)
    return out


def _stroke_histograms(ink: np.ndarray) -> np.ndarray:
    """(n,H,W) ink maps -> (n, STROKE_CELLS**2 * ORIENT_BINS): stroke directions weighted by
    contrast, one histogram per cell of a STROKE_CELLS x STROKE_CELLS grid (where the strokes
    run, not only which way)."""
    n = len(ink)
    gx = ink[:, 1:-1, 2:] - ink[:, 1:-1, :-2]
    gy = ink[:, 2:, 1:-1] - ink[:, :-2, 1:-1]
    magnitude = np.hypot(gx, gy)
    angle = np.mod(np.arctan2(gy, gx), np.pi)
    bins = np.minimum((angle / np.pi * ORIENT_BINS).astype(np.int64), ORIENT_BINS - 1)
    h, w = magnitude.shape[1:]
    cell_y = np.minimum(np.arange(h) * STROKE_CELLS // h, STROKE_CELLS - 1)
    cell_x = np.minimum(np.arange(w) * STROKE_CELLS // w, STROKE_CELLS - 1)
    cell = (cell_y[:, None] * STROKE_CELLS + cell_x[None, :])[None]
    index = (np.arange(n)[:, None, None] * STROKE_CELLS**2 + cell) * ORIENT_BINS + bins
    size = n * STROKE_CELLS**2 * ORIENT_BINS
    hist = np.bincount(index.ravel(), weights=magnitude.ravel(), minlength=size)
    return np.sqrt(hist.reshape(n, -1)).astype(np.float32)  # soften long strokes


def _ink_colours(balanced: np.ndarray, ink: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Hue (degrees) and saturation of each patch's ink: the ink-weighted mean of its colour."""
    n = len(ink)
    weights = np.where(ink > INK_MIN, ink, 0.0).reshape(n, -1)
    total = weights.sum(axis=1)
    weighted = np.einsum("np,npc->nc", weights, balanced.reshape(n, -1, 3))
    mean_bgr = weighted / np.maximum(total, 1e-3)[:, None]
    pixels = np.clip(mean_bgr * 255, 0, 255).astype(np.uint8).reshape(1, -1, 3)
    hsv = cv2.cvtColor(pixels, cv2.COLOR_BGR2HSV_FULL)[0].astype(np.float32)
    saturation = np.where(total < 1e-3, 0.0, hsv[:, 1] / 255.0)
    return hsv[:, 0] * 360.0 / 256.0, saturation.astype(np.float32)


def describe(patches: list[np.ndarray] | np.ndarray, *, turns: int = 4) -> DrawingFeatures:
    """Features of drawings already warped to SIZE x SIZE BGR patches (all at once, vectorised).

    References need all four quarter turns; a drawing being identified only its own (turns=1).
    """
    strokes_size = STROKE_CELLS**2 * ORIENT_BINS
    if len(patches) == 0:
        empty = np.zeros(0, np.float32)
        return DrawingFeatures(
            np.zeros((0, turns, SHAPE_SIZE**2), np.float32),
            np.zeros((0, turns, strokes_size), np.float32),
            empty,
            empty,
        )
    stack = np.stack([np.asarray(p) for p in patches])
    n = len(stack)
    balanced, ink = inkness(stack)
    cell = SIZE // SHAPE_SIZE
    coarse = ink.reshape(n, SHAPE_SIZE, cell, SHAPE_SIZE, cell).mean(axis=(2, 4))
    coarse = _blur_stack(np.ascontiguousarray(coarse), 3, SHAPE_BLUR)
    half = ink.reshape(n, SIZE // 2, 2, SIZE // 2, 2).mean(axis=(2, 4))
    half = _blur_stack(np.ascontiguousarray(half), 3, 0.8)
    # each quarter turn turns the map itself: the stroke cells and directions turn along
    shape = np.stack([np.rot90(coarse, k, axes=(1, 2)) for k in range(turns)], axis=1)
    strokes = np.stack(
        [
            _stroke_histograms(np.ascontiguousarray(np.rot90(half, k, axes=(1, 2))))
            for k in range(turns)
        ],
        axis=1,
    )
    hue, saturation = _ink_colours(balanced, ink)
    return DrawingFeatures(
        shape=_unit(shape.reshape(n, turns, -1)).astype(np.float32),
        strokes=_unit(strokes).astype(np.float32),
        hue=hue,
        saturation=saturation,
    )


def colour_similarity(
    hue_a: np.ndarray, sat_a: np.ndarray, hue_b: np.ndarray, sat_b: np.ndarray
) -> np.ndarray:
    """(n,) x (m,) -> (n,m): how alike two inks are by hue; hueless inks only match each other."""
    diff = np.abs(hue_a[:, None] - hue_b[None, :]) % 360.0
    diff = np.minimum(diff, 360.0 - diff)
    by_hue = np.exp(-((diff / HUE_SIGMA_DEG) ** 2))
    grey_a = sat_a[:, None] < GREY_SATURATION
    grey_b = sat_b[None, :] < GREY_SATURATION
    return np.where(grey_a & grey_b, 1.0, np.where(grey_a | grey_b, 0.05, by_hue)).astype(
        np.float32
    )


def similarity(drawings: DrawingFeatures, references: DrawingFeatures) -> np.ndarray:
    """(n drawings) x (m references) -> (n, m) similarity in [0, 1]: colour times shape."""
    if not len(drawings) or not len(references):
        return np.zeros((len(drawings), len(references)), np.float32)
    # drawing upright (turn 0) against each turn of each reference
    ncc = np.einsum("np,mkp->nmk", drawings.shape[:, 0], references.shape)
    hist = np.einsum("nb,mkb->nmk", drawings.strokes[:, 0], references.strokes)
    shape = (SHAPE_WEIGHT * np.clip(ncc, 0, 1) + (1 - SHAPE_WEIGHT) * np.clip(hist, 0, 1)).max(
        axis=2
    )
    colour = colour_similarity(
        drawings.hue, drawings.saturation, references.hue, references.saturation
    )
    return (np.sqrt(np.clip(shape, 0, 1)) * colour).astype(np.float32)


def best_per_deck(sims: np.ndarray, owners: np.ndarray, n_decks: int) -> np.ndarray:
    """(n, rows) similarities to reference variants -> (n, n_decks): each deck's best variant."""
    out = np.zeros((sims.shape[0], n_decks), np.float32)
    for deck in range(n_decks):
        columns = owners == deck
        if columns.any():
            out[:, deck] = sims[:, columns].max(axis=1)
    return out


def identify(
    frame_bgr: np.ndarray,
    detections: Detections,
    references: DrawingFeatures,
    owners: np.ndarray,
    deck_names: tuple[str, ...],
    *,
    unknown_below: float = UNKNOWN_BELOW,
) -> Detections:
    """A copy of `detections` with each back's deck and similarity filled in (faces stay unknown).

    `owners[row]` is the deck (index into deck_names) of each reference feature row.
    """
    deck = np.full(len(detections), UNKNOWN_DECK, np.int64)
    score = np.full(len(detections), np.nan, np.float32)
    backs = np.flatnonzero(detections.of_class("back"))
    if len(backs) and len(deck_names):
        # the detector's box and the box snapped to the ink: each drawing is read both ways
        boxes = [detections.corners[i] for i in backs]
        boxes += [snap_to_ink(frame_bgr, corners) for corners in boxes]
        features = describe([warp_box(frame_bgr, corners) for corners in boxes], turns=1)
        sims = best_per_deck(similarity(features, references), owners, len(deck_names))
        sims = np.maximum(sims[: len(backs)], sims[len(backs) :])
        best = sims.argmax(axis=1)
        best_score = sims[np.arange(len(backs)), best]
        deck[backs] = np.where(best_score >= unknown_below, best, UNKNOWN_DECK)
        score[backs] = best_score
    return detections.with_decks(deck, score, deck_names)
