"""The camera over the table: the canvas covers the frame, unmirrored, about 1:1 at the centre."""

from __future__ import annotations

import numpy as np
import pytest

from blitzcam.datasets.geometry import (
    MAX_TILT_DEG,
    camera_homography,
    frame_corners,
    sample_view,
    transform_points,
    view_from_camera,
)

SIZES = [(1280, 720), (1920, 1080), (640, 480)]


def _jacobian(h: np.ndarray, at: np.ndarray) -> np.ndarray:
    pts = transform_points(h, at + np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]))
    return np.column_stack([pts[1] - pts[0], pts[2] - pts[0]])


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("seed", range(8))
def test_view_is_unmirrored_and_covers_the_frame(size: tuple[int, int], seed: int) -> None:
    view = sample_view(np.random.default_rng(seed), size)
    assert 0 <= view.tilt_deg <= MAX_TILT_DEG
    centre = np.array(size, float) / 2
    inverse = np.linalg.inv(view.homography)
    jac = _jacobian(inverse, centre)
    # canvas -> frame keeps orientation: a face's number is never printed mirrored
    assert np.linalg.det(jac) > 0
    # about one canvas pixel per frame pixel where the cards are
    assert 0.6 < np.sqrt(np.linalg.det(jac)) <= 1.01
    # the canvas holds the whole footprint of the frame
    w, h = view.canvas_size
    assert view.footprint.min() >= -1
    assert (view.footprint[:, 0] <= w + 1).all() and (view.footprint[:, 1] <= h + 1).all()
    # and the footprint maps back onto the frame's corners
    back = transform_points(view.homography, view.footprint)
    assert np.allclose(back, frame_corners(size), atol=1e-6)


@pytest.mark.parametrize(
    ("tilt", "yaw"),
    [
        (0.0, 0.0),  # straight down: canvas is the frame
        (0.0, 37.0),  # turned camera: canvas still frame-sized, not a turned bounding box
        (20.0, -120.0),  # the envelope's steepest tilt
    ],
)
def test_canvas_stays_small(tilt: float, yaw: float) -> None:
    cam = camera_homography((1280, 720), tilt_deg=tilt, yaw_deg=yaw, roll_deg=0, hfov_deg=65)
    view = view_from_camera(cam, (1280, 720), tilt_deg=tilt)
    area = view.canvas_size[0] * view.canvas_size[1]
    assert area <= 1.35 * 1280 * 720
