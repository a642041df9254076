"""Train, resume and export the card detector with ultralytics (CPU, offline).

Only `blitzcam train` and the tests import this module; the counting path never does.
"""

from __future__ import annotations

import hashlib
import json
import platform
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from blitzcam.files import copy_file_atomic, sha256_of, staged, write_text_atomic
from blitzcam.models import DETECTOR_INT8, DETECTOR_ONNX, DETECTOR_PT
from blitzcam.models.crop_dataset import build_crop_dataset
from blitzcam.models.mining import Mistakes, load_or_mine, mine_scenes
from blitzcam.models.recipe import Recipe
from blitzcam.models.run_kind import FINISHED_FILE
from blitzcam.models.run_record import open_run
from blitzcam.models.run_timing import TIMING_FILE, RunClock, train_seconds
from blitzcam.models.stages import Stage, epochs_done, stage_finished, stages
from blitzcam.vision.pipeline import COUNT_CONF, COUNT_IOU, DOUBTED_FROM


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
        for weights in sorted(last.parent.glob("*.pt")):
            if weights != last:
                _check_loads_safely(weights)
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
    from blitzcam.errors import UserError, library_reason
    from blitzcam.offline import import_ultralytics

    import_ultralytics()  # offline first: a bare import of ultralytics probes the network
    from ultralytics.nn.tasks import torch_safe_load

    try:
        state, _ = torch_safe_load(path, safe_only=True)
    except Exception as exc:  # a truncated zip, a foreign pickle: torch raises many kinds
        raise UserError(
            f"{path}: not a checkpoint this run can resume ({library_reason(exc, path)}); "
            + _what_to_do(path)
        ) from None
    if not isinstance(state, dict) or not isinstance(state.get("epoch"), int):
        raise UserError(
            f"{path}: not an ultralytics training checkpoint (no epoch); " + _what_to_do(path)
        )
    return state


def _why_it_does_not_load(path: Path) -> str | None:
    """Why a weights file does not load as ultralytics' own checkpoints do (weights only, its
    own classes), in a line; None where it does."""
    from ultralytics.nn.tasks import torch_safe_load

    from blitzcam.errors import library_reason

    try:
        torch_safe_load(path, safe_only=True)
    except Exception as exc:  # a foreign pickle, a file cut short or damaged
        return library_reason(exc, path)
    return None


def _check_loads_safely(path: Path) -> None:
    """UserError naming `path`, another weights file of a stage about to be resumed, where it
    does not load as ultralytics' own checkpoints do: at the stage's end ultralytics reads its
    best.pt again with pickle's full loader, and a file put there would run code."""
    from blitzcam.errors import UserError

    if (why := _why_it_does_not_load(path)) is not None:
        raise UserError(
            f"{path}: not a checkpoint this run wrote ({why}): loaded at the stage's "
            "end, it could run code; delete it if the run folder is yours (the next epoch "
            "writes it again), or start the run anew"
        )


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
    _only_where_and_names(found, path)
    if inside is not None:  # cut by an earlier release, its file names the folder it was in
        text = found.read_text(encoding="utf-8")
        rootless = "".join(
            line for line in text.splitlines(keepends=True) if not line.startswith("path:")
        )
        if rootless != text:
            write_text_atomic(found, rootless)
    return found


# what a dataset file of blitzcam's says: where the splits' pictures are, and the classes
DATASET_KEYS = frozenset({"path", "train", "val", "test", "names", "nc"})


def _only_where_and_names(data_yaml: Path, checkpoint: Path) -> None:
    """UserError naming `data_yaml` unless it holds only DATASET_KEYS: ultralytics runs a
    `download:` entry's text as Python, or as a shell command, where a split is missing, and
    a resumed stage trains on the file its checkpoint names (in a run folder copied from
    another machine, or anywhere the checkpoint says). Fresh crops are always written anew."""
    import yaml

    from blitzcam.errors import UserError, first_line

    try:
        data = yaml.safe_load(data_yaml.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise UserError(
            f"{data_yaml}: not a dataset file a stage can resume on ({first_line(exc)}); "
            f"delete the checkpoint {checkpoint} to start the stage again"
        ) from None
    if not isinstance(data, dict):
        raise UserError(
            f"{data_yaml}: not a dataset file (no keys and values in it): not trained on; delete "
            f"the checkpoint {checkpoint} to start the stage again"
        )
    extra = sorted(str(key) for key in data if key not in DATASET_KEYS)
    if extra:
        raise UserError(
            f"{data_yaml}: holds {', '.join(extra)}, which no dataset of blitzcam's does "
            "(ultralytics runs a download: entry as code): not trained on; delete the "
            f"checkpoint {checkpoint} to start the stage again"
        )


def _best_weights(stage_dir: Path) -> Path:
    """A stage's best.pt, or its last.pt while no best was written."""
    weights = stage_dir / "weights"
    return weights / "best.pt" if (weights / "best.pt").is_file() else weights / "last.pt"


def _finished_weights(stage_dir: Path) -> Path:
    """A finished stage's weights (`_best_weights`), UserError naming them where they are not
    there or do not load as ultralytics' own checkpoints do: else the next stage or the export takes
    them, and dies in a traceback advising to download yolo26n.pt."""
    from blitzcam.errors import UserError

    weights = _best_weights(stage_dir)
    # (the whole folder: a stage taken as done by its results.csv, where no finished.json
    # was written, was told to delete that file, and then the same again)
    again = (
        f"delete the folder {stage_dir} and run with --resume: stage {stage_dir.name} trains again"
    )
    if not weights.is_file():  # (ultralytics' loader downloads a weights file it cannot find)
        raise UserError(
            f"{weights}: stage {stage_dir.name} is finished, but its weights are not there; {again}"
        )
    if (why := _why_it_does_not_load(weights)) is not None:  # (cut short or damaged since)
        raise UserError(f"{weights}: stage {stage_dir.name}'s weights do not load ({why}); {again}")
    return weights


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
    open_run(run_dir, recipe, resume=resume)
    plan = stages(recipe)
    if resume and all(stage_finished(run_dir / stage.name, stage) for stage in plan):
        # the export after the last stage (calibration scenes, ONNX, int8) may be what was
        # interrupted: the caller goes on to it
        log(f"{run_dir}: every stage is done; only the export is left")
    new_stage_device = device or "cpu"  # a stage started here; a resumed one keeps its own
    best: Path | None = None
    finished: Path | None = None  # the finished stage `best` is of, its weights not yet loaded
    for stage in plan:
        stage_dir = run_dir / stage.name
        if resume and stage_finished(stage_dir, stage):
            log(f"stage {stage.name} is complete")
            best, finished = _best_weights(stage_dir), stage_dir
            continue
        if finished is not None:  # what this stage starts from (the stages before, from the
            best, finished = _finished_weights(finished), None  # shipped weights, have none)
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
    if finished is not None:  # (every stage done: the export's)
        best = _finished_weights(finished)
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


def recipe_scenes_dir(run_dir: Path, recipe: Recipe, stage: Stage | None = None) -> Path:
    """Where a stage's own scene dataset lies in the run folder (stage 1's by default)."""
    stage = stage or stages(recipe)[0]
    return run_dir / f"{stage.prefix}scenes"


def recipe_scenes(run_dir: Path, recipe: Recipe, stage: Stage | None = None) -> Path:
    """A stage's own scene dataset in the run folder (stage 1's by default), generated on
    first use."""
    stage = stage or stages(recipe)[0]
    return generated_scenes(
        recipe_scenes_dir(run_dir, recipe, stage),
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
