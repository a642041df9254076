"""`blitzcam match`: score a match at the terminal, and the scripted `summarize` contract."""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from blitzcam.commands.deck_option import typed_deck
from blitzcam.commands.match_store import (
    NoStoreError,
    match_id_of,
    open_store,
    run_rule,
    saving_guard,
)
from blitzcam.commands.path_option import (
    STANDARD_INPUT,
    is_stream,
    path_argument,
    path_or_stream,
)
from blitzcam.game.match_model import DEFAULT_TARGET, VARIANTS

if TYPE_CHECKING:
    from blitzcam.game.rules import Match

# (DOTALL: a name holding a newline is the rules' to refuse, with their reason, not "expected
# NAME=DECK")
_PLAYER = re.compile(r"^(?P<name>.+?)=(?P<deck>[a-z]+-[a-z]+)(?:@(?P<team>.+))?$", re.DOTALL)
# ... and one whose deck is no deck's name, read so that the rules say it is unknown rather
# than the spec is not NAME=DECK (a team's own '=' is taken by the strict form first)
_PLAYER_ANY_DECK = re.compile(r"^(?P<name>.+?)=(?P<deck>[^=@]+)(?:@(?P<team>.+))?$", re.DOTALL)
_TALLY = re.compile(r"^(?P<name>.+)=(?P<dutch>-?\d+)/(?P<blitz>-?\d+)$")
PUT_BACK: Final = "to put it back: "  # how an undo's line begins that adds its round again


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("match", help="start and score matches, export, summarize")
    # a `kill` or `timeout` once a change is saved says so, as Ctrl+C does: it exited unsaid,
    # and a script's retry entered the round twice
    parser.set_defaults(interrupt_on_sigterm=True)
    parser.add_argument(
        "--db",
        type=path_argument,
        default=None,
        help="match database (default: in the user's data dir)",
    )
    # `match -m 2 show` as well as `match show -m 2` (it was "invalid choice: '2'", nothing of
    # --match); an action's own --match, given too, must name the same match
    parser.add_argument(
        "--match", "-m", dest="match_before", type=int, default=None, metavar="ID",
        help="match id, for the actions that take one (default: the match changed last)",
    )  # fmt: skip
    parser.add_argument(
        "--json", action="store_true",
        help="print one JSON document instead of text (README: Scoring a match from a script)",
    )  # fmt: skip
    actions = parser.add_subparsers(dest="match_command", metavar="ACTION", required=True)

    def action(name: str, func: Any, help_: str) -> argparse.ArgumentParser:
        sub = actions.add_parser(name, help=help_)  # (its --help's description: cli's)
        sub.set_defaults(func=_without_a_store_yet(func))
        # (after the action too, as --db; summarize prints JSON either way)
        sub.add_argument(
            "--json", dest="json_after", action="store_true", default=argparse.SUPPRESS,
            help="print one JSON document instead of text",
        )  # fmt: skip
        if name != "summarize":  # (which reads a file, no store)
            # `match new --db FILE` as well as `match --db FILE new` (it was "unrecognized
            # arguments", nothing saying where --db goes); its own name: an action's default
            # would overwrite the one given before the action
            sub.add_argument(
                "--db", dest="db_after", type=path_argument, default=argparse.SUPPRESS,
                metavar="FILE", help="match database (default: in the user's data dir)",
            )  # fmt: skip
        return sub

    p = action("summarize", _summarize, "score a match JSON file and print standings as JSON")
    p.add_argument(
        "file", type=path_or_stream, metavar="FILE", help="a match JSON file (-: standard input)"
    )

    p = action("new", _new, "start a match")
    p.add_argument(
        "--player",
        "-p",
        action="append",
        required=True,
        metavar="NAME=DECK[@TEAM]",
        help="a player and their deck, e.g. Ann=green-pump or Ann=green-pump@North (repeat)",
    )
    p.add_argument(
        "--target", type=int, default=None, help=f"points that decide the match ({DEFAULT_TARGET})"
    )
    p.add_argument(
        "--variant",
        choices=VARIANTS,
        default="standard",
        help="standard: a round ends at 'Blitz!' (default); play-out: rounds are played out",
    )

    tallies_help = "a player's cards in the Dutch piles and left in their Blitz pile, e.g. Ann=12/0"
    p = action("add", _add, "add a round: NAME=DUTCH/BLITZ for every player")
    p.add_argument("tallies", nargs="+", metavar="NAME=DUTCH/BLITZ", help=tallies_help)
    _match_option(p)

    p = action("edit", _edit, "correct a round: NAME=DUTCH/BLITZ for the players to change")
    p.add_argument("round", type=int, metavar="ROUND", help="the round's number, from 1")
    p.add_argument("tallies", nargs="+", metavar="NAME=DUTCH/BLITZ", help=tallies_help)
    _match_option(p)

    p = action("delete-round", _delete_round, "delete a round; later rounds move up")
    p.add_argument("round", type=int, metavar="ROUND", help="the round's number, from 1")
    _match_option(p)

    p = action("undo", _undo, "undo the last round")
    _match_option(p)

    # (named by its number, never "the match changed last": it cannot be brought back)
    p = action("delete", _delete, "delete a whole match (see `list` for the numbers)")
    p.add_argument("match_id", type=int, metavar="ID", help="the match's number")

    p = action("settings", _settings, "change the target or variant")
    p.add_argument("--target", type=int, default=None, help="the new target (points)")
    p.add_argument("--variant", choices=VARIANTS, default=None, help="the new variant")
    _match_option(p)

    p = action("player", _player, "rename a player, or give them another deck or team")
    p.add_argument("player", metavar="NAME", help="the player, as the match names them")
    p.add_argument("--name", default=None, help="their new name (their rounds go with them)")
    p.add_argument("--deck", default=None, help="their deck, e.g. blue-plow")
    p.add_argument("--team", default=None, help="their team, in a team match")
    _new_team_option(p)
    _match_option(p)

    p = action("join", _join, "seat a player from the next round on (a match under way)")
    p.add_argument("player", metavar="NAME", help="the new player's name")
    p.add_argument("--deck", required=True, help="their deck: one nobody at the table plays")
    p.add_argument("--team", default=None, help="their team, in a team match")
    _new_team_option(p)
    p.add_argument(
        "--start",
        type=_start_points,
        default=0,
        metavar="POINTS|lowest",
        help="the total they start from: a whole number (default 0), or 'lowest': the lowest "
        "total at the table",
    )
    _match_option(p)

    p = action("leave", _leave, "a player leaves the table; their total stays on the board")
    p.add_argument("player", metavar="NAME", help="the player, as the match names them")
    _match_option(p)

    p = action(
        "rejoin",
        _rejoin,
        "a player who left comes back to their seat, deck and total from the next round (the "
        "rounds played without them are sat out)",
    )
    p.add_argument("player", metavar="NAME", help="the player, as the match names them")
    _match_option(p)

    p = action("show", _show, "show standings, round by round")
    _match_option(p)

    action("list", _list, "list matches, most recent first")

    p = action("export", _export, "write a match as JSON, or its score sheet as CSV")
    p.add_argument(
        "file", type=path_or_stream, metavar="FILE", help="- for standard output (with --format)"
    )
    p.add_argument(
        "--format", choices=("json", "csv"), default=None, help="default: from FILE's extension"
    )
    p.add_argument(
        "--as-stored",
        action="store_true",
        help="write a match that breaks the rules (a hand edit) as it is stored, to mend by "
        "hand and store again with `import` (JSON only)",
    )
    _match_option(p)

    p = action("import", _import, "store a match from a JSON file as a new match")
    p.add_argument("file", type=path_or_stream, metavar="FILE", help="-: standard input")
    p.add_argument(
        "--as-written",
        action="store_true",
        help="seat the players as the file has them, as a stored match loads: a copy of a "
        "match an older blitzcam stored, whose seats `new` and `join` would refuse now",
    )


