"""How many true cards would non-maximum suppression merge, per label geometry?

Runs greedy NMS (IoU 0.7, ultralytics' default) over the ground-truth boxes of generated scenes,
as if the detector had found every card perfectly, and counts the cards it would suppress:
those are lost from the count whatever the detector learns. Compares the oriented box of the
visible drawing (what blitzcam labels) with the axis-aligned box of the same drawing.

    python -m benchmarks.label_overlap [SCENES_DIR] [--split test]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from blitzcam.models.metrics import polygon_iou


def aabb(poly: np.ndarray) -> np.ndarray:
    (x0, y0), (x1, y1) = poly.min(axis=0), poly.max(axis=0)
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])


def suppressed(polys: list[np.ndarray], threshold: float = 0.7) -> int:
    """Boxes greedy NMS would drop when all have equal score (order as given)."""
    kept: list[np.ndarray] = []
    lost = 0
    for poly in polys:
        centre = poly.mean(axis=0)
        near = [k for k in kept if np.abs(k.mean(axis=0) - centre).max() < 200]
        if any(polygon_iou(poly, k) > threshold for k in near):
            lost += 1
        else:
            kept.append(poly)
    return lost


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenes", type=Path, nargs="?", default=Path("runs/detector/scenes"))
    parser.add_argument("--split", default="test")
    args = parser.parse_args()
    scenes = [
        [np.array(o["polygon"], float) for o in json.loads(p.read_text())["objects"]
         if o["class"] == "back"]
        for p in sorted((args.scenes / "scenes" / args.split).glob("*.json"))
    ]
    cards = sum(len(backs) for backs in scenes)
    print(f"{len(scenes)} scenes, {cards} counted backs ({args.split} split of {args.scenes})")
    print("NMS IoU  geometry       cards lost  scenes losing a card")
    for threshold in (0.7, 0.5, 0.3):
        for name, shape in (("oriented", lambda p: p), ("axis-aligned", aabb)):
            lost = [suppressed([shape(p) for p in backs], threshold) for backs in scenes]
            hit = sum(n > 0 for n in lost) / max(len(scenes), 1)
            print(f"{threshold:7.1f}  {name:<13} {sum(lost):>10}  {hit:>19.1%}")


if __name__ == "__main__":
    main()
