"""The match JSON format (import, export, `blitzcam match summarize`) and the CSV score sheet.

Parsing is separate from file I/O: `match_from_json` takes decoded JSON, `read_match` adds the file.
Every error names where it is: `players[2]`, `round 3, player Bob`.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import sys
from pathlib import Path
from typing import Any, Final, Literal

from blitzcam.game.names import brief, shown_name
from blitzcam.game.rules import (
    DEFAULT_TARGET,
    MAX_ROUNDS,
    PLAY_OUT_HINT,
    VARIANTS,
    Match,
    MatchError,
    Player,
    Round,
    Settings,
    Standings,
    Tally,
    score_match,
)
from blitzcam.paths import not_there


def _expect_keys(obj: dict[str, Any], *, allowed: set[str], where: str) -> None:
    extra = sorted(set(obj) - allowed)
    if extra:
        more = f" and {len(extra) - 5} more" if len(extra) > 5 else ""
        raise MatchError(f"{where}: unexpected key(s) {', '.join(map(brief, extra[:5]))}{more}")


def _parse_player(raw: object, index: int) -> Player:
    where = f"players[{index}]"
    if not isinstance(raw, dict):
        raise MatchError(f"{where}: expected an object with name and deck, got {brief(raw)}")
    _expect_keys(raw, allowed={"name", "deck", "team", *_SEAT_ROUNDS}, where=where)
    for key in ("name", "deck"):
        if not isinstance(raw.get(key), str):
            raise MatchError(f"{where}: {key!r} must be a string, got {brief(raw.get(key))}")
    team = raw.get("team")
    if team is not None and not isinstance(team, str):
        raise MatchError(f"{where}: 'team' must be a string, got {brief(team)}")
    seat = {key: raw.get(key, default) for key, default in _SEAT_ROUNDS.items()}
    return Player(name=raw["name"], deck=raw["deck"], team=team, **seat)  # the rules check them


# a player who joined or left a match under way, or sat out rounds (rules.Player); written
# only when not these
# the match file's format this blitzcam reads (no key: 1; its files are written without one,
# as earlier ones read them)
FORMAT: Final = 1
_SEAT_ROUNDS: Final = {"joined": 0, "left": None, "start": 0, "sat_out": ()}


def _parse_round(raw: object, number: int) -> Round:
    if not isinstance(raw, dict):
        raise MatchError(
            f"expected an object of player -> counts, got {brief(raw)}", round_number=number
        )
    tallies = {}
    for name, counts in raw.items():
        if not isinstance(counts, dict):
            raise MatchError(
                f'expected {{"dutch": N, "blitz": N}}, got {brief(counts)}',
                round_number=number,
                player=name,
            )
        _expect_keys(
            counts,
            allowed={"dutch", "blitz"},
            where=f"round {number}, player {shown_name(name)}",
        )
        for key in ("dutch", "blitz"):
            if key not in counts:
                raise MatchError(f"missing {key!r}", round_number=number, player=name)
        tallies[name] = Tally(dutch=counts["dutch"], blitz=counts["blitz"])
    try:
        return Round(tallies)
    except MatchError as exc:  # one name written two ways (composed and not)
        raise MatchError(exc.rule, round_number=number, player=exc.player) from None


def json_kind(value: object) -> str:
    """What a decoded JSON value is, in JSON's words (Python's 'NoneType' means nothing to
    one who wrote `null`)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    kinds = ((dict, "an object"), (list, "a list"), (str, "a string"), ((int, float), "a number"))
    return next((kind for types, kind in kinds if isinstance(value, types)), type(value).__name__)


