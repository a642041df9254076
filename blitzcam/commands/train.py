"""`blitzcam train`: reproduce the shipped detector (its defaults are the shipped recipe)."""

from __future__ import annotations

import argparse
from contextlib import ExitStack
from pathlib import Path

from blitzcam.commands.path_option import path_argument
from blitzcam.paths import run_writes, train_extras_needed
from blitzcam.worker_pool import DEFAULT_WORKERS, workers_for

MIN_SCENES = 3  # the fewest scenes whose val split holds one (datasets.generate.split_sizes)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "train",
        help="train the card detector (defaults reproduce the shipped model)",
        description="Generate synthetic scenes (unless --data is given), cut training crops at "
        "inference scale, train the OBB detector in three stages (the third sized for a GPU: "
        "--device 0; a fifth, --more-hours, too), then export it to models/ (an installed "
        "blitzcam: into the run folder). "
        "An interrupted run continues with --resume; --from-shipped goes on from the shipped "
        f"weights. {train_extras_needed()}",
    )
    parser.add_argument(
        "--data",
        type=path_argument,
        default=None,
        help="a scene dataset from `blitzcam dataset generate` (default: generate one)",
    )
    parser.add_argument(
        "--run",
        type=path_argument,
        default=None,
        help="run folder for data, checkpoints and logs (default: runs/detector of the "
        "checkout; installed, of the data directory)",
    )
    # the defaults are models/recipe.py's; not imported here, where every command pays for it
    recipe = "default: the shipped recipe's, models/recipe.py"
    parser.add_argument("--epochs", type=int, default=None, help=f"first-stage epochs ({recipe})")
    parser.add_argument(
        "--scenes",
        type=int,
        default=None,
        help=f"scenes to generate for the first two stages; the later stages' are their own "
        f"({recipe})",
    )
    parser.add_argument("--batch", type=int, default=None, help=f"first-stage batch ({recipe})")
    parser.add_argument(
        "--more-hours",
        type=float,
        default=None,
        help="a last stage's wall-clock budget: more training from the stage before's weights on "
        "fresh scenes, a share of them a big game's late rounds (default 0: none; sized for a "
        "GPU)",
    )
    parser.add_argument(
        "--more-scenes", type=int, default=None, help=f"the fifth stage's scenes ({recipe})"
    )
    parser.add_argument(
        "--more-lr0",
        type=float,
        default=None,
        help=f"the fifth stage's first learning rate, AdamW, decaying twentyfold ({recipe})",
    )
    parser.add_argument(
        "--more-wide-art",
        action="store_true",
        help="the fifth stage's scenes draw random art from the wider families too (dataset "
        "generate --wide-art)",
    )
    parser.add_argument(
        "--from-shipped",
        action="store_true",
        help="go on from the shipped weights: their stages are taken as this run's, finished, "
        "and only the stages after them train (give --more-hours); the result is exported into "
        "the run folder, as with --no-ship, to be measured against the weights it came from",
    )
    parser.add_argument(
        "--device",
        default=None,
        help="where ultralytics trains: cpu or a CUDA device index such as 0 (default: cpu for "
        "a new run; a resumed one goes on where it was started)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=DEFAULT_WORKERS,
        help="processes that cut crops and, on a GPU, load training batches (default 2; on a "
        "CPU ultralytics loads them in the training process)",
    )
    parser.add_argument(
        "--trial",
        action="store_true",
        help="every stage, tiny (20 scenes, an epoch a stage, a minute of the third), to see "
        "that training works on this machine in some minutes; its weights stay in the run "
        "folder (as --no-ship; default runs/detector-trial) and count nothing well",
    )
    parser.add_argument("--resume", action="store_true", help="continue the run's last checkpoint")
    parser.add_argument(
        "--no-ship",
        action="store_true",
        help="leave models/ alone (train and export inside the run folder only)",
    )
    # (a SIGTERM said as Ctrl+C is, with how the run goes on: it exited 143 without a word)
    parser.set_defaults(func=_train, interrupt_on_sigterm=True)


RESUME_HINT = "the same command with --resume goes on"
MAX_LEARNING_RATE = 0.1  # AdamW's first rate, a hundred times the recipe's 0.0005-0.001


