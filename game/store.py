"""The match store: every match, its players, settings and rounds in one SQLite file.

Shared by the CLI and the app. Each change reads the match, applies a rule function and writes
back what it changed, in one transaction of the file (game/store_file.py: opened safely,
migrated after a backup, a crash losing at most the change being saved, never half a round).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Final

from blitzcam.game import rules
from blitzcam.game.names import brief
from blitzcam.game.rules import Match, Player, Round, Settings, Standings, Tally
from blitzcam.game.store_file import (
    LockWaiter,
    StoreError,
    StoreFile,
)
from blitzcam.game.store_migrations import MIGRATIONS, Migration


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


# the most recently changed first; a date SQLite cannot read (a hand-edited 'garbage' sorted
# above every date, the match "changed last" for good) after every other
LATEST_FIRST: Final = "julianday(updated_at) IS NULL, updated_at DESC, id DESC"


class MatchStore(StoreFile):
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
        """`clock`: when a change is stamped as made. The rest as `StoreFile` takes them, the
        file's schema steps this blitzcam's (store_migrations.py) unless given."""
        self._clock = clock
        # the list of matches as last read: the file's change mark then, the summaries, and the
        # problems of the matches that could not be read
        self._listed: tuple[tuple[int, int], tuple[MatchSummary, ...], tuple[str, ...]] | None
        self._listed = None
        super().__init__(path, migrations=migrations, read_only=read_only, lock_waiter=lock_waiter)

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

    def read_as_stored(self, match_id: int) -> Match:
        """One match as its rows hold it, not checked against the rules: a match damaged by a
        hand edit, written out to be mended (`load` refuses it). StoreError where its rows
        cannot be read as a match at all."""
        return self._read_readable(match_id)

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
        that one damaged match does not hide all the others. Listed again with nothing changed
        in the file since (`change_mark`), the list is the one read before: each match is read
        and scored to be listed (0.13 s for 500 matches), and the Matches window lists them
        at each return to it."""
        mark = self.change_mark()  # (before the rows: a change in between is seen next time)
        # (inside a change, not: rolled back, it changes neither part of the mark)
        within = self._conn.in_transaction
        if self._listed is not None and self._listed[0] == mark and not within:
            summaries, found = self._listed[1], self._listed[2]
        else:
            summaries, found = self._read_summaries()
            self._listed = None if within else (mark, summaries, found)
        if found and problems is None:
            raise StoreError(found[0])
        if problems is not None:
            problems.extend(found)
        return list(summaries)

    def _read_summaries(self) -> tuple[tuple[MatchSummary, ...], tuple[str, ...]]:
        """Every match's summary, the most recently changed first, and the one-line problems of
        those that cannot be read."""
        summaries, problems = [], []
        with self._reading("the list of matches") as conn:  # every match from one snapshot
            for found in self._each_summary(conn):
                if isinstance(found, StoreError):
                    problems.append(str(found))
                else:
                    summaries.append(found)
        return tuple(summaries), tuple(problems)

    def _each_summary(self, conn: sqlite3.Connection) -> Iterator[MatchSummary | StoreError]:
        """Each match's summary, the most recently changed first, or why it cannot be read
        (its rows, its rules, its dates), as the list and the match to resume both read it."""
        rows = conn.execute(
            f"SELECT id, created_at, updated_at FROM matches ORDER BY {LATEST_FIRST}"
        ).fetchall()
        for match_id, created, updated in rows:
            try:
                yield self._summary(match_id, created, updated)
            except StoreError as exc:
                yield exc

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
        cannot be read are passed over). Read newest first, up to the first in progress: the
        app asks at each start, and most of a household's matches are long finished."""
        with self._reading("the list of matches") as conn:
            # (as the list reads it, dates too: else a match is resumed that it leaves out)
            for found in self._each_summary(conn):
                if isinstance(found, MatchSummary) and found.standings.status == "in-progress":
                    return found.match_id
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
