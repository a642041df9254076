"""The scoring rules of Dutch Blitz as the published rules give them: pure records and functions.

A round gives, per player, the cards they got into the shared Dutch piles and the cards
left in their Blitz pile. Round score = Dutch - 2 x Blitz. Running totals decide the match
once one reaches the target; with teams, partners share one total.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Final, Literal, get_args

from blitzcam.game.decks import BLITZ_PILE_SIZE, CARDS_PER_DECK, DECKS_BY_NAME
from blitzcam.game.names import (
    MAX_NAME_LENGTH,
    brief,
    character_name,
    is_name_character,
    looks_as,
    misplaced_invisible,
    seen_as,
    shown_name,
    shows_a_letter,
    written_name,
)

Variant = Literal["standard", "play-out"]
Status = Literal["in-progress", "won", "shared"]

VARIANTS: Final[tuple[str, ...]] = get_args(Variant)
DEFAULT_TARGET: Final = 75
COMMON_TARGETS: Final = (75, 100, 150)
MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 8
# how a standard round with no Blitz caller is refused ends: the other variant takes it
PLAY_OUT_HINT: Final = " (use the play-out variant for rounds played out)"
# far above any target people play to, far below what the match store's integers hold
MAX_TARGET: Final = 1_000_000


class MatchError(ValueError):
    """A rule was broken. Knows the round (counting from 1) and the player, when there is one,
    and which of their piles ("Dutch" or "Blitz") broke it, when one did; and for a seat,
    which of its fields ("name", "deck" or "team") broke it, and that field's text as written
    when no player can be named (a name that is no name): a form puts the focus there."""

    def __init__(
        self,
        rule: str,
        *,
        round_number: int | None = None,
        player: str | None = None,
        pile: str | None = None,
        field: str | None = None,
        written: str | None = None,
    ):
        self.rule = rule
        self.round_number = round_number
        self.player = player
        self.pile = pile
        self.field = field
        self.written = written
        where = []
        if round_number is not None:
            where.append(f"round {round_number}")
        if player is not None:  # unprintable names (a newline, an escape code) quoted
            where.append(f"player {shown_name(player)}")
        super().__init__(f"{', '.join(where)}: {rule}" if where else rule)


class DecidedMatchError(MatchError):
    """A round follows the one whose totals decided the match (`decided_after`)."""

    def __init__(self, decided_after: int, target: int, *, round_number: int) -> None:
        super().__init__(
            f"the match was already decided after round {decided_after} (target {target}); no "
            "round may follow",
            round_number=round_number,
        )
        self.decided_after = decided_after


def _is_whole_number(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class Tally:
    """One player's cards at the end of a round."""

    dutch: int
    blitz: int

    @property
    def score(self) -> int:
        return round_score(self)


@dataclass(frozen=True, slots=True)
class Player:
    """One seat of a match. Its name and team are kept as `written_name` writes them.

    A player who joined a match under way did so after round `joined` of the match and starts
    from `start` points (the table's choice: 0, or the lowest total, `lowest_total`); one who
    left did so after round `left` (None: still playing). One who left and came back to their
    seat sat out the rounds `sat_out` (in order; never the first round of their seat nor the
    last before they left: those would be a later `joined`, an earlier `left`). All count the
    match's rounds: a deleted earlier round moves them (`delete_round`)."""

    name: str
    deck: str
    team: str | None = None
    joined: int = 0
    left: int | None = None
    start: int = 0
    sat_out: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", written_name(self.name))
        object.__setattr__(self, "team", written_name(self.team))
        if isinstance(self.sat_out, list):  # as a match file holds them
            object.__setattr__(self, "sat_out", tuple(self.sat_out))

    def plays_in(self, number: int) -> bool:
        """Whether this player plays round `number` (from 1)."""
        return (
            self.joined < number
            and (self.left is None or number <= self.left)
            and not self.sat_out_of(number)
        )

    def sat_out_of(self, number: int) -> bool:
        """Whether this player sat out round `number`: looked up by halves in the ordered
        rounds (scoring asks for every round: a scan of the tuple made a long match's scoring
        take time growing with the square of its rounds)."""
        rounds = self.sat_out  # (in order in every match that scores: `_check_sat_out`)
        try:
            i = bisect.bisect_left(rounds, number)
        except TypeError:  # a seat read from a file, not yet refused for what it holds
            return number in rounds
        return i < len(rounds) and rounds[i] == number

    @property
    def playing(self) -> bool:
        """Still at the table: plays the next round."""
        return self.left is None


