"""Table surfaces, drawn flat (the composer warps them with the cards): wood, felt, cloth, plain.

Each function returns an RGB uint8 image of ``size=(width, height)``. The composer draws them
at half the canvas resolution and scales up (after drawing the cards' shadows at that
resolution too): the camera's own blur and noise hide the difference.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import cv2
import numpy as np

from blitzcam.datasets.photometric import coarse_field, gaussian_noise

Table = Callable[[np.random.Generator, tuple[int, int]], np.ndarray]

_LEVEL_SPAN: Final = 85  # palette entries per colour: up to three colours in 256 entries


def _paint(
    shade: np.ndarray,
    colours: list[np.ndarray],
    rng: np.random.Generator,
    grain: float,
    level: np.ndarray | None = None,
) -> np.ndarray:
    """RGB uint8 from a brightness map (~1.0 = the colour itself) plus fibre grain, through a
    palette: `level` (h, w) uint8 picks one of up to three colours per pixel. Single-channel
    float work only, then one table lookup: a few ms for a table."""
    mean = float(np.mean([c.mean() for c in colours])) or 1.0
    shade = shade + gaussian_noise(rng, shade.shape, sigma=grain / mean)
    half = (_LEVEL_SPAN - 1) / 2
    index = np.clip(shade * np.float32(half), 0, _LEVEL_SPAN - 1).astype(np.uint8)
    if level is not None:
        index += level * np.uint8(_LEVEL_SPAN)
    palette = np.zeros((256, 3), np.float32)
    ramp = np.arange(_LEVEL_SPAN, dtype=np.float32)[:, None] / half
    for k, colour in enumerate(colours):
        palette[k * _LEVEL_SPAN : (k + 1) * _LEVEL_SPAN] = ramp * colour
    palette = np.clip(palette, 0, 255).astype(np.uint8).reshape(1, 256, 3)
    return cv2.LUT(cv2.cvtColor(index, cv2.COLOR_GRAY2RGB), palette)


def _hsv_colour(
    rng: np.random.Generator,
    hue: tuple[float, float],
    sat: tuple[float, float],
    val: tuple[float, float],
) -> np.ndarray:
    hsv = np.array([[[rng.uniform(*hue) % 180, rng.uniform(*sat), rng.uniform(*val)]]], np.float32)
    return cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2RGB)[0, 0].astype(np.float32)


def _across(size: tuple[int, int], angle: float) -> np.ndarray:
    """(h, w) int32 distance in whole pixels across stripes running at `angle` radians."""
    width, height = size
    c, s = np.float32(np.cos(angle)), np.float32(np.sin(angle))
    u = (
        np.arange(width, dtype=np.float32)[None, :] * c
        + np.arange(height, dtype=np.float32)[:, None] * s
    )
    return (u - u.min()).astype(np.int32)


def wood(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """Planks of wood at any angle to the camera: irregular wavy grain lines, long fibre
    streaks, a tone per plank, seams. Everything across the grain is a 1-D profile looked up
    by each pixel's distance across the planks."""
    width, height = size
    u2d = _across(size, rng.uniform(0, np.pi))
    across = int(u2d.max()) + 1
    span = float(max(width, height))
    warp = coarse_field(rng, size, int(rng.integers(2, 6))) * np.float32(
        rng.uniform(0.01, 0.05) * span
    )
    u = np.arange(across, dtype=np.float32)
    plank = rng.uniform(0.12, 0.3) * span
    offset = rng.uniform(0, plank)
    board = np.floor((u + offset) / plank)
    # Each plank is cut from elsewhere in the tree: its own shift of the grain.
    shift = (rng.uniform(0, 400, int(board.max()) + 1)[board.astype(int)] + u).astype(np.float32)
    phase = (warp + shift[u2d]) * np.float32(rng.uniform(0.1, 0.35))
    # A slow second sine bends the spacing, so lines bunch and spread like real growth rings.
    grain = np.sin(phase + np.float32(rng.uniform(1.0, 2.5)) * np.sin(phase * np.float32(0.29)))
    grain = (grain + 1) * np.float32(0.5)
    grain *= grain
    grain *= grain  # ((1 + sin) / 2)^4: narrow dark lines
    tone_1d = 0.07 * np.sin(board * 12.9898 + rng.uniform(0, 6))
    tone_1d -= 0.35 * (((u + offset) % plank) < 1.2)  # seams between planks
    fibre = cv2.GaussianBlur(rng.normal(0, 1, (1, across)).astype(np.float32), (0, 0), 1.5)[0]
    tone_1d += 0.05 * fibre / max(float(fibre.std()), 1e-6)
    shade = 1.0 - np.float32(rng.uniform(0.12, 0.3)) * grain + tone_1d.astype(np.float32)[u2d]
    base = _hsv_colour(rng, (5, 22), (90, 200), (70, 220))
    return _paint(shade, [base], rng, rng.uniform(1.0, 2.5))


def felt(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """Card-table felt: saturated colour, soft mottling, fine fibre noise."""
    base = _hsv_colour(
        rng, rng.choice([(50, 80), (95, 125), (0, 8), (160, 180)]), (110, 230), (50, 170)
    )
    mottle = 1.0 + np.float32(0.08) * coarse_field(rng, size, int(rng.integers(6, 20)))
    return _paint(mottle, [base], rng, rng.uniform(4, 9))


def checked_cloth(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """Checked table cloth (gingham) at any angle: white, mixed and coloured squares."""
    width, height = size
    cell = rng.uniform(0.02, 0.07) * max(width, height)
    angle = rng.uniform(0, np.pi / 2)
    bands = []
    for a in (angle, angle + np.pi / 2):
        u = _across(size, a)
        profile = np.floor((np.arange(int(u.max()) + 1) + rng.uniform(0, cell)) / cell) % 2
        bands.append(profile.astype(np.uint8)[u])
    level = bands[0] + bands[1]  # 0 white, 1 mixed, 2 coloured
    ink = _hsv_colour(rng, (0, 180), (120, 230), (90, 200))
    paper = _hsv_colour(rng, (0, 180), (0, 30), (200, 250))
    folds = 1.0 + np.float32(0.07) * coarse_field(rng, size, int(rng.integers(3, 8)))
    return _paint(folds, [paper, (paper + ink) / 2, ink], rng, rng.uniform(3, 7), level)


def plain(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """A plain surface, light (white laminate, paper) or dark (slate, black tabletop)."""
    light = rng.random() < 0.5
    base = _hsv_colour(rng, (0, 180), (0, 60), (180, 250) if light else (20, 90))
    tone = 1.0 + np.float32(0.05) * coarse_field(rng, size, int(rng.integers(2, 10)))
    return _paint(tone, [base], rng, rng.uniform(1.5, 5))


TABLES: Final[dict[str, Table]] = {
    "wood": wood,
    "felt": felt,
    "checked": checked_cloth,
    "plain": plain,
}
TABLE_WEIGHTS: Final[dict[str, float]] = {"wood": 0.35, "felt": 0.2, "checked": 0.15, "plain": 0.3}


def render_table(rng: np.random.Generator, size: tuple[int, int]) -> tuple[str, np.ndarray]:
    """Pick a surface by TABLE_WEIGHTS and draw it at `size`; returns (kind, RGB image)."""
    names = list(TABLES)
    weights = np.array([TABLE_WEIGHTS[name] for name in names])
    kind = names[int(rng.choice(len(names), p=weights / weights.sum()))]
    return kind, TABLES[kind](rng, size)
