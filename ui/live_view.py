"""The live camera view: the newest frame, every counted card outlined in its deck's colour,
face-up cards flagged. It draws what the counter says and never counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QPainter,
    QPaintEvent,
    QPen,
    QPolygonF,
)
from PySide6.QtWidgets import QApplication, QSizePolicy, QWidget

from blitzcam.ui.announce import announce
from blitzcam.ui.counting_worker import CountSnapshot
from blitzcam.ui.deck_colours import FACE_UP_RGB, bgr_to_qimage, deck_rgb
from blitzcam.ui.markers import deck_marker, doubled_mark, draw_marker

OUTLINE_WIDTH: Final = 3
UNDER_UNKNOWN_RGB: Final = (20, 22, 28)  # the line under a back of no deck's grey dashes
FLIP_IT: Final = "flip this card"  # the tag on a face-up card
TAG_TRIES: Final = 4  # places a tag is moved to, each way, to clear the tags beside it
TAG_SHARE: Final = 1 / 14  # of the picture's height, the most a "flip this card" tag takes
MIN_TAG_POINTS: Final = 7.0  # ... and the smallest its text is made for that
FLIP_TEXT_RGB: Final = (20, 10, 20)  # on FACE_UP_RGB: 6.3:1 (white on it was 3.1:1)
# each counted card's deck mark (ui/markers.py: its outline's colour alone, a green bucket
# counted as a red plow looked right to a red-green blind player): its radius this share of the
# box's shorter side on screen, within these pixels, this share of the way from the box's
# upper-left corner to its middle (the box is the drawing's: most of it, which the players
# check, stays in view)
MARK_SHARE: Final = 0.14
MARK_RADIUS: Final = (3.0, 7.0)
MARK_INSET: Final = 0.32
# an expansion deck's second mark: this share of the way from the card's corner to its middle
# (along the card, it stays on it however small: side by side, the second left a small card)
MARK_SECOND: Final = 0.75


def fit(src: tuple[int, int], dst: tuple[int, int]) -> tuple[float, float, float]:
    """(scale, dx, dy) placing a src (w, h) image centred inside dst (w, h), aspect kept."""
    (sw, sh), (dw, dh) = src, dst
    if sw <= 0 or sh <= 0:
        return 1.0, 0.0, 0.0
    scale = min(dw / sw, dh / sh)
    return scale, (dw - sw * scale) / 2, (dh - sh * scale) / 2


def mark_place(corners: Sequence[QPointF], *, along: float = MARK_INSET) -> tuple[QPointF, float]:
    """Where a counted card's deck mark goes (its centre) and its radius, for a card outlined
    by `corners` on screen: `along` the way from its upper-left corner to its middle, sized by
    its shorter side."""
    n = len(corners)
    centre = QPointF(sum(p.x() for p in corners) / n, sum(p.y() for p in corners) / n)
    first = min(corners, key=lambda p: p.x() + p.y())
    sides = [
        ((a.x() - b.x()) ** 2 + (a.y() - b.y()) ** 2) ** 0.5
        for a, b in zip(corners, [*corners[1:], corners[0]], strict=True)
    ]
    low, high = MARK_RADIUS
    radius = min(max(MARK_SHARE * min(sides), low), high)
    return first + (centre - first) * along, radius


def bang_place(
    corners: Sequence[QPointF], side: float, *, taken: Sequence[QRectF]
) -> QRectF | None:
    """Where a face-up card's "!" goes (a square of `side`) when no "flip this card" tag fits:
    at its mark's place, or further towards its middle, or at its middle, the first clear of
    the tags `taken`; None where none is."""
    for along in (MARK_INSET, 0.5, 1.0):
        at, _ = mark_place(corners, along=along)
        box = QRectF(at.x() - side / 2, at.y() - side / 2, side, side)
        if not any(box.intersects(other) for other in taken):
            return box
    return None


def draw_deck_mark(painter: QPainter, deck: str, corners: Sequence[QPointF]) -> None:
    """A counted card's deck mark (ui/markers.py): its drawing's shape in the deck's colour,
    edged dark to stand out on a white card; a second towards its middle for an expansion
    deck."""
    painter.setPen(QPen(QColor(*UNDER_UNKNOWN_RGB), 2.0))
    painter.setBrush(QColor(*deck_rgb(deck)))
    for along in (MARK_INSET, MARK_SECOND) if doubled_mark(deck) else (MARK_INSET,):
        draw_marker(painter, deck_marker(deck), *mark_place(corners, along=along))
    painter.setBrush(Qt.BrushStyle.NoBrush)


def covered_by_a_dialog(widget: QWidget) -> bool:
    """Whether a modal window other than `widget`'s own waits for an answer over it (a dialog
    opened from its window): what `widget` shows is not being watched."""
    modal = QApplication.activeModalWidget()
    return modal is not None and modal is not widget.window()


class LiveView(QWidget):
    """Shows the newest frame and the latest count's outlines over it.

    A camera or stream numbers its frames: its own frames come between counts
    (`show_preview`, 15 a second) and counted ones with them (`show_frame`), and the newest
    by number is the picture, whichever way it came (a count is of a frame older than the
    picture in view, most often: shown, it took the video back a count's time). A file or the
    demo has no numbers: each counted frame is the picture. Outlines are drawn only over a
    picture of the size of the frame they were found in (a stream back at another size), and
    not over one that has moved on from it (the scan tells: cards moved, a hand over them)."""

    def __init__(self, parent: QWidget | None = None, *, told: bool = True) -> None:
        """`told`: its news said to a screen reader (not by a view drawn off screen, a
        capture's picture: else "Waiting for the camera…" is said at each review)."""
        super().__init__(parent)
        self._told = told
        self._image: QImage | None = None
        self._shown_index: int | None = None  # the source's number of the picture in view
        self._snapshot = CountSnapshot()
        self._counted_size: QSize | None = None  # the size of the frame the snapshot is of
        self._moved_on = False  # the picture shows the table otherwise than the count's frame
        self._message = "Waiting for the camera…"
        self._until_picture = True  # a message that a newer picture answers (`show_message`)
        self._announced = ""  # the last news told to a screen reader
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(320, 180)
        self.setAccessibleName("Camera view")
        self._say_in_words()

    def sizeHint(self) -> QSize:
        return QSize(960, 540)

    def show_frame(
        self,
        frame_bgr: np.ndarray,
        snapshot: CountSnapshot,
        index: int | None = None,
        *,
        moved_on: bool = False,
    ) -> None:
        """A counted frame (`index`: its number in its camera or stream, None for a file) and
        what it says: its outlines and notes replace the last, and it is the picture unless
        a newer one is in view, which may have `moved_on` from it (then its outlines are left
        out, as `show_preview` leaves them). Any message is answered (the scan says again what
        stands)."""
        newer_in_view = self._older(index)
        if not newer_in_view:
            self._image = bgr_to_qimage(frame_bgr)
            self._shown_index = index
        h, w = frame_bgr.shape[:2]
        self._snapshot, self._counted_size = snapshot, QSize(w, h)
        self._moved_on = moved_on and newer_in_view
        self._message = ""  # a live frame answers any earlier message
        self._say_in_words()
        self.update()

    def show_preview(self, frame_bgr: np.ndarray, index: int, *, moved_on: bool = False) -> None:
        """A camera's frame `index`, between counts, for the eye: the last count's outlines
        stay over it until the next count (cards on a table hold still), unless it has
        `moved_on` from the counted frame (cards moved, a hand over them: the outlines are
        left out until it has not, or the next count), and so does a message of the scan;
        one of the camera's own ("Waiting for the camera…", a stall) it answers."""
        if self._older(index):
            return
        self._image = bgr_to_qimage(frame_bgr)
        self._shown_index, self._moved_on = index, moved_on
        if self._message and self._until_picture:
            self._message = ""
            self._say_in_words()
        self.update()

    def _older(self, index: int | None) -> bool:
        """Whether frame `index` is no newer than the picture in view (never a file's)."""
        return index is not None and self._shown_index is not None and index <= self._shown_index

    def show_message(self, message: str, *, until_picture: bool = False) -> None:
        """Centred on an empty view; over the last frame, as a banner, once there is one.
        `until_picture`: news of the camera itself (a stall), which the next picture from it
        answers, even one shown between counts; else it stands until the next count."""
        self._message, self._until_picture = message, until_picture
        self._say_in_words()
        self.update()

    def shown_index(self) -> int | None:
        """The camera's number of the picture in view (None: no picture, or a file's)."""
        return self._shown_index

    def is_watched(self) -> bool:
        """Whether anyone sees what the view shows: it is on screen (`is_seen`) and no other
        window waits for an answer over it (else the confirm dialog over a scan keeps it counting, a
        core's worth, for nobody)."""
        return self.is_seen() and not covered_by_a_dialog(self)

    def is_seen(self) -> bool:
        """Whether the view is on screen (not hidden, its window neither minimised nor
        unexposed): frames shown between counts cost the counting time for nothing else."""
        window = self.window()
        handle = window.windowHandle()
        return (
            self.isVisible() and not window.isMinimized() and (handle is None or handle.isExposed())
        )

    def _say_in_words(self) -> None:
        """What the view paints as text, for a screen reader (painted, it was never said), and
        told as it comes (a shot's question, "hold still", a stall)."""
        said = self._message or self._snapshot.note
        if self.accessibleDescription() != said:  # (a frame a tick: said when it changes)
            self.setAccessibleDescription(said)
        # told once: a frame clears the message and the scan sets it again, frame after
        # frame ("Hold still" was announced 31 times in 30 frames)
        if self._told and said and said != self._announced:
            self._announced = said
            announce(self, said)

    def expect_news(self) -> None:
        """The next message is told to a screen reader even if it is the one told last: the
        answer to a key pressed now (else the shot-again question asked a second time goes unsaid,
        and a second Space shoots the pile twice)."""
        self._announced = ""

    def message(self) -> str:
        return self._message

    def has_picture(self) -> bool:
        """Whether a picture is in view (a counted frame or one shown between counts)."""
        return self._image is not None

    def snapshot(self) -> CountSnapshot:
        return self._snapshot

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), QColor(8, 10, 14))
        wrapped = Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap
        if self._image is None:  # (wrapped: an address that failed is a long line)
            painter.setPen(QColor(160, 166, 180))
            painter.drawText(self.rect().adjusted(12, 12, -12, -12), wrapped, self._message)
            painter.end()
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        image_size = (self._image.width(), self._image.height())
        scale, dx, dy = fit(image_size, (self.width(), self.height()))
        target = QRectF(dx, dy, self._image.width() * scale, self._image.height() * scale)
        painter.drawImage(target, self._image)
        # a card cut by the frame's edge is outlined up to it, not into the bars beside it
        painter.setClipRect(target)
        painter.setFont(tag_font(self.font(), target.height()))
        tags: list[QRectF] = []
        # (in the pixels of the frame they were found in: over a picture of another size,
        # a stream back at another resolution, they were drawn off their cards)
        fits = self._counted_size is None or self._counted_size == self._image.size()
        fits = fits and not self._moved_on
        face_up: list[QPolygonF] = []
        for outline in self._snapshot.outlines if fits else ():
            rgb = FACE_UP_RGB if outline.face_up else deck_rgb(outline.deck or "")
            polygon = QPolygonF(
                [QPointF(dx + x * scale, dy + y * scale) for x, y in outline.corners]
            )
            pen = QPen(QColor(*rgb), OUTLINE_WIDTH + (1 if outline.face_up else 0))
            if outline.deck is None and not outline.face_up:
                # its grey dashes over a dark line: alone they read 1.9:1 on a white card,
                # though the scan's warning sends the players looking for them
                painter.setPen(QPen(QColor(*UNDER_UNKNOWN_RGB), OUTLINE_WIDTH + 4))
                painter.drawPolygon(polygon)
                pen.setStyle(Qt.PenStyle.DashLine)
            painter.setPen(pen)
            painter.drawPolygon(polygon)
            if outline.face_up:
                face_up.append(polygon)
        for outline in self._snapshot.outlines if fits else ():
            if outline.deck is not None and not outline.face_up:  # (over every outline)
                corners = [QPointF(dx + x * scale, dy + y * scale) for x, y in outline.corners]
                draw_deck_mark(painter, outline.deck, corners)
        # the tags over every outline (drawn with their own, the next card's outline crossed
        # the tag before it: "flip thıs carl")
        metrics = painter.fontMetrics()
        for polygon in face_up:
            # (as wide as its text: at 150 % a 140-px tag read "ip this car")
            tag = flip_tag(
                polygon.boundingRect(),
                target,
                width=metrics.horizontalAdvance(FLIP_IT) + 16,
                height=metrics.height() + 4,
                taken=tags,
            )
            text = FLIP_IT
            if tag is None:  # no room clear of the others: a "!" on the card (its magenta
                # outline alone read as a blue deck's to a red-blind player),
                # where it covers no tag ("flip t! is card")
                corners = [polygon.at(k) for k in range(polygon.size())]
                tag = bang_place(corners, metrics.height(), taken=tags)
                if tag is None:  # (its middle too is under others' tags: its outline alone)
                    continue
                text = "!"
            tags.append(tag)
            painter.fillRect(tag, QColor(*FACE_UP_RGB))
            painter.setPen(QColor(*FLIP_TEXT_RGB))
            painter.drawText(tag, Qt.AlignmentFlag.AlignCenter, text)
        painter.setClipping(False)
        if self._snapshot.note:  # wrapped: it can name files and say what to do
            flags = (
                Qt.AlignmentFlag.AlignVCenter
                | Qt.AlignmentFlag.AlignLeft
                | Qt.TextFlag.TextWordWrap
            )
            width = self.width() - 16
            needed = painter.fontMetrics().boundingRect(
                0, 0, width, self.height(), flags, self._snapshot.note
            )
            band = max(30, needed.height() + 12)
            painter.fillRect(
                QRectF(0, self.height() - band, self.width(), band), QColor(0, 0, 0, 170)
            )
            painter.setPen(QColor(255, 210, 90))
            painter.drawText(
                QRectF(8, self.height() - band, width, band), flags, self._snapshot.note
            )
        if self._message:  # e.g. the camera stopped: the last frame stays, the news on top
            # (wrapped, the band as tall as it needs: one line cut the sentence at both ends)
            width = self.width() - 24
            needed = painter.fontMetrics().boundingRect(
                0, 0, width, self.height(), wrapped, self._message
            )
            height = min(self.height(), max(48, needed.height() + 16))
            band = QRectF(0, (self.height() - height) / 2, self.width(), height)
            painter.fillRect(band, QColor(120, 20, 20, 215))
            painter.setPen(QColor(255, 255, 255))
            painter.drawText(band.adjusted(12, 0, -12, 0), wrapped, self._message)
        painter.end()


