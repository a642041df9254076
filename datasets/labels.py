"""Label formats, separate from files: ultralytics OBB lines, per-scene ground truth, data.yaml.

Every function here returns text or a dict; none touches the disk.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any, Final

import numpy as np

from blitzcam.datasets.scene import CLASS_BACK, CLASS_FACE, CLASS_NAMES, Scene, SceneObject

SPLITS: Final[tuple[str, ...]] = ("train", "val", "test")


def to_obb_line(cls: int, polygon: np.ndarray, frame_size: tuple[int, int]) -> str:
    """One ultralytics OBB label line, ``cls x1 y1 ... x4 y4``, corners normalised to [0, 1]."""
    if polygon.shape != (4, 2):
        raise ValueError(f"polygon must have shape (4, 2), got {polygon.shape}")
    width, height = frame_size
    norm = np.clip(polygon / np.array([width, height], np.float64), 0.0, 1.0)
    return " ".join([str(int(cls)), *(f"{v:.6f}" for v in norm.reshape(-1))])


def parse_obb_line(line: str) -> tuple[int, np.ndarray]:
    """(class, (4, 2) normalised corners) from one OBB label line."""
    parts = line.split()
    if len(parts) != 9:
        raise ValueError(
            f"an OBB line has 9 fields (cls and 4 corners), got {len(parts)}: {line!r}"
        )
    return int(parts[0]), np.array([float(v) for v in parts[1:]], np.float64).reshape(4, 2)


def label_text(scene: Scene) -> str:
    """The scene's label file: one OBB line per object, in the order of `scene.objects`."""
    return "".join(to_obb_line(o.cls, o.polygon, scene.size) + "\n" for o in scene.objects)


def _object_record(obj: SceneObject) -> dict[str, Any]:
    return {
        "class": CLASS_NAMES[obj.cls],
        "deck": obj.deck,
        "slot": obj.slot if obj.cls == CLASS_BACK else None,
        "visible": obj.visible,
        "polygon": [[round(float(x), 2), round(float(y), 2)] for x, y in obj.polygon],
        "card": None
        if obj.card is None
        else [[round(float(x), 2), round(float(y), 2)] for x, y in obj.card],
    }


def ground_truth(scene: Scene, *, stem: str, split: str, seed: int, index: int) -> dict[str, Any]:
    """What the evaluator needs about one scene: the deck of each labelled back (label order),
    the counts per deck, the face-up count, resolution, and which art was used."""
    backs = [o for o in scene.objects if o.cls == CLASS_BACK]
    per_slot = Counter(o.slot for o in backs)
    decks = [{**d, "count": per_slot.get(d["slot"], 0)} for d in scene.meta.get("decks", [])]
    return {
        "image": f"images/{split}/{stem}.jpg",
        "labels": f"labels/{split}/{stem}.txt",
        "split": split,
        "seed": seed,
        "index": index,
        "resolution": list(scene.size),
        "jpeg_quality": scene.jpeg_quality,
        "counts": dict(sorted(Counter(o.deck for o in backs).items())),
        "face_up": sum(1 for o in scene.objects if o.cls == CLASS_FACE),
        "decks": decks,
        "art": sorted({"random" if d["art"] == "random" else "builtin" for d in decks}),
        "random_families": sorted({d["family"] for d in decks if d["family"]}),
        "objects": [_object_record(o) for o in scene.objects],
        "scene": {k: v for k, v in scene.meta.items() if k != "decks"},
    }


def ground_truth_text(record: dict[str, Any]) -> str:
    return json.dumps(record) + "\n"  # no indent: json's C encoder, 10x faster


def data_yaml(root: Path | None, splits: tuple[str, ...] = SPLITS) -> str:
    """ultralytics' dataset file; strings JSON-quoted (valid YAML) so any path is safe. With no
    `root` the file names none, and ultralytics finds the splits beside it wherever the folder
    is moved (a relative root would be read against the working directory first)."""
    names = "\n".join(f"  {k}: {v}" for k, v in CLASS_NAMES.items())
    return (
        (f"path: {json.dumps(str(root))}\n" if root is not None else "")
        + "".join(f"{split}: images/{split}\n" for split in splits)
        + f"names:\n{names}\n"
    )
