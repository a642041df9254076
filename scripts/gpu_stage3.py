"""Stage 3 of the detector recipe, for scripts/gpu_stage3.sh.

python scripts/gpu_stage3.py RUN SCENES HOURS DEVICE (SCENES and HOURS "" for the recipe's).
A file, not Python fed to `python3 -` as it was: the scene generator's spawned workers import
the main module again, and one read from standard input could not be (each worker failed and
was started again until the call's time ran out; review).
"""

from __future__ import annotations

import sys
from pathlib import Path


def main(argv: list[str]) -> None:
    from blitzcam.models.recipe import SHIPPED
    from blitzcam.models.training import recipe_with, train

    run, scenes, hours, device = argv
    recipe = recipe_with(
        SHIPPED,
        extend_scenes=int(scenes) if scenes else None,
        extend_hours=float(hours) if hours else None,
    )
    print(recipe)
    print(train(recipe, scenes_dir=None, run_dir=Path(run), resume=True, workers=16, device=device))


if __name__ == "__main__":  # the crops are cut by spawned workers, which import this file
    main(sys.argv[1:])
