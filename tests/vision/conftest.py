"""Fixtures for vision/: a random-init OBB model (built once per session), synthetic frames, decks."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from blitzcam.paths import REPO_ROOT

if (
    str(REPO_ROOT) not in sys.path
):  # benchmarks/ holds the random-model builder shared with the bench
    sys.path.insert(0, str(REPO_ROOT))


@pytest.fixture(scope="session")
def random_model(tmp_path_factory: pytest.TempPathFactory):
    """The untrained stand-in detector: .pt plus fixed-size and dynamic ONNX exports (~15 s, once)."""
    from benchmarks.random_obb import build_random_obb

    return build_random_obb(tmp_path_factory.mktemp("random-obb"), imgsz=320, dynamic_too=True)


@pytest.fixture(scope="session")
def table_frame() -> np.ndarray:
    """A seeded 16:9 frame with card-like bright rectangles on a darker table (BGR uint8)."""
    import cv2

    rng = np.random.default_rng(5)
    frame = np.full((540, 960, 3), (60, 90, 70), np.uint8)
    frame = cv2.add(frame, rng.integers(0, 30, frame.shape, dtype=np.uint8))
    for _ in range(12):
        centre = (float(rng.uniform(80, 880)), float(rng.uniform(80, 460)))
        box = cv2.boxPoints((centre, (90.0, 130.0), float(rng.uniform(0, 180))))
        cv2.fillPoly(frame, [box.astype(np.int32)], (235, 235, 235))
        colour = tuple(int(c) for c in rng.integers(0, 255, 3))
        cv2.circle(frame, (int(centre[0]), int(centre[1])), 25, colour, -1)
    return frame
