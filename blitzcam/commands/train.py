"""`blitzcam train`: reproduce the shipped detector (its defaults are the shipped recipe)."""

from __future__ import annotations

import argparse

from blitzcam.commands.path_option import path_argument

MIN_SCENES = 3  # the fewest scenes whose val split holds one (datasets.generate.split_sizes)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "train",
        help="train the card detector (defaults reproduce the shipped model)",
        description="Generate synthetic scenes (unless --data is given), cut training crops at "
        "inference scale, train the OBB detector in three stages (the third sized for a GPU: "
        "--device 0), then export it to models/. "
        "An interrupted run continues with --resume.",
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
        help="run folder for data, checkpoints and logs (default: runs/detector)",
    )
    # the defaults are models/recipe.py's; not imported here, where every command pays for it
    recipe = "default: the shipped recipe's, models/recipe.py"
    parser.add_argument("--epochs", type=int, default=None, help=f"first-stage epochs ({recipe})")
    parser.add_argument("--scenes", type=int, default=None, help=f"scenes to generate ({recipe})")
    parser.add_argument("--batch", type=int, default=None, help=f"first-stage batch ({recipe})")
    parser.add_argument(
        "--device",
        default=None,
        help="where ultralytics trains: cpu or a CUDA device index such as 0 (default: cpu for "
        "a new run; a resumed one goes on where it was started)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=2,
        help="processes that cut crops and load training batches (default 2)",
    )
    parser.add_argument("--resume", action="store_true", help="continue the run's last checkpoint")
    parser.add_argument(
        "--no-ship",
        action="store_true",
        help="leave models/ alone (train and export inside the run folder only)",
    )
    parser.set_defaults(func=_train)


def _train(args: argparse.Namespace) -> int:
    import os

    from blitzcam.errors import UserError

    for name in ("epochs", "scenes", "batch", "workers"):
        value = getattr(args, name)
        if value is not None and value <= 0:
            raise UserError(f"--{name} must be a positive number, got {value}")
    if args.device not in (None, "cpu") and not all(
        part.isdigit() for part in args.device.split(",")
    ):
        raise UserError(
            f"--device must be cpu or a CUDA device index such as 0, got {args.device!r}"
        )
    if args.scenes is not None and args.scenes < MIN_SCENES:
        raise UserError(
            f"--scenes must be {MIN_SCENES} or more (a tenth of them validate), got {args.scenes}"
        )
    if args.data is not None:
        for folder in ("images/train", "images/val", "labels/train", "labels/val"):
            if not (args.data / folder).is_dir():  # said now, not after the first crops
                raise UserError(f"{args.data}: not a scene dataset (no {folder} folder)")
        for split in ("train", "val"):
            if next((args.data / "images" / split).glob("*.jpg"), None) is None:
                raise UserError(
                    f"{args.data}: its {split} split holds no scenes (a dataset of fewer than "
                    f"{MIN_SCENES} has no val split): generate {MIN_SCENES} or more"
                )
    import importlib.util

    if importlib.util.find_spec("ultralytics") is None:
        raise UserError(
            "training needs ultralytics and torch: install the train extras with "
            "`.venv/bin/pip install -e '.[train]'` (make test does)"
        )
    os.environ["YOLO_VERBOSE"] = "1"  # progress bars and per-epoch metrics

    from blitzcam.models import MODELS_DIR
    from blitzcam.models.recipe import SHIPPED
    from blitzcam.models.training import (
        calibration_scenes,
        recipe_with,
        ship,
        train,
    )
    from blitzcam.paths import REPO_ROOT, run_folder

    recipe = recipe_with(SHIPPED, epochs=args.epochs, scenes=args.scenes, batch=args.batch)
    run_dir = run_folder(args.run or REPO_ROOT / "runs" / "detector", "--run")
    weights = train(
        recipe,
        scenes_dir=args.data,
        run_dir=run_dir,
        resume=args.resume,
        workers=args.workers,
        device=args.device,
    )
    target = run_folder(run_dir / "export" if args.no_ship else MODELS_DIR, "export to")
    shipped = ship(weights, recipe, target, calibration_scenes(run_dir))
    print(
        f"detector written: {shipped['onnx']} (counting), {shipped['int8']} (its faster int8 "
        f"export) and {shipped['pt']}"
    )
    print(
        "next: `blitzcam evaluate --data DIR --split all --json report.json` measures it; "
        "`python -m blitzcam.models.card RUN TITLE=report.json --notes NOTES.md` rewrites the "
        "model card"
    )
    return 0
