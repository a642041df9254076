"""Which training run a run folder holds, and whether a command may start or go on with it.

`blitzcam train` and `blitzcam train-identity` keep a run's recipe, checkpoints and time in a
folder of the user's choosing: a run started again there without `--resume` threw away hours
of checkpoints, a `--resume` with a mistyped folder started a new run without a word, and one
command's files (recipe.json, train_seconds.json) overwrote the other's.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final, Literal

from blitzcam.errors import UserError, first_and_more
from blitzcam.paths import in_a_checkout

RunKind = Literal["detector", "identity"]
COMMANDS: Final[dict[str, str]] = {
    "detector": "blitzcam train",
    "identity": "blitzcam train-identity",
}
ARTICLE: Final[dict[str, str]] = {"detector": "a", "identity": "an"}
# the detector's stage folders (models/stages.py `stages`), each with weights/ once it trained
DETECTOR_STAGES: Final = ("train", "refine", "extend", "harden", "more")
FINISHED_FILE: Final = "finished.json"  # models/training.py writes it when a stage is done


@contextmanager
def this_run_alone(run_dir: Path, command: str) -> Iterator[None]:
    """`run_dir` held by this `command` while the block runs: a second one in it is refused (it
    would start over, delete the first one's weights, and that one die in a traceback, the folder
    left holding both runs' work). A lock on the folder itself, where the system has
    one (POSIX's flock; none on Windows), which the system lets go of however the process ends:
    no stale lock to clear, and no file in the folder."""
    try:
        import fcntl
    except ImportError:  # (Windows)
        yield
        return
    try:
        held = os.open(run_dir, os.O_RDONLY)
    except OSError:  # (a folder that cannot be read: what writes in it says why)
        yield
        return
    try:
        try:
            fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UserError(
                f"{run_dir}: a training command is running in it already (`blitzcam train` or "
                f"`train-identity`): one at a time in a run folder; wait for it to end, or stop "
                f"it first ({command} not started)"
            ) from None
        except OSError:  # (ENOLCK, EOPNOTSUPP: a folder whose filesystem has no such locks)
            pass
        yield
    finally:
        os.close(held)


def run_kind(run_dir: Path) -> RunKind | Literal["unreadable"] | None:
    """The kind of run `run_dir` holds, by its recipe.json (the detector's names a model
    yaml, the identity network's its data seeds), else by its checkpoints; "unreadable" for
    a recipe.json that is neither; None for a folder with no run in it (generated scenes or
    drawings alone are no run: a new one reuses them)."""
    recipe = run_dir / "recipe.json"
    if recipe.is_file():
        try:
            saved = json.loads(recipe.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return "unreadable"
        if isinstance(saved, dict) and "model_yaml" in saved:
            return "detector"
        if isinstance(saved, dict) and "data_seeds" in saved:
            return "identity"
        return "unreadable"
    kinds: tuple[RunKind, ...] = ("identity", "detector")
    return next((kind for kind in kinds if has_trained(run_dir, kind)), None)


def is_scene_dataset(folder: Path) -> bool:
    """Whether `folder` is a dataset `blitzcam dataset generate` wrote (as `evaluate` tells
    one)."""
    return (folder / "scenes").is_dir() and (folder / "data.yaml").is_file()


def unfinished_dataset(folder: Path) -> str | None:
    """Why `folder` is a scene dataset `blitzcam dataset generate` did not finish (None: it is
    not one): it writes data.yaml last, and a stopped one's part of the scenes, scored or
    trained on, passed for the whole."""
    if (folder / "scenes").is_dir() and not (folder / "data.yaml").is_file():
        kind = run_kind(folder)
        if kind is not None and kind != "unreadable":  # (a run's folder, not a stopped dataset)
            held = [p.name for p in sorted(folder.glob("*scenes")) if (p / "data.yaml").is_file()]
            within = f": its scenes are in {folder / held[0]}" if held else ""
            return f"{folder}: {ARTICLE[kind]} `{COMMANDS[kind]}` run folder, not a dataset{within}"
        return (
            f"{folder}: no data.yaml: an unfinished dataset (a `blitzcam dataset generate` that "
            "was stopped?); generate it again"
        )
    return None


def has_trained(run_dir: Path, kind: RunKind) -> bool:
    """Whether a run has trained at all: a checkpoint or a finished stage. A start refused
    before its first step (its scenes or crops unusable) leaves its recipe and data records
    alone, and starting that run over throws nothing away."""
    if kind == "identity":
        return (run_dir / "last.pt").is_file()
    return any(
        (run_dir / stage / "weights").is_dir() or (run_dir / stage / FINISHED_FILE).is_file()
        for stage in DETECTOR_STAGES
    )


def check_run_start(
    run_dir: Path, kind: RunKind, *, resume: bool, other_kinds_only: bool = False
) -> None:
    """UserError, before anything is written, when `kind`'s command should not start (or,
    with `resume`, go on) in `run_dir`: it holds the other command's run, a recipe.json that
    cannot be read, a run of its own kind that a new start would throw away, or, with
    `resume`, no run at all. `other_kinds_only`: check only the first two (a caller that
    decides the rest itself)."""
    if is_scene_dataset(run_dir):  # (a run would write its records into it, and be one)
        # (train-identity has no --data: it cuts the drawings of scenes of its own)
        advice = "give it as --data, and another folder" if kind == "detector" else "give another"
        raise UserError(
            f"{run_dir}: holds a scene dataset (`blitzcam dataset generate`), not a run: "
            f"{advice} as --run"
        )
    found = run_kind(run_dir)
    if found == "unreadable":
        raise UserError(
            f"{run_dir / 'recipe.json'}: cannot be read as a training recipe: the run cannot be "
            "told apart from another; use another --run"
        )
    if found is not None and found != kind:
        raise UserError(
            f"{run_dir}: holds {ARTICLE[found]} {found} run (`{COMMANDS[found]}`), not "
            f"{ARTICLE[kind]} {kind} one: use another --run"
        )
    if other_kinds_only:
        return
    if found == kind and not resume and has_trained(run_dir, kind):
        raise UserError(
            f"{run_dir}: holds {ARTICLE[kind]} {kind} run already: --resume goes on with it; to "
            "start over, use another --run or delete that folder"
        )
    if found is None and not resume and (others := _files_of_no_run(run_dir)):
        # (a slip in --run, a home folder, took the run's files in among one's own)
        raise UserError(
            f"{run_dir}: holds {first_and_more(others)}, and no run: its files would be mixed in "
            "with them; use an empty or new folder as --run"
        )
    if found is None and resume:
        # (a run stopped before its first step: what it made so far is made once, and a start
        # without --resume takes it; a train-identity stopped cutting was said as lost)
        try:
            made = any(
                path.name not in (SHIP_FILE, DATA_FILE) and not path.name.startswith(".")
                for path in (run_dir.iterdir() if run_dir.is_dir() else ())
            )
        except OSError:  # (a folder that cannot be listed: said without the note)
            made = False
        raise UserError(
            f"--resume: {run_dir} holds no {kind} run to go on with: check --run, or leave out "
            "--resume to start one"
            + (" (the scenes or drawings it has made so far are used again)" if made else "")
        )


def _files_of_no_run(run_dir: Path) -> list[str]:
    """What a folder holding no run holds (hidden files aside), in order, unless something in
    it is a run's: its first record written (a run stopped while making its scenes), or what a
    run makes and a new one takes up (scenes, crops, drawings linked in from another run)."""
    try:
        held = sorted(p.name for p in run_dir.iterdir() if not p.name.startswith("."))
    except OSError:  # (not there, or not listed: said where it is used)
        return []
    runs = any(name in RUN_RECORDS or _RUN_MADE.fullmatch(name) for name in held)
    return [] if runs else held


# what a run makes in its folder and a run started there takes up
_RUN_MADE: Final = re.compile(r"drawings-.*\.npz|.*scenes.*|crops.*|negatives|export")


SHIP_FILE: Final = "ship.json"  # whether the run was started with --no-ship
# the scene dataset a detector run's first stage was given (`--data`), or null
DATA_FILE: Final = "data.json"
# what a run writes first (a detector run its data.json, an identity run its recipe.json)
RUN_RECORDS: Final = frozenset({"recipe.json", SHIP_FILE, DATA_FILE})


# how a model exported into a run folder is counted with, by the run's kind
USED_WITH: Final[dict[str, str]] = {
    "detector": "`blitzcam count --model` or BLITZCAM_MODEL",
    "identity": "BLITZCAM_IDENTITY_MODEL, or `blitzcam evaluate --identity-model`",
}


def started_as_trial(run_dir: Path) -> bool:
    """Whether the run in `run_dir` was started with `--trial`, as its ship.json records (a
    trial started with an option, or from before stage 5, was taken for a full run by its
    recipe, and told how to ship its detector)."""
    try:
        return json.loads((run_dir / SHIP_FILE).read_text(encoding="utf-8")).get("trial") is True
    except (OSError, ValueError, TypeError, AttributeError):
        return False


def keeps_to_itself(
    run_dir: Path,
    *,
    no_ship: bool,
    resume: bool,
    kind: RunKind = "detector",
    trial: bool = False,
) -> bool:
    """Whether the run's result stays in its own folder rather than going into models/: as
    `--no-ship` (or `--trial`) says, or as the run was started when resumed (a `--resume`
    without it put the weights of a run started with it over the shipped ones). Recorded for a
    resumed run (`started_as_trial` reads the trial back)."""
    record = run_dir / SHIP_FILE
    started_so = False
    if resume:
        try:
            started_so = json.loads(record.read_text(encoding="utf-8"))["no_ship"] is True
        except (OSError, ValueError, TypeError, KeyError):  # a run from before: as given
            started_so = False
    else:
        from blitzcam.files import write_text_atomic

        try:
            write_text_atomic(record, json.dumps({"no_ship": no_ship, "trial": trial}))
        except OSError as exc:
            raise UserError(f"{record}: cannot write it ({exc.strerror or exc})") from None
    if started_so and not no_ship:
        started = "--trial" if started_as_trial(run_dir) else "--no-ship"
        print(f"{run_dir}: started with {started}, so its result stays in the run folder")
    if not (no_ship or started_so or in_a_checkout()):
        print(
            "blitzcam is installed, not a checkout: the shipped models stay as they are, and "
            f"the new one is exported into {run_dir / 'export'} (count with it: "
            f"{USED_WITH[kind]})"
        )
        return True
    return no_ship or started_so
