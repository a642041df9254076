"""The shipped detector's recipe: what `blitzcam train` does by default.

Every number here was picked by measurement on this project's CPU budget (see MODEL_CARD.md);
changing one means retraining and updating the card.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, replace
from typing import Any, Final

from blitzcam.models.crops import CANONICAL_WIDTH


@dataclass(frozen=True, slots=True)
class Recipe:
    model_yaml: str = "yolo11n-obb.yaml"  # a local yaml from the ultralytics package: no download
    scenes: int = 1000  # synthetic scenes generated for training + validation
    data_seed: int = 2026
    crop_size: int = 320  # training imgsz: crops at inference pixel scale
    crops_per_scene: int = 4
    epochs: int = 14
    batch: int = 16
    seed: int = 0
    patience: int = 0  # 0: never stop early; the schedule is fixed
    # Stage 2: from stage 1's best weights, a gentler schedule on fresh scenes (another seed).
    # 0 epochs: one stage only.
    refine_epochs: int = 6
    refine_data_seed: int = 2027
    refine_lr0: float = 0.0005
    # Stage 3: from stage 2's best weights, many more scenes for a fixed wall-clock budget
    # (ultralytics' `time`, which sets the epochs from the measured epoch time). Sized for a GPU
    # (`blitzcam train --device 0`); on a CPU the same budget covers a small part of one epoch.
    # 0 hours: no stage 3.
    extend_hours: float = 0.1
    extend_scenes: int = 8000
    extend_data_seed: int = 2028
    extend_batch: int = 64
    extend_lr0: float = 0.001
    # Stage 4 (off: measured worse, see MODEL_CARD.md): from the previous stage's best weights,
    # on fresh scenes (another seed) cut into crops of which up to `harden_share` are centred on
    # that stage's own mistakes there (models/mining.py); a low learning rate and no mosaic, so
    # each hard crop is seen whole. 0 epochs: no stage 4.
    harden_epochs: int = 0
    harden_scenes: int = 1500
    harden_data_seed: int = 2029
    harden_lr0: float = 0.0002
    harden_share: float = 0.5
    # Stage 5 (off: not trained yet, it wants a GPU): from the previous stage's best weights,
    # stage 3's schedule again on fresh scenes (another seed), `more_late_share` of them a big
    # game's late rounds (6-8 decks of small cards laid out tight, which the other stages drew
    # only now and then), for a wall-clock budget. `blitzcam train --from-shipped` runs it
    # from the shipped weights. 0 hours: no stage 5.
    more_hours: float = 0.0
    more_scenes: int = 12000
    more_data_seed: int = 2030
    more_late_share: float = 0.25
    # random art of the generator's wider families too (`dataset generate --wide-art`); tried
    # at stop 47 and not shipped (MODEL_CARD.md)
    more_wide_art: bool = False
    more_batch: int = 64
    more_lr0: float = 0.0005
    canonical_width: int = CANONICAL_WIDTH
    # Inference input (height, width): a 1280-wide 16:9 frame, padded to a multiple of 32.
    export_hw: tuple[int, int] = (736, 1280)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


SHIPPED: Final = Recipe()

# a model yaml's name as ultralytics resolves it in its own package: "yolo11n-obb.yaml" is
# cfg/models/11/yolo11-obb.yaml at scale n (its `guess_model_scale`)
_SCALE: Final = re.compile(r"(\d+)([nslmx])(.+)?$")


def model_yaml_problem(name: object) -> str | None:
    """Why `name` is no model yaml of the ultralytics package to train from (None: it is one). A
    run's recipe.json names it: any other name is a file ultralytics looks for elsewhere, and
    a weights file's name (yolo11n-obb.pt) one it downloads, whatever YOLO_OFFLINE says."""
    import importlib.util
    from pathlib import Path

    if not isinstance(name, str) or not re.fullmatch(r"[\w.-]+\.yaml", name):
        return (
            f"model_yaml {name!r} is not the name of a model yaml of the ultralytics package "
            "(NAME.yaml, as yolo11n-obb.yaml): another is a file looked for elsewhere, and a "
            "weights file's name a download"
        )
    spec = importlib.util.find_spec("ultralytics")
    places = list(spec.submodule_search_locations or []) if spec is not None else []
    stem = _SCALE.sub(r"\1\3", name.removesuffix(".yaml"))
    if not any(any((Path(place) / "cfg" / "models").rglob(f"{stem}.yaml")) for place in places):
        return f"model_yaml {name!r}: the ultralytics package has no such model yaml"
    return None


# `blitzcam train --trial`: every stage of the recipe, tiny (a stage-3 budget of a minute), so
# that a machine shows it can train in some minutes; its weights are no detector to count with
TRIAL: Final = replace(
    SHIPPED,
    scenes=20,
    crops_per_scene=2,
    epochs=1,
    batch=4,
    refine_epochs=1,
    extend_scenes=20,
    extend_batch=4,
    extend_hours=1 / 60,
    # (the stages off by default, turned on with the trial: 1,500 and 12,000 scenes each)
    harden_scenes=20,
    more_scenes=20,
    more_batch=4,
)

# The shipped weights (models/blitzcam-obb.pt) and how each of their stages ran, as the model
# card says: a run that goes on from them (`blitzcam train --from-shipped`) takes these as its
# finished stages. Shipping other weights means updating both (a test compares the digest).
SHIPPED_WEIGHTS_SHA256: Final = "d0bdf353f86adc229a748d534106d5acc16137e6fb8b97205cb07a7e5c39c0cd"
SHIPPED_STAGES: Final[dict[str, dict[str, Any]]] = {
    "train": {"seconds": 101 * 60, "device": "x86_64 CPU", "epochs": 14},
    "refine": {"seconds": 63 * 60, "device": "x86_64 CPU", "epochs": 6},
    "extend": {"seconds": 8 * 60, "device": "NVIDIA H200", "epochs": 10},
}
