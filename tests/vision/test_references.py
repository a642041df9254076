"""Reference drawings: the shortcuts start-up takes give what the plain computations give."""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from blitzcam.vision.references import card_on_white, row_ends


def _blobs(rng: np.random.Generator) -> np.ndarray:
    """A mask like a drawing's ink: a few discs and strokes, or speckle."""
    height, width = (int(n) for n in rng.integers(5, 120, 2))
    mask = np.zeros((height, width), np.uint8)
    if rng.random() < 0.3:
        return (rng.random((height, width)) < 0.2).astype(np.uint8)
    for _ in range(int(rng.integers(1, 6))):
        centre = (int(rng.integers(0, width)), int(rng.integers(0, height)))
        if rng.random() < 0.5:
            cv2.circle(mask, centre, int(rng.integers(1, 30)), 1, -1)
        else:
            end = (int(rng.integers(0, width)), int(rng.integers(0, height)))
            cv2.line(mask, centre, end, 1, int(rng.integers(1, 4)))
    return mask


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_row_ends_box_the_points_as_all_of_them_do(seed: int) -> None:
    rng = np.random.default_rng(seed)
    points = np.argwhere(_blobs(rng))[:, ::-1].astype(np.float32)  # as covered_boxes takes them
    if len(points) < 3:
        return
    # a covered back keeps the part of its drawing on one side of a line
    theta = rng.uniform(0, np.pi)
    along = points @ np.array([np.cos(theta), np.sin(theta)], np.float32)
    kept = points[along <= np.quantile(along, rng.uniform(0.3, 1.0))]
    if len(kept) < 3:
        return
    ends = row_ends(kept)
    assert len(ends) <= len(kept)
    assert cv2.minAreaRect(ends) == cv2.minAreaRect(kept.reshape(-1, 1, 2))


def test_row_ends_keeps_both_ends_of_every_row() -> None:
    points = np.array([[3, 0], [4, 0], [7, 0], [5, 1], [0, 2], [2, 2]], np.float32)
    ends = row_ends(points)[:, 0]
    assert ends.tolist() == [[3, 0], [7, 0], [5, 1], [0, 2], [2, 2]]


def test_a_card_on_white_blends_as_the_float_formula_does() -> None:
    rng = np.random.default_rng(5)
    rgba = rng.integers(0, 256, (40, 30, 4), dtype=np.uint8)
    rgba[:10, :, 3] = 255  # opaque, as most of a card is
    rgba[10:15, :, 3] = 0  # transparent, as its corners are
    rgb = rgba[..., :3].astype(np.float32)
    alpha = rgba[..., 3:4].astype(np.float32) / 255.0
    expected = (rgb * alpha + 255.0 * (1 - alpha))[..., ::-1].astype(np.uint8)
    got = card_on_white(rgba)
    np.testing.assert_array_equal(got, expected)
    assert got.flags.c_contiguous and got.dtype == np.uint8
    assert (got[10:15] == 255).all()
