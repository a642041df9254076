"""The scoring rules of Dutch Blitz as the published rules give them: pure records and functions.

A round gives, per player, the cards they got into the shared Dutch piles and the cards
left in their Blitz pile. Round score = Dutch - 2 x Blitz. Running totals decide the match
once one reaches the target; with teams, partners share one total.

This module scores a match and makes each change to it (rounds, settings, seats); its records
are game/match_model.py's and its checks game/validation.py's, both said through here too.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Final

from blitzcam.game.decks import DECK_NAMES
from blitzcam.game.match_model import (
    COME_BACK_HINT,
    COMMON_TARGETS,
    DEFAULT_TARGET,
    MAX_PLAYERS,
    MAX_ROUNDS,
    MAX_TARGET,
    MIN_PLAYERS,
    PLAY_OUT_HINT,
    VARIANTS,
    DecidedMatchError,
    Match,
    MatchError,
    Player,
    Round,
    Settings,
    Standings,
    Status,
    Tally,
    Variant,
    at_table,
    blitz_caller,
    is_whole_number,
    last_round,
    not_a_player,
    round_score,
    taken_off,
)
from blitzcam.game.names import (
    brief,
    looks_as,
    written_name,
)
from blitzcam.game.validation import (
    check_deck_free,
    check_round_number,
    check_starts,
    check_teams_written_one_way,
    most_cards,
    tally_problem,
    validate_players,
    validate_round,
    validate_settings,
)

# the records and queries of game/match_model.py and the checks of game/validation.py are
# the rules' too: callers import them from here
__all__ = [
    "COMMON_TARGETS",
    "DEFAULT_TARGET",
    "MAX_PLAYERS",
    "MAX_ROUNDS",
    "MAX_TARGET",
    "MIN_PLAYERS",
    "PLAY_OUT_HINT",
    "VARIANTS",
    "DecidedMatchError",
    "Match",
    "MatchError",
    "Player",
    "Round",
    "Settings",
    "Standings",
    "Status",
    "Tally",
    "Variant",
    "add_round",
    "at_table",
    "blitz_caller",
    "can_come_back",
    "can_join",
    "can_leave",
    "change_player",
    "change_players",
    "change_settings",
    "check_seats_as_given",
    "check_teams_written_one_way",
    "checked",
    "come_back",
    "delete_round",
    "edit_round",
    "join",
    "last_round",
    "leave",
    "lowest_total",
    "may_leave",
    "most_cards",
    "new_match",
    "not_a_player",
    "other_players",
    "replace_round",
    "round_score",
    "score_match",
    "taken_off",
    "tally_problem",
    "validate_players",
    "validate_round",
    "validate_settings",
    "why_nobody_comes_back",
]


def _team_totals(players: Iterable[Player], totals: Mapping[str, int]) -> dict[str, int]:
    teams: dict[str, int] = {}
    for player in players:
        assert player.team is not None
        teams[player.team] = teams.get(player.team, 0) + totals[player.name]
    return teams


SCORED_KEPT: Final = 8  # matches whose standings `score_match` remembers (by value)


def free_decks(match: Match) -> tuple[str, ...]:
    """The decks nobody at the table plays, in the usual order: those a player who joins may
    take."""
    taken = {player.deck for player in at_table(match)}
    return tuple(deck for deck in DECK_NAMES if deck not in taken)


def lowest_total(match: Match) -> int:
    """The lowest total of the players at the table: the start a table often gives a player
    who joins late (not in a team match, where a latecomer starts from 0: `join`)."""
    totals = score_match(match).totals
    return min((totals[p.name] for p in match.players if p.playing), default=0)


@dataclass(frozen=True, slots=True)
class TeamSpan:
    """A team's time in a match, as its line on the chart shows it."""

    totals: tuple[int, ...]  # its total after each round from the one before it sat down on
    joined: int  # the match's rounds played before its first player sat down
    start: int  # the points it started from (its first players' starts)
    away: tuple[int, ...]  # the rounds in its span none of its players played


