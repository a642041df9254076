"""The records of a match (players, rounds, settings, standings) and the queries the rules ask
of them, with the errors the rules raise: pure, frozen records."""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Final, Literal, get_args

from blitzcam.game.names import (
    brief,
    looks_as,
    shown_name,
    written_name,
)

Variant = Literal["standard", "play-out"]
Status = Literal["in-progress", "won", "shared"]

VARIANTS: Final[tuple[str, ...]] = get_args(Variant)
DEFAULT_TARGET: Final = 75
COMMON_TARGETS: Final = (75, 100, 150)
MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 8
# how a standard round with no Blitz caller is refused ends: the other variant takes it, and
# where it is chosen
# how a player who left comes back, where their joining again under their name is refused
COME_BACK_HINT: Final = (
    " (Match › A player comes back… in the app, `blitzcam match rejoin NAME` at the terminal)"
)
PLAY_OUT_HINT: Final = (
    " (rounds played out are scored in the play-out variant: Match › Match settings… in the "
    "app, `blitzcam match settings --variant play-out` at the terminal)"
)
# far above any target people play to, far below what the match store's integers hold
MAX_TARGET: Final = 1_000_000
# far more rounds than any evening's match (some 80 hours of play): a match file of 300,000
# play-out rounds, under the file size limit, took 14 s to import and the app 49 s and 2.3 GB
# to open on every start, it being the newest unfinished match
MAX_ROUNDS: Final = 1_000


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


def is_whole_number(value: object) -> bool:
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


def team_meant(teams: Iterable[str], team: str) -> str | None:
    """The match's team that `team` is written another way (another case, a character that
    shows nothing), which the rules refuse as a second team: None when it is none of them."""
    looks = looks_as(team)
    return next((written for written in teams if looks_as(written) == looks), None)


@dataclass(frozen=True, slots=True)
class NewTeam:
    """A team a seat names that its match does not have yet: likely a slip of the match's
    team `meant` ('north' for North), or (None) a new team. Either is asked about before it is
    taken: a typo ('Nrth') would make a team of one that plays against its own side."""

    name: str
    meant: str | None


def new_team(teams: Iterable[str], team: str | None) -> NewTeam | None:
    """What to ask of `team`, named for a seat of a match whose teams are `teams`: None where
    it is one of them (as the match keeps it: 'José' typed either way), none is named, or the
    match has no teams (the rules say whether one is wanted)."""
    teams = tuple(teams)
    if team is None or not teams:
        return None
    team = written_name(team)
    if team in teams:
        return None
    return NewTeam(team, team_meant(teams, team))


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


def blitz_caller(round_: Round) -> str | None:
    """The player who called Blitz: the one with no Blitz cards left, when only one has none."""
    emptied = [name for name, tally in round_.tallies.items() if tally.blitz == 0]
    return emptied[0] if len(emptied) == 1 else None


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
