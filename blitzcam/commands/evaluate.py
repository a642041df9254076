"""`blitzcam evaluate`: detector and counting metrics on labelled scenes, as a table and JSON."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from blitzcam.commands.engine_option import add_engine_argument
from blitzcam.commands.path_option import is_stream, path_argument, path_or_stream

# models/counted_scenes.py's, not imported here: numpy and OpenCV behind it, for every command
COUNTS_FILE = "counts.csv"
# the folders of scenes labelled box by box (the others are scored on their counts alone)
BOXED = ("generated", "labelme", "yolo")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "evaluate",
        help="measure the detector and the counts on labelled scenes",
        description="Runs the counting pipeline over labelled scenes and reports the share "
        "of scenes counted exactly and the exact rate and mean absolute error per deck; on "
        "scenes labelled box by box (a generated dataset's split, labelme files, YOLO labels) also "
        "precision, recall and mAP50 of the detector, confusions between decks and face-up "
        "cards counted. Default data: the test split of the training recipe's own scenes: "
        "runs/detector/'s where `blitzcam train` made them there, else generated once (1,000 "
        "scenes, about 215 MB, into runs/evaluate/; runs/ of the blitzcam checkout, or of the "
        "data directory where blitzcam is installed: a minute or two). "
        "Photos of real tables: labelled in labelme (a shape round "
        "each back's drawing, labelled with its deck, face-up or unknown) or exported as a "
        "YOLO dataset (a data.yaml whose class names are those labels, as Roboflow, CVAT and "
        "Label Studio write one), scored box by box; "
        f"or scored on their counts alone, a folder with a {COUNTS_FILE} (a header "
        "'image,<deck>,...[,face-up]', then a row per photo: a number per deck, - for a deck "
        "not in that photo's game), or the app's captures folder (the counts the players "
        "confirmed). Exit 1 when a picture does not decode (left out, the others scored and "
        "reported), 2 for bad arguments or scenes that cannot be scored.",
    )
    parser.add_argument(
        "--data",
        type=path_argument,
        default=None,
        help=f"a `blitzcam dataset generate` folder, photos with labelme files or a {COUNTS_FILE}, "
        "a YOLO dataset (data.yaml), or the app's captures folder",
    )
    parser.add_argument(
        "--split",
        default=None,
        choices=("train", "val", "test", "all"),
        help="which scenes of a generated or YOLO dataset to score (default test; a YOLO "
        "dataset without one: all); 'all' for a dataset the model never saw",
    )
    parser.add_argument(
        "--decks",
        type=path_argument,
        default=None,
        metavar="DIR",
        help="reference backs DIR/<deck>.png",
    )
    parser.add_argument(
        "--in-play",
        action="store_true",
        help="decide each scene's backs among only its own decks, as the app does among a "
        "match's: the decks its labels hold, a counts file's numbered columns (the app's "
        "captures always: their round's players' decks)",
    )
    parser.add_argument(
        "--model",
        type=path_argument,
        default=None,
        metavar="ONNX",
        help="ONNX model (default: shipped)",
    )
    parser.add_argument(
        "--identity-model",
        type=path_argument,
        default=None,
        metavar="ONNX",
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
    # (as `dataset generate` has it: a log of stderr filled with the bar's frames)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar (for logs)")
    parser.set_defaults(func=_evaluate)


def _default_data(root: Path | None = None) -> Path:
    """The shipped recipe's own scenes: those of `blitzcam train`'s default run folder where
    it holds them, else made apart (runs/evaluate): made there, after a `train --scenes 5` plain
    `evaluate` is refused ("made with n 5 ... delete this one", the run lost if heeded), and
    after a `train --data X` the 1,000 scenes go into that run's folder."""
    from blitzcam.errors import UserError
    from blitzcam.models import training
    from blitzcam.models.recipe import SHIPPED
    from blitzcam.paths import runs_root

    root = runs_root() if root is None else root
    detector = root / "detector"
    if (training.recipe_scenes_dir(detector, SHIPPED) / "data.yaml").is_file():
        try:
            return training.recipe_scenes(detector, SHIPPED)
        except UserError:  # another recipe's scenes: that run's, left as they are
            pass
    return training.recipe_scenes(root / "evaluate", SHIPPED)