@dataclass(frozen=True, slots=True)
class Settings:
    target: int = DEFAULT_TARGET
    variant: Variant = "standard"


@dataclass(frozen=True, slots=True)
class Round:
    """Every player's tally for one round, by player name (as `written_name` writes it).
    Read-only. MatchError if two names are one name written two ways."""

    tallies: Mapping[str, Tally]

    def __post_init__(self) -> None:
        tallies = {written_name(name): tally for name, tally in self.tallies.items()}
        if len(tallies) < len(self.tallies):
            twice = next(
                name for name in tallies if sum(written_name(n) == name for n in self.tallies) > 1
            )
            raise MatchError("is given twice (written two ways)", player=twice)
        object.__setattr__(self, "tallies", MappingProxyType(tallies))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Round) and dict(self.tallies) == dict(other.tallies)

    def __hash__(self) -> int:
        return hash(frozenset(self.tallies.items()))


@dataclass(frozen=True, slots=True)
class Match:
    players: tuple[Player, ...]
    settings: Settings = field(default_factory=Settings)
    rounds: tuple[Round, ...] = ()

    @property
    def uses_teams(self) -> bool:
        return any(player.team is not None for player in self.players)


@dataclass(frozen=True, slots=True)
class Standings:
    """Everything the scoreboard shows, derived from a match; never stored."""

    round_scores: tuple[Mapping[str, int], ...]  # of the players of each round
    totals: Mapping[str, int]
    team_totals: Mapping[str, int] | None
    status: Status
    winners: tuple[str, ...]
    decided_after: int | None  # the round (from 1) whose totals first reached the target
    # each player's (team's) total after each round, for the chart: the players who had
    # joined by then
    running_totals: tuple[Mapping[str, int], ...] = ()
    team_running_totals: tuple[Mapping[str, int], ...] | None = None
    # the players (teams) still in the running: at the table (a team: one of its players)
    contenders: tuple[str, ...] = ()

    @property
    def leaders(self) -> tuple[str, ...]:
        """Who is ahead now among those still in the running (team names when teams are
        used); several on a tie."""
        board = self.team_totals if self.team_totals is not None else self.totals
        board = {name: total for name, total in board.items() if name in self.contenders}
        if not board:
            return ()
        best = max(board.values())
        return tuple(name for name, total in board.items() if total == best)


def round_score(tally: Tally) -> int:
    """+1 per card in the Dutch piles, -2 per card left in the Blitz pile."""
    return tally.dutch - 2 * tally.blitz


def validate_settings(settings: Settings) -> None:
    if not _is_whole_number(settings.target) or not 0 < settings.target <= MAX_TARGET:
        raise MatchError(
            f"target must be a whole number from 1 to {MAX_TARGET:,}, got {brief(settings.target)}"
        )
    if settings.variant not in VARIANTS:
        raise MatchError(
            f"variant must be one of {', '.join(VARIANTS)}, got {brief(settings.variant)}"
        )


def _check_name(name: object, kind: str) -> None:
    """MatchError unless `name` is non-empty text of name characters (`is_name_character`),
    without outer spaces, not too long. `kind`: "player name" or "team name"."""
    at = {
        "field": "team" if kind == "team name" else "name",
        "written": name if isinstance(name, str) else None,
    }
    if not isinstance(name, str) or not name.strip() or name != name.strip():
        raise MatchError(f"{kind} {brief(name)} must be non-empty text without outer spaces", **at)
    if len(name) > MAX_NAME_LENGTH:
        raise MatchError(
            f"{kind} {brief(name)} must be at most {MAX_NAME_LENGTH} characters, not {len(name)}",
            **at,
        )
    refused = next((ch for ch in name if not is_name_character(ch)), None)
    if refused is not None:
        raise MatchError(
            f"{kind} {brief(name)} must be text that shows: it holds {character_name(refused)}",
            **at,
        )
    misplaced = misplaced_invisible(name)
    if misplaced is not None:
        raise MatchError(f"{kind} {brief(name)}: {misplaced}", **at)