def match_from_json(data: object) -> Match:
    """Decode and validate a match; raises MatchError naming the place of the first problem."""
    if not isinstance(data, dict):
        raise MatchError(f"a match file holds one JSON object, got {json_kind(data)}")
    # (a later blitzcam that writes a key this one does not know says so with "format": a
    # newer file is said as newer, not as a file with an unexpected key)
    form = data.get("format", FORMAT)
    if not isinstance(form, int) or isinstance(form, bool) or form < 1:
        raise MatchError(f"'format' must be a whole number from 1, got {brief(form)}")
    if form > FORMAT:
        raise MatchError(
            f"written by a newer blitzcam (match file format {form}; this one reads up to "
            f"{FORMAT}): update blitzcam to read it"
        )
    _expect_keys(data, allowed={"format", "target", "variant", "players", "rounds"}, where="match")
    target = data.get("target", DEFAULT_TARGET)
    variant = data.get("variant", "standard")
    if variant not in VARIANTS:
        raise MatchError(f"variant must be one of {', '.join(VARIANTS)}, got {brief(variant)}")
    if "players" not in data:  # (said as "got null", a value the file does not hold)
        raise MatchError("missing 'players' (a list of {name, deck})")
    players_raw = data.get("players")
    if not isinstance(players_raw, list):
        raise MatchError(f"'players' must be a list, got {brief(players_raw)}")
    rounds_raw = data.get("rounds", [])
    if not isinstance(rounds_raw, list):
        raise MatchError(f"'rounds' must be a list, got {json_kind(rounds_raw)}")
    if len(rounds_raw) > MAX_ROUNDS:  # (said before each of them is read)
        raise MatchError(f"a match holds at most {MAX_ROUNDS:,} rounds, got {len(rounds_raw):,}")
    players = tuple(_parse_player(raw, i) for i, raw in enumerate(players_raw))
    rounds = tuple(_parse_round(raw, n) for n, raw in enumerate(rounds_raw, start=1))
    match = Match(players=players, settings=Settings(target=target, variant=variant), rounds=rounds)
    try:
        score_match(match)
    except MatchError as exc:  # (the file's to mend: the hint's command changed the settings
        # of the match changed last in the store, another one)
        if not exc.rule.endswith(PLAY_OUT_HINT):
            raise
        in_the_file = '"variant": "play-out" in the file'
        raise MatchError(
            exc.rule.removesuffix(PLAY_OUT_HINT)
            + f" (rounds played out are scored in the play-out variant: {in_the_file})",
            round_number=exc.round_number,
            player=exc.player,
            pile=exc.pile,
        ) from None
    return match


def match_to_json(match: Match) -> dict[str, Any]:
    """The match file's JSON of `match`. A match as stored that breaks the rules (a hand edit)
    is written as it is: a tally missing from a round it was played in is left out there, for
    the hand that mends the file to put back."""
    players = []
    for player in match.players:
        entry: dict[str, Any] = {"name": player.name, "deck": player.deck}
        if player.team is not None:
            entry["team"] = player.team
        for key, default in _SEAT_ROUNDS.items():
            value = getattr(player, key)
            if value != default:
                entry[key] = list(value) if isinstance(value, tuple) else value
        players.append(entry)
    return {
        "target": match.settings.target,
        "variant": match.settings.variant,
        "players": players,
        "rounds": [
            {
                player.name: {
                    "dutch": round_.tallies[player.name].dutch,
                    "blitz": round_.tallies[player.name].blitz,
                }
                for player in match.players
                if player.plays_in(number) and player.name in round_.tallies
            }
            for number, round_ in enumerate(match.rounds, start=1)
        ],
    }


def standings_to_json(standings: Standings) -> dict[str, Any]:
    """The `summarize` output; players in the match's order, as `rules.score_match` keeps it."""
    out: dict[str, Any] = {
        "round_scores": [dict(scores) for scores in standings.round_scores],
        "totals": dict(standings.totals),
    }
    if standings.team_totals is not None:
        out["team_totals"] = dict(standings.team_totals)
    out["status"] = standings.status
    out["winners"] = list(standings.winners)
    return out


# eight players' names and a thousand rounds are some 200 kB
MAX_MATCH_FILE_BYTES: Final = 16 << 20