def team_span(match: Match, standings: Standings, team: str) -> TeamSpan:
    """`team`'s time in `match`: from the round its first player joined after, to the round
    the last of them left after where none is left to win (one at the table: to the last
    round); `standings` are `score_match(match)`'s."""
    if standings.team_running_totals is None:
        raise ValueError("a match without teams has no team spans")
    members = [p for p in match.players if p.team == team]
    joined = min(p.joined for p in members)
    start = sum(p.start for p in members if p.joined == joined)
    # a team whose every player left: its line ends where the last of them left
    left = None if team in standings.contenders else max(p.left or 0 for p in members)
    totals = tuple(t[team] for t in standings.team_running_totals[joined:left])
    # rounds none of them played (each sat out, or between one leaving and one joining)
    away = tuple(
        number
        for number in range(joined + 1, joined + len(totals) + 1)
        if not any(p.plays_in(number) for p in members)
    )
    return TeamSpan(totals, joined, start, away)


def score_match(match: Match) -> Standings:
    """Validate the whole match and derive its standings.

    The match is decided after the first round whose totals (team totals with teams) reach
    the target; the highest total then wins, an exact tie at the top is a shared win. A round
    after that one is refused.

    The last few matches scored are remembered by value (a match and its standings are
    immutable): saving a round scored the same match five times over (the store, the rule,
    the board, the menus), 157-170 ms at 300 rounds.
    """
    try:
        key = hash(match), _number_types(match)
    except TypeError:  # (a match built of lists by hand: not hashable, scored all the same)
        return _score(match)
    return _scored(match, key[1])


@functools.lru_cache(maxsize=SCORED_KEPT)
def _scored(match: Match, number_types: tuple[object, ...]) -> Standings:
    """`_score` of `match`, remembered with the types of its numbers: 10.0 and True equal 10
    and 1 to Python, and a match of them, refused as not whole numbers, took the standings of
    its whole-numbered twin scored before it."""
    return _score(match)


def _number_types(match: Match) -> tuple[object, ...]:
    """The type of every number in `match`, in a fixed order (a round's tallies by name)."""
    seats = tuple(
        (type(p.start), type(p.joined), type(p.left), tuple(map(type, p.sat_out)))
        for p in match.players
    )
    rounds = tuple(
        tuple(sorted((name, type(t.dutch), type(t.blitz)) for name, t in r.tallies.items()))
        for r in match.rounds
    )
    return type(match.settings.target), seats, rounds


def _score(match: Match) -> Standings:
    validate_settings(match.settings)
    played = len(match.rounds)
    validate_players(match.players, played=played)
    totals = {player.name: player.start for player in match.players}
    round_scores: list[Mapping[str, int]] = []
    running: list[Mapping[str, int]] = []
    team_running: list[Mapping[str, int]] = []
    decided_after: int | None = None
    winners: tuple[str, ...] = ()
    for number, round_ in enumerate(match.rounds, start=1):
        if decided_after is not None:
            raise DecidedMatchError(decided_after, match.settings.target, round_number=number)
        validate_round(match.players, round_, variant=match.settings.variant, number=number)
        of_round = [player for player in match.players if player.plays_in(number)]
        scores = {player.name: round_.tallies[player.name].score for player in of_round}
        round_scores.append(MappingProxyType(scores))
        for name, score in scores.items():
            totals[name] += score
        joined = [player for player in match.players if player.joined < number]
        running.append(MappingProxyType({p.name: totals[p.name] for p in joined}))
        # the players of this round (teams: theirs, every member's total counted) contend:
        # one who left is out of the running
        if match.uses_teams:
            team_running.append(MappingProxyType(_team_totals(joined, totals)))
            contending = {p.team for p in of_round}
            board = {t: total for t, total in team_running[-1].items() if t in contending}
        else:
            board = {p.name: totals[p.name] for p in of_round}
        if max(board.values()) >= match.settings.target:
            decided_after = number
            best = max(board.values())
            winners = tuple(name for name, total in board.items() if total == best)
    team_totals = _team_totals(match.players, totals) if match.uses_teams else None
    status: Status = "in-progress"
    if decided_after is not None:
        status = "won" if len(winners) == 1 else "shared"
    return Standings(
        round_scores=tuple(round_scores),
        totals=MappingProxyType(totals),
        team_totals=MappingProxyType(team_totals) if team_totals is not None else None,
        status=status,
        winners=winners,
        decided_after=decided_after,
        running_totals=tuple(running),
        team_running_totals=tuple(team_running) if match.uses_teams else None,
        contenders=tuple(
            dict.fromkeys(p.team if match.uses_teams else p.name for p in at_table(match))
        ),
    )


