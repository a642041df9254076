"""The detector's training stages: each one's ultralytics arguments, and whether a run's stage
folder says it is done."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from blitzcam.models.recipe import Recipe
from blitzcam.models.run_kind import FINISHED_FILE


def train_args(
    recipe: Recipe, data_yaml: Path, run_dir: Path, *, workers: int, device: str = "cpu"
) -> dict[str, Any]:
    """ultralytics train() arguments for the recipe. Augmentation is mild where the generator
    already varies a thing (rotation, perspective, lighting, blur), and scale jitter is small
    because the counting path fixes the scale of cards."""
    return {
        "data": str(data_yaml),
        "imgsz": recipe.crop_size,
        "epochs": recipe.epochs,
        "batch": recipe.batch,
        "seed": recipe.seed,
        "deterministic": True,
        "patience": recipe.patience or recipe.epochs,
        "device": device,
        "workers": workers,
        "project": str(run_dir),
        "name": "train",
        "exist_ok": True,
        "pretrained": False,
        "amp": False,  # on a GPU, AMP's self-check would fetch a model: full precision instead
        "plots": False,
        "cache": False,
        "close_mosaic": max(1, recipe.epochs // 10),
        "scale": 0.2,
        "degrees": 0.0,
        "translate": 0.1,
        "fliplr": 0.5,
        "flipud": 0.0,
        "mosaic": 1.0,
        "hsv_h": 0.02,
        "hsv_s": 0.5,
        "hsv_v": 0.3,
        "verbose": True,
    }


def refine_args(
    recipe: Recipe, data_yaml: Path, run_dir: Path, *, workers: int, device: str = "cpu"
) -> dict[str, Any]:
    """Stage 2: the same augmentation, a fixed low learning rate decaying tenfold, no warm-up
    (the weights are trained already), mosaic off for the last epoch."""
    return {
        **train_args(recipe, data_yaml, run_dir, workers=workers, device=device),
        "name": "refine",
        "pretrained": True,  # False would re-initialise the weights: start from stage 1
        "epochs": recipe.refine_epochs,
        "patience": recipe.refine_epochs,
        "optimizer": "AdamW",
        "lr0": recipe.refine_lr0,
        "lrf": 0.1,
        "warmup_epochs": 0,
        "close_mosaic": 1,
    }


def extend_args(
    recipe: Recipe, data_yaml: Path, run_dir: Path, *, workers: int, device: str = "cpu"
) -> dict[str, Any]:
    """Stage 3: stage 2's schedule on many more scenes, for a wall-clock budget: ultralytics
    re-estimates the epochs (and the learning-rate decay) from the first epoch's time. A resumed
    stage 3 gets the whole budget again (ultralytics restarts its clock on resume)."""
    return {
        **refine_args(recipe, data_yaml, run_dir, workers=workers, device=device),
        "name": "extend",
        "time": recipe.extend_hours,
        "epochs": 1000,  # replaced by the time budget after the first epoch
        "patience": 1000,
        "batch": recipe.extend_batch,
        "lr0": recipe.extend_lr0,
        "lrf": 0.05,
        "close_mosaic": 2,
        # GPU kernels are not bit-reproducible anyway; the deterministic ones are slower
        "deterministic": device == "cpu",
    }


def harden_args(
    recipe: Recipe, data_yaml: Path, run_dir: Path, *, workers: int, device: str = "cpu"
) -> dict[str, Any]:
    """Stage 4: stage 2's schedule at a lower learning rate, without mosaic: a mosaic would cut
    most hard crops' mistakes out of the picture. Deterministic on a GPU too (unlike stage 3):
    a few epochs on a few thousand crops cost little either way."""
    return {
        **refine_args(recipe, data_yaml, run_dir, workers=workers, device=device),
        "name": "harden",
        "epochs": recipe.harden_epochs,
        "patience": recipe.harden_epochs,
        "lr0": recipe.harden_lr0,
        "mosaic": 0.0,
        "close_mosaic": 0,
    }


def more_args(
    recipe: Recipe, data_yaml: Path, run_dir: Path, *, workers: int, device: str = "cpu"
) -> dict[str, Any]:
    """Stage 5: stage 3's schedule again, from the previous stage's weights, on its own fresh
    scenes, for its own budget and at its own (lower) learning rate."""
    return {
        **extend_args(recipe, data_yaml, run_dir, workers=workers, device=device),
        "name": "more",
        "time": recipe.more_hours,
        "batch": recipe.more_batch,
        "lr0": recipe.more_lr0,
    }


@dataclass(frozen=True, slots=True)
class Stage:
    """One training stage: its folder in the run, its scenes, its ultralytics arguments."""

    name: str
    scenes: int
    data_seed: int
    epochs: int  # 0: a stage with a time budget (done when its finished.json exists)
    args: Callable[..., dict[str, Any]]
    hard_share: float = 0.0  # of its crops centred on the previous stage's mistakes
    late_share: float = 0.0  # of its scenes drawn as a big game's late rounds
    wide_art: bool = False  # its random backs drawn from the wider families too

    @property
    def prefix(self) -> str:  # stage 1's folders keep their first names: "scenes", "crops-…"
        return "" if self.name == "train" else f"{self.name}-"


def stages(recipe: Recipe) -> tuple[Stage, ...]:
    """The recipe's stages in order; each starts from the previous one's best weights."""
    plan = [Stage("train", recipe.scenes, recipe.data_seed, recipe.epochs, train_args)]
    if recipe.refine_epochs > 0:
        plan.append(
            Stage(
                "refine", recipe.scenes, recipe.refine_data_seed, recipe.refine_epochs, refine_args
            )
        )
    if recipe.extend_hours > 0:
        plan.append(Stage("extend", recipe.extend_scenes, recipe.extend_data_seed, 0, extend_args))
    if recipe.harden_epochs > 0:
        plan.append(
            Stage(
                "harden",
                recipe.harden_scenes,
                recipe.harden_data_seed,
                recipe.harden_epochs,
                harden_args,
                hard_share=recipe.harden_share,
            )
        )
    if recipe.more_hours > 0:
        plan.append(
            Stage(
                "more",
                recipe.more_scenes,
                recipe.more_data_seed,
                0,
                more_args,
                late_share=recipe.more_late_share,
                wide_art=recipe.more_wide_art,
            )
        )
    return tuple(plan)


def epochs_done(stage_dir: Path) -> int:
    """Epochs a stage's results.csv records: ultralytics writes a row per finished epoch, and
    an epoch's row again when a run stopped after writing it, before its checkpoint, is
    resumed (the distinct epoch numbers are counted)."""
    results = stage_dir / "results.csv"
    if not results.is_file():
        return 0
    rows = results.read_text(encoding="utf-8").strip().splitlines()[1:]
    return len({row.split(",", 1)[0].strip() for row in rows if row.strip()})


def stage_epochs(stage_dir: Path) -> int:
    """Epochs a finished stage trained, as its finished.json says (a stage of the shipped
    weights that a run went on from has no results.csv), else as its results.csv records."""
    try:
        epochs = json.loads((stage_dir / FINISHED_FILE).read_text(encoding="utf-8"))["epochs"]
    except (OSError, ValueError, TypeError, KeyError):
        return epochs_done(stage_dir)
    return epochs if isinstance(epochs, int) else epochs_done(stage_dir)


def stage_finished(stage_dir: Path, stage: Stage) -> bool:
    """A stage is done when it says so (finished.json, written after it), or, for runs made
    before that file existed, when its results.csv has every epoch."""
    if (stage_dir / FINISHED_FILE).is_file():
        return True
    return stage.epochs > 0 and epochs_done(stage_dir) >= stage.epochs
