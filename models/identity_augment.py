"""What the identity network's training drawings are put through beyond the generator's scenes:
the ways a counted back still goes unread on the tuning scenes — something lying across the
drawing (a pencil, a pen, a finger), a drawing faded by glare or a washed-out print, and a
drawing a few pixels across (a far card in a tilted phone's frame).

The generator makes each of them, but rarely on the few drawings a step sees; these put them on
a share of every step's queries (never on references: enrollment's references are clean). Pure
numpy and OpenCV on (S, S, 3) uint8 BGR patches, randomness passed in.
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
# a far card's drawing spans this many frame pixels (its longer side); the landscape scenes the
# network learned from rarely go under 20, a tilted phone's far cards do
SMALL_SIDE: Final = (6.0, 20.0)
SMALL_JPEG_QUALITY: Final = (50, 90)


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


def shrunk(patch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The drawing as a far card gives it: averaged down to 6-20 frame pixels (a box a little
    longer one way than the other), half the time JPEG-compressed at that size as the frame is,
    then stretched back to the patch the way `vision.embedding.drawing_patch` stretches a small
    box (linear, off the pixel grid by up to half a pixel)."""
    size = patch.shape[0]
    long_side = rng.uniform(*SMALL_SIDE)
    sides = [long_side, long_side * rng.uniform(0.7, 1.0)]
    rng.shuffle(sides)
    w, h = (max(2, round(side)) for side in sides)
    small = cv2.resize(patch, (w, h), interpolation=cv2.INTER_AREA)
    if rng.random() < 0.5:
        quality = int(rng.integers(SMALL_JPEG_QUALITY[0], SMALL_JPEG_QUALITY[1] + 1))
        _, encoded = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, quality])
        small = cv2.imdecode(encoded, cv2.IMREAD_COLOR)
    # patch pixel x's centre from the small one's, as resize aligns them, then the jitter
    dx, dy = 0.5 * np.array([w, h]) / size - 0.5 + rng.uniform(-0.5, 0.5, 2)
    matrix = np.float32([[w / size, 0, dx], [0, h / size, dy]])
    return cv2.warpAffine(
        small,
        matrix,
        (size, size),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )


def augment_queries(
    patches: np.ndarray,
    rng: np.random.Generator,
    *,
    occluded_share: float,
    faded_share: float,
    small_share: float = 0.0,
) -> np.ndarray:
    """(n,S,S,3) uint8 -> the same, `occluded_share` of them with a pencil or a finger across,
    independently `faded_share` faded and, last (what lies on the card shrinks with it),
    `small_share` shrunk. Draws nothing from `rng` when every share is 0, and with
    `small_share` 0 draws what it drew before that share existed."""
    if occluded_share <= 0 and faded_share <= 0 and small_share <= 0:
        return patches
    out = patches.copy()
    for i in range(len(out)):
        if faded_share > 0 and rng.random() < faded_share:
            out[i] = faded(out[i], rng)
        if occluded_share > 0 and rng.random() < occluded_share:
            out[i] = (pencil_across if rng.random() < 0.6 else finger_over)(out[i], rng)
        if small_share > 0 and rng.random() < small_share:
            out[i] = shrunk(out[i], rng)
    return out