def checked(match: Match) -> Match:
    """`match` itself, once it is known to keep every rule (MatchError if not)."""
    score_match(match)
    return match


def new_match(players: Iterable[Player], settings: Settings | None = None) -> Match:
    match = Match(players=tuple(players), settings=settings or Settings())
    score_match(match)
    check_teams_written_one_way(match.players)
    return match


def check_seats_as_given(match: Match) -> None:
    """MatchError unless `match`'s seats are ones the rules give: teams written one way, each
    start as `join` (or, with teams, `change_players`) takes it. For a match that comes from
    outside (an imported file becomes a new match); stored matches load as they were scored."""
    check_teams_written_one_way(match.players)
    check_starts(match, teams=match.uses_teams)
    decided = score_match(match).decided_after
    if decided is None:
        return
    for seat in match.players:  # as `join` and `come_back` refuse them
        how = _seated_after(seat, decided)
        if how == "joined":
            raise MatchError(
                f"joined after round {seat.joined}, and the match was decided after round "
                f"{decided}: nobody joins a decided match",
                player=seat.name,
            )
        if how == "came back":
            raise MatchError(
                f"came back after round {decided}, which decided the match: nobody comes back "
                "to a decided match",
                player=seat.name,
            )


def _seated_after(seat: Player, decided: int) -> str | None:
    """How `seat` came to the table after round `decided`, the one that decided the match:
    "joined", "came back" (they sat it out), or None (they played it, or had gone home)."""
    if seat.joined >= decided:
        return "joined"
    if seat.left is None and seat.sat_out_of(decided):
        return "came back"
    return None


def add_round(match: Match, round_: Round) -> Match:
    """The match with one more round, or MatchError (a decided match takes no round, nor one
    of MAX_ROUNDS; a match of more, made before the limit, is read and scored all the same)."""
    if len(match.rounds) >= MAX_ROUNDS:
        raise MatchError(
            f"a match holds at most {MAX_ROUNDS:,} rounds, got {len(match.rounds) + 1:,}: start a "
            "new match"
        )
    updated = replace(match, rounds=(*match.rounds, round_))
    score_match(updated)
    return updated


def replace_round(match: Match, number: int, round_: Round) -> Match:
    """Edit round `number` (from 1); everything after is recomputed. Refused when the new
    tallies would decide the match before rounds or seats that came after."""
    check_round_number(match, number)
    rounds = list(match.rounds)
    rounds[number - 1] = round_
    updated = replace(match, rounds=tuple(rounds))
    _check_decided_last(updated, f"with round {number} as corrected", match)
    return updated


def edit_round(match: Match, number: int, changes: Mapping[str, Tally]) -> Match:
    """Correct some players' tallies in round `number`; the others keep theirs. A name is found
    whichever way it is written (`written_name`)."""
    check_round_number(match, number)
    corrected = Round(changes).tallies  # names written as kept; one given two ways is refused
    merged = {**match.rounds[number - 1].tallies, **corrected}
    return replace_round(match, number, Round(merged))


