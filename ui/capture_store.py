"""Keeping confirmed captures: each shot's image, its labels in the ultralytics OBB format and the
counts the players confirmed — the start of a dataset from the user's own table.

Formatting (`obb_label_line`, `capture_record`) is pure and separate from file I/O (`save_capture`).
Each file is written to a temporary name and renamed, so none is ever half written; a shot's
three files are taken away again where a later one fails. A process killed between them (kill
-9, a power cut) leaves that shot in part: evaluation leaves its step out and says so
(`models.counted_scenes`), as its confirmed counts are the sum of every shot of the step.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Final

import numpy as np

from blitzcam.files import write_bytes_atomic
from blitzcam.game.rules import Round
from blitzcam.ui.counting_worker import Outline
from blitzcam.ui.scan_session import STEPS, ScanSession

CLASS_IDS: Final[dict[str, int]] = {"back": 0, "face": 1}  # the detector's classes (design card)
JPEG_QUALITY: Final = 92


def obb_label_line(outline: Outline, *, width: int, height: int) -> str:
    """`cls x1 y1 x2 y2 x3 y3 x4 y4`, corners normalised to the image and clipped to [0, 1]."""
    if width <= 0 or height <= 0:
        raise ValueError(f"image size must be positive, got {width}x{height}")
    corners = np.asarray(outline.corners, dtype=np.float64)
    if corners.shape != (4, 2):
        raise ValueError(f"outline corners: expected shape (4, 2), got {corners.shape}")
    norm = np.clip(corners / np.array([width, height], dtype=np.float64), 0.0, 1.0)
    cls = CLASS_IDS["face" if outline.face_up else "back"]
    return " ".join([str(cls), *(f"{v:.6f}" for v in norm.reshape(-1))])


def label_lines(outlines: Iterable[Outline], *, width: int, height: int) -> list[str]:
    return [obb_label_line(o, width=width, height=height) for o in outlines]


def labelled(outlines: Iterable[Outline], *, width: int, height: int) -> list[Outline]:
    """The outlines that make a label: finite corners enclosing some of the image (a box off
    the frame clips to a line of no area, and NaN corners would be written as 'nan')."""
    kept = []
    for outline in outlines:
        corners = np.asarray(outline.corners, dtype=np.float64)
        if corners.shape != (4, 2) or not np.isfinite(corners).all():
            continue
        x, y = np.clip(corners, 0.0, [width, height]).T
        area = 0.5 * abs(float(x @ np.roll(y, -1) - y @ np.roll(x, -1)))  # the shoelace
        if area > 0:
            kept.append(outline)
    return kept


def capture_record(
    *,
    step: str,
    shot: int,
    shots_in_step: int,
    confirmed: Mapping[str, Mapping[str, int]],
    players: Sequence[Mapping[str, str | None]],
    outlines: Sequence[Outline],
    taken_at: datetime,
    proposed: Mapping[str, Mapping[str, int]] | None = None,
) -> dict[str, Any]:
    """The JSON beside each image: confirmed counts of the round, and each label row's deck.
    With `proposed` (what the scan counted), also whether the players corrected it: the labels
    are what the detector saw, so a corrected round's shots may miss cards or box clutter, and
    fine-tuning should check them (or leave them out) rather than learn those as they are."""
    record = {
        "taken_at": taken_at.isoformat(),
        "step": step,
        "shot": shot,
        "shots_in_step": shots_in_step,
        "players": [dict(p) for p in players],
        "confirmed": {name: dict(counts) for name, counts in confirmed.items()},
        "label_decks": [None if o.face_up else o.deck for o in outlines],
    }
    if proposed is not None:
        record["proposed"] = {name: dict(counts) for name, counts in proposed.items()}
        record["corrected"] = record["proposed"] != record["confirmed"]
    return record


def capture_stem(taken_at: datetime, step: str, shot: int) -> str:
    return f"{taken_at:%Y%m%d-%H%M%S}-{step}-{shot}"


def free_stem(folder: Path, stem: str) -> str:
    """`stem`, or `stem-2`, `stem-3`… when a capture of that name is there already (two in one
    second, a clock set back an hour): a capture never replaces another."""

    def taken(candidate: str) -> bool:
        return any(
            (folder / sub / f"{candidate}{suffix}").exists()
            for sub, suffix in (("images", ".jpg"), ("labels", ".txt"), ("counts", ".json"))
        )

    candidate, number = stem, 2
    while taken(candidate):
        candidate, number = f"{stem}-{number}", number + 1
    return candidate


def save_capture(
    folder: Path, stem: str, frame_bgr: np.ndarray, lines: list[str], record: Mapping[str, Any]
) -> Path:
    """Write folder/images/STEM.jpg, folder/labels/STEM.txt and folder/counts/STEM.json, all
    three or none: the image goes last, and a failure removes what was written before it (an
    image without its labels would read as a table with no cards on it)."""
    import cv2

    ok, encoded = cv2.imencode(".jpg", frame_bgr, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise ValueError(f"{stem}: the frame could not be encoded as JPEG")
    labels = "".join(f"{line}\n" for line in lines)
    files = (
        (folder / "counts" / f"{stem}.json", (json.dumps(record, indent=1) + "\n").encode()),
        (folder / "labels" / f"{stem}.txt", labels.encode()),
        (folder / "images" / f"{stem}.jpg", encoded.tobytes()),
    )
    written: list[Path] = []
    try:
        for path, data in files:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_bytes_atomic(path, data)
            written.append(path)
    except BaseException:
        for path in written:
            path.unlink(missing_ok=True)
        raise
    return files[-1][0]


def capture_folder_problem(folder: Path, data_dir: Path) -> str | None:
    """Why captures cannot be kept in `folder`, in words, or None. It may be made, and its
    parents with it inside the data directory or the home folder; elsewhere, its parent must
    be there (a folder on a drive not plugged in, /media/stick/captures, was made on the
    computer's own disk, unsaid)."""
    import os

    from blitzcam.paths import why_no_folder

    if folder.is_dir():
        return None if os.access(folder, os.W_OK) else f"{folder}: not a folder one may write in"
    try:
        where = folder.resolve()
        made_inside = any(where.is_relative_to(top.resolve()) for top in (data_dir, Path.home()))
    except (OSError, RuntimeError):  # (a loop of links)
        made_inside = False
    for part in (folder, *folder.parents):
        if part.exists() and not part.is_dir():
            return f"{folder}: {why_no_folder(folder, NotADirectoryError())}"
        if part.is_dir():  # the nearest that is there
            if part != folder.parent and not made_inside:
                return f"{folder}: no such folder, nor {folder.parent} (a drive not plugged in?)"
            if not os.access(part, os.W_OK):
                return f"{folder}: cannot be made: {part} is not a folder one may write in"
            return None
    return f"{folder}: no such folder"


class CapturesPartlyKeptError(Exception):
    """A round's captures not all kept: how many were, of how many, and why the next was not."""

    def __init__(self, kept: int, total: int, cause: BaseException) -> None:
        # (an OSError's own text, "[Errno 20] Not a directory: '…'", said as a person would)
        why = str(cause)
        if isinstance(cause, OSError) and cause.strerror:
            why = f"{cause.filename}: {cause.strerror}" if cause.filename else cause.strerror
        super().__init__(f"only {kept} of its {total} captures were kept: {why}")
        self.kept, self.total = kept, total


def keep_round(
    folder: Path,
    steps: Mapping[str, Sequence[tuple[np.ndarray, Sequence[Outline]]]],
    *,
    confirmed: Mapping[str, Mapping[str, int]],
    proposed: Mapping[str, Mapping[str, int]],
    players: Sequence[Mapping[str, str | None]],
    taken_at: datetime,
) -> int:
    """Keep every shot of a confirmed round (`steps`: "dutch" and "blitz", each its shots'
    frames and outlines), all stamped `taken_at`, which ties a step's shots together; returns
    how many were kept. CapturesPartlyKeptError when one could not be (those before it stay)."""
    total = sum(len(shots) for shots in steps.values())
    kept = 0
    try:
        for step, shots in steps.items():
            for number, (frame, shot_outlines) in enumerate(shots, start=1):
                height, width = frame.shape[:2]
                outlines = labelled(shot_outlines, width=width, height=height)
                record = capture_record(
                    step=step,
                    shot=number,
                    shots_in_step=len(shots),
                    confirmed=confirmed,
                    players=players,
                    outlines=outlines,
                    taken_at=taken_at,
                    proposed=proposed,
                )
                save_capture(
                    folder,
                    free_stem(folder, capture_stem(taken_at, step, number)),
                    frame,
                    label_lines(outlines, width=width, height=height),
                    record,
                )
                kept += 1
    except Exception as exc:  # (an image writer's error of any kind: the caller says it)
        raise CapturesPartlyKeptError(kept, total, exc) from exc
    return kept


def keep_scanned_round(
    folder: Path, session: ScanSession, confirmed: Round, *, taken_at: datetime
) -> int:
    """`keep_round` for a scan's shots: each step's frames and outlines, the counts the shots
    proposed beside the ones confirmed, and the players the scan counted for."""

    def as_counts(counted: Round) -> dict[str, dict[str, int]]:
        return {n: {"dutch": t.dutch, "blitz": t.blitz} for n, t in counted.tallies.items()}

    steps = {
        step: [(shot.frame, shot.snapshot.outlines) for shot in session.shots(step)]
        for step in STEPS
    }
    return keep_round(
        folder,
        steps,
        confirmed=as_counts(confirmed),
        proposed=as_counts(session.proposed_round()),
        players=[{"name": p.name, "deck": p.deck, "team": p.team} for p in session.players],
        taken_at=taken_at,
    )