def validate_players(players: tuple[Player, ...], *, played: int | None = None) -> None:
    """2-8 players at the table, unique names, one deck each and no deck twice at the table
    at once, teams for all or none, sound joining and leaving rounds (`played`: the match's
    rounds, which no seat's rounds may pass)."""
    playing = [player for player in players if player.playing]
    if len(playing) > MAX_PLAYERS:  # (before each seat's checks: a ninth has no deck of its own)
        raise _players_needed(playing, players)
    names: set[str] = set()
    decks = _DeckRounds()
    for player in players:
        name = player.name
        _check_name(name, "player name")
        if seen_as(name) in names:
            raise MatchError("two players have this name", player=name, field="name")
        names.add(seen_as(name))
        if player.deck not in DECKS_BY_NAME:
            raise MatchError(
                f"unknown deck {brief(player.deck)}: expected one of {', '.join(DECKS_BY_NAME)}",
                player=name,
                field="deck",
            )
        _check_seat_rounds(player)
        if played is not None:
            _check_seat_within(player, played)
        decks.take(player)
        if player.team is not None:
            # as strict as a player's name: 'North' and 'North ' would be two teams
            try:
                _check_name(player.team, "team name")
            except MatchError as exc:
                raise MatchError(str(exc), player=name, field="team") from None
    if len(playing) < MIN_PLAYERS:  # after each seat's checks: a 'left' of 1.5 is said as such
        raise _players_needed(playing, players)
    with_team = [player for player in players if player.team is not None]
    if with_team and len(with_team) != len(players):
        loner = next(player for player in players if player.team is None)
        raise MatchError(
            "has no team, but others do: every player belongs to a team or none does",
            player=loner.name,
            field="team",
        )
    if with_team and len({player.team for player in with_team if player.playing}) < 2:
        raise MatchError("a team match needs at least two teams at the table")


def check_teams_written_one_way(
    players: Iterable[Player],
    given: Collection[str] | None = None,
    *,
    teams_given: Collection[str] | None = None,
) -> None:
    """MatchError when two teams, or two players, are one written two ways ('North' and
    'north', or one with a character in it that shows nothing: a joiner, a variation selector,
    a Hangul filler): partners would score apart, players be taken for one another. And when a
    name shows nothing of its own. Asked of seats being given (a new match, seats changed, a
    latecomer: `given`, the names given; None, all), not of matches stored before these rules,
    which load as they were scored (two players stored alike keep their seats). A team written
    another way is said of a seat whose team is given (`teams_given`, names; None: `given`),
    not of the seat that already had it."""
    seated = tuple(players)
    fresh = {p.name for p in seated} if given is None else set(given)
    for player in seated:
        if player.name in fresh and not shows_a_letter(player.name):
            raise MatchError(
                "a name must show a letter, a digit or a sign", player=player.name, field="name"
            )
    for at, player in enumerate(seated):
        if player.name not in fresh:
            continue
        # (said of the later of two given, as written; of the one given beside one stored)
        looks = looks_as(player.name)
        alike = (p for i, p in enumerate(seated) if i < at or (i > at and p.name not in fresh))
        other = next((p.name for p in alike if looks_as(p.name) == looks), None)
        if other is not None:
            raise MatchError(
                f"looks like {other!r} (another case, or a character that shows nothing): "
                "two players the table could not tell apart",
                player=player.name,
                field="name",
            )
    teams: dict[str, str] = {}  # each team as it looks -> as first written
    # (the seats whose team is kept first: their spelling is the match's, and the seat given
    # a team is the one said to write it another way; Ann moved to 's' blamed Bob for his 'S')
    anew = fresh if teams_given is None else set(teams_given)
    for player in sorted(seated, key=lambda p: p.name in anew):
        if player.team is None:
            continue
        if not shows_a_letter(player.team):
            raise MatchError(
                f"team {brief(player.team)}: a name must show a letter, a digit or a sign",
                player=player.name,
                field="team",
            )
        first = teams.setdefault(looks_as(player.team), player.team)
        if first != player.team:
            raise MatchError(
                f"team {player.team!r} is team {first!r} written another way (in another case, "
                "or with a character that shows nothing): write it one way, or the partners "
                "score apart",
                player=player.name,
                field="team",
            )