def _check_report_file(path: Path) -> None:
    """UserError now, before the run, for a report file that could not be written after it."""
    from blitzcam.errors import UserError
    from blitzcam.files import why_unwritable

    why = why_unwritable(path)
    if why is not None:
        raise UserError(f"--json {path}: {why}")


def _data_kind(data: Path) -> str:
    """Which labelled scenes a folder holds; UserError when none that `evaluate` reads."""
    import sys

    from blitzcam.errors import UserError
    from blitzcam.models.counted_scenes import has_captures, has_counts_file
    from blitzcam.models.labelme_scenes import labelme_files
    from blitzcam.models.run_kind import is_scene_dataset, unfinished_dataset
    from blitzcam.models.yolo_scenes import data_file

    if is_scene_dataset(data):
        return "generated"
    # (photos may lie in a folder called scenes: looked for before an unfinished dataset)
    if has_counts_file(data):
        if labelme_files(data):
            print(
                f"note: {data} holds labelme files and a {COUNTS_FILE}: scored on the counts; "
                f"move {COUNTS_FILE} aside to score box by box",
                file=sys.stderr,
            )
        return "photos"
    if has_captures(data):
        return "captures"
    if labelme_files(data):
        return "labelme"
    if data_file(data) is not None:
        return "yolo"
    unfinished = unfinished_dataset(data)
    if unfinished is not None:
        raise UserError(unfinished)
    raise UserError(
        f"{data}: no labelled scenes: not a `blitzcam dataset generate` dataset (scenes/), "
        f"no {COUNTS_FILE} beside photos, not the app's captures (counts/ and images/), no "
        "labelme files (*.json), no YOLO data.yaml"
    )


def _evaluate_boxes(
    data: Path,
    kind: str,
    pipeline: Any,
    *,
    split: str | None,
    in_play: bool,
    progress: Callable[[Iterator[Any], int], Iterator[Any]],
) -> dict[str, Any]:
    """A generated dataset's split, or photos labelled in labelme, scored box by box."""
    from blitzcam.models.evaluation import evaluate, labelled_scenes
    from blitzcam.models.labelme_scenes import (
        labelme_scenes,
        read_photo,
        unchecked,
        unlabelled_photos,
    )
    from blitzcam.models.yolo_scenes import default_split, yolo_scenes

    shapes_left_out: list[str] = []  # (a labelme file's points and lines: no card)
    scenes: list[tuple[str, Any, Any]]
    if kind == "generated":
        split = split or "test"
        scenes = list(labelled_scenes(data, split))
    elif kind == "yolo":
        split = split or default_split(data)
        scenes = yolo_scenes(data, split)
    else:
        scenes = labelme_scenes(data, shapes_left_out)
    report = evaluate(
        scenes,
        data=data,
        split=split,
        pipeline=pipeline,
        read_picture=read_photo,  # (a generated scene's image is a file: read as one)
        in_play=in_play,
        progress=progress,
    )
    if kind == "labelme":
        report["photos_without_labels"] = [
            path.relative_to(data).as_posix() for path in unlabelled_photos(data, scenes)
        ]
        left_out = {s["scene"] for s in report["left_out"]}  # (those scored only are said)
        report["labels_unchecked"] = unchecked([s for s in scenes if s[0] not in left_out], data)
        report["shapes_left_out"] = shapes_left_out
    return report