def read_match(path: Path, *, tidied: list[str] | None = None) -> Match:
    """Read and validate a match file; every error message starts with the file's path
    (`tidied`: as for `match_from_bytes`)."""
    try:
        with path.open("rb") as file:
            data = file.read(MAX_MATCH_FILE_BYTES + 1)
            return match_from_bytes(data, where=str(path), tidied=tidied)
    except FileNotFoundError:
        raise MatchError(f"{path}: {not_there(path)}") from None
    except IsADirectoryError:
        raise MatchError(f"{path}: is a directory, expected a match JSON file") from None
    except OSError as exc:
        raise MatchError(f"{path}: cannot read: {exc.strerror}") from None


def match_from_bytes(data: bytes, *, where: str, tidied: list[str] | None = None) -> Match:
    """A match file's bytes, read with MAX_MATCH_FILE_BYTES + 1 at most (/dev/zero would never
    end), validated; every error message starts with `where` (its path, "standard input").
    With `tidied`, the match is read as the store's migrations leave a match an older blitzcam
    stored (`store_migrations.tidied_as_migrated`), and what that changed is put in it."""
    if len(data) > MAX_MATCH_FILE_BYTES:
        raise MatchError(
            f"{where}: too large for a match file (over {MAX_MATCH_FILE_BYTES >> 20} MiB)"
        )
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        # (as Windows PowerShell 5.1's `>` writes an export: "not UTF-8 text" said nothing of it)
        raise MatchError(
            f"{where}: UTF-16 text, expected a match JSON file in UTF-8 (as `blitzcam match "
            "export FILE.json` writes it; a PowerShell `>` redirect rewrites it as UTF-16)"
        )
    try:
        text = data.decode("utf-8-sig")  # a BOM, as some editors on Windows write
    except UnicodeDecodeError:
        raise MatchError(f"{where}: not UTF-8 text, expected a match JSON file") from None
    if not text.strip():  # ("not valid JSON: Expecting value at line 1" said nothing of why)
        raise MatchError(f"{where}: the file is empty, expected a match JSON file")
    if "\x00" in text:  # UTF-16 without its BOM decodes as UTF-8 with a NUL every other byte
        raise MatchError(f"{where}: not UTF-8 text (UTF-16?), expected a match JSON file")
    if _is_score_sheet(text):  # (kept as the match's backup, it was "not valid JSON")
        raise MatchError(
            f"{where}: a score sheet (CSV), which cannot be read back: a match is imported from "
            "the JSON file `blitzcam match export FILE.json` writes"
        )
    try:
        data = json.loads(text, object_pairs_hook=_without_repeats)
    except json.JSONDecodeError as exc:
        # (the column too: a file written on one line was "at line 1", wherever it went wrong)
        # (some of Python's messages end "starting at": "at at line 1")
        said = exc.msg.removesuffix(" at")
        raise MatchError(
            f"{where}: not valid JSON: {said} at line {exc.lineno}, column {exc.colno}"
        ) from None
    except (ValueError, RecursionError) as exc:  # a number of thousands of digits, deep nesting
        if "integer string conversion" in str(exc):  # (Python's words name its own setting)
            limit = sys.get_int_max_str_digits()
            raise MatchError(f"{where}: holds a number of over {limit:,} digits") from None
        raise MatchError(f"{where}: not a usable match JSON file ({exc})") from None
    if tidied is not None and isinstance(data, dict):
        from blitzcam.game.store_migrations import tidied_as_migrated

        data, changed = tidied_as_migrated(data)
        tidied += changed
    try:
        return match_from_json(data)
    except MatchError as exc:
        raise MatchError(f"{where}: {exc}") from None


def _is_score_sheet(text: str) -> bool:
    """Whether `text` is a score sheet `score_sheet_csv` wrote (its first cell "round"), as a
    spreadsheet saves it again too (";" between cells, the cell quoted)."""
    first = text.lstrip().partition("\n")[0]
    return first.replace('"', "").replace(";", ",").startswith("round,")


