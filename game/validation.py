"""Whether players, settings and rounds keep the rules (game/rules.py applies the changes):
each check raises MatchError saying which rule, and of which player, field and round."""

from __future__ import annotations

import itertools
import math
from collections.abc import Collection, Iterable

from blitzcam.game.decks import (
    BLITZ_PILE_SIZE,
    CARDS_PER_DECK,
    DECK_NAME_MAX,
    DECKS_BY_NAME,
    meant_deck,
    typed_deck_name,
)
from blitzcam.game.match_model import (
    MAX_PLAYERS,
    MAX_TARGET,
    MIN_PLAYERS,
    PLAY_OUT_HINT,
    VARIANTS,
    Match,
    MatchError,
    Player,
    Round,
    Settings,
    Tally,
    Variant,
    is_whole_number,
    not_a_player,
)
from blitzcam.game.names import (
    MAX_NAME_LENGTH,
    begins_with_a_mark,
    brief,
    character_name,
    how_alike,
    is_name_character,
    looks_as,
    misplaced_invisible,
    seen_as,
    shows_a_letter,
)


def validate_settings(settings: Settings) -> None:
    if not is_whole_number(settings.target) or not 0 < settings.target <= MAX_TARGET:
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
    names: dict[str, str] = {}  # each name as it looks -> as first written
    decks = _DeckRounds()
    for player in players:
        name = player.name
        _check_name(name, "player name")
        earlier = names.get(seen_as(name))
        if earlier == name:
            raise MatchError("two players have this name", player=name, field="name")
        if earlier is not None:  # (said as the same name, typed apart only by a joiner)
            raise MatchError(
                f"differs from {earlier!r} only in a joiner (U+200C or U+200D, which joins or "
                "parts the characters beside it): two players told apart by that alone",
                player=name,
                field="name",
            )
        names[seen_as(name)] = name
        if player.deck not in DECKS_BY_NAME:
            raise MatchError(
                f"unknown deck {brief(player.deck)}: {_meant(player.deck)}expected one of "
                f"{', '.join(DECKS_BY_NAME)}",
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
        if player.name in fresh and (marked := begins_with_a_mark(player.name)) is not None:
            raise MatchError(marked, player=player.name, field="name")
    # each name's look once, and where each look is first seated (and first stored): a seat
    # against every other, each look made again, takes 52 s for a file of 4,000 seats
    looks = [looks_as(p.name) for p in seated]
    first: dict[str, int] = {}
    first_stored: dict[str, int] = {}
    for at, (player, look) in enumerate(zip(seated, looks, strict=True)):
        first.setdefault(look, at)
        if player.name not in fresh:
            first_stored.setdefault(look, at)
    for at, player in enumerate(seated):
        if player.name not in fresh:
            continue
        # said of the later of two given, as written; of the one given beside one stored
        # (wherever it sits): the first seat before it that looks the same, else the first
        # stored one after it
        earliest = first[looks[at]]
        alike = earliest if earliest < at else first_stored.get(looks[at])
        other = None if alike is None else seated[alike].name
        if other is not None:
            raise MatchError(
                f"looks like {other!r} (they differ only in "
                f"{how_alike(player.name, other)}): two players the table could not tell apart",
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
        if player.name in anew and (marked := begins_with_a_mark(player.team)) is not None:
            raise MatchError(
                f"team {brief(player.team)}: {marked}", player=player.name, field="team"
            )
        first = teams.setdefault(looks_as(player.team), player.team)
        # (of a seat given its team only: two stored written two ways blocked every latecomer)
        if first != player.team and player.name in anew:
            raise MatchError(
                f"team {player.team!r} is team {first!r} written another way (they differ "
                f"only in {how_alike(player.team, first)}): write it one way, or the partners "
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
        if not is_whole_number(value):
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
        not is_whole_number(player.left) or player.left < player.joined
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
    if not isinstance(rounds, tuple) or not all(is_whole_number(n) for n in rounds):
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
            f"match has {_rounds(played)}",
            player=player.name,
        )
    if player.sat_out and player.sat_out[-1] > played:
        raise MatchError(
            f"sat out round {player.sat_out[-1]}, but the match has {_rounds(played)}",
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
                deck_taken(seat.deck, owner, seat.name), player=seat.name, field="deck"
            )
        if seat.playing:
            self._at_table[seat.deck] = seat
        played.update(dict.fromkeys(rounds, seat))


def check_deck_free(seat: Player, others: Iterable[Player], *, name: str | None = None) -> None:
    """MatchError unless none of `others` plays `seat`'s deck while `seat` is at the table; the
    player is said as `name` (default: the seat's own)."""
    owner = next((o for o in others if o.deck == seat.deck and _at_table_together(o, seat)), None)
    if owner is not None:
        said = name or seat.name
        raise MatchError(deck_taken(seat.deck, owner, said), player=said, field="deck")


def deck_taken(deck: str, owner: Player, seat: str) -> str:
    """Why `seat` may not play `deck`: `owner` plays it at the table, or played it in rounds
    `seat` played too and has left (a seat's deck is its deck in every round it played, so a
    deck freed by a leaver goes to someone who joins after, not to a player who sat beside
    them)."""
    if owner.playing:
        return f"deck {deck} is already played by {owner.name}; each player plays their own deck"
    return (
        f"deck {deck} was {owner.name}'s in rounds {seat} played too ({owner.name} has left; a "
        "player's deck is theirs in every round they play)"
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


def most_cards(pile: str) -> int:
    """The most cards a player can have in `pile` ("Dutch" or "Blitz") at a round's end: a
    deck's, or a Blitz pile's as it is dealt."""
    return BLITZ_PILE_SIZE if pile == "Blitz" else CARDS_PER_DECK


def tally_problem(tally: Tally) -> str | None:
    """What the rules refuse in one player's whole-number counts, in words, as they are typed
    or counted (a table of another step in view): None when nothing. `validate_round` says
    the same when a round is saved."""
    for pile, value in (("Dutch", tally.dutch), ("Blitz", tally.blitz)):
        if value > most_cards(pile):
            held = "a deck holds" if pile == "Dutch" else "a Blitz pile is dealt"
            return f"{value} {pile} cards: {held} {most_cards(pile)}"
    if tally.dutch + tally.blitz > CARDS_PER_DECK:
        return (
            f"{tally.dutch} Dutch + {tally.blitz} Blitz cards is more than the "
            f"{CARDS_PER_DECK} cards in a deck"
        )
    return None


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
            ("Dutch", tally.dutch, most_cards("Dutch")),
            ("Blitz", tally.blitz, most_cards("Blitz")),
        ):
            if not is_whole_number(value):
                raise MatchError(
                    f"{label} cards must be a whole number, got {brief(value)}",
                    round_number=number,
                    player=name,
                    pile=label,
                )
            if not 0 <= value <= most:
                raise MatchError(
                    f"{label} cards must be between 0 and {most}, got {brief(value)}",
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


def check_starts(match: Match, *, teams: bool) -> None:
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
        # (a seat that left before playing counts too: imported with a start past the target,
        # it stood on the board past it, "in progress", and could not come back)
        played = any(seat.plays_in(number) for number in range(1, len(match.rounds) + 1))
        if not played and seat.start >= match.settings.target:
            raise MatchError(
                f"a start of {seat.start} reaches the target ({match.settings.target}) before "
                "their first round",
                player=seat.name,
            )


def check_round_number(match: Match, number: int) -> None:
    if not is_whole_number(number) or not 1 <= number <= len(match.rounds):
        first = " (rounds are numbered from 1)" if number == 0 else ""
        raise MatchError(f"no round {number}: the match has {_rounds(len(match.rounds))}{first}")


def _rounds(n: int) -> str:
    """'1 round', '3 rounds' (game.text's round_count, which imports the rules)."""
    return f"{n} round" if n == 1 else f"{n} rounds"


def _meant(deck: object) -> str:
    """ "did you mean green-pump? " for a deck named as a person might slip typing it (a letter
    out, two swapped, another case); "" otherwise."""
    if not isinstance(deck, str) or len(deck) > DECK_NAME_MAX:
        return ""
    typed = typed_deck_name(deck)
    meant = typed if typed in DECKS_BY_NAME else meant_deck(typed)
    return f"did you mean {meant}? " if meant else ""
