"""Train, resume and export the card detector with ultralytics (CPU, offline).

Only `blitzcam train` and the tests import this module; the counting path never does.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import platform
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

import cv2
import numpy as np
from tqdm import tqdm

from blitzcam.datasets.labels import data_yaml as data_yaml_text
from blitzcam.files import copy_file_atomic, staged, write_text_atomic
from blitzcam.models import DETECTOR_INT8, DETECTOR_ONNX, DETECTOR_PT
from blitzcam.models.crops import (
    crop_windows,
    cut_crop,
    obb_label_text,
    read_canonical,
)
from blitzcam.models.mining import Mistakes, hard_windows, load_or_mine, mine_scenes
from blitzcam.models.recipe import SHIPPED, SHIPPED_STAGES, SHIPPED_WEIGHTS_SHA256, Recipe
from blitzcam.models.run_kind import FINISHED_FILE, run_kind
from blitzcam.models.run_timing import TIMING_FILE, RunClock, train_seconds
from blitzcam.vision.pipeline import COUNT_CONF, COUNT_IOU, DOUBTED_FROM


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


@dataclass(frozen=True, slots=True)
class _CropJob:
    """One scene's crops: where the scene is, where its crops go, what seeds them."""

    image: Path
    label: Path
    out: Path  # the crop dataset's root: crops go to out/images/<split>, out/labels/<split>
    split: str
    rng_key: tuple[int, int, int]  # (recipe seed, split index, scene index)
    recipe: Recipe
    hard: tuple[tuple[float, float], ...] = ()  # the previous stage's mistakes, canonical pixels
    hard_share: float = 0.0  # of the crops, at most, centred on them


def _cut_scene_crops(job: _CropJob) -> None:
    """Crops of one scene, written as JPEG + label pairs."""
    from blitzcam.errors import UserError

    recipe = job.recipe
    try:  # (raised in a worker process: a UserError reaches the command as one line)
        item = read_canonical(job.image, job.label, recipe.canonical_width)
    except (OSError, ValueError) as exc:
        raise UserError(f"{exc}: the scene dataset is damaged; generate it again") from None
    rng = np.random.default_rng(list(job.rng_key))
    if job.hard_share > 0:
        windows = hard_windows(
            item,
            np.array(job.hard, np.float64).reshape(-1, 2),
            rng,
            size=recipe.crop_size,
            count=recipe.crops_per_scene,
            hard_share=job.hard_share,
        )
    else:
        windows = crop_windows(item, rng, size=recipe.crop_size, count=recipe.crops_per_scene)
    for k, (x0, y0) in enumerate(windows):
        crop = cut_crop(item, x0, y0, recipe.crop_size)
        stem = f"{job.image.stem}_c{k}"
        _write_jpeg(job.out / "images" / job.split / f"{stem}.jpg", crop.image)
        (job.out / "labels" / job.split / f"{stem}.txt").write_text(
            obb_label_text(crop), encoding="utf-8"
        )


