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
from blitzcam.vision.detections import UNKNOWN_DECK, Detections

SIZE: Final = 40  # side of the square a drawing is warped to
SHAPE_SIZE: Final = 16  # ink maps are compared this coarse: webcam drawings are small and soft
ORIENT_BINS: Final = 16  # stroke directions over [0, pi); a quarter turn moves them by 8 bins
INK_MIN: Final = 0.35  # inkness from which a pixel counts as ink for its colour
HUE_SIGMA_DEG: Final = 28.0
GREY_SATURATION: Final = 0.18  # below this the ink has no hue (black, grey)
SHAPE_BLUR: Final = 0.8
SHAPE_WEIGHT: Final = 0.8  # of the shape score: cross-correlation; the rest: stroke directions
UNKNOWN_BELOW: Final = 0.42  # final similarity under which a back is "unknown"


@dataclass(frozen=True, slots=True)
class DrawingFeatures:
    """What identification compares, for one or more drawings (leading axis n)."""

    shape: (
        np.ndarray
    )  # (n, 4, SHAPE_SIZE**2) float32: zero-mean unit-norm ink maps, four quarter turns
    strokes: np.ndarray  # (n, 4, ORIENT_BINS) float32: unit-norm direction histograms, four turns
    hue: np.ndarray  # (n,) float32 degrees
    saturation: np.ndarray  # (n,) float32 in [0, 1]

    def __len__(self) -> int:
        return len(self.hue)


def warp_box(image: np.ndarray, corners: np.ndarray, size: int = SIZE) -> np.ndarray:
    """The (4,2) oriented box of `image` (ultralytics corner order) stretched onto a size x size square."""
    corners = np.asarray(corners, np.float32)
    big = size * 2
    src = np.stack([corners[2], corners[1], corners[3]])  # box-frame (0,0), (w,0), (0,h)
    dst = np.float32([[0, 0], [big, 0], [0, big]])
    matrix = cv2.getAffineTransform(src, dst)
    warped = cv2.warpAffine(
        image, matrix, (big, big), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    return cv2.resize(warped, (size, size), interpolation=cv2.INTER_AREA)


def inkness(patch_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """White-balanced patch (float32 0..1) and its ink map: 1 - darkest channel relative to the paper."""
    patch = patch_bgr.astype(np.float32)
    flat = patch.reshape(-1, 3)
    paper = np.percentile(flat, 85, axis=0)
    balanced = np.clip(patch / np.maximum(paper, 8.0), 0.0, 1.0)
    return balanced, 1.0 - balanced.min(axis=2)


def _unit(rows: np.ndarray) -> np.ndarray:
    rows = rows - rows.mean(axis=-1, keepdims=True)
    return rows / np.maximum(np.linalg.norm(rows, axis=-1, keepdims=True), 1e-6)


def _stroke_histogram(ink: np.ndarray) -> np.ndarray:
    gx = cv2.Sobel(ink, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(ink, cv2.CV_32F, 0, 1, ksize=3)
    magnitude = np.hypot(gx, gy).ravel()
    angle = np.mod(np.arctan2(gy, gx).ravel(), np.pi)
    bins = np.minimum((angle / np.pi * ORIENT_BINS).astype(np.int64), ORIENT_BINS - 1)
    hist = np.bincount(bins, weights=magnitude, minlength=ORIENT_BINS).astype(np.float32)
    return np.sqrt(hist)  # soften the dominance of the longest strokes


def _ink_colour(balanced: np.ndarray, ink: np.ndarray) -> tuple[float, float]:
    weights = np.where(ink > INK_MIN, ink, 0.0)
    if weights.sum() < 1e-3:
        return 0.0, 0.0
    mean_bgr = (balanced * weights[..., None]).sum(axis=(0, 1)) / weights.sum()
    pixel = np.clip(mean_bgr * 255, 0, 255).astype(np.uint8).reshape(1, 1, 3)
    h, s, _v = cv2.cvtColor(pixel, cv2.COLOR_BGR2HSV_FULL)[0, 0]
    return float(h) * 360.0 / 256.0, float(s) / 255.0


def describe(patches: list[np.ndarray]) -> DrawingFeatures:
    """Features of drawings already warped to SIZE x SIZE BGR patches."""
    n = len(patches)
    shape = np.zeros((n, 4, SHAPE_SIZE * SHAPE_SIZE), np.float32)
    strokes = np.zeros((n, 4, ORIENT_BINS), np.float32)
    hue = np.zeros(n, np.float32)
    saturation = np.zeros(n, np.float32)
    quarter = ORIENT_BINS // 2  # a quarter turn moves directions by 90 degrees = half of [0, pi)
    for i, patch in enumerate(patches):
        balanced, ink = inkness(patch)
        coarse = cv2.resize(ink, (SHAPE_SIZE, SHAPE_SIZE), interpolation=cv2.INTER_AREA)
        coarse = cv2.GaussianBlur(coarse, (3, 3), SHAPE_BLUR)
        shape[i] = _unit(np.stack([np.rot90(coarse, k).ravel() for k in range(4)]))
        hist = _stroke_histogram(cv2.GaussianBlur(ink, (5, 5), 1.5))
        # np.rot90 turns counter-clockwise; in image coordinates (y down) directions move by -90 deg
        strokes[i] = _unit(np.stack([np.roll(hist, -k * quarter) for k in range(4)]))
        hue[i], saturation[i] = _ink_colour(balanced, ink)
    return DrawingFeatures(shape=shape, strokes=strokes, hue=hue, saturation=saturation)


def colour_similarity(
    hue_a: np.ndarray, sat_a: np.ndarray, hue_b: np.ndarray, sat_b: np.ndarray
) -> np.ndarray:
    """(n,) x (m,) -> (n,m): how alike two inks are, by hue; inks without hue only match each other."""
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
    """(n, rows) similarities to reference variants -> (n, n_decks): the best variant of each deck."""
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
        patches = [warp_box(frame_bgr, detections.corners[i]) for i in backs]
        sims = best_per_deck(similarity(describe(patches), references), owners, len(deck_names))
        best = sims.argmax(axis=1)
        best_score = sims[np.arange(len(backs)), best]
        deck[backs] = np.where(best_score >= unknown_below, best, UNKNOWN_DECK)
        score[backs] = best_score
    return detections.with_decks(deck, score, deck_names)
