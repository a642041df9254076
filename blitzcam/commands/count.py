"""`blitzcam count IMAGE...`: count the cards in photos, one process, the model loaded once."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import unicodedata
from pathlib import Path
from typing import Any, Final

from blitzcam.commands.deck_option import counting_pipeline, deck_list
from blitzcam.commands.engine_option import add_engine_argument
from blitzcam.commands.path_option import (
    STANDARD_INPUT,
    as_the_shell_expands,
    check_piped,
    is_stream,
    path_argument,
    path_or_stream,
)
from blitzcam.errors import one_line
from blitzcam.models import DETECTOR_INT8, DETECTOR_ONNX
from blitzcam.paths import not_there, out_of_reach


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "count",
        help="count each deck's cards in photos of the table",
        description="Count the backs of each deck (and face-up cards) in every IMAGE. Exit 0 when "
        "every image was counted, 1 when any failed (the others are still counted), "
        "2 for bad arguments or nothing to count with (a model, a --decks folder or an "
        "enrolled back that cannot be read).",
    )
    parser.add_argument(
        "images",
        nargs="+",
        type=_image_argument,
        metavar="IMAGE",
        help="an image file; - reads one from standard input (./- is a file named -); demo "
        "counts the four demo tables (./demo is a file named demo)",
    )
    parser.add_argument(
        "--decks",
        type=path_argument,
        metavar="DIR",
        help="use DIR/<deck>.png as the deck references (deck name from the file name)",
    )
    parser.add_argument(
        "--in-play",
        type=deck_list,
        metavar="DECK,...",
        help="decide every back among these decks only (the match's decks: fewer look-alikes; "
        "a back nearer another deck counts to nobody); the other decks are still reported, as 0",
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON document instead of a table"
    )
    parser.add_argument(
        "--model",
        type=path_argument,
        metavar="ONNX",
        # (the files' own paths: an installed blitzcam's models/ is not the working folder's)
        help=f"detector model (default: {DETECTOR_ONNX}, or $BLITZCAM_MODEL; {DETECTOR_INT8} "
        "is a little less right, and faster where the CPU has AVX-512 VNNI (about 1.1x end to "
        "end), barely on AVX2)",
    )
    add_engine_argument(parser)
    parser.set_defaults(func=run)


def _image_argument(text: str) -> str:
    """An image path kept as typed: results name it so ('./a.jpg', not 'a.jpg'), and scripts
    find their own arguments in the JSON."""
    path_or_stream(text)  # an empty one is a bad argument
    return text


def _count_one(pipeline: Any, given: str, in_play: tuple[str, ...] | None) -> dict[str, Any]:
    from blitzcam.vision.images import (
        ImageError,
        has_colour,
        read_picture,
        read_picture_stream,
    )

    start = time.perf_counter()
    path = path_or_stream(given)  # (a leading ~ the home folder, as every path option's)
    try:
        if is_stream(path):  # `-`, as every command reads it (./- is a file)
            picture = read_picture_stream(sys.stdin.buffer, name=STANDARD_INPUT)
        elif given.endswith(("/", os.sep)) and (why := out_of_reach(path)):
            raise ImageError(f"{path}: {why}")
        elif given.endswith(("/", os.sep)) and not path.is_dir():  # Path drops the slash
            if not path.exists():  # (it is nothing, not "not a folder")
                raise ImageError(f"{path}: {not_there(path, 'file or folder')}")
            raise ImageError(f"{path}: not a folder (the name ends with {given[-1]})")
        else:
            picture = read_picture(path)
    except ImageError as exc:
        said = STANDARD_INPUT if is_stream(path) else path
        error = str(exc).removeprefix(f"{said}: ") + _live_hint(given, path)
        if is_stream(path) or out_of_reach(path) or path.exists():
            return {"path": given, "error": error}
        # no file: a stream's address, whose password is not printed (a log, a shared screen)
        from blitzcam.vision.source_address import shown_address

        return {"path": shown_address(given), "error": shown_address(error)}
    for note in _picture_notes(picture, has_colour=has_colour(picture.frame)):
        print(f"note: {_shown_path(given)}: {note}", file=sys.stderr)  # counted all the same
    result = pipeline(picture.frame, in_play=in_play)
    dets = result.detections
    backs = dets.of_class("back")
    # boxes in the picture's own pixels: a photo larger than the frame was shrunk to count it
    width, height = picture.size
    sx, sy = picture.scale
    # (float bounds: else a corner clamped to the edge comes out an int, 720, among floats)
    scales, bounds = (sx, sy, sx, sy), (float(width), float(height), float(width), float(height))
    cards = [
        {
            "deck": dets.deck_name(row),
            "confidence": round(float(dets.confidence[row]), 4),
            "box": [
                round(min(max(float(v) * k, 0.0), b), 1)
                for v, k, b in zip(dets.xyxy[row], scales, bounds, strict=True)
            ],
        }
        for row in range(len(dets))
        if backs[row]
    ]
    timing = dict(result.timing_ms)
    timing["total"] = (time.perf_counter() - start) * 1000  # file read and decode included
    return {
        "path": given,
        "counts": dict(result.counts),
        "face_up": result.face_up,
        "cards": cards,
        "timing_ms": {key: round(value, 2) for key, value in timing.items()},
    }


def _picture_notes(picture: Any, *, has_colour: bool) -> list[str]:
    """What in how a picture was read may change its count: no colour (the decks are told
    apart by their inks), a palette's few colours, frames or pages after the first, a small or
    very dark picture."""
    from blitzcam.vision.images import is_small, is_very_dark

    notes = []
    if picture.invisible:  # (laid on white: "no colour, take a colour photo" misled)
        notes.append("the picture is wholly transparent: it shows nothing to count")
    elif not has_colour:  # the detector needs no colour: counted all the same
        notes.append(
            "the picture has no colour: the decks are told apart by their inks, so most backs "
            "are read as no deck; take a colour photo"
        )
    elif picture.palette:  # (a GIF of a table: 35 of its 71 backs read as no deck)
        notes.append(
            "a picture of 256 colours at most (a palette): the decks' inks may be lost in it, "
            "so backs may be read as no deck; take a JPEG or a full-colour PNG"
        )
    if picture.frames > 1:
        notes.append("more than one frame or page: only the first is counted")
    width, height = picture.size
    if is_small(picture.size):
        notes.append(
            f"the picture is {width}x{height}, well under the 1280x720 blitzcam counts at: its "
            "cards may be too small to be read right; take it at 1280x720 or more"
        )
    elif not picture.invisible and is_very_dark(picture.frame):
        notes.append(
            "the picture is very dark: cards may be missed or read as no deck; light the table"
        )
    return notes


# what a terminal or a line reader acts on in a path: controls (a newline split the table's
# line, an escape code recoloured it), formats (a right-to-left override turned the name
# round), line and paragraph separators
ACTED_ON: Final = frozenset({"Cc", "Cf", "Zl", "Zp"})


def _shown_path(path: str) -> str:
    """A path as the table says it: quoted when it holds what a terminal or a line reader acts
    on, else as it is (a name that is no UTF-8 too: it is written as its own bytes)."""
    acts = any(unicodedata.category(ch) in ACTED_ON for ch in path)
    return repr(path) if acts else path


def _table(
    entries: list[dict[str, Any]],
    unread: tuple[str, ...] = (),
    in_play: tuple[str, ...] | None = None,
) -> str:
    """The readable form; decks in `unread` (no reference to read them by) show a dash, and so
    do decks not `in_play` (where given: else 0 reads as "none on the table", where they are not
    counted at all)."""
    from blitzcam.vision.detections import UNKNOWN_NAME

    lines = []
    for entry in entries:
        if "error" in entry:
            # (a name in it as a terminal shows it: a link's target with a line break split
            # the table, an escape code coloured it)
            lines.append(f"{_shown_path(entry['path'])}: error: {one_line(entry['error'])}")
            continue
        unknown = sum(1 for card in entry["cards"] if card["deck"] == UNKNOWN_NAME)
        total = sum(entry["counts"].values())
        lines.append(
            f"{_shown_path(entry['path'])}: {total} cards counted, {entry['face_up']} face up"
            + (f", {unknown} unidentified" if unknown else "")
            + f" ({entry['timing_ms']['total']:.0f} ms)"
        )
        width = max(len(name) for name in entry["counts"])
        for name, n in entry["counts"].items():
            shown = (
                "  -  (no reference)"
                if name in unread
                else "  -  (not in play)"
                if in_play is not None and name not in in_play
                else f"{n:>3}"
            )
            lines.append(f"  {name:<{width}}  {shown}")
    return "\n".join(lines)


def _where_said(*, as_json: bool) -> str:
    """Where the failures a line on stderr names are told in full (one in the JSON is told with
    its reason on that line)."""
    return "their entries in the JSON" if as_json else "the table"


def _live_hint(given: str, path: Path) -> str:
    """What to use instead, where `given` names no picture but a camera, a stream or a folder
    ("no such file" of `count 0` and `count http://…` said nothing of how they are read)."""
    if out_of_reach(path):  # (the error said so; `is_dir` raises for it)
        return ""
    if path.is_dir():
        import shlex

        from blitzcam.errors import UserError
        from blitzcam.vision.sources import image_files

        try:  # (as the shell takes it: a folder's name quoted, its pictures' own endings)
            endings = sorted({picture.suffix for picture in image_files(path)})
        except UserError as exc:  # (none, or HEIC photos, or a folder that cannot be read)
            return f" ({str(exc).removeprefix(f'{path}: ')})"
        folder = given.rstrip("/" + os.sep)
        if sys.platform == "win32":
            # (blitzcam expands * there: a [ in the folder's name escaped for it; each pattern
            # quoted whole, as PowerShell splits "a b"\*.jpg in two)
            import glob

            # (and a character PowerShell reads as its own, # $ ` @ { }, as ?, which matches it)
            typed = "".join("?" if ch in "#$`@{}" else ch for ch in glob.escape(folder))
            patterns = " ".join(_for_the_shell(f"{typed}\\*{ending}") for ending in endings)
        else:
            patterns = " ".join(f"{shlex.quote(folder)}/*{ending}" for ending in endings)
        return f" (count its pictures: blitzcam count {patterns})"
    if path.exists() or is_stream(path):
        return ""
    from blitzcam.errors import UserError
    from blitzcam.vision.sources import SpecKind, read_spec

    if hint := _demo_meant(given):
        return hint
    try:  # (as the app reads a camera's setting: an address of no scheme it reads is none)
        kind = read_spec(given).kind
    except UserError:
        return ""
    what = {SpecKind.STREAM: "a stream", SpecKind.CAMERA: "a camera"}.get(kind)
    if what is None:
        return ""
    from blitzcam.vision.source_address import shown_address

    address = given.strip()
    if shown_address(address) != address:  # (its password: said as the address typed here)
        return f" ({what} is read live: blitzcam app --camera ADDRESS, the address typed here)"
    return f" ({what} is read live: blitzcam app --camera {_for_the_shell(address)})"


def _for_the_shell(text: str) -> str:
    """`text` as one argument in a command to paste: quoted where the shell would split it or
    read a character as its own (an address's & sent the command to the background)."""
    if sys.platform == "win32":
        return f'"{text}"' if set(text) & set(" &()^;,'|<>") else text
    import shlex

    return shlex.quote(text)


def _demo_meant(given: str) -> str:
    """A hint where `given`, no file, looks meant for the demo tables: a slip of `demo` (one
    letter wrong, missing, added or swapped, its first kept: "memo" is a name of its own), or
    a checkout's path to them typed outside it (the README's first look), or ""."""
    name = given.strip().lower()
    if name[:1] == "d" and _one_slip(name, "demo"):
        return " (did you mean demo, the four demo tables?)"
    if Path(name).parent.as_posix() in ("datasets/demo", "./datasets/demo"):
        return " (blitzcam count demo counts the demo tables from any folder)"
    return ""


def _one_slip(typed: str, word: str) -> bool:
    """Whether `typed` is `word` with one letter wrong, missing, added, or two side by side
    swapped."""
    if typed == word or abs(len(typed) - len(word)) > 1:
        return False
    if len(typed) == len(word):
        wrong = [i for i, (a, b) in enumerate(zip(typed, word, strict=True)) if a != b]
        swapped = len(wrong) == 2 and wrong[1] == wrong[0] + 1
        return len(wrong) == 1 or (
            swapped and typed[wrong[0]] == word[wrong[1]] and typed[wrong[1]] == word[wrong[0]]
        )
    shorter, longer = sorted((typed, word), key=len)
    return any(longer[:i] + longer[i + 1 :] == shorter for i in range(len(longer)))


def _demo_named(images: list[str]) -> list[str]:
    """`images` with `demo` (where no file of that name is) as the four demo tables, which an
    installed blitzcam holds where no one types their path (datasets/demo/table-1.jpg, the
    README's first look, is a checkout's path)."""
    from pathlib import Path

    from blitzcam import datasets
    from blitzcam.vision.sources import is_demo

    tables = sorted((Path(datasets.__file__).parent / "demo").glob("table-*.jpg"))
    named = []
    for image in images:
        named += [str(t) for t in tables] if is_demo(image) else [image]
    return named


def run(args: argparse.Namespace) -> int:
    from blitzcam.errors import UserError, one_line

    args.images = as_the_shell_expands(args.images)  # (`count photos\*.jpg` on Windows)
    if args.images.count("-") > 1:  # (the second would read nothing: "empty file")
        raise UserError("IMAGE: - (standard input) is given more than once")
    if "-" in args.images:
        check_piped("IMAGE", "blitzcam count - < photo.jpg")
    pipeline = counting_pipeline(args)  # (the heavy imports, after the arguments are checked)
    from blitzcam.vision.lookalike import among

    # on stderr: stdout is the counts (with --json, a stable contract)
    for pair in among(pipeline.look_alikes, args.in_play):
        print(f"note: {pair.warning()}", file=sys.stderr)
    for other in pipeline.read_as_others():
        if args.in_play is None or other.deck in args.in_play:
            origin = pipeline.profile.origins[pipeline.profile.names.index(other.deck)]
            take_back = None if args.decks is None else f"{origin} is the file"
            print(f"note: {other.note(take_back=take_back)}", file=sys.stderr)
    unread = pipeline.profile.unread_decks()
    ignored: list[Path] = []
    if args.decks is not None:
        from blitzcam.vision.references import pictures_not_read

        ignored = pictures_not_read(args.decks)
    # those named after a deck with no reference are said with it (.red-plow.png: red-plow)
    named = [path for path in ignored if path.stem.removeprefix(".") in unread]
    if unread:  # the JSON keeps every known deck (the contract); say why some can only be 0
        said = ", ".join(str(path) for path in named)
        print(
            f"note: --decks {args.decks} holds no reference for {', '.join(unread)}: "
            "reported as 0, their cards are not counted"
            + (f" ({said}: not read, references are visible PNG files)" if named else ""),
            file=sys.stderr,
        )
    others = [path for path in ignored if path not in named]
    if others:  # (a mine.jpg beside them, a deck of the user's own: unsaid)
        print(
            f"note: --decks {args.decks}: {', '.join(str(path) for path in others)}: not "
            "read, references are visible PNG files named DECK.png",
            file=sys.stderr,
        )
    entries = [_count_one(pipeline, path, args.in_play) for path in _demo_named(args.images)]
    failed = [entry for entry in entries if "error" in entry]
    if failed:  # said where a script whose stdout goes to a file still sees it, and before
        # the output: a reader that leaves early (`| head`) ends the command as it is written
        names = ", ".join(_shown_path(e["path"]) for e in failed[:3])
        names += ", ..." if len(failed) > 3 else ""
        # (one alone with its reason, where a script's log keeps stderr and not the JSON)
        why = f": {one_line(failed[0]['error'])}" if len(failed) == 1 and args.json else ""
        where = "" if why else f": see {_where_said(as_json=args.json)}"
        print(
            f"blitzcam count: {len(failed)} of {len(entries)} images could not be counted "
            f"({names}{why}){where}",
            file=sys.stderr,
        )
    # one write, whole: piece by piece (json.dump's, or print's text then its newline, as
    # they come when Python's output is unbuffered) a reader leaving early ended the command
    # with SIGPIPE, and a disk filling up left half a document
    if args.json:
        text = json.dumps({"images": entries}, indent=2)
    else:
        text = _table(entries, unread, args.in_play)
    sys.stdout.write(text + "\n")
    return 1 if failed else 0
