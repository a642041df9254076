"""A deck on the table that nobody in the match plays: do its backs stay nobody's?

    python -m benchmarks.missing_deck [DIR ...] [--identity-model FILE]

For every scene of the `blitzcam dataset generate` folders (default: the tuning sets runs/tune
and runs/tune2) that holds two or more known decks, the scene is counted with its decks in play
less the first (in the profile's order), as the app would count a match that left that player
out. Reports how many of the missing deck's backs were counted to a deck in play (the target is
none: they would score for another player), in how many scenes, and in how many scenes the
decks in play were still counted exactly.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "data", nargs="*", type=Path, help="scene folders (default: the tuning sets)"
    )
    parser.add_argument(
        "--identity-model", type=Path, default=None, help="identity network ONNX (default: shipped)"
    )
    args = parser.parse_args()

    from blitzcam.models.evaluation import labelled_scenes, scene_decks, scene_prediction
    from blitzcam.models.metrics import evaluate_scene
    from blitzcam.paths import REPO_ROOT
    from blitzcam.vision.images import read_image
    from blitzcam.vision.pipeline import CountingPipeline

    args.data = args.data or [REPO_ROOT / "runs" / "tune", REPO_ROOT / "runs" / "tune2"]
    for folder in args.data:
        if not folder.is_dir():
            raise SystemExit(
                f"error: no scene folder at {folder} (make one with `blitzcam dataset generate`)"
            )
    pipeline = CountingPipeline.from_defaults(identity_path=args.identity_model)
    scenes = leaked = leaking = still_exact = missing_backs = 0
    for folder in args.data:
        try:
            items = list(labelled_scenes(folder, "all"))
        except (OSError, ValueError) as exc:
            raise SystemExit(f"error: {exc}") from None
        for name, image_path, truth in items:
            decks = scene_decks(truth, pipeline.profile.names)
            if len(decks) < 2:
                continue
            missing, in_play = decks[0], decks[1:]
            found = pipeline(read_image(image_path), in_play=in_play).detections
            outcome = evaluate_scene(
                name, truth, scene_prediction(found), known_decks=pipeline.known_decks
            )
            n = sum(c for (t, p), c in outcome.confusions.items() if t == missing and p in in_play)
            scenes += 1
            leaked += n
            leaking += n > 0
            missing_backs += outcome.truth_counts[missing]
            still_exact += all(
                outcome.predicted_counts[d] == outcome.truth_counts[d] for d in in_play
            )
    print(
        f"{scenes} scenes from {', '.join(str(f) for f in args.data)}, each counted with its "
        "first deck left out of play"
    )
    print(
        f"  the missing deck's backs counted to a deck in play: {leaked} of {missing_backs}, "
        f"in {leaking} scenes"
    )
    print(f"  scenes whose decks in play were counted exactly: {still_exact} of {scenes}")


if __name__ == "__main__":
    main()