def build_crop_dataset(
    scenes_dir: Path,
    out_dir: Path,
    recipe: Recipe,
    *,
    splits: tuple[str, ...] = ("train", "val"),
    workers: int = 1,
    mistakes: Mistakes | None = None,
    hard_share: float = 0.0,
) -> Path:
    """Cut crops at inference scale from a scene dataset; returns the crops' data.yaml.

    With `mistakes` (by "split/stem", from models/mining.py), up to `hard_share` of each scene's
    crops are centred on them.

    Deterministic: the crops of scene i depend only on (recipe.seed, split, i), so any number
    of worker processes writes the same files. Written into a temporary folder and renamed, so
    an interrupted run never leaves a half dataset behind.
    """
    data_yaml = out_dir / "data.yaml"
    if data_yaml.is_file():
        text = data_yaml_text(None, splits)
        if data_yaml.read_text(encoding="utf-8") != text:  # cut by a release that named its root
            write_text_atomic(data_yaml, text)
        return data_yaml
    tmp = out_dir.with_name(out_dir.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    jobs: list[_CropJob] = []
    hard = mistakes or {}
    for split_index, split in enumerate(splits):
        images = sorted((scenes_dir / "images" / split).glob("*.jpg"))
        if not images:
            raise FileNotFoundError(f"{scenes_dir / 'images' / split}: no .jpg images")
        (tmp / "images" / split).mkdir(parents=True)
        (tmp / "labels" / split).mkdir(parents=True)
        labels = scenes_dir / "labels" / split
        for path in images:  # the generator writes one for every scene, empty for no cards
            if not (labels / f"{path.stem}.txt").is_file():
                from blitzcam.errors import UserError

                raise UserError(
                    f"{labels / path.stem}.txt: missing, for the scene {path}: the scene "
                    "dataset is damaged; generate it again"
                )
        jobs += [
            _CropJob(
                path,
                labels / f"{path.stem}.txt",
                tmp,
                split,
                (recipe.seed, split_index, i),
                recipe,
                hard=tuple(map(tuple, hard.get(f"{split}/{path.stem}", []))),
                hard_share=hard_share,
            )
            for i, path in enumerate(images)
        ]
    progress = tqdm(total=len(jobs), desc="crops", unit="scene")
    if workers <= 1:
        for job in jobs:
            _cut_scene_crops(job)
            progress.update()
    else:
        context = multiprocessing.get_context("spawn")  # no forked copies of a torch process
        with context.Pool(workers) as pool:
            for _ in pool.imap_unordered(_cut_scene_crops, jobs, chunksize=16):
                progress.update()
    progress.close()
    # no root named: a run folder copied back from a GPU machine, or moved, still finds them
    (tmp / "data.yaml").write_text(data_yaml_text(None, splits), encoding="utf-8")
    shutil.rmtree(out_dir, ignore_errors=True)
    tmp.rename(out_dir)
    return data_yaml


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


def _device_used(stage_dir: Path) -> str:
    """The device ultralytics trained a stage on, from the args.yaml it writes ('cpu' when it
    cannot be read)."""
    import yaml

    try:
        args = yaml.safe_load((stage_dir / "args.yaml").read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return "cpu"
    device = str(args.get("device") or "cpu") if isinstance(args, dict) else "cpu"
    return "cpu" if device in ("cpu", "None", "") else device


def device_name(device: str) -> str:
    """The hardware a stage ran on, for the model card."""
    if device != "cpu":
        import torch

        return torch.cuda.get_device_name(int(device.split(",")[0]))
    return f"{platform.processor() or platform.machine()} CPU"


def _fit(
    stage_dir: Path,
    resume: bool,
    start: Callable[[Callable[[], None]], Any],
    log: Callable[[str], None],
    on_save: Callable[[], None],
    resume_args: dict[str, Any] | None = None,
    remake_data: Callable[[], Path] | None = None,
) -> None:
    """Resume the stage whose folder is `stage_dir` from its last checkpoint, or start it;
    `on_save` runs after each checkpoint (`start(on_save)` registers it on the model it
    trains). `resume_args` (device, workers) are the few settings a resumed run takes anew;
    `remake_data` makes the stage's crops again where a resumed checkpoint's are gone.

    A checkpoint of a training that completed (a run killed after its last save, before the
    stage's finished.json was written: a time-budgeted stage has no other mark) ends the stage
    as it is: resuming it would fail, or start over on ultralytics' own default data."""
    from blitzcam.offline import import_ultralytics

    import_ultralytics()  # offline first: a bare import of ultralytics probes the network
    from ultralytics import YOLO

    last = stage_dir / "weights" / "last.pt"
    if resume and last.is_file():
        checkpoint = _checkpoint(last)
        if _training_completed(checkpoint):
            log(f"{last}: its training had completed; the stage is taken as finished")
            return
        log(f"resuming from {last}")
        model = YOLO(str(last))
        model.add_callback("on_model_save", lambda _trainer: on_save())
        # trained here, on this run's crops: the checkpoint names the folders it was started
        # in, and a run folder copied (from a GPU machine) or moved trained the old one
        crops = _crops_here(checkpoint, stage_dir, last, remake_data)
        here = {"save_dir": str(stage_dir), "data": str(crops)}
        try:
            model.train(resume=True, **(resume_args or {}), **here)
        except AssertionError as exc:
            if "nothing to resume" not in str(exc):  # a real failure: never a finished stage
                raise
            # ultralytics: its last epoch was reached and saved before the run was stopped
            log(f"{stage_dir}: {exc}; the stage is taken as finished")
        return
    if resume:
        log(f"no checkpoint at {last}: starting a new run")
    # a fresh start: none of an earlier run's files stay, above all its weights, which a
    # --resume after a kill before this run's first checkpoint would take for this run's
    (stage_dir / TIMING_FILE).unlink(missing_ok=True)
    shutil.rmtree(stage_dir / "weights", ignore_errors=True)
    (stage_dir / "results.csv").unlink(missing_ok=True)
    start(on_save)


def _checkpoint(path: Path) -> dict[str, Any]:
    """A stage's last.pt, loaded as ultralytics resumes it (weights only, its own classes);
    UserError naming the file for one cut short (a kill mid-save) or not ultralytics'."""
    from blitzcam.errors import UserError, first_line
    from blitzcam.offline import import_ultralytics

    import_ultralytics()  # offline first: a bare import of ultralytics probes the network
    from ultralytics.nn.tasks import torch_safe_load

    try:
        state, _ = torch_safe_load(path, safe_only=True)
    except Exception as exc:  # a truncated zip, a foreign pickle: torch raises many kinds
        raise UserError(
            f"{path}: not a checkpoint this run can resume ({first_line(exc)}); "
            + _what_to_do(path)
        ) from None
    if not isinstance(state, dict) or not isinstance(state.get("epoch"), int):
        raise UserError(
            f"{path}: not an ultralytics training checkpoint (no epoch); " + _what_to_do(path)
        )
    return state


def _what_to_do(last: Path) -> str:
    """The advice for a stage whose last.pt cannot be resumed: deleting it starts the stage
    again from its first epoch, its other weights deleted with it (an hour and a half of CPU
    for the first stage), so a best.pt that can be resumed is named first."""
    from ultralytics.nn.tasks import torch_safe_load

    again = "delete it to start the stage again from its first epoch (its best.pt goes too)"
    best = last.with_name("best.pt")
    if not best.is_file():  # (ultralytics' loader downloads a weights file it cannot find)
        return again
    try:
        state, _ = torch_safe_load(best, safe_only=True)
        epoch = state.get("epoch") if isinstance(state, dict) else None
    except Exception:  # none, or damaged too
        epoch = None
    if not isinstance(epoch, int) or epoch < 0:  # (-1: stripped at a stage's end, no optimizer)
        return again
    return (
        f"{best}, saved after epoch {epoch + 1}, can be resumed instead: copy it over "
        f"{last.name}; or {again}"
    )


def _training_completed(checkpoint: dict[str, Any]) -> bool:
    """Whether ultralytics finished the training that wrote `checkpoint`: at the end it strips
    the optimizer and marks the epoch -1."""
    return checkpoint["epoch"] < 0 or checkpoint.get("optimizer") is None


def _crops_here(
    checkpoint: dict[str, Any],
    stage_dir: Path,
    path: Path,
    remake: Callable[[], Path] | None = None,
) -> Path:
    """The data.yaml a resumed stage trains on: the one its checkpoint names, found again
    inside this run folder (the checkpoint's paths are those of the folder it started in), or
    made again by `remake` where it is gone (a checkpoint carried to a fresh machine: the same
    seeds make the same crops, under the same name)."""
    from blitzcam.errors import UserError

    args = checkpoint.get("train_args") or {}
    data, started_in = args.get("data"), args.get("save_dir")
    if not isinstance(data, str) or not isinstance(started_in, str):
        raise UserError(f"{path}: names no training data or folder; delete it to start again")
    try:  # the run folder is the stage folder's parent, then and now
        inside = Path(data).relative_to(Path(started_in).parent)
    except ValueError:
        inside = None  # data from outside the run folder (`--data` crops): used where it is
    found = stage_dir.parent / inside if inside is not None else Path(data)
    if not found.is_file() and inside is not None and remake is not None:
        remake()
    if not found.is_file():
        raise UserError(
            f"{path}: the crops it trained on ({found}) are gone; make them again with a "
            "fresh run, or delete the checkpoint to start the stage again"
        )
    if inside is not None:  # cut by an earlier release, its file names the folder it was in
        text = found.read_text(encoding="utf-8")
        rootless = "".join(
            line for line in text.splitlines(keepends=True) if not line.startswith("path:")
        )
        if rootless != text:
            write_text_atomic(found, rootless)
    return found


def _best_weights(stage_dir: Path) -> Path:
    """A stage's best.pt, or its last.pt while no best was written."""
    weights = stage_dir / "weights"
    return weights / "best.pt" if (weights / "best.pt").is_file() else weights / "last.pt"


def _crops_dir(run_dir: Path, recipe: Recipe, prefix: str = "", scenes: Path | None = None) -> Path:
    # named by what shapes the crops and by the scenes cut (what their generator.json says they
    # are), so a changed recipe or another --data never reuses stale ones
    name = f"{prefix}crops-{recipe.crop_size}px-{recipe.crops_per_scene}x-seed{recipe.seed}"
    return run_dir / (name if scenes is None else f"{name}-{_scenes_tag(scenes)}")


def _scenes_tag(scenes: Path) -> str:
    """A short name for a scene dataset: its generator.json's digest (its path's without one)."""
    made = scenes / "generator.json"
    source = made.read_bytes() if made.is_file() else str(scenes.resolve()).encode()
    return hashlib.sha256(source).hexdigest()[:10]


def _open_run(run_dir: Path, recipe: Recipe, *, resume: bool) -> None:
    """A fresh run writes its recipe and forgets the time of any run before it in the folder; a
    resumed one must be asked for the recipe it was started with (its finished stages, and
    ultralytics' resumed one, keep theirs, and the model card reads recipe.json), else
    UserError."""
    from blitzcam.errors import UserError

    if not resume:  # the run's total and each stage's own
        for timing in (run_dir / TIMING_FILE, *run_dir.glob(f"*/{TIMING_FILE}")):
            timing.unlink(missing_ok=True)

    path = run_dir / "recipe.json"
    if resume and path.is_file():
        changed = _recipe_changes(run_dir, recipe)
        if changed:
            raise UserError(
                f"{run_dir}: resumed with another recipe than its recipe.json ("
                f"{'; '.join(changed)}): resume without the options that change it, or start "
                "a new run folder"
            )
        if changed is not None:
            return
    write_text_atomic(path, json.dumps(recipe.as_dict(), indent=2))


def _recipe_changes(run_dir: Path, recipe: Recipe) -> list[str] | None:
    """Each field in which `recipe` differs from the run's recipe.json, said with both values
    (None: no readable one)."""
    wanted = json.loads(json.dumps(recipe.as_dict()))  # tuples as the file holds them: lists
    before = _saved_recipe(run_dir)
    if before is None:
        return None
    return [
        f"{key} {before.get(key)} there, {wanted.get(key)} now"
        for key in sorted(wanted.keys() | before.keys())
        if before.get(key) != wanted.get(key)
    ]


def _saved_recipe(run_dir: Path) -> dict[str, Any] | None:
    """A run's recipe.json as a dict, fields added since filled in (None: no readable one)."""
    try:
        saved = json.loads((run_dir / "recipe.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return {**BEFORE_ADDED, **saved} if isinstance(saved, dict) else None


def recipe_of_run(run_dir: Path) -> Recipe | None:
    """The recipe a run was started with, which `--resume` goes on with unless told otherwise
    (a resume had to repeat every option the run was started with); None where the folder
    holds none this code can read (then the options given, over the shipped recipe)."""
    saved = _saved_recipe(run_dir)
    if saved is None:
        return None
    try:
        recipe = Recipe(**saved)
    except TypeError:  # a field this code does not know, or lacks one it needs
        return None
    return replace(recipe, export_hw=tuple(recipe.export_hw))


# fields added to the recipe after runs had written their recipe.json, with the value that
# keeps what those runs did (not today's default, which for a stage's budget turns it on)
BEFORE_ADDED: Final[dict[str, Any]] = {"more_wide_art": False}


DATA_FILE = "data.json"  # the scene dataset a run's first stage was given (`--data`), or null


def first_stage_scenes(run_dir: Path, given: Path | None, *, resume: bool) -> Path | None:
    """The scene dataset stage 1 trains on: `given` (recorded for a new run), or, resumed, the
    one the run was started with (None: the recipe's own, generated). UserError when a resumed
    run is given another: its checkpoints and crops are of the first (its crops, cut again
    where gone, would silently be of the other). A run of an earlier release, which recorded
    none, takes `given` as it is."""
    from blitzcam.errors import UserError

    record = run_dir / DATA_FILE
    if resume and record.is_file():
        try:
            started = json.loads(record.read_text(encoding="utf-8"))["scenes"]
            started = None if started is None else Path(started)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            why = f"{record}: cannot be read ({exc}): the run's data is unknown"
            raise UserError(why) from None
        if given is not None and given.resolve() != started:
            raise UserError(
                f"--data {given}: this run was started on "
                f"{started or 'its own generated scenes'}; resume it without --data"
            )
        return started
    if not resume or given is not None:
        scenes = None if given is None else str(given.resolve())
        try:
            write_text_atomic(record, json.dumps({"scenes": scenes}))
        except OSError as exc:  # (a read-only --run: the first thing written there)
            raise UserError(f"{record}: cannot write it ({exc.strerror or exc})") from None
    return given


def go_on_from_shipped(run_dir: Path, recipe: Recipe, weights: Path, *, resume: bool) -> None:
    """Make `run_dir` a run whose first stages are those the shipped weights went through
    (SHIPPED_STAGES, finished, those weights the last one's best), so that `train(...,
    resume=True)` trains only the recipe's stages after them, from those weights.

    UserError, before anything is written, when `weights` are not the shipped ones (the record
    is of those), when the recipe changes a setting of theirs or has no stage after them, or
    when the folder holds a run already (unless `resume`) or a run of its own."""
    from blitzcam.errors import UserError

    if sha256_of(weights) != SHIPPED_WEIGHTS_SHA256:
        raise UserError(
            f"{weights}: not the shipped detector's weights (sha256 {SHIPPED_WEIGHTS_SHA256[:12]}"
            "…), whose stages a run going on from them records; check out models/ as shipped"
        )
    shipped, plan = list(SHIPPED_STAGES), [stage.name for stage in stages(recipe)]
    if plan[: len(shipped)] != shipped:
        raise UserError(
            f"the recipe's stages ({', '.join(plan)}) do not begin with the shipped weights' "
            f"({', '.join(shipped)})"
        )
    after = plan[len(shipped) :]
    if not after:
        raise UserError(
            "no stage after the shipped weights' to train: give stage 5 a budget (--more-hours)"
        )
    ours, theirs = recipe.as_dict(), SHIPPED.as_dict()
    changed = sorted(
        k for k in ours if ours[k] != theirs[k] and not k.startswith(tuple(f"{n}_" for n in after))
    )
    if changed:
        raise UserError(
            "going on from the shipped weights, their stages' settings stay theirs "
            f"({', '.join(changed)} changed): only the settings of the stages after them may differ"
        )
    for name in shipped:
        finished = run_dir / name / FINISHED_FILE
        if (run_dir / name).exists() and _shipped_mark(finished) != SHIPPED_WEIGHTS_SHA256:
            raise UserError(
                f"{run_dir}: stage {name} is a training of this run's own, not the shipped "
                "weights': use another run folder"
            )
    changed = _recipe_changes(run_dir, recipe)
    if changed:  # (said before anything is written: a run of its own stopped before stage 1)
        raise UserError(
            f"{run_dir}: holds a run of another recipe (its recipe.json: {'; '.join(changed)}): "
            "use another run folder"
        )
    held = run_kind(run_dir) is not None
    if held and not resume:
        raise UserError(
            f"{run_dir}: holds a run already: --resume goes on with it, or use another run folder"
        )
    if not held and resume:  # (a mistyped --run started a new stage 5 of 12,000 scenes)
        raise UserError(
            f"--resume: {run_dir} holds no run to go on with: check --run, or leave out --resume "
            "to start one"
        )
    if not held and run_dir.is_dir() and any(run_dir.iterdir()):
        raise UserError(
            f"{run_dir}: not empty, and holds no run: use an empty or new run folder (its "
            "files stay as they are)"
        )
    for name in shipped:
        (run_dir / name / "weights").mkdir(parents=True, exist_ok=True)
        record = {**SHIPPED_STAGES[name], "shipped": SHIPPED_WEIGHTS_SHA256}
        write_text_atomic(run_dir / name / FINISHED_FILE, json.dumps(record))
    best = run_dir / shipped[-1] / "weights" / "best.pt"
    if not best.is_file() or sha256_of(best) != SHIPPED_WEIGHTS_SHA256:
        copy_file_atomic(weights, best)


def _shipped_mark(finished: Path) -> str | None:
    """The shipped weights' digest a stage's finished.json names (None: a stage of its own)."""
    try:
        mark = json.loads(finished.read_text(encoding="utf-8")).get("shipped")
    except (OSError, ValueError, AttributeError):
        return None
    return mark if isinstance(mark, str) else None


def train(
    recipe: Recipe,
    *,
    scenes_dir: Path | None,
    run_dir: Path,
    resume: bool,
    workers: int = 2,
    device: str | None = None,
    log: Callable[[str], None] = print,
) -> Path:
    """Train (or, with `resume`, continue) every stage and return the last stage's best weights.

    `scenes_dir` is stage 1's scene dataset (None: generate the recipe's own); later stages
    generate theirs from their own seeds. With `resume`, finished stages are kept as they are.
    `device` None: the CPU for a stage started here, and for a resumed one where it started.
    """
    from blitzcam.offline import import_ultralytics

    import_ultralytics()
    from ultralytics import YOLO

    run_dir = run_dir.resolve()  # ultralytics puts a relative project under its own runs dir
    run_dir.mkdir(parents=True, exist_ok=True)
    _open_run(run_dir, recipe, resume=resume)
    plan = stages(recipe)
    if resume and all(stage_finished(run_dir / stage.name, stage) for stage in plan):
        # the export after the last stage (calibration scenes, ONNX, int8) may be what was
        # interrupted: the caller goes on to it
        log(f"{run_dir}: every stage is done; only the export is left")
    new_stage_device = device or "cpu"  # a stage started here; a resumed one keeps its own
    best: Path | None = None
    for stage in plan:
        stage_dir = run_dir / stage.name
        if resume and stage_finished(stage_dir, stage):
            log(f"stage {stage.name} is complete")
            best = _best_weights(stage_dir)
            continue
        clock = RunClock(run_dir, stage_dir)  # the run's total and the stage's own

        def stage_data(stage: Stage = stage, start_from: Path | None = best) -> Path:
            """The stage's crops (of its scenes, on its mistakes), made where not there yet."""
            scenes = scenes_dir if stage.name == "train" and scenes_dir else None
            scenes = scenes or recipe_scenes(run_dir, recipe, stage)
            crops = _crops_dir(run_dir, recipe, stage.prefix, scenes)
            found = None
            if stage.hard_share > 0:
                if start_from is None:
                    raise ValueError(f"stage {stage.name} mines the mistakes of a stage before it")
                # named by the weights mined and the lines, so other weights never reuse them
                tag = (
                    f"{sha256_of(start_from)[:12]}-read{DOUBTED_FROM}-count{COUNT_CONF}"
                    f"-iou{COUNT_IOU}"
                )
                found = load_or_mine(
                    run_dir / f"{stage.prefix}mistakes-{tag}.json",
                    lambda: stage_mistakes(start_from, scenes, recipe, new_stage_device),
                )
                crops = crops.with_name(f"{crops.name}-hard{stage.hard_share}-{tag}")
            return build_crop_dataset(
                scenes, crops, recipe, workers=workers, mistakes=found, hard_share=stage.hard_share
            )

        def start(
            on_save: Callable[[], None], stage: Stage = stage, start_from: Path | None = best
        ) -> None:
            data_yaml = stage_data(stage, start_from)
            model = YOLO(recipe.model_yaml if start_from is None else str(start_from))
            model.add_callback("on_model_save", lambda _trainer: on_save())
            model.train(
                **stage.args(recipe, data_yaml, run_dir, workers=workers, device=new_stage_device)
            )

        (stage_dir / FINISHED_FILE).unlink(missing_ok=True)  # a stale one would skip a rerun
        # a resumed stage trains where it was started unless --device says otherwise
        resume_args = {"workers": workers} | ({"device": device} if device else {})
        _fit(stage_dir, resume, start, log, clock.lap, resume_args, remake_data=stage_data)
        clock.lap()
        write_text_atomic(  # whole or not at all: a stage marked finished by half a file
            stage_dir / FINISHED_FILE,
            json.dumps(
                {
                    "seconds": train_seconds(stage_dir),
                    "device": device_name(device or _device_used(stage_dir)),
                    "epochs": epochs_done(stage_dir),
                }
            ),
        )
        best = _best_weights(stage_dir)
    assert best is not None  # a recipe has at least stage 1
    return best


def stage_mistakes(weights: Path, scenes_dir: Path, recipe: Recipe, device: str) -> Mistakes:
    """The mistakes of the detector at `weights` on a scene dataset's train and val scenes, at
    the counting path's reading, counting and suppression lines."""
    scenes = [
        (f"{split}/{path.stem}", path, scenes_dir / "labels" / split / f"{path.stem}.txt")
        for split in ("train", "val")
        for path in sorted((scenes_dir / "images" / split).glob("*.jpg"))
    ]
    return mine_scenes(
        weights,
        scenes,
        canonical_width=recipe.canonical_width,
        read_from=DOUBTED_FROM,
        count_from=COUNT_CONF,
        iou=COUNT_IOU,
        device=device,
    )


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


def ship(
    weights: Path, recipe: Recipe, models_dir: Path, calibration: Sequence[Path]
) -> dict[str, Path]:
    """Copy the weights, their ONNX export and its int8 quantization (ranges calibrated on the
    `calibration` frames; `models/quantize.py`) into models/. The export and the quantization,
    the steps that can fail, are built first beside their targets; the shipped files are
    replaced only once both are."""
    from blitzcam.models.quantize import quantize_detector

    pt_target = models_dir / DETECTOR_PT.name
    onnx_target = models_dir / DETECTOR_ONNX.name
    int8_target = models_dir / DETECTOR_INT8.name
    with staged(int8_target) as int8_staged, staged(onnx_target) as onnx_staged:
        export_onnx(weights, recipe, onnx_staged)
        quantize_detector(onnx_staged, int8_staged, calibration)
        copy_file_atomic(weights, pt_target)
    return {"pt": pt_target, "onnx": onnx_target, "int8": int8_target}


def calibration_scenes(run_dir: Path) -> list[Path]:
    """The int8 quantization's calibration frames: generator scenes of their own seed
    (`quantize.CALIBRATION_SEED`), generated into the run folder on first use."""
    from blitzcam.models.quantize import CALIBRATION_SCENES, CALIBRATION_SEED, calibration_images

    folder = generated_scenes(run_dir / "calibration-scenes", CALIBRATION_SCENES, CALIBRATION_SEED)
    return calibration_images(folder)


def recipe_scenes(run_dir: Path, recipe: Recipe, stage: Stage | None = None) -> Path:
    """A stage's own scene dataset in the run folder (stage 1's by default), generated on
    first use."""
    stage = stage or stages(recipe)[0]
    return generated_scenes(
        run_dir / f"{stage.prefix}scenes",
        stage.scenes,
        stage.data_seed,
        late_rounds=stage.late_share,
        wide_art=stage.wide_art,
    )


def generated_scenes(
    scenes_dir: Path, n: int, seed: int, *, late_rounds: float = 0.0, wide_art: bool = False
) -> Path:
    """`blitzcam dataset generate --n n --seed seed --holdout [--late-rounds share]
    [--wide-art]` into scenes_dir, unless a finished dataset (its data.yaml) is already there,
    made with these settings (UserError for one made with others: training on it would not be
    the recipe)."""
    wanted = {
        "n": n, "seed": seed, "holdout": True, "late_rounds": late_rounds, "wide_art": wide_art
    }  # fmt: skip
    # generator.json names late_rounds and wide_art only when asked for
    unsaid = {"n": None, "seed": None, "holdout": None, "late_rounds": 0.0, "wide_art": False}
    if (scenes_dir / "data.yaml").is_file():
        made = _generator_settings(scenes_dir)  # None: from before the file, taken as it is
        if made == {}:
            from blitzcam.errors import UserError

            raise UserError(
                f"{scenes_dir}: its generator.json cannot be read, so these may not be the "
                "recipe's scenes: use another run folder, or delete this one"
            )
        said = {} if made is None else {k: made.get(k, unsaid[k]) for k in wanted}
        differ = [k for k in said if said[k] != wanted[k]]
        if differ:
            from blitzcam.errors import UserError

            got = ", ".join(f"{k} {said[k]}" for k in differ)
            want = ", ".join(f"{k} {wanted[k]}" for k in differ)
            raise UserError(
                f"{scenes_dir}: its scenes were made with {got}, not {want}: use another run "
                "folder, or delete this one"
            )
    else:
        from blitzcam.datasets.generate import GenerateRequest, generate_dataset

        late = f", {late_rounds:.0%} late rounds" if late_rounds else ""
        wide = ", the wider art families" if wide_art else ""
        # on stderr: `blitzcam evaluate --json -` writes only its report on stdout
        print(f"generating {n} scenes (seed {seed}{late}{wide}) into {scenes_dir}", file=sys.stderr)
        generate_dataset(
            GenerateRequest(
                out=scenes_dir, n=n, seed=seed, holdout=True, late_rounds=late_rounds,
                wide_art=wide_art, keep_unfinished=True,
            )
        )  # fmt: skip
    return scenes_dir


def _generator_settings(scenes_dir: Path) -> dict[str, Any] | None:
    """What a dataset's generator.json says it was made with (None without one: a dataset
    from before the file was written is taken as it is)."""
    try:
        settings = json.loads((scenes_dir / "generator.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return {}
    return settings if isinstance(settings, dict) else {}


def recipe_with(recipe: Recipe, **overrides: Any) -> Recipe:
    return replace(recipe, **{k: v for k, v in overrides.items() if v is not None})
