"""`blitzcam evaluate`: detector and counting metrics on labelled scenes, as a table and JSON."""

from __future__ import annotations

import argparse
from pathlib import Path

from blitzcam.commands.engine_option import add_engine_argument
from blitzcam.commands.path_option import is_stream, path_argument, path_or_stream


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "evaluate",
        help="measure the detector and the counts on labelled scenes",
        description="Runs the counting pipeline over a scene dataset's split and reports "
        "precision, recall and mAP50 of the detector, the share of scenes counted exactly, "
        "exact rate and mean absolute error per deck, confusions between decks and face-up "
        "cards counted. Default data: the test split of the training recipe's own scenes, "
        "generated if missing (1,000 scenes, about 215 MB, into runs/detector/ of the blitzcam "
        "folder: a minute or two).",
    )
    parser.add_argument(
        "--data", type=path_argument, default=None, help="a `blitzcam dataset generate` folder"
    )
    parser.add_argument(
        "--split",
        default="test",
        choices=("train", "val", "test", "all"),
        help="which scenes to score; 'all' for a dataset the model never saw",
    )
    parser.add_argument(
        "--decks", type=path_argument, default=None, help="reference backs DIR/<deck>.png"
    )
    parser.add_argument(
        "--in-play",
        action="store_true",
        help="decide each scene's backs among only the decks it holds, as the app does among a "
        "match's decks",
    )
    parser.add_argument(
        "--model", type=path_argument, default=None, help="ONNX model (default: shipped)"
    )
    parser.add_argument(
        "--identity-model",
        type=path_argument,
        default=None,
        help="identity network ONNX (default: shipped)",
    )
    add_engine_argument(parser)
    parser.add_argument(
        "--json",
        type=path_or_stream,
        default=None,
        metavar="FILE",
        help="also write the report as JSON to FILE ('-' for stdout only)",
    )
    parser.set_defaults(func=_evaluate)


def _default_data() -> Path:
    """The training recipe's own scenes (the default run folder of `blitzcam train`)."""
    from blitzcam.models.recipe import SHIPPED
    from blitzcam.models.training import recipe_scenes
    from blitzcam.paths import REPO_ROOT

    return recipe_scenes(REPO_ROOT / "runs" / "detector", SHIPPED)


def _check_report_file(path: Path) -> None:
    """UserError now, before the run, for a report file that could not be written after it."""
    from blitzcam.errors import UserError
    from blitzcam.files import why_unwritable

    why = why_unwritable(path)
    if why is not None:
        raise UserError(f"--json {path}: {why}")


def _evaluate(args: argparse.Namespace) -> int:
    import sys

    from tqdm import tqdm

    from blitzcam.errors import UserError
    from blitzcam.models.evaluation import SceneDataError, evaluate, report_json, report_table
    from blitzcam.vision.images import read_picture
    from blitzcam.vision.pipeline import CountingPipeline

    if args.json is not None and not is_stream(args.json):  # found out now, not after the run
        _check_report_file(args.json)
    data = args.data or _default_data()
    if not data.is_dir():
        raise UserError(f"--data {data}: {'not a folder' if data.exists() else 'no such folder'}")
    if not (data / "scenes").is_dir():
        raise UserError(f"{data}: no scenes folder: not a `blitzcam dataset generate` dataset")
    # generate writes it last: a stopped one's part of the scenes, scored, passed for the whole
    if not (data / "data.yaml").is_file():
        raise UserError(
            f"{data}: no data.yaml: an unfinished dataset (a `blitzcam dataset generate` that "
            "was stopped?); generate it again"
        )
    pipeline = CountingPipeline.from_defaults(
        model_path=args.model,
        identity_path=args.identity_model,
        decks_dir=args.decks,
        engine=args.engine,
    )
    try:
        report = evaluate(
            data,
            split=args.split,
            pipeline=pipeline,
            read_picture=read_picture,
            in_play=args.in_play,
            progress=lambda items, n: tqdm(
                items, total=n, desc="evaluate", unit="scene", file=sys.stderr
            ),
        )
    except SceneDataError as exc:
        raise UserError(str(exc)) from None
    text = report_json(report)
    if args.json is not None and is_stream(args.json):
        print(text)
        return 0
    print(report_table(report))
    if args.json is not None:
        from blitzcam.files import note_stream, write_text_atomic

        try:
            write_text_atomic(args.json, text + "\n")
        except OSError as exc:
            raise UserError(f"--json {args.json}: cannot write it: {exc.strerror or exc}") from None
        print(f"report written to {args.json}", file=note_stream(args.json))
    return 0
