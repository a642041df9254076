"""The match store: every match, its players, settings and rounds in one SQLite file.

Shared by the CLI and the app. Each change is one transaction, committed with
synchronous=FULL in WAL mode before the call returns: a crash or kill -9 loses at
most the change being saved and never leaves half a round. A file that is not ours
is refused, never overwritten; older schemas are migrated (store_migrations.py) after a
backup copy.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import closing, contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Final, Protocol

from blitzcam.errors import SavedThenInterrupted
from blitzcam.game import rules
from blitzcam.game.names import brief
from blitzcam.game.rules import Match, Player, Round, Settings, Standings, Tally
from blitzcam.game.store_migrations import MIGRATIONS, Migration
from blitzcam.game.store_place import (
    PLACE_SAYS,
    READ_ONLY_FILE,
    UNWRITABLE,
    file_identity,
    log_holds_changes,
    no_room,
    place_code,
    read_only_side_files,
    remove_if_empty,
)
from blitzcam.paths import not_there, resolved

APPLICATION_ID: Final = 0x424C5A43  # "BLZC": tells our files from any other SQLite file


def _sat_out_text(rounds: tuple[int, ...]) -> str:
    """'4,5,8': the rounds a player sat out, as the players table holds them."""
    return ",".join(str(n) for n in rounds)


def _sat_out_rounds(text: object) -> tuple[int, ...] | None:
    """The rounds `_sat_out_text` wrote (None: not such a text; a hand edit)."""
    if not isinstance(text, str):
        return None
    try:
        return tuple(int(part) for part in text.split(",")) if text else ()
    except ValueError:
        return None


class StoreError(Exception):
    """The store cannot be used as asked: a foreign or corrupt file, an unknown match.
    `unwritable`: a good file where this program may not write (read-only file, folder or
    medium, a full disk), which may still be read (`MatchStore(..., read_only=True)`);
    `reason`: why, in a few words."""

    def __init__(self, message: str, *, unwritable: bool = False, reason: str = "") -> None:
        super().__init__(message)
        self.unwritable = unwritable
        self.reason = reason


class MissingMatchError(StoreError):
    """No match of that number in the store (deleted, or never there)."""


class StaleMatchError(StoreError):
    """A change was made against a match that another window or process has changed since:
    nothing was written. `current` is the match as it is stored now."""

    def __init__(self, match_id: int, current: Match) -> None:
        super().__init__(
            f"match {match_id} was changed elsewhere (another blitzcam window, or "
            f"`blitzcam match`) since it was read; nothing was saved"
        )
        self.match_id = match_id
        self.current = current


@dataclass(frozen=True, slots=True)
class MatchSummary:
    """One line of the match list."""

    match_id: int
    created_at: datetime
    updated_at: datetime
    players: tuple[Player, ...]
    rounds_played: int
    standings: Standings


def _utc_now() -> datetime:
    return datetime.now(UTC)


BUSY_TIMEOUT_MS: Final = 10_000  # how long a change waits for another program's write lock
# with a LockWaiter, how long each try for that lock waits before the waiter is asked again
LOCK_TRY_MS: Final = 100
WAL_SWITCH_RETRY_S: Final = 0.02  # how often a switch to write-ahead logging is tried while locked
# how long a saved change waits for readers to finish before folding it into the file (a
# `list` of a few thousand matches reads for about a second: past this, a later close does it)
CHECKPOINT_WAIT_MS: Final = 300


def opening_problem(path: Path, exc: sqlite3.DatabaseError) -> StoreError:
    """What to tell someone whose match database did not open: a good file in a read-only
    folder (SQLite needs to write its -wal and -shm files beside it) is not a bad file, and
    must not be called one they should move away. Nor is one on a full disk, where SQLite
    says only "disk I/O error" when it cannot make its -shm file."""
    primary = place_code(path, exc)
    if primary in PLACE_SAYS:
        return StoreError(
            f"{path}: cannot use the match database: {PLACE_SAYS[primary]} ({exc})",
            unwritable=primary in UNWRITABLE,
            reason=PLACE_SAYS[primary],
        )
    return StoreError(
        f"{path}: not a usable blitzcam match database ({exc}); "
        "it was left untouched — move it away to start a new one"
    )


class LockWaiter(Protocol):
    """Told while a change waits for the write lock another program holds (a `blitzcam match`
    in a terminal, a database browser in the middle of a change): the app keeps its window
    drawn and offers to stop waiting, the CLI says why it is not done yet, where SQLite's own
    wait said nothing for up to BUSY_TIMEOUT_MS."""

    def starting(self) -> None:
        """A change is about to take the lock (from here until `done`, it may wait)."""
        ...

    def waiting(self, waited_s: float) -> bool:
        """Still waiting after `waited_s` seconds: whether to wait on."""
        ...

    def done(self) -> None:
        """The change has the lock, or will not have it (taken, refused or given up); after
        each `starting`."""
        ...


# the most recently changed first; a date SQLite cannot read (a hand-edited 'garbage' sorted
# above every date, the match "changed last" for good) after every other
LATEST_FIRST: Final = "julianday(updated_at) IS NULL, updated_at DESC, id DESC"


class MatchStore:
    """Thin I/O around the pure rules: load a match, apply a rule function, write it back."""

    def __init__(
        self,
        path: Path,
        *,
        clock: Callable[[], datetime] = _utc_now,
        migrations: Sequence[Migration] = MIGRATIONS,
        read_only: bool = False,
        lock_waiter: LockWaiter | None = None,
    ) -> None:
        """`read_only`: read the file as it is, writing nothing beside it (an archived copy,
        a read-only folder or medium): no change is taken, and a file that would need an
        upgrade, or whose write-ahead log holds changes not yet in it, is refused.
        `lock_waiter` (also settable later): told while a change waits for another program's
        write lock."""
        self.path = Path(path)
        self.read_only = read_only
        self.lock_waiter = lock_waiter
        # why the latest changes are only in the write-ahead log (`-wal` beside the file), not
        # in the file itself, where folding them in failed (a full disk); None when they are in
        self.unfolded: str | None = None
        self._clock = clock
        self._migrations = tuple(migrations)
        try:  # is_dir raises, rather than answer False, for a name too long or a folder shut
            exists, is_folder, is_file = (
                self.path.exists(),
                self.path.is_dir(),
                self.path.is_file(),
            )
            real = resolved(self.path)  # a loop of links: OSError (exists said False)
        except OSError as exc:
            raise StoreError(f"{self.path}: cannot reach it ({exc.strerror or exc})") from None
        if is_folder:
            raise StoreError(f"{self.path}: is a directory, expected a match database file")
        if not exists and self.path.is_symlink() and not real.parent.is_dir():
            # (a drive not plugged in: "unable to open database file"; a link made to where
            # the first database is to be is taken, its folder there)
            raise StoreError(
                f"{self.path}: {not_there(self.path)}, in no folder that is there (a drive not "
                "plugged in?)"
            )
        if exists and not is_file:  # (SQLite would leave a -journal file beside /dev/null)
            raise StoreError(
                f"{self.path}: is not a regular file (a device, pipe or socket), expected a "
                "match database file"
            )
        if exists and not read_only and not os.access(real, os.W_OK):
            # (else SQLite opens it read-only unasked: each change fails, a "-wal" note says rounds
            # are unfolded where none are, and the -wal and -shm files it leaves read-only
            # beside it refuse changes after the file is made writable)
            raise StoreError(
                f"{self.path}: cannot use the match database: {READ_ONLY_FILE}",
                unwritable=True,
                reason=READ_ONLY_FILE,
            )
        if exists and not read_only and (sides := read_only_side_files(real)) is not None:
            raise StoreError(
                f"{self.path}: cannot use the match database: {sides}",
                unwritable=True,
                reason=sides.partition(" (")[0],
            )
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"{self.path}: cannot make its folder {self.path.parent} ({exc.strerror or exc})"
            ) from None
        # the file a failed first opening leaves empty: a link to one yet to be made is the
        # user's and stays, the file it names goes
        made_here = None if read_only or exists else real
        try:
            self._conn = (
                self._read_only_connection()
                if read_only
                else sqlite3.connect(
                    self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None
                )
            )
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot open the match database: {exc}") from None
        self._opened = file_identity(self.path)  # (SQLite made the file, if new, in opening)
        try:
            if read_only:
                self._check_current()
            else:
                self._check_and_migrate()
                self._use_write_ahead_log()
                self._conn.execute("PRAGMA synchronous = FULL")
            self._conn.execute("PRAGMA foreign_keys = ON")
        except BaseException as exc:
            self._conn.close()
            if made_here is not None:
                remove_if_empty(made_here)
            if isinstance(exc, sqlite3.DatabaseError):
                raise opening_problem(self.path, exc) from None
            if isinstance(exc, UnicodeDecodeError):
                # (SQLite's own message named a damaged schema's bytes, which Python could not
                # read as text: a traceback, for every command)
                raise StoreError(
                    f"{self.path}: not a usable blitzcam match database (its schema is damaged: "
                    "bytes that are not text); it was left untouched — move it away to start a "
                    "new one"
                ) from None
            raise

    # --- opening -----------------------------------------------------------------------

    def _read_only_connection(self) -> sqlite3.Connection:
        """The file opened as it is (SQLite's `immutable`: a write-ahead-log database read
        read-only otherwise needs its -shm file written beside it); StoreError when its log
        holds changes the file lacks (a crash while it was open), which that would not see."""
        log = self.path.with_name(self.path.name + "-wal")
        try:
            pending = log.stat().st_size > 0
        except FileNotFoundError:
            pending = False
        except OSError as exc:
            raise StoreError(f"{log}: cannot reach it ({exc.strerror or exc})") from None
        real = resolved(self.path)
        if pending and os.access(real.parent, os.W_OK):
            # a file alone read-only (a backup restored so) whose log holds its newest rounds:
            # read with them, SQLite's own read-only way, its -shm made in the folder (read
            # `immutable`, it is refused)
            uri = f"{real.as_uri()}?mode=ro"
            return sqlite3.connect(uri, uri=True, isolation_level=None)
        if pending:
            raise StoreError(
                f"{self.path}: cannot be written here, and its {log.name} file holds changes "
                "not yet in it: open it once where it can be written"
            )
        uri = f"{real.as_uri()}?mode=ro&immutable=1"
        return sqlite3.connect(uri, uri=True, isolation_level=None)

    def _use_write_ahead_log(self) -> None:
        """Switch the file to write-ahead logging, waiting for the lock as a change does: the
        switch needs the file to itself, and while another connection holds the write lock
        SQLite refuses it at once, unwaited ("database is locked"): the app and the CLI opening
        a new file together had one of them refused so."""
        waited_until = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        while True:
            try:
                self._conn.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() >= waited_until:
                    raise
            time.sleep(WAL_SWITCH_RETRY_S)

    def _check_current(self) -> None:
        """StoreError unless the file is of this blitzcam's schema (read-only: none can be
        upgraded)."""
        version, tables = self._checked_version()
        if not tables:
            raise StoreError(f"{self.path}: holds no matches yet (an empty database)")
        # (steps that change only how the file is written are no reason to refuse reading it:
        # archives, read-only media and full disks stayed readable across them)
        if not all(getattr(step, "reads_as_before", False) for step in self._migrations[version:]):
            raise StoreError(
                f"{self.path}: was written by an older blitzcam (schema v{version}), and cannot "
                "be upgraded here, where it cannot be written: open it once where it can"
            )

    def _check_and_migrate(self) -> None:
        latest = len(self._migrations)
        if self._checked_version()[0] == latest:
            return
        with self._transaction(as_store_errors=False):
            # again under the write lock: the app and the CLI started together may both have
            # found the file new (or old), and the first to get here has set it up since
            version, tables = self._checked_version()
            if version == latest:
                return
            if tables:
                self._back_up(self.path.with_name(f"{self.path.name}.v{version}.bak"))
            for step in self._migrations[version:]:
                step(self._conn)
            self._conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            self._conn.execute(f"PRAGMA user_version = {latest}")

    def _checked_version(self) -> tuple[int, int]:
        """The file's schema version and how many tables it holds; StoreError for a file of
        another program or of a newer blitzcam. A new, empty file is version 0."""
        # one statement, so one snapshot: read one by one, the app and the CLI opening a new
        # file together could read its id before the other's setup and its tables after, and
        # refuse it as another program's (16 of 600 openings, six at a time)
        app_id, version, tables = self._conn.execute(
            "SELECT (SELECT application_id FROM pragma_application_id()),"
            " (SELECT user_version FROM pragma_user_version()),"
            " (SELECT count(*) FROM sqlite_master)"
        ).fetchone()
        latest = len(self._migrations)
        if app_id == 0 and tables == 0 and version == 0:
            return 0, 0  # a new, empty file: ours to set up
        if app_id != APPLICATION_ID:
            raise StoreError(
                f"{self.path}: is an SQLite file of another program (application id {app_id:#x}), "
                "not a blitzcam match database; it was left untouched"
            )
        if version > latest:
            raise StoreError(
                f"{self.path}: was written by a newer blitzcam (schema v{version}; this one knows "
                f"up to v{latest}); update blitzcam to open it"
            )
        return int(version), int(tables)

    def _back_up(self, target: Path) -> None:
        """A whole copy of the database before it is migrated (migrations are tested, but a
        copy costs little), made by SQLite itself: rounds still in the write-ahead log, which a
        file copy would miss, are in it. Read through a second connection, since this one holds
        the write lock (which keeps other writers out while the copy is made)."""
        try:
            target.unlink(missing_ok=True)
            with (
                closing(sqlite3.connect(self.path, timeout=10.0)) as source,
                closing(sqlite3.connect(target)) as copy,
            ):
                source.backup(copy)
        except (OSError, sqlite3.Error) as exc:
            with suppress(OSError):  # a half-written copy is no backup (a full disk left 0 bytes)
                target.unlink(missing_ok=True)
            # a read-only medium or folder, or a full disk, is the place's: the file may still
            # be read as it is (an archived older store's `show` and `export` were refused)
            primary = place_code(target, exc)
            unwritable = primary in UNWRITABLE
            raise StoreError(
                f"{self.path}: not upgraded: its backup {target} could not be written ({exc})",
                unwritable=unwritable,
                reason=PLACE_SAYS[primary] if unwritable else "",
            ) from None

    @property
    def schema_version(self) -> int:
        return int(self._conn.execute("PRAGMA user_version").fetchone()[0])

    def close(self) -> None:
        # a change whose checkpoint a reader held off (another program in the middle of a read)
        # is folded into the file here, by whoever closes next: a `list` from another terminal
        # did, or nothing did until the next change (SQLite's own checkpoint at closing runs
        # only for the file's last connection, and the app keeps one open)
        if not self.read_only:
            self._checkpoint(wait_ms=0)
        self._conn.close()

    def __enter__(self) -> MatchStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _transaction(self, *, as_store_errors: bool = True) -> Iterator[sqlite3.Connection]:
        """One change, all or nothing. SQLite's own errors (a writer holding the lock past the
        timeout, a full disk) become StoreErrors, unless `as_store_errors` is False (opening
        the file, whose caller says what is wrong with it)."""
        if self.read_only:
            raise StoreError(f"{self.path}: read as it is (it cannot be written here): no change")
        try:
            self._begin_change()
        except sqlite3.Error as exc:
            if not as_store_errors:
                raise
            if place_code(self.path, exc) == 5:  # SQLITE_BUSY, past the wait (SQLite's words
                # alone said nothing of another program, nor whether the change was kept)
                raise StoreError(
                    f"{self.path}: cannot change the match database: {PLACE_SAYS[5]} ({exc}): "
                    "nothing was saved"
                ) from None
            raise StoreError(
                f"{self.path}: cannot change the match database: {no_room(self.path, exc)}"
            ) from None
        if (elsewhere := self.not_the_file_opened()) is not None:
            self._rollback()
            raise StoreError(f"{self.path}: the change was not saved: {elsewhere}")
        committing = False
        try:
            yield self._conn
            committing = True
            self._conn.execute("COMMIT")
        except BaseException as exc:
            if committing and not self._conn.in_transaction and isinstance(exc, KeyboardInterrupt):
                raise SavedThenInterrupted() from None  # Python raises it once COMMIT returned
            self._rollback()
            if as_store_errors and isinstance(exc, sqlite3.Error):
                said = no_room(self.path, exc)
                raise StoreError(f"{self.path}: the change was not saved: {said}") from None
            raise
        try:
            self._checkpoint(wait_ms=CHECKPOINT_WAIT_MS)
        except KeyboardInterrupt:  # (its disk sync is as long as the commit's)
            raise SavedThenInterrupted() from None

    def not_the_file_opened(self) -> str | None:
        """Why the file at `path` is not the one this store opened (deleted, moved, or another
        put in its place: a backup restored, a sync), or None. SQLite goes on writing the file
        it opened: every round saved after a deletion was lost at quitting, said saved."""
        if os.name != "posix":  # (Windows refuses to delete or replace a file held open)
            return None
        now = file_identity(self.path)
        if now == self._opened:
            return None
        happened = "was deleted or moved" if now is None else "was replaced by another file"
        return (
            f"the match database {happened} since blitzcam opened it; what is shown is the "
            "file as opened: export the match to keep it, then start blitzcam again to use "
            f"what is at {self.path} now"
        )

    def _begin_change(self) -> None:
        """Take the write lock, waiting up to BUSY_TIMEOUT_MS for another program to let it go:
        in SQLite's own wait, or in tries of LOCK_TRY_MS between which the lock waiter is told
        (StoreError when it stops waiting)."""
        # IMMEDIATE takes the write lock up front: the CLI and the app never interleave a change.
        waiter = self.lock_waiter
        if waiter is None:
            self._conn.execute("BEGIN IMMEDIATE")
            return
        waiter.starting()
        started = time.monotonic()
        try:
            with self._waiting_at_most(LOCK_TRY_MS):
                while True:
                    try:
                        self._conn.execute("BEGIN IMMEDIATE")
                        return
                    except sqlite3.OperationalError as exc:
                        waited = time.monotonic() - started
                        if not _busy(exc) or waited >= BUSY_TIMEOUT_MS / 1000:
                            raise
                    if not waiter.waiting(waited):
                        raise StoreError(
                            f"{self.path}: the change was not saved: waiting for another "
                            "program to finish writing the match database was stopped"
                        )
        finally:
            waiter.done()

    @contextmanager
    def _waiting_at_most(self, wait_ms: int) -> Iterator[None]:
        """SQLite's wait for another connection's lock set to `wait_ms` inside, and back to
        BUSY_TIMEOUT_MS after."""
        self._conn.execute(f"PRAGMA busy_timeout = {int(wait_ms)}")
        try:
            yield
        finally:
            self._conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")

    def _checkpoint(self, *, wait_ms: int) -> None:
        """Move the changes from the write-ahead log into the database file itself, so that the
        file alone holds every round even while the app keeps it open (a copy of it, or one
        restored over it, missed the rounds still in `-wal`, or had them laid on top). Best
        effort: a reader in the middle of a read (another program holding the file open) past
        `wait_ms` leaves it to whoever closes the file or changes it next, rather than the
        change waiting for the reader."""
        with suppress(sqlite3.Error), self._waiting_at_most(wait_ms):
            try:
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                self.unfolded = None
            except sqlite3.Error as exc:
                # (a full disk: the file could not grow, and a copy of it alone, taken to make
                # room, was "malformed" and lacked the rounds; a reader holding it off is no
                # error, only a checkpoint left for later)
                if not _busy(exc) and log_holds_changes(self.path):
                    self.unfolded = (
                        f"the newest changes are saved in {self.path.name}-wal beside "
                        f"{self.path} but could not be folded into the file itself ({exc}): "
                        f"keep the two files together (a copy of {self.path.name} alone lacks "
                        "them)"
                    )

    def _rollback(self) -> None:
        if self._conn.in_transaction:  # SQLite may have rolled back already (disk full, I/O)
            self._conn.execute("ROLLBACK")

    # --- reading -----------------------------------------------------------------------

    @contextmanager
    def _reading(self, what: str) -> Iterator[sqlite3.Connection]:
        """Reads that see one state of the file: in WAL mode a read transaction is one snapshot,
        so a change the app or the CLI commits meanwhile is seen whole or not at all (a new
        target with the old rounds could read as a match won). Inside a change's transaction,
        that one. SQLite's own errors (a damaged page) become a StoreError naming `what`."""
        conn = self._conn
        outer = conn.in_transaction
        try:
            if not outer:
                conn.execute("BEGIN")
            try:
                yield conn
            finally:
                if not outer and conn.in_transaction:
                    conn.execute("ROLLBACK")  # nothing was written: just let the snapshot go
        except sqlite3.Error as exc:
            raise StoreError(f"{what} in {self.path} cannot be read: {exc}") from None

    def _no_match(self, match_id: int) -> StoreError:
        return MissingMatchError(f"no match {match_id} in {self.path}")

    def _known_id(self, match_id: int) -> int:
        """`match_id` if SQLite can hold it (a larger one is no match of ours: SQLite would
        raise OverflowError for it), else the "no match" StoreError."""
        if not 0 < match_id < 2**63:
            raise self._no_match(match_id)
        return match_id

    def _read_readable(self, match_id: int) -> Match:
        """`_read_match`, rows edited into nonsense (a seat nobody sits in, a wrong type) or
        pages SQLite cannot read made a StoreError naming the match."""
        try:
            with self._reading(f"match {match_id}"):
                return self._read_match(match_id)
        except (IndexError, KeyError, TypeError, ValueError) as exc:
            raise StoreError(f"match {match_id} in {self.path} cannot be read: {exc}") from None

    def _read_match(self, match_id: int) -> Match:
        conn = self._conn
        row = conn.execute(
            "SELECT target, variant FROM matches WHERE id = ?", (self._known_id(match_id),)
        ).fetchone()
        if row is None:
            raise self._no_match(match_id)
        settings = Settings(target=row[0], variant=row[1])
        seats = {}
        for seat, name, deck, team, joined, left, start, sat_out in conn.execute(
            "SELECT seat, name, deck, team, joined, left_after, start_points, sat_out "
            "FROM players WHERE match_id = ? ORDER BY seat",
            (match_id,),
        ):
            away = _sat_out_rounds(sat_out)
            if away is None:
                raise StoreError(
                    f"match {match_id} in {self.path} cannot be read: seat {seat} sat out "
                    f"{brief(sat_out)}, not a list of round numbers"
                )
            seats[seat] = Player(
                name, deck, team, joined=joined, left=left, start=start, sat_out=away
            )
        players = tuple(seats.values())
        rounds: dict[int, dict[str, Tally]] = {}
        for number, seat, dutch, blitz in conn.execute(
            "SELECT round, seat, dutch, blitz FROM tallies WHERE match_id = ? ORDER BY round, seat",
            (match_id,),
        ):
            if seat not in seats:  # a hand-edited file: by position, -1 would be the last seat
                raise StoreError(
                    f"match {match_id} in {self.path} cannot be read: round {number} has a "
                    f"tally for seat {seat}, where no player sits"
                )
            rounds.setdefault(number, {})[seats[seat].name] = Tally(dutch=dutch, blitz=blitz)
        if list(rounds) != list(range(1, len(rounds) + 1)):
            raise StoreError(f"match {match_id} in {self.path}: rounds are not numbered 1..n")
        return Match(
            players=players, settings=settings, rounds=tuple(Round(t) for t in rounds.values())
        )

    def load(self, match_id: int) -> Match:
        """One match, checked against the rules (a hand-edited file is caught here)."""
        return self._load_scored(match_id)[0]

    def _load_scored(self, match_id: int) -> tuple[Match, rules.Standings]:
        """A match and its standings: scoring it is the rules' check."""
        match = self._read_readable(match_id)
        try:
            return match, rules.score_match(match)
        except rules.MatchError as exc:
            raise StoreError(f"match {match_id} in {self.path} breaks the rules: {exc}") from None

    def list_matches(self, *, problems: list[str] | None = None) -> list[MatchSummary]:
        """Every match, the most recently changed first.

        A match that cannot be read (a hand-edited row that breaks the rules) raises StoreError;
        with `problems`, it is left out and its one-line message appended there instead, so
        that one damaged match does not hide all the others."""
        summaries = []
        with self._reading("the list of matches") as conn:  # every match from one snapshot
            rows = conn.execute(
                f"SELECT id, created_at, updated_at FROM matches ORDER BY {LATEST_FIRST}"
            ).fetchall()
            for match_id, created, updated in rows:
                try:
                    summaries.append(self._summary(match_id, created, updated))
                except StoreError as exc:
                    if problems is None:
                        raise
                    problems.append(str(exc))
        return summaries

    def _summary(self, match_id: int, created: object, updated: object) -> MatchSummary:
        match, standings = self._load_scored(match_id)
        try:
            created_at = datetime.fromisoformat(created)  # type: ignore[arg-type]
            updated_at = datetime.fromisoformat(updated)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise StoreError(f"match {match_id} in {self.path}: its dates cannot be read") from None
        return MatchSummary(
            match_id=match_id,
            created_at=created_at,
            updated_at=updated_at,
            players=match.players,
            rounds_played=len(match.rounds),
            standings=standings,
        )

    def latest_match(self) -> int | None:
        """The match changed last, whatever its status."""
        with self._reading("the list of matches") as conn:
            row = conn.execute(f"SELECT id FROM matches ORDER BY {LATEST_FIRST} LIMIT 1").fetchone()
        return None if row is None else int(row[0])

    def latest_unfinished(self) -> int | None:
        """The match to resume: the most recently changed one still in progress (matches that
        cannot be read are passed over)."""
        for summary in self.list_matches(problems=[]):
            if summary.standings.status == "in-progress":
                return summary.match_id
        return None

    # --- writing -----------------------------------------------------------------------

    def _stamp(self, conn: sqlite3.Connection) -> str:
        """When a change is made, for `updated_at`, inside the change's transaction: the
        clock's time, or just after the latest change stored when that is later. "The match
        changed last" is the one the commands act on and the app resumes: a change stamped
        while the clock ran fast (a laptop before its clock was set, one corrected after) would
        stay the latest for hours and take the next rounds from the match just started. Times
        then run ahead by as much as the clock did, never out of order (a hybrid logical
        clock)."""
        now = self._clock()
        row = conn.execute(
            "SELECT MAX(updated_at) FROM matches WHERE julianday(updated_at) IS NOT NULL"
        ).fetchone()
        try:
            latest = datetime.fromisoformat(row[0]) if row and row[0] else None
        except (TypeError, ValueError):  # a hand-edited date: loading says so
            latest = None
        if latest is not None and latest.tzinfo is None and now.tzinfo is not None:
            # (a hand-edited date of no zone, read as UTC as SQLite reads it: else one in 2030
            # stays the latest, and every match after it loses its rounds to it)
            latest = latest.replace(tzinfo=UTC)
        comparable = latest is not None and (latest.tzinfo is None) == (now.tzinfo is None)
        if comparable and latest >= now:
            # (a hand-edited date at the end of time stays where it is: one later is none)
            now = (
                latest + timedelta(microseconds=1)
                if latest < latest.max.replace(tzinfo=latest.tzinfo)
                else latest
            )
        return now.isoformat()

    def _insert_players(self, match_id: int, match: Match) -> None:
        self._conn.executemany(
            "INSERT INTO players (match_id, seat, name, deck, team, joined, left_after, "
            "start_points, sat_out) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    match_id,
                    seat,
                    p.name,
                    p.deck,
                    p.team,
                    p.joined,
                    p.left,
                    p.start,
                    _sat_out_text(p.sat_out),
                )
                for seat, p in enumerate(match.players)
            ],
        )

    def _insert_rounds(self, match_id: int, match: Match, first: int) -> None:
        # the seats as stored, not as numbered afresh: a player row deleted by hand leaves a
        # gap, and the next round's tallies would go to the seat numbers after it (a round said
        # saved, the match unreadable from then on)
        seats = dict(
            self._conn.execute("SELECT name, seat FROM players WHERE match_id = ?", (match_id,))
        )
        self._conn.executemany(
            "INSERT INTO tallies (match_id, round, seat, dutch, blitz) VALUES (?, ?, ?, ?, ?)",
            [
                (match_id, number, seats[name], tally.dutch, tally.blitz)
                for number, round_ in enumerate(match.rounds[first - 1 :], start=first)
                for name, tally in round_.tallies.items()
            ],
        )

    def create_match(self, match: Match) -> int:
        """Store a new (or imported) match, rounds included; returns its id."""
        rules.score_match(match)
        with self._transaction() as conn:
            now = self._stamp(conn)
            # one past any number ever given (see _v6_match_numbers_never_reused)
            row = conn.execute(
                "SELECT max(coalesce((SELECT max(id) FROM matches), 0), highest) FROM match_numbers"
            ).fetchone()
            if row is None:  # (emptied by hand: a traceback; numbered on from the matches held)
                row = conn.execute("SELECT coalesce(max(id), 0) FROM matches").fetchone()
                conn.execute("INSERT INTO match_numbers (highest) VALUES (?)", row)
            (highest,) = row
            # (a hand-edited file: text where the number belongs was a traceback, and a
            # fraction was rounded down, unsaid, to number the match; SQLite holds no number
            # past 2**63 - 1)
            if not rules.is_whole_number(highest) or not 0 <= highest < 2**63 - 1:
                raise StoreError(
                    f"{self.path}: holds no usable match number for a new match (the highest "
                    f"given reads {brief(highest)})"
                )
            match_id = highest + 1
            conn.execute(
                "INSERT INTO matches (id, created_at, updated_at, target, variant) "
                "VALUES (?, ?, ?, ?, ?)",
                (match_id, now, now, match.settings.target, match.settings.variant),
            )
            conn.execute("UPDATE match_numbers SET highest = ?", (match_id,))
            self._insert_players(match_id, match)
            self._insert_rounds(match_id, match, first=1)
        return match_id

    def update(
        self, match_id: int, change: Callable[[Match], Match], *, expect: Match | None = None
    ) -> Match:
        """Apply a pure rule function to a stored match in one transaction; a MatchError from
        `change` leaves the store untouched. Only what changed is rewritten. With `expect` (the
        match as the caller last read it), a stored match that differs from it is not changed:
        StaleMatchError, so a window never applies a change to rounds it has not shown. A change
        that changes nothing writes nothing (a round confirmed as it was)."""
        with self._transaction() as conn:
            # (scored first: else a stored match edited into breaking the rules is refused in the
            # rules' words, as if the change asked for were wrong)
            before = self._load_scored(match_id)[0]
            if expect is not None and before != expect:
                raise StaleMatchError(match_id, before)
            after = change(before)  # the rules refuse here, before anything is written
            if after == before:  # nothing to write: nor is it the match changed last
                return before
            if after.settings != before.settings:
                conn.execute(
                    "UPDATE matches SET target = ?, variant = ? WHERE id = ?",
                    (after.settings.target, after.settings.variant, match_id),
                )
            unchanged = 0
            if after.players != before.players:
                # tallies are stored by seat: with the seats changed, every round is rewritten
                conn.execute("DELETE FROM players WHERE match_id = ?", (match_id,))
                self._insert_players(match_id, after)
            else:
                for old, new in zip(before.rounds, after.rounds, strict=False):
                    if old != new:
                        break
                    unchanged += 1
            conn.execute(
                "DELETE FROM tallies WHERE match_id = ? AND round > ?", (match_id, unchanged)
            )
            self._insert_rounds(match_id, after, first=unchanged + 1)
            conn.execute(
                "UPDATE matches SET updated_at = ? WHERE id = ?", (self._stamp(conn), match_id)
            )
        return after

    def add_round(self, match_id: int, round_: Round, *, expect: Match | None = None) -> Match:
        """Save a round; it is on disk when this returns. `expect` as in `update`."""
        return self.update(match_id, lambda match: rules.add_round(match, round_), expect=expect)

    def undo_last_round(self, match_id: int, *, expect: Match | None = None) -> Match:
        def undo(match: Match) -> Match:
            return rules.delete_round(match, rules.last_round(match))

        return self.update(match_id, undo, expect=expect)

    def replace_round(
        self, match_id: int, number: int, round_: Round, *, expect: Match | None = None
    ) -> Match:
        return self.update(
            match_id, lambda match: rules.replace_round(match, number, round_), expect=expect
        )

    def edit_round(
        self,
        match_id: int,
        number: int,
        changes: Mapping[str, Tally],
        *,
        expect: Match | None = None,
    ) -> Match:
        """Correct some players' tallies in round `number`; the others stay as they were."""
        return self.update(
            match_id, lambda match: rules.edit_round(match, number, changes), expect=expect
        )

    def delete_round(self, match_id: int, number: int, *, expect: Match | None = None) -> Match:
        return self.update(match_id, lambda match: rules.delete_round(match, number), expect=expect)

    def change_settings(
        self, match_id: int, settings: Settings, *, expect: Match | None = None
    ) -> Match:
        return self.update(
            match_id, lambda match: rules.change_settings(match, settings), expect=expect
        )

    def join(
        self, match_id: int, player: Player, *, start: int = 0, expect: Match | None = None
    ) -> Match:
        """Seat `player` from the next round on, starting from `start` points (rules.join)."""
        return self.update(
            match_id, lambda match: rules.join(match, player, start=start), expect=expect
        )

    def leave(self, match_id: int, name: str, *, expect: Match | None = None) -> Match:
        """Player `name` leaves the table after the rounds played so far (rules.leave)."""
        return self.update(match_id, lambda match: rules.leave(match, name), expect=expect)

    def come_back(self, match_id: int, name: str, *, expect: Match | None = None) -> Match:
        """Player `name`, who left, back at their seat from the next round (rules.come_back)."""
        return self.update(match_id, lambda match: rules.come_back(match, name), expect=expect)

    def change_players(
        self, match_id: int, players: Iterable[Player], *, expect: Match | None = None
    ) -> Match:
        """Rename players, or give them other decks or teams; each seat keeps its tallies."""
        seated = tuple(players)
        return self.update(
            match_id, lambda match: rules.change_players(match, seated), expect=expect
        )

    def delete_match(self, match_id: int) -> None:
        self._known_id(match_id)
        with self._transaction() as conn:
            # only that it is there: a match damaged by a hand edit can still be deleted
            if conn.execute("SELECT 1 FROM matches WHERE id = ?", (match_id,)).fetchone() is None:
                raise self._no_match(match_id)
            conn.execute("DELETE FROM matches WHERE id = ?", (match_id,))


def _busy(exc: sqlite3.Error) -> bool:
    """Whether SQLite said another connection held it off (busy, locked): no failure."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:
        return "locked" in str(exc) or "busy" in str(exc)
    return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
