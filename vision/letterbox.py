"""Letterboxing a frame into the detector's input, and mapping boxes back: pure functions.

The arithmetic follows ultralytics' LetterBox and scale_boxes exactly (same rounding), so the
ONNX path sees the same pixels and returns the same boxes as `YOLO(...).predict`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np

PAD_VALUE: Final = 114  # ultralytics' grey


@dataclass(frozen=True, slots=True)
class Letterbox:
    """How one frame was fitted into the network input."""

    src_hw: tuple[int, int]  # frame height, width
    dst_hw: tuple[int, int]  # network input height, width
    new_wh: tuple[int, int]  # resized frame width, height inside dst
    top: int
    bottom: int
    left: int
    right: int

    @property
    def gain_xy(self) -> tuple[float, float]:
        return self.new_wh[0] / self.src_hw[1], self.new_wh[1] / self.src_hw[0]


def letterbox_params(
    src_hw: tuple[int, int], target_hw: tuple[int, int], *, auto: bool = False, stride: int = 32
) -> Letterbox:
    """Fit src_hw into target_hw keeping its aspect; with `auto`, pad only to a stride multiple."""
    h, w = src_hw
    if h < 1 or w < 1:
        raise ValueError(f"letterbox: expected a frame of at least 1x1 pixels, got {w}x{h}")
    ratio = min(target_hw[0] / h, target_hw[1] / w)
    new_w, new_h = max(round(w * ratio), 1), max(round(h * ratio), 1)
    dw, dh = target_hw[1] - new_w, target_hw[0] - new_h
    if auto:
        dw, dh = dw % stride, dh % stride
    dw, dh = dw / 2, dh / 2
    top, bottom = round(dh - 0.1), round(dh + 0.1)
    left, right = round(dw - 0.1), round(dw + 0.1)
    return Letterbox(
        src_hw=(h, w),
        dst_hw=(new_h + top + bottom, new_w + left + right),
        new_wh=(new_w, new_h),
        top=top,
        bottom=bottom,
        left=left,
        right=right,
    )


def letterbox_image(frame_bgr: np.ndarray, params: Letterbox) -> np.ndarray:
    """The frame resized and padded to params.dst_hw (BGR uint8, H x W x 3)."""
    image = frame_bgr
    if image.shape[1::-1] != params.new_wh:
        image = cv2.resize(image, params.new_wh, interpolation=cv2.INTER_LINEAR)
    return cv2.copyMakeBorder(
        image,
        params.top,
        params.bottom,
        params.left,
        params.right,
        cv2.BORDER_CONSTANT,
        value=(PAD_VALUE, PAD_VALUE, PAD_VALUE),
    )


def to_blob(image_bgr: np.ndarray) -> np.ndarray:
    """BGR uint8 H x W x 3 -> the network's float32 (1,3,H,W) RGB tensor in [0,1].

    Each channel scaled straight into its plane: the same floats as OpenCV's blobFromImage
    (every one of the 256 values checked in tests), a quarter less time (3.3 against 4.4 ms
    for a 1280 x 736 input)."""
    height, width = image_bgr.shape[:2]
    blob = np.empty((1, 3, height, width), np.float32)
    for plane in range(3):  # RGB from BGR
        np.multiply(image_bgr[..., 2 - plane], np.float32(1 / 255.0), out=blob[0, plane])
    return blob


def unletterbox_obb(obb: np.ndarray, params: Letterbox) -> np.ndarray:
    """xywhr boxes in network-input pixels -> frame pixels (a new array; the angle is unchanged)."""
    out = np.array(obb, dtype=np.float32, copy=True).reshape(-1, 5)
    gain_x, gain_y = params.gain_xy
    out[:, 0] = (out[:, 0] - params.left) / gain_x
    out[:, 1] = (out[:, 1] - params.top) / gain_y
    out[:, 2] /= gain_x
    out[:, 3] /= gain_y
    return out
