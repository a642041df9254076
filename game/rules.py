"""The scoring rules of Dutch Blitz as the published rules give them: pure records and functions.

A round gives, per player, the cards they got into the shared Dutch piles and the cards
left in their Blitz pile. Round score = Dutch - 2 x Blitz. Running totals decide the match
once one reaches the target; with teams, partners share one total.
"""

from __future__ import annotations

import reprlib
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Final, Literal, get_args

from blitzcam.game.decks import BLITZ_PILE_SIZE, CARDS_PER_DECK, DECKS_BY_NAME

Variant = Literal["standard", "play-out"]
Status = Literal["in-progress", "won", "shared"]

VARIANTS: Final[tuple[str, ...]] = get_args(Variant)
DEFAULT_TARGET: Final = 75
COMMON_TARGETS: Final = (75, 100, 150)
MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 8
MAX_NAME_LENGTH: Final = 40
# far above any target people play to, far below what the match store's integers hold
MAX_TARGET: Final = 1_000_000


class MatchError(ValueError):
    """A rule was broken. Knows the round (counting from 1) and the player, when there is one."""

    def __init__(self, rule: str, *, round_number: int | None = None, player: str | None = None):
        self.rule = rule
        self.round_number = round_number
        self.player = player
        where = []
        if round_number is not None:
            where.append(f"round {round_number}")
        if player is not None:  # unprintable names (a newline, an escape code) quoted
            where.append(f"player {shown_name(player)}")
        super().__init__(f"{', '.join(where)}: {rule}" if where else rule)


def is_name_character(ch: str) -> bool:
    """Whether a name may hold `ch`: printable text, and the invisible characters real names
    need (the joiners of Persian and Indic spellings and of emoji such as 👩‍💻, the tags of
    a flag emoji). Controls, line breaks and the marks that reorder text on screen are not."""
    return ch.isprintable() or ch in _NAME_JOINERS or "\U000e0020" <= ch <= "\U000e007f"


_NAME_JOINERS: Final = frozenset("\u200c\u200d")  # zero-width non-joiner, joiner


def _brief_repr() -> reprlib.Repr:
    shortened = reprlib.Repr()  # keywords only from Python 3.12
    shortened.maxstring = shortened.maxother = shortened.maxlong = 60
    shortened.maxlist = shortened.maxdict = shortened.maxtuple = 6
    shortened.maxlevel = 2
    return shortened


_BRIEF: Final = _brief_repr()


def brief(value: object) -> str:
    """A value as an error message quotes it: its repr, cut short (a 5 MB string given as a
    name is a one-line error, not a 5 MB one)."""
    return _BRIEF.repr(value)


def shown_name(name: str) -> str:
    """A name as messages show it: quoted when it holds what a terminal would act on (a
    newline, an escape code), so that a message stays one line of plain text; cut short when
    longer than a name may be."""
    plain = len(name) <= MAX_NAME_LENGTH and all(is_name_character(ch) for ch in name)
    return name if plain else brief(name)