def _match_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--match",
        "-m",
        type=int,
        default=None,
        metavar="ID",
        help="match id (default: the match changed last)",
    )


# --- helpers ------------------------------------------------------------------------------


def _without_a_store_yet(func: Any) -> Any:
    """`func`, which says "no matches yet" where the data directory holds no match database
    (rather than making an empty one to find nothing in)."""

    def run(args: argparse.Namespace) -> int:
        from blitzcam.errors import UserError
        from blitzcam.game.text import match_list

        after = getattr(args, "db_after", None)
        if after is not None:
            if args.db is not None and args.db != after:
                raise UserError(f"--db is given twice, {args.db} and {after}: give one")
            args.db = after
        args.json = args.json or getattr(args, "json_after", False)
        before = getattr(args, "match_before", None)
        if before is not None:
            if not hasattr(args, "match"):  # (new, list, import, summarize, delete N)
                raise UserError(
                    f"--match {before}: `blitzcam match {args.match_command}` takes no --match"
                )
            if args.match is not None and args.match != before:
                raise UserError(f"--match is given twice, {before} and {args.match}: give one")
            args.match = before
        try:
            return func(args)
        except NoStoreError:
            if func is _list:
                if args.json:
                    _print_json({"matches": [], "unreadable": 0})
                else:
                    print(match_list([], unreadable=0))
                return 0
            raise UserError(match_list([], unreadable=0)) from None

    return run


