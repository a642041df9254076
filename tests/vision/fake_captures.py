"""Stand-ins for OpenCV's captures, shared by the tests of `sources` and `stream_source`."""

from __future__ import annotations

import cv2
import numpy as np


def random_frames(n: int) -> list[np.ndarray]:
    rng = np.random.default_rng(3)
    return [rng.integers(0, 255, (48, 64, 3), dtype=np.uint8) for _ in range(n)]


class FakeCapture:
    """A capture that plays `frames` then fails; opens only while `opens` allows. A frame that
    is None is a picture that does not decode: its read fails, and the capture reads on."""

    def __init__(self, frames: list[np.ndarray], opened: bool = True) -> None:
        self.frames, self.opened = list(frames), opened

    def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
        return self.opened

    def read(self) -> tuple[bool, np.ndarray | None]:
        if not self.frames:
            return False, None
        frame = self.frames.pop(0)
        return frame is not None, frame

    def release(self) -> None:
        self.opened = False


class FakeClip(FakeCapture):
    """A video file served over HTTP: its capture knows how many frames it holds, at 10 a second."""

    def get(self, prop: int) -> float:
        return {cv2.CAP_PROP_FRAME_COUNT: 3.0, cv2.CAP_PROP_FPS: 10.0}.get(prop, 0.0)