def written_name(name: str) -> str:
    """A player's or team's name as blitzcam keeps it: in Unicode's composed form (NFC), any
    space written as a plain one. 'José' typed as é on one keyboard and as e + a combining
    accent on another (or pasted from a file name on macOS), or 'Anne Marie' with a no-break
    space, is then one name, found whichever way it is typed again."""
    if not isinstance(name, str) or name.isascii():
        return name
    spaced = "".join(" " if unicodedata.category(ch) == "Zs" else ch for ch in name)
    return unicodedata.normalize("NFC", spaced)


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
    """One seat of a match. Its name and team are kept as `written_name` writes them."""

    name: str
    deck: str
    team: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", written_name(self.name))
        object.__setattr__(self, "team", written_name(self.team))


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

    round_scores: tuple[Mapping[str, int], ...]
    totals: Mapping[str, int]
    team_totals: Mapping[str, int] | None
    status: Status
    winners: tuple[str, ...]
    decided_after: int | None  # the round (from 1) whose totals first reached the target

    @property
    def running_totals(self) -> tuple[dict[str, int], ...]:
        """Each player's total after each round, for the chart."""
        running: dict[str, int] = dict.fromkeys(self.totals, 0)
        out = []
        for scores in self.round_scores:
            for name, score in scores.items():
                running[name] += score
            out.append(dict(running))
        return tuple(out)

    @property
    def leaders(self) -> tuple[str, ...]:
        """Who is ahead now (team names when teams are used); several on a tie."""
        board = self.team_totals if self.team_totals is not None else self.totals
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
    without outer spaces, not too long."""
    if not isinstance(name, str) or not name.strip() or name != name.strip():
        raise MatchError(f"{kind} {brief(name)} must be non-empty text without outer spaces")
    if len(name) > MAX_NAME_LENGTH:
        raise MatchError(
            f"{kind} {brief(name)} must be at most {MAX_NAME_LENGTH} characters, not {len(name)}"
        )
    refused = next((ch for ch in name if not is_name_character(ch)), None)
    if refused is not None:
        raise MatchError(
            f"{kind} {brief(name)} must be text that shows: it holds {_character_name(refused)}"
        )


def _character_name(ch: str) -> str:
    return f"U+{ord(ch):04X} ({unicodedata.name(ch, unicodedata.category(ch))})"


def validate_players(players: tuple[Player, ...]) -> None:
    """2-8 players, unique names, one deck each and no deck twice, teams for all or none."""
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise MatchError(
            f"a match needs {MIN_PLAYERS} to {MAX_PLAYERS} players, got {len(players)}"
        )
    deck_owner: dict[str, str] = {}
    names: set[str] = set()
    for player in players:
        name = player.name
        _check_name(name, "player name")
        if name in names:
            raise MatchError("two players have this name", player=name)
        names.add(name)
        if player.deck not in DECKS_BY_NAME:
            raise MatchError(
                f"unknown deck {brief(player.deck)}: expected one of {', '.join(DECKS_BY_NAME)}",
                player=name,
            )
        if player.deck in deck_owner:
            raise MatchError(
                f"deck {player.deck} is already played by {deck_owner[player.deck]}; "
                "each player plays their own deck",
                player=name,
            )
        deck_owner[player.deck] = name
        if player.team is not None:
            # as strict as a player's name: 'North' and 'North ' would be two teams
            try:
                _check_name(player.team, "team name")
            except MatchError as exc:
                raise MatchError(str(exc), player=name) from None
    with_team = [player for player in players if player.team is not None]
    if with_team and len(with_team) != len(players):
        loner = next(player for player in players if player.team is None)
        raise MatchError(
            "has no team, but others do: every player belongs to a team or none does",
            player=loner.name,
        )
    if with_team and len({player.team for player in with_team}) < 2:
        raise MatchError("a team match needs at least two teams")


def validate_round(
    players: tuple[Player, ...], round_: Round, *, variant: Variant, number: int
) -> None:
    """Check one round's tallies; `number` (from 1) goes into the message."""
    known = [player.name for player in players]
    for name in round_.tallies:
        if name not in known:
            raise MatchError("not a player in this match", round_number=number, player=name)
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
                )
            if not 0 <= value <= most:
                raise MatchError(
                    f"{label} cards must be between 0 and {most}, got {value}",
                    round_number=number,
                    player=name,
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
            "nobody has 0 Blitz cards left, but a standard round ends when someone calls Blitz "
            "(use the play-out variant for rounds played out)",
            round_number=number,
        )


def _team_totals(players: tuple[Player, ...], totals: Mapping[str, int]) -> dict[str, int]:
    teams: dict[str, int] = {}
    for player in players:
        assert player.team is not None
        teams[player.team] = teams.get(player.team, 0) + totals[player.name]
    return teams


