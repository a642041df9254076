"""Live counts that do not flicker: a vote over recent still frames, reset when the scene changes.

Each frame brings its counts and a tiny thumbnail (its grey, and how much of it is white). A
frame that differs much from the one before is in motion (a hand passing over the table): its
counts do not vote. A still frame that
differs much from the window's scene may be a new scene (cards dealt, a pile moved), or a hand
that paused over the cards: only once `min_votes` still frames in a row, over `min_still_s`
seconds at least, agree on the new view does the window restart with them; until then the old
vote stands (counted fast, three frames of a resting hand took a third of a second). A view
that looks like something lying over the cards from the picture's edge (`covers_cards`: an arm)
must hold COVERED_STILL_S. After
motion, even a view that looks like the window's scene (cards added or taken are a small change
to a thumbnail, and so is a small hand) is settled only once `min_votes` still frames, over
`min_still_s` too, have voted: if their vote differs from what was shown, or says a count none
of the window's votes said, the table changed under the hand and they restart the window. The
reported counts are the per-deck median of the window's votes, and a reported count is kept
while a third of the votes still say it, so that a card found in every other frame does not
make the number flicker. A frame that comes after the camera went unwatched for long (a camera
or stream that stalled) is taken as motion too: the table was not seen meanwhile; and so is a
blurred one (`is_blurred`: focus hunting moves no grey, and its counts are wrong).

How a frame is judged still or moved, and a view the same or another: `frame_change`.

Until a view settles, each report also says what its own still frames vote so far (`view`), or
that it is moving (None): a video that ends then has no more frames to settle it with. Each
report numbers the view its counts are of (`scene`: a new number each time the window restarts
on another view) and the view its own frames show (`view_scene`), so that a view is not shot
twice.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass
from typing import Final

import numpy as np

from blitzcam.vision.counting import Counts
from blitzcam.vision.frame_change import (
    BLOCKS,
    MOTION_THRESHOLD,
    SCENE_THRESHOLD,
    covers_cards,
    difference,
    is_blurred,
)

GAPS_KEPT: Final = 7  # the latest gaps between frames: their median is the usual one (STALL_FACTOR)
# blurred frames in a row after which the blur is the view's own (a camera that stays out of
# focus): its frames vote again
BLUR_OWN_AFTER: Final = 7
# frames whose counts are voted on: a count shown is given up when 7 of 9 say another (with 7,
# 5 of 7 did: +-1 noise on one deck in a fifth of the frames showed settled and wrong in 1.4 %
# of frames, 0.25 % with 9; in bursts of two frames, 6.8 % and 3.3 %), at 0.4 s more for a
# change no motion was seen making, at 5 counts a second (a hand's restarts the window)
VOTES: Final = 9
# the votes a window settles at when they do not all agree (the median of five needs three
# off; of three, two): +-1 noise in a fifth of the frames settled a scan's first view wrong in
# 6.5 % of scans, against 12.5 % at three; in a tenth, 0.5 % against 1.5 %
SPLIT_SETTLES: Final = 5
# the warning's number of backs read as no deck from which it is held while the votes reach it
# each way, not followed vote by vote (`_steady_warning`)
WARNING_HELD_FROM: Final = 10
# a new view must hold this long to replace the scene: a hand resting on the cards for a
# moment is not the table
MIN_STILL_S: Final = 1.0
# ... and a view that looks like something lying over the scene's cards from the picture's
# edge (an arm and its hand resting on the table: cards gone where it lies, none in their
# place) this long: else a hand resting 1.5 s over half the cards is taken for the table, its
# count shown settled and shootable, and for 1.5 s after it leaves
COVERED_STILL_S: Final = 4.0
# A frame taken after the camera went unwatched this long (at least STALL_MIN_S, and
# STALL_FACTOR times the usual: the time between frames, or between one frame's report and the
# next frame's being taken where the caller says it, so that a slow count is no stall) follows
# a stall of the camera or stream: what happened on the table meanwhile was not seen, so it is
# taken as motion, and the view settles only once still frames have voted on it again. (A shot
# waiting out a stall took the first frame after it with the counts from before it: one card
# added during a 10 s stall changed the thumbnail by 3.5.)
STALL_MIN_S: Final = 2.0
STALL_FACTOR: Final = 3.0


def _no_cards() -> np.ndarray:
    return np.zeros(BLOCKS[::-1], bool)


def _no_centres() -> np.ndarray:
    return np.zeros(BLOCKS[::-1], np.int32)


def lower_median(values: list[int]) -> int:
    """The median of `values`, the lower middle one when they are even in number: always a
    count some frame saw (votes of 2, 2, 5, 5 give 2, never 3)."""
    return sorted(values)[(len(values) - 1) // 2]


def vote(history: list[Counts]) -> Counts:
    """Per-deck lower median of the counts in the window."""
    return steady_vote(history, None)


def _steady(values: list[int], shown: int) -> int:
    # the count shown so far stays while a third of the votes still say it (-1: none shown)
    if shown >= 0 and 3 * values.count(shown) >= len(values):
        return shown
    return lower_median(values)


def _steady_warning(values: list[int], shown: int) -> int:
    # a warning's number (backs read as no deck: never scored) this large stays while the votes
    # still reach it either way: on a table of art no deck matches, a still view's frames read
    # 86-121 such backs, and the number shown changed 48 times, the view settled. Under it each
    # back matters (a warning held at 0 hid one back read as no deck in most frames), and it
    # follows a third of the votes as a deck's count does
    if shown >= WARNING_HELD_FROM and _reaches(shown, values):
        return shown
    return _steady(values, shown)


def _reaches(value: int, values: list[int]) -> bool:
    """Whether `value` is one of `values`, or, for a warning's number from WARNING_HELD_FROM,
    between the least and the most of them (as `_steady_warning` holds it)."""
    if value >= WARNING_HELD_FROM:
        return min(values, default=value + 1) <= value <= max(values, default=-1)
    return value in values


def steady_vote(history: list[Counts], shown: Counts | None) -> Counts:
    """Per-deck lower median of the counts in the window, except that a count `shown` before
    (None: nothing shown yet for this scene) is kept while at least a third of the votes say it:
    votes alternating 20, 21, 20, 21, ... keep showing what they showed. The backs read as no
    deck, a warning, keep a number of WARNING_HELD_FROM or more while any vote is at it or
    beyond it each way (`_steady_warning`)."""
    decks = list(history[-1].per_deck)
    before = shown or Counts(per_deck={}, face_up=-1, unknown=-1)  # -1: no count was shown
    per_deck = {
        d: _steady([c.per_deck.get(d, 0) for c in history], before.per_deck.get(d, -1))
        for d in decks
    }
    return Counts(
        per_deck=per_deck,
        face_up=_steady([c.face_up for c in history], before.face_up),
        unknown=_steady_warning([c.unknown for c in history], before.unknown),
    )


def _said_before(voted: Counts, history: list[Counts]) -> bool:
    """Whether each count of `voted` (per deck, face-up, unknown) is one some vote of `history`
    said (the warning's number of backs read as no deck: one the votes reach, `_reaches`)."""
    return (
        all(n in {c.per_deck.get(d, 0) for c in history} for d, n in voted.per_deck.items())
        and voted.face_up in {c.face_up for c in history}
        and _reaches(voted.unknown, [c.unknown for c in history])
    )


@dataclass(frozen=True, slots=True)
class Stable:
    """What the stabiliser reports: the voted counts, and whether the view is settled."""

    counts: Counts
    settled: bool  # enough still frames of this scene have voted
    votes: int
    # the view in front of the camera: the vote of its still frames so far, which are `counts`
    # themselves unless those are held from the view before; None while the view moves
    view: Counts | None = None
    scene: int = 0  # the window's view, whose counts these are: new when the window restarts
    # the number `view` is of: `scene` when it is the window's view, the next one when it is
    # another (a new scene, or the table changed under a hand); None while the view moves
    view_scene: int | None = None


class Stabiliser:
    """Feed `update(frame_thumbnail, counts)` every frame; read the returned Stable."""

    def __init__(
        self,
        *,
        window: int = VOTES,
        min_votes: int = 3,
        motion_threshold: float = MOTION_THRESHOLD,
        scene_threshold: float = SCENE_THRESHOLD,
        min_still_s: float = MIN_STILL_S,
        split_settles: int = SPLIT_SETTLES,
    ) -> None:
        """`window`: the votes kept; `min_votes`: the fewest that settle a view whose votes all
        agree; `split_settles`: the fewest that settle one whose votes do not (at most the
        window)."""
        if window < 1 or not 1 <= min_votes <= window:
            raise ValueError(
                f"Stabiliser: expected 1 <= min_votes <= window, got {min_votes}, {window}"
            )
        self._votes: deque[Counts] = deque(maxlen=window)
        self._min_votes = min_votes
        self._split_settles = min(split_settles, window)  # (a short window settles at its end)
        self._motion, self._scene_change = motion_threshold, scene_threshold
        self._previous: np.ndarray | None = None
        self._scene: np.ndarray | None = None
        # where cards lay (BLOCKS): in the frame before, in the window's scene's frames, and in
        # the frames of a new scene's that may replace it
        self._previous_cards = self._scene_cards = self._next_cards = _no_cards()
        # how many cards' centres lay in each block, in the scene's frames and in a new one's
        # (the most any frame had)
        self._scene_centres = self._next_centres = _no_centres()
        # still frames in a row that differ from the window's scene: a new scene once they are
        # min_votes, and like one another
        self._next_votes: list[Counts] = []
        self._next_scene: np.ndarray | None = None
        self._next_since = 0.0  # when the first of those frames came
        self._after_since = 0.0  # when the first still frame after a motion came
        self._min_still_s = min_still_s
        self._last: Stable | None = None
        # still frames since a motion over a window's scene; None: no motion to settle after
        self._after_motion: list[Counts] | None = None
        self._scene_number = 0  # of the window's view (never reused, resets included)
        self._last_at: float | None = None  # when the frame before came
        # the last frame judged sharp, and the blurred frames since
        self._sharp: np.ndarray | None = None
        self._blurred_since = 0
        self._gaps: deque[float] = deque(maxlen=GAPS_KEPT)  # between the latest frames

    def reset(self) -> None:
        self._scene_number += 1
        self._votes.clear()
        self._previous = self._scene = self._next_scene = None
        self._previous_cards = self._scene_cards = self._next_cards = _no_cards()
        self._scene_centres = self._next_centres = _no_centres()
        self._next_votes = []
        self._last = None
        self._after_motion = None
        self._last_at = None  # (the usual gap between frames is the machine's: kept)
        self._sharp, self._blurred_since = None, 0

    def _changed(self, thumb: np.ndarray, cards: np.ndarray) -> bool:
        return (
            self._scene is not None
            and difference(self._scene, thumb, self._scene_cards | cards) > self._scene_change
        )

    def update(
        self,
        thumb: np.ndarray,
        counts: Counts,
        *,
        at: float | None = None,
        unseen_s: float | None = None,
        cards: np.ndarray | None = None,
        centres: np.ndarray | None = None,
    ) -> Stable:
        """`at`: when the frame was taken, in seconds on any steady clock (None: now).
        `unseen_s`: how long the camera went unwatched before it, from the report of the frame
        before (None: the time since that frame; a caller whose counting takes seconds says,
        or each slow count looks like a stall). `cards`: the BLOCKS its cards lie in
        (`card_blocks`; None: judged over the whole thumbnail only). `centres`: how many
        cards' centres lie in each block (`card_centres`; None: nothing is taken for a hand
        lying over the cards)."""
        now = time.monotonic() if at is None else at
        cards = _no_cards() if cards is None else cards
        found = _no_centres() if centres is None else centres
        moving = (
            self._previous is not None
            and difference(self._previous, thumb, self._previous_cards | cards) > self._motion
        )
        moving |= self._after_stall(now, unseen_s)
        moving |= self._blurred(thumb)
        self._previous, self._previous_cards = thumb, cards
        if moving:
            # a new scene must hold still for min_votes frames in a row
            self._next_votes, self._next_scene = [], None
            if self._last is not None:
                self._after_motion = []  # and so must the old one, which a hand may have changed
                return self._held(None)
        if self._scene is None:
            self._scene, self._scene_cards = thumb, cards
            self._scene_centres = found
        elif self._after_motion is not None and not self._changed(thumb, cards):
            # the scene's look, after a hand: settled once min_votes still frames agree over
            # min_still_s (had eight cards been added, its first frames used to report the old
            # count as settled; counted fast, a small hand resting a tenth of a second was)
            if not self._after_motion:
                self._after_since = now
            self._after_motion.append(counts)
            held = now - self._after_since >= self._min_still_s
            if (len(self._after_motion) < self._min_votes or not held) and self._last is not None:
                return self._held(vote(self._after_motion))
            settling, self._after_motion = self._after_motion, None
            # the table changed under the hand unless the count shown still stands among the
            # settling votes as it does among the window's (a third of them say it: a count
            # flickering 20, 21 restarted the window, and a view already shot was shot again)
            # and they vote no count the window never said (three cards laid, one frame of
            # three missing them, kept the old count "settled")
            shown = self._last.counts if self._last is not None else None
            if shown is not None and (
                steady_vote(settling, shown) != shown
                or not _said_before(vote(settling), list(self._votes))
            ):
                self._votes.clear()  # the table changed under the hand
                self._last = None
                self._scene_number += 1
                self._scene_centres = found  # (cards taken under it: no longer the scene's)
            self._votes.extend(settling[:-1])
        elif self._changed(thumb, cards):
            if (
                self._next_scene is None
                or difference(self._next_scene, thumb, self._next_cards | cards)
                > self._scene_change
            ):
                self._next_votes, self._next_scene, self._next_since = [], thumb, now
                self._next_cards, self._next_centres = _no_cards(), _no_centres()
            self._next_votes.append(counts)
            self._next_cards = self._next_cards | cards
            self._next_centres = np.maximum(self._next_centres, found)
            still_s = self._min_still_s
            if centres is not None and covers_cards(
                self._scene, thumb, self._scene_cards, self._scene_centres, centres
            ):
                still_s = max(still_s, COVERED_STILL_S)
            held = now - self._next_since >= still_s
            if self._last is not None and (len(self._next_votes) < self._min_votes or not held):
                return self._held(vote(self._next_votes), new=True)
            self._votes.clear()  # the new scene has held: its frames are the window
            self._votes.extend(self._next_votes[:-1])
            self._scene, self._last = self._next_scene, None
            self._scene_cards, self._scene_centres = self._next_cards, self._next_centres
            self._after_motion = None
            self._scene_number += 1
        self._next_votes, self._next_scene = [], None
        self._votes.append(counts)
        self._scene_cards = self._scene_cards | cards
        self._scene_centres = np.maximum(self._scene_centres, found)
        # only a settled count is held on to: the first frame of a scan may be an outlier
        shown = self._last.counts if self._last is not None and self._last.settled else None
        votes = list(self._votes)
        voted = steady_vote(votes, shown)
        number = self._scene_number
        # settled once min_votes frames agree, or else once split_settles have voted: the
        # first view of a scan settled on three votes, and two of them one off (+-1 noise in a
        # fifth of the frames) showed a wrong count settled, and held, in 12.5 % of scans. A
        # view settled stays so: one vote off among its first five would unsettle it a frame
        agreed = all(vote_ == votes[0] for vote_ in votes)
        split = len(votes) >= self._split_settles
        self._last = Stable(
            voted,
            settled=shown is not None or (len(votes) >= self._min_votes and (agreed or split)),
            votes=len(self._votes),
            view=voted,  # (a moving frame never comes here: there is always a report to hold)
            scene=number,
            view_scene=number,
        )
        return self._last

    def _blurred(self, thumb: np.ndarray) -> bool:
        """Whether `thumb`'s frame is blurred next to the last sharp one (BLURRED_BELOW)."""
        if thumb.ndim != 3 or thumb.shape[2] < 4:
            return False
        blurred = self._sharp is not None and is_blurred(self._sharp, thumb)
        self._blurred_since = self._blurred_since + 1 if blurred else 0
        if not blurred or self._blurred_since > BLUR_OWN_AFTER:
            self._sharp, self._blurred_since = thumb, 0
        return blurred

    def _after_stall(self, now: float, unseen_s: float | None) -> bool:
        """Whether a frame at `now` comes after a stall (see STALL_MIN_S); notes its gap."""
        last, self._last_at = self._last_at, now
        if last is None:
            return False
        gap = now - last if unseen_s is None else unseen_s
        usual = float(np.median(self._gaps)) if self._gaps else 0.0
        self._gaps.append(gap)  # (a stall's among them: the median of the others outvotes it)
        return gap > max(STALL_MIN_S, STALL_FACTOR * usual)

    def _held(self, view: Counts | None, *, new: bool = False) -> Stable:
        """The last report's counts, held while this view is not settled (`view`: its own,
        `new`: another view than the window's, whatever its vote)."""
        assert self._last is not None
        number = self._scene_number
        if view is not None and not new:  # after a hand: another view if its vote differs
            new = view != self._last.counts
        return Stable(
            self._last.counts,
            settled=False,
            votes=len(self._votes),
            view=view,
            scene=number,
            view_scene=None if view is None else number + new,
        )