def _parse_tallies(specs: list[str]) -> dict[str, Any]:
    from blitzcam.errors import UserError
    from blitzcam.game.names import brief, written_name
    from blitzcam.game.rules import Tally

    tallies = {}
    for spec in specs:
        found = _TALLY.match(spec)
        if not found:
            raise UserError(f"{brief(spec)}: expected NAME=DUTCH/BLITZ, e.g. Ann=12/0")
        name = written_name(found["name"])  # 'José' typed either way is one player
        if name in tallies:
            raise UserError(f"{brief(spec)}: {name} is given twice")
        try:
            tallies[name] = Tally(dutch=int(found["dutch"]), blitz=int(found["blitz"]))
        except ValueError:  # thousands of digits: more than int() will read
            raise UserError(f"{brief(spec)}: the counts are far too large") from None
    return tallies


def _print_match(args: argparse.Namespace, match_id: int, match: Any, **change: Any) -> None:
    """The match's table, fit to the terminal's width where it goes to one (to a file or a
    pipe: whole, one line a round); with --json, its document (`match_json.match_document`,
    with what `change` says of the change)."""
    import shutil

    if args.json:
        from blitzcam.commands.match_json import match_document

        _print_json(match_document(match_id, match, **change))
        return

    from blitzcam.game.rules import score_match
    from blitzcam.game.text import standings_table

    try:
        to_a_terminal = sys.stdout.isatty()
    except (AttributeError, OSError, ValueError):  # (closed, or started without one)
        to_a_terminal = False
    columns = shutil.get_terminal_size().columns if to_a_terminal else None
    print(standings_table(match_id, match, score_match(match), columns=columns))


def _print_json(document: dict[str, Any]) -> None:
    json.dump(document, sys.stdout, indent=2)
    sys.stdout.write("\n")


# --- actions ------------------------------------------------------------------------------


def _read_match(file: Path, command: str, *, tidied: list[str] | None = None) -> Match:
    """A match file, or for `-` the one on standard input (`... | blitzcam match summarize -`),
    as the export writes `-` to standard output; `command`: the one reading it, as a hint says
    it ("blitzcam match import"); `tidied`: as `match_file.match_from_bytes` takes it."""
    from blitzcam.commands.path_option import check_piped
    from blitzcam.game.match_file import MAX_MATCH_FILE_BYTES, match_from_bytes, read_match
    from blitzcam.game.rules import MatchError

    if not is_stream(file):
        return read_match(file, tidied=tidied)
    # (a terminal waited for ever, saying nothing; a closed one is said as `count -` says it)
    check_piped("FILE", f"{command} - < match.json", what="a match file")
    try:
        data = sys.stdin.buffer.read(MAX_MATCH_FILE_BYTES + 1)
    except OSError as exc:
        raise MatchError(f"standard input: cannot read: {exc.strerror or exc}") from None
    return match_from_bytes(data, where=STANDARD_INPUT, tidied=tidied)


