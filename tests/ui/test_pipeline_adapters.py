"""The adapters from vision/: a frame result as the UI draws it, the pipeline as the app's
counter (live, with the shipped models), enrollment from the live view."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest

from blitzcam.errors import UserError
from blitzcam.paths import REPO_ROOT
from blitzcam.ui.pipeline_adapters import snapshot_from_result
from blitzcam.ui.scan_session import table_warnings
from blitzcam.vision.counting import Counts
from blitzcam.vision.detections import Detections

LIVE_WITH_SHIPPED_MODELS = """
import sys
import numpy as np
from PySide6.QtWidgets import QApplication
from blitzcam.ui.counting_worker import CountingThread
from blitzcam.ui.pipeline_adapters import make_counter
from tests.ui.fakes import FakeSource, synthetic_frame
app = QApplication([])
counter = make_counter()
assert type(counter).__name__ == "PipelineCounter", counter
frames = [synthetic_frame(i, [("green-pump", False)] * 3)[0] for i in range(4)]
thread = CountingThread(FakeSource(frames, limit=4), counter, interval_ms=1)
seen, done = [], []
thread.counted.connect(seen.append)
thread.finished.connect(lambda: done.append(True))
thread.failed.connect(lambda message: sys.exit("failed: " + message))
thread.start()
while not done:
    app.processEvents()
