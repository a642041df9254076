"""Drawings of no deck at all, for the identity network's reject stage to keep away from the decks.

Counting asks the identity network about every box the detector calls a back. Most are backs;
the rest sit on clutter (coins, pens, cloth patterns) or on face-up cards, and the network was
only ever shown card backs, so such a box can land at a deck's similarity and be counted. These
are cut the way the counting path cuts them (`drawing_patch`, half of them snapped to the ink as
`identify` does):

- the detector's own boxes that lie on no labelled back, down to a low confidence (the boxes it
  half-believes on these scenes are the kind it fully believes on others);
- the middle of every face-up card, where a back's drawing would be (face-up cards are never
  counted, whatever the detector calls them).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Final

import cv2
import numpy as np

from blitzcam.datasets.scene import CLASS_BACK, CLASS_FACE
from blitzcam.models.identity_data import jitter_box
from blitzcam.models.metrics import SceneTruth, polygon_iou
from blitzcam.vision.detections import obb_corners
from blitzcam.vision.embedding import PATCH, drawing_patch
from blitzcam.vision.identify import snap_to_ink

NEGATIVE_CONF: Final = 0.1  # detector boxes down to this confidence are candidates
OFF_BACK_IOU: Final = 0.3  # a box overlapping every labelled back less than this is on none
# A back's drawing spans about this share of its card's short and long sides (the generator's
# art: a 52 x 78 px card carries a 26 x 30 px drawing).
DRAWING_SHARE: Final = (0.5, 0.38)


def off_back(boxes: np.ndarray, backs: np.ndarray, line: float = OFF_BACK_IOU) -> np.ndarray:
    """Indices of `boxes` (n,4,2) overlapping every labelled back (m,4,2) less than `line`."""
    keep = [
        i for i, box in enumerate(boxes) if all(polygon_iou(box, back) < line for back in backs)
    ]
    return np.array(keep, dtype=np.int64)


def face_middle(card: np.ndarray) -> np.ndarray:
    """Where a back's drawing would be on the face-up card `card` (4,2): (4,2) corners."""
    (cx, cy), (w, h), angle = cv2.minAreaRect(np.asarray(card, np.float32).reshape(-1, 1, 2))
    short, long = DRAWING_SHARE
    w, h = (w * short, h * long) if w <= h else (w * long, h * short)
    return obb_corners(np.array([[cx, cy, w, h, np.deg2rad(angle)]], np.float32))[0]


def scene_negatives(
    frame: np.ndarray,
    detected_backs: np.ndarray,
    truth: SceneTruth,
    rng: np.random.Generator,
) -> np.ndarray:
    """(k, PATCH, PATCH, 3) patches of one scene: detected backs on no labelled back, then the
    middle of each face-up card (disturbed like a detector's box); each snapped to the ink with
    probability 1/2."""
    backs = truth.corners[truth.classes == CLASS_BACK]
    faces = truth.corners[truth.classes == CLASS_FACE]
    boxes = [detected_backs[i] for i in off_back(detected_backs, backs)]
    boxes += [jitter_box(face_middle(card), rng) for card in faces]
    patches = []
    for box in boxes:
        if rng.random() < 0.5:
            box = snap_to_ink(frame, box)
        patches.append(drawing_patch(frame, box))
    return np.stack(patches) if patches else np.zeros((0, PATCH, PATCH, 3), np.uint8)


def cut_negatives(
    scenes: Iterable[tuple[str, Path, SceneTruth]],
    detect_backs: Callable[[np.ndarray], np.ndarray],
    *,
    seed: int,
    read_image: Callable[[Path], np.ndarray],
) -> np.ndarray:
    """Every scene's negatives (`scene_negatives`), in scene order. `detect_backs(frame)` gives
    the detector's back boxes (n,4,2) down to NEGATIVE_CONF; each scene's jitter is seeded from
    (`seed`, its place in the order)."""
    parts = [np.zeros((0, PATCH, PATCH, 3), np.uint8)]
    for index, (_, image_path, truth) in enumerate(scenes):
        frame = read_image(image_path)
        rng = np.random.default_rng(np.random.SeedSequence([seed, index]))
        parts.append(scene_negatives(frame, detect_backs(frame), truth, rng))
    return np.concatenate(parts)


def save_negatives(path: Path, patches: np.ndarray) -> None:
    import io

    from blitzcam.files import write_bytes_atomic

    buffer = io.BytesIO()
    np.savez(buffer, negatives=patches)
    write_bytes_atomic(path, buffer.getvalue())


def load_negatives(path: Path) -> np.ndarray:
    with np.load(path, allow_pickle=False) as data:
        return data["negatives"]