def _summarize(args: argparse.Namespace) -> int:
    from blitzcam.errors import UserError
    from blitzcam.game.match_file import standings_to_json
    from blitzcam.game.rules import MatchError, score_match

    try:
        match = _read_match(args.file, "blitzcam match summarize")
    except MatchError as exc:
        raise UserError(str(exc)) from None
    json.dump(standings_to_json(score_match(match)), sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


def _new(args: argparse.Namespace) -> int:
    from blitzcam.errors import UserError
    from blitzcam.game.rules import DEFAULT_TARGET, MatchError, Player, Settings, new_match

    players = []
    for spec in args.player:
        found = _PLAYER.match(spec) or _PLAYER_ANY_DECK.match(spec)
        if not found:
            raise UserError(f"--player {spec!r}: expected NAME=DECK or NAME=DECK@TEAM")
        deck = typed_deck(found["deck"])
        players.append(Player(name=found["name"], deck=deck, team=found["team"]))
    settings = Settings(
        target=DEFAULT_TARGET if args.target is None else args.target, variant=args.variant
    )
    try:
        match = new_match(players, settings)
    except MatchError as exc:
        raise UserError(str(exc)) from None
    with saving_guard() as saving:
        with open_store(args, create=True) as store:
            match_id = run_rule(lambda: store.create_match(match))
            saving.done = True
        if args.json:
            _print_match(args, match_id, match)
        else:
            print(
                f"started match {match_id}: " + ", ".join(f"{p.name} ({p.deck})" for p in players)
            )
    _note_target(settings.target)
    return 0


def _note_target(target: int) -> None:
    from blitzcam.game.plausibility import target_note

    note = target_note(target)
    if note is not None:
        print(f"note: {note}", file=sys.stderr)


def _add(args: argparse.Namespace) -> int:
    from blitzcam.game.rules import Round

    tallies = _parse_tallies(args.tallies)
    return _apply(
        args,
        lambda store, match_id: store.add_round(match_id, Round(tallies)),
        checked=lambda match: len(match.rounds),
    )


def _edit(args: argparse.Namespace) -> int:
    changes = _parse_tallies(args.tallies)
    return _apply(
        args,
        lambda store, match_id: store.edit_round(match_id, args.round, changes),
        checked=lambda match: args.round,
    )


def _apply(
    args: argparse.Namespace,
    change: Any,
    *,
    said: list[str] | None = None,
    told: dict[str, Any] | None = None,
    reading: bool = False,
    checked: Callable[[Match], int] | None = None,
) -> int:
    """Open the store, apply `change(store, match_id)` under the rules, print the standings
    (after the lines `change` put in `said`, or with --json with what it put in `told`;
    `reading`: a change that only reads); then note the counts to check in the round `checked`
    numbers, if any."""
    with saving_guard() as saving:
        with open_store(args, reading=reading) as store:
            match_id = match_id_of(args, store)
            match = run_rule(
                lambda: change(store, match_id), named=args.match, db=args.db, used=match_id
            )
            saving.done = not reading
        saving.kept = [line for line in said or () if line.startswith(PUT_BACK)]
        for line in () if args.json else said or ():
            print(line)
        _print_match(args, match_id, match, **(told or {}))
    if checked is not None:
        _note_counts_to_check(match, checked(match))
    return 0


def _note_counts_to_check(match: Match, number: int) -> None:
    """Counts the game hardly leaves (game/plausibility.py), said once the round is saved (the
    match changed last, which `edit` corrects by default)."""
    import shlex

    from blitzcam.game.plausibility import post_piles_note, short_of_post_piles

    round_ = match.rounds[number - 1]
    for name in short_of_post_piles(round_, match.settings.variant):
        fix = shlex.quote(f"{name}=DUTCH/BLITZ")
        print(
            f"note: {post_piles_note(round_, name)}: check the counts (`blitzcam match edit "
            f"{number} {fix}` corrects them)",
            file=sys.stderr,
        )


def _delete_round(args: argparse.Namespace) -> int:
    return _take_back(args, lambda match: args.round)


def _delete(args: argparse.Namespace) -> int:
    """Delete a whole match, saying what it was (an export is the only copy that stays; with
    --json, the match file of it, as stored for one that breaks the rules, null for one too
    damaged to read at all, deleted all the same)."""
    from blitzcam.game.match_file import match_to_json
    from blitzcam.game.rules import MatchError, score_match
    from blitzcam.game.store import StoreError
    from blitzcam.game.text import describe_status

    with open_store(args) as store:
        try:
            match = store.load(args.match_id)
            played = len(match.rounds)
            what = (
                f"{', '.join(player.name for player in match.players)}; {played} "
                f"round{'' if played == 1 else 's'}, {describe_status(score_match(match))}"
            )
        except (MatchError, StoreError):  # damaged: deleted all the same (no such: said below)
            match, what = None, "it could not be read"
            if args.json:  # its copy as stored, as `export --as-stored` writes it
                with contextlib.suppress(MatchError, StoreError):
                    match = store.read_as_stored(args.match_id)
        run_rule(lambda: store.delete_match(args.match_id))
    if args.json:
        kept = None if match is None else match_to_json(match)
        _print_json({"deleted": args.match_id, "match_file": kept})
    else:
        print(f"deleted match {args.match_id} ({what})")
    return 0


def _undo(args: argparse.Namespace) -> int:
    from blitzcam.game.rules import last_round

    return _take_back(args, last_round)


def _take_back(args: argparse.Namespace, number_of: Any) -> int:
    """Delete a round (undo: the last), saying which and its counts, and who went with it: the
    CLI keeps no copy to redo from, and the match changed last may not be the one meant. When
    adding the round again would make the match what it was, the command that does is said."""
    from blitzcam.commands.match_json import deleted_round
    from blitzcam.game.rules import delete_round, taken_off
    from blitzcam.game.text import round_counts, seat_changes, taken_off_said

    said: list[str] = []
    told: dict[str, Any] = {}

    def take(match: Match, match_id: int) -> Match:
        number = number_of(match)  # (undo: refused for a match without a round)
        after = delete_round(match, number)  # (refuses a round the match does not have)
        gone = taken_off(match, after)
        with_it = f"; {taken_off_said(gone)} with it" if gone else ""
        # one who left after the round is back at the table without it (as the app says)
        with_it += seat_changes(match, after)
        said.append(f"deleted round {number} ({round_counts(match.rounds[number - 1])}){with_it}")
        again = _add_again(args, match_id, match, after, number)
        if again is not None:
            said.append(f"{PUT_BACK}{again}")
        told.update(deleted_round=deleted_round(number, match.rounds[number - 1]), put_back=again)
        return after

    return _apply(
        args,
        lambda store, match_id: store.update(match_id, lambda match: take(match, match_id)),
        said=said,
        told=told,
    )


def _add_again(
    args: argparse.Namespace, match_id: int, before: Any, after: Any, number: int
) -> str | None:
    """The `blitzcam match add` command line that gives `before` back from `after`, the match
    with its round `number` deleted, with the `leave` of each player who had left after it and
    is back at the table without it, and the `rejoin` of each who had come back after it and
    is off the table without it; None where that would not (a round before the last, whose
    later rounds would stay ahead of it). Where the round decided the match, which nobody
    leaves, the target is raised over it for the leave and set back after (a player who went
    home as the table lowered the target to end the match there)."""
    import shlex

    from blitzcam.errors import UserError
    from blitzcam.game.rules import MatchError

    tokens = [
        f"{name}={t.dutch}/{t.blitz}" for name, t in before.rounds[number - 1].tallies.items()
    ]
    try:
        raised, leaving, returning = _put_back(after, before, _parse_tallies(tokens))
    except (MatchError, UserError):
        return None
    db = ["--db", str(args.db)] if args.db is not None else []

    def command(*words: str) -> list[str]:
        return ["blitzcam", "match", *db, words[0], "--match", str(match_id), *words[1:]]

    ends_options = ["--"] if any(token.startswith("-") for token in tokens) else []
    commands = [command("add", *ends_options, *tokens)]
    commands += [
        command(action, "--", name)
        for action, names in (("leave", leaving), ("rejoin", returning))
        for name in names
    ]
    if raised is not None:
        target = str(before.settings.target)
        commands = [command("settings", "--target", str(raised)), *commands]
        commands.append(command("settings", "--target", target))
    return " && ".join(shlex.join(words) for words in commands)


def _put_back(
    after: Any, before: Any, tallies: dict[str, Any]
) -> tuple[int | None, list[str], list[str]]:
    """How `_add_again` gives `before` back from `after`: the target raised for it (None: kept),
    and the players who leave and rejoin after the round is added. MatchError where no way
    gives `before` back."""
    from dataclasses import replace

    from blitzcam.game.rules import (
        MatchError,
        Round,
        add_round,
        at_table,
        change_settings,
        come_back,
        leave,
        score_match,
    )

    seated = {player.name for player in at_table(before)}
    added = add_round(after, Round(tallies))
    at_it = {player.name for player in at_table(added)}
    leaving = [p.name for p in at_table(added) if p.name not in seated]
    returning = [p.name for p in at_table(before) if p.name not in at_it]
    standings = score_match(added)
    raised = None
    if leaving and standings.decided_after is not None:
        totals = [*standings.totals.values(), *(standings.team_totals or {}).values()]
        raised = max(before.settings.target, *totals) + 1
        added = add_round(
            change_settings(after, replace(after.settings, target=raised)), Round(tallies)
        )
    for name in leaving:
        added = leave(added, name)
    for name in returning:
        added = come_back(added, name)
    if raised is not None:
        added = change_settings(added, before.settings)
    if added != before:
        raise MatchError("the round added again would not give the match back")
    return raised, leaving, returning


def _settings(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from blitzcam.errors import UserError
    from blitzcam.game.rules import change_settings

    if args.target is None and args.variant is None:
        raise UserError("nothing to change: give --target and/or --variant")
    asked = {k: v for k, v in (("target", args.target), ("variant", args.variant)) if v is not None}

    def changed(match: Match) -> Match:
        return change_settings(match, replace(match.settings, **asked))

    # read and changed in one transaction, as `_player`: a variant the app saved between a read
    # and a write of their own was set back
    status = _apply(args, lambda store, match_id: store.update(match_id, changed))
    if status == 0 and args.target is not None:
        _note_target(args.target)
    return status


def _player(args: argparse.Namespace) -> int:
    from blitzcam.errors import UserError
    from blitzcam.game.rules import change_player

    if args.name is None and args.deck is None and args.team is None:
        raise UserError("nothing to change: give --name, --deck and/or --team")

    def changed(match: Match) -> Match:
        _team_checked(match, args.team, new_team=args.new_team)
        deck = None if args.deck is None else typed_deck(args.deck)
        return change_player(match, args.player, new_name=args.name, deck=deck, team=args.team)

    # read and changed in one transaction: a change saved meanwhile is not undone
    return _apply(args, lambda store, match_id: store.update(match_id, changed))


def _new_team_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--new-team",
        action="store_true",
        help="--team names a team the match does not have yet: start it (without this, such "
        "a name is refused as a likely typo: it would make a team of one)",
    )


def _team_checked(match: Any, team: str | None, *, new_team: bool) -> None:
    """UserError for a team the match does not have, unless `new_team`: as the app asks before
    starting one, since a typo ('Nrth') makes a team of one that plays against its own side."""
    from blitzcam.errors import UserError
    from blitzcam.game.match_model import new_team as asked

    teams = [t for t in dict.fromkeys(p.team for p in match.players) if t is not None]
    news = None if new_team else asked(teams, team)
    if news is None:
        return
    if news.meant is not None:  # ('north' for North: --new-team, as the hint said, was refused)
        raise UserError(f"--team {team}: not a team of this match: did you mean {news.meant}?")
    raise UserError(
        f"--team {team}: not a team of this match (it has {', '.join(teams)}); give --new-team "
        "to start a new one"
    )


def _start_points(text: str) -> int | str:
    if text.strip().lower() == "lowest":
        return "lowest"
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected a whole number of points, or 'lowest'"
        ) from None


