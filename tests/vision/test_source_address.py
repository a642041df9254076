"""Stream addresses as shown and edited (vision/source_address.py): their secrets kept out of
sight, and back where they stood."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st


@pytest.mark.parametrize(
    ("edited", "kept"),
    [
        # the host changed, the hidden password and token kept where they stand
        ("rtsp://admin:***@192.168.1.9:554/live?token=***",
         "rtsp://admin:hunter2@192.168.1.9:554/live?token=t0k"),
        ("rtsp://root:***@cam/live?token=***", "rtsp://root:hunter2@cam/live?token=t0k"),
        # a new password typed over its ***: the token still its own (review: it was saved
        # as the text ***), and the same with the password taken out
        ("rtsp://admin:new@192.168.1.5:554/live?token=***",
         "rtsp://admin:new@192.168.1.5:554/live?token=t0k"),
        ("rtsp://admin@192.168.1.5:554/live?token=***",
         "rtsp://admin@192.168.1.5:554/live?token=t0k"),
        # the parameters moved: each gets its own secret back, not the one in its place
        ("rtsp://admin:***@192.168.1.5:554/live?ch=1&token=***&pwd=***",
         "rtsp://admin:hunter2@192.168.1.5:554/live?ch=1&token=t0k&pwd=***"),
        # a *** that is no secret's place stays as typed
        ("rtsp://admin:***@cam/***", "rtsp://admin:hunter2@cam/***"),
        ("0", "0"),
    ],
)
def test_an_address_edited_where_it_was_shown_hidden_keeps_its_secrets(
    edited: str, kept: str
) -> None:
    from blitzcam.vision.source_address import with_secrets_of

    original = "rtsp://admin:hunter2@192.168.1.5:554/live?token=t0k"
    assert with_secrets_of(edited, original) == kept
    assert with_secrets_of(edited, "rtsp://cam/live") == edited  # nothing hidden in it


def test_swapped_parameters_keep_their_own_secrets_and_a_path_of_stars_is_no_secret() -> None:
    from blitzcam.vision.source_address import shown_address, with_secrets_of

    original = "http://cam/v?pwd=p4ss&token=t0k"
    assert with_secrets_of("http://cam/v?token=***&pwd=***", original) == (
        "http://cam/v?token=t0k&pwd=p4ss"
    )
    starred = "rtsp://admin:hunter2@cam/***"  # (a path that is ***: shown as it is)
    assert with_secrets_of(shown_address(starred), starred) == starred


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="rtsp:/@?&;=#[]%._-abc123* ", max_size=40))
def test_any_spec_shown_hidden_comes_back_whole(spec: str) -> None:
    from blitzcam.vision.source_address import shown_address, with_secrets_of

    for candidate in (spec, f"rtsp://{spec}", f"rtsp://u:{spec}@cam/v?pwd={spec}"):
        assert with_secrets_of(shown_address(candidate), candidate) == candidate