def delete_round(match: Match, number: int) -> Match:
    """The match without round `number`; the rounds after it move up, and so do the rounds
    players joined or left after and sat out. The last round taken back (an undo) puts back at
    the table whoever left after it, and takes away again whoever came back after sitting it
    out, so that it can be entered again as it was played; while someone joined after it, it
    is refused (they would have to play it)."""
    check_round_number(match, number)
    rounds = match.rounds[: number - 1] + match.rounds[number:]
    last = number == len(match.rounds)
    latecomer = next((p for p in match.players if last and p.joined == number), None)
    if latecomer is not None:
        raise MatchError(
            f"joined after round {number}, the last: to take it back, let them leave first "
            "(they have played no round)",
            player=latecomer.name,
        )

    def moved(rounds_before: int) -> int:
        return rounds_before - 1 if rounds_before >= number else rounds_before

    def moved_left(left: int | None) -> int | None:
        return None if left is None or (last and left == number) else moved(left)

    # an undo takes away again whoever came back after sitting the round out
    away = {p.name for p in match.players if last and p.playing and number in p.sat_out}

    def moved_seat(p: Player) -> Player:
        if p.name in away:
            p = _away_again(p)
        sat_out = tuple(n - 1 if n > number else n for n in p.sat_out if n != number)
        return _tidied(replace(p, joined=moved(p.joined), left=moved_left(p.left), sat_out=sat_out))

    players = tuple(moved_seat(p) for p in match.players)
    # one whose only round it was has played none: as if never seated
    players = tuple(p for p in players if p.left is None or p.left > p.joined)
    updated = replace(match, players=players, rounds=rounds)
    try:
        # (said in the rounds' numbers as the person has them, the deleted one still there)
        _check_decided_last(
            updated, f"without round {number}", match, numbered=lambda n: n + (n >= number)
        )
    except MatchError as exc:  # say who the undo took away, when that is what broke a rule
        if not away:
            raise
        named = ", ".join(p.name for p in match.players if p.name in away)  # in seat order
        raise MatchError(
            f"taking round {number} back takes {named} away again (they sat it "
            f"out), and then {exc.rule}",
            round_number=exc.round_number,
            player=exc.player,
        ) from None
    try:  # one put back before their first round: their start as `join` takes it
        check_starts(updated, teams=False)
    except MatchError as exc:
        raise MatchError(
            f"taking round {number} back would put them before their first round again: "
            f"{exc.rule} (raise the target first)",
            player=exc.player,
        ) from None
    return updated


def _away_again(seat: Player) -> Player:
    """A seat back at the table after sitting out rounds, without a round played since: as it
    was before it came back (left after the round before those)."""
    gap = _trailing_run(seat.sat_out)
    return replace(seat, left=gap[0] - 1, sat_out=seat.sat_out[: -len(gap)])


def _trailing_run(rounds: tuple[int, ...]) -> tuple[int, ...]:
    """The last run of consecutive rounds in `rounds` (in order, not empty)."""
    start = len(rounds) - 1
    while start > 0 and rounds[start - 1] == rounds[start] - 1:
        start -= 1
    return rounds[start:]


def _tidied(seat: Player) -> Player:
    """A seat whose rounds moved (a round deleted) in the one way rules allow: rounds sat out
    first are a later join, rounds sat out last before leaving an earlier leave."""
    while seat.sat_out and seat.sat_out[0] == seat.joined + 1:
        seat = replace(seat, joined=seat.joined + 1, sat_out=seat.sat_out[1:])
    while seat.sat_out and seat.left is not None and seat.sat_out[-1] >= seat.left:
        seat = replace(seat, left=seat.left - 1, sat_out=seat.sat_out[:-1])
    return seat


