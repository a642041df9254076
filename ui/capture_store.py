"""Keeping confirmed captures: each shot's image, its labels in the ultralytics OBB format and the
counts the players confirmed — the start of a dataset from the user's own table.

Formatting (`obb_label_line`, `capture_record`) is pure and separate from file I/O (`save_capture`).
Files are written to a temporary name and renamed, so a folder never holds half a capture.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Final

import numpy as np

from blitzcam.files import write_bytes_atomic
from blitzcam.ui.counting_worker import Outline

CLASS_IDS: Final[dict[str, int]] = {"back": 0, "face": 1}  # the detector's classes (design card)
JPEG_QUALITY: Final = 92


def obb_label_line(outline: Outline, *, width: int, height: int) -> str:
    """`cls x1 y1 x2 y2 x3 y3 x4 y4`, corners normalised to the image and clipped to [0, 1]."""
    if width <= 0 or height <= 0:
        raise ValueError(f"image size must be positive, got {width}x{height}")
    corners = np.asarray(outline.corners, dtype=np.float64)
    if corners.shape != (4, 2):
        raise ValueError(f"outline corners: expected shape (4, 2), got {corners.shape}")
    norm = np.clip(corners / np.array([width, height], dtype=np.float64), 0.0, 1.0)
    cls = CLASS_IDS["face" if outline.face_up else "back"]
    return " ".join([str(cls), *(f"{v:.6f}" for v in norm.reshape(-1))])


def label_lines(outlines: Iterable[Outline], *, width: int, height: int) -> list[str]:
    return [obb_label_line(o, width=width, height=height) for o in outlines]


def capture_record(
    *,
    step: str,
    shot: int,
    shots_in_step: int,
    confirmed: Mapping[str, Mapping[str, int]],
    players: Sequence[Mapping[str, str | None]],
    outlines: Sequence[Outline],
    taken_at: datetime,
) -> dict[str, Any]:
    """The JSON beside each image: confirmed counts of the round, and each label row's deck."""
    return {
        "taken_at": taken_at.isoformat(),
        "step": step,
        "shot": shot,
        "shots_in_step": shots_in_step,
        "players": [dict(p) for p in players],
        "confirmed": {name: dict(counts) for name, counts in confirmed.items()},
        "label_decks": [None if o.face_up else o.deck for o in outlines],
    }


def capture_stem(taken_at: datetime, step: str, shot: int) -> str:
    return f"{taken_at:%Y%m%d-%H%M%S}-{step}-{shot}"


def save_capture(
    folder: Path, stem: str, frame_bgr: np.ndarray, lines: list[str], record: Mapping[str, Any]
) -> Path:
    """Write folder/images/STEM.jpg, folder/labels/STEM.txt and folder/counts/STEM.json, all
    three or none: the image goes last, and a failure removes what was written before it (an
    image without its labels would read as a table with no cards on it)."""
    import cv2

    ok, encoded = cv2.imencode(".jpg", frame_bgr, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise ValueError(f"{stem}: the frame could not be encoded as JPEG")
    labels = "".join(f"{line}\n" for line in lines)
    files = (
        (folder / "counts" / f"{stem}.json", (json.dumps(record, indent=1) + "\n").encode()),
        (folder / "labels" / f"{stem}.txt", labels.encode()),
        (folder / "images" / f"{stem}.jpg", encoded.tobytes()),
    )
    written: list[Path] = []
    try:
        for path, data in files:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_bytes_atomic(path, data)
            written.append(path)
    except BaseException:
        for path in written:
            path.unlink(missing_ok=True)
        raise
    return files[-1][0]