def _evaluate_counts(
    data: Path,
    kind: str,
    pipeline: Any,
    *,
    in_play: bool,
    progress: Callable[[Iterator[Any], int], Iterator[Any]],
) -> dict[str, Any]:
    """Photos with a counts file, or the app's captures, scored on their counts."""
    from blitzcam.models.count_evaluation import evaluate_counts
    from blitzcam.models.counted_scenes import capture_scenes, counts_file_scenes
    from blitzcam.vision.images import read_picture

    if kind == "photos":
        scenes, left_out = counts_file_scenes(data / COUNTS_FILE, pipeline.known_decks), []
    else:
        scenes, left_out = capture_scenes(data)
    return evaluate_counts(
        scenes,
        pipeline=pipeline,
        read_picture=read_picture,
        # captures are counted as the app counted them, among the round's decks: counted among
        # every deck, "now" would be weighed against a "then" it was not counted like
        in_play=in_play or kind == "captures",
        data=data,
        kind=kind,
        left_out=left_out,
        progress=progress,
    )


def _evaluate(args: argparse.Namespace) -> int:
    import sys

    from tqdm import tqdm

    from blitzcam.errors import UserError
    from blitzcam.models.count_evaluation import counts_report_table
    from blitzcam.models.evaluation import SceneDataError, report_json, report_table
    from blitzcam.vision.pipeline import CountingPipeline

    if args.json is not None and not is_stream(args.json):  # found out now, not after the run
        _check_report_file(args.json)
    data = args.data or _default_data()
    if not data.is_dir():
        from blitzcam.paths import not_there

        said = "not a folder" if data.exists() else not_there(data, "folder")
        raise UserError(f"--data {data}: {said}")
    kind = _data_kind(data)
    if kind not in ("generated", "yolo") and args.split is not None:  # (the others: no splits)
        raise UserError(f"--split {args.split}: {data} is not a generated dataset (no splits)")
    pipeline = CountingPipeline.from_defaults(
        model_path=args.model,
        identity_path=args.identity_model,
        decks_dir=args.decks,
        engine=args.engine,
    )

    def progress(items: Iterator[Any], n: int) -> Iterator[Any]:
        if args.no_progress:
            return items
        return tqdm(items, total=n, desc="evaluate", unit="scene", file=sys.stderr)

    try:
        if kind in BOXED:
            report = _evaluate_boxes(
                data, kind, pipeline, split=args.split, in_play=args.in_play, progress=progress
            )
        else:
            report = _evaluate_counts(data, kind, pipeline, in_play=args.in_play, progress=progress)
    except SceneDataError as exc:
        raise UserError(str(exc)) from None
    text = report_json(report)
    # (as `count`: 1 when a picture could not be read, the others still scored and reported,
    # and said on stderr, where a script whose stdout is the report still sees why it failed)
    status = 1 if report.get("unreadable") else 0
    if status:
        _say_unreadable(report)
    if args.json is not None and is_stream(args.json):
        print(text)
        return status
    boxes = kind in BOXED
    print(report_table(report) if boxes else counts_report_table(report))
    if args.json is not None:
        from blitzcam.files import note_stream, write_text_atomic

        try:
            write_text_atomic(args.json, text + "\n")
        except OSError as exc:
            raise UserError(f"--json {args.json}: cannot write it: {exc.strerror or exc}") from None
        print(f"report written to {args.json}", file=note_stream(args.json))
    return status


def _say_unreadable(report: dict[str, Any]) -> None:
    """One stderr line for the pictures that did not decode: how many, the first and why."""
    import sys

    from blitzcam.errors import one_line

    names = set(report["unreadable"])
    first = next(scene for scene in report["left_out"] if scene["scene"] in names)
    # (the reason names the picture's file; the scene too where that is another, its labels)
    why = first["why"] if first["scene"] in first["why"] else f"{first['scene']}: {first['why']}"
    more = f" (and {len(names) - 1} more: see the report)" if len(names) > 1 else ""
    print(
        f"blitzcam evaluate: {len(names)} picture{'s' if len(names) > 1 else ''} could not be "
        f"read, left out of every figure: {one_line(why)}{more}",
        file=sys.stderr,
    )
