from __future__ import annotations

import numpy as np
import pytest

from blitzcam.vision.polygons import polygon_cover, polygon_iou


def box(cx: float, cy: float, w: float = 10, h: float = 10) -> np.ndarray:
    return np.array([[cx - w / 2, cy - h / 2], [cx + w / 2, cy - h / 2],
                     [cx + w / 2, cy + h / 2], [cx - w / 2, cy + h / 2]], np.float64)


@pytest.mark.parametrize(
    ("a", "b", "iou"),
    [
        (box(0, 0), box(0, 0), 1.0),        # identical
        (box(0, 0), box(5, 0), 1 / 3),      # half overlap: 50 / 150
        (box(0, 0), box(20, 0), 0.0),       # apart
        (box(0, 0), box(0, 0, 20, 20), 0.25),  # one inside the other
    ],
)
def test_polygon_iou(a: np.ndarray, b: np.ndarray, iou: float) -> None:
    assert polygon_iou(a, b) == pytest.approx(iou, abs=1e-6)


@pytest.mark.parametrize(
    ("inner", "outer", "share"),
    [
        (box(0, 0), box(0, 0, 20, 20), 1.0),  # wholly inside
        (box(0, 0, 20, 20), box(0, 0), 0.25),  # the big one, a quarter covered
        (box(0, 0), box(5, 0), 0.5),
        (box(0, 0), box(20, 0), 0.0),
        (box(0, 0, 0, 10), box(0, 0), 0.0),  # a flat box is covered by nothing
    ],
)
def test_polygon_cover_is_the_share_of_the_first_box(
    inner: np.ndarray, outer: np.ndarray, share: float
) -> None:
    assert polygon_cover(inner, outer) == pytest.approx(share, abs=1e-6)