def tag_font(font: QFont, picture_height: float) -> QFont:
    """The "flip this card" tags' font: `font` in bold, made smaller where its lines would be
    taller than TAG_SHARE of the picture (MIN_TAG_POINTS at the least): at 150 % text over a
    small view, six tags stacked in a column cover the cards they point at."""
    bold = QFont(font)
    bold.setBold(True)
    tallest, height = picture_height * TAG_SHARE, QFontMetricsF(bold).height()
    if height > tallest and bold.pointSizeF() > 0:
        bold.setPointSizeF(max(MIN_TAG_POINTS, bold.pointSizeF() * tallest / height))
    return bold


def flip_tag(
    card: QRectF,
    picture: QRectF,
    width: float = 140,
    height: float = 22,
    taken: Sequence[QRectF] = (),
) -> QRectF | None:
    """Where a face-up card's "flip this card" tag goes: centred above the card, or under it
    when the picture has no room above, kept inside the picture (a card at its edge had its
    tag cut to "o this card"), and clear of the tags placed already (`taken`: two face-up
    cards side by side had their tags drawn over each other), moved up or down a tag's height
    at a time where it would cover one; None where no place tried is clear of them (many
    face-up cards together: drawn over each other, the tags covered the cards)."""
    above = card.top() - height - 4
    first = above if above >= picture.top() else card.bottom() + 4
    left = card.center().x() - width / 2
    left = min(max(left, picture.left()), picture.right() - width)

    def at(top: float) -> QRectF:
        top = min(max(top, picture.top()), picture.bottom() - height)
        return QRectF(left, top, width, height)

    # away from the card first: up from above it, down from under it; then the other way
    step = (height + 2) * (1 if first > above else -1)
    tries = [first + k * step for k in range(TAG_TRIES)]
    tries += [first - k * step for k in range(1, TAG_TRIES)]
    for top in tries:
        tag = at(top)
        if not any(tag.intersects(other) for other in taken):
            return tag
    return None


def render_capture(
    frame_bgr: np.ndarray, snapshot: CountSnapshot, *, width: int = 640, ratio: float = 1.0
) -> QImage:
    """A frozen capture with its outlines, as a still image (for the confirmation dialog),
    `width` pixels wide as laid out; drawn at `ratio` device pixels to each (a screen's
    devicePixelRatio: on a 2x screen the picture was stretched, blurred)."""
    h, w = frame_bgr.shape[:2]
    view = LiveView(told=False)
    view.setMinimumSize(1, 1)  # (a very wide frame was given bars to reach 180 px)
    view.resize(width, max(1, round(width * h / w)))
    view.show_frame(frame_bgr, snapshot)
    # (whole device pixels rounded down: at 1.25, 270 rows are 337.5, and a 338th row was
    # half the view's background, a dark line under the picture)
    size = QSize(int(view.width() * ratio), int(view.height() * ratio))
    image = QImage(size, QImage.Format.Format_RGB32)
    image.setDevicePixelRatio(ratio)
    view.render(image)
    view.deleteLater()
    return image
