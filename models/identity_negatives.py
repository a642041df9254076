"""Drawings of no deck at all, for the identity network's reject stage to keep away from the decks.

Counting asks the identity network about every box the detector calls a back. Most are backs;
the rest sit on clutter (coins, pens, cloth patterns) or on face-up cards, and the network was
only ever shown card backs, so such a box can land at a deck's similarity and be counted. These
are cut the way the counting path cuts them (`drawing_patch`, half of them snapped to the ink as
`identify` does):

- the detector's own boxes that lie on no labelled back, down to a low confidence, in scenes it
  never trained on (the boxes it half-believes there are the kind it fully believes elsewhere);
- the middle of every face-up card, where a back's drawing would be (face-up cards are never
  counted, whatever the detector calls them).
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Final

import cv2
import numpy as np

from blitzcam.datasets.art import SYMBOL_SIZE
from blitzcam.datasets.scene import CLASS_BACK, CLASS_FACE
from blitzcam.models.identity_data import counted_patch, jitter_box
from blitzcam.models.metrics import SceneTruth
from blitzcam.vision.detections import obb_corners
from blitzcam.vision.embedding import MAX_SUPERSAMPLE, PATCH
from blitzcam.vision.polygons import polygon_cover

NEGATIVE_CONF: Final = 0.1  # detector boxes down to this confidence are candidates
# A box is on no back when no labelled back covers more than this share of the box's own area:
# IoU would keep a small box lying wholly inside a drawing (a 20 px box in a 40 px drawing has
# IoU 0.25), and that patch shows part of a real deck.
ON_BACK_SHARE: Final = 0.1
_JITTER_STREAM: Final = 2  # keeps the boxes' jitter apart from the streams that drew the scenes


def cut_settings() -> dict[str, object]:
    """Everything the cut depends on besides the scenes and the detector (its cache key)."""
    return {
        "conf": NEGATIVE_CONF,
        "on_back_share": ON_BACK_SHARE,
        "symbol_size": SYMBOL_SIZE,
        "patch": PATCH,
        "supersample": MAX_SUPERSAMPLE,
        "version": 2,
    }


def settings_tag(detector_sha256: str, nms_iou: float) -> str:
    """A short name for one detector's cut (suppressing at `nms_iou`) with today's settings."""
    settings = {"detector": detector_sha256, "nms_iou": nms_iou, **cut_settings()}
    text = json.dumps(settings, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def off_back(boxes: np.ndarray, backs: np.ndarray, share: float = ON_BACK_SHARE) -> np.ndarray:
    """Indices of `boxes` (n,4,2) that no labelled back (m,4,2) covers more than `share` of."""
    keep = [i for i, box in enumerate(boxes) if all(polygon_cover(box, b) <= share for b in backs)]
    return np.array(keep, dtype=np.int64)


def face_middle(card: np.ndarray) -> np.ndarray:
    """Where a back's drawing would be on the face-up card `card` (4,2): a square of the art's
    symbol size (`SYMBOL_SIZE` of the card's width) at its centre, turned with it."""
    (cx, cy), (w, h), angle = cv2.minAreaRect(np.asarray(card, np.float32).reshape(-1, 1, 2))
    side = SYMBOL_SIZE * min(w, h)
    return obb_corners(np.array([[cx, cy, side, side, np.deg2rad(angle)]], np.float32))[0]


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
    patches = [counted_patch(frame, box, rng) for box in boxes]
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
    `seed` and the scene's name, so it does not depend on which other scenes are there."""
    parts = [np.zeros((0, PATCH, PATCH, 3), np.uint8)]
    for name, image_path, truth in scenes:
        frame = read_image(image_path)
        key = [seed, zlib.crc32(name.encode()), _JITTER_STREAM]
        rng = np.random.default_rng(np.random.SeedSequence(key))
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
