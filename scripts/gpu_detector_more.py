"""The detector's stage 5 from the shipped weights, for scripts/gpu_detector_more.sh.

python scripts/gpu_detector_more.py RUN HOURS SCENES DEVICE WORKERS [WIDE] (SCENES "" for
the recipe's; WIDE "1" for `--more-wide-art`). The CLI's `blitzcam train --from-shipped` does
the same and then exports and quantizes, which needs packages the GPU machine lacks: that is
done back home.
"""

from __future__ import annotations

import sys
from pathlib import Path


def main(argv: list[str]) -> None:
    from blitzcam.models import DETECTOR_PT
    from blitzcam.models.recipe import SHIPPED
    from blitzcam.models.run_kind import run_kind
    from blitzcam.models.run_record import go_on_from_shipped
    from blitzcam.models.training import recipe_with, train

    run, hours, scenes, device, workers, *wide = argv
    if wide not in ([], ["0"], ["1"]):  # (WIDE=yes was taken for no)
        raise SystemExit(f"WIDE must be 0 or 1, got {' '.join(wide)!r}")
    recipe = recipe_with(
        SHIPPED, more_hours=float(hours), more_scenes=int(scenes) if scenes else None,
        more_wide_art=wide == ["1"] or None,
    )  # fmt: skip
    print(recipe)
    # a fresh machine's empty run folder starts one; a warm machine's (or RESUME_FROM's) goes
    # on with it (resume=True alone was refused on an empty folder, since 794671b: review)
    started = run_kind(Path(run)) is not None
    go_on_from_shipped(Path(run), recipe, DETECTOR_PT, resume=started)
    weights = train(
        recipe, scenes_dir=None, run_dir=Path(run), resume=True, workers=int(workers),
        device=device,
    )  # fmt: skip
    print(weights)


if __name__ == "__main__":  # the crops are cut by spawned workers, which import this file
    main(sys.argv[1:])
