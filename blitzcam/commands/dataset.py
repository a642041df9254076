"""`blitzcam dataset`: generate a synthetic OBB training set of card tables, preview one; label
photos of real tables for correcting by hand."""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from typing import Final

from blitzcam.commands.deck_option import counting_pipeline, deck_list
from blitzcam.commands.engine_option import add_engine_argument
from blitzcam.commands.path_option import (
    as_the_shell_expands,
    folder_argument,
    is_stream,
    path_argument,
    path_or_stream,
)
from blitzcam.errors import UserError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "dataset", help="generate and preview synthetic scenes; pre-label photos of real tables"
    )
    actions = parser.add_subparsers(dest="dataset_command", metavar="ACTION", required=True)

    gen = actions.add_parser(
        "generate",
        help="write an ultralytics OBB dataset of synthetic card-table photos",
        description="Write an ultralytics OBB dataset of synthetic card-table photos: each "
        "scene's picture, its labels (the backs' drawings and the face-up cards) and its "
        "counts, split 80/10/10 into train, val and test.",
    )
    gen.add_argument(
        "--out", type=folder_argument, required=True, metavar="DIR", help="dataset folder"
    )
    gen.add_argument("--n", type=int, required=True, metavar="N", help="number of scenes")
    gen.add_argument("--seed", type=int, required=True, metavar="S", help="same seed, same bytes")
    gen.add_argument(
        "--res",
        metavar="WxH",
        help="frame size, e.g. 1280x720 (default: 1280x720..1920x1080 per scene)",
    )
    gen.add_argument(
        "--holdout",
        action="store_true",
        help="keep the holdout random-art family out of train/val (test only)",
    )
    gen.add_argument(
        "--late-rounds",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="the share of scenes (0 to 1) drawn as a big game's late round: 6-8 decks of "
        "25-40 cards each, small and tight in rows (default 0)",
    )
    gen.add_argument(
        "--wide-art",
        action="store_true",
        help="draw random backs from the wider line-art families too (buildings, emblems, "
        "letter-like glyphs, solid silhouettes)",
    )
    gen.add_argument(
        "--overwrite", action="store_true", help="replace DIR when it holds an earlier dataset"
    )
    gen.add_argument(
        "--workers",
        type=int,
        default=0,
        metavar="K",
        help="processes (0, the default: one per CPU core)",
    )
    gen.add_argument("--no-progress", action="store_true", help="no progress bar (for logs)")
    gen.set_defaults(func=_generate)

    preview = actions.add_parser("preview", help="draw a contact sheet of scenes with labels")
    preview.add_argument(
        "root", type=path_argument, metavar="DIR", help="a dataset folder (`dataset generate`)"
    )
    preview.add_argument(
        "--out",
        type=path_or_stream,
        default=Path("sheet.png"),
        help="the sheet's file: .png or .jpg (- for a PNG on standard output; default: "
        "sheet.png in the current folder)",
    )
    preview.add_argument("--n", type=int, default=16, help="number of scenes on the sheet")
    preview.set_defaults(func=_preview)

    prelabel = actions.add_parser(
        "prelabel",
        help="write what blitzcam counts in each photo as a labelme file, to correct by hand",
        description="Counts each photo and writes its cards as a labelme file (t.json for "
        "t.jpg, beside it, as labelme keeps them): a shape round each back's drawing labelled "
        "with its deck (unknown: no deck), each face-up card labelled face-up. Open the folder "
        "in labelme (with --out DIR: `labelme PHOTOS --output DIR`), correct the shapes, tick "
        "the file's 'checked' flag; then `blitzcam evaluate --data FOLDER` measures blitzcam "
        "on your own table. An existing file is never replaced.",
    )
    prelabel.add_argument(
        "images", nargs="+", type=path_argument, metavar="PHOTO", help="a photo of your table"
    )
    prelabel.add_argument(
        "--out",
        type=folder_argument,
        metavar="DIR",
        help="write the labelme files into DIR (default: beside each photo)",
    )
    prelabel.add_argument(
        "--decks", type=path_argument, metavar="DIR", help="reference backs DIR/<deck>.png"
    )
    prelabel.add_argument(
        "--in-play",
        type=deck_list,
        metavar="DECK,...",
        help="decide every back among these decks only (the match's decks)",
    )
    prelabel.add_argument(
        "--model", type=path_argument, metavar="ONNX", help="detector model (default: shipped)"
    )
    add_engine_argument(prelabel)
    prelabel.set_defaults(func=_prelabel)