def _join(args: argparse.Namespace) -> int:
    from blitzcam.game.rules import MatchError, Player, join, lowest_total

    seat = Player(args.player, typed_deck(args.deck), args.team)

    def joined(match: Match) -> Match:
        _team_checked(match, args.team, new_team=args.new_team)
        if args.start == "lowest" and match.uses_teams:  # (a start said as one never typed)
            raise MatchError(
                "--start lowest: a team match takes latecomers from 0 (a start would go to "
                "their team's total)",
                player=seat.name,
            )
        start = lowest_total(match) if args.start == "lowest" else args.start
        return join(match, seat, start=start)

    # the lowest total read in the same transaction that seats the player
    return _apply(args, lambda store, match_id: store.update(match_id, joined))


def _leave(args: argparse.Namespace) -> int:
    from blitzcam.game.names import written_name
    from blitzcam.game.text import played_no_round

    with saving_guard() as saving:
        with open_store(args) as store:
            match_id = match_id_of(args, store)
            match = run_rule(
                lambda: store.leave(match_id, args.player), named=args.match, used=match_id
            )
            saving.done = True
        _print_match(args, match_id, match)
        who = written_name(args.player)
        if all(player.name != who for player in match.players):  # one who played no round
            print(
                f"note: {played_no_round(who)}, with no total to keep (`blitzcam match "
                "join` seats them again)",
                file=sys.stderr,
            )
    return 0


