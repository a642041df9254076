"""Pure parts of the UI: chart axes, shot sums, settings JSON, capture labels, deck colours."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path

import cv2
import numpy as np
import pytest

from blitzcam.game.decks import DECK_NAMES
from blitzcam.game.rules import Round, Tally
from blitzcam.game.text import unmarked
from blitzcam.ui.capture_store import capture_record, label_lines, obb_label_line, save_capture
from blitzcam.ui.chart import AXIS_MARGIN, nice_step, value_axis
from blitzcam.ui.counting_worker import CountSnapshot, Outline
from blitzcam.ui.deck_colours import deck_rgb
from blitzcam.ui.live_view import fit
from blitzcam.ui.scan_session import Corrections, Reviewed, ScanSession, Shot, table_warnings
from blitzcam.ui.settings import AppSettings, load_settings, save_settings, settings_from_json
from tests.ui.fakes import players, round_of

SQUARE = np.array([[10, 20], [30, 20], [30, 40], [10, 40]], np.float32)


@pytest.mark.parametrize(
    ("span", "max_ticks", "step"),
    [
        (80, 6, 20),  # 13.3 per tick rounds up to 20
        (10, 10, 1),  # one per unit
        (7, 12, 1),  # never below 1 (rounds are whole)
        (150, 6, 50),  # 25 -> 50
        (0, 6, 1),  # empty span
    ],
)
def test_nice_step(span: int, max_ticks: int, step: int) -> None:
    assert nice_step(span, max_ticks) == step


@pytest.mark.parametrize(
    ("low", "high", "ticks"),
    [
        (0, 75, [0, 20, 40, 60]),  # target 75 in the axis, the ticks inside it
        (-12, 30, [-10, 0, 10, 20, 30]),  # negative totals, 0 included
        (0, 0, [0, 1]),  # before round 1
        (5, 40, [0, 10, 20, 30, 40]),  # 0 always in the axis
    ],
)
def test_value_axis(low: int, high: int, ticks: list[int]) -> None:
    bottom, top, got = value_axis(low, high)
    assert got == ticks
    lowest, highest = min(low, 0), max(high, 0, min(low, 0) + 1)  # (an empty span is 1 high)
    margin = AXIS_MARGIN * (highest - lowest)
    assert (bottom, top) == pytest.approx((lowest - margin, highest + margin))


def test_a_short_plot_s_axis_ends_at_its_values_not_at_a_tick_past_them() -> None:
    # (totals of -15 to 99 under a target of 300, two ticks' room: the axis ran from -200 to
    # 400, the totals a fifth of its height; app-visual review)
    bottom, top, ticks = value_axis(-15, 300, max_ticks=2)
    assert ticks == [0, 200]
    assert (99 + 15) / (top - bottom) > 0.33  # the totals' share of the height
    assert -15 - bottom < 0.05 * (top - bottom)  # little under the lowest


def test_the_value_axis_keeps_two_ticks_at_least() -> None:
    # (at two ticks' room, totals of -30 to 60 under a target of 75 had a step of 100, and "0"
    # was the axis's only label; diff review)
    assert value_axis(-30, 75, max_ticks=2)[2] == [0, 50]
    assert value_axis(-47, 18, max_ticks=2)[2] == [-40, 0]  # (not four: -40, -20, 0, 20)
    for max_ticks in (2, 3, 6):
        for low in range(-60, 1, 3):
            for high in (1, 7, 18, 40, 75, 100, 150, 300, 1000):
                bottom, top, ticks = value_axis(low, high, max_ticks)
                assert len(ticks) >= 2 and bottom <= ticks[0] and ticks[-1] <= top, (low, high)
                assert len(ticks) <= max_ticks + 1, (low, high, ticks)


@pytest.mark.parametrize(
    ("src", "dst", "expected"),
    [
        ((1280, 720), (640, 360), (0.5, 0.0, 0.0)),  # same aspect
        ((100, 100), (300, 100), (1.0, 100.0, 0.0)),  # pillarbox
        ((200, 100), (200, 300), (1.0, 0.0, 100.0)),  # letterbox
    ],
)
def test_fit(src, dst, expected) -> None:
    assert fit(src, dst) == pytest.approx(expected)


def test_deck_colours_are_distinct_and_unknown_is_grey() -> None:
    colours = {deck_rgb(deck) for deck in DECK_NAMES}
    assert len(colours) == len(DECK_NAMES)
    assert deck_rgb("not-a-deck") == (170, 170, 170)


def _snapshot(**counts: int) -> CountSnapshot:
    return CountSnapshot(counts={k.replace("_", "-"): v for k, v in counts.items()})


def test_scan_session_sums_shots_per_step_and_proposes_the_round() -> None:
    ps = players(3)  # Ann green-pump, Bob red-buggy, Cy yellow-bucket
    frame = np.zeros((4, 4, 3), np.uint8)
    session = ScanSession(ps)
    session = session.with_shot(Shot(frame, _snapshot(green_pump=7, red_buggy=3)))
    session = session.with_shot(Shot(frame, _snapshot(green_pump=5, blue_plow=9)))  # not playing
    assert session.totals() == {"Ann": 12, "Bob": 3, "Cy": 0}
    session = session.next_step().with_shot(Shot(frame, _snapshot(red_buggy=4, yellow_bucket=2)))
    session = session.with_shot(Shot(frame, _snapshot(red_buggy=9))).without_last_shot()
    assert session.proposed_round() == round_of(Ann=(12, 0), Bob=(3, 4), Cy=(0, 2))
    assert len(session.all_shots) == 3
    with pytest.raises(ValueError, match="last step"):
        session.next_step()


def test_scan_session_knows_which_views_it_holds_in_either_step() -> None:
    frame = np.zeros((4, 4, 3), np.uint8)
    session = ScanSession(players(2)).with_shot(Shot(frame, _snapshot(green_pump=7), 3))
    session = session.next_step().with_shot(Shot(frame, _snapshot(red_buggy=1), 5))
    assert session.holds_view(3) and session.holds_view(5) and not session.holds_view(4)
    assert not session.without_last_shot().holds_view(5)  # dropped: it may be shot again
    assert not session.holds_view(-1)  # a shot of no known view is never "the same view"
    assert not ScanSession(players(2)).with_shot(Shot(frame, _snapshot())).holds_view(-1)


def test_table_warnings_ask_to_flip_face_up_cards_and_name_unrecognised_backs() -> None:
    square = np.zeros((4, 2), np.float32)

    def snapshot(face_up: int, unknown: int, known: int = 3) -> CountSnapshot:
        outlines = (
            [Outline(square, None, face_up=True)] * face_up
            + [Outline(square, None)] * unknown
            + [Outline(square, "green-pump")] * known
        )
        return CountSnapshot(counts={"green-pump": known}, outlines=tuple(outlines))

    assert table_warnings(snapshot(0, 0)) == ""
    assert table_warnings(snapshot(1, 0)) == "⚠ 1 face-up card: flip it"
    two = table_warnings(snapshot(2, 5)).splitlines()
    assert two[0] == "⚠ 2 face-up cards: flip them"
    assert two[1].startswith("⚠ 5 backs (grey) not recognised: counted for nobody")
    assert "Enroll decks" in two[1]
    assert table_warnings(snapshot(0, 1)).startswith("⚠ 1 back (grey) not recognised")


def test_decks_that_look_alike_are_named_on_the_scan_page_and_their_players_to_check() -> None:
    from dataclasses import replace

    from blitzcam.ui.scan_session import look_alike_players

    plain = CountSnapshot(counts={"green-pump": 3, "red-plow": 2})
    alike = replace(plain, look_alike=(("green-pump", "blue-pump"),))
    assert table_warnings(alike) == (
        "⚠ Green pump and Blue pump look alike to blitzcam: their cards may be counted to each "
        "other; check both counts"
    )
    frame = np.zeros((4, 4, 3), np.uint8)
    seats = players(3)
    first, _, third = seats
    pair = ((third.deck, first.deck),)
    assert look_alike_players(seats, (Shot(frame, plain),)) == ()
    shots = (Shot(frame, plain), Shot(frame, replace(plain, look_alike=pair)))
    assert look_alike_players(seats, shots) == (first.name, third.name)  # in seat order


def test_settings_round_trip_and_bad_files(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    assert load_settings(path) == AppSettings()  # missing file: defaults
    wanted = AppSettings(camera="rtsp://cam.local/1", keep_captures=True, capture_dir="/x")
    save_settings(path, wanted)
    assert load_settings(path) == wanted
    path.write_text("{not json")
    assert load_settings(path) == AppSettings()
    with pytest.raises(ValueError, match="'keep_captures' must be true or false"):
        settings_from_json({"keep_captures": "yes"})
    # a file of one value, said as it is written (was "got bool"; "got true or false"; review)
    for value, said in ((True, "true"), ([1], "a list"), (None, "null")):
        with pytest.raises(ValueError, match=f"^app settings: expected a JSON object, got {said}$"):
            settings_from_json(value)
    path.write_text("[" * 100_000 + "]" * 100_000)  # deeper than the JSON reader goes
    assert load_settings(path) == AppSettings()


def test_a_settings_key_of_the_wrong_type_costs_only_that_key(tmp_path: Path) -> None:
    # an older file's `"camera": 0` reset every setting, the captures kept with them, silently
    path = tmp_path / "s.json"
    path.write_text('{"camera": [0], "keep_captures": true, "capture_dir": "/caps"}')
    problems: list[str] = []
    settings = load_settings(path, problems=problems)
    assert settings == AppSettings(camera="", keep_captures=True, capture_dir="/caps")
    assert problems == ["app settings: 'camera' must be text or a camera's number, got [0] (left at its default)"]
    # a camera's index written as a number by hand is that camera (it was refused)
    path.write_text('{"camera": 1, "keep_captures": true}')
    problems.clear()
    assert load_settings(path, problems=problems) == AppSettings(camera="1", keep_captures=True)
    assert problems == []
    path.write_text('{"camera": true}')  # (no index: refused as before)
    assert load_settings(path, problems=problems) == AppSettings()
    assert problems == ["app settings: 'camera' must be text or a camera's number, got true (left at its default)"]
    path.write_text("{not json")
    problems.clear()
    assert load_settings(path, problems=problems) == AppSettings()
    assert len(problems) == 1 and problems[0].startswith(f"{path}: not a settings file (Expecting property name")
    problems.clear()
    assert load_settings(tmp_path / "none.json", problems=problems) == AppSettings()
    assert problems == []  # no file yet: nothing wrong


def test_the_capture_folder_is_never_wherever_the_app_was_started(tmp_path: Path) -> None:
    from blitzcam.ui.settings import capture_folder

    data = tmp_path / "data"
    assert capture_folder(AppSettings(), data) == data / "captures"
    assert capture_folder(AppSettings(capture_dir="/srv/caps"), data) == Path("/srv/caps")
    assert capture_folder(AppSettings(capture_dir="~/caps"), data) == Path.home() / "caps"
    assert capture_folder(AppSettings(capture_dir="caps"), data) == data / "caps"


@pytest.mark.parametrize(
    ("outline", "line"),
    [
        # a back: class 0, corners over a 100x50 image
        (Outline(SQUARE, "green-pump"), "0 0.100000 0.400000 0.300000 0.400000 0.300000 0.800000 0.100000 0.800000"),
        # a face-up card: class 1
        (Outline(SQUARE, None, face_up=True), "1 0.100000 0.400000 0.300000 0.400000 0.300000 0.800000 0.100000 0.800000"),
        # corners outside the image are clipped to [0, 1]
        (Outline(SQUARE * 5, "red-buggy"), "0 0.500000 1.000000 1.000000 1.000000 1.000000 1.000000 0.500000 1.000000"),
    ],
)
def test_obb_label_line(outline: Outline, line: str) -> None:
    assert obb_label_line(outline, width=100, height=50) == line


def test_obb_label_line_refuses_bad_input() -> None:
    with pytest.raises(ValueError, match="image size must be positive"):
        obb_label_line(Outline(SQUARE, None), width=0, height=5)
    with pytest.raises(ValueError, match=r"expected shape \(4, 2\)"):
        obb_label_line(Outline(SQUARE[:3], None), width=10, height=5)


def test_save_capture_writes_image_labels_and_counts(tmp_path: Path) -> None:
    frame = np.random.default_rng(0).integers(0, 255, (50, 100, 3), dtype=np.uint8)
    outlines = [Outline(SQUARE, "green-pump"), Outline(SQUARE, None, face_up=True)]
    record = capture_record(
        step="dutch", shot=1, shots_in_step=1, confirmed={"Ann": {"dutch": 1, "blitz": 0}},
        players=[{"name": "Ann", "deck": "green-pump", "team": None}], outlines=outlines,
        taken_at=datetime(2025, 1, 2, 3, 4, 5),
    )
    image = save_capture(tmp_path, "s1", frame, label_lines(outlines, width=100, height=50), record)
    assert cv2.imread(str(image)).shape == (50, 100, 3)
    labels = (tmp_path / "labels" / "s1.txt").read_text().splitlines()
    assert [line.split()[0] for line in labels] == ["0", "1"]
    counts = json.loads((tmp_path / "counts" / "s1.json").read_text())
    assert counts["confirmed"] == {"Ann": {"dutch": 1, "blitz": 0}}
    assert counts["label_decks"] == ["green-pump", None]
    assert not list(tmp_path.rglob(".*.tmp"))


def test_a_capture_that_fails_part_way_leaves_none_of_its_files(tmp_path: Path, monkeypatch) -> None:
    from blitzcam.ui import capture_store

    real = capture_store.write_bytes_atomic
    calls = []

    def full_disk_on_the_second(path, data):
        calls.append(path)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        real(path, data)

    monkeypatch.setattr(capture_store, "write_bytes_atomic", full_disk_on_the_second)
    frame = np.zeros((50, 100, 3), np.uint8)
    with pytest.raises(OSError, match="No space left"):
        save_capture(tmp_path, "s1", frame, [], {"confirmed": {}})
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]
    assert calls[-1].parent.name != "images"  # the image, written last, was never started


def test_qt_calls_give_back_the_none_they_return(qtbot) -> None:
    # PySide6 6.12.0 on Python 3.11 dropped a reference to None on every such call: the live
    # view's label updates ran None's count down to zero and the app aborted (pyproject pins
    # it out). On 3.12+ None is immortal and its count does not move.
    from PySide6.QtWidgets import QApplication, QLabel

    label = QLabel()
    qtbot.addWidget(label)
    before = sys.getrefcount(None)
    for _ in range(2000):
        label.setText("12")
        QApplication.processEvents()
    assert sys.getrefcount(None) > before - 100


def test_a_back_is_drawn_at_the_screen_s_resolution(qtbot) -> None:
    from PySide6.QtGui import QGuiApplication, QImage

    from blitzcam.ui.deck_colours import back_pixmap

    one, two = back_pixmap("green-pump", 36, ratio=1.0), back_pixmap("green-pump", 36, ratio=2.0)
    assert (one.width(), two.width()) == (36, 72)  # device pixels ...
    assert two.deviceIndependentSize().width() == one.deviceIndependentSize().width() == 36
    # drawn again at twice the width, not the 1x picture stretched
    from blitzcam.datasets.art import render_back
    from blitzcam.ui.deck_colours import rgba_to_qimage

    def rgba(image) -> np.ndarray:
        image = image.convertToFormat(QImage.Format.Format_RGBA8888)
        rows = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), -1)
        return rows[:, : 4 * image.width()].reshape(image.height(), image.width(), 4).astype(int)

    drawn = rgba(rgba_to_qimage(render_back("green-pump", width=72).rgba))
    stretched = rgba(one.toImage().scaled(72, two.height()))
    opaque = drawn[..., 3] == 255
    assert np.abs(rgba(two.toImage()) - drawn)[opaque].max() <= 1
    assert np.abs(stretched - drawn)[opaque].max() > 40
    screen = QGuiApplication.primaryScreen().devicePixelRatio()
    assert back_pixmap("green-pump", 36).devicePixelRatio() == screen


def test_only_outlines_that_make_a_label_are_kept() -> None:
    # NaN corners were written as "nan", and a box off the frame as eight zeros: both would
    # teach a fine-tuned detector nonsense
    from blitzcam.ui.capture_store import labelled

    good = Outline(SQUARE, "green-pump")
    nan = Outline(np.full((4, 2), np.nan, np.float32), "green-pump")
    off_frame = Outline(SQUARE + 1000, "green-pump")
    assert labelled([good, nan, off_frame, good], width=100, height=50) == [good, good]


def test_a_capture_says_whether_the_players_corrected_the_scan() -> None:
    # the labels are what the detector saw: a corrected round's may miss cards
    base = {"step": "dutch", "shot": 1, "shots_in_step": 1, "players": [], "outlines": [],
            "taken_at": datetime(2025, 1, 2, 3, 4, 5)}  # fmt: skip
    counted = {"Ann": {"dutch": 7, "blitz": 0}}
    same = capture_record(confirmed=counted, proposed=counted, **base)
    assert same["corrected"] is False and same["proposed"] == counted
    fixed = capture_record(confirmed={"Ann": {"dutch": 8, "blitz": 0}}, proposed=counted, **base)
    assert fixed["corrected"] is True


def test_a_capture_never_replaces_another_of_the_same_name(tmp_path: Path) -> None:
    # two in one second, or a clock set back an hour: the second overwrote the first
    from blitzcam.ui.capture_store import free_stem

    frame = np.zeros((50, 100, 3), np.uint8)
    assert free_stem(tmp_path, "s1") == "s1"
    save_capture(tmp_path, free_stem(tmp_path, "s1"), frame, [], {"confirmed": {}})
    assert free_stem(tmp_path, "s1") == "s1-2"
    save_capture(tmp_path, free_stem(tmp_path, "s1"), frame, [], {"confirmed": {"x": 1}})
    assert free_stem(tmp_path, "s1") == "s1-3"
    assert json.loads((tmp_path / "counts" / "s1.json").read_text()) == {"confirmed": {}}


def test_a_settings_file_in_another_encoding_is_read_or_said(tmp_path: Path) -> None:
    # a byte-order mark reset every setting (keep-captures stopped, silently); UTF-16 (an old
    # Notepad's "Unicode") raised out of the window's start: the app did not open
    path = tmp_path / "s.json"
    text = '{"camera": "1", "keep_captures": true, "capture_dir": "Caf\u00e9"}'
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert load_settings(path) == AppSettings(camera="1", keep_captures=True, capture_dir="Caf\u00e9")
    path.write_bytes(text.encode("utf-16"))
    problems: list[str] = []
    assert load_settings(path, problems=problems) == AppSettings()
    assert problems == [f"{path}: not UTF-8 text: every setting left at its default (kept as "
                        "s.json.bad when settings are saved)"]


def test_saving_settings_keeps_the_keys_a_newer_version_wrote(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text('{"camera": "0", "keep_captures": false, "capture_dir": "", "theme": "dark"}')
    save_settings(path, AppSettings(camera="2"))
    saved = json.loads(path.read_text())
    assert saved["theme"] == "dark" and saved["camera"] == "2"
    assert load_settings(path) == AppSettings(camera="2")


def test_a_capture_folder_with_a_nul_in_it_is_no_crash(tmp_path: Path) -> None:
    # (a hand-edited file) expanding "~\0x" raised ValueError out of the capture code and the
    # Settings dialog
    from blitzcam.ui.settings import capture_folder

    folder = capture_folder(AppSettings(capture_dir="~\0x"), tmp_path)
    assert folder.name == "~\0x"


@pytest.mark.parametrize("width", [260, 400, 700])
@pytest.mark.parametrize("rounds", [1, 5, 6, 7, 12, 30])
def test_the_round_axis_labels_never_cover_each_other(width: int, rounds: int) -> None:
    # (found by review: the axis' title at the right end covered the last rounds' numbers,
    # "5round", "ro6nd")
    from PySide6.QtCore import QRectF

    from blitzcam.ui.chart import MARGINS, round_axis_labels

    left, top, right, _ = MARGINS
    plot = QRectF(left, top, width - left - right, 200)
    labels = round_axis_labels(plot, rounds, lambda text: 8 * len(text))  # 8 px a character
    assert labels[-1][1] == "round" and labels[0][1] == "0"
    assert str(rounds) in [text for _, text in labels]
    for i, (rect, text) in enumerate(labels):
        assert rect.left() >= 0 and rect.right() <= width, text
        for other, other_text in labels[i + 1 :]:
            assert not rect.intersects(other), (text, other_text)


@pytest.mark.parametrize(
    ("card", "expected"),
    [
        ((300, 200, 60, 90), (260, 174)),  # room above: centred over the card
        ((2, 200, 60, 90), (0, 174)),  # at the left edge: kept inside (was cut, "o this card")
        ((600, 200, 38, 90), (500, 174)),  # at the right edge
        ((300, 5, 60, 90), (260, 99)),  # no room above: under the card
    ],
)
def test_a_flip_tag_stays_inside_the_picture(card, expected) -> None:
    from PySide6.QtCore import QRectF

    from blitzcam.ui.live_view import flip_tag

    picture = QRectF(0, 0, 640, 360)
    tag = flip_tag(QRectF(*card), picture)
    assert (tag.left(), tag.top()) == expected
    assert picture.contains(tag)


def test_flip_tags_of_cards_side_by_side_are_drawn_clear_of_each_other() -> None:
    # (three face-up cards close together had their tags drawn over one another)
    from PySide6.QtCore import QRectF

    from blitzcam.ui.live_view import flip_tag

    picture = QRectF(0, 0, 640, 360)
    tags: list[QRectF] = []
    for left in (300, 320, 340):  # cards overlapping sideways
        tags.append(flip_tag(QRectF(left, 200, 60, 90), picture, taken=tags))
    assert tags[0] == flip_tag(QRectF(300, 200, 60, 90), picture)  # the first as it was
    assert not any(a.intersects(b) for i, a in enumerate(tags) for b in tags[i + 1:])
    assert all(picture.contains(tag) for tag in tags)



def test_a_flip_tag_with_no_room_clear_of_the_others_is_left_off_not_drawn_over_them() -> None:
    # (twelve face-up cards in a small view: six tags stacked over one another, "flip t his
    # c ard", covering the cards they pointed at; review)
    from PySide6.QtCore import QRectF

    from blitzcam.ui.live_view import flip_tag

    picture = QRectF(0, 0, 400, 120)
    tags: list[QRectF] = []
    for _ in range(12):  # one place, twelve face-up cards
        tag = flip_tag(QRectF(150, 50, 40, 40), picture, taken=tags)
        if tag is not None:
            tags.append(tag)
    assert 1 < len(tags) < 12
    assert not any(a.intersects(b) for i, a in enumerate(tags) for b in tags[i + 1:])


def test_flip_tags_are_no_taller_than_a_share_of_a_small_picture(qtbot) -> None:
    from PySide6.QtGui import QFont, QFontMetricsF

    from blitzcam.ui.live_view import MIN_TAG_POINTS, TAG_SHARE, tag_font

    large = QFont()
    large.setPointSizeF(18)  # (150 % text)
    small_view = tag_font(large, 240)
    assert small_view.bold() and small_view.pointSizeF() < 18
    assert QFontMetricsF(small_view).height() <= 240 * TAG_SHARE + 1
    assert tag_font(large, 1080).pointSizeF() == 18  # room enough: as it was
    assert tag_font(large, 60).pointSizeF() == MIN_TAG_POINTS  # (read still)


def test_a_label_that_may_shrink_draws_a_long_name_smaller_before_it_cuts_it(qtbot) -> None:
    # (found by review: "North Side Sharks" on a team's card read "North …" on a 1024-px screen)
    from PySide6.QtGui import QFont

    from blitzcam.ui.labels import ElidedLabel

    font = QFont()
    font.setPointSizeF(22)
    labels = []
    for shrink_to in (None, 14):
        label = ElidedLabel("North Side Sharks", shrink_to=shrink_to)
        qtbot.addWidget(label)
        label.setFont(font)
        label.resize(200, 40)
        labels.append(label)
    fixed, shrinking = labels
    assert fixed.shown_text().endswith("…") and fixed.shown_font().pointSizeF() == 22
    assert shrinking.shown_text() == "North Side Sharks" and 14 <= shrinking.shown_font().pointSizeF() < 22
    shrinking.resize(60, 40)  # too narrow even at 14 points: cut there
    assert shrinking.shown_text().endswith("…") and shrinking.shown_font().pointSizeF() == 14


@pytest.mark.parametrize("text", ["Player 0", "Ann\x1f36"])
def test_a_label_exactly_as_wide_as_its_text_at_some_size_shows_it_whole(qtbot, text) -> None:
    # (Qt cuts a text exactly as wide as the room: "Player 0" on a total card shrank to 18 pt,
    # where it was as wide as its 110 px, and was drawn "Player…"; at 17 pt it fitted)
    from PySide6.QtGui import QFont, QFontMetrics

    from blitzcam.ui.labels import ElidedLabel, shown_plain

    font = QFont()
    font.setPointSizeF(22)
    font.setBold(True)  # (as a card's name is)
    label = ElidedLabel(text, shrink_to=10)
    qtbot.addWidget(label)
    label.setFont(font)
    font.setPointSizeF(18)
    exact = QFontMetrics(font).horizontalAdvance(shown_plain(text))  # (the room: at 18 pt)
    label.resize(exact + label.width() - label.contentsRect().width(), 40)
    assert label.contentsRect().width() == exact
    assert label.shown_text() == shown_plain(text)


def test_a_damaged_settings_file_is_said_and_kept_beside_when_settings_are_saved(
    tmp_path: Path,
) -> None:
    # "Expecting value: line 1 column 34" said nothing of the settings lost, and the next OK
    # in Settings replaced the file: the capture folder and camera in it were gone (review)
    from blitzcam.ui.settings import save_settings

    path = tmp_path / "app-settings.json"
    damaged = b'{"camera": "rtsp://cam/live", "capture_dir": "/media/usb/caps", "keep'
    path.write_bytes(damaged)
    problems: list[str] = []
    assert load_settings(path, problems=problems) == AppSettings()
    assert problems[0].startswith(f"{path}: not a settings file (")
    assert problems[0].endswith(
        "every setting left at its default (kept as app-settings.json.bad when settings are saved)"
    )
    save_settings(path, AppSettings(camera="0"))
    assert (tmp_path / "app-settings.json.bad").read_bytes() == damaged
    assert load_settings(path) == AppSettings(camera="0")
    save_settings(path, AppSettings(camera="1"))  # a good file is not kept beside again
    assert (tmp_path / "app-settings.json.bad").read_bytes() == damaged
    # JSON that is not an object is kept too, as promised (a second read); an empty file
    # holds nothing, and promises nothing
    for text in ("[]", "null", '"x"', "42"):
        path.write_text(text)
        problems = []
        load_settings(path, problems=problems)
        assert "kept as app-settings.json.bad" in problems[0]
        save_settings(path, AppSettings())
        assert (tmp_path / "app-settings.json.bad").read_text() == text
    path.write_text("  \n")
    problems = []
    load_settings(path, problems=problems)
    assert problems == [f"{path}: empty: every setting left at its default"]


def test_corrections_follow_players_renamed_and_a_scan_ends_when_a_shot_deck_changes() -> None:
    from blitzcam.game.rules import Player
    from blitzcam.ui.scan_session import why_a_scan_ends

    then = round_of(Ann=(7, 0), Bob=(5, 3), Cy=(3, 1))
    corrections = Corrections(then, round_of(Ann=(7, 0), Bob=(9, 3), Cy=(3, 1)), "Bob", 3)
    swapped = corrections.renamed({"Ann": "Bob", "Bob": "Ann"})  # (two names swapped at once)
    assert swapped.shown.tallies["Ann"] == Tally(9, 3) and swapped.caller == "Ann"
    assert swapped.over(swapped.proposed).kept == 1
    seats = (Player("Ann", "green-pump"), Player("Bob", "red-buggy"))
    session = ScanSession(seats)
    other_deck = (seats[0], Player("Bob", "blue-plow"))
    assert why_a_scan_ends(session, other_deck) is None  # nothing shot among the old decks
    counted = CountSnapshot(counts={"green-pump": 4, "red-buggy": 2})
    shot = session.with_shot(Shot(np.zeros((4, 4, 3), np.uint8), counted, view=1))
    assert why_a_scan_ends(shot, (seats[0], Player("Rob", "red-buggy"))) is None  # a rename
    assert why_a_scan_ends(shot, other_deck) == (
        "A deck at the table changed during the scan: scan the round again"
    )
    assert why_a_scan_ends(shot, seats[:1]).startswith("A player joined or left")
    # one who left and a newcomer on their deck in their place is no rename (review)
    newcomer = (seats[0], Player("Di", "red-buggy", joined=1))
    assert why_a_scan_ends(shot, newcomer).startswith("A player joined or left")
    back = (seats[0], Player("Dan", "red-buggy", sat_out=(2,)))  # (one who came back)
    assert why_a_scan_ends(session, back).startswith("A player joined or left")
    late = ScanSession((seats[0], Player("Bob", "red-buggy", joined=2)))
    moved = (seats[0], Player("Bob", "red-buggy", joined=1))  # (a round before deleted)
    assert why_a_scan_ends(late, moved) is None
    assert why_a_scan_ends(late, (seats[0], Player("Rob", "red-buggy", joined=1))) is None
    # one who sat out the round after their first: that first round deleted, `joined` moves
    # on, and it is the same player (review)
    sat = ScanSession((seats[0], Player("Bob", "red-buggy", sat_out=(2,))))
    assert why_a_scan_ends(sat, (seats[0], Player("Bob", "red-buggy", joined=1))) is None
    # a newcomer given the leaver's name, the leaver renamed (diff review)
    same_name = (seats[0], Player("Bob", "red-buggy", joined=1))
    assert why_a_scan_ends(shot, same_name).startswith("A player joined or left")


def test_corrections_are_kept_where_the_shots_still_propose_what_they_did() -> None:
    then = round_of(Ann=(7, 0), Bob=(5, 3), Cy=(3, 1))
    shown = round_of(Ann=(7, 0), Bob=(6, 3), Cy=(3, 2))
    corrections = Corrections(then, shown, caller="Ann", caller_before=0)
    assert corrections.over(then) == Reviewed(shown, "Ann", 0, 2) and corrections.any
    # a shot since changed Bob's Dutch count and Cy's Blitz count: theirs are the shots'
    now = round_of(Ann=(7, 0), Bob=(8, 3), Cy=(3, 4))
    assert corrections.over(now) == Reviewed(now, "Ann", 0, 0)
    # the caller they picked stays (their count as shown, the one before the pick kept for
    # taking it back), unless the shots now name another
    picked_bob = Corrections(then, round_of(Ann=(7, 0), Bob=(5, 0), Cy=(3, 1)), "Bob", 3)
    assert picked_bob.over(then) == Reviewed(picked_bob.shown, "Bob", 3, 0)  # the pick's 0
    assert picked_bob.any  # (a caller other than the shots' is a change)
    assert Corrections(then, shown, caller=None).over(then).caller is None
    emptied = round_of(Ann=(7, 2), Bob=(5, 0), Cy=(3, 1))  # Bob's Blitz pile shot empty now
    assert Corrections(then, shown, "Ann", 0).over(emptied) == Reviewed(
        round_of(Ann=(7, 2), Bob=(6, 0), Cy=(3, 2)), "Bob", None, 2
    )
    # a count typed over the caller's 0 is theirs, and counted as kept (review: the pick
    # zeroed it again while the dialog said it was kept)
    typed_over = Corrections(then, round_of(Ann=(7, 2), Bob=(5, 3), Cy=(3, 1)), "Ann", 0)
    assert typed_over.over(then) == Reviewed(typed_over.shown, "Ann", 0, 1)
    # a player renamed or seated since the review: the shots' counts, the shots' caller
    renamed = Round({"Ann": Tally(7, 0), "Bobby": Tally(5, 3), "Cy": Tally(3, 1)})
    assert picked_bob.over(renamed) == Reviewed(renamed, "Ann", None, 0)
    # nothing changed (Esc straight away): nothing to keep
    assert not Corrections(then, then, "Ann", 0).any


def test_a_shot_that_changes_the_caller_s_own_count_picks_them_afresh() -> None:
    # the pick zeroed Bob's 4 and kept it to give back; a new shot read his pile as 6, so 4
    # is no count of his any more: taking the pick back must not bring it back (review)
    then = round_of(Ann=(9, 0), Bob=(5, 4))  # the shots named Ann (0 left)
    picked_bob = Corrections(then, round_of(Ann=(9, 0), Bob=(5, 0)), caller="Bob", caller_before=4)
    now = round_of(Ann=(9, 0), Bob=(5, 6))
    assert picked_bob.over(now) == Reviewed(now, "Bob", None, 0)
    same = round_of(Ann=(9, 0), Bob=(5, 4))  # (no shot changed it: the 4 is still his)
    assert picked_bob.over(same).caller_before == 4


def test_a_full_blitz_pile_is_no_warning_and_one_card_more_is() -> None:
    from blitzcam.ui.scan_session import over_a_pile

    seated = players(2)
    deck = seated[0].deck
    assert over_a_pile(seated, {deck: 10}, "blitz") == ""
    assert unmarked(over_a_pile(seated, {deck: 11}, "blitz")).startswith("⚠ more than a Blitz pile's 10")


def test_a_round_is_kept_shot_by_shot_and_a_failure_says_how_many_were(
    tmp_path: Path, monkeypatch
) -> None:
    from blitzcam.ui import capture_store
    from blitzcam.ui.capture_store import CapturesPartlyKeptError, keep_round
    from blitzcam.ui.counting_worker import Outline

    frame = np.zeros((40, 60, 3), np.uint8)
    card = Outline(np.array([[5, 5], [20, 5], [20, 30], [5, 30]], np.float32), "red-plow")
    steps = {"dutch": [(frame, [card]), (frame, [])], "blitz": [(frame, [card])]}
    counts = {"Ann": {"dutch": 1, "blitz": 1}}
    kwargs = {"confirmed": counts, "proposed": counts,
                  "players": [{"name": "Ann", "deck": "red-plow", "team": None}],
                  "taken_at": datetime(2026, 12, 5, 21, 0, tzinfo=UTC)}
    assert keep_round(tmp_path / "a", steps, **kwargs) == 3
    stems = sorted(p.stem for p in (tmp_path / "a" / "counts").glob("*.json"))
    assert stems == ["20261205-210000-blitz-1", "20261205-210000-dutch-1", "20261205-210000-dutch-2"]
    record = json.loads((tmp_path / "a" / "counts" / "20261205-210000-dutch-2.json").read_text())
    assert (record["shot"], record["shots_in_step"], record["label_decks"]) == (2, 2, [])

    real, calls = capture_store.save_capture, []

    def full_on_the_third(*args, **kw):
        calls.append(1)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        return real(*args, **kw)

    monkeypatch.setattr(capture_store, "save_capture", full_on_the_third)
    with pytest.raises(CapturesPartlyKeptError, match=r"^only 2 of its 3 captures were kept: "
                       r"No space left on device$"):  # (not "[Errno 28] ...")
        keep_round(tmp_path / "b", steps, **kwargs)
    assert len(list((tmp_path / "b" / "images").glob("*.jpg"))) == 2


def test_a_capture_folder_that_cannot_hold_captures_is_said(tmp_path: Path) -> None:
    # a file, a folder under a file: each round said "[Errno 20] Not a directory: '…/counts'";
    # a folder on a drive not plugged in was made on the computer's own disk, unsaid
    from blitzcam.ui.capture_store import capture_folder_problem

    data = tmp_path / "data"
    data.mkdir()
    (tmp_path / "afile").write_text("x")
    assert capture_folder_problem(data, data) is None
    assert capture_folder_problem(data / "captures", data) is None  # made on first use
    assert capture_folder_problem(data / "a" / "b" / "c", data) is None  # inside: parents too
    assert capture_folder_problem(tmp_path / "new", data) is None  # its parent is there
    assert capture_folder_problem(tmp_path / "afile", data) == f"{tmp_path / 'afile'}: it is a file"
    assert capture_folder_problem(tmp_path / "afile" / "caps", data) == (
        f"{tmp_path / 'afile' / 'caps'}: {tmp_path / 'afile'} is a file, not a folder"
    )
    unplugged = tmp_path / "media" / "usb" / "caps"
    assert capture_folder_problem(unplugged, data) == (
        f"{unplugged}: no such folder, nor {unplugged.parent} (a drive not plugged in?)"
    )
    assert not (tmp_path / "media").exists()


def test_a_capture_s_failure_is_said_without_python_s_error_number(tmp_path: Path) -> None:
    from blitzcam.ui.capture_store import CapturesPartlyKeptError

    error = CapturesPartlyKeptError(0, 2, NotADirectoryError(20, "Not a directory", "/x/counts"))
    assert str(error) == "only 0 of its 2 captures were kept: /x/counts: Not a directory"


def test_the_settings_file_is_for_its_owner_alone(tmp_path: Path) -> None:
    # a stream's password, shown as *** in the dialog, was in a file anyone could read (0644)
    import stat

    path = tmp_path / "s.json"
    save_settings(path, AppSettings(camera="rtsp://me:secret@cam.local/live"))
    assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0
    path.chmod(0o644)  # (one saved by an earlier release)
    save_settings(path, AppSettings(camera="rtsp://me:secret@cam.local/live"))
    assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0


def test_a_right_to_left_name_cut_short_keeps_its_ellipsis_at_its_cut_end() -> None:
    # an Arabic name's "…" was drawn on its right, beside its first word, in a line laid out
    # left to right; its direction's mark after the "…" keeps it at the name's cut (left) end
    from PySide6.QtGui import QFont, QFontMetrics

    from blitzcam.ui.labels import RIGHT_TO_LEFT_MARK, elided, reads_right_to_left

    assert reads_right_to_left("عبد الرحمن الشهري") and reads_right_to_left("  יהונתן")
    assert not reads_right_to_left("Ann عبد") and not reads_right_to_left("123")
    metrics = QFontMetrics(QFont())
    cut = elided(metrics, "عبد الرحمن الشهري", 60)
    assert "…" in cut and cut.endswith(RIGHT_TO_LEFT_MARK)
    assert elided(metrics, "Bartholomew Fitzgerald", 60).endswith("…")  # (no mark)
    assert elided(metrics, "عبد", 400) == "عبد"  # whole: nothing added


def test_a_right_to_left_name_cut_short_in_the_chart_legend_keeps_its_ellipsis_at_its_cut_end(qtbot) -> None:
    # (the legend cut names with Qt's own elision: an Arabic team's "…" beside its first word)
    from PySide6.QtGui import QFontMetrics

    from blitzcam.ui.chart import RunningTotalsChart, Series
    from blitzcam.ui.labels import RIGHT_TO_LEFT_MARK

    chart = RunningTotalsChart()
    qtbot.addWidget(chart)
    names = ["الفريق الأحمر القوي جدا من المدينة", "Bartholomew Fitzgerald-Montgomery"]
    chart.set_data([Series(name, (200, 60, 60), (10, 20)) for name in names], 75)
    arabic, latin = chart._elided(QFontMetrics(chart.font()), 80)
    assert "…" in arabic and arabic.endswith(RIGHT_TO_LEFT_MARK)
    assert latin.endswith("…")


def test_lines_level_after_a_round_are_drawn_side_by_side_not_on_one_another() -> None:
    # (review: in a tie the second line hid the first, the whole way)
    from blitzcam.ui.chart import side_by_side

    ann, bob, cy = [(1, 5), (2, 12)], [(1, 5), (2, 12)], [(1, 5), (2, 9)]
    assert side_by_side([ann, bob, cy]) == [[-1.0, -0.5], [0.0, 0.5], [1.0, 0.0]]
    assert side_by_side([ann, [(2, 3)]]) == [[0.0, 0.0], [0.0]]  # nothing shared: as they are
    assert side_by_side([]) == []
    # the one going highest next on top (they part without crossing); the start, where every
    # line begins, as it is
    down, up = [(0, 0), (1, 5), (2, 3)], [(0, 0), (1, 5), (2, 9)]
    assert side_by_side([down, up]) == [[0.0, 0.5, 0.0], [0.0, -0.5, 0.0]]
    # at the end, the one that came from highest on top
    assert side_by_side([[(1, 2), (2, 8)], [(1, 6), (2, 8)]]) == [[0.0, 0.5], [0.0, -0.5]]


def test_a_tie_draws_both_lines(qtbot) -> None:
    from PySide6.QtGui import QColor, QImage

    from blitzcam.ui.chart import RunningTotalsChart, Series

    chart = RunningTotalsChart()
    qtbot.addWidget(chart)
    chart.resize(400, 260)
    green, red = (0, 160, 0), (200, 0, 0)
    chart.set_data([Series("Ann", green, (5, 12, 20)), Series("Bob", red, (5, 12, 20))], 75)
    image = QImage(chart.size(), QImage.Format.Format_RGB32)
    chart.render(image)
    colours = {QColor(image.pixel(x, y)).getRgb()[:3] for x in range(0, 400, 2) for y in range(0, 200)}
    assert green in colours and red in colours


def test_a_rules_words_name_the_decks_as_the_app_does() -> None:
    # (the status line said "their deck, green-pump, is Ed's now" where every card, menu and
    # dialog says "Green pump"; review)
    from blitzcam.ui.deck_colours import with_deck_labels

    assert with_deck_labels("player Ann: their deck, green-pump, is Ed's now") == (
        "player Ann: their deck, Green pump, is Ed's now"
    )
    assert with_deck_labels("deck red-buggy is already played by Bob") == (
        "deck Red buggy is already played by Bob"
    )
    # (not inside another word: an enrolled deck of one's own, a plural)
    assert with_deck_labels("my-green-pump-x and green-pumps") == "my-green-pump-x and green-pumps"


def test_four_decks_a_row_only_where_the_enroll_view_keeps_its_aim_width() -> None:
    # (four beside the least view left it 240 px wide on a 1024-px screen, 244 at 1366 x 768 at
    # 150 %: a thumbnail to aim a card in; enroll review)
    from blitzcam.ui.enroll import decks_per_row

    assert decks_per_row(1024, 640) == 2  # (four decks' least width at 100 %)
    assert decks_per_row(1366, 640) == 4
    assert decks_per_row(1366, 1000) == 2  # (at 150 %)
    assert decks_per_row(1920, 1000) == 4


def test_dots_are_drawn_only_where_they_have_room_and_the_leader_last() -> None:
    # (at 300 rounds the dots of four teams, 1,208 of them, hid the leader's line; review)
    from blitzcam.ui.chart import MARKER_ROOM, drawing_order, marker_step

    assert marker_step(40) == 1 and marker_step(MARKER_ROOM) == 1
    assert marker_step(1.2) == 12 and marker_step(0) == 1
    lines = [[(0, 0), (1, 30)], [(0, 0), (1, 90)], [], [(0, 0), (1, -5)], [(0, 0), (1, 90)]]
    assert drawing_order(lines) == [2, 3, 0, 1, 4]


@pytest.mark.parametrize("target", [99_999, 1_000_000])
def test_the_values_column_is_as_wide_as_its_widest_value(qtbot, target: int) -> None:
    # (a target of 99,999 read "00000" at the top of the axis: the column was 56 px; review)
    from PySide6.QtGui import QColor

    from blitzcam.ui.chart import AXIS_TEXT, RunningTotalsChart, Series

    chart = RunningTotalsChart()
    qtbot.addWidget(chart)
    chart.set_data([Series("Ann", (200, 200, 200), (10, 40))], target)
    chart.resize(500, 300)
    picture = chart.grab().toImage()
    at_edge = [picture.pixelColor(x, y) for x in range(3) for y in range(picture.height())]
    text = QColor(AXIS_TEXT)
    assert not any(
        abs(c.red() - text.red()) + abs(c.green() - text.green()) + abs(c.blue() - text.blue())
        < 120
        for c in at_edge
    )


def test_right_to_left_names_keep_their_counts_beside_them() -> None:
    # (an Arabic or Hebrew name, unisolated, drew its neighbour's count beside it, or laid
    # the whole line out right to left: "Dutch cards: a deck holds 40 45 :محمد"; unicode
    # review)
    from blitzcam.game.rules import Player, Round, Tally
    from blitzcam.game.text import LEFT_TO_RIGHT_MARK, isolated, round_counts
    from blitzcam.ui.confirm import ConfirmDialog, check_line
    from blitzcam.ui.scan_session import over_a_pile

    arabic, hebrew = "محمد", "דנה"
    seats = (Player(arabic, "green-pump"), Player(hebrew, "red-buggy"))
    warned = over_a_pile(seats, {"green-pump": 45, "red-buggy": 50}, "dutch")
    assert warned.startswith(LEFT_TO_RIGHT_MARK)
    assert f"({isolated(arabic)} 45 and {isolated(hebrew)} 50)" in warned
    assert check_line([arabic, hebrew]).startswith(LEFT_TO_RIGHT_MARK + "⚠ Check " + isolated(arabic))
    played = Round({arabic: Tally(4, 0), hebrew: Tally(12, 3)})
    assert round_counts(played, name=isolated) == f"{isolated(arabic)} 4/0, {isolated(hebrew)} 12/3"
    assert round_counts(played) == f"{arabic} 4/0, {hebrew} 12/3"  # (the terminal's, as it was)
    dialog = ConfirmDialog(seats, Round({arabic: Tally(45, 0), hebrew: Tally(1, 1)}), title="R")
    assert dialog.editor.problems.text().startswith(LEFT_TO_RIGHT_MARK + "⚠ " + isolated(arabic))
    assert dialog.editor.problems.accessibleName() == f"⚠ {arabic}: 45 Dutch cards: a deck holds 40"
    dialog.deleteLater()
    # the box at fault carries the reason for a screen reader, unmarked (review)
    from PySide6.QtWidgets import QSpinBox

    from blitzcam.ui.dialog_parts import ErrorLabel

    box, error = QSpinBox(), ErrorLabel()
    error.refuse(f"Check: {isolated(arabic)}: 39 Dutch", at=box)
    assert box.accessibleDescription() == f"Check: {arabic}: 39 Dutch"
    box.deleteLater(), error.deleteLater()
    # a compact panel's warning in brief, as before the marks (kept whole, "⚠" twice; review)
    from blitzcam.ui.scan_session import in_brief

    assert unmarked(in_brief(warned)) == "⚠ more than a deck's 40 cards in view (محمد 45 and דנה 50)"
