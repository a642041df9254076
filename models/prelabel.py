"""A photo's cards as blitzcam counted them, written as a labelme file to correct by hand.

Boxing 150 cards by hand is what keeps real tables out of the measurements; correcting what the
counting already boxed takes minutes. Each back counted or seen becomes a shape labelled with
its deck (`unknown` for a back of no deck), each face-up card one labelled `face-up`, in the
labels `blitzcam evaluate` reads (models/labelme_scenes.py). The file is flagged unchecked
(labelme shows the flag as a box to tick): scored as they are, blitzcam's own labels would
measure nothing, and `evaluate` says how many are still unticked.

`labelme_record` is pure; `prelabel` counts one photo and writes its file, never over one.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from blitzcam.models.evaluation import SceneDataError
from blitzcam.models.labelme_scenes import (
    CHECKED_FLAG,
    FACE_UP_LABELS,
    labelled_photo,
    read_labelme,
)

LABELME_VERSION: Final = "5.4.1"  # the format written (labelme reads older and newer alike)


@dataclass(frozen=True, slots=True)
class Shape:
    """One card as counted: its label, its oriented box (4, 2) in the photo's pixels, and how
    sure the detector was (said in the shape's description, to look at the doubtful first)."""

    label: str
    corners: np.ndarray
    confidence: float


def labelme_record(
    image_path: str, size: tuple[int, int], shapes: Sequence[Shape]
) -> dict[str, Any]:
    """A labelme 5 file's content: `image_path` as the file names it (relative to the file's
    folder), `size` the photo's (width, height) as a viewer shows it."""
    width, height = size
    return {
        "version": LABELME_VERSION,
        "flags": {CHECKED_FLAG: False},
        "shapes": [
            {
                "label": shape.label,
                "points": [[round(float(x), 1), round(float(y), 1)] for x, y in shape.corners],
                "group_id": None,
                "description": f"blitzcam {shape.confidence:.2f}",
                "shape_type": "polygon",
                "flags": {},
                "mask": None,
            }
            for shape in shapes
        ],
        "imagePath": image_path,
        "imageData": None,
        "imageHeight": height,
        "imageWidth": width,
    }


def counted_shapes(detections: Any, scale: tuple[float, float]) -> list[Shape]:
    """The shapes of a frame's detections (a vision Detections: what `blitzcam count` reports,
    backs and face-up cards), in the photo's pixels (`scale`: its pixels per frame pixel)."""
    faces = detections.of_class("face")
    shapes = []
    for row in range(len(detections)):
        corners = detections.corners[row].astype(np.float64) * np.asarray(scale, np.float64)
        label = FACE_UP_LABELS[0] if faces[row] else detections.deck_name(row)
        shapes.append(Shape(label, corners, float(detections.confidence[row])))
    return shapes


def labels_file(photo: Path, out_dir: Path | None) -> tuple[Path, str]:
    """Where a photo's labels go (beside it, as labelme keeps them, or in `out_dir`) and the
    photo's path as that file names it."""
    folder = photo.parent if out_dir is None else out_dir
    target = folder / f"{photo.stem}.json"
    try:
        return target, Path(os.path.relpath(photo.resolve(), folder.resolve())).as_posix()
    except ValueError:  # (Windows: another drive, no relative path to it)
        return target, str(photo.resolve())


def labels_of(target: Path, photo: Path) -> bool | None:
    """Whether the labelme file at `target` is `photo`'s (True), another photo's (False: one
    of the same name in another folder, or `t.png` beside `t.jpg`), or cannot be told (None:
    not a labelme file blitzcam can read)."""
    try:  # (read as evaluate reads it)
        found = labelled_photo(target, read_labelme(target))
    except (SceneDataError, OSError):
        return None
    # (a photo kept only inside it is not this one, which is here and would have been found)
    return isinstance(found, Path) and found.resolve() == photo.resolve()