def _players_needed(playing: list[Player], players: tuple[Player, ...]) -> MatchError:
    still = " still playing" if len(playing) < len(players) else ""
    return MatchError(
        f"a match needs {MIN_PLAYERS} to {MAX_PLAYERS} players{still}, got {len(playing)}"
    )


def _check_seat_rounds(player: Player) -> None:
    """MatchError unless the player's joining and leaving rounds and start are whole numbers
    in order."""
    for label, value in (("joined", player.joined), ("start", player.start)):
        if not _is_whole_number(value):
            raise MatchError(f"'{label}' must be a whole number, got {brief(value)}",
                             player=player.name)  # fmt: skip
    if player.joined < 0:
        raise MatchError(f"'joined' must be 0 or more, got {player.joined}", player=player.name)
    if abs(player.start) > MAX_TARGET:
        raise MatchError(
            f"'start' must be between -{MAX_TARGET:,} and {MAX_TARGET:,}, got {player.start}",
            player=player.name,
        )
    if player.left is not None and (
        not _is_whole_number(player.left) or player.left < player.joined
    ):
        raise MatchError(
            f"'left' must be a whole number of rounds from 'joined' ({player.joined}) on, "
            f"got {brief(player.left)}",
            player=player.name,
        )
    _check_sat_out(player)


def _check_sat_out(player: Player) -> None:
    """MatchError unless the rounds a player sat out are whole round numbers in order, inside
    their seat's rounds, and neither its first round nor the last before they left."""
    rounds = player.sat_out
    if not isinstance(rounds, tuple) or not all(_is_whole_number(n) for n in rounds):
        said = brief(list(rounds) if isinstance(rounds, tuple) else rounds)  # as a file holds it
        raise MatchError(
            f"'sat_out' must be a list of round numbers, got {said}", player=player.name
        )
    if any(b <= a for a, b in itertools.pairwise(rounds)):
        raise MatchError(
            f"'sat_out' must list rounds in order, each once, got {brief(list(rounds))}",
            player=player.name,
        )
    if rounds and rounds[0] <= player.joined + 1:
        raise MatchError(
            f"'sat_out' must begin after round {player.joined + 1}, the first of their seat "
            f"(one who sat it out joined later), got {rounds[0]}",
            player=player.name,
        )
    if rounds and player.left is not None and rounds[-1] >= player.left:
        raise MatchError(
            f"'sat_out' must end before round {player.left}, the last they played before "
            f"leaving, got {rounds[-1]}",
            player=player.name,
        )


def _check_seat_within(player: Player, played: int) -> None:
    """MatchError unless the player's rounds are among the match's `played` rounds."""
    if player.joined > played or (player.left is not None and player.left > played):
        raise MatchError(
            f"joined or left after round {max(player.joined, player.left or 0)}, but the "
            f"match has {played} round(s)",
            player=player.name,
        )
    if player.sat_out and player.sat_out[-1] > played:
        raise MatchError(
            f"sat out round {player.sat_out[-1]}, but the match has {played} round(s)",
            player=player.name,
        )