def other_players(now: Sequence[Player], then: Sequence[Player]) -> bool:
    """Whether the seats `now` hold other players than `then` (the same seats read earlier,
    the match changed meanwhile), side by side (`_another_player`), or more or fewer. A round
    deleted and a seat renamed keep every player the same one: a scan or a round being
    confirmed goes on for them, and is ended for another player on a leaver's deck."""
    return len(now) != len(then) or any(
        _another_player(seat, before) for seat, before in zip(now, then, strict=True)
    )


def _another_player(now: Player, then: Player) -> bool:
    """Whether the seat `now` is another player than `then`: one who joined later (a newcomer
    on a leaver's deck, in their place), from another start, or under another name with other
    rounds sat out (one come back). A renamed seat is the same player; `delete_round` moves a
    latecomer's `joined` and sat-out rounds back, and moves `joined` later only for one who
    sat out the round after their first (`_tidied`: it becomes their first), one round for each
    sat out at most, so a `joined` later by more than that is another player's."""
    later = now.joined > then.joined
    return (
        # (each round sat out moves it one later at most: Cy, back after a round away, left
        # and replaced by a newcomer named Cy, was read as Cy)
        now.joined - then.joined > len(then.sat_out)
        or now.start != then.start
        or (now.name != then.name and (later or now.sat_out != then.sat_out))
    )


def change_settings(match: Match, settings: Settings) -> Match:
    """Raising the target reopens a decided match; lowering it may decide it at once, but not
    before rounds played or latecomers seated since (the match would have ended there). A target
    at or under the start of a latecomer yet to play is refused, as their join would be: no
    round would ever weigh their total against it."""
    validate_settings(settings)  # (a target out of range is said as such, before any start)
    updated = replace(match, settings=settings)
    if settings.variant != match.settings.variant:
        try:
            score_match(updated)
        except DecidedMatchError:
            pass  # (said below, as the change that decided it)
        except MatchError as exc:  # a round the other variant does not take
            said = str(exc).removesuffix(PLAY_OUT_HINT)
            raise MatchError(f"with the {settings.variant} variant, {said}") from None
    if settings.target < match.settings.target:  # (other changes leave the starts as they were)
        check_starts(updated, teams=False)
    _check_decided_last(updated, f"with a target of {settings.target}", match)
    return updated


def _check_decided_last(
    match: Match, cause: str, before: Match, *, numbered: Callable[[int], int] = lambda n: n
) -> Standings:
    """`match`'s standings, or MatchError when `cause` ("with …": the change that made it from
    `before`) has it decided after a round that rounds or a latecomer followed: the match would
    have ended there, and the latecomer, or one back at the table since, would sit in a decided
    match (which nobody joins or comes back to, and which they could not leave). A match
    decided so already (as an earlier blitzcam stored it) takes other changes. One who left
    after the deciding round played it: the table may end a match as a player goes home.
    `numbered`: a round of `match` by its number in `before` (a round deleted: those after it
    are said as the person knows them; "delete round 3 first" deleted the deciding round)."""
    try:
        standings = score_match(match)
    except DecidedMatchError as exc:
        # (what to do was not said: the rounds after it, or a target that keeps it open)
        decided, last = exc.decided_after, len(match.rounds)
        first, end = numbered(decided + 1), numbered(last)
        after = f"round {end}" if last == decided + 1 else f"rounds {first}-{end}"
        raise MatchError(
            f"{cause}, the match is decided after round {numbered(decided)}, but round "
            f"{numbered(exc.round_number)} was played after it (if the match ended there, "
            f"delete {after} first; if not, its target must be higher)"
        ) from None
    decided = standings.decided_after
    if decided is None:
        return standings
    was = score_match(before).decided_after
    if was is not None and was <= numbered(decided):  # decided there, or earlier, before
        return standings
    for seat in match.players:
        how = _seated_after(seat, decided)
        if how is not None:
            nobody = "joins" if how == "joined" else "comes back to"
            raise MatchError(
                f"{cause}, the match is decided after round {numbered(decided)}, but they "
                f"{how} after it (nobody {nobody} a decided match: let them leave first)",
                player=seat.name,
            )
    return standings


