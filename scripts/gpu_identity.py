"""The training half of scripts/gpu_identity.sh: drawings cut on every core, then the network.

    python scripts/gpu_identity.py RUN LATE SCENES STEPS DEVICE WORKERS [WIDE]

RUN: the run folder (drawings and checkpoint; resumed when it holds one); LATE: late-round
scenes; SCENES and STEPS: the scenes per seed and both stages' steps ('' for the recipe's);
DEVICE: cuda:0 or cpu; WORKERS: processes cutting drawings; WIDE: 1 for the wider art
families too (`--wide-art`). A file of its own, not a script on
standard input: the workers that cut drawings are spawned, and import their parent's main.
RUN/device.json says where it trained, for the model card (`models/card.py`).
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import replace
from pathlib import Path


def main(argv: list[str]) -> None:
    import torch

    from blitzcam.models.identity_network import IdentityRecipe
    from blitzcam.models.identity_training import train, training_data

    run_arg, late, scenes, steps, device, workers, *wide = argv
    if wide not in ([], ["0"], ["1"]):  # (WIDE=yes was taken for no)
        raise SystemExit(f"WIDE must be 0 or 1, got {' '.join(wide)!r}")
    run = Path(run_arg)
    # an unusable device is found out now, not after minutes of cutting drawings
    torch.zeros(1, device=device)
    name = torch.cuda.get_device_name(device) if device.startswith("cuda") else "the CPU"
    recipe = IdentityRecipe(late_scenes=int(late), wide_art=wide == ["1"])
    if scenes:
        recipe = replace(recipe, scenes_per_seed=int(scenes))
    if steps:
        recipe = replace(recipe, steps=int(steps), reject_steps=int(steps))
    print(recipe)
    run.mkdir(parents=True, exist_ok=True)
    (run / "device.json").write_text(json.dumps({"device": name}) + "\n", encoding="utf-8")
    began = time.time()
    data, _ = training_data(recipe, run, workers=int(workers))
    print(f"drawings: {len(data.queries)} in {time.time() - began:.0f} s", flush=True)
    print(train(data, recipe, run, resume=True, device=device))


if __name__ == "__main__":  # the drawings are cut in spawned workers
    main(sys.argv[1:])
