"""Scenes whose truth is counts, not boxes: photographs of a real table with a `counts.csv`
beside them, or the captures the app keeps with the counts the players confirmed.

Counting the cards of a photo is what players do anyway; drawing a box round each of 150 cards
is not. So the real tables blitzcam is judged on come with counts per deck, and the scenes here
are scored on those alone (`models/count_evaluation.py`): no detector precision or recall, the
share of scenes counted exactly and the error per deck. Reading only; nothing is written.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Final

from blitzcam.game.counts import STEPS
from blitzcam.game.decks import CARDS_PER_DECK, typed_deck_name
from blitzcam.game.match_model import MAX_PLAYERS
from blitzcam.models.evaluation import SceneDataError
from blitzcam.paths import written_path

COUNTS_FILE: Final = "counts.csv"
IMAGE_COLUMN: Final = "image"
FACE_UP: Final = "face-up"
NOT_IN_PLAY: Final = "-"  # a deck of the file not in this photo's game: none, and no candidate
FACE_UP_SPELLINGS: Final = ("face-up", "face up", "face_up", "faceup")
ALL_CARDS: Final = CARDS_PER_DECK * MAX_PLAYERS  # every deck of a game of eight, at the most


@dataclass(frozen=True, slots=True)
class CountedScene:
    """One table and what is on it: its photo (or a scan step's shots, whose counts add up)."""

    name: str
    images: tuple[Path, ...]
    counts: Mapping[str, int]  # true backs per deck; a deck not named has none
    decks: tuple[str, ...]  # the decks in play: the file's columns, or the round's players' decks
    face_up: int | None = None  # face-up cards on the table, where the file says
    proposed: Mapping[str, int] | None = None  # what the app counted when it was taken


@dataclass(frozen=True, slots=True)
class LeftOut:
    """A scene not scored, and why (a capture whose shot was deleted, say)."""

    name: str
    reason: str


def has_counts_file(folder: Path) -> bool:
    return (folder / COUNTS_FILE).is_file()


def has_captures(folder: Path) -> bool:
    return (folder / "counts").is_dir() and (folder / "images").is_dir()


# --- counts.csv ----------------------------------------------------------------------------


def counts_file_scenes(path: Path, known: Sequence[str]) -> list[CountedScene]:
    """The scenes of a counts file: a header `image,<deck>,...[,face-up]`, then one row per
    photo (its path relative to the file's folder) with its backs of each deck named, or `-`
    for a deck not in that photo's game. Decks not named have none on the table; the decks in
    play are those with a number. SceneDataError naming the file and line for anything else."""
    rows = _rows(path)
    if not rows:
        raise SceneDataError(f"{path}: empty; expected a header 'image,<deck>,...'")
    header_line, header = rows[0]
    columns = _columns(path, header_line, header, known)
    if len(rows) == 1:
        raise SceneDataError(f"{path}: a header and no photo under it")
    scenes: list[CountedScene] = []
    seen: dict[Path, int] = {}
    for number, row in rows[1:]:
        where = f"{path}, line {number}"
        row = _without_empty_tail(row, len(columns) + 1)
        if len(row) != len(columns) + 1:
            raise SceneDataError(f"{where}: {len(row)} fields; the header has {len(columns) + 1}")
        given = row[0].strip()
        if not given:
            raise SceneDataError(f"{where}: no image named in the first column")
        image = _photo(path.parent, given, where)
        if (key := image.resolve()) in seen:
            raise SceneDataError(f"{where}: {given} is on line {seen[key]} already")
        seen[key] = number
        counts, decks, face_up = {}, [], None
        for name, cell in zip(columns, row[1:], strict=True):
            if name == FACE_UP:
                # (empty: not counted for this photo)
                face_up = _count(cell, f"{where}, {name}", most=ALL_CARDS, empty_is_none=True)
            elif cell.strip() != NOT_IN_PLAY:
                decks.append(name)
                if value := _count(cell, f"{where}, {name}", most=CARDS_PER_DECK):
                    counts[name] = value
        if not decks:
            raise SceneDataError(f"{where}: every deck is {NOT_IN_PLAY} (none in play)")
        scenes.append(CountedScene(given, (image,), counts, tuple(decks), face_up))
    return scenes


def _rows(path: Path) -> list[tuple[int, list[str]]]:
    """(line number, cells) of each row that is not blank, as a spreadsheet saves them: a
    byte-order mark, `;` or tab between cells, CR, LF or CRLF line ends, Excel's `sep=` line."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as exc:
        raise SceneDataError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise SceneDataError(
            f'{path}: not UTF-8 text (byte {exc.start}); save it as "CSV UTF-8"'
        ) from None
    lines = text.splitlines()
    first = next((line for line in lines if line.strip()), "")
    delimiter = next((d for d in (",", ";", "\t") if d in first), ",")
    if first.lower().startswith("sep=") and len(first) == 5:  # Excel's hint, not a header
        delimiter, text = first[4], text.replace(first, "", 1)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        # (the line a row ends on: a quoted name may hold a line break)
        return [(reader.line_num, row) for row in reader if any(map(str.strip, row))]
    except csv.Error as exc:  # (a field past csv's limit: a spreadsheet's own file, say)
        raise SceneDataError(f"{path}, line {reader.line_num}: not CSV ({exc})") from None


def _without_empty_tail(row: list[str], length: int) -> list[str]:
    """A row's cells past `length` dropped when they are empty (a spreadsheet's own columns)."""
    return row[:length] if not any(cell.strip() for cell in row[length:]) else row


def _photo(folder: Path, given: str, where: str) -> Path:
    """The photo a row names (relative to the counts file's folder; `~/` a home; a Windows
    path's backslashes read as folders where no file has the name as written)."""
    try:
        image = written_path(folder, given)
        if image.is_file():
            return image
        missing = "not a file" if image.exists() else "no such file"
    except OSError as exc:  # (a name too long)
        missing = f"cannot be looked at ({getattr(exc, 'strerror', None) or exc})"
    raise SceneDataError(f"{where}: {given}: {missing}")


def _columns(path: Path, line: int, header: list[str], known: Sequence[str]) -> list[str]:
    """The deck (or "face-up") of each column after the image's (empty columns at the end,
    as a spreadsheet may save, left out); a deck's name in any case or spacing."""
    where = f"{path}, line {line}"
    header = _without_empty_tail(header, max(i + 1 for i, c in enumerate(header) if c.strip()))
    if header[0].strip().lower() != IMAGE_COLUMN:
        raise SceneDataError(
            f"{where}: the first column must be {IMAGE_COLUMN!r}, not {header[0]!r}"
        )
    columns: list[str] = []
    for number, cell in enumerate(header[1:], start=2):
        name = typed_deck_name(cell)
        if cell.strip().lower() in FACE_UP_SPELLINGS:
            name = FACE_UP
        elif name not in known:
            raise SceneDataError(
                f"{where}: column {number}, {cell!r}, is no deck (known: {', '.join(known)}; "
                f"or {FACE_UP})"
            )
        if name in columns:
            raise SceneDataError(f"{where}: column {number}, {name}, is there twice")
        columns.append(name)
    if all(name == FACE_UP for name in columns):
        raise SceneDataError(f"{where}: no deck's column (e.g. 'image,green-pump,blue-pump')")
    return columns


def _count(cell: str, where: str, *, most: int, empty_is_none: bool = False) -> int | None:
    """A cell's number of cards, `most` at the most (a typo past it: one photo holds one deck's
    backs at the most; and thousands of digits were int()'s traceback)."""
    text = cell.strip()
    if not text:
        if empty_is_none:
            return None
        raise SceneDataError(f"{where}: empty (write 0 for none, {NOT_IN_PLAY} for not in play)")
    if not text.isascii() or not text.isdigit():
        raise SceneDataError(f"{where}: {cell!r} is not a whole number of cards")
    if len(text.lstrip("0")) > len(str(most)) or int(text) > most:
        shown = text if len(text) <= 12 else f"{text[:12]}..."
        raise SceneDataError(f"{where}: {shown} is more than the {most} cards there can be")
    return int(text)


# --- the app's captures ----------------------------------------------------------------------


def capture_scenes(folder: Path) -> tuple[list[CountedScene], list[LeftOut]]:
    """Each scan step of each round kept in an app's captures folder (`counts/STEM.json` beside
    `images/STEM.jpg`, ui/capture_store.py), with the counts the players confirmed for it, in
    the order they were taken; what cannot be scored (a damaged file, a shot deleted, a player
    without a deck) left out, said why. SceneDataError when the folder holds no capture."""
    files = sorted(p for p in (folder / "counts").glob("*.json") if not p.name.startswith("."))
    if not files:  # (hidden: macOS's ._ files, copied to a stick)
        raise SceneDataError(f"{folder / 'counts'}: no capture (*.json) to evaluate on")
    # a round's shots share its time to the microsecond (ui/round_flow.py)
    steps: dict[tuple[str, str], list[tuple[dict[str, Any], Path]]] = defaultdict(list)
    left_out = []
    for path in files:
        try:
            record = _capture_record(path)
        except SceneDataError as exc:
            left_out.append(LeftOut(path.name, str(exc).removeprefix(f"{path}: ")))
            continue
        steps[(record["taken_at"], record["step"])].append((record, path))
    scenes = []
    for (_, step), shots in sorted(steps.items(), key=lambda i: (i[0][0], STEPS.index(i[0][1]))):
        first = min(shots, key=lambda shot: shot[0]["shot"])[1]
        scene_or_reason = _step_scene(first.stem, folder, step, shots)
        if isinstance(scene_or_reason, str):
            left_out.append(LeftOut(first.stem, scene_or_reason))
        else:
            scenes.append(scene_or_reason)
    return scenes, left_out


def _capture_record(path: Path) -> dict[str, Any]:
    """A capture's JSON, its fields checked, its players those of the round (captures of
    releases before 2026-12-03 listed every player of the match, one who had left too);
    SceneDataError naming the file otherwise."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(record, dict):
            raise ValueError(f"a JSON {type(record).__name__}, not an object")
        datetime.fromisoformat(record["taken_at"])  # (a str, or TypeError)
        if record["step"] not in STEPS:
            raise ValueError(f"step {record['step']!r} is not one of {', '.join(STEPS)}")
        shot, shots = record["shot"], record["shots_in_step"]
        if not all(type(n) is int for n in (shot, shots)) or not 1 <= shot <= shots:
            raise ValueError(f"shot {shot!r} of {shots!r} is not a shot of its step")
        for player in record["players"]:
            if not isinstance(player["name"], str) or not (
                player["deck"] is None or isinstance(player["deck"], str)
            ):
                raise ValueError(f"player {player!r} is not a name and a deck")
        confirmed = record["confirmed"]
        record["players"] = [p for p in record["players"] if p["name"] in confirmed]
        if not record["players"]:
            raise ValueError("no player's count is confirmed")
        for key in ("confirmed", *(("proposed",) if "proposed" in record else ())):
            for player in record["players"]:
                value = record[key][player["name"]][record["step"]]
                if type(value) is not int or value < 0:
                    raise ValueError(
                        f"{key} {record['step']} count of {player['name']!r} is {value!r}, "
                        "not a number of cards"
                    )
    except OSError as exc:
        raise SceneDataError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    except (ValueError, KeyError, TypeError, RecursionError) as exc:
        detail = f"no {exc} field" if isinstance(exc, KeyError) else str(exc)
        raise SceneDataError(f"{path}: not a capture's counts ({detail})") from None
    return record


def _step_scene(
    name: str, folder: Path, step: str, shots: list[tuple[dict[str, Any], Path]]
) -> CountedScene | str:
    """The scene of one round's step, or why it cannot be scored."""
    record = shots[0][0]
    numbers = Counter(r["shot"] for r, _ in shots)
    wanted = record["shots_in_step"]
    if twice := sorted(n for n, k in numbers.items() if k > 1):
        return f"shot {twice[0]} is there twice"
    if gone := [n for n in range(1, wanted + 1) if n not in numbers]:
        return (
            f"shot {', '.join(map(str, gone))} of {wanted} is gone or damaged (its counts are "
            "the step's)"
        )
    images = []
    for r, path in sorted(shots, key=lambda item: item[0]["shot"]):
        image = folder / "images" / f"{path.stem}.jpg"
        if not image.is_file():
            return f"the image of shot {r['shot']}, {image.name}, is gone"
        images.append(image)
    players = record["players"]
    if deckless := [p["name"] for p in players if p["deck"] is None]:
        return f"{deckless[0]} played without a deck: their cards are no deck's"
    decks = tuple(dict.fromkeys(p["deck"] for p in players))
    proposed = None
    if "proposed" in record:
        proposed = _deck_counts(record["proposed"], players, step)
    return CountedScene(
        name=name,
        images=tuple(images),
        counts=_deck_counts(record["confirmed"], players, step),
        decks=decks,
        proposed=proposed,
    )


def _deck_counts(counts: Any, players: list[dict[str, Any]], step: str) -> dict[str, int]:
    """Each player's count of the step (checked by `_capture_record`), as their deck's."""
    per_deck: Counter[str] = Counter()
    for player in players:
        per_deck[player["deck"]] += counts[player["name"]][step]
    return {deck: n for deck, n in per_deck.items() if n}
