"""Where the camera looks from: a pinhole camera over the table, and the flat canvas it sees.

Cards are pasted onto a flat, top-down "canvas" of the table; one homography maps that
canvas into the camera frame. The canvas is scaled so that at the frame's centre one canvas
pixel is about one frame pixel, and it covers exactly the table area the frame shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np

MAX_TILT_DEG: Final = 25.0
# A canvas larger than this many frames' area is scaled down (steep tilts, wide lenses).
MAX_CANVAS_AREA_RATIO: Final = 2.2


@dataclass(frozen=True)
class TableView:
    """The camera's view: canvas size, canvas -> frame homography, the frame's footprint."""

    frame_size: tuple[int, int]  # (width, height)
    canvas_size: tuple[int, int]  # (width, height)
    homography: np.ndarray  # (3, 3) canvas pixel -> frame pixel
    footprint: np.ndarray  # (4, 2) frame corners on the canvas (TL, TR, BR, BL)
    tilt_deg: float


def _rot_x(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def _rot_z(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def camera_homography(
    frame_size: tuple[int, int],
    *,
    tilt_deg: float,
    yaw_deg: float,
    roll_deg: float,
    hfov_deg: float,
) -> np.ndarray:
    """Table plane (z = 0, units of camera height) -> frame pixels, for a camera looking at the
    origin from height 1, tilted `tilt_deg` from straight down."""
    width, height = frame_size
    focal = (width / 2) / np.tan(np.radians(hfov_deg) / 2)
    k = np.array([[focal, 0, width / 2], [0, focal, height / 2], [0, 0, 1]])
    straight_down = np.array([[1.0, 0, 0], [0, -1, 0], [0, 0, -1]])  # world -> camera axes
    r = _rot_z(np.radians(roll_deg)) @ _rot_x(np.radians(tilt_deg)) @ straight_down
    r = r @ _rot_z(np.radians(yaw_deg))
    distance = 1.0 / np.cos(np.radians(tilt_deg))
    t = np.array([0.0, 0.0, distance])
    return k @ np.column_stack([r[:, 0], r[:, 1], t])


def transform_points(homography: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Apply a 3x3 homography to (n, 2) points."""
    pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, homography).reshape(-1, 2)


def frame_corners(frame_size: tuple[int, int]) -> np.ndarray:
    width, height = frame_size
    return np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float64)


def sample_view(rng: np.random.Generator, frame_size: tuple[int, int]) -> TableView:
    """A camera looking down at the table: tilt 0..25 deg (mostly under 20), any yaw, a little
    roll, a webcam's field of view."""
    tilt = MAX_TILT_DEG * float(rng.beta(1.4, 1.8))
    cam = camera_homography(
        frame_size,
        tilt_deg=tilt,
        yaw_deg=rng.uniform(-180, 180),
        roll_deg=rng.normal(0, 2.0),
        hfov_deg=rng.uniform(55, 78),
    )
    return view_from_camera(cam, frame_size, tilt_deg=tilt)


def view_from_camera(
    cam: np.ndarray, frame_size: tuple[int, int], *, tilt_deg: float = 0.0
) -> TableView:
    """Canvas for a table-plane -> frame homography `cam`: scaled ~1:1 at the frame centre."""
    width, height = frame_size
    inv = np.linalg.inv(cam)
    centre = np.array([width / 2, height / 2])
    probe = transform_points(inv, centre + np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]))
    jac = np.column_stack([probe[1] - probe[0], probe[2] - probe[0]])
    units_per_px = float(np.sqrt(abs(np.linalg.det(jac))))
    corners = transform_points(inv, frame_corners(frame_size))
    # Canvas axes follow the frame's footprint: x along its top edge, y towards its bottom
    # edge. That keeps the canvas small (no bounding box of a turned frame) and never
    # mirrored (world y points the other way from image y).
    ux = corners[1] - corners[0]
    ux /= np.linalg.norm(ux)
    uy = corners[3] - corners[0]
    uy -= uy @ ux * ux
    uy /= np.linalg.norm(uy)
    axes = np.array([ux, uy])
    turned = corners @ axes.T
    lo, hi = turned.min(axis=0), turned.max(axis=0)
    scale = 1.0 / units_per_px
    area = float(np.prod((hi - lo) * scale))
    if area > MAX_CANVAS_AREA_RATIO * width * height:
        scale *= np.sqrt(MAX_CANVAS_AREA_RATIO * width * height / area)
    to_canvas = np.eye(3)
    to_canvas[:2, :2] = axes * scale
    to_canvas[:2, 2] = -lo * scale
    canvas_size = (
        int(np.ceil((hi[0] - lo[0]) * scale)) + 1,
        int(np.ceil((hi[1] - lo[1]) * scale)) + 1,
    )
    homography = cam @ np.linalg.inv(to_canvas)
    homography /= homography[2, 2]
    footprint = transform_points(np.linalg.inv(homography), frame_corners(frame_size))
    return TableView(frame_size, canvas_size, homography, footprint, tilt_deg)


def min_area_box(points: np.ndarray) -> np.ndarray:
    """The minimum-area oriented rectangle around (n, 2) points, as (4, 2) float32 corners."""
    rect = cv2.minAreaRect(np.asarray(points, np.float32).reshape(-1, 1, 2))
    return cv2.boxPoints(rect).astype(np.float32)


def clip_to_frame(polygon: np.ndarray, frame_size: tuple[int, int]) -> np.ndarray:
    width, height = frame_size
    out = polygon.astype(np.float32).copy()
    out[:, 0] = out[:, 0].clip(0, width)
    out[:, 1] = out[:, 1].clip(0, height)
    return out
