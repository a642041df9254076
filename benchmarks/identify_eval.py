"""Deck identification accuracy on synthetic table scenes, from their ground-truth boxes.

    python -m benchmarks.identify_eval [--scenes 15] [--width 1920 --height 1080] [--seed 1]

No detector involved: each labelled back's oriented box goes straight to identification, so
this measures the identity step alone (built-in profile) on the generator's perspective, light,
blur, noise and overlaps. Random-art backs should come out "unknown".
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from blitzcam.vision.detections import Detections
from blitzcam.vision.embedding import Embedder, reference_vectors
from blitzcam.vision.identify import identify
from blitzcam.vision.pipeline import default_identity_path
from blitzcam.vision.references import default_profile


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=15)
    parser.add_argument("--width", type=int, default=1920)
    parser.add_argument("--height", type=int, default=1080)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    import cv2

    from blitzcam.datasets import art
    from blitzcam.datasets.art import RANDOM_FAMILIES
    from blitzcam.datasets.compose import ArtCache, SceneConfig, compose_scene

    rng = np.random.default_rng(args.seed)
    cache, profile = ArtCache(art), default_profile()
    embedder = Embedder(default_identity_path(), threads=1)
    references = reference_vectors(embedder.embed, profile.patches, profile.owners)
    config = SceneConfig((args.width, args.height), tuple(RANDOM_FAMILIES))
    rows: list[tuple[str, str, float]] = []  # truth, predicted, visible fraction
    seconds = 0.0
    for _ in range(args.scenes):
        scene = compose_scene(rng, config, cache)
        backs = [o for o in scene.objects if o.cls == 0]
        if not backs:
            continue
        obb = []
        for obj in backs:
            (cx, cy), (w, h), angle = cv2.minAreaRect(
                obj.polygon.reshape(-1, 1, 2).astype(np.float32)
            )
            obb.append([cx, cy, w, h, np.deg2rad(angle)])
        dets = Detections.from_obb(np.array(obb), np.ones(len(obb)), np.zeros(len(obb)))
        frame = np.ascontiguousarray(scene.image[..., ::-1])
        start = time.perf_counter()
        out = identify(frame, dets, references, profile.names, embedder.embed)
        seconds += time.perf_counter() - start
        rows += [(o.deck, out.deck_name(i), o.visible) for i, o in enumerate(backs)]

    builtin = [r for r in rows if not r[0].startswith("unknown")]
    other = [r for r in rows if r[0].startswith("unknown")]

    def share(items: list[tuple[str, str, float]], test) -> str:
        return f"{np.mean([test(r) for r in items]):.3f} (n={len(items)})" if items else "n/a"

    def right(row: tuple[str, str, float]) -> bool:
        return row[0] == row[1]

    full = [r for r in builtin if r[2] > 0.95]
    part = [r for r in builtin if r[2] <= 0.95]

    print(f"{args.scenes} scenes at {args.width}x{args.height}, seed {args.seed}")
    print(f"  built-in backs right:          {share(builtin, right)}")
    print(f"    drawing fully visible:       {share(full, right)}")
    print(f"    drawing partly covered:      {share(part, right)}")
    wrong = share(builtin, lambda r: r[1] not in (r[0], "unknown"))
    print(f"  built-in backs as wrong deck:  {wrong}")
    print(f"  random-art backs as unknown:   {share(other, lambda r: r[1] == 'unknown')}")
    print(f"  time per back: {seconds / max(1, len(rows)) * 1000:.2f} ms")


if __name__ == "__main__":
    main()
