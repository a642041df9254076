"""What a press of Capture does in a scan, decided from what the scan knows at that moment: shoot
the view, wait for it to settle, ask again (a view shot already), or say why not. No widget
here: the scan gathers the facts (`ShotAsked`) and acts on the answer (`ShotDecision`), and the
table is tested without a window (tests/ui/test_shot_decision.py).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Final, Literal

from blitzcam.ui.counting_worker import CountedFrame
from blitzcam.ui.scan_session import ScanSession

HOLD_STILL: Final = "Hold still: the shot is taken as soon as the counts settle on this view"
WAITING_FOR_VIEW: Final = (
    "Waiting for a new view from the camera (a stream may be reconnecting): the shot is taken "
    "on the first settled one"
)
MOVING_AT_THE_END: Final = (
    "The video ended while the view was moving: its last still view is shot instead"
)
ENDED_IN_MOTION: Final = (
    "The video ended while the view was moving, before any view was still: nothing to shoot "
    "(Enter reviews; counts not shot are typed in there)"
)
FRAME_SHOT_ALREADY: Final = "That view is already shot: wait for the next frame"
LAST_VIEW_SHOT: Final = "The video has ended, and its last view is shot: Enter to go on"
NO_FRAME_YET: Final = "No frame yet — is the camera on?"
SHOOT_UNCHANGED_AGAIN: Final = (
    "Nothing on the table has changed since this view was shot{as_step}: shot again, its cards "
    "count twice. Press again to shoot it anyway"
)


def waiting_for_view(tries: int) -> str:
    """What a shot of a stale view says: waiting, and the stream's tries to come back since its
    last view (0: none yet, it may only be slow)."""
    if tries <= 0:
        return WAITING_FOR_VIEW
    return (
        f"Waiting for a new view from the camera: the stream dropped, reconnecting (try "
        f"{tries}); the shot is taken on the first settled view"
    )


@dataclass(frozen=True, slots=True)
class ShotAsked:
    """What the scan knows as Capture is pressed."""

    session: ScanSession
    latest: CountedFrame | None  # the newest count
    last_still: CountedFrame | None  # the newest count of a still view, with its own counts
    failure: str | None = None  # why the last frame shown is not the table now
    previewed: bool = False  # the camera's picture is up, not yet counted
    ended: bool = False  # a video has ended: no more frames will come
    no_frames: str = ""  # what a video that ended before any count says
    stale: bool = False  # a live stream's last view, stalled
    tries: int = 0  # the stalled stream's tries to come back since its last view
    moved_on: bool = False  # the picture in view has moved on from the latest count's
    asked_about: int | None = None  # the view (scene) a second press was asked for


@dataclass(frozen=True, slots=True)
class ShotDecision:
    """`shoot` the view `shot` (with `message` said, if any); `wait` for a settled view (the
    press waits, `message` said); `ask` for a second press on the view `scene`; or `refuse`,
    saying `message`."""

    action: Literal["shoot", "wait", "ask", "refuse"]
    message: str = ""
    shot: CountedFrame | None = None
    scene: int | None = None


def decide_shot(asked: ShotAsked) -> ShotDecision:
    """What a press of Capture does now."""
    latest = asked.latest
    if asked.failure is not None:  # the last frame shown is not the table now
        return ShotDecision("refuse", asked.failure)
    if latest is None:
        if asked.previewed:  # the camera's picture is up, not yet counted
            return ShotDecision("wait", HOLD_STILL)
        # (not "is the camera on?" at Space for a video that ended with none)
        return ShotDecision("refuse", asked.no_frames if asked.ended else NO_FRAME_YET)
    if asked.stale:  # a stalled stream's last view: wait for the table as it is now
        return ShotDecision("wait", waiting_for_view(asked.tries))
    if (not latest.snapshot.settled and not asked.ended) or asked.moved_on:
        # its counts are still the view before's: shooting now would pair this picture with
        # them; the shot is taken on the first settled frame instead (and when the table in
        # view has moved on from the latest count's, or the outlines are off, the shot waits
        # for the count of that one)
        return ShotDecision("wait", HOLD_STILL)
    shot = view_to_shoot(latest, asked.last_still)
    if shot is None:
        return ShotDecision("refuse", ENDED_IN_MOTION)
    session = asked.session
    if session.holds_view(shot.index) or (
        # at a video's end, a view not settled is told by its number: its other frames differ
        # only by the camera's noise
        not latest.snapshot.settled
        and any(s.snapshot.scene == shot.snapshot.scene for s in session.all_shots)
    ):
        return ShotDecision("refuse", LAST_VIEW_SHOT if asked.ended else FRAME_SHOT_ALREADY)
    # another frame of a view shot already: a second Space by mistake would count its cards
    # twice (a pile swapped for one of the same count laid the same way is the same view to
    # the vote, so it is asked, not refused)
    scene = shot.snapshot.scene
    step = session.step_that_shot_scene(scene)
    if step is not None and asked.asked_about != scene:
        as_step = "" if step == session.step else f" as the {step.capitalize()} cards"
        return ShotDecision("ask", SHOOT_UNCHANGED_AGAIN.format(as_step=as_step), scene=scene)
    moving = MOVING_AT_THE_END if shot.index != latest.index else ""
    return ShotDecision("shoot", moving, shot=shot)


def view_to_shoot(latest: CountedFrame, last_still: CountedFrame | None) -> CountedFrame | None:
    """The latest view. At a video's end before it settled (no more frames will settle it):
    its picture with the vote of its own still frames so far, or, when it ended in motion, the
    newest still view with its own (None: there was none); never a picture with another
    view's counts."""
    if latest.snapshot.settled:
        return latest
    own = latest.snapshot.as_its_view()
    return dataclasses.replace(latest, snapshot=own) if own is not None else last_still
