"""The adapters from vision/ to the app's seam (`ui.counting_worker`): vision's frame result as a
`CountSnapshot`, its pipeline as a `Counter` (live counts voted over still frames) and its
enrollment as an `Enroller`. vision/ is imported only when one is made or called, so that the
window opens before the models load.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from pathlib import Path
from typing import Any, Final

import numpy as np

from blitzcam.ui.counting_worker import (
    Counter,
    CountSnapshot,
    Enroller,
    NullCounter,
    Outline,
)
from blitzcam.ui.deck_colours import deck_label

RECOUNT_SETTLED_S: Final = 1.0  # a settled view that has not moved is counted again this often


def snapshot_from_result(result: Any) -> CountSnapshot:
    """vision's frame result -> CountSnapshot (the only place that reads its fields)."""
    from blitzcam.vision.detections import UNKNOWN_NAME

    detections = result.detections
    face_mask = np.asarray(detections.of_class("face"))
    back_mask = np.asarray(detections.of_class("back"))
    outlines = []
    for row in range(len(detections)):
        if not (face_mask[row] or back_mask[row]):
            continue
        name = detections.deck_name(row) if back_mask[row] else None
        outlines.append(
            Outline(
                corners=np.asarray(detections.corners[row], dtype=np.float32),
                deck=None if name in (None, UNKNOWN_NAME) else name,
                face_up=bool(face_mask[row]),
            )
        )
    counts = {str(deck): int(n) for deck, n in dict(result.counts).items()}
    return CountSnapshot(
        counts=counts,
        outlines=tuple(outlines),
        record=detections,
        voted_face_up=int(result.face_up),
        voted_unknown=int(result.unknown),
        settled=bool(getattr(result, "settled", True)),
        view=getattr(result, "view", None),  # (vision's Counts: the record the app keeps)
        scene=int(getattr(result, "scene", 0)),
        view_scene=int(getattr(result, "view_scene", None) or 0),
        thumb=getattr(result, "thumb", None),
        agrees=getattr(result, "agrees", None),
    )