def _check_scene_dataset(data: Path) -> None:
    """UserError, before a run starts, for a --data folder training could not cut crops of."""
    from blitzcam.errors import UserError
    from blitzcam.models.run_kind import unfinished_dataset
    from blitzcam.paths import not_there

    if not data.is_dir():
        said = "not a folder" if data.exists() else not_there(data, "folder")
        raise UserError(f"--data {data}: {said}")
    unfinished = unfinished_dataset(data)  # (its part of the scenes trained on, unsaid)
    if unfinished is not None:
        raise UserError(unfinished)
    for folder in ("images/train", "images/val", "labels/train", "labels/val"):
        if not (data / folder).is_dir():  # said now, not after the first crops
            raise UserError(f"{data}: not a scene dataset (no {folder} folder)")
    for split in ("train", "val"):
        images = data / "images" / split
        if next(images.glob("*.jpg"), None) is not None:
            continue
        other = next((p for p in images.iterdir() if p.is_file()), None)
        if other is not None:  # ('no scenes', for a folder of them, sent the user astray)
            raise UserError(
                f"{images}: no .jpg scene ({other.name} is there): training reads the .jpg "
                "images `blitzcam dataset generate` writes"
            )
        raise UserError(
            f"{data}: its {split} split holds no scenes (a dataset of fewer than "
            f"{MIN_SCENES} has no val split): generate {MIN_SCENES} or more"
        )


@run_writes
def _train(args: argparse.Namespace) -> int:
    import math
    import os

    from blitzcam.errors import UserError

    for name in ("epochs", "scenes", "batch", "workers", "more_hours", "more_scenes", "more_lr0"):
        value = getattr(args, name)
        if name == "more_hours" and value == 0:  # the default, said: no stage 5
            continue
        if value is not None and not (value > 0 and math.isfinite(value)):  # nor NaN, nor inf
            option = name.replace("_", "-")
            raise UserError(f"--{option} must be a positive number, got {value}")
    if args.more_lr0 is not None and args.more_lr0 > MAX_LEARNING_RATE:  # (1e308 trained)
        from blitzcam.models.recipe import SHIPPED

        raise UserError(
            f"--more-lr0 must be a learning rate of at most {MAX_LEARNING_RATE}, got "
            f"{args.more_lr0} (the recipe's is {SHIPPED.more_lr0})"
        )
    for name in ("more_scenes", "more_wide_art", "more_lr0"):
        if getattr(args, name) not in (None, False) and not args.more_hours:
            option = name.replace("_", "-")
            raise UserError(f"--{option}: stage 5 trains only with a budget (give --more-hours)")
    if args.trial and args.from_shipped:
        raise UserError("--trial trains every stage from the first; --from-shipped, the last only")
    if args.from_shipped:
        given = [f"--{n}" for n in ("data", "epochs", "scenes", "batch") if getattr(args, n)]
        if given:
            raise UserError(
                f"{', '.join(given)}: settings of the first stage, which --from-shipped does "
                "not train (the shipped weights' is taken)"
            )
    if args.device not in (None, "cpu") and not all(
        part.isascii() and part.isdigit() for part in args.device.split(",")
    ):  # ascii: str.isdigit() also takes '²' and '３', which ultralytics cannot
        raise UserError(
            f"--device must be cpu or a CUDA device index such as 0, got {args.device!r}"
        )
    from blitzcam.datasets.generate import MAX_SCENES

    for name in ("scenes", "more_scenes"):
        value = getattr(args, name)
        # (over the generator's most: refused when its stage began, hours into a run)
        if value is not None and not MIN_SCENES <= value <= MAX_SCENES:
            option = name.replace("_", "-")
            raise UserError(
                f"--{option} must be from {MIN_SCENES} (a tenth of them validate) to "
                f"{MAX_SCENES:,}, got {value}"
            )
    if args.data is not None:
        _check_scene_dataset(args.data)
    import importlib.util

    if importlib.util.find_spec("ultralytics") is None:
        from blitzcam.paths import train_extras_hint

        raise UserError(
            "training needs ultralytics and torch: install the train extras with "
            f"{train_extras_hint()}"
        )
    if args.device not in (None, "cpu"):  # said now, not after the scenes and crops are made
        from blitzcam.commands.device_option import torch_device

        for index in args.device.split(","):
            torch_device(index)
    os.environ["YOLO_VERBOSE"] = "1"  # progress bars and per-epoch metrics

    from blitzcam.models import DETECTOR_PT, MODELS_DIR
    from blitzcam.models.recipe import SHIPPED, TRIAL
    from blitzcam.models.run_kind import (
        check_run_start,
        keeps_to_itself,
        run_kind,
        started_as_trial,
        this_run_alone,
    )
    from blitzcam.models.run_record import (
        first_stage_scenes,
        go_on_from_shipped,
        recipe_of_run,
        refuse_another_recipe,
    )
    from blitzcam.models.training import calibration_scenes, recipe_with, ship, train
    from blitzcam.paths import refused_leaves_no_folder, run_folder, runs_root

    default_run = runs_root() / ("detector-trial" if args.trial else "detector")
    with ExitStack() as alone:  # (the run folder held until the command ends)
        with refused_leaves_no_folder(args.run or default_run, "--run") as run_dir:
            alone.enter_context(this_run_alone(run_dir, "blitzcam train"))
            # (--from-shipped decides itself whether the folder may hold a run)
            check_run_start(
                run_dir, "detector", resume=args.resume, other_kinds_only=args.from_shipped
            )
            # resumed, the run's own recipe with the options given over it (each had to be typed
            # again); the options that differ from it are refused when the run opens
            base = (recipe_of_run(run_dir) if args.resume else None) or (
                TRIAL if args.trial else SHIPPED
            )
            recipe = recipe_with(
                base, epochs=args.epochs, scenes=args.scenes, batch=args.batch,
                more_hours=args.more_hours, more_scenes=args.more_scenes,
                more_wide_art=args.more_wide_art or None, more_lr0=args.more_lr0,
            )  # fmt: skip
            if args.from_shipped:
                go_on_from_shipped(run_dir, recipe, DETECTOR_PT, resume=args.resume)
            scenes = first_stage_scenes(run_dir, args.data, resume=args.resume)
        # said when interrupted once the run is one (its recipe written): every step goes on where
        # it stopped, its scenes, crops and epochs; before, a --resume is refused
        args.interrupted_hint = lambda: RESUME_HINT if run_kind(run_dir) == "detector" else None
        # a trial's run resumed without --trial is a trial still (it was told to ship it): as
        # its ship.json records, or for a trial run from before that record, by its recipe
        trial = args.trial or (args.resume and (started_as_trial(run_dir) or recipe == TRIAL))
        if args.resume:  # (refused before the run says how it keeps its result)
            refuse_another_recipe(run_dir, recipe)
        own = keeps_to_itself(
            run_dir, no_ship=args.no_ship or trial, resume=args.resume, trial=trial
        )
        weights = train(
            recipe,
            scenes_dir=scenes,
            run_dir=run_dir,
            resume=args.resume or args.from_shipped,  # the shipped stages are finished ones
            workers=workers_for(args.workers, said=args.workers != DEFAULT_WORKERS),
            device=args.device,
        )
        # a run from the shipped weights never replaces them unmeasured (nor the file it went on
        # from, which the model card and recipe.py's digest name)
        no_ship = own or args.from_shipped
        target = run_folder(run_dir / "export" if no_ship else MODELS_DIR, "export to")
        shipped = ship(weights, recipe, target, calibration_scenes(run_dir))
        print(
            f"detector written: {shipped['onnx']} (counting), {shipped['int8']} (its faster int8 "
            f"export) and {shipped['pt']}"
        )
        print(next_steps(shipped["onnx"], shipped=not no_ship, trial=trial))
        return 0