class _DeckRounds:
    """Which seat played each deck in which round, taken seat by seat: a seat is refused when
    another before it played its deck in one of its rounds, or is at the table with it now
    (as `_at_table_together` says of two seats). Linear in the rounds the seats span: each
    seat checked against every other took minutes for a file of thousands of seats."""

    def __init__(self) -> None:
        self._played: dict[str, dict[int, Player]] = {}  # deck -> round -> its player
        self._at_table: dict[str, Player] = {}  # deck -> the seat playing it now

    def take(self, seat: Player) -> None:
        played = self._played.setdefault(seat.deck, {})
        holder = self._at_table.get(seat.deck)
        away = set(seat.sat_out)
        if seat.playing:
            owner = holder or next(
                (played[n] for n in sorted(played) if n > seat.joined and n not in away), None
            )
            rounds: list[int] = []
        else:
            assert seat.left is not None  # (not playing)
            rounds = [n for n in range(seat.joined + 1, seat.left + 1) if n not in away]
            owner = next((played[n] for n in rounds if n in played), None)
            if owner is None and holder is not None:
                holder_away = set(holder.sat_out)
                if any(n > holder.joined and n not in holder_away for n in rounds):
                    owner = holder
        if owner is not None:
            raise MatchError(
                f"deck {seat.deck} is already played by {owner.name}; each player plays their "
                "own deck",
                player=seat.name,
                field="deck",
            )
        if seat.playing:
            self._at_table[seat.deck] = seat
        played.update(dict.fromkeys(rounds, seat))


def _check_deck_free(seat: Player, others: Iterable[Player], *, name: str | None = None) -> None:
    """MatchError unless none of `others` plays `seat`'s deck while `seat` is at the table; the
    player is said as `name` (default: the seat's own)."""
    owner = next((o for o in others if o.deck == seat.deck and _at_table_together(o, seat)), None)
    if owner is not None:
        raise MatchError(
            f"deck {seat.deck} is already played by {owner.name}; each player plays their own deck",
            player=name or seat.name,
            field="deck",
        )


def _at_table_together(a: Player, b: Player) -> bool:
    """Whether two seats play a round together, or both are at the table now (one left as the
    other joined may hand on their deck; one away may lend it to one who joins meanwhile)."""
    if a.playing and b.playing:
        return True
    a_end = math.inf if a.left is None else a.left
    b_end = math.inf if b.left is None else b.left
    first, last = max(a.joined, b.joined) + 1, min(a_end, b_end)
    if first > last:
        return False
    # the rounds both seats span, less those either sat out (one of them left: a finite span)
    away = set(a.sat_out) | set(b.sat_out)
    return any(n not in away for n in range(first, int(last) + 1))


def validate_round(
    players: tuple[Player, ...], round_: Round, *, variant: Variant, number: int
) -> None:
    """Check one round's tallies; `number` (from 1) goes into the message."""
    roster = {player.name: player for player in players}
    known = [player.name for player in players if player.plays_in(number)]
    for name in round_.tallies:
        if name not in roster:
            raise MatchError(not_a_player(players, name), round_number=number, player=name)
        if name not in known:
            seat = roster[name]
            when = (
                f"joined after round {seat.joined}"
                if seat.joined >= number
                else "sat it out"
                if number in seat.sat_out
                else f"left after round {seat.left}"
            )
            raise MatchError(f"not playing in this round ({when})", round_number=number,
                             player=name)  # fmt: skip
    if not MIN_PLAYERS <= len(known) <= MAX_PLAYERS:
        raise MatchError(
            f"{len(known)} players play this round; a round is played by {MIN_PLAYERS} to "
            f"{MAX_PLAYERS}",
            round_number=number,
        )
    for name in known:
        if name not in round_.tallies:
            raise MatchError("missing from the round", round_number=number, player=name)
        tally = round_.tallies[name]
        for label, value, most in (
            ("Dutch", tally.dutch, CARDS_PER_DECK),
            ("Blitz", tally.blitz, BLITZ_PILE_SIZE),
        ):
            if not _is_whole_number(value):
                raise MatchError(
                    f"{label} cards must be a whole number, got {brief(value)}",
                    round_number=number,
                    player=name,
                    pile=label,
                )
            if not 0 <= value <= most:
                raise MatchError(
                    f"{label} cards must be between 0 and {most}, got {value}",
                    round_number=number,
                    player=name,
                    pile=label,
                )
        if tally.dutch + tally.blitz > CARDS_PER_DECK:
            raise MatchError(
                f"{tally.dutch} Dutch + {tally.blitz} Blitz cards is more than the "
                f"{CARDS_PER_DECK} cards in a deck",
                round_number=number,
                player=name,
            )
    if variant == "standard" and all(t.blitz > 0 for t in round_.tallies.values()):
        raise MatchError(
            "nobody has 0 Blitz cards left, but a standard round ends when someone calls Blitz"
            + PLAY_OUT_HINT,
            round_number=number,
        )


