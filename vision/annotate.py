"""Drawing detections onto a frame: outlines in each deck's ink. Draws, never counts."""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np

from blitzcam.game.decks import DECKS_BY_NAME
from blitzcam.vision.detections import Detections

INK_BGR: Final[dict[str, tuple[int, int, int]]] = {
    "green": (62, 150, 30),
    "red": (50, 40, 210),
    "yellow": (20, 190, 235),
    "blue": (190, 90, 30),
}
FACE_UP_BGR: Final = (255, 255, 255)
UNKNOWN_BGR: Final = (200, 0, 200)
OTHER_DECK_BGR: Final = (0, 160, 255)


def colour_of(detections: Detections, row: int) -> tuple[int, int, int]:
    if detections.of_class("face")[row]:
        return FACE_UP_BGR
    name = detections.deck_name(row)
    if name == "unknown":
        return UNKNOWN_BGR
    deck = DECKS_BY_NAME.get(name)
    return INK_BGR[deck.ink] if deck else OTHER_DECK_BGR


def annotate(frame_bgr: np.ndarray, detections: Detections, *, labels: bool = False) -> np.ndarray:
    """A copy of the frame with every oriented box outlined (faces white, unknown magenta)."""
    out = frame_bgr.copy()
    thickness = max(1, round(max(out.shape[:2]) / 600))
    for row in range(len(detections)):
        colour = colour_of(detections, row)
        polygon = np.round(detections.corners[row]).astype(np.int32)
        cv2.polylines(
            out, [polygon], isClosed=True, color=colour, thickness=thickness, lineType=cv2.LINE_AA
        )
        if labels:
            text = "face up" if detections.of_class("face")[row] else detections.deck_name(row)
            x, y = polygon[:, 0].min(), polygon[:, 1].min() - 4
            cv2.putText(
                out,
                text,
                (int(x), int(max(y, 10))),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.4 * thickness,
                colour,
                thickness,
                cv2.LINE_AA,
            )
    return out
