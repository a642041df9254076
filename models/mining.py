"""Hard-example mining: where a trained detector is wrong on fresh scenes, so that the next stage
of training sees more crops there.

Most of a random crop is easy for a detector trained on thousands of them; what still costs
counts is rare (a pencil or coin read as a back, half a drawing left under the counting line).
A stage trained on crops centred on those places spends its small CPU budget where the errors
are. The mistakes are taken at the counting path's own lines: any box it reads (from the reading
line) that lies on no card of its class, and any card no box counts (from the counting line).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Final, TypeAlias

import numpy as np

from blitzcam.models.crops import LabelledImage, crop_windows, read_canonical, window_at
from blitzcam.vision.polygons import polygon_iou

MATCH_IOU: Final = 0.5  # a box and a card it overlaps this much are the same thing
HARD_JITTER: Final = 1 / 8  # of the crop side: a mistake stays well inside its crop

Mistakes: TypeAlias = dict[str, list[list[float]]]  # scene "split/stem" -> centres, canonical px


def mistakes(
    boxes: np.ndarray,
    confidence: np.ndarray,
    box_class: np.ndarray,
    cards: np.ndarray,
    card_class: np.ndarray,
    *,
    read_from: float,
    count_from: float,
    match_iou: float = MATCH_IOU,
) -> np.ndarray:
    """Centres (k, 2) of a detector's mistakes on one labelled image.

    `boxes` (n, 4, 2) with their confidence and class are the detector's; `cards` (m, 4, 2) and
    `card_class` are the labels. A mistake is a box of `read_from` or more that matches no card
    of its class (something that is not a card, or a face read as a back), or a card that no
    box of its class of `count_from` or more matches (a miss). Matching is many-to-one, so two
    counted boxes on one card are not a mistake here (class-aware suppression at the counting
    path's IoU makes them rare; one-to-one matching would change what the measured run mined).
    """
    iou = np.array(
        [[polygon_iou(box, card) for card in cards] for box in boxes], np.float64
    ).reshape(len(boxes), len(cards))
    same = box_class[:, None] == card_class[None, :]
    matched = (iou >= match_iou) & same
    extra = (confidence >= read_from) & ~matched.any(axis=1)
    counted = matched & (confidence >= count_from)[:, None]
    missed = ~counted.any(axis=0)
    centres = [boxes[extra].mean(axis=1), cards[missed].mean(axis=1)]
    return np.concatenate(centres).reshape(-1, 2)


def hard_windows(
    item: LabelledImage,
    centres: np.ndarray,
    rng: np.random.Generator,
    *,
    size: int,
    count: int,
    hard_share: float,
) -> list[tuple[int, int]]:
    """Top-left corners of `count` windows: up to `hard_share` of them centred near distinct
    mistakes (drawn at random when there are more), the rest as `crop_windows` places them."""
    hard = min(len(centres), math.floor(count * hard_share))
    picked = centres[rng.choice(len(centres), hard, replace=False)] if hard else centres[:0]
    jittered = picked + rng.normal(0, size * HARD_JITTER, (hard, 2))
    windows = [window_at(centre, item.image.shape[:2], size) for centre in jittered]
    return windows + crop_windows(item, rng, size=size, count=count - hard)


def mine_scenes(
    weights: Path,
    scenes: Iterable[tuple[str, Path, Path]],
    *,
    canonical_width: int,
    read_from: float,
    count_from: float,
    iou: float,
    device: str = "cpu",
) -> Mistakes:
    """Run the detector at `weights` (ultralytics, as training does) on every scene at the
    counting path's scale. `scenes` are (key, image, OBB label file); returns each scene's
    mistakes by key, in canonical pixels."""
    from tqdm import tqdm

    from blitzcam.offline import import_ultralytics

    import_ultralytics()  # offline first: a bare import of ultralytics probes the network
    from ultralytics import YOLO

    model = YOLO(str(weights))
    found: Mistakes = {}
    for key, path, label in tqdm(list(scenes), desc="mining", unit="scene"):
        item = read_canonical(path, label, canonical_width)
        result = model.predict(
            item.image,
            imgsz=canonical_width,
            conf=read_from,
            iou=iou,
            device=device,
            verbose=False,
        )[0].obb
        centres = mistakes(
            result.xyxyxyxy.cpu().numpy().reshape(-1, 4, 2).astype(np.float64),
            result.conf.cpu().numpy(),
            result.cls.cpu().numpy().astype(np.int64),
            item.corners,
            item.classes,
            read_from=read_from,
            count_from=count_from,
        )
        found[key] = centres.round(1).tolist()
    return found


def load_or_mine(path: Path, mine: Callable[[], Mistakes]) -> Mistakes:
    """The mistakes cached at `path`, or `mine()`'s, written there (atomically) first."""
    if path.is_file():
        return json.loads(path.read_text(encoding="utf-8"))
    found = mine()
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(found), encoding="utf-8")
    partial.replace(path)
    return found
