"""The live view's pace: how often the picture moves, and what that costs the counting.

    python -m benchmarks.live_view_bench [--seconds 10] [--rounds 2] [--fps 30]
        [--image datasets/demo/table-1.jpg] [--size 1920x1080]

A phone camera app is stood in for by an MJPEG server on loopback, sending one table's photo
(`--size`, JPEG quality 85) `--fps` times a second. The app's own parts read it: the source
the app opens for the address (`ui.frame_sources.open_source`: OpenCV's reader on its own
thread), the app's counter (`ui.pipeline_adapters.make_counter`: the shipped models), the
counting thread and a live view on Qt's offscreen platform, painted as a window's is.

Each round runs twice, one after the other, so that machine load hits both alike: with the
camera's own frames shown between counts (`NewestFrame.peek`, the app as it is), and with the
view moved only by counts (the reader's `peek` hidden, the app before). The counter's rest on
a still table is off, so that the table is counted at every frame, as one being played on is.
Reported for each:
pictures shown per second, counts per second, and the ratio of the two counting rates (what
the view's frames cost the counts).
"""

from __future__ import annotations

import argparse
import http.server
import os
import statistics
import threading
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from blitzcam.paths import REPO_ROOT

BOUNDARY = "blitzcamframe"


def mjpeg_server(jpeg: bytes, fps: float) -> tuple[http.server.ThreadingHTTPServer, str]:
    """A loopback server sending `jpeg` `fps` times a second at /video, as phone apps do."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", f"multipart/x-mixed-replace; boundary={BOUNDARY}")
            self.end_headers()
            next_at = time.monotonic()
            try:
                while True:
                    part = (
                        f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\n"
                        f"Content-Length: {len(jpeg)}\r\n\r\n"
                    ).encode()
                    self.wfile.write(part + jpeg + b"\r\n")
                    next_at += 1 / fps
                    time.sleep(max(0.0, next_at - time.monotonic()))
            except (BrokenPipeError, ConnectionResetError):
                return

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/video"


class _CountsOnly:
    """The app's source with its frames for the view hidden: the view moves only by counts."""

    def __init__(self, source: Any) -> None:
        self._source = source
        self.live = True

    def read(self) -> np.ndarray | None:
        return self._source.read()

    def cancel(self) -> None:
        self._source.cancel()

    def close(self) -> None:
        self._source.close()


class _NeverAtRest:
    """The app's counter without its rest (`unmoved`): the stream's still table is counted at
    every frame, as a table being played on is, so that the counting rate tells what the view's
    own frames cost it (at rest both sides count once a second, and it told nothing)."""

    unmoved = None

    def __init__(self, counter: Any) -> None:
        self._counter = counter

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._counter(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._counter, name)


def one_run(url: str, counter: Any, seconds: float, *, own_frames: bool) -> dict[str, float]:
    """Pictures shown and frames counted per second over `seconds`, after the first count."""
    from PySide6.QtCore import QCoreApplication, QEvent
    from PySide6.QtWidgets import QApplication

    from blitzcam.ui.counting_worker import CountingThread
    from blitzcam.ui.frame_sources import open_source
    from blitzcam.ui.live_view import LiveView

    app = QApplication.instance()
    source = open_source(url)
    view = LiveView()
    view.resize(960, 540)
    view.show()
    thread = CountingThread(source if own_frames else _CountsOnly(source), counter)
    counted: list[float] = []
    shown: list[float] = []

    def on_counted(item: Any) -> None:
        counted.append(time.perf_counter())
        before = view.shown_index()
        view.show_frame(item.frame, item.snapshot, item.source_index)
        if view.shown_index() != before or item.source_index is None:  # (the picture moved)
            shown.append(counted[-1])

    def on_previewed(frame: np.ndarray, index: int) -> None:
        before = view.shown_index()
        view.show_preview(frame, index)
        if view.shown_index() != before:
            shown.append(time.perf_counter())

    thread.counted.connect(on_counted)
    thread.previewed.connect(on_previewed)
    thread.start()
    deadline = time.perf_counter() + 60
    while not counted and time.perf_counter() < deadline:  # connected, models warm
        app.processEvents()
        time.sleep(0.005)
    if not counted:
        thread.stop()
        raise SystemExit(f"{url}: no frame counted in 60 s")
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        app.processEvents()
        time.sleep(0.002)
    end = time.perf_counter()
    thread.stop()
    while thread.is_running():  # the frame in hand counted, the camera let go: the next run's
        app.processEvents()
        time.sleep(0.01)
    view.close()
    view.deleteLater()
    # (outside a running event loop processEvents runs no deferred delete: each run's view
    # stayed, with what it held, for the runs after it)
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    within = end - start
    return {
        "shown_per_s": sum(start <= t < end for t in shown) / within,
        "counts_per_s": sum(start <= t < end for t in counted) / within,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--fps", type=float, default=30.0)
    parser.add_argument("--image", type=Path, default=REPO_ROOT / "datasets/demo/table-1.jpg")
    parser.add_argument("--size", default="1920x1080")
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from blitzcam.ui.pipeline_adapters import make_counter

    width, height = (int(v) for v in args.size.lower().split("x"))
    picture = cv2.imread(str(args.image))
    if picture is None:
        raise SystemExit(f"{args.image}: cannot read it")
    picture = cv2.resize(picture, (width, height), interpolation=cv2.INTER_AREA)
    jpeg = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, 85])[1].tobytes()
    _app = QApplication.instance() or QApplication([])
    server, url = mjpeg_server(jpeg, args.fps)
    counter = _NeverAtRest(make_counter())
    results: dict[bool, list[dict[str, float]]] = {True: [], False: []}
    try:
        for round_ in range(args.rounds):
            for own in (True, False) if round_ % 2 == 0 else (False, True):
                results[own].append(one_run(url, counter, args.seconds, own_frames=own))
                got = results[own][-1]
                print(
                    f"round {round_ + 1}, {'own frames' if own else 'counts only'}: "
                    f"{got['shown_per_s']:.1f} pictures/s, {got['counts_per_s']:.2f} counts/s",
                    flush=True,
                )
    finally:
        server.shutdown()

    def median(own: bool, key: str) -> float:
        return statistics.median(r[key] for r in results[own])

    load = os.getloadavg()[0]
    print(f"\n{args.size} MJPEG at {args.fps:g} fps, {args.rounds} rounds of {args.seconds:g} s")
    print("| view | pictures shown / s | counts / s |")
    print("| --- | --- | --- |")
    for own, label in ((True, "camera's own frames between counts"), (False, "counts only")):
        print(f"| {label} | {median(own, 'shown_per_s'):.1f} | {median(own, 'counts_per_s'):.2f} |")
    ratio = median(True, "counts_per_s") / median(False, "counts_per_s")
    print(f"counting rate with the view's own frames / without: {ratio:.2f}x")
    print(f"load average (1 min) at the end: {load:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
