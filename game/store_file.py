"""The SQLite file behind the match store, and how it is opened, changed and read.

Each change is one transaction, committed with synchronous=FULL in WAL mode before the call
returns: a crash or kill -9 loses at most the change being saved and never leaves half of one.
A file that is not ours is refused, never overwritten; older schemas are migrated after a
backup copy. What is in the file (matches, players, rounds) is game/store.py's.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager, suppress
from pathlib import Path
from typing import Final, Protocol, Self

from blitzcam.errors import SavedThenInterrupted
from blitzcam.game.store_migrations import Migration
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
    write_refused,
)
from blitzcam.paths import not_there, resolved

APPLICATION_ID: Final = 0x424C5A43  # "BLZC": tells our files from any other SQLite file


class StoreError(Exception):
    """The store cannot be used as asked: a foreign or corrupt file, an unknown match.
    `unwritable`: a good file where this program may not write (read-only file, folder or
    medium, a full disk), which may still be read (`MatchStore(..., read_only=True)`);
    `reason`: why, in a few words; `busy`: another program held the file past the wait, and
    nothing was changed (a try later may work, as no other StoreError's would)."""

    def __init__(
        self, message: str, *, unwritable: bool = False, reason: str = "", busy: bool = False
    ) -> None:
        super().__init__(message)
        self.unwritable = unwritable
        self.reason = reason
        self.busy = busy


BUSY_TIMEOUT_MS: Final = 10_000  # how long a change waits for another program's write lock
# with a LockWaiter, how long each try for that lock waits before the waiter is asked again
LOCK_TRY_MS: Final = 100
# the longest path SQLite opens, in bytes: its 512 with "-journal" after the file's name (a
# data folder deep enough to pass it said only "unable to open database file")
SQLITE_PATH_MOST: Final = 512 - len("-journal")
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
            busy=primary == sqlite3.SQLITE_BUSY,
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


class StoreFile:
    """The SQLite file a store keeps: opened safely (never another program's, never of a newer
    blitzcam, migrated after a backup), changed one transaction at a time under the write lock,
    read in snapshots, and its write-ahead log folded back into it."""

    def __init__(
        self,
        path: Path,
        *,
        migrations: Sequence[Migration],
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
        longest = max(_path_bytes(self.path), _path_bytes(real))
        if longest > SQLITE_PATH_MOST:
            raise StoreError(
                f"{self.path}: its path is {longest} bytes long, more than the "
                f"{SQLITE_PATH_MOST} SQLite can open: choose a file in a shorter folder"
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
            refused = None if read_only or exists else write_refused(self.path.parent)
            if refused is not None:  # (SQLite said "unable to open database file")
                raise StoreError(
                    f"{self.path}: cannot make the match database: its folder "
                    f"{self.path.parent} cannot be written ({os.strerror(refused)})"
                ) from None
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
            backup = self.path.with_name(f"{self.path.name}.v{version}.bak")
            if tables:
                self._back_up(backup)
            try:
                for step in self._migrations[version:]:
                    step(self._conn)
            except sqlite3.DatabaseError as exc:
                said = opening_problem(self.path, exc)
                if said.unwritable or said.busy:  # the place's: said as the place's
                    raise
                # (it was "not a usable blitzcam match database ... move it away to start a
                # new one": a good file, of matches an upgrade step could not carry)
                copy = f", and copied to {backup.name} beside it" if tables else ""
                raise StoreError(
                    f"{self.path}: could not be upgraded from schema v{version} to v{latest} "
                    f"({exc}); it was left as it was{copy}: keep it, and open it with the "
                    "blitzcam that wrote it"
                ) from None
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
        if (length := _path_bytes(target)) > SQLITE_PATH_MOST:  # (only its name is longer)
            raise StoreError(
                f"{self.path}: not upgraded: its backup {target} would be {length} bytes long, "
                f"more than the {SQLITE_PATH_MOST} SQLite can open: move the file to a shorter "
                "folder"
            )
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
            primary = place_code(target, exc, needs=_database_bytes(self.path))
            unwritable = primary in UNWRITABLE
            reason = PLACE_SAYS[primary] if unwritable else ""
            raise StoreError(
                f"{self.path}: not upgraded: its backup {target} could not be written: "
                f"{reason or exc}{f' ({exc})' if reason else ''}",
                unwritable=unwritable,
                reason=reason,
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

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def change_mark(self) -> tuple[int, int]:
        """A mark that changes whenever what the file holds may have: a change committed by
        another connection (another blitzcam, `blitzcam match`, a hand edit: SQLite's
        data_version) or by this one (the rows it has changed). Equal marks: nothing changed
        in between, so what was read then still stands."""
        try:
            version = self._conn.execute("PRAGMA data_version").fetchone()[0]
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path} cannot be read: {exc}") from None
        return int(version), self._conn.total_changes

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
            # past the wait (SQLite's words alone said nothing of another program, nor whether
            # the change was kept)
            if place_code(self.path, exc) == sqlite3.SQLITE_BUSY:
                raise StoreError(
                    f"{self.path}: cannot change the match database: "
                    f"{PLACE_SAYS[sqlite3.SQLITE_BUSY]} ({exc}): nothing was saved",
                    busy=True,
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


def _database_bytes(path: Path) -> int:
    """The bytes a whole copy of the database at `path` takes: its file and its write-ahead
    log's, at most (0 for one not there)."""
    total = 0
    for part in (path, path.with_name(path.name + "-wal")):
        with suppress(OSError):
            total += part.stat().st_size
    return total


def _path_bytes(path: Path) -> int:
    """How long `path` is, absolute, as SQLite measures it: in bytes, its `..` taken away."""
    return len(os.fsencode(os.path.normpath(path.absolute())))


def _busy(exc: sqlite3.Error) -> bool:
    """Whether SQLite said another connection held it off (busy, locked): no failure."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:
        return "locked" in str(exc) or "busy" in str(exc)
    return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
