"""The match store's schema and its migrations: how each older file is brought to this
blitzcam's schema, step by step, inside the store's upgrade transaction (store_file.py backs
the file up first and runs them)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any, Final

from blitzcam.game import rules
from blitzcam.game.names import MAX_NAME_LENGTH, is_name_character, written_name

Migration = Callable[[sqlite3.Connection], None]


def _run_script(conn: sqlite3.Connection, script: str) -> None:
    # executescript() would COMMIT the open transaction; a migration must stay inside it.
    for statement in script.split(";"):
        if statement.strip():
            conn.execute(statement)


def _schema_v1(conn: sqlite3.Connection) -> None:
    _run_script(
        conn,
        """
        CREATE TABLE matches (
            id INTEGER PRIMARY KEY,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            target INTEGER NOT NULL CHECK (target > 0),
            variant TEXT NOT NULL CHECK (variant IN ('standard', 'play-out'))
        );
        CREATE TABLE players (
            match_id INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
            seat INTEGER NOT NULL,
            name TEXT NOT NULL,
            deck TEXT NOT NULL,
            team TEXT,
            PRIMARY KEY (match_id, seat)
        );
        CREATE TABLE tallies (
            match_id INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
            round INTEGER NOT NULL,
            seat INTEGER NOT NULL,
            dutch INTEGER NOT NULL,
            blitz INTEGER NOT NULL,
            PRIMARY KEY (match_id, round, seat)
        );
        CREATE INDEX matches_by_update ON matches (updated_at);
        """,
    )


def _kept_apart(names: Sequence[str], tidy: Callable[[str], str]) -> dict[str, str]:
    """Each of the distinct `names` (in seat order) to its tidied form. Names an older release
    told apart stay apart: one whose form is taken gets a number ('Red (2)'), and names that
    need no tidying keep theirs first. A name that tidies to nothing is left for loading to
    report."""
    fixed: dict[str, str] = {}
    taken: set[str] = set()
    for name in sorted(names, key=lambda name: tidy(name) != name):  # stable: seat order kept
        base = tidy(name)
        if not base:
            fixed[name] = name
            continue
        candidate, number = base, 2
        while candidate in taken:
            suffix = f" ({number})"
            candidate = base[: MAX_NAME_LENGTH - len(suffix)].rstrip() + suffix
            number += 1
        taken.add(candidate)
        fixed[name] = candidate
    return fixed


def _rename_in_each_match(
    conn: sqlite3.Connection, column: str, tidy: Callable[[str], str]
) -> None:
    """`column` ('name' or 'team') of every match's players tidied, kept apart per match."""
    seen: dict[int, list[str]] = {}
    rows = conn.execute(f"SELECT match_id, {column} FROM players ORDER BY match_id, seat")
    for match_id, value in rows.fetchall():
        if isinstance(value, str) and value not in seen.setdefault(match_id, []):
            seen[match_id].append(value)
    for match_id, values in seen.items():
        for old, new in _kept_apart(values, tidy).items():
            if new != old:
                conn.execute(
                    f"UPDATE players SET {column} = ? WHERE match_id = ? AND {column} = ?",
                    (new, match_id, old),
                )


def _tidy_team(team: str) -> str:
    printable = "".join(ch if is_name_character(ch) else " " for ch in team).strip()
    return printable[:MAX_NAME_LENGTH].strip()


def _v2_team_names_and_targets(conn: sqlite3.Connection) -> None:
    """Matches saved before team names were held to the rules of player names, and targets to
    at most rules.MAX_TARGET, brought within them so that they still load: a team name loses
    its unprintable characters and outer spaces and is cut to MAX_NAME_LENGTH; a larger
    target becomes the largest (no match gets near either). Teams the older release scored
    apart ('North' and 'North ') stay apart, numbered ('North (2)'): made one, a two-player
    team match had one team and could not load. (Changed after release to keep them apart;
    a file this step already upgraded is not upgraded again.)"""
    _rename_in_each_match(conn, "team", _tidy_team)
    conn.execute(
        "UPDATE matches SET target = ? WHERE target > ?", (rules.MAX_TARGET, rules.MAX_TARGET)
    )


def _v3_names_composed(conn: sqlite3.Connection) -> None:
    """Names and teams in Unicode's composed form (written_name), as they are kept from
    now on; two that were one name written two ways stay two players (or teams), numbered."""
    _rename_in_each_match(conn, "name", _composed)
    _rename_in_each_match(conn, "team", _composed)