class PipelineCounter:
    """Counter backed by vision's pipeline (ONNX detector + deck identification).

    Live counts are voted over recent still frames (vision's LiveCounting), so a hand passing
    over the table does not change them; the outlines are always the current frame's.
    """

    def __init__(self, pipeline: Any, *, decks_dir: Path | None = None) -> None:
        from blitzcam.vision.pipeline import LiveCounting
        from blitzcam.vision.references import decks_folder_state

        self.pipeline = pipeline
        # the folder of reference backs the app was started with (--decks), read once; None:
        # the user's deck profile, read again when it changes
        self.decks_dir = decks_dir
        self._live = LiveCounting(pipeline)
        self._decks_seen = decks_folder_state()  # the profile as the pipeline loaded it
        # a scan's worker reloads at its start while the window may (an enrollment): one at a
        # time, or an older folder's profile could be the one kept
        self._reloading = threading.Lock()
        # the last count's thumbnail and when it was made, where it was of a settled view
        self._settled: tuple[np.ndarray, float] | None = None

    def refresh_profile(self, *, changed: bool = False) -> bool:
        """Load the deck profile again if its folder changed since it was loaded (a deck
        enrolled or forgotten with `blitzcam decks` while the app ran: it was counted against
        the old back until a restart), or `changed` (by the app itself: a file system whose
        times are coarse may not show it); whether it did."""
        from blitzcam.vision.references import decks_folder_state

        if self.decks_dir is not None:
            return False
        with self._reloading:
            now = decks_folder_state()
            if not changed and (now is None or now == self._decks_seen):
                return False
            self.pipeline.reload_profile(skip_unusable=True)
            self._decks_seen = now
            return True

    def count(
        self,
        frame_bgr: np.ndarray,
        *,
        in_play: frozenset[str] | None = None,
        at: float | None = None,
    ) -> CountSnapshot:
        from blitzcam.vision.images import is_small, is_very_dark
        from blitzcam.vision.lookalike import among

        unread: list[str] = []
        if in_play is not None and self.decks_dir is not None:
            # (a match's deck the folder has no back for: every count failed on it)
            countable = set(self.pipeline.profile.countable())
            unread = sorted(in_play - countable)
            in_play = in_play & countable
        size = (frame_bgr.shape[1], frame_bgr.shape[0])
        snapshot = dataclasses.replace(
            snapshot_from_result(self._live(frame_bgr, in_play=in_play, at=at)),
            look_alike=tuple((p.deck, p.other) for p in among(self.pipeline.look_alikes, in_play)),
            small_picture=size if is_small(size) else None,
            dark_picture=is_very_dark(frame_bgr),
        )
        notes = [left_out_note(self.pipeline.profile.left_out)]
        if unread:
            notes.append(
                f"Not counted: {', '.join(map(deck_label, unread))}: no back of theirs in "
                f"--decks {self.decks_dir} (their <deck>.png files)"
            )
        note = " ".join(filter(None, notes))
        # (at rest only where the frame says what the vote does: a card laid where no motion
        # showed, counted once a second, took 7 votes, some 7 s, to be shown)
        thumb, settled = snapshot.thumb, snapshot.settled and snapshot.agrees is not False
        self._settled = (thumb, time.monotonic()) if settled and thumb is not None else None
        return dataclasses.replace(snapshot, note=note) if note else snapshot

    def unmoved(self, frame_bgr: np.ndarray) -> bool:
        """Whether `frame_bgr` need not be counted yet: the last count, less than
        RECOUNT_SETTLED_S ago, was of a settled view, and of a frame whose own counts were the
        vote's, that this frame shows unmoved (vision.frame_change.unmoved). A still table
        counted again and again took most of a laptop's two cores for the same numbers (91-113
        CPU seconds a minute). A change too small to be seen is counted within the second, and
        then at every frame until the vote has it."""
        settled = self._settled
        if settled is None or time.monotonic() - settled[1] >= RECOUNT_SETTLED_S:
            return False
        from blitzcam.vision.frame_change import unmoved

        return unmoved(settled[0], frame_bgr)

    def reset(self) -> None:
        """A new scan starts: no vote from the last one (see LiveCounting.reset), and the deck
        profile as it is on disk now. (Called by the scan's worker, in its turn: not during
        another scan's count.)"""
        self._settled = None
        self._live.reset()
        self.refresh_profile()


def left_out_note(left_out: tuple[str, ...]) -> str:
    """What the live view says while enrolled backs are left out of the deck profile."""
    if not left_out:
        return ""
    # (the dialog it pointed to mends only the eight decks: a deck of one's own, or a file
    # whose name names no deck, stayed said after doing what it said)
    return (
        f"Left out of your deck profile: {'; '.join(left_out)}. Meanwhile a deck of the eight "
        "is read against its built-in art (enroll it again, or Use built-in, in Camera → "
        "Enroll decks…) and a deck of your own is not counted (`blitzcam decks enroll` or "
        "`blitzcam decks forget` in a terminal; a file whose name names no deck: rename or "
        "remove it)."
    )