def _generate(args: argparse.Namespace) -> int:
    from blitzcam.datasets.generate import (
        MAX_SCENES,
        MAX_SEED,
        GenerateRequest,
        generate_dataset,
        kept_unfinished,
        parse_resolution,
    )

    if not 0 < args.n <= MAX_SCENES:
        raise UserError(f"--n must be from 1 to {MAX_SCENES:,} scenes, got {args.n}")

    if not 0 <= args.seed < MAX_SEED:
        raise UserError(f"--seed must be from 0 to {MAX_SEED - 1}, got {args.seed}")
    if args.workers < 0:
        raise UserError(f"--workers must be >= 0, got {args.workers}")
    if not 0.0 <= args.late_rounds <= 1.0:  # NaN too
        raise UserError(f"--late-rounds must be a share from 0 to 1, got {args.late_rounds}")

    res = None
    if args.res is not None:
        try:
            res = parse_resolution(args.res)
        except ValueError as exc:
            raise UserError(f"--res: {exc}") from None
    # (0: as many as the machine has cores, the generator's own default)
    from blitzcam.worker_pool import workers_for

    workers = workers_for(args.workers) if args.workers else 0
    request = GenerateRequest(
        out=args.out,
        n=args.n,
        seed=args.seed,
        res=res,
        holdout=args.holdout,
        overwrite=args.overwrite,
        workers=workers,
        late_rounds=args.late_rounds,
        wide_art=args.wide_art,
        progress=not args.no_progress,
        keep_unfinished=True,  # an interrupted run's scenes: the same command goes on from them
    )
    try:
        out = generate_dataset(request)
    except (KeyboardInterrupt, SystemExit):  # Ctrl+C, SIGTERM
        kept = kept_unfinished(request.out)
        if kept is not None:
            print(
                f"note: the {kept[1]} scenes made so far are kept in {kept[0]}: the same command "
                "again goes on from them (another seed or size starts afresh and deletes them)",
                file=sys.stderr,
            )
        raise
    print(out / "data.yaml")
    return 0


MAX_PREVIEW: Final = 400  # scenes on one contact sheet (thumbnails: a huge --n ran out of memory)


def _preview(args: argparse.Namespace) -> int:
    if not 0 < args.n <= MAX_PREVIEW:
        raise UserError(f"--n must be from 1 to {MAX_PREVIEW} scenes, got {args.n}")
    root = Path(args.root)
    if not root.is_dir():  # (a mistyped one is no folder, not "not a dataset folder")
        from blitzcam.paths import not_there

        raise UserError(
            f"{root}: " + ("not a folder" if root.exists() else not_there(root, "folder"))
        )
    if not (root / "images").is_dir():
        raise UserError(f"{root}: not a dataset folder (no images/ inside)")
    import cv2

    from blitzcam.datasets.preview import contact_sheet
    from blitzcam.files import write_bytes_atomic

    to_stdout = is_stream(args.out)  # `--out - | viewer`: the PNG on standard output
    kind = ".png" if to_stdout else Path(args.out).suffix.lower()
    if kind not in SHEET_FORMATS:  # (a sheet.jpg held PNG bytes)
        raise UserError(
            f"--out {args.out}: name a {', '.join(sorted(SHEET_FORMATS))} file (or - for "
            "standard output)"
        )
    try:
        sheet = contact_sheet(root, n=args.n)
    except OSError as exc:  # a scene's image or label gone: its name, not "[Errno 2] ..."
        where = exc.filename or root
        raise UserError(f"{where}: cannot read it ({exc.strerror or exc})") from None
    except ValueError as exc:
        raise UserError(str(exc)) from None
    ok, encoded = cv2.imencode(kind, sheet)
    if not ok:
        raise UserError(f"{args.out}: could not encode the sheet as {kind[1:].upper()}")
    if to_stdout:
        sys.stdout.buffer.write(encoded.tobytes())
        sys.stdout.flush()
        return 0
    try:
        write_bytes_atomic(Path(args.out), encoded.tobytes())
    except OSError as exc:
        raise UserError(f"{args.out}: cannot write ({exc.strerror or exc})") from None
    print(args.out)
    return 0


