"""Write the README screenshots (docs/screenshots/*.png) offscreen.

    QT_QPA_PLATFORM=offscreen .venv/bin/python -m tests.ui.make_screenshots \
        [--image datasets/demo/table-N.jpg [--model models/blitzcam-obb.onnx | --scene S.json]]

With --model the scan view shows what the real counting pipeline finds on the image; with a
generator scene (`blitzcam dataset generate` writes scenes/*.json beside each image) that
scene's true cards as a perfect counter would; with neither, a synthetic table.
Not a test: the screenshots are for people.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np
from PySide6.QtWidgets import QApplication

from blitzcam.game.decks import DECK_NAMES
from blitzcam.game.store import MatchStore
from blitzcam.paths import REPO_ROOT
from blitzcam.ui.app import clear_opencv_qt_env, configure
from blitzcam.ui.counting_worker import CountSnapshot, Outline
from blitzcam.ui.main_window import MainWindow
from tests.ui.fakes import ScriptedFeed, match_of, round_of, synthetic_frame

OUT = REPO_ROOT / "docs" / "screenshots"


def scene_snapshot(scene: dict, decks: list[str]) -> CountSnapshot:
    """The generator's answer as a snapshot; each scene deck slot stands in for a player's deck."""
    outlines, counts = [], {}
    for obj in scene["objects"]:
        face_up = obj["class"] == "face"
        deck = None if face_up else decks[obj["slot"] % len(decks)]
        outlines.append(Outline(np.asarray(obj["polygon"], np.float32), deck, face_up))
        if deck:
            counts[deck] = counts.get(deck, 0) + 1
    return CountSnapshot(counts=counts, outlines=tuple(outlines))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scene", type=Path)
    parser.add_argument("--image", type=Path)
    parser.add_argument("--model", type=Path)
    args = parser.parse_args()
    clear_opencv_qt_env()
    app = QApplication([])
    configure(app)
    OUT.mkdir(parents=True, exist_ok=True)
    rounds = (
        round_of(Ann=(12, 0), Bob=(9, 4), Cy=(5, 2), Di=(7, 3)),
        round_of(Ann=(8, 3), Bob=(15, 0), Cy=(10, 1), Di=(11, 2)),
        round_of(Ann=(14, 0), Bob=(6, 5), Cy=(11, 2), Di=(9, 1)),
        round_of(Ann=(9, 2), Bob=(12, 1), Cy=(16, 0), Di=(10, 3)),
    )
    if args.model:
        from blitzcam.ui.pipeline_adapters import snapshot_from_result
        from blitzcam.vision.pipeline import CountingPipeline

        frame = cv2.imread(str(args.image))
        # decided among the match's decks, as the app decides (every deck a candidate, a
        # red plow showed in its own colour beside a match that has no red plow)
        result = CountingPipeline.from_defaults(model_path=args.model)(
            frame, in_play=DECK_NAMES[:4]
        )
        frame[0, 0] = 0  # (the fake counter tells its scenes by this pixel)
        scenes = [(frame, snapshot_from_result(result))]
    elif args.scene:
        scene = json.loads(args.scene.read_text())
        frame = cv2.imread(str(args.image))
        frame[0, 0] = 0
        scenes = [(frame, scene_snapshot(scene, list(DECK_NAMES[:4])))]
    else:
        cards = [(d, False) for d in DECK_NAMES[:4] for _ in range(4)] + [(None, True)]
        scenes = [synthetic_frame(0, cards, size=(1280, 720))]
    # the Blitz piles left: a few cards of three players, the first one's Blitz called
    left = [DECK_NAMES[1]] * 3 + [DECK_NAMES[2]] + [DECK_NAMES[3]] * 2
    scenes.append(synthetic_frame(1, [(deck, False) for deck in left], size=(640, 360)))
    feed = ScriptedFeed(scenes)
    with tempfile.TemporaryDirectory() as tmp:
        store = MatchStore(Path(tmp) / "m.sqlite3")
        store.create_match(match_of(*rounds, n=4, target=75))
        window = MainWindow(
            store, open_source=lambda spec: feed, counter=feed.counter,
            settings_path=Path(tmp) / "s.json", interval_ms=5,
        )
        window.resize(1400, 820)
        window.show()
        app.processEvents()
        window.grab().save(str(OUT / "scoreboard.png"))
        window.scan_action.trigger()
        for _ in range(40):
            app.processEvents()
            time.sleep(0.01)
        window.scan.grab()  # settle layout
        window.grab().save(str(OUT / "scan.png"))
        window.scan._on_capture()
        window.scan._on_next()
        feed.show(1)
        for _ in range(80):  # the Blitz view settles (a shot waits for it)
            app.processEvents()
            time.sleep(0.01)
        window.scan._on_capture()
        window.scan._on_next()
        for _ in range(20):
            app.processEvents()
            time.sleep(0.01)
        if window.confirm is None:  # (a stale confirm.png stayed, unsaid: it was never shown)
            raise SystemExit("the confirm dialog did not open: confirm.png not written")
        window.confirm.grab().save(str(OUT / "confirm.png"))
        window.confirm.reject()
        window.shutdown()
        store.close()
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
