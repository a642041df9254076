"""Deck enrollment: show each deck's back to the camera and see it recognised. Each deck's back
is shown as blitzcam draws it; a deck turns "seen" when the live counter finds it in view. With an
enroller (vision/), "Enroll from view" teaches blitzcam your own deck's back from the camera.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from blitzcam.game.decks import DECK_NAMES
from blitzcam.ui.counting_worker import CountedFrame, Counter, CountingThread, Enroller, FrameSource
from blitzcam.ui.deck_colours import back_pixmap, deck_label
from blitzcam.ui.labels import plain_label
from blitzcam.ui.live_view import LiveView


class EnrollDialog(QDialog):
    def __init__(
        self,
        source: FrameSource,
        counter: Counter,
        *,
        enroller: Enroller | None = None,
        interval_ms: int = 30,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Enroll decks")
        self._enroller = enroller
        self._latest: CountedFrame | None = None
        self._thread = CountingThread(source, counter, interval_ms=interval_ms, parent=self)
        self.live = LiveView()
        self.seen: dict[str, QLabel] = {}
        note = getattr(counter, "note", "")  # a NullCounter says why nothing is counted
        self.message = plain_label(  # it quotes what the enroller says: paths, deck names
            "Hold one back of each deck flat under the camera."
            if enroller
            else f"Enrolling needs the card counter, and there is none: {note}"
            if note
            else "Enrolling needs the card counter, and there is none; recognition is shown."
        )
        self.message.setWordWrap(True)
        grid = QGridLayout()
        for i, deck in enumerate(DECK_NAMES):
            cell = QVBoxLayout()
            image = QLabel()
            image.setPixmap(back_pixmap(deck, 90))
            image.setAlignment(Qt.AlignmentFlag.AlignCenter)
            status = QLabel(f"{deck_label(deck)}\nnot seen")
            status.setAlignment(Qt.AlignmentFlag.AlignCenter)
            button = QPushButton("Enroll from view")
            button.setEnabled(enroller is not None)
            button.clicked.connect(lambda _=False, d=deck: self._on_enroll(d))
            self.seen[deck] = status
            cell.addWidget(image)
            cell.addWidget(status)
            cell.addWidget(button)
            grid.addLayout(cell, i // 4, i % 4)
        side = QVBoxLayout()
        side.addLayout(grid)
        side.addWidget(self.message)
        close = QPushButton("Done")
        close.clicked.connect(self.accept)
        side.addWidget(close)
        layout = QHBoxLayout(self)
        layout.addWidget(self.live, 1)
        layout.addLayout(side)
        self._thread.counted.connect(self._on_counted)
        self._thread.failed.connect(self.message.setText)
        self.finished.connect(self._on_finished)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Stop the camera thread and release the camera (safe to call twice)."""
        self._thread.stop()

    def _on_counted(self, item: CountedFrame) -> None:
        self._latest = item
        self.live.show_frame(item.frame, item.snapshot)
        for deck, label in self.seen.items():
            n = item.snapshot.counts.get(deck, 0)
            label.setText(f"{deck_label(deck)}\n" + (f"✔ recognised ({n})" if n else "not seen"))

    def _on_enroll(self, deck: str) -> None:
        if self._enroller is None or self._latest is None:
            return
        try:
            self.message.setText(self._enroller.enroll(deck, self._latest.frame))
        except Exception as exc:  # the enroller explains what was wrong with the view
            self.message.setText(f"{deck_label(deck)}: not enrolled: {exc}")

    def _on_finished(self, _result: int) -> None:
        self.stop()