SHEET_FORMATS: Final = frozenset({".png", ".jpg", ".jpeg"})


def _prelabel(args: argparse.Namespace) -> int:
    """`blitzcam dataset prelabel PHOTO...`: exit 1 when a photo could not be labelled (the
    others still are); a labelme file already there is kept, said."""
    import json

    from blitzcam.files import write_text_atomic
    from blitzcam.models.prelabel import counted_shapes, labelme_record, labels_file, labels_of
    from blitzcam.vision.images import ImageError, read_picture

    if args.out is not None and args.out.exists() and not args.out.is_dir():
        raise UserError(f"--out {args.out}: not a folder")
    # (`prelabel photos\*.jpg` on Windows, whose shells pass the pattern on as typed)
    args.images = [Path(name) for name in as_the_shell_expands([str(p) for p in args.images])]
    # (first: a bad --in-play, --model or --decks refused after --out was made left it empty)
    pipeline = counting_pipeline(args)
    made_out = args.out is not None and not args.out.exists()  # (left empty: taken away)
    if args.out is not None:
        try:
            args.out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            from blitzcam.paths import why_no_folder

            raise UserError(
                f"--out {args.out}: cannot make it: {why_no_folder(args.out, exc)}"
            ) from None
    failed = 0
    log = _LogWhileRead()
    for photo in args.images:
        target, named = labels_file(photo, args.out)
        if target.exists() or target.is_symlink():  # (corrected labels, perhaps: never lost)
            if labels_of(target, photo):
                print(f"{photo}: kept {target}, there already", file=sys.stderr)
                continue
            # another photo's (t.png beside t.jpg; two folders' t.jpg into one --out)
            # (--out DIR was said to an --out: two photos' labels have one name there)
            elsewhere = "rename one of them" if args.out else "give --out DIR"
            print(
                f"blitzcam dataset prelabel: error: {photo}: not labelled: {target} is there, the "
                f"labels of another photo or no labelme file ({elsewhere})",
                file=sys.stderr,
            )
            failed += 1
            continue
        try:
            picture = read_picture(photo)
        except ImageError as exc:
            print(f"blitzcam dataset prelabel: error: {exc}", file=sys.stderr)
            failed += 1
            continue
        found = pipeline(picture.frame, in_play=args.in_play).detections
        shapes = counted_shapes(found, picture.scale)
        record = labelme_record(named, picture.size, shapes)
        try:
            write_text_atomic(target, json.dumps(record, indent=2) + "\n")
        except OSError as exc:
            why = exc.strerror or exc
            print(
                f"blitzcam dataset prelabel: error: {target}: cannot write it: {why}"
                + ("" if args.out else " (--out DIR writes the labels elsewhere)"),
                file=sys.stderr,
            )
            failed += 1
            continue
        faces = sum(shape.label == "face-up" for shape in shapes)
        log.say(f"{photo}: {len(shapes) - faces} backs, {faces} face-up: wrote {target}")
    if made_out and not any(args.out.iterdir()):  # no photo labelled: no folder made for it
        args.out.rmdir()
    if failed:  # (said on stderr: a photo not labelled outweighs a reader gone)
        return 1
    # (every photo labelled all the same: the status a shell reads)
    return 128 + getattr(signal, "SIGPIPE", 13) if log.reader_gone else 0


class _LogWhileRead:
    """Lines on standard output for as long as a reader reads them: `prelabel ... | head -1`
    stopped labelling at the first line after the reader went away (2 photos of 4), where the
    labels are the work and the lines only its log."""

    def __init__(self) -> None:
        self.reader_gone = False

    def say(self, line: str) -> None:
        if self.reader_gone:
            return
        try:
            print(line, flush=True)
        except BrokenPipeError:
            self.reader_gone = True
            from blitzcam.files import output_to_nowhere

            output_to_nowhere()