def _without_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object as a dict, refusing a key given twice: the last one won, and what the
    first said (a player's tally, the target) was dropped without a word."""
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise ValueError(f"{brief(key)} is given twice in one object")
        seen[key] = value
    return seen


FORMULA_STARTS: Final = ("=", "+", "-", "@", "\t", "\r")


def _as_text(cell: str) -> str:
    """A cell holding text people typed: a spreadsheet would run one starting like a formula
    ('=1+1 dutch'), so it is given a leading apostrophe, which shows it as the text it is."""
    return f"'{cell}" if cell.startswith(FORMULA_STARTS) else cell


def score_sheet_csv(match: Match, standings: Standings | None = None) -> str:
    """The score sheet: one row per round with each player's Dutch, Blitz, score and total,
    then the totals, the target, the variant and the result; a
    latecomer's start is their total in the row of the round they joined after, or in a row of
    its own, "start", for one from before round 1 (the sheet added up on paper: their first
    total was their start and their first score, unsaid)."""
    standings = standings or score_match(match)
    names = [player.name for player in match.players]
    # (round, name) -> the start of a latecomer who joined after that round
    starts = {(p.joined, p.name): p.start for p in match.players if p.joined > 0}
    header = ["round"]
    for name in names:
        header += [_as_text(f"{name} {column}") for column in ("dutch", "blitz", "score", "total")]
    # a team match's running team totals, which decide it (with only its last on the sheet,
    # who reached the target first is the reader's to add up)
    team_totals = standings.team_totals or {}
    teams, team_running = list(team_totals), standings.team_running_totals or ()
    header += [_as_text(f"team {team} total") for team in teams]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    # a start from before round 1 (the round they joined after was deleted since): its own
    # row, or the sheet's first total had 10 points nothing on it explained
    from_the_start = {p.name: p.start for p in match.players if p.joined == 0 and p.start}
    if from_the_start:
        start_row: list[object] = ["start"]
        for name in names:
            start_row += ["", "", "", from_the_start.get(name, "")]
        writer.writerow(start_row + [""] * len(teams))
    for number, (round_, running) in enumerate(
        zip(match.rounds, standings.running_totals, strict=True), start=1
    ):
        row: list[object] = [number]
        for name in names:
            tally = round_.tallies.get(name)  # none: not at the table that round
            if tally is None:
                row += ["", "", "", running.get(name, starts.get((number, name), ""))]
            else:
                row += [tally.dutch, tally.blitz, tally.score, running[name]]
        if teams:
            row += [team_running[number - 1].get(team, "") for team in teams]
        writer.writerow(row)
    total_row: list[object] = ["total"]
    for name in names:
        total_row += ["", "", "", standings.totals[name]]
    writer.writerow(total_row + [team_totals[team] for team in teams])
    if standings.team_totals is not None:
        for team, total in standings.team_totals.items():
            writer.writerow([_as_text(f"team {team}"), total])
    # what the sheet was played to and how it ended (the sheet alone says neither: who won, or
    # that a win was shared, is the reader's to work out)
    from blitzcam.game.text import describe_status

    writer.writerow(["target", match.settings.target])
    writer.writerow(["variant", match.settings.variant])
    writer.writerow(["result", _as_text(describe_status(standings))])
    return buffer.getvalue()


EXPORT_FORMATS: Final = ("json", "csv")
# Excel reads a CSV without a byte-order mark in the system's legacy code page: José and محمد
# come out garbled. Python's csv (utf-8-sig) and LibreOffice read past it.
CSV_BOM: Final = "\ufeff"


def export_text(match: Match, kind: Literal["json", "csv"]) -> str:
    """A match file's content: the match JSON, or the score sheet as CSV for spreadsheets."""
    if kind == "csv":
        return CSV_BOM + score_sheet_csv(match)
    # (names as they are written, not \u escapes: a file to mend by hand, `--as-stored`; the
    # file is UTF-8 wherever it goes)
    return json.dumps(match_to_json(match), indent=2, ensure_ascii=False) + "\n"