thread.stop()
print("counted", len(seen), "frames")
"""


def test_the_shipped_models_count_live_in_the_worker_thread(tmp_path) -> None:
    # in a QThread's event loop, OpenVINO crashed the app on the first count (SIGSEGV): run in
    # a child process, so a crash fails this test instead of ending the suite
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "BLITZCAM_DATA_DIR": str(tmp_path / "data"),
           "BLITZCAM_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, "-c", LIVE_WITH_SHIPPED_MODELS], cwd=REPO_ROOT, env=env,
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert "counted" in done.stdout and "counted 0 " not in done.stdout


def test_snapshot_from_a_vision_result() -> None:
    obb = np.array([[50, 50, 20, 30, 0], [100, 50, 20, 30, 0.3], [150, 50, 20, 30, 0]], np.float32)
    detections = Detections.from_obb(obb, np.ones(3), np.array([0, 0, 1])).with_decks(
        np.array([1, -1, -1]), np.array([0.9, np.nan, np.nan]), ("green-pump", "red-buggy")
    )
    result = SimpleNamespace(detections=detections, counts={"red-buggy": 1}, face_up=1, unknown=1)
    snapshot = snapshot_from_result(result)
    assert dict(snapshot.counts) == {"red-buggy": 1}
    assert [(o.deck, o.face_up) for o in snapshot.outlines] == [
        ("red-buggy", False),  # identified back
        (None, False),  # back of no enrolled deck
        (None, True),  # face-up card
    ]
    assert snapshot.face_up == 1 and snapshot.unknown == 1
    assert snapshot.record is detections
    # live counting's vote says no face-up card and no unknown back yet (this frame's one
    # detection of each is outvoted): the warnings follow the vote, as the counts do
    voted = snapshot_from_result(SimpleNamespace(**{**vars(result), "face_up": 0, "unknown": 0}))
    assert len(voted.outlines) == 3
    assert voted.face_up == 0 and voted.unknown == 0
    assert table_warnings(voted) == "" and "1 face-up card" in table_warnings(snapshot)
    # whether the vote has settled on this view reaches the scan (it shoots settled views)
    assert snapshot.settled
    assert not snapshot_from_result(SimpleNamespace(**vars(result), settled=False)).settled
    # and, until it has, what the view's own still frames vote (its counts are the view before's)
    assert snapshot.view is None and snapshot.as_its_view() is snapshot
    own = Counts(per_deck={"red-buggy": 4}, face_up=2, unknown=0)
    lagging = snapshot_from_result(
        SimpleNamespace(**vars(result), settled=False, view=own, scene=7, view_scene=8)
    )
    assert dict(lagging.counts) == {"red-buggy": 1} and lagging.scene == 7
    shot = lagging.as_its_view()
    assert shot is not None and shot.settled and dict(shot.counts) == {"red-buggy": 4}
    assert shot.scene == 8  # the number of the view it now counts
    assert (shot.face_up, shot.unknown) == (2, 0) and shot.outlines == lagging.outlines
    moving = snapshot_from_result(SimpleNamespace(**vars(result), settled=False, view=None))
    assert moving.as_its_view() is None



class _FakePipeline:
    def __init__(
        self,
        left_out: tuple[str, ...] = (),
        *,
        names: tuple[str, ...] = (),
        vectors: list[list[float]] | None = None,
    ) -> None:
        from blitzcam.vision.embedding import References

        self.reloads = 0
        self.profile = SimpleNamespace(left_out=left_out, names=names)
        # one reference vector per deck, in `names` order
        self.references = References(
            np.array(vectors or np.zeros((0, 2)), np.float32), np.arange(len(vectors or ()))
        )

    @property
    def look_alikes(self):
        from blitzcam.vision.lookalike import look_alikes

        return look_alikes(self.references, self.profile.names)  # as the pipeline works it out

    def reload_profile(self, *, skip_unusable: bool = False) -> None:
        assert skip_unusable  # a damaged neighbour must not stop the counter taking the new back
        self.reloads += 1


def _counter_with(pipeline: _FakePipeline):
    from blitzcam.ui.pipeline_adapters import PipelineCounter

    return PipelineCounter(pipeline)


def test_enrolling_from_the_view_stores_the_back_and_reloads_the_profile() -> None:
    import cv2

    from blitzcam.datasets.art import render_back
    from blitzcam.ui.pipeline_adapters import PipelineEnroller
    from blitzcam.vision.references import user_decks_dir

    card = cv2.cvtColor(np.ascontiguousarray(render_back("red-plow", width=300).rgba[..., :3]),
                        cv2.COLOR_RGB2BGR)
    frame = np.full((720, 1280, 3), 40, np.uint8)
    h, w = card.shape[:2]
    frame[100:100 + h, 400:400 + w] = card
    pipeline = _FakePipeline()
    message = PipelineEnroller(_counter_with(pipeline)).enroll("red-plow", frame)
    assert message.startswith("Red plow: enrolled")
    assert (user_decks_dir() / "red-plow.png").is_file()
    assert pipeline.reloads == 1


def test_enrolling_a_back_that_reads_like_another_decks_says_so() -> None:
    import cv2

    from blitzcam.datasets.art import render_back
    from blitzcam.ui.pipeline_adapters import PipelineEnroller

    card = cv2.cvtColor(np.ascontiguousarray(render_back("red-plow", width=300).rgba[..., :3]),
                        cv2.COLOR_RGB2BGR)
    frame = np.full((720, 1280, 3), 40, np.uint8)
    frame[100:100 + card.shape[0], 400:400 + card.shape[1]] = card
    pipeline = _FakePipeline(
        names=("red-plow", "green-pump", "blue-pump"),
        vectors=[[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]],  # red plow 0.8 alike green pump, 0 blue
    )
    message = PipelineEnroller(_counter_with(pipeline)).enroll("red-plow", frame)
    assert message.startswith("Red plow: enrolled")
    assert "Note: Red plow looks like Green pump to blitzcam (0.80 alike)" in message
    assert "blue-pump" not in message


def test_enrolling_another_deck_s_back_from_the_view_says_so() -> None:
    # (the check ran for `decks enroll` only: the app stored a blue pump as the green unsaid)
    import cv2

    from blitzcam.datasets.art import render_back
    from blitzcam.ui.pipeline_adapters import PipelineEnroller

    card = cv2.cvtColor(np.ascontiguousarray(render_back("blue-pump", width=300).rgba[..., :3]),
                        cv2.COLOR_RGB2BGR)
    frame = np.full((720, 1280, 3), 40, np.uint8)
    frame[100:100 + card.shape[0], 400:400 + card.shape[1]] = card
    pipeline = _FakePipeline(  # (green pump a look-alike of red plow's: a note of its own)
        names=("red-plow", "green-pump", "blue-pump"), vectors=[[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]]
    )
    message = PipelineEnroller(_counter_with(pipeline)).enroll("green-pump", frame)
    assert message.startswith("Green pump: enrolled")
    assert "Note: Green pump looks like Red plow to blitzcam" in message
    assert ("Note: the back enrolled as Green pump reads more like Blue pump's drawing" in message
            and "(Use built-in takes it back)." in message), message
    # the first note (the dialog's box shows five lines: the most important was last, cut)
    assert message.split(" Note: ")[1].startswith("the back enrolled as Green pump reads more like")


def test_backs_left_out_of_the_profile_are_said_in_the_live_view() -> None:
    from blitzcam.ui.pipeline_adapters import left_out_note

    result = SimpleNamespace(
        detections=Detections.empty(), counts={"red-plow": 0}, face_up=0, unknown=0, settled=True
    )
    counter = _counter_with(_FakePipeline(("deck reference /d/red-plow.png: cannot decode",)))
    counter._live = lambda frame, in_play=None, at=None: result
    snapshot = counter.count(np.zeros((4, 4, 3), np.uint8))
    assert "/d/red-plow.png: cannot decode" in snapshot.note and "built-in" in snapshot.note
    assert snapshot.note == left_out_note(counter.pipeline.profile.left_out)
    # the dialog mends the eight only: what mends the rest is said too
    assert "Camera → Enroll decks…" in snapshot.note and "`blitzcam decks forget`" in snapshot.note
    counter.pipeline.profile = SimpleNamespace(left_out=(), names=())  # enrolled again
    assert counter.count(np.zeros((4, 4, 3), np.uint8)).note == ""


def test_a_picture_too_small_or_too_dark_to_trust_is_warned_of_on_the_scan_page() -> None:
    # a webcam left at 640 x 480 (or a 320 x 240 video: 57 backs counted of 81) read wrong
    # with no word in the app, where `blitzcam count` notes it (review)
    result = SimpleNamespace(
        detections=Detections.empty(), counts={"red-plow": 0}, face_up=0, unknown=0, settled=True
    )
    counter = _counter_with(_FakePipeline())
    counter._live = lambda frame, in_play=None, at=None: result
    small = counter.count(np.full((480, 640, 3), 128, np.uint8))
    assert small.small_picture == (640, 480) and not small.dark_picture
    assert table_warnings(small) == (
        "⚠ The picture is small (640x480): cards may be read wrong; blitzcam counts at "
        "1280x720 or more (a camera: set it so)"
    )
    dark = counter.count(np.full((720, 1280, 3), 12, np.uint8))
    assert dark.small_picture is None and dark.dark_picture
    assert table_warnings(dark) == "⚠ The picture is very dark: cards may be missed; light the table"
    fine = counter.count(np.full((720, 1280, 3), 128, np.uint8))
    assert table_warnings(fine) == ""


def test_decks_in_play_that_look_alike_come_with_the_counts() -> None:
    from blitzcam.vision.embedding import References

    result = SimpleNamespace(
        detections=Detections.empty(), counts={"red-plow": 0}, face_up=0, unknown=0, settled=True
    )
    pipeline = _FakePipeline(
        names=("red-plow", "green-pump", "blue-pump", "my-deck"),
        vectors=[[1.0, 0.0], [0.8, 0.6], [0.0, 1.0], [0.1, 0.995]],
    )
    counter = _counter_with(pipeline)
    counter._live = lambda frame, in_play=None, at=None: result
    frame = np.zeros((4, 4, 3), np.uint8)
    # every deck a candidate: both pairs, most alike first (0.995, then 0.8)
    snapshot = counter.count(frame)
    assert snapshot.look_alike == (("blue-pump", "my-deck"), ("red-plow", "green-pump"))
    assert snapshot.note == ""  # the scan page says it (table_warnings), not the live view
    assert "Red plow and Green pump look alike" in table_warnings(snapshot)
    # a match's decks: only a pair that both play
    playing = counter.count(frame, in_play=frozenset({"red-plow", "green-pump", "blue-pump"}))
    assert playing.look_alike == (("red-plow", "green-pump"),)
    assert counter.count(frame, in_play=frozenset({"red-plow", "blue-pump"})).look_alike == ()
    # the profile reloaded with other references: their pairs
    pipeline.references = References(np.array([[1.0, 0.0]] * 4, np.float32), np.arange(4))
    assert counter.count(frame, in_play=frozenset({"red-plow", "blue-pump"})).look_alike == (
        ("red-plow", "blue-pump"),
    )


def test_the_app_counter_loads_a_damaged_profile_leniently(monkeypatch) -> None:
    from blitzcam.ui.pipeline_adapters import PipelineCounter, make_counter
    from blitzcam.vision import pipeline as pipeline_module

    asked = {}

    def from_defaults(**kwargs):
        asked.update(kwargs)
        return _FakePipeline()

    monkeypatch.setattr(pipeline_module.CountingPipeline, "from_defaults", from_defaults)
    monkeypatch.setattr(pipeline_module, "LiveCounting", lambda pipeline: None)
    assert isinstance(make_counter(), PipelineCounter)
    assert asked == {"profile": None, "skip_unusable": True}


def test_forgetting_from_the_app_removes_the_print_and_reloads_the_profile() -> None:
    import cv2

    from blitzcam.datasets.art import render_back
    from blitzcam.ui.pipeline_adapters import PipelineEnroller
    from blitzcam.vision.references import user_decks_dir

    card = cv2.cvtColor(np.ascontiguousarray(render_back("red-plow", width=300).rgba[..., :3]),
                        cv2.COLOR_RGB2BGR)
    frame = np.full((720, 1280, 3), 40, np.uint8)
    frame[100:100 + card.shape[0], 400:400 + card.shape[1]] = card
    pipeline = _FakePipeline()
    enroller = PipelineEnroller(_counter_with(pipeline))
    assert enroller.enrolled() == {}
    enroller.enroll("red-plow", frame)
    assert enroller.enrolled() == {"red-plow": user_decks_dir() / "red-plow.png"}
    message = enroller.forget("red-plow")
    assert message.startswith("Red plow: read against blitzcam's own drawing again")
    assert enroller.enrolled() == {} and pipeline.reloads == 2
    with pytest.raises(UserError, match="red-plow"):  # the dialog says it, "not forgotten"
        enroller.forget("red-plow")
    assert pipeline.reloads == 2  # nothing changed, nothing reloaded
    (user_decks_dir() / "green-pump.png").write_bytes(b"")  # damaged: it can still be forgotten
    assert enroller.enrolled() == {"green-pump": user_decks_dir() / "green-pump.png"}
    assert enroller.forget("green-pump").startswith("Green pump: read against")


def test_a_view_without_a_card_is_raised_as_what_was_wrong() -> None:
    # (the dialog heads it "Red plow: not enrolled", and knows it failed: see test_dialogs)
    from blitzcam.ui.pipeline_adapters import PipelineEnroller

    pipeline = _FakePipeline()
    with pytest.raises(UserError, match="no card"):
        PipelineEnroller(_counter_with(pipeline)).enroll("red-plow", np.zeros((480, 640, 3), np.uint8))
    assert pipeline.reloads == 0



def test_a_deck_enrolled_elsewhere_is_read_at_the_next_scan() -> None:
    # `blitzcam decks enroll` beside the running app: counting kept the old back until a
    # restart, while the enroll dialog already showed the new print
    import cv2

    from blitzcam.ui.pipeline_adapters import PipelineEnroller
    from blitzcam.vision.references import user_decks_dir

    pipeline = _FakePipeline()
    counter = _counter_with(pipeline)
    counter.reset()  # a scan starts: nothing changed on disk, nothing reloaded
    assert pipeline.reloads == 0
    user_decks_dir().mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(user_decks_dir() / "red-plow.png"), np.full((90, 60, 3), 200, np.uint8))
    counter.reset()
    assert pipeline.reloads == 1
    counter.reset()
    assert pipeline.reloads == 1  # read once
    (user_decks_dir() / "red-plow.png").unlink()
    PipelineEnroller(counter).enrolled()  # the enroll dialog opens
    assert pipeline.reloads == 2


def test_enrolling_a_glared_back_from_the_view_says_so() -> None:
    import cv2

    from blitzcam.datasets.art import render_back
    from blitzcam.ui.pipeline_adapters import PipelineEnroller

    card = cv2.cvtColor(np.ascontiguousarray(render_back("red-plow", width=300).rgba[..., :3]),
                        cv2.COLOR_RGB2BGR)
    frame = np.full((720, 1280, 3), 40, np.uint8)
    frame[100:100 + card.shape[0], 400:400 + card.shape[1]] = (card * 0.82).astype(np.uint8)
    yy, xx = np.mgrid[0:720, 0:1280]
    glare = 380 * np.exp(-((yy - 310) ** 2 + (xx - 550) ** 2) / (2 * 40.0**2))  # a lamp's
    frame = np.clip(frame + glare[..., None], 0, 255).astype(np.uint8)
    message = PipelineEnroller(_counter_with(_FakePipeline())).enroll("red-plow", frame)
    assert message.startswith("Red plow: enrolled")
    assert re.search(r"Note: glare whited out \d+% of the drawing \(white to the last bit, "
                     r"brighter than the paper around it\): .* enroll it again\.", message), message


def test_enrolling_a_back_from_a_dark_view_says_so() -> None:
    import cv2

    from blitzcam.datasets.art import render_back
    from blitzcam.ui.pipeline_adapters import PipelineEnroller

    card = cv2.cvtColor(np.ascontiguousarray(render_back("red-plow", width=300).rgba[..., :3]),
                        cv2.COLOR_RGB2BGR)
    frame = np.full((720, 1280, 3), 40, np.uint8)
    frame[100:100 + card.shape[0], 400:400 + card.shape[1]] = card
    noise = np.random.default_rng(0).normal(0, 2, frame.shape)
    dim = np.clip(frame * 0.09 + noise, 0, 255).astype(np.uint8)  # a dim room's camera
    message = PipelineEnroller(_counter_with(_FakePipeline())).enroll("red-plow", dim)
    assert message.startswith("Red plow: enrolled")
    assert re.search(r"Note: the photo is very dark \(the card's paper at grey \d+ of 255\): "
                     r".* enroll it again in more light\.", message), message
    lit = PipelineEnroller(_counter_with(_FakePipeline())).enroll("red-plow", frame)
    assert "dark" not in lit, lit


def test_a_decks_folder_is_read_once_shown_in_the_dialog_and_never_written(tmp_path) -> None:
    # (`app --decks DIR`: the app could not be given the folder `count` and `evaluate` take)
    import cv2

    from blitzcam.errors import UserError
    from blitzcam.ui.pipeline_adapters import FolderDecks, PipelineCounter, make_enroller

    folder = tmp_path / "backs"
    folder.mkdir()
    cv2.imwrite(str(folder / "red-plow.png"), np.full((90, 60, 3), 200, np.uint8))
    pipeline = _FakePipeline(names=("green-pump", "red-plow"))
    pipeline.profile.countable = lambda: ("red-plow",)  # green pump: a stand-in
    counter = PipelineCounter(pipeline, decks_dir=folder)
    asked: list[frozenset[str] | None] = []
    result = SimpleNamespace(
        detections=Detections.empty(), counts={"red-plow": 3}, face_up=0, unknown=0, settled=True
    )
    counter._live = lambda frame, in_play=None, at=None: asked.append(in_play) or result
    snapshot = counter.count(np.zeros((4, 4, 3), np.uint8), in_play=frozenset({"green-pump", "red-plow"}))
    assert asked == [frozenset({"red-plow"})]  # (the green pumps' made every count fail)
    assert snapshot.note == f"Not counted: Green pump: no back of theirs in --decks {folder} (their <deck>.png files)"
    (folder / "green-pump.png").write_bytes((folder / "red-plow.png").read_bytes())
    assert not counter.refresh_profile()  # a scan starts: the folder named at start is
    assert not counter.refresh_profile(changed=True)  # not read again
    assert pipeline.reloads == 0
    enroller = make_enroller(counter)
    assert isinstance(enroller, FolderDecks)
    assert enroller.enrolled() == {"green-pump": folder / "green-pump.png", "red-plow": folder / "red-plow.png"}
    # (the dialog heads it with the deck and what was not done: said twice before)
    with pytest.raises(UserError, match=rf"^the decks are read from --decks {re.escape(str(folder))}"):
        enroller.enroll("red-plow", np.zeros((480, 640, 3), np.uint8))
    with pytest.raises(UserError, match=r"^the decks are read from --decks "):
        enroller.forget("red-plow")
    assert enroller.read_only.startswith(f"the decks are read from --decks {folder}")
    assert sorted(p.name for p in folder.iterdir()) == ["green-pump.png", "red-plow.png"]


def test_a_model_s_problem_with_a_decks_folder_given_is_no_problem_of_the_folder(tmp_path, monkeypatch) -> None:
    # (read as the folder's when its message held the folder's name: `--decks .` and a bad
    # model stopped the app, where it starts with counts typed by hand; diff review)
    import cv2

    from blitzcam.datasets.art import render_back
    from blitzcam.errors import UserError
    from blitzcam.ui.counting_worker import NullCounter
    from blitzcam.ui.pipeline_adapters import make_counter
    from blitzcam.vision import pipeline as pipeline_module
    from blitzcam.vision.references import card_on_white

    cv2.imwrite(str(tmp_path / "red-plow.png"), card_on_white(render_back("red-plow", width=300).rgba))

    def from_defaults(**_):
        raise UserError(f"{tmp_path / 'model.onnx'}: not an ONNX model")

    monkeypatch.setattr(pipeline_module.CountingPipeline, "from_defaults", from_defaults)
    assert isinstance(make_counter(tmp_path), NullCounter)
    with pytest.raises(UserError, match="no such folder"):
        make_counter(tmp_path / "gone")


@pytest.mark.parametrize(("settled", "agrees"), [(True, True), (False, True), (True, False)])
def test_a_settled_table_unmoved_is_not_counted_again_for_a_second(
    monkeypatch, settled: bool, agrees: bool
) -> None:
    # (a still table was counted five times a second: 91-113 CPU seconds a minute of a
    # laptop's two cores for the same numbers; resources review)
    from blitzcam.ui import pipeline_adapters
    from blitzcam.vision.frame_change import thumbnail

    table = np.full((720, 1280, 3), 90, np.uint8)
    table[300:420, 500:580] = 250  # a card
    result = SimpleNamespace(
        detections=Detections.empty(), counts={"red-plow": 1}, face_up=0, unknown=0,
        settled=settled, thumb=thumbnail(table), agrees=agrees,
    )  # fmt: skip
    class Live:  # (vision's LiveCounting: this one's every count of the same view)
        def __call__(self, frame, in_play=None, at=None):
            return result

        def reset(self) -> None:
            pass

    counter = _counter_with(_FakePipeline())
    counter._live = Live()
    counter.refresh_profile = lambda **kw: False
    now = [100.0]
    monkeypatch.setattr(pipeline_adapters.time, "monotonic", lambda: now[0])
    assert not counter.unmoved(table)  # nothing counted yet
    counter.count(table)
    noisy = np.clip(table + np.random.default_rng(3).normal(0, 5, table.shape), 0, 255)
    # a camera's noise moves nothing; at rest only where the frame said what the vote does
    assert counter.unmoved(noisy.astype(np.uint8)) == (settled and agrees)
    laid = table.copy()
    laid[100:220, 900:980] = 250  # another card laid down
    assert not counter.unmoved(laid)
    now[0] += pipeline_adapters.RECOUNT_SETTLED_S  # ... and a second on: counted again
    assert not counter.unmoved(table)
    now[0] -= 0.5
    counter.reset()  # a new scan: its first frame is counted
    assert not counter.unmoved(table)