def _rejoin(args: argparse.Namespace) -> int:
    return _apply(args, lambda store, match_id: store.come_back(match_id, args.player))


def _show(args: argparse.Namespace) -> int:
    return _apply(args, lambda store, match_id: store.load(match_id), reading=True)


def _list(args: argparse.Namespace) -> int:
    from blitzcam.game.text import match_list

    problems: list[str] = []
    with open_store(args, reading=True) as store:
        summaries = run_rule(lambda: store.list_matches(problems=problems))
    if args.json:
        from blitzcam.commands.match_json import match_list_document

        _print_json(match_list_document(summaries, unreadable=len(problems)))
    else:
        print(match_list(summaries, unreadable=len(problems)))
    for problem in problems:  # the readable matches are listed all the same
        print(f"error: {problem}", file=sys.stderr)
    return 1 if problems else 0


def _refuse_exporting_over_a_database(args: argparse.Namespace) -> None:
    """An export never replaces the match store (`export matches.sqlite3` wrote 787 bytes of
    JSON over every match), the files SQLite keeps beside it, or any other SQLite file."""
    from blitzcam.errors import UserError
    from blitzcam.files import database_in_the_way
    from blitzcam.paths import match_db_path

    try:
        why = database_in_the_way(args.file, match_db_path(args.db))
    except OSError as exc:  # a loop of links
        raise UserError(f"{exc.filename}: cannot reach it ({exc.strerror})") from None
    if why is not None:
        raise UserError(f"{args.file}: {why}")