def _team_totals(players: Iterable[Player], totals: Mapping[str, int]) -> dict[str, int]:
    teams: dict[str, int] = {}
    for player in players:
        assert player.team is not None
        teams[player.team] = teams.get(player.team, 0) + totals[player.name]
    return teams


def lowest_total(match: Match) -> int:
    """The lowest total of the players at the table: the start a table often gives a player
    who joins late (not in a team match, where a latecomer starts from 0: `join`)."""
    totals = score_match(match).totals
    return min((totals[p.name] for p in match.players if p.playing), default=0)


def score_match(match: Match) -> Standings:
    """Validate the whole match and derive its standings.

    The match is decided after the first round whose totals (team totals with teams) reach
    the target; the highest total then wins, an exact tie at the top is a shared win. A round
    after that one is refused.
    """
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
    _check_starts(match, teams=match.uses_teams)
    decided = score_match(match).decided_after
    late = next((p for p in match.players if decided is not None and p.joined >= decided), None)
    if late is not None:  # as `join` refuses it
        raise MatchError(
            f"joined after round {late.joined}, and the match was decided after round "
            f"{decided}: nobody joins a decided match",
            player=late.name,
        )


def add_round(match: Match, round_: Round) -> Match:
    """The match with one more round, or MatchError (a decided match takes no round)."""
    updated = replace(match, rounds=(*match.rounds, round_))
    score_match(updated)
    return updated


def replace_round(match: Match, number: int, round_: Round) -> Match:
    """Edit round `number` (from 1); everything after is recomputed. Refused when the new
    tallies would decide the match before rounds or seats that came after."""
    _check_round_number(match, number)
    rounds = list(match.rounds)
    rounds[number - 1] = round_
    updated = replace(match, rounds=tuple(rounds))
    _check_decided_last(updated, f"with round {number} as corrected", match)
    return updated


def edit_round(match: Match, number: int, changes: Mapping[str, Tally]) -> Match:
    """Correct some players' tallies in round `number`; the others keep theirs. A name is found
    whichever way it is written (`written_name`)."""
    _check_round_number(match, number)
    corrected = Round(changes).tallies  # names written as kept; one given two ways is refused
    merged = {**match.rounds[number - 1].tallies, **corrected}
    return replace_round(match, number, Round(merged))


def delete_round(match: Match, number: int) -> Match:
    """The match without round `number`; the rounds after it move up, and so do the rounds
    players joined or left after and sat out. The last round taken back (an undo) puts back at
    the table whoever left after it, and takes away again whoever came back after sitting it
    out, so that it can be entered again as it was played; while someone joined after it, it
    is refused (they would have to play it)."""
    _check_round_number(match, number)
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
        _check_decided_last(updated, f"without round {number}", match)
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
        _check_starts(updated, teams=False)
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
        _check_starts(updated, teams=False)
    _check_decided_last(updated, f"with a target of {settings.target}", match)
    return updated


def _check_decided_last(match: Match, cause: str, before: Match) -> Standings:
    """`match`'s standings, or MatchError when `cause` ("with …": the change that made it from
    `before`) has it decided after a round that rounds or a latecomer followed: the match would
    have ended there, and the latecomer would sit in a decided match (which nobody joins, and
    which an undo could not take back while they sat there). A match decided so already (as an
    earlier blitzcam stored it) takes other changes. One who left after the deciding round
    played it: the table may end a match as a player goes home."""
    try:
        standings = score_match(match)
    except DecidedMatchError as exc:
        raise MatchError(
            f"{cause}, the match is decided after round {exc.decided_after}, but round "
            f"{exc.round_number} was played after it"
        ) from None
    decided = standings.decided_after
    if decided is None:
        return standings
    was = score_match(before).decided_after
    if was is not None and was <= decided:  # decided there, or earlier, before the change
        return standings
    for seat in match.players:
        if seat.joined >= decided:
            raise MatchError(
                f"{cause}, the match is decided after round {decided}, but they joined after it "
                "(nobody joins a decided match: let them leave first)",
                player=seat.name,
            )
    return standings


