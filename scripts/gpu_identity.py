"""The training half of scripts/gpu_identity.sh: drawings cut on every core, then the network.

    python scripts/gpu_identity.py RUN LATE SCENES STEPS DEVICE WORKERS

RUN: the run folder (drawings and checkpoint; resumed when it holds one); LATE: late-round
scenes; SCENES and STEPS: the scenes per seed and both stages' steps ('' for the recipe's);
DEVICE: cuda:0 or cpu; WORKERS: processes cutting drawings. A file of its own, not a script on
standard input: the workers that cut drawings are spawned, and import their parent's main.
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from pathlib import Path


def main(argv: list[str]) -> None:
    from blitzcam.models.identity_training import IdentityRecipe, train, training_data

    run, late, scenes, steps, device, workers = argv
    recipe = IdentityRecipe(late_scenes=int(late))
    if scenes:
        recipe = replace(recipe, scenes_per_seed=int(scenes))
    if steps:
        recipe = replace(recipe, steps=int(steps), reject_steps=int(steps))
    print(recipe)
    Path(run).mkdir(parents=True, exist_ok=True)
    began = time.time()
    data, _ = training_data(recipe, Path(run), workers=int(workers))
    print(f"drawings: {len(data.queries)} in {time.time() - began:.0f} s", flush=True)
    print(train(data, recipe, Path(run), resume=True, device=device))


if __name__ == "__main__":  # the drawings are cut in spawned workers
    main(sys.argv[1:])