def change_players(match: Match, players: Iterable[Player]) -> Match:
    """The same seats with other names, decks or teams (a name mistyped, decks handed out
    differently, partners swapped): each seat keeps its tallies in every round, under its new
    name, and its rounds of joining and leaving and its start. The number of seats stays
    (`join` and `leave` change who is at the table)."""
    given = tuple(players)
    if len(given) != len(match.players):
        raise MatchError(
            f"the match has {len(match.players)} players, got {len(given)}: a player joins or "
            "leaves a match under way through join and leave"
        )
    seated = tuple(
        replace(new, joined=old.joined, left=old.left, start=old.start, sat_out=old.sat_out)
        for old, new in zip(match.players, given, strict=True)
    )
    validate_players(seated)  # before renaming the rounds: two equal names would merge tallies
    # (the names given anew: two stored alike before the rule may keep their seats)
    given = {p.name for p in seated} - {p.name for p in match.players}
    # (a seat keeping its name and given another team: its team is the one given)
    kept = {(p.name, p.team) for p in match.players}
    check_teams_written_one_way(
        seated, given, teams_given={p.name for p in seated if (p.name, p.team) not in kept}
    )
    renamed = {old.name: new.name for old, new in zip(match.players, seated, strict=True)}
    rounds = tuple(
        Round({renamed.get(name, name): tally for name, tally in round_.tallies.items()})
        for round_ in match.rounds
    )
    updated = replace(match, players=seated, rounds=rounds)
    if updated.uses_teams and not match.uses_teams:  # teams given to a table with a start
        check_starts(updated, teams=True)
    # (only teams can move when the match is decided: names and decks score as they did)
    _check_decided_last(updated, "with the teams as given", match)
    return updated


def renamed_only(before: Match, after: Match) -> dict[str, str] | None:
    """Each renamed player's old name and new, where `after` is `before` with some players
    renamed (`change_players`) and nothing else changed; None where anything else changed."""
    if len(before.players) != len(after.players) or any(
        replace(old, name=new.name) != new
        for old, new in zip(before.players, after.players, strict=True)
    ):
        return None
    try:
        if change_players(before, after.players) != after:
            return None
    except MatchError:
        return None
    return {
        old.name: new.name
        for old, new in zip(before.players, after.players, strict=True)
        if old.name != new.name
    }


def change_player(
    match: Match, name: str, *, new_name: str | None = None, deck: str | None = None,
    team: str | None = None,
) -> Match:  # fmt: skip
    """One seat changed (`change_players` for the others as they are), its refusals naming
    that seat: checking the whole table blames whichever of two seats sits later."""
    seat = _seat(match, name)  # (worded as every command words a name no seat has)
    changes = {
        k: v for k, v in (("name", new_name), ("deck", deck), ("team", team)) if v is not None
    }
    changed = replace(seat, **changes)
    if team is not None and not match.uses_teams:
        raise MatchError(
            "this match has no teams: they are given to every player at once (the app's "
            "Match › Players…)",
            player=seat.name,
        )
    check_deck_free(changed, [p for p in match.players if p is not seat], name=seat.name)
    try:
        with _naming(seat.name):
            return change_players(match, [changed if p is seat else p for p in match.players])
    except MatchError as exc:  # a new name refused was said as the player ('player bob: looks
        if new_name is None or exc.player != new_name or new_name == seat.name:  # like 'Bob'')
            raise
        raise MatchError(
            f"renamed {brief(new_name)}: {exc.rule}", player=seat.name, field=exc.field
        ) from None


@contextmanager
def _naming(name: str) -> Iterator[None]:
    """A rule a change to one seat broke, said of that seat where the rule named nobody (the
    table left with one team: 'player Ann: a team match needs at least two teams at the
    table')."""
    try:
        yield
    except DecidedMatchError:
        raise
    except MatchError as exc:
        if exc.player is not None or exc.round_number is not None:
            raise
        raise MatchError(exc.rule, player=name) from None