class PipelineEnroller:
    """Enrolls a deck from the live view, then has the counter use the new reference at once."""

    def __init__(self, counter: PipelineCounter) -> None:
        from blitzcam.vision.enrollment import FrameEnroller

        self._counter = counter
        self._enroller = FrameEnroller()

    def enroll(self, deck: str, frame_bgr: np.ndarray) -> str:
        from blitzcam.errors import UserError
        from blitzcam.vision.enrollment import reads_as_another
        from blitzcam.vision.lookalike import involving

        enrolled = self._enroller.enroll_to(deck, frame_bgr)  # (UserError: said by the caller)
        target = enrolled.path
        message = f"{deck_label(deck)}: enrolled (stored {target})"
        # enrollment stores only a back that loads; another file gone bad is left out, and
        # the live view says so
        pipeline = self._counter.pipeline
        self._counter.refresh_profile(changed=True)
        notes = [
            f"Note: {pair.note(deck_label)}." for pair in involving(pipeline.look_alikes, deck)
        ]
        photo_notes = enrolled.photo_notes()
        notes += [f"Note: {note}." for note in photo_notes]
        try:  # a face-up card, the wrong deck picked up (stored all the same)
            unlike = reads_as_another(deck, target, poorly_lit=bool(photo_notes))
        except UserError:  # stored: only the advice is missing
            unlike = None
        if unlike is not None:  # (first: the dialog's box shows five lines, the last cut)
            notes.insert(
                0, f"Note: {unlike.note(deck_label, take_back='Use built-in takes it back')}."
            )
        return " ".join([message, *notes])

    def card_problem(self, frame_bgr: np.ndarray) -> str | None:
        """Why the view holds no one card to enroll (None: it holds one)."""
        return self._enroller.card_problem(frame_bgr)

    def forget(self, deck: str) -> str:
        from blitzcam.vision.enrollment import forget_deck

        paths = forget_deck(deck)  # (UserError: said by the caller)
        self._counter.refresh_profile(changed=True)
        removed = ", ".join(map(str, paths))
        return f"{deck_label(deck)}: read against blitzcam's own drawing again (removed {removed})"

    def enrolled(self) -> dict[str, Path]:
        """The eight decks' enrolled prints, a damaged one too: it is left out of the profile
        (the live view says so), and this is where it can be forgotten."""
        from blitzcam.vision.references import enrolled_files

        # the dialog shows the prints on disk: counting reads them too (one enrolled with
        # `blitzcam decks` meanwhile)
        self._counter.refresh_profile()
        return the_eight(enrolled_files(problems=[]))  # (a badly named file: the live view's)


def make_counter(decks_dir: Path | None = None) -> Counter:
    """The real counter when vision/ has a pipeline and a model; else a NullCounter saying why.
    `decks_dir` (--decks): its <deck>.png backs, not the user's profile; a folder that cannot
    be used raises UserError naming it (a bad argument, as every command's --decks)."""
    profile = None
    if decks_dir is not None:
        from blitzcam.vision.references import profile_from_dir

        # the folder's problems are a bad argument, said at the start as `count --decks` says
        # them (UserError); the models' are the live view's news. Read once: the pipeline
        # takes it (it read the folder's backs again)
        profile = profile_from_dir(decks_dir)
    try:
        from blitzcam.vision.pipeline import CountingPipeline

        # a damaged enrolled back is left out (and said), not a reason to count nothing
        pipeline = CountingPipeline.from_defaults(profile=profile, skip_unusable=True)
        return PipelineCounter(pipeline, decks_dir=decks_dir)
    except Exception as exc:  # missing module, no model shipped yet, bad model file
        return NullCounter(f"no card counting available ({exc}); enter the counts by hand")


def make_enroller(counter: Counter) -> Enroller | None:
    """Enrollment from the live view needs the real pipeline (to pick up the new reference);
    with a --decks folder, the folder's backs are shown and enrolling is refused."""
    if not isinstance(counter, PipelineCounter):
        return None
    if counter.decks_dir is not None:
        return FolderDecks(counter.decks_dir)
    return PipelineEnroller(counter)


class FolderDecks:
    """The reference backs of a --decks folder, as the enroll dialog shows them: read, never
    written from the app (the folder is the user's own, named at start)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        # why the dialog enrolls and forgets nothing here (its buttons are off, saying it)
        self.read_only = (
            f"the decks are read from --decks {folder}, as the app was started: to enroll "
            "from the camera, start it without --decks (or put a back cut to its edges there "
            "as <deck>.png)"
        )

    def enroll(self, deck: str, frame_bgr: np.ndarray) -> str:
        from blitzcam.errors import UserError

        raise UserError(self.read_only)  # (the dialog says the deck and "not enrolled")

    def forget(self, deck: str) -> str:
        from blitzcam.errors import UserError

        raise UserError(self.read_only)

    def enrolled(self) -> dict[str, Path]:
        """The folder's backs of the eight decks (the dialog shows those)."""
        from blitzcam.vision.references import folder_deck_files

        return the_eight(folder_deck_files(self.folder))


def the_eight(files: dict[str, Path]) -> dict[str, Path]:
    """Of reference files by deck, those of the eight decks of the game (the enroll dialog's)."""
    from blitzcam.game.decks import DECK_NAMES

    return {deck: path for deck, path in files.items() if deck in DECK_NAMES}