def next_steps(onnx: Path, *, shipped: bool, trial: bool = False) -> str:
    """What to do with a detector just written to `onnx`: measure it, and, kept in its run
    (not `shipped`), how it replaces the shipped one once it measures better (the hint said
    `evaluate` without --model, which scored the shipped detector, and nothing of shipping).
    A `trial`'s only checks that training runs here (it told the user to ship it)."""
    from blitzcam.models import MODELS_DIR
    from blitzcam.paths import in_a_checkout

    card = "`python -m blitzcam.models.card RUN TITLE=report.json --notes NOTES.md`"
    if shipped:
        return (
            "next: `blitzcam evaluate --data DIR --split all --json report.json` measures it; "
            f"{card} rewrites the model card"
        )
    measure = (
        f"next: `blitzcam evaluate --model {onnx} --data DIR --split all --json report.json` "
        "measures it (the same without --model, the shipped one)"
    )
    if trial:
        return (
            f"{measure}; a trial's detector counts nothing well and is not to be shipped: "
            "`blitzcam train` (no --trial) makes one to ship"
        )
    if not in_a_checkout():  # (its models/ is pip's to replace: count with it where it is)
        return f"{measure}; count with it by `blitzcam count --model {onnx}` or BLITZCAM_MODEL"
    return (
        f"{measure}; to ship it, copy {onnx.parent}/* into {MODELS_DIR}/ and rewrite the model "
        f"card with {card}"
    )
