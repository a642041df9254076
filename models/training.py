"""Train, resume and export the card detector with ultralytics (CPU, offline).

Only `blitzcam train` and the tests import this module; the counting path never does.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from tqdm import tqdm

from blitzcam.datasets.labels import data_yaml as data_yaml_text
from blitzcam.files import copy_file_atomic
from blitzcam.models.crops import (
    LabelledImage,
    crop_windows,
    cut_crop,
    obb_label_text,
    read_obb_labels,
    to_canonical,
)
from blitzcam.models.recipe import Recipe
from blitzcam.models.run_timing import add_train_seconds


class RunFinishedError(RuntimeError):
    """--resume on a run whose every epoch is done."""


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _write_jpeg(path: Path, image: np.ndarray, quality: int = 92) -> None:
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise OSError(f"cannot encode {path}")
    path.write_bytes(encoded.tobytes())


def build_crop_dataset(
    scenes_dir: Path, out_dir: Path, recipe: Recipe, *, splits: tuple[str, ...] = ("train", "val")
) -> Path:
    """Cut crops at inference scale from a scene dataset; returns the crops' data.yaml.

    Deterministic: the crops of scene i depend only on (recipe.seed, split, i). Written into a
    temporary folder and renamed, so an interrupted run never leaves a half dataset behind.
    """
    data_yaml = out_dir / "data.yaml"
    if data_yaml.is_file():
        return data_yaml
    tmp = out_dir.with_name(out_dir.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    for split_index, split in enumerate(splits):
        images = sorted((scenes_dir / "images" / split).glob("*.jpg"))
        if not images:
            raise FileNotFoundError(f"{scenes_dir / 'images' / split}: no .jpg images")
        (tmp / "images" / split).mkdir(parents=True)
        (tmp / "labels" / split).mkdir(parents=True)
        for index, image_path in enumerate(tqdm(images, desc=f"crops {split}", unit="scene")):
            image = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
            if image is None:
                raise OSError(f"{image_path}: cannot decode image")
            label_path = scenes_dir / "labels" / split / f"{image_path.stem}.txt"
            classes, corners = read_obb_labels(label_path, (image.shape[1], image.shape[0]))
            item = to_canonical(LabelledImage(image, classes, corners), recipe.canonical_width)
            rng = np.random.default_rng([recipe.seed, split_index, index])
            windows = crop_windows(item, rng, size=recipe.crop_size, count=recipe.crops_per_scene)
            for k, (x0, y0) in enumerate(windows):
                crop = cut_crop(item, x0, y0, recipe.crop_size)
                stem = f"{image_path.stem}_c{k}"
                _write_jpeg(tmp / "images" / split / f"{stem}.jpg", crop.image)
                (tmp / "labels" / split / f"{stem}.txt").write_text(
                    obb_label_text(crop), encoding="utf-8"
                )
    (tmp / "data.yaml").write_text(data_yaml_text(out_dir.resolve(), splits), encoding="utf-8")
    shutil.rmtree(out_dir, ignore_errors=True)
    tmp.rename(out_dir)
    return data_yaml


def train_args(recipe: Recipe, data_yaml: Path, run_dir: Path, *, workers: int) -> dict[str, Any]:
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
        "device": "cpu",
        "workers": workers,
        "project": str(run_dir),
        "name": "train",
        "exist_ok": True,
        "pretrained": False,
        "amp": False,
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


def refine_args(recipe: Recipe, data_yaml: Path, run_dir: Path, *, workers: int) -> dict[str, Any]:
    """Stage 2: the same augmentation, a fixed low learning rate decaying tenfold, no warm-up
    (the weights are trained already), mosaic off for the last epoch."""
    return {
        **train_args(recipe, data_yaml, run_dir, workers=workers),
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


def epochs_done(stage_dir: Path) -> int:
    """Epochs a stage's results.csv records (ultralytics writes one row per finished epoch)."""
    results = stage_dir / "results.csv"
    if not results.is_file():
        return 0
    return max(0, len(results.read_text(encoding="utf-8").strip().splitlines()) - 1)


def _fit(
    stage_dir: Path, epochs: int, resume: bool, start: Callable[[], Any], log: Callable[[str], None]
) -> None:
    """Resume the stage whose folder is `stage_dir`, or start it. A finished stage cannot be
    resumed (ultralytics strips its checkpoint): RunFinishedError."""
    from ultralytics import YOLO

    last = stage_dir / "weights" / "last.pt"
    if resume and last.is_file():
        if epochs_done(stage_dir) >= epochs:
            raise RunFinishedError(f"{stage_dir}: all {epochs} epochs are done")
        log(f"resuming from {last}")
        try:
            YOLO(str(last)).train(resume=True)
        except AssertionError as exc:  # ultralytics' way of saying the run already finished
            raise RunFinishedError(f"{stage_dir}: {exc}") from None
        return
    if resume:
        log(f"no checkpoint at {last}: starting a new run")
    start()


