"""Training crops that keep cards at the pixel size they have at inference.

The counting path resizes every frame to a canonical width (1280 px) and runs the detector on
the whole frame. Training on full frames at that size costs ~4x more per image than on 320 px
crops of them, and most of a frame is table. So frames are scaled to the canonical width and cut
into crops centred on cards; a fully convolutional detector trained on crops runs unchanged on
the full canonical frame, because the cards have the same size in pixels in both.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

import cv2
import numpy as np

from blitzcam.datasets.labels import to_obb_line
from blitzcam.datasets.scene import CLASS_NAMES
from blitzcam.models.yolo_scenes import SLACK

CANONICAL_WIDTH: Final = 1280
MIN_KEPT_SHARE: Final = 0.5  # a label cut by the crop edge is kept if this much of it is inside


@dataclass(frozen=True, slots=True)
class LabelledImage:
    """An image (BGR) with its OBB labels: classes (n,) and corners (n, 4, 2) in pixels."""

    image: np.ndarray
    classes: np.ndarray
    corners: np.ndarray


def read_obb_labels(path: Path, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Classes and pixel corners from an ultralytics OBB label file; (width, height) = size."""
    classes, corners = [], []
    try:
        text = path.read_text(encoding="utf-8") if path.is_file() else ""
    except UnicodeDecodeError as exc:  # (its words name no file)
        raise ValueError(
            f"{path}: not a text file of labels (byte {exc.start} is no UTF-8)"
        ) from None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 9:
            raise ValueError(f"{path}:{number}: an OBB line has 9 fields, got {len(parts)}")
        try:
            cls, values = int(parts[0]), np.array([float(v) for v in parts[1:]])
        except ValueError as exc:
            raise ValueError(f"{path}:{number}: not an OBB line ({exc})") from None
        # (held to what evaluation holds labels to: else a 'nan' crashes the crops' cutting with
        # a traceback, and a class of none is trained on)
        if cls not in CLASS_NAMES:
            raise ValueError(f"{path}:{number}: class {cls}, not one of {sorted(CLASS_NAMES)}")
        if not np.isfinite(values).all():
            raise ValueError(f"{path}:{number}: a coordinate that is not a number")
        if values.min() < -SLACK or values.max() > 1 + SLACK:
            raise ValueError(
                f"{path}:{number}: coordinates past 0 to 1: OBB labels are shares of the "
                "picture's width and height, not pixels"
            )
        classes.append(cls)
        corners.append(values.reshape(4, 2) * size)
    return (
        np.array(classes, np.int64),
        np.array(corners, np.float64).reshape(-1, 4, 2),
    )


def to_canonical(item: LabelledImage, width: int = CANONICAL_WIDTH) -> LabelledImage:
    scale = width / item.image.shape[1]
    if abs(scale - 1.0) < 1e-9:
        return item
    height = round(item.image.shape[0] * scale)
    image = cv2.resize(item.image, (width, height), interpolation=cv2.INTER_AREA)
    return LabelledImage(image, item.classes, item.corners * scale)


def read_canonical(
    image_path: Path, label_path: Path, width: int = CANONICAL_WIDTH
) -> LabelledImage:
    """A scene's image and OBB labels, scaled to the canonical width the counting path uses.
    OSError naming the image where it cannot be read, is cut short or does not decode (OpenCV
    decodes a JPEG cut short with its missing part filled in, which would be trained on)."""
    from blitzcam.vision.images import is_truncated

    data = image_path.read_bytes()
    if is_truncated(data):
        raise OSError(f"{image_path}: the file is truncated")
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise OSError(f"{image_path}: cannot decode image")
    classes, corners = read_obb_labels(label_path, (image.shape[1], image.shape[0]))
    return to_canonical(LabelledImage(image, classes, corners), width)


def window_at(centre: np.ndarray, frame_hw: tuple[int, int], size: int) -> tuple[int, int]:
    """Top-left corner of the `size` window centred on `centre` (x, y), moved inside the frame."""
    h, w = frame_hw
    x0 = int(np.clip(round(centre[0] - size / 2), 0, max(w - size, 0)))
    y0 = int(np.clip(round(centre[1] - size / 2), 0, max(h - size, 0)))
    return x0, y0


def _clip_to_window(corners: np.ndarray, x0: float, y0: float, size: int) -> np.ndarray | None:
    """The part of one oriented box inside the window, as its min-area rectangle, or None."""
    window = np.array(
        [[x0, y0], [x0 + size, y0], [x0 + size, y0 + size], [x0, y0 + size]], np.float32
    )
    poly = corners.astype(np.float32)
    area = abs(cv2.contourArea(poly))
    if area < 1.0:
        return None
    inside_area, inside = cv2.intersectConvexConvex(poly, window)
    if inside is None or inside_area < MIN_KEPT_SHARE * area:
        return None
    rect = cv2.minAreaRect(inside.reshape(-1, 2))
    return cv2.boxPoints(rect).astype(np.float64) - (x0, y0)


def crop_windows(
    item: LabelledImage, rng: np.random.Generator, *, size: int, count: int
) -> list[tuple[int, int]]:
    """Top-left corners of `count` windows; most are centred near a random label."""
    h, w = item.image.shape[:2]
    windows = []
    centres = item.corners.mean(axis=1) if len(item.corners) else np.empty((0, 2))
    for _ in range(count):
        if len(centres) and rng.random() < 0.85:
            centre = centres[rng.integers(len(centres))] + rng.normal(0, size / 6, 2)
        else:
            centre = np.array([rng.uniform(0, w), rng.uniform(0, h)])
        windows.append(window_at(centre, (h, w), size))
    return windows


def cut_crop(item: LabelledImage, x0: int, y0: int, size: int) -> LabelledImage:
    """One square crop (padded with grey where the frame is smaller) and its clipped labels."""
    crop = np.full((size, size, 3), 114, np.uint8)
    patch = item.image[y0 : y0 + size, x0 : x0 + size]
    crop[: patch.shape[0], : patch.shape[1]] = patch
    classes, corners = [], []
    for cls, box in zip(item.classes, item.corners, strict=True):
        clipped = _clip_to_window(box, x0, y0, size)
        if clipped is not None:
            classes.append(int(cls))
            corners.append(clipped)
    return LabelledImage(
        crop, np.array(classes, np.int64), np.array(corners, np.float64).reshape(-1, 4, 2)
    )


def obb_label_text(item: LabelledImage) -> str:
    size = (item.image.shape[1], item.image.shape[0])
    return "".join(
        to_obb_line(int(cls), box, size) + "\n"
        for cls, box in zip(item.classes, item.corners, strict=True)
    )