def score_match(match: Match) -> Standings:
    """Validate the whole match and derive its standings.

    The match is decided after the first round whose totals (team totals with teams) reach
    the target; the highest total then wins, an exact tie at the top is a shared win. A round
    after that one is refused.
    """
    validate_settings(match.settings)
    validate_players(match.players)
    names = [player.name for player in match.players]
    totals = dict.fromkeys(names, 0)
    round_scores: list[Mapping[str, int]] = []
    decided_after: int | None = None
    board: Mapping[str, int] = totals
    for number, round_ in enumerate(match.rounds, start=1):
        if decided_after is not None:
            raise MatchError(
                f"the match was already decided after round {decided_after} "
                f"(target {match.settings.target}); no round may follow",
                round_number=number,
            )
        validate_round(match.players, round_, variant=match.settings.variant, number=number)
        scores = {name: round_.tallies[name].score for name in names}
        round_scores.append(MappingProxyType(scores))
        for name, score in scores.items():
            totals[name] += score
        board = _team_totals(match.players, totals) if match.uses_teams else totals
        if max(board.values()) >= match.settings.target:
            decided_after = number
    team_totals = _team_totals(match.players, totals) if match.uses_teams else None
    board = team_totals if team_totals is not None else totals
    status: Status = "in-progress"
    winners: tuple[str, ...] = ()
    if decided_after is not None:
        best = max(board.values())
        winners = tuple(name for name, total in board.items() if total == best)
        status = "won" if len(winners) == 1 else "shared"
    return Standings(
        round_scores=tuple(round_scores),
        totals=MappingProxyType(totals),
        team_totals=MappingProxyType(team_totals) if team_totals is not None else None,
        status=status,
        winners=winners,
        decided_after=decided_after,
    )


def new_match(players: Iterable[Player], settings: Settings | None = None) -> Match:
    match = Match(players=tuple(players), settings=settings or Settings())
    score_match(match)
    return match


def add_round(match: Match, round_: Round) -> Match:
    """The match with one more round, or MatchError (a decided match takes no round)."""
    updated = replace(match, rounds=(*match.rounds, round_))
    score_match(updated)
    return updated


def replace_round(match: Match, number: int, round_: Round) -> Match:
    """Edit round `number` (from 1); everything after is recomputed."""
    _check_round_number(match, number)
    rounds = list(match.rounds)
    rounds[number - 1] = round_
    updated = replace(match, rounds=tuple(rounds))
    score_match(updated)
    return updated


def edit_round(match: Match, number: int, changes: Mapping[str, Tally]) -> Match:
    """Correct some players' tallies in round `number`; the others keep theirs. A name is found
    whichever way it is written (`written_name`)."""
    _check_round_number(match, number)
    corrected = Round(changes).tallies  # names written as kept; one given two ways is refused
    merged = {**match.rounds[number - 1].tallies, **corrected}
    return replace_round(match, number, Round(merged))


def delete_round(match: Match, number: int) -> Match:
    _check_round_number(match, number)
    rounds = match.rounds[: number - 1] + match.rounds[number:]
    updated = replace(match, rounds=rounds)
    score_match(updated)
    return updated


def change_settings(match: Match, settings: Settings) -> Match:
    """Raising the target reopens a decided match; lowering it may decide it at once."""
    updated = replace(match, settings=settings)
    score_match(updated)
    return updated


def change_players(match: Match, players: Iterable[Player]) -> Match:
    """The same seats with other names, decks or teams (a name mistyped, decks handed out
    differently, partners swapped): each seat keeps its tallies in every round, under its new
    name. The number of players stays: every round holds a tally for each of them."""
    seated = tuple(players)
    if len(seated) != len(match.players):
        raise MatchError(
            f"the match has {len(match.players)} players, got {len(seated)}: players cannot "
            "join or leave a match under way"
        )
    validate_players(seated)  # before renaming the rounds: two equal names would merge tallies
    renamed = {old.name: new.name for old, new in zip(match.players, seated, strict=True)}
    rounds = tuple(
        Round({renamed.get(name, name): tally for name, tally in round_.tallies.items()})
        for round_ in match.rounds
    )
    updated = replace(match, players=seated, rounds=rounds)
    score_match(updated)
    return updated


def _check_round_number(match: Match, number: int) -> None:
    if not _is_whole_number(number) or not 1 <= number <= len(match.rounds):
        raise MatchError(f"no round {number}: the match has {len(match.rounds)} round(s)")
