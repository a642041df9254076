"""The live-noise benchmark's parts: its camera noise, its recording's file, its replay."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from benchmarks import live_noise
from blitzcam.game.decks import DECK_NAMES
from blitzcam.vision.frame_change import THUMB_SIZE


def _sequence(per_frame: list[int], *, truth: int | None = None) -> dict:
    """A still table (one thumbnail throughout) whose green pumps read `per_frame`."""
    counts = [{"per_deck": {deck: (n if deck == "green-pump" else 0) for deck in DECK_NAMES},
               "face_up": 0, "unknown": 0} for n in per_frame]  # fmt: skip
    thumb = np.dstack([np.full(THUMB_SIZE[::-1], 90, np.float32)] * 4)
    thumb[4:9, 5:20, 0] = 200  # (some contrast: the exposure test needs it)
    no_blocks = np.zeros((6, 8), bool)
    return {
        "name": "t",
        "truth": None if truth is None else {
            "per_deck": {deck: (truth if deck == "green-pump" else 0) for deck in DECK_NAMES},
            "unknown": 0,
        },
        "counts": counts,
        "thumbs": [thumb] * len(counts),
        "cards": [no_blocks] * len(counts),
        "centres": [np.zeros((6, 8), np.int32)] * len(counts),
    }


def test_the_camera_noise_is_seeded_and_small() -> None:
    photo = np.random.default_rng(1).integers(0, 255, (90, 160, 3), dtype=np.uint8)
    first = live_noise.noisy(photo, np.random.default_rng(5))
    assert np.array_equal(first, live_noise.noisy(photo, np.random.default_rng(5)))
    assert not np.array_equal(first, live_noise.noisy(photo, np.random.default_rng(6)))
    assert first.shape == photo.shape and first.dtype == np.uint8
    smooth = np.full((90, 160, 3), 120, np.uint8)  # (jitter moves no flat grey)
    assert abs(float(live_noise.noisy(smooth, np.random.default_rng(5)).mean()) - 120) < 8


def test_a_recording_comes_back_as_it_was_saved(tmp_path: Path) -> None:
    sequences = [_sequence([5, 5, 6]), _sequence([3, 3, 3], truth=3)]
    live_noise.save(sequences, tmp_path / "rec.npz")
    again = live_noise.load(tmp_path / "rec.npz")
    assert [s["counts"] for s in again] == [s["counts"] for s in sequences]
    assert [s["truth"] for s in again] == [s["truth"] for s in sequences]
    assert all(np.array_equal(a, b) for s, t in zip(again, sequences, strict=True)
               for a, b in zip(s["thumbs"], t["thumbs"], strict=True))  # fmt: skip


def test_a_replay_counts_what_the_view_shows_against_the_majority_and_the_truth() -> None:
    # a fluke frame never shows; a detector wrong in most frames shows wrong against the truth
    fluke = _sequence([7, 7, 7, 8, 7, 7, 7, 7, 7, 7], truth=7)
    wrong = _sequence([4] * 10, truth=5)
    result = live_noise.replay([fluke, wrong], votes=9, split=5)
    assert result["settled"] == 16  # each from its third frame (the votes all agree)
    assert result["first_median"] == 3 and result["first_max"] == 3
    assert result["off_majority"] == 0 and result["deck_changes"] == 0
    assert result["off_truth"] == 8  # the wrong table's settled frames
    assert live_noise.frames_alone([fluke, wrong]) == (
        "frames off their sequence's majority: 1 of 20 (runs: 1 of 1)"
    )
