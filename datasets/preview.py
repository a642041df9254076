"""A contact sheet of a generated dataset: scenes with their OBB labels and deck names drawn.

For checking by eye that the labels sit on the drawings and the scenes look like photos.
Reads only the files the generator wrote (images, labels, scenes JSON).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final

import cv2
import numpy as np

from blitzcam.datasets.labels import SPLITS, parse_obb_line
from blitzcam.datasets.scene import UNKNOWN_DECK_PREFIX
from blitzcam.vision.images import read_image

THUMB_WIDTH: Final = 640
# BGR colours per class: back green, face orange.
CLASS_COLOURS: Final[dict[int, tuple[int, int, int]]] = {0: (40, 230, 40), 1: (0, 140, 255)}


def dataset_stems(root: Path) -> list[tuple[str, str]]:
    """(split, stem) of every scene that has an image, in split then name order."""
    return [
        (split, p.stem) for split in SPLITS for p in sorted((root / "images" / split).glob("*.jpg"))
    ]


def pick_evenly(items: list[tuple[str, str]], n: int) -> list[tuple[str, str]]:
    if len(items) <= n:
        return items
    return [items[i] for i in np.linspace(0, len(items) - 1, n).round().astype(int)]


def read_labels(path: Path) -> list[tuple[int, np.ndarray]]:
    """A label file's (class, normalised corners) per line; ValueError naming the file and line
    for one that is not an OBB line of finite numbers."""
    labels = []
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a label file (not UTF-8 text)") from None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            cls, corners = parse_obb_line(line)
        except ValueError as exc:
            raise ValueError(f"{path}, line {number}: {exc}") from None
        if not np.isfinite(corners).all():
            raise ValueError(f"{path}, line {number}: a corner is not a finite number: {line!r}")
        if cls not in CLASS_COLOURS:  # (drawn white, unsaid: the detector has two classes)
            raise ValueError(
                f"{path}, line {number}: class {cls} is no class of the detector's (0 back, 1 face)"
            )
        labels.append((cls, corners))
    return labels


def read_scene(path: Path) -> dict:
    """A scene's ground-truth file ({} when there is none); ValueError naming it if it is not
    a JSON object."""
    if not path.is_file():
        return {}
    try:
        truth = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"{path}: not a scene file ({exc})") from None
    if not isinstance(truth, dict) or not isinstance(truth.get("objects", []), list):
        raise ValueError(f"{path}: not a scene file (a JSON object with a list of objects)")
    return truth


def annotate(
    image: np.ndarray, labels: list[tuple[int, np.ndarray]], truth: dict, width: int
) -> np.ndarray:
    """The BGR image scaled to `width`, with each label's box and (for backs) its deck name."""
    h, w = image.shape[:2]
    scale = width / w
    out = cv2.resize(image, (width, round(h * scale)), interpolation=cv2.INTER_AREA)
    th, tw = out.shape[:2]
    objects = truth.get("objects", [])
    for i, (cls, corners) in enumerate(labels):
        pts = np.round(corners * (tw, th)).astype(np.int32)
        colour = CLASS_COLOURS.get(cls, (255, 255, 255))
        cv2.polylines(out, [pts], True, colour, 1, cv2.LINE_AA)
        deck = objects[i].get("deck") if i < len(objects) and isinstance(objects[i], dict) else None
        if isinstance(deck, str) and deck:
            name = deck.replace(UNKNOWN_DECK_PREFIX, "?")
            x, y = pts.min(axis=0)
            cv2.putText(
                out,
                name,
                (int(x), max(8, int(y) - 2)),
                cv2.FONT_HERSHEY_PLAIN,
                0.6,
                (0, 0, 0),
                2,
                cv2.LINE_AA,
            )
            cv2.putText(
                out,
                name,
                (int(x), max(8, int(y) - 2)),
                cv2.FONT_HERSHEY_PLAIN,
                0.6,
                colour,
                1,
                cv2.LINE_AA,
            )
    counts = truth.get("counts", {})
    counts = ", ".join(
        f"{str(k).replace(UNKNOWN_DECK_PREFIX, '?')} {v}"
        for k, v in (counts.items() if isinstance(counts, dict) else ())
    )
    caption = f"{truth.get('image', '')}  faces {truth.get('face_up', 0)}  {counts}"
    cv2.rectangle(out, (0, th - 16), (tw, th), (0, 0, 0), -1)
    cv2.putText(
        out,
        caption[:140],
        (4, th - 4),
        cv2.FONT_HERSHEY_PLAIN,
        0.8,
        (255, 255, 255),
        1,
        cv2.LINE_AA,
    )
    return out


def contact_sheet(root: Path, *, n: int = 16, thumb_width: int = THUMB_WIDTH) -> np.ndarray:
    """A BGR grid of up to n annotated scenes picked evenly across the dataset."""
    picked = pick_evenly(dataset_stems(root), n)
    if not picked:
        raise ValueError(f"{root}: no images under images/{{train,val,test}}")
    thumbs = []
    for split, stem in picked:
        # (read as counting reads a frame: a damaged JPEG is said in one line naming it, not
        # libjpeg's own warning over a half-grey thumbnail)
        image = read_image(root / "images" / split / f"{stem}.jpg")
        labels = read_labels(root / "labels" / split / f"{stem}.txt")
        truth = read_scene(root / "scenes" / split / f"{stem}.json")
        thumbs.append(annotate(image, labels, truth, thumb_width))
    cols = int(np.ceil(np.sqrt(len(thumbs))))
    cell_h = max(t.shape[0] for t in thumbs)
    rows = int(np.ceil(len(thumbs) / cols))
    sheet = np.full((rows * cell_h, cols * thumb_width, 3), 32, np.uint8)
    for i, thumb in enumerate(thumbs):
        r, c = divmod(i, cols)
        sheet[r * cell_h : r * cell_h + thumb.shape[0], c * thumb_width : (c + 1) * thumb_width] = (
            thumb
        )
    return sheet
