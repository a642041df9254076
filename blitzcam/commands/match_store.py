"""The match store as `blitzcam match` opens it: made only where a command starts a match,
read as it is where it cannot be written, a wait for another program's lock said; and a change
saved, then interrupted or cut short in its output, said as saved."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:  # (imported where used: `blitzcam --help` reads no database code)
    from blitzcam.errors import UserError
    from blitzcam.game.store import MatchStore, StoreError

T = TypeVar("T")


class NoStoreError(Exception):
    """There is no match database yet, and the action only reads or changes matches."""


@contextmanager
def open_store(
    args: argparse.Namespace, *, create: bool = False, reading: bool = False
) -> Iterator[MatchStore]:
    """`store_at`'s store, closed after the block; then, where the disk could not take the
    changes into the file itself, a note of where they are (`MatchStore.unfolded`)."""
    with store_at(args, create=create, reading=reading) as store:
        yield store
    if store.unfolded is not None:
        print(f"note: {store.unfolded}", file=sys.stderr)


def store_at(
    args: argparse.Namespace, *, create: bool = False, reading: bool = False
) -> MatchStore:
    """The match store; made where there is none only for `create` (`new`, `import`): a
    mistyped --db read by `list` looked like an empty store, and left one behind. For
    `reading` (list, show, export), a file that cannot be written here is read as it is."""
    from blitzcam.errors import UserError
    from blitzcam.game.store import MatchStore, StoreError
    from blitzcam.paths import folder_not_there, match_db_path, not_there, resolved

    path = match_db_path(args.db)
    try:  # (exists raises, rather than answer False, for a folder shut or a name too long)
        size = path.stat().st_size if path.exists() else None
        resolved(path)  # a loop of links, which exists calls missing
    except OSError as exc:
        raise UserError(f"{path}: cannot reach it ({exc.strerror or exc})") from None
    if size == 0 and path.with_name(path.name + "-journal").is_file():
        size = None  # a first `new` killed as it made the file: no store was made yet
    if not create and size == 0 and path.is_file():  # a store cut to nothing: not "no matches"
        raise UserError(
            f"{path}: the file is empty (0 bytes), not a match database; it was left untouched "
            "(`blitzcam match new` starts one in it)"
        )
    if size is None and path.is_symlink() and not create:  # (exists: False for a link to none)
        # a drive not plugged in was "no matches yet" (`new` refuses a link into no folder)
        raise UserError(
            f"{path}: {not_there(path)}: no match database there (a drive not plugged in? "
            "`blitzcam match new` starts one)"
        )
    folder = None if path.parent.is_dir() else folder_not_there(path)
    if create and args.db is not None and folder is not None:
        # (as the app says: a typo, or a drive not plugged in, made a tree of new folders)
        raise UserError(f"--db {args.db}: {folder}")
    if not create and size is None:
        if args.db is not None and folder is not None:  # (`new` would refuse it as well)
            raise UserError(f"--db {args.db}: no such match database: {folder}")
        if args.db is not None:
            raise UserError(
                f"--db {args.db}: no such match database (`blitzcam match --db FILE new …` "
                "starts one there)"
            )
        raise NoStoreError
    try:
        return MatchStore(path, lock_waiter=SaysItWaits(path))
    except StoreError as exc:
        if not (reading and exc.unwritable):
            raise store_problem(exc) from None
        reason = f" ({exc.reason})" if exc.reason else ""
    try:  # an archived copy, a read-only folder or medium, a full disk: `show` still works
        store = MatchStore(path, read_only=True)
    except StoreError as exc:  # (why it could not be written is said too: "the disk is full")
        raise UserError(f"{exc}{reason}") from None
    print(f"note: {path} cannot be written here{reason}: read as it is", file=sys.stderr)
    return store


class SaysItWaits:
    """A change's wait for another program's write lock, said once it lasts (SQLite's own wait
    was 10 s of silence: a command that looked hung)."""

    SAY_AFTER_S = 0.5

    def __init__(self, path: Path) -> None:
        self._path = path
        self._said = False

    def starting(self) -> None:
        pass

    def waiting(self, waited_s: float) -> bool:
        from blitzcam.game.store_file import BUSY_TIMEOUT_MS

        if not self._said and waited_s >= self.SAY_AFTER_S:
            self._said = True
            print(
                f"note: waiting for another program to finish writing {self._path} (up to "
                f"{BUSY_TIMEOUT_MS / 1000:g} s; Ctrl+C stops, saving nothing)",
                file=sys.stderr,
                flush=True,
            )
        return True

    def done(self) -> None:
        self._said = False


def match_id_of(args: argparse.Namespace, store: MatchStore) -> int:
    from blitzcam.errors import UserError

    if args.match is not None:
        return args.match
    match_id = run_rule(store.latest_match)
    if match_id is None:
        raise UserError("no matches yet: start one with `blitzcam match new`")
    return match_id


def run_rule(
    change: Callable[[], T],
    *,
    named: int | None = None,
    db: Path | None = None,
    used: int | None = None,
) -> T:
    """Apply a store change; broken rules and store problems become one-line errors. `named`:
    the match the person named (--match), and `db` the database (--db), which the way on
    names too; `used`: the match the change was made to, named in a refusal when the person
    named none (the match changed last may be another program's: the app's)."""
    import shlex

    from blitzcam.errors import UserError
    from blitzcam.game.match_model import DecidedMatchError
    from blitzcam.game.rules import MatchError
    from blitzcam.game.store import StoreError

    of = "" if named is not None or used is None else f"match {used} (changed last): "
    try:
        return change()
    except DecidedMatchError as exc:  # (`add` acts on the match changed last: often this one)
        # (without them, `settings` raised the target of the match changed last: another one,
        # or another database's)
        where = "" if db is None else f"--db {shlex.quote(str(db))} "
        which = "" if named is None else f"--match {named} "
        raise UserError(
            f"{of}{exc}: start the next with `blitzcam match {where}new`, or raise the target "
            f"(`blitzcam match {where}{which}settings --target N`) to play on"
        ) from None
    except MatchError as exc:
        raise UserError(f"{of}{exc}") from None
    except StoreError as exc:
        raise store_problem(exc) from None


def store_problem(exc: StoreError) -> UserError:
    """A store's problem as the CLI says it: exit 2, or for a database another program held
    past the wait, BUSY (nothing changed: a script may try again)."""
    from blitzcam.errors import BUSY, UserError

    return UserError(str(exc), exit_code=BUSY if exc.busy else 2)


@dataclass
class Saving:
    """Whether a command's change is saved yet (`saving_guard`), and the lines that must reach the
    person even when its output cannot (an undo's "to put it back", the only copy of the
    round it deleted)."""

    done: bool = False
    kept: list[str] = field(default_factory=list)


@contextmanager
def saving_guard() -> Iterator[Saving]:
    """Around a command that saves a change and then closes the store and prints: a Ctrl+C
    once it is saved says so ("interrupted" alone had the round entered again, twice in the
    match, or an undo run again taking a second round), and so does output that cannot be
    written (to a full disk: "cannot write the output" alone, and the undo's line to put the
    round back lost). The block sets `done` as the store's call returns; the store itself says
    so for an interrupt in its commit."""
    from blitzcam.errors import OutputError, SavedThenInterrupted, UserError

    saving = Saving()
    try:
        yield saving
        if saving.done:  # (output to a file is buffered: a full disk fails here, not at print)
            sys.stdout.flush()
    except KeyboardInterrupt as exc:
        if saving.done and not isinstance(exc, SavedThenInterrupted):
            raise SavedThenInterrupted() from None
        raise
    except OutputError as exc:
        if not saving.done:
            raise
        for line in saving.kept:  # (standard error, where the error itself goes)
            print(line, file=sys.stderr)
        raise UserError(f"{exc} (after the change was saved)", exit_code=exc.exit_code) from None