def _export(args: argparse.Namespace) -> int:
    from blitzcam.errors import UserError
    from blitzcam.files import note_stream, why_unwritable, write_text_atomic
    from blitzcam.game.match_file import export_text

    to_stdout = is_stream(args.file)
    if to_stdout and args.json:
        raise UserError(
            "--json: `export -` writes the match file itself to standard output (--format json)"
        )
    if not to_stdout:
        _refuse_exporting_over_a_database(args)
    try:  # ("-" is standard output, even beside a folder of that name)
        # (before the format: a folder was told to pass --format, and then that it is one)
        why = None if to_stdout else why_unwritable(args.file)
    except OSError as exc:  # a name too long, a folder shut: is_dir raises for those
        raise UserError(f"{args.file}: cannot write: {exc.strerror or exc}") from None
    if why is not None:  # (a missing folder was "No such file or directory", after the work)
        raise UserError(f"{args.file}: {why}")
    named = {".csv": "csv", ".json": "json"}.get(args.file.suffix.lower())
    if args.format and named and args.format != named:  # a CSV under a .json name misleads
        raise UserError(f"{args.file}: --format {args.format} for a .{named} file name")
    fmt = args.format or named
    if fmt is None:
        raise UserError(f"{args.file}: cannot tell the format from the extension; pass --format")
    if args.as_stored and fmt != "json":  # (a score sheet is the rules' scores)
        raise UserError("--as-stored writes the match as JSON only: a score sheet needs its scores")
    with open_store(args, reading=True) as store:
        match_id = match_id_of(args, store)
        if args.as_stored:
            match = run_rule(lambda: store.read_as_stored(match_id))
        else:
            match = run_rule(lambda: store.load(match_id))
    broken = _rule_broken(match) if args.as_stored else None
    text = export_text(match, fmt)
    if to_stdout:
        # the file's own bytes, UTF-8 as a file export writes them, whatever standard output's
        # encoding: redirected on Windows it is the ANSI code page, and names came out garbled,
        # the sheet's byte-order mark as the text "\ufeff"
        sys.stdout.flush()
        sys.stdout.buffer.write(text.encode("utf-8"))
        sys.stdout.buffer.flush()
        print(f"wrote match {match_id} to standard output", file=sys.stderr)
    else:
        try:
            write_text_atomic(args.file, text)
        except OSError as exc:
            raise UserError(f"{args.file}: cannot write: {exc.strerror}") from None
        if args.json:
            _print_json({"match": match_id, "file": str(args.file), "format": fmt})
        else:
            print(f"wrote match {match_id} to {args.file}", file=note_stream(args.file))
    if broken is not None:
        print(
            f"note: match {match_id} breaks the rules ({broken}): written as stored; mend the "
            "file and store it with `blitzcam match import FILE`",
            file=sys.stderr,
        )
    return 0


