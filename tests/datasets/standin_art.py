"""A tiny stand-in for `blitzcam.datasets.art` with the same API, for the generator's tests.

The drawing on every back is printed in one ink that appears nowhere else in a scene
(pure magenta), so a test can find each drawing's pixels in the rendered image by colour.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Final

import cv2
import numpy as np

CARD_ASPECT: Final[float] = 1.5
INK: Final[tuple[int, int, int]] = (255, 0, 255)
RANDOM_FAMILIES: Final[tuple[str, ...]] = ("scribble", "polygon", "spiral")
HOLDOUT_FAMILY: Final[str] = "spiral"
WIDE_FAMILIES: Final[tuple[str, ...]] = ("zigzag",)
FACE_COLOURS: Final[dict[str, tuple[int, int, int]]] = {
    "red": (200, 40, 40),
    "blue": (40, 70, 200),
    "yellow": (230, 200, 40),
    "green": (40, 160, 70),
}


@dataclass(frozen=True)
class CardImage:
    rgba: np.ndarray
    drawing_mask: np.ndarray
    kind: str
    deck: str | None


def _blank(width: int, fill: tuple[int, int, int]) -> np.ndarray:
    height = round(width * CARD_ASPECT)
    rgba = np.zeros((height, width, 4), np.uint8)
    rgba[..., :3] = fill
    alpha = np.zeros((height, width), np.uint8)
    r = max(2, width // 10)
    cv2.rectangle(alpha, (r, 0), (width - 1 - r, height - 1), 255, -1)
    cv2.rectangle(alpha, (0, r), (width - 1, height - 1 - r), 255, -1)
    for cx, cy in (
        (r, r),
        (width - 1 - r, r),
        (r, height - 1 - r),
        (width - 1 - r, height - 1 - r),
    ):
        cv2.circle(alpha, (cx, cy), r, 255, -1)
    rgba[..., 3] = alpha
    return rgba


def _with_drawing(rgba: np.ndarray, shape: int) -> tuple[np.ndarray, np.ndarray]:
    height, width = rgba.shape[:2]
    mask = np.zeros((height, width), np.uint8)
    cx, cy = width // 2, height // 2
    if shape == 0:
        cv2.ellipse(mask, (cx, cy), (width * 3 // 10, height * 3 // 10), 0, 0, 360, 255, -1)
    elif shape == 1:
        cv2.rectangle(mask, (width // 4, height // 4), (width * 3 // 4, height * 3 // 4), 255, -1)
    else:
        pts = np.array(
            [[cx, height // 5], [width * 4 // 5, height * 4 // 5], [width // 5, height * 4 // 5]],
            np.int32,
        )
        cv2.fillConvexPoly(mask, pts, 255)
    drawing = mask > 0
    rgba[drawing, :3] = INK
    return rgba, drawing


@lru_cache(maxsize=64)
def render_back(deck: str, *, width: int) -> CardImage:
    rgba, drawing = _with_drawing(_blank(width, (240, 236, 226)), sum(map(ord, deck)) % 3)
    return CardImage(rgba, drawing, "back", deck)


def render_face(colour: str, number: int, *, width: int) -> CardImage:
    rgba = _blank(width, FACE_COLOURS[colour])
    cv2.putText(
        rgba,
        str(number),
        (width // 4, rgba.shape[0] // 2),
        cv2.FONT_HERSHEY_SIMPLEX,
        width / 60,
        (255, 255, 255, 255),
        2,
    )
    return CardImage(rgba, np.zeros(rgba.shape[:2], bool), "face", None)


def render_random_back(
    rng: np.random.Generator, *, width: int, family: str | None = None
) -> CardImage:
    family = family or str(rng.choice(RANDOM_FAMILIES))
    paper = tuple(int(v) for v in rng.integers(180, 256, 3))
    rgba, drawing = _with_drawing(_blank(width, paper), int(rng.integers(0, 3)))
    return CardImage(rgba, drawing, "back", None)
