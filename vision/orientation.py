"""Turning a frame a quarter so it fills the detector's input: pure functions.

The detector reads a fixed landscape input (1280x736). A portrait phone frame (1080x1920)
letterboxed into it fills under a third of its width, so its cards reach the network about three
times smaller than the ones it was trained on. Turned a quarter, the same frame fills the input as
a 16:9 one does, so the counting path reads it turned once and turns the boxes it found back
(cards lie on a table at any angle). A closer look in tiles, and identification, read the frame as
it came: there a tilted camera's perspective shrinks the cards up the frame, as in the generated
training scenes, not across it (models/MODEL_CARD.md measures portrait frames both ways).
"""

from __future__ import annotations

import cv2
import numpy as np


def fills_more_turned(frame_hw: tuple[int, int], network_hw: tuple[int, int]) -> bool:
    """Whether the frame, turned a quarter, comes out larger in the network input than as it
    is (a portrait frame for a landscape network); a square frame is never turned."""
    height, width = frame_hw
    network_h, network_w = network_hw
    if height < 1 or width < 1:
        return False
    upright = min(network_h / height, network_w / width)
    turned = min(network_h / width, network_w / height)
    return turned > upright


def turn_frame(frame: np.ndarray) -> np.ndarray:
    """The frame turned a quarter clockwise (its width becomes its height)."""
    return cv2.rotate(frame, cv2.ROTATE_90_CLOCKWISE)


def turn_back_obb(obb: np.ndarray, frame_hw: tuple[int, int]) -> np.ndarray:
    """xywhr boxes in the turned frame -> the same boxes in the frame as it came.

    `frame_hw` is the height and width of the frame before it was turned. A point (x, y) of the
    turned frame is (y, height - x) of the frame; a box's sides turn with it, so its width and
    height swap and its angle stays (the same box, in ultralytics' angle range still)."""
    turned = np.asarray(obb, dtype=np.float32).reshape(-1, 5)
    out = np.empty_like(turned)
    out[:, 0] = turned[:, 1]
    out[:, 1] = frame_hw[0] - turned[:, 0]
    out[:, 2] = turned[:, 3]
    out[:, 3] = turned[:, 2]
    out[:, 4] = turned[:, 4]
    return out
