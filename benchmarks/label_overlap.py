"""How many true cards would non-maximum suppression merge, per label geometry?

Runs greedy NMS (IoU 0.7, ultralytics' default) over the ground-truth boxes of generated scenes,
as if the detector had found every card perfectly, and counts the cards it would suppress:
those are lost from the count whatever the detector learns. Compares four label geometries:
the visible drawing (what blitzcam labels) and the whole card, each as an oriented box and as
an axis-aligned box.

    python -m benchmarks.label_overlap [SCENES_DIR] [--split test]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from blitzcam.vision.polygons import polygon_iou


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


def nearest_iou(polys: list[np.ndarray]) -> list[float]:
    """For each box, its largest IoU with any other box of the scene."""
    centres = [p.mean(axis=0) for p in polys]
    out = []
    for i, poly in enumerate(polys):
        best = 0.0
        for j, other in enumerate(polys):
            if i != j and np.abs(centres[i] - centres[j]).max() < 200:
                best = max(best, polygon_iou(poly, other))
        out.append(best)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenes", type=Path, nargs="?", default=Path("runs/detector/scenes"))
    parser.add_argument("--split", default="test", choices=("train", "val", "test", "all"))
    args = parser.parse_args()
    folder = args.scenes / "scenes"
    pattern = "*/*.json" if args.split == "all" else f"{args.split}/*.json"
    records = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob(pattern))]
    if not records:  # a wrong folder or split would print a table of zeros
        parser.error(f"{folder}: no scene files for split {args.split!r}")
    backs = [[o for o in r["objects"] if o["class"] == "back"] for r in records]
    cards = sum(len(b) for b in backs)
    print(f"{len(records)} scenes, {cards} counted backs ({args.split} split of {args.scenes})")
    print("NMS IoU  label                     cards lost  scenes losing a card")
    geometries = (
        ("drawing, oriented", "polygon", lambda p: p),
        ("drawing, axis-aligned", "polygon", aabb),
        ("whole card, oriented", "card", lambda p: p),
        ("whole card, axis-aligned", "card", aabb),
    )
    available = [g for g in geometries if all(o.get(g[1]) is not None for b in backs for o in b)]
    boxes = {
        name: [[shape(np.array(o[key], float)) for o in b] for b in backs]
        for name, key, shape in available
    }
    for threshold in (0.7, 0.5):
        for name, scenes in boxes.items():
            lost = [suppressed(polys, threshold) for polys in scenes]
            hit = sum(n > 0 for n in lost) / max(len(records), 1)
            print(f"{threshold:7.1f}  {name:<24} {sum(lost):>10}  {hit:>19.1%}")
    # The margin that protects the count from imperfect predicted boxes: how close each card's
    # nearest neighbour comes to the NMS threshold.
    print("\nlargest IoU with a neighbour   median     99th pct   max")
    for name, scenes in boxes.items():
        values = np.array([v for polys in scenes for v in nearest_iou(polys)])
        p50, p99, top = np.percentile(values, [50, 99, 100]) if len(values) else (0, 0, 0)
        print(f"  {name:<27} {p50:8.3f}  {p99:9.3f}  {top:6.3f}")


if __name__ == "__main__":
    main()
