"""The identity network's refine stage on late-round drawings (tried at stop 42; not shipped).

    .venv/bin/python scripts/identity_refine_late.py [--scenes 600] [--steps 3000]
        [--reject-weight W] [--run runs/refine-late]

From the shipped weights (models/blitzcam-identity.pt, copied to the run's last.pt), the refine
stage of `blitzcam train-identity` on the recipe's drawings plus drawings cut from a big game's
late rounds (`identity_data.build(..., late_round=True)`, seed 11), with no fading or crossing:
only the data changes (and, with --reject-weight, the rejection hinge's weight: tried at stop 43).
The drawings go to runs/identity-data, the run to RUN, the export to RUN/export (models/ is
left alone). Resumes an interrupted run.
`scripts/identity_measure.sh NAME ONNX` then measures it on the choice sets. MODEL_CARD.md
has what it measured.
"""

from __future__ import annotations

import argparse
import shutil
from dataclasses import replace
from pathlib import Path

LATE_SEED = 11


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=600, help="late-round scenes to cut")
    parser.add_argument("--steps", type=int, default=3000, help="refine steps")
    parser.add_argument(
        "--reject-weight",
        type=float,
        default=None,
        help="the rejection hinge's weight here (default: the reject stage's, 1.0)",
    )
    parser.add_argument("--run", type=Path, default=Path("runs/refine-late"), help="run folder")
    args = parser.parse_args()

    from blitzcam.datasets.art import HOLDOUT_FAMILY, RANDOM_FAMILIES
    from blitzcam.models import IDENTITY_PT, MODELS_DIR
    from blitzcam.models.identity_checkpoint import ship
    from blitzcam.models.identity_data import IdentityData, build
    from blitzcam.models.identity_network import IdentityRecipe
    from blitzcam.models.identity_training import train, training_data

    run, data_dir = args.run, Path("runs/identity-data")
    run.mkdir(parents=True, exist_ok=True)
    data_dir.mkdir(parents=True, exist_ok=True)
    recipe = replace(
        IdentityRecipe(),
        refine_steps=args.steps,
        refine_occluded_share=0.0,
        refine_faded_share=0.0,
        refine_reject_weight=args.reject_weight,
    )
    data, _ = training_data(recipe, data_dir)
    late_path = data_dir / f"drawings-late-seed{LATE_SEED}-{args.scenes}.npz"
    if not late_path.is_file():
        print(f"cutting late-round drawings ({args.scenes} scenes, seed {LATE_SEED})", flush=True)
        families = tuple(f for f in RANDOM_FAMILIES if f != HOLDOUT_FAMILY)
        build(LATE_SEED, args.scenes, families, workers=2, late_round=True).save(late_path)
    late = IdentityData.load(late_path)
    print(f"recipe drawings {len(data.queries)}, late-round drawings {len(late.queries)}")
    last = run / "last.pt"
    if not last.is_file():  # the refine stage can begin from the shipped weights alone
        shutil.copy(MODELS_DIR / IDENTITY_PT.name, last)
    checkpoint = train(IdentityData.concat([data, late]), recipe, run, resume=True)
    print(ship(checkpoint, run / "export"))


if __name__ == "__main__":  # the drawings are cut in spawned workers
    main()