def _rule_broken(match: Match) -> str | None:
    """What rule `match` breaks, in words (None: none)."""
    from blitzcam.game.rules import MatchError, score_match

    try:
        score_match(match)
    except MatchError as exc:
        return str(exc)
    return None


def _as_written_would(args: argparse.Namespace) -> str:
    """The hint that --as-written reads the file that was refused, where it would (a file
    only: standard input cannot be read again)."""
    from blitzcam.game.match_file import read_match
    from blitzcam.game.rules import MatchError

    if args.as_written or is_stream(args.file):
        return ""
    try:
        read_match(args.file, tidied=[])
    except MatchError:
        return ""
    return " (an export of a match an older blitzcam stored comes back with --as-written)"


def _import(args: argparse.Namespace) -> int:
    from blitzcam.errors import UserError
    from blitzcam.game.rules import MatchError, check_seats_as_given
    from blitzcam.game.text import round_count

    # as written: as the store's upgrade leaves a match an older blitzcam stored ('North '
    # beside 'North', a target over the largest), which `import` refused even so
    tidied: list[str] | None = [] if args.as_written else None
    try:
        match = _read_match(args.file, "blitzcam match import", tidied=tidied)
    except MatchError as exc:
        raise UserError(str(exc) + _as_written_would(args)) from None
    try:
        if not args.as_written:  # it becomes a new match: seated as `new` and `join` seat
            check_seats_as_given(match)
    except MatchError as exc:
        # (an older blitzcam's match, kept as it was scored, exports as it is and fails this
        # check: 'ann' beside 'Ann', a team written two ways)
        raise UserError(
            f"{args.file}: {exc} (an export of a match an older blitzcam stored comes back with "
            "--as-written)"
        ) from None
    with saving_guard() as saving:
        with open_store(args, create=True) as store:
            match_id = run_rule(lambda: store.create_match(match))
            saving.done = True
        source = STANDARD_INPUT if is_stream(args.file) else args.file
        if args.json:
            _print_match(args, match_id, match)
        else:
            print(f"imported {source} as match {match_id} ({round_count(len(match.rounds))})")
    for change in tidied or ():
        print(f"note: {change}, as an upgraded store has it", file=sys.stderr)
    return 0