def _best_weights(stage_dir: Path) -> Path:
    """A stage's best.pt, or its last.pt while no best was written."""
    weights = stage_dir / "weights"
    return weights / "best.pt" if (weights / "best.pt").is_file() else weights / "last.pt"


def _crops_dir(run_dir: Path, recipe: Recipe, prefix: str = "") -> Path:
    # named by what shapes the crops, so a changed recipe never reuses stale ones
    return (
        run_dir / f"{prefix}crops-{recipe.crop_size}px-{recipe.crops_per_scene}x-seed{recipe.seed}"
    )


def train(
    recipe: Recipe,
    *,
    scenes_dir: Path,
    run_dir: Path,
    resume: bool,
    workers: int = 2,
    log: Callable[[str], None] = print,
) -> Path:
    """Train (or resume) both stages and return the path of the best weights (.pt)."""
    from blitzcam.offline import import_ultralytics

    import_ultralytics()
    from ultralytics import YOLO

    started = time.monotonic()
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "recipe.json").write_text(json.dumps(recipe.as_dict(), indent=2))

    def stage_one() -> None:
        data_yaml = build_crop_dataset(scenes_dir, _crops_dir(run_dir, recipe), recipe)
        YOLO(recipe.model_yaml).train(**train_args(recipe, data_yaml, run_dir, workers=workers))

    first, second = run_dir / "train", run_dir / "refine"
    refining = recipe.refine_epochs > 0
    try:
        if not (resume and refining and (second / "weights" / "last.pt").is_file()):
            _fit(first, recipe.epochs, resume, stage_one, log)
    except RunFinishedError:
        if not refining:
            raise
        log("stage 1 is complete")
    best = _best_weights(first)
    if refining:

        def stage_two() -> None:
            scenes = recipe_scenes(run_dir, recipe, refine=True)
            data_yaml = build_crop_dataset(scenes, _crops_dir(run_dir, recipe, "refine-"), recipe)
            args = refine_args(recipe, data_yaml, run_dir, workers=workers)
            YOLO(str(best)).train(**args)

        _fit(second, recipe.refine_epochs, resume, stage_two, log)
        best = _best_weights(second)
    add_train_seconds(run_dir, time.monotonic() - started)
    return best


def export_onnx(weights: Path, recipe: Recipe, out_path: Path) -> Path:
    """Export a fixed-size ONNX for the canonical frame, with ultralytics' metadata in it."""
    from blitzcam.offline import import_ultralytics

    import_ultralytics()
    from ultralytics import YOLO

    model = YOLO(str(weights))
    exported = Path(
        model.export(
            format="onnx",
            imgsz=list(recipe.export_hw),
            simplify=True,
            dynamic=False,
            opset=17,
            device="cpu",
        )
    )
    copy_file_atomic(exported, out_path)
    return out_path


def ship(weights: Path, recipe: Recipe, models_dir: Path) -> dict[str, Path]:
    """Copy the weights and their ONNX export into models/ (atomically, one file at a time)."""
    pt_target = models_dir / "blitzcam-obb.pt"
    onnx_target = models_dir / "blitzcam-obb.onnx"
    copy_file_atomic(weights, pt_target)
    export_onnx(pt_target, recipe, onnx_target)
    return {"pt": pt_target, "onnx": onnx_target}


def recipe_scenes(run_dir: Path, recipe: Recipe, *, refine: bool = False) -> Path:
    """The recipe's own scene dataset in the run folder (stage 2's with `refine`), generated on
    first use."""
    scenes_dir = run_dir / ("refine-scenes" if refine else "scenes")
    seed = recipe.refine_data_seed if refine else recipe.data_seed
    if not (scenes_dir / "data.yaml").is_file():
        from blitzcam.datasets.generate import GenerateRequest, generate_dataset

        print(f"generating {recipe.scenes} scenes (seed {seed}) into {scenes_dir}")
        generate_dataset(GenerateRequest(out=scenes_dir, n=recipe.scenes, seed=seed, holdout=True))
    return scenes_dir


def recipe_with(recipe: Recipe, **overrides: Any) -> Recipe:
    return replace(recipe, **{k: v for k, v in overrides.items() if v is not None})
