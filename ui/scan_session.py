"""A round being scanned: two steps (Dutch cards, then Blitz cards left), each with one or more
shots whose counts are summed. Immutable; every change returns a new session. No Qt widgets here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Final

import numpy as np

from blitzcam.game.counts import STEPS, Step
from blitzcam.game.rules import Player, Round, Tally, blitz_caller, most_cards, other_players
from blitzcam.game.text import LEFT_TO_RIGHT_MARK, isolated, left_to_right, listed
from blitzcam.ui.counting_worker import CountSnapshot
from blitzcam.ui.deck_colours import deck_label

STEP_TITLES: Final[dict[str, str]] = {
    "dutch": "Step 1 of 2:\nDutch cards",
    "blitz": "Step 2 of 2:\nBlitz cards left",
}
STEP_HINTS: Final[dict[str, str]] = {
    "dutch": "Each player spreads the cards they got into the Dutch piles, backs up.",
    "blitz": "Each player spreads the cards left in their Blitz pile, backs up.",
}


WARNING_MARK: Final = "⚠ "  # how each of the table's warnings begins


def table_warnings(snapshot: CountSnapshot) -> str:
    """What the players should fix on the table before shooting it, one line each ("" when
    nothing): face-up cards are never counted, backs no deck in play was recognised on (drawn
    grey) count for nobody, two decks in play that look alike may share their cards, and a
    picture too small or too dark for its count to be trusted."""
    lines = []
    if (size := snapshot.small_picture) is not None:
        lines.append(
            f"⚠ The picture is small ({size[0]}x{size[1]}): cards may be read wrong; blitzcam "
            "counts at 1280x720 or more (a camera: set it so)"
        )
    elif snapshot.dark_picture:
        lines.append("⚠ The picture is very dark: cards may be missed; light the table")
    if face_up := snapshot.face_up:
        plural = face_up != 1
        lines.append(
            f"⚠ {face_up} face-up card{'s' if plural else ''}: flip {'them' if plural else 'it'}"
        )
    if unknown := snapshot.unknown:
        plural = unknown != 1
        lines.append(
            f"⚠ {unknown} back{'s' if plural else ''} (grey) not recognised: counted for "
            "nobody; more light? a deck nobody here plays? new art: Camera → Enroll decks…"
        )
    for deck, other in snapshot.look_alike:  # (named as the app names decks everywhere)
        lines.append(
            f"⚠ {deck_label(deck)} and {deck_label(other)} look alike to blitzcam: their cards "
            "may be counted to each other; check both counts"
        )
    return "\n".join(lines)


@dataclass(frozen=True, slots=True, eq=False)
class Shot:
    """One frozen capture: the frame and what was counted on it."""

    frame: np.ndarray  # BGR
    snapshot: CountSnapshot
    view: int = -1  # which of the source's frames it is (-1: not known)


def in_brief(warnings: str) -> str:
    """The warnings on one line, each up to its first colon: what is wrong, not yet what to do
    (a compact scan's panel; the whole in its tooltip). One line a warning, at 150 % text in a
    1024 x 640 window, left two of four players' rows in view."""
    # (a warning marked left to right, its names isolated, is a warning: kept whole, it took
    # the panel again, "⚠" twice)
    lines = [line.removeprefix(LEFT_TO_RIGHT_MARK) for line in warnings.splitlines()]
    said = [
        # (a line of another kind, a video's end note, is kept whole: cut, it was a file name)
        line.split(": ", 1)[0].removeprefix(WARNING_MARK) if line.startswith(WARNING_MARK) else line
        for line in lines
    ]
    return WARNING_MARK + " · ".join(said) if said else ""


def over_a_pile(players: tuple[Player, ...], counts: Mapping[str, int], step: Step) -> str:
    """A warning ("" for none) for the players in view with more cards than the step's piles
    can hold: in the Blitz step, the Dutch piles still in view most often (the demo's full
    tables came to it as 21 cards, refused only at Confirm); in the Dutch step, two decks of
    one back."""
    blitz = step == "blitz"
    most = most_cards("Blitz" if blitz else "Dutch")
    # (each name isolated: a right-to-left name drew its count beside the name before it)
    counted = player_counts(players, counts).items()
    over = [f"{isolated(name)} {n}" for name, n in counted if n > most]
    if not over:
        return ""
    if blitz:
        return left_to_right(
            f"⚠ more than a Blitz pile's {most} cards in view ({listed(over)}): the Dutch "
            "piles still there? Show each player's Blitz pile alone"
        )
    return left_to_right(
        f"⚠ more than a deck's {most} cards in view ({listed(over)}): two decks with one back "
        "on the table?"
    )


def player_counts(players: tuple[Player, ...], counts: Mapping[str, int]) -> dict[str, int]:
    """Deck counts -> counts per player name (each player plays one deck)."""
    return {player.name: int(counts.get(player.deck, 0)) for player in players}


def look_alike_players(players: tuple[Player, ...], shots: tuple[Shot, ...]) -> tuple[str, ...]:
    """The players whose deck looked like another player's on any shot (their counts to check),
    in seat order."""
    decks = {deck for shot in shots for pair in shot.snapshot.look_alike for deck in pair}
    return tuple(player.name for player in players if player.deck in decks)


def summed(players: tuple[Player, ...], shots: tuple[Shot, ...]) -> dict[str, int]:
    """Per-player sum over several shots (cards that did not fit in one view)."""
    total = dict.fromkeys((p.name for p in players), 0)
    for shot in shots:
        for name, n in player_counts(players, shot.snapshot.counts).items():
            total[name] += n
    return total


@dataclass(frozen=True, slots=True)
class ScanSession:
    players: tuple[Player, ...]
    step: Step = "dutch"
    dutch_shots: tuple[Shot, ...] = ()
    blitz_shots: tuple[Shot, ...] = ()

    def shots(self, step: Step | None = None) -> tuple[Shot, ...]:
        return self.dutch_shots if (step or self.step) == "dutch" else self.blitz_shots

    def with_shot(self, shot: Shot) -> ScanSession:
        if self.step == "dutch":
            return replace(self, dutch_shots=(*self.dutch_shots, shot))
        return replace(self, blitz_shots=(*self.blitz_shots, shot))

    def without_last_shot(self) -> ScanSession:
        if self.step == "dutch":
            return replace(self, dutch_shots=self.dutch_shots[:-1])
        return replace(self, blitz_shots=self.blitz_shots[:-1])

    def next_step(self) -> ScanSession:
        if self.step == "blitz":
            raise ValueError("the Blitz step is the last step of a scan")
        return replace(self, step="blitz")

    def previous_step(self) -> ScanSession:
        return replace(self, step="dutch")

    def holds_view(self, view: int) -> bool:
        """A shot of the source's frame `view` is in either step (summing a frame twice would
        count its cards twice, and a Dutch view is not the Blitz cards too)."""
        return view >= 0 and any(shot.view == view for shot in self.all_shots)

    def step_that_shot_scene(self, scene: int) -> Step | None:
        """The step holding a shot of the live vote's view `scene` (another frame of it: nothing
        on the table changed since), None when no shot is of it."""
        for step in STEPS:
            if any(shot.snapshot.scene == scene for shot in self.shots(step)):
                return step
        return None

    def totals(self, step: Step | None = None) -> dict[str, int]:
        return summed(self.players, self.shots(step))

    def proposed_round(self) -> Round:
        """The counted round, for the players to confirm or correct."""
        dutch, blitz = self.totals("dutch"), self.totals("blitz")
        return Round(
            {p.name: Tally(dutch=dutch[p.name], blitz=blitz[p.name]) for p in self.players}
        )

    @property
    def all_shots(self) -> tuple[Shot, ...]:
        return (*self.dutch_shots, *self.blitz_shots)


@dataclass(frozen=True, slots=True)
class Reviewed:
    """What a review shows again after one that was left: the counts, who is picked as the
    Blitz caller, and how many counts are the players' own."""

    round: Round
    caller: str | None
    # the caller's Blitz count before the pick zeroed it, given back if the pick is taken
    # back; None: the caller is picked afresh (their count zeroed now)
    caller_before: int | None
    kept: int


@dataclass(frozen=True, slots=True)
class Corrections:
    """What the players made of a scan's proposal in a review they left (Esc, or Cancel to
    take one more shot): reviewed again, it was the shots' counts once more, every number they
    had typed over lost."""

    proposed: Round  # what the shots proposed then
    shown: Round  # the counts as they left them
    caller: str | None  # who they said called Blitz
    caller_before: int | None = None  # the caller's count before the pick zeroed it

    @property
    def any(self) -> bool:
        """Whether they changed anything: a count, or the caller the shots named."""
        return self.over(self.proposed).kept > 0 or self.caller != blitz_caller(self.proposed)

    def renamed(self, names: Mapping[str, str]) -> Corrections:
        """These corrections with their players renamed (`names`: old name to new), as they
        were elsewhere while the scan was open (a count typed for Bob was lost on Rob)."""

        def of(counts: Round) -> Round:
            return Round({names.get(name, name): tally for name, tally in counts.tallies.items()})

        caller = None if self.caller is None else names.get(self.caller, self.caller)
        return replace(self, proposed=of(self.proposed), shown=of(self.shown), caller=caller)

    def over(self, proposed: Round) -> Reviewed:
        """`proposed` (the shots' counts now) with each count they typed kept where the shots
        still propose what they did then (a count that a shot taken or dropped since changed
        is the shots' new one), and the caller they said, unless the shots now say another or
        changed the caller's own count."""
        tallies = {}
        for name, now in proposed.tallies.items():
            then, shown = self.proposed.tallies.get(name), self.shown.tallies.get(name)
            if then is None or shown is None:
                tallies[name] = now
                continue
            dutch = shown.dutch if now.dutch == then.dutch else now.dutch
            blitz = shown.blitz if now.blitz == then.blitz else now.blitz
            tallies[name] = Tally(dutch=dutch, blitz=blitz)
        caller, before = self.caller, self.caller_before
        if blitz_caller(proposed) != blitz_caller(self.proposed) or (
            caller is not None
            and (caller not in proposed.tallies or caller not in self.proposed.tallies)
        ):  # the shots name another, or the caller was renamed or left: the shots' caller
            caller, before = blitz_caller(proposed), None
        elif caller is not None and (
            proposed.tallies[caller].blitz != self.proposed.tallies[caller].blitz
        ):  # a shot changed the caller's own count (it is the shots' now): picked afresh
            before = None

        def picks_zero(name: str) -> bool:  # (the pick's 0 is no count the players typed)
            return name == caller and before is not None and tallies[name].blitz == 0

        kept = sum(
            (tallies[name].dutch != now.dutch)
            + (tallies[name].blitz != now.blitz and not picks_zero(name))
            for name, now in proposed.tallies.items()
        )
        return Reviewed(Round(tallies), caller, before, kept)


def why_a_scan_ends(session: ScanSession, seated: Sequence[Player]) -> str | None:
    """Why a scan cannot go on with the players at the table as they are now (`seated`,
    changed elsewhere meanwhile), or None: it goes on, each seat renamed as it is now. Its
    shots hold counts among the decks in play when each was shot: a seat whose deck changed
    since would be read as 0 cards (Bob's 5 and 3 become 0 and 0, unsaid)."""

    if other_players(seated, session.players):
        return "A player joined or left during the scan: scan the round again"
    if session.all_shots and [p.deck for p in seated] != [p.deck for p in session.players]:
        return "A deck at the table changed during the scan: scan the round again"
    return None
