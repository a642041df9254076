"""What the identity network's training drawings are put through beyond the generator's scenes:
the two ways a counted back still goes unread on the tuning scenes — something lying across the
drawing (a pencil, a pen, a finger) and a drawing faded by glare or a washed-out print.

The generator makes both, but rarely on the few drawings a step sees; these put them on a share
of every step's queries (never on references: enrollment's references are clean). Pure numpy
and OpenCV on (S, S, 3) uint8 BGR patches, randomness passed in.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import cv2
import numpy as np

SUPERSAMPLE: Final = 4  # occluder masks are drawn this much larger and averaged down (soft edges)
# BGR: a yellow pencil, graphite, a red and a blue pen, bare wood
PENCIL_COLOURS: Final = (
    (40, 190, 230), (70, 70, 70), (40, 40, 200), (160, 60, 30), (120, 170, 210)
)  # fmt: skip
SKIN_COLOURS: Final = ((140, 170, 220), (100, 130, 190), (70, 90, 140), (170, 190, 230))
PAPER_PERCENTILE: Final = 85.0  # as `vision.embedding.white_balance` finds the paper


def _composite(patch: np.ndarray, alpha: np.ndarray, colour: np.ndarray) -> np.ndarray:
    out = patch.astype(np.float32) * (1 - alpha[..., None]) + colour * alpha[..., None]
    return np.clip(out, 0, 255).astype(np.uint8)


def _soft_mask(size: int, draw: Callable[[np.ndarray], object]) -> np.ndarray:
    big = np.zeros((size * SUPERSAMPLE, size * SUPERSAMPLE), np.uint8)
    draw(big)
    small = cv2.resize(big, (size, size), interpolation=cv2.INTER_AREA)
    return small.astype(np.float32) / 255.0


def pencil_across(patch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A straight pencil or pen, 6-18 % of the patch wide, across it at any angle."""
    size = patch.shape[0]
    big = size * SUPERSAMPLE
    angle = rng.uniform(0, np.pi)
    through = rng.uniform(0.2, 0.8, 2) * big
    direction = np.array([np.cos(angle), np.sin(angle)]) * 2 * big
    a, b = (through - direction).astype(int), (through + direction).astype(int)
    width = max(1, int(rng.uniform(0.06, 0.18) * big))
    alpha = _soft_mask(size, lambda m: cv2.line(m, tuple(a), tuple(b), 255, width, cv2.LINE_AA))
    colour = np.array(PENCIL_COLOURS[rng.integers(len(PENCIL_COLOURS))], np.float32)
    return _composite(patch, alpha, colour * rng.uniform(0.75, 1.1))


def finger_over(patch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A fingertip reaching in from one side, shaded darker towards its edge."""
    size = patch.shape[0]
    big = size * SUPERSAMPLE
    side = rng.integers(4)
    along = rng.uniform(0.25, 0.75) * big
    depth = rng.uniform(0.25, 0.6) * big  # how far in the tip reaches
    centre = [(along, depth - big), (big - depth + big, along), (along, big - depth + big),
              (depth - big, along)][side]  # fmt: skip
    axes = (int(rng.uniform(0.22, 0.35) * big), big)
    turn = (90.0 if side in (1, 3) else 0.0) + rng.uniform(-12, 12)
    centre_px = (int(centre[0]), int(centre[1]))
    alpha = _soft_mask(size, lambda m: cv2.ellipse(m, centre_px, axes, turn, 0, 360, 255, -1))
    colour = np.array(SKIN_COLOURS[rng.integers(len(SKIN_COLOURS))], np.float32)
    shade = rng.uniform(0.7, 1.05) * (0.85 + 0.15 * alpha)  # the rim in the finger's shadow
    return _composite(patch, alpha, colour[None, None] * shade[..., None])


def faded(patch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The ink pulled 25-70 % of the way to the paper (a washed-out print, glare), sometimes
    under a glare spot, then the camera's noise on top."""
    out = patch.astype(np.float32)
    paper = np.percentile(out.reshape(-1, 3), PAPER_PERCENTILE, axis=0)
    out = paper - (paper - out) * rng.uniform(0.3, 0.75)
    if rng.random() < 0.5:
        size = patch.shape[0]
        y, x = np.mgrid[0:size, 0:size].astype(np.float32)
        cy, cx = rng.uniform(0, size, 2)
        sigma = rng.uniform(0.2, 0.5) * size
        spot = np.exp(-((x - cx) ** 2 + (y - cy) ** 2) / (2 * sigma**2))
        out = out + (255 - out) * (rng.uniform(0.3, 0.8) * spot)[..., None]
    out = out + rng.normal(0, rng.uniform(0, 6), out.shape)
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


def augment_queries(
    patches: np.ndarray, rng: np.random.Generator, *, occluded_share: float, faded_share: float
) -> np.ndarray:
    """(n,S,S,3) uint8 -> the same, `occluded_share` of them with a pencil or a finger across
    and, independently, `faded_share` faded. Draws nothing from `rng` when both shares are 0."""
    if occluded_share <= 0 and faded_share <= 0:
        return patches
    out = patches.copy()
    for i in range(len(out)):
        if faded_share > 0 and rng.random() < faded_share:
            out[i] = faded(out[i], rng)
        if occluded_share > 0 and rng.random() < occluded_share:
            out[i] = (pencil_across if rng.random() < 0.6 else finger_over)(out[i], rng)
    return out
