"""A round from the table to the store: a scan's shots, or counts typed by hand, reviewed in the
confirm dialog and saved; a past round edited the same way.

The window owns the match shown and its news; this owns the scan open, the confirm dialog open,
and what was typed in a review or a dialog left, for the next time it opens.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Final

from blitzcam.errors import UserError
from blitzcam.game import rules
from blitzcam.game.rules import Match, MatchError, Round
from blitzcam.game.store import MissingMatchError, StaleMatchError, StoreError
from blitzcam.ui.capture_store import (
    CapturesPartlyKeptError,
    capture_folder_problem,
    keep_scanned_round,
)
from blitzcam.ui.confirm import ConfirmDialog
from blitzcam.ui.counting_worker import COUNTING_STOPPED
from blitzcam.ui.frame_sources import camera_problem
from blitzcam.ui.review_pictures import ReviewPictures, review_pictures
from blitzcam.ui.scan import ScanView
from blitzcam.ui.scan_session import Corrections, Reviewed, ScanSession, why_a_scan_ends
from blitzcam.ui.settings import capture_folder
from blitzcam.ui.status_bar import ADVICE_MS, BRIEF_MS, LONGER_MS, NEWS_MS
from blitzcam.ui.window_part import WindowPart

if TYPE_CHECKING:
    from blitzcam.ui.main_window import MainWindow


SCAN_FAILED: Final = "The camera stopped: "
SCAN_NOT_STARTED: Final = "The camera gave no view: "


def scan_failed_text(message: str, *, had_view: bool = True, counting: bool = False) -> str:
    """The status line while a scan whose camera stopped (or never gave a view, `had_view`
    False: a camera index with no camera, a stream nobody answers; or whose counter broke,
    `counting`) is still open."""
    if counting:
        return (
            f"{COUNTING_STOPPED}{message}. Shots taken so far can still be reviewed (Enter; "
            "counts not shot are typed in), or press Esc to leave the scan."
        )
    if not had_view:
        return (
            f"{SCAN_NOT_STARTED}{message}. Press Enter to type the counts in, or Esc to leave "
            "the scan (Settings chooses the camera)."
        )
    return (
        f"{SCAN_FAILED}{message}. Shots taken so far can still be reviewed (Enter; counts not "
        "shot are typed in), or press Esc to leave the scan."
    )


class RoundFlow(WindowPart):
    """The open match's next round (scanned or typed) and its rounds edited, until saved."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.scan: ScanView | None = None
        self.confirm: ConfirmDialog | None = None
        # the counts typed in the open scan's last review, left with Esc or Cancel: kept for
        # its next review (else they are lost, the shots' counts shown again)
        self.corrections: Corrections | None = None
        # the counts typed by hand in a round entered or edited, left with Esc or Cancel: kept
        # for the next time that round is opened while the match is as it was (else they are lost,
        # every box 0 again, unasked): by match and round edited (None: a new one)
        self._drafts: dict[tuple[int, int | None], tuple[Match, Corrections]] = {}

    def follow_players(self, match: Match) -> None:
        """`match` read again during a scan: its rows name the players as they are now (and
        what was typed in its last review, under their new names), or the scan ends, said, where
        its shots no longer fit the players (a deck changed elsewhere)."""
        if self.scan is None:
            return
        seated = rules.at_table(match)
        before = self.scan.session.players
        if (why := why_a_scan_ends(self.scan.session, seated)) is not None:
            self.end_scan()
            self._say(why, LONGER_MS)
            return
        self.scan.set_players(seated)
        renamed = {old.name: new.name for old, new in zip(before, seated, strict=True)}
        if self.corrections is not None:
            self.corrections = self.corrections.renamed(renamed)

    def edit_round(self, number: int) -> None:
        if self._match is None or self.scan is not None:
            return
        opened = self._match.rounds[number - 1]

        def still_there() -> bool:
            # reloaded after a change elsewhere, round `number` may be another round now (one
            # before it deleted): replacing it would overwrite that one
            rounds = self._match.rounds if self._match is not None else ()
            return len(rounds) >= number and rounds[number - 1] == opened

        moved = (
            f"round {number} was changed or moved elsewhere since this edit was opened; cancel "
            "and edit it again"
        )

        def commit(round_: Round) -> Match:
            if not still_there():
                raise MatchError(moved)
            return self._store.replace_round(self._match_id, number, round_, expect=self._match)

        def when_stale() -> str:  # (confirming again would only be refused: said at once)
            return (
                "Confirm again to save it." if still_there() else moved[0].upper() + moved[1:] + "."
            )

        key = (self._match_id, number)
        again = self._draft(key, opened)  # (its caller shown: it was nobody, unlike a review's)
        dialog = self._open_confirm(
            again.round,
            title=f"Edit round {number}",
            commit=commit,
            caller=again.caller,
            caller_before=again.caller_before,
            kept=again.kept,
            when_stale=when_stale,
            edited=number,
        )
        self._keep_draft_of(dialog, key, opened)

    def enter_by_hand(self) -> None:
        if self._match is None:
            return
        empty = Round({p.name: rules.Tally(0, 0) for p in rules.at_table(self._match)})

        def title() -> str:  # (its number read again when the match changed elsewhere)
            return f"Round {len(self._match.rounds) + 1} — enter the counts"

        key = (self._match_id, None)
        again = self._draft(key, empty)
        dialog = self._open_confirm(
            again.round,
            title=title(),
            commit=lambda r: self._store.add_round(self._match_id, r, expect=self._match),
            caller=again.caller,
            caller_before=again.caller_before,
            kept=again.kept,
            retitle=title,
        )
        self._keep_draft_of(dialog, key, empty)

    def _draft(self, key: tuple[int, int | None], proposed: Round) -> Reviewed:
        """`proposed` with the counts typed in its dialog left before (`_drafts`), where the
        match is as it was then, or only its players renamed."""
        kept = self._drafts.get(key)
        if kept is not None and self._match is not None:
            # (players renamed since, here or elsewhere: theirs under their new names; else every
            # count typed is lost to a rename elsewhere, the dialog closed)
            renamed = {} if kept[0] == self._match else rules.renamed_only(kept[0], self._match)
            if renamed is not None:  # (kept otherwise: the match may come back to it, an undo)
                del self._drafts[key]
                return kept[1].renamed(renamed).over(proposed)
        return Reviewed(proposed, rules.blitz_caller(proposed), None, 0)

    def _keep_draft_of(
        self, dialog: ConfirmDialog, key: tuple[int, int | None], proposed: Round
    ) -> None:
        """Keep what is typed in `dialog` if it is left (Esc, Cancel), for `_draft`."""
        match = self._match

        def left() -> None:
            corrections = Corrections(proposed, *dialog.typed())
            if corrections.any and match is not None:
                self._drafts[key] = (match, corrections)

        dialog.rejected.connect(left)

    # --- confirming a round --------------------------------------------------------------

    def _open_confirm(
        self,
        proposed: Round,
        *,
        title: str,
        commit: Callable[[Round], Match],
        session: ScanSession | None = None,
        caller: str | None = None,
        caller_before: int | None = None,
        kept: int = 0,
        retitle: Callable[[], str] | None = None,
        when_stale: Callable[[], str] | None = None,
        edited: int | None = None,
    ) -> ConfirmDialog:
        """`caller`: who called Blitz, picked at the start (their Blitz count zeroed, unless
        `caller_before` is their count before an earlier review's pick zeroed it); `kept`:
        how many of `proposed`'s counts the players typed in a review they left; `retitle`:
        the title once the match was read again (a round saved elsewhere meanwhile);
        `when_stale`: what to do then, said once the match is read again (default: confirm
        again); `edited`: the number of the round corrected (None: a new round)."""
        pictures = (
            ReviewPictures()
            if session is None
            else review_pictures(session, self._window.devicePixelRatioF())
        )
        # the round's players: those at the table, or for an earlier round, those who played it
        of_round = tuple(p for p in self._match.players if p.name in proposed.tallies)
        dialog = ConfirmDialog(
            of_round, proposed, title=title, captures=pictures.captures,
            captions=pictures.captions, enlarged=pictures.enlarged, check=pictures.check,
            unshot=pictures.unshot, kept=kept, variant=self._match.settings.variant,
            parent=self._window,
        )  # fmt: skip
        if caller_before is not None:
            dialog.restore_caller(caller, caller_before)
        elif caller is not None:
            dialog.set_caller(caller)
        dialog.countsConfirmed.connect(
            lambda round_: self._on_round_confirmed(
                dialog, round_, commit, session, retitle, when_stale, edited
            )
        )
        dialog.rejected.connect(lambda: self._on_confirm_closed(dialog))
        if self.scan is not None:
            self.scan.setEnabled(False)  # its keys (Space, Enter) belong to the dialog now
        self.confirm = dialog
        dialog.open()
        return dialog

    def _on_round_confirmed(
        self,
        dialog: ConfirmDialog,
        round_: Round,
        commit: Callable[[Round], Match],
        session: ScanSession | None,
        retitle: Callable[[], str] | None = None,
        when_stale: Callable[[], str] | None = None,
        edited: int | None = None,
    ) -> None:
        try:
            match = commit(round_)
        except (MatchError, StoreError) as exc:
            why = self._window.why_refused(exc)  # explained, nothing saved
            if isinstance(exc, MissingMatchError) and self._match_id is not None:
                # deleted elsewhere: nothing left to save the round to (else each Enter says "no
                # match" alone, the scan to be left by hand)
                gone = self._match_id
                dialog.reject()
                if session is not None:
                    self.end_scan()
                self._window.on_match_deleted(gone)
                self._say(f"Match {gone} was deleted elsewhere: the round was not saved", ADVICE_MS)
                return
            if isinstance(exc, StaleMatchError) and self._seats_changed(dialog, edited):
                # the dialog's seats are not the round's any more: its round cannot be saved
                dialog.reject()
                again = (
                    f"edit round {edited} again"
                    if edited is not None
                    else "enter the round again"
                    if session is None
                    else "Enter reviews the scan again"
                    if self.scan is not None
                    else "scan the round again"  # a player joined or left: the scan ended
                )
                self._say(f"{why} Its players were changed elsewhere: {again}.", ADVICE_MS)
                return
            if isinstance(exc, StaleMatchError) and edited is None and self._window.decided():
                # (confirming again could only be refused: no round follows the deciding one)
                why += (
                    " It is decided now, and no round may follow: to play on, cancel and raise "
                    "the target (Match › Match settings…, Ctrl+T)."
                )
            elif isinstance(exc, StaleMatchError):
                why += " " + (
                    when_stale() if when_stale else "Confirm again to save this round to it."
                )
                if retitle is not None:  # (it said "Round 1" of what is saved as round 2)
                    dialog.set_title(retitle())
            if isinstance(exc, MatchError):
                dialog.show_error(why, player=exc.player, pile=exc.pile)
            else:
                dialog.show_error(why)
            return
        dialog.accept()
        self._on_confirm_closed(dialog)
        if session is None and match == self._match:  # an edit that changed nothing
            self._say("Nothing changed: the round is as it was", BRIEF_MS)
            return  # (what can be redone still can)
        # a round of the user's own makes the match's undone ones unreachable (it cannot come
        # back to the state an undo left while it stays on top): let them go
        self._window.changes.forget_undone(self._match_id)
        # the round is saved: the window shows it before anything else can fail (a capture
        # that failed here used to leave the scan open on the match before, and confirming
        # "again" saved the round twice)
        if session is not None:
            self.end_scan()
        if edited is not None:
            self._window.changes.record(f"round {edited}'s edit", self._match, match)
        self._window.show_match(self._match_id, match)
        said = (
            f"Round {edited} corrected" if edited else f"Round saved ({len(match.rounds)} played)"
        )
        self._window.say_done(said)
        if session is not None:
            self.keep_captures(session, round_)

    def _seats_changed(self, dialog: ConfirmDialog, edited: int | None) -> bool:
        """Whether the match read again seats other players in the dialog's round than the
        dialog shows: those at the table for a new round, those who played round `edited` for
        an edit (a latecomer seated elsewhere changes no earlier round: an edit was dropped, and
        its advice, "enter the round again", added round 1's counts as a new round)."""
        if self._match is None:
            return True
        if edited is None:
            now = rules.at_table(self._match)
        elif edited <= len(self._match.rounds):
            played = self._match.rounds[edited - 1].tallies
            now = tuple(p for p in self._match.players if p.name in played)
        else:  # (the round is gone: `when_stale` says so)
            return False
        # (and for a new round, a newcomer given a leaver's name and deck is another player:
        # confirmed again, the leaver's round was saved to them)
        return [(p.name, p.deck) for p in now] != [(p.name, p.deck) for p in dialog.players] or (
            edited is None and rules.other_players(now, dialog.players)
        )

    def _on_confirm_closed(self, dialog: ConfirmDialog) -> None:
        if self.confirm is dialog:
            self.confirm = None
        if self.scan is not None:
            self.scan.setEnabled(True)  # cancelled: back to scanning
            self.scan.setFocus()
        dialog.deleteLater()

    def keep_captures(self, session: ScanSession, round_: Round) -> None:
        if not self._window.settings.keep_captures:
            return
        from blitzcam.paths import data_dir

        try:
            folder = capture_folder(self._window.settings, data_dir())
            problem = capture_folder_problem(folder, data_dir())
        except (UserError, OSError) as exc:  # the data folder unusable: the round is saved
            problem = str(exc)
        if problem is not None:  # (its drive unplugged since it was chosen, say)
            self._say(f"Round saved, but its captures were not kept: {problem}", ADVICE_MS)
            return

        try:
            keep_scanned_round(folder, session, round_, taken_at=datetime.now().astimezone())
        except CapturesPartlyKeptError as exc:  # the round is saved: said, and it stands
            self._say(f"Round saved, but {exc}", NEWS_MS)

    # --- scanning ------------------------------------------------------------------------

    def start_scan(self) -> None:
        if self._match is None or self.scan is not None:
            return
        try:
            source = self._window.open_source(self._window.camera_spec())
        except Exception as exc:  # a camera that is not there, a bad file name
            self._say(camera_problem(self._window.camera_spec(), exc), NEWS_MS)
            return
        scan = ScanView(
            rules.at_table(self._match),
            source,
            self._window.counter,
            interval_ms=self._window.interval_ms,
            turn=self._window.counting_turn,
        )
        scan.reviewRequested.connect(self._on_review)
        scan.cancelled.connect(self._on_scan_cancelled)
        scan.failed.connect(self._on_scan_failed)
        self.scan = scan
        self._window.pages.addWidget(scan)
        self._window.pages.setCurrentWidget(scan)
        self._window.update_actions()
        scan.start()

    def _on_review(self, session: ScanSession) -> None:
        if self.confirm is not None:
            return
        # the shots hold counts per deck: read them for the players as they are now (renamed
        # elsewhere since the scan began, the round was proposed under the old names, and a
        # renamed player's cards became 0)
        session = dataclasses.replace(session, players=rules.at_table(self._match))
        proposed = session.proposed_round()
        if self.corrections is not None:
            again = self.corrections.over(proposed)
        else:
            again = Reviewed(proposed, rules.blitz_caller(proposed), None, 0)

        def title() -> str:  # (its number read again when the match changed elsewhere)
            return f"Round {len(self._match.rounds) + 1} — confirm the counts"

        dialog = self._open_confirm(
            again.round,
            title=title(),
            commit=lambda r: self._store.add_round(self._match_id, r, expect=self._match),
            session=session,
            caller=again.caller,
            caller_before=again.caller_before,
            kept=again.kept,
            retitle=title,
        )
        seated = session.players
        dialog.rejected.connect(lambda: self._keep_corrections(proposed, dialog, seated))

    def _keep_corrections(
        self, proposed: Round, dialog: ConfirmDialog, seated: tuple[rules.Player, ...]
    ) -> None:
        """A review of `seated` left (Esc, Cancel to shoot again, its round refused for
        players renamed elsewhere): what was typed in it, for the next (nothing, when nothing
        was changed), under the players' names as they are now."""
        if self.scan is not None:
            corrections = Corrections(proposed, *dialog.typed())
            now = self.scan.session.players
            corrections = corrections.renamed(
                {then.name: new.name for then, new in zip(seated, now, strict=True)}
            )
            self.corrections = corrections if corrections.any else None

    def _on_scan_cancelled(self) -> None:
        """Esc or Cancel on the scan: left at once with nothing shot; with shots (or counts
        typed in a review) asked first, No the default (a second Esc after leaving a review
        dropped every shot of both steps, unasked)."""
        scan = self.scan
        if scan is None:
            return
        if self.scan_may_go("Leave the scan", "Leave the scan?") and self.scan is scan:
            self.end_scan()

    def scan_may_go(self, title: str, question: str, owner: str = "its") -> bool:
        """Whether the open scan may go: at once with nothing shot; with shots (or counts
        typed in a review) once the players say so, No the default. `owner`: how the question
        names the scan's ("its" after "Leave the scan?")."""
        shots = len(self.scan.session.all_shots) if self.scan is not None else 0
        if not shots and self.corrections is None:
            return True
        held = [f"{owner} shot" if shots == 1 else f"{owner} {shots} shots"] if shots else []
        if self.corrections is not None:
            held.append(f"the counts typed in {owner} review")
        verb = "is" if held == [f"{owner} shot"] else "are"
        dropped = " and ".join(held)
        return self._window.asked(
            title,
            f"{question} {dropped[0].upper()}{dropped[1:]} {verb} dropped, and no round is saved.",
        )

    def _on_scan_failed(self, message: str) -> None:
        scan = self.scan
        said = scan_failed_text(
            message,
            had_view=scan is not None and scan.had_view,
            counting=scan is not None and scan.counting_failed,
        )
        self._say(said, ADVICE_MS)

    def end_scan(self) -> None:
        status = self._window.statusBar()
        if status.currentMessage().startswith((SCAN_FAILED, SCAN_NOT_STARTED, COUNTING_STOPPED)):
            status.clearMessage()
        scan, self.scan = self.scan, None
        self.corrections = None
        if scan is not None:
            scan.stop()
            self._window.pages.removeWidget(scan)
            scan.deleteLater()
        self._window.pages.setCurrentWidget(
            self._window.scoreboard if self._match else self._window.welcome
        )
        self._window.update_actions()
