"""How a player's cards lie on the table: pure functions returning card poses.

Every layout returns an (n, 3) float array of poses ``(x, y, angle_deg)`` in card-width
units (a card is 1 wide and ``aspect`` tall), centred on the origin, in paint order (later
cards lie on top). The composer rotates, scales and places them; the visibility rule (each
counted back shows >= 60 % of its drawing) is enforced there, exactly, so the spacings here
only aim for it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import numpy as np

Layout = Callable[[int, float, np.random.Generator], np.ndarray]


def _centred(poses: np.ndarray) -> np.ndarray:
    if len(poses):
        poses[:, :2] -= (poses[:, :2].min(axis=0) + poses[:, :2].max(axis=0)) / 2
    return poses


def _jitter(
    poses: np.ndarray, rng: np.random.Generator, *, shift: float, turn: float
) -> np.ndarray:
    poses[:, :2] += rng.normal(0.0, shift, (len(poses), 2))
    poses[:, 2] += rng.normal(0.0, turn, len(poses))
    return poses


def overlapping_rows(n: int, aspect: float, rng: np.random.Generator) -> np.ndarray:
    """Rows of cards, each covering the right part of the one before; rows do not overlap."""
    per_row = int(rng.integers(5, 14))
    step_x = rng.uniform(0.62, 0.95)
    step_y = aspect * rng.uniform(1.04, 1.3)
    idx = np.arange(n)
    poses = np.stack([(idx % per_row) * step_x, (idx // per_row) * step_y, np.zeros(n)], axis=1)
    return _centred(_jitter(poses, rng, shift=0.02, turn=rng.uniform(0.3, 3.0)))


def multirow_spread(n: int, aspect: float, rng: np.random.Generator) -> np.ndarray:
    """Rows that overlap each other too: each row covers the lower part of the row above."""
    per_row = int(rng.integers(4, 11))
    step_x = rng.uniform(0.66, 1.0)
    step_y = aspect * rng.uniform(0.72, 0.95)
    stagger = rng.uniform(0.0, 0.5) * step_x
    idx = np.arange(n)
    row = idx // per_row
    poses = np.stack([(idx % per_row) * step_x + (row % 2) * stagger, row * step_y, np.zeros(n)], 1)
    return _centred(_jitter(poses, rng, shift=0.025, turn=rng.uniform(0.3, 3.0)))


def fans(n: int, aspect: float, rng: np.random.Generator) -> np.ndarray:
    """One or more hand-held style fans (cards turned about a pivot below them), in rows."""
    per_fan = int(rng.integers(4, 11))
    step = rng.uniform(9.0, 15.0)
    radius = aspect * rng.uniform(1.6, 2.6)
    half_span = np.radians(step * (per_fan - 1) / 2)
    fan_w = 2 * radius * np.sin(half_span) + 1.4
    fan_h = radius * (1 - np.cos(half_span)) + aspect * 1.25
    n_fans = -(-n // per_fan)
    per_row = max(1, int(np.ceil(np.sqrt(n_fans))))
    poses = []
    for start in range(0, n, per_fan):
        count = min(per_fan, n - start)
        k = start // per_fan
        fan_x, fan_y = (k % per_row) * fan_w, (k // per_row) * fan_h
        for angle in (np.arange(count) - (count - 1) / 2) * step:
            a = np.radians(angle)
            # The card's centre sits `radius` above the pivot, turned by `angle`;
            # `angle` counter-clockwise on screen (y down) as in cv2.getRotationMatrix2D.
            poses.append((fan_x - radius * np.sin(a), fan_y - radius * np.cos(a), angle))
    out = np.array(poses, float).reshape(-1, 3)
    return _centred(_jitter(out, rng, shift=0.015, turn=0.8))


def grid(n: int, aspect: float, rng: np.random.Generator) -> np.ndarray:
    """A neat grid with gaps: nothing overlaps."""
    cols = int(rng.integers(3, 11))
    gap_x, gap_y = rng.uniform(1.04, 1.35), aspect * rng.uniform(1.03, 1.25)
    idx = np.arange(n)
    poses = np.stack([(idx % cols) * gap_x, (idx // cols) * gap_y, np.zeros(n)], axis=1)
    return _centred(_jitter(poses, rng, shift=0.03, turn=rng.uniform(0.5, 4.0)))


def loose_scatter(n: int, aspect: float, rng: np.random.Generator) -> np.ndarray:
    """Cards dropped loosely at any angle over an area; overlaps are resolved by the composer."""
    side = np.sqrt(max(n, 1) * aspect * rng.uniform(1.6, 3.0))
    poses = np.column_stack(
        [
            rng.uniform(0, side * rng.uniform(0.8, 1.25), n),
            rng.uniform(0, side, n),
            rng.uniform(-180.0, 180.0, n),
        ]
    )
    return _centred(poses)


LAYOUTS: Final[dict[str, Layout]] = {
    "rows": overlapping_rows,
    "spread": multirow_spread,
    "fans": fans,
    "grid": grid,
    "scatter": loose_scatter,
}
# How often each layout is drawn for a player's sorted cards.
LAYOUT_WEIGHTS: Final[dict[str, float]] = {
    "rows": 0.32,
    "spread": 0.24,
    "fans": 0.12,
    "grid": 0.14,
    "scatter": 0.18,
}


def extent(poses: np.ndarray, aspect: float) -> tuple[float, float]:
    """Width and height (card widths) of the axis-aligned box around all the cards."""
    if not len(poses):
        return 0.0, 0.0
    a = np.radians(poses[:, 2])
    half_w = (np.abs(np.cos(a)) + aspect * np.abs(np.sin(a))) / 2
    half_h = (np.abs(np.sin(a)) + aspect * np.abs(np.cos(a))) / 2
    return (
        float((poses[:, 0] + half_w).max() - (poses[:, 0] - half_w).min()),
        float((poses[:, 1] + half_h).max() - (poses[:, 1] - half_h).min()),
    )


def rotate(poses: np.ndarray, angle_deg: float) -> np.ndarray:
    """Turn a whole layout about the origin (counter-clockwise on screen, y down)."""
    a = np.radians(angle_deg)
    c, s = np.cos(a), np.sin(a)
    out = poses.copy()
    out[:, 0] = c * poses[:, 0] + s * poses[:, 1]
    out[:, 1] = -s * poses[:, 0] + c * poses[:, 1]
    out[:, 2] = poses[:, 2] + angle_deg
    return out