def _check_starts(match: Match, *, teams: bool) -> None:
    """Every latecomer's start as `join` would take it now: with `teams`, from 0 (a start
    would go to the team's total); without, below the target before their first round."""
    for seat in match.players:
        if seat.start == 0:
            continue
        if teams:
            raise MatchError(
                f"started from {seat.start}, and a team match takes latecomers from 0 (the start "
                "would go to their team's total)",
                player=seat.name,
            )
        if seat.joined >= len(match.rounds) and seat.start >= match.settings.target:
            raise MatchError(
                f"a start of {seat.start} reaches the target ({match.settings.target}) before "
                "their first round",
                player=seat.name,
            )


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
        _check_starts(updated, teams=True)
    # (only teams can move when the match is decided: names and decks score as they did)
    _check_decided_last(updated, "with the teams as given", match)
    return updated


def change_player(
    match: Match, name: str, *, new_name: str | None = None, deck: str | None = None,
    team: str | None = None,
) -> Match:  # fmt: skip
    """One seat changed (`change_players` for the others as they are), its refusals naming
    that seat: checking the whole table blames whichever of two seats sits later."""
    seat = next((p for p in match.players if p.name == written_name(name)), None)
    if seat is None:
        names = ", ".join(player.name for player in match.players)
        raise MatchError(f"no player {brief(name)} in this match: {names}")
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
    _check_deck_free(changed, [p for p in match.players if p is not seat], name=seat.name)
    with _naming(seat.name):
        return change_players(match, [changed if p is seat else p for p in match.players])


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
    if _is_whole_number(start) and start >= match.settings.target:
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
                "they come back to their own seat and total instead"
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


def not_a_player(players: tuple[Player, ...], name: str = "") -> str:
    """The rule `name`, which no seat has, breaks, with the seats it might have meant: the one
    it looks like (another case, outer spaces), or else all of them (a command acts on the
    match changed last, which may not be the one a player thought of)."""

    # (a name with a comma in it quoted: "Ann, Bob, Jr" read as three)
    def said(seat: str) -> str:
        return brief(seat) if "," in seat else shown_name(seat)

    looks = looks_as(name.strip()) if isinstance(name, str) else None
    meant = [p.name for p in players if looks and looks_as(p.name) == looks]
    if len(meant) == 1:
        return f"not a player in this match: did you mean {said(meant[0])}?"
    return f"not a player in this match (its players: {', '.join(said(p.name) for p in players)})"


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
        if _is_whole_number(seat.start) and seat.start >= match.settings.target:
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


def can_leave(match: Match, standings: Standings | None = None) -> bool:
    """Whether someone at the table may leave now (`may_leave`)."""
    return bool(may_leave(match, standings))


def blitz_caller(round_: Round) -> str | None:
    """The player who called Blitz: the one with no Blitz cards left, when only one has none."""
    emptied = [name for name, tally in round_.tallies.items() if tally.blitz == 0]
    return emptied[0] if len(emptied) == 1 else None


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


def at_table(match: Match) -> tuple[Player, ...]:
    """The players of the next round (everyone who has not left)."""
    return tuple(player for player in match.players if player.playing)


def last_round(match: Match) -> int:
    """The number of the match's last round, the one an undo takes back; MatchError when it
    has none."""
    if not match.rounds:
        raise MatchError("there is no round to undo")
    return len(match.rounds)


def taken_off(before: Match, after: Match) -> tuple[str, ...]:
    """The players seated in `before` whose seats `after` no longer has (one whose only round
    was deleted, one who left before playing), in seat order."""
    kept = {player.name for player in after.players}
    return tuple(player.name for player in before.players if player.name not in kept)


def _check_round_number(match: Match, number: int) -> None:
    if not _is_whole_number(number) or not 1 <= number <= len(match.rounds):
        raise MatchError(f"no round {number}: the match has {len(match.rounds)} round(s)")
