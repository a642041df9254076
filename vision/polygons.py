"""Overlap of oriented boxes given as convex quadrilaterals (4, 2). Pure functions."""

from __future__ import annotations

import cv2
import numpy as np


def _areas(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
    """Areas of two convex quadrilaterals (4, 2) and of their intersection (0 if either is flat)."""
    pa, pb = a.astype(np.float32).reshape(4, 2), b.astype(np.float32).reshape(4, 2)
    area_a, area_b = abs(cv2.contourArea(pa)), abs(cv2.contourArea(pb))
    if area_a <= 0 or area_b <= 0:
        return area_a, area_b, 0.0
    inter, _ = cv2.intersectConvexConvex(pa, pb)
    return area_a, area_b, float(inter)


def polygon_iou(a: np.ndarray, b: np.ndarray) -> float:
    """IoU of two convex quadrilaterals given as (4, 2) points."""
    area_a, area_b, inter = _areas(a, b)
    if area_a <= 0 or area_b <= 0:
        return 0.0
    union = area_a + area_b - inter
    return float(inter / union) if union > 0 else 0.0


def polygon_cover(box: np.ndarray, other: np.ndarray) -> float:
    """The share of convex quadrilateral `box`'s (4, 2) area that `other` covers."""
    area, _, inter = _areas(box, other)
    return inter / area if area > 0 else 0.0