def join(match: Match, player: Player, *, start: int = 0) -> Match:
    """The match with `player` at the table from the next round on, starting from `start`
    points (`lowest_total` gives the lowest at the table). A decided match takes nobody."""
    standings = score_match(match)
    if standings.status != "in-progress":
        raise MatchError("the match is decided: nobody can join it", player=player.name)
    if len(at_table(match)) >= MAX_PLAYERS:
        raise MatchError(
            f"the table is full ({MAX_PLAYERS} players): someone leaves first",
            player=player.name,
        )
    if match.uses_teams != (player.team is not None):
        raise MatchError(
            "a team match: give their team" if match.uses_teams else "this match has no teams",
            player=player.name,
        )
    if match.uses_teams and start != 0:
        raise MatchError(
            f"starts from 0 in a team match (a start of {start} would go to their team's total)",
            player=player.name,
        )
    if is_whole_number(start) and start >= match.settings.target:
        raise MatchError(
            f"a start of {start} reaches the target ({match.settings.target}) before a round",
            player=player.name,
        )
    looks, left = looks_as(player.name), [p for p in match.players if p.left is not None]
    gone = next((p for p in left if looks_as(p.name) == looks), None)
    if gone is not None:  # a clearer word than "two players have this name"
        held = _why_not_back(match, gone, standings)  # in play, only their deck can be held
        raise MatchError(
            f"left after round {gone.left}: "
            + (
                f"they come back to their own seat and total instead{COME_BACK_HINT}"
                if held is None
                else f"{held}: they come back to their seat once it is free, or join under "
                "another name"
            ),
            player=player.name,
        )
    seat = replace(player, joined=len(match.rounds), left=None, start=start)
    updated = replace(match, players=(*match.players, seat))
    score_match(updated)
    check_teams_written_one_way(updated.players, {seat.name})
    return updated


def _seat(match: Match, name: str) -> Player:
    """The seat of player `name` (written either way), or MatchError."""
    name = written_name(name)
    seat = next((p for p in match.players if p.name == name), None)
    if seat is None:
        raise MatchError(not_a_player(match.players, name), player=name)
    return seat


def leave(match: Match, name: str) -> Match:
    """The match with player `name` gone from the table after the rounds played so far: their
    total stays on the board, out of the running. One who has played no round yet is taken off
    the match. At least two players stay."""
    seat = _seat(match, name)
    if not seat.playing:
        raise MatchError(f"already left, after round {seat.left}", player=seat.name)
    played = len(match.rounds)
    if seat.joined < played and score_match(match).status != "in-progress":
        raise MatchError("the match is decided: nobody leaves it", player=seat.name)
    if len(at_table(match)) <= MIN_PLAYERS:  # (said as "needs 2 to 8 players, got 1": no 1 given)
        raise MatchError(
            f"cannot leave: {MIN_PLAYERS} must stay at the table, and {MIN_PLAYERS - 1} would",
            player=seat.name,
        )
    if seat.joined == played:  # no round played: as if never seated
        players = tuple(p for p in match.players if p is not seat)
    else:
        # back from sitting out, no round played since: as before they came back
        away = _away_again(seat) if played in seat.sat_out else replace(seat, left=played)
        players = tuple(away if p is seat else p for p in match.players)
    updated = replace(match, players=players)
    with _naming(seat.name):
        score_match(updated)
    return updated