def _composed(name: str) -> str:
    # a few letters (Devanagari with a nukta, some Hebrew forms) take two characters composed:
    # cut back to the longest name there is, or the match would no longer load
    return written_name(name)[:MAX_NAME_LENGTH].strip()


def tidied_as_migrated(data: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """A match file's JSON as the store's migrations would have left the match it is an export
    of: team names tidied (v2), names and teams composed (v3), each kept apart from the others
    of its match, and a target over MAX_TARGET lowered to it; and what was changed, in words.
    An export of a match an older blitzcam stored ('North ' beside 'North', José written two
    ways) is then read as the store upgraded reads that match. Whatever is not as a match file
    has it is left as it is, for reading to refuse with its reason."""
    players = data.get("players")
    if not isinstance(players, list) or not all(isinstance(p, dict) for p in players):
        return data, []
    said: list[str] = []

    def values(key: str) -> list[str]:
        return list(dict.fromkeys(p[key] for p in players if isinstance(p.get(key), str)))

    names = _kept_apart(values("name"), _composed)
    teams_tidied = _kept_apart(values("team"), _tidy_team)
    teams_composed = _kept_apart(list(dict.fromkeys(teams_tidied.values())), _composed)
    teams = {old: teams_composed[new] for old, new in teams_tidied.items()}
    # each said by its seats: a name written two ways looks the same both ways
    for index, player in enumerate(players):
        old = player.get("name")
        if isinstance(old, str) and names[old] != old:
            said.append(f"players[{index}] {old!r} is {names[old]!r}")
    for old, new in teams.items():
        if new != old:
            held = [f"players[{i}]" for i, p in enumerate(players) if p.get("team") == old]
            said.append(f"the team {old!r} ({', '.join(held)}) is {new!r}")
    seats = []
    for player in players:
        seat = dict(player)
        for key, renamed in (("name", names), ("team", teams)):
            if isinstance(seat.get(key), str):
                seat[key] = renamed[seat[key]]
        seats.append(seat)
    tidied = {**data, "players": seats}
    rounds = data.get("rounds")
    if isinstance(rounds, list):
        tidied["rounds"] = [
            {names.get(name, name): tally for name, tally in round_.items()}
            if isinstance(round_, dict)
            else round_
            for round_ in rounds
        ]
    target = data.get("target")
    if isinstance(target, int) and not isinstance(target, bool) and target > rules.MAX_TARGET:
        tidied["target"] = rules.MAX_TARGET
        said.append(f"the target {target:,} is {rules.MAX_TARGET:,}, the largest")
    return tidied, said


def _v4_players_join_and_leave(conn: sqlite3.Connection) -> None:
    """Players who join or leave a match under way (rules.Player.joined, .left, .start); every
    stored player sat from the first round, from 0 points, and is still playing."""
    _run_script(
        conn,
        """
        ALTER TABLE players ADD COLUMN joined INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE players ADD COLUMN left_after INTEGER;
        ALTER TABLE players ADD COLUMN start_points INTEGER NOT NULL DEFAULT 0
        """,
    )


def _v5_rounds_sat_out(conn: sqlite3.Connection) -> None:
    """Players who left and came back to their seat (rules.Player.sat_out): the rounds they sat
    out, as the store writes them (`store._sat_out_text`); every stored player sat out none."""
    _run_script(conn, "ALTER TABLE players ADD COLUMN sat_out TEXT NOT NULL DEFAULT ''")


def _v6_match_numbers_never_reused(conn: sqlite3.Connection) -> None:
    """The highest match number ever given, kept: once matches could be deleted (the app's
    browser, `blitzcam match delete`), SQLite gave the next new match the number of the one
    deleted last, and "match 3" in notes, exports and another open window named another."""
    _run_script(
        conn,
        """
        CREATE TABLE match_numbers (highest INTEGER NOT NULL);
        INSERT INTO match_numbers (highest) SELECT coalesce(max(id), 0) FROM matches
        """,
    )


# a file of v5 reads as one of v6: only new matches are numbered otherwise
_v6_match_numbers_never_reused.reads_as_before = True  # type: ignore[attr-defined]


# Position i migrates schema version i to i + 1. Append only; edit a released step only so
# that more matches load (a file it has upgraded is never upgraded by it again).
MIGRATIONS: Final[tuple[Migration, ...]] = (
    _schema_v1,
    _v2_team_names_and_targets,
    _v3_names_composed,
    _v4_players_join_and_leave,
    _v5_rounds_sat_out,
    _v6_match_numbers_never_reused,
)