def come_back(match: Match, name: str) -> Match:
    """The match with player `name`, who left, at the table again from the next round: their
    seat, deck, team and total, the rounds played without them sat out (a leave by mistake,
    taken back before a round, sits out none). Only while their deck is free."""
    seat = _seat(match, name)
    refused = _why_not_back(match, seat, score_match(match))
    if refused is not None:
        raise MatchError(refused, player=seat.name)
    assert seat.left is not None  # (refused otherwise)
    played = len(match.rounds)
    if seat.left == seat.joined:  # a seat that played no round (a match file may hold one)
        if is_whole_number(seat.start) and seat.start >= match.settings.target:
            raise MatchError(  # as `join` refuses it
                f"a start of {seat.start} reaches the target ({match.settings.target}) before "
                "a round",
                player=seat.name,
            )
        back = replace(seat, joined=played, left=None)
    else:
        missed = tuple(range(seat.left + 1, played + 1))
        back = replace(seat, left=None, sat_out=seat.sat_out + missed)
    updated = replace(match, players=tuple(back if p is seat else p for p in match.players))
    score_match(updated)
    return updated


def can_come_back(match: Match, standings: Standings | None = None) -> tuple[Player, ...]:
    """The players who left and may come back now (`come_back`); `standings`: the match's,
    when the caller has them (the app asks on every redraw)."""
    standings = standings or score_match(match)
    return tuple(p for p in match.players if _why_not_back(match, p, standings) is None)


def why_nobody_comes_back(match: Match, standings: Standings | None = None) -> str:
    """Why no player who left may come back now, in words ("nobody may come back now" said
    nothing of the deck a latecomer holds)."""
    standings = standings or score_match(match)
    gone = [p for p in match.players if p.left is not None]
    if not gone:
        return "nobody has left"
    if standings.status != "in-progress":
        return "the match is decided: nobody comes back to it"
    reasons = [(p.name, _why_not_back(match, p, standings)) for p in gone]
    said = "; ".join(f"{name}: {why}" for name, why in reasons if why is not None)
    return said or "nothing stands in the way"  # (one of them may: `can_come_back`)


def can_join(match: Match, standings: Standings | None = None) -> bool:
    """Whether a latecomer may join now (`join`): the match undecided and a seat free."""
    standings = standings or score_match(match)
    return standings.status == "in-progress" and len(at_table(match)) < MAX_PLAYERS


def may_leave(match: Match, standings: Standings | None = None) -> tuple[Player, ...]:
    """The players at the table who may leave now (`leave`): none with MIN_PLAYERS at it; in
    a decided match only one yet to play (they leave it as if never seated, as a match an
    earlier blitzcam stored may hold)."""
    standings = standings or score_match(match)
    seated = at_table(match)
    if len(seated) <= MIN_PLAYERS:
        return ()
    if standings.status != "in-progress":
        seated = tuple(p for p in seated if p.joined == len(match.rounds))
    if match.uses_teams:  # the last of a team, with two teams at the table, stays
        teams = Counter(p.team for p in at_table(match))
        if len(teams) <= 2:
            seated = tuple(p for p in seated if teams[p.team] > 1)
    return seated


def why_nobody_may_leave(match: Match, standings: Standings | None = None) -> str:
    """Why nobody at the table may leave now (`may_leave`), in words (not "2 must stay", which
    is wrong of a decided match with four at the table)."""
    standings = standings or score_match(match)
    if len(at_table(match)) <= MIN_PLAYERS:
        return f"{MIN_PLAYERS} must stay at the table"
    if standings.status != "in-progress":
        return "the match is decided: only a player yet to play may leave it"
    return "nothing stands in the way"  # (someone may: `may_leave`)


def can_leave(match: Match, standings: Standings | None = None) -> bool:
    """Whether someone at the table may leave now (`may_leave`)."""
    return bool(may_leave(match, standings))


def _why_not_back(match: Match, seat: Player, standings: Standings) -> str | None:
    """Why `seat` cannot come back to the table (None: they can)."""
    if seat.left is None:
        return "is at the table"
    if standings.status != "in-progress":
        return "the match is decided: nobody comes back to it"
    holder = next((p for p in at_table(match) if p.deck == seat.deck), None)
    if holder is not None:
        return f"their deck, {seat.deck}, is {holder.name}'s now"
    return None
