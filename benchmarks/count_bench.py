"""Side by side: blitzcam's counting vs ultralytics' predict, same model and frames.

    python -m benchmarks.count_bench [--pt models/blitzcam-obb.pt --onnx models/blitzcam-obb.onnx]
        [--frames 6] [--rounds 3] [--imgsz 640]

The ONNX's int8 export beside it (`<name>-int8.onnx`, `models/quantize.py`) is timed too.

Without a trained model it builds a random-init one (same weights as .pt and ONNX). Frames are
seeded synthetic 1920x1080 table scenes from the generator's whole envelope (20 by default: some
of small cards, which blitzcam reads again in tiles, as about one frame in five of the held-out
scenes). Reported per frame, the median and the mean over every frame of every round (the
median says a usual frame, the mean what a run of tables costs: a frame read in tiles takes
several times one read once), and the two kinds of frame apart:
- ultralytics: `YOLO(pt).predict(frame, imgsz=N)` end to end, with its own thread choice
  (cores - 1 on CPU; or --threads), and on every core (`torch.set_num_threads`, one line a user
  could add); N is the ONNX export's long side (or --imgsz);
- blitzcam: `CountingPipeline(frame)` end to end (letterbox, forward pass, decode + NMS, deck
  identification, counting) with the same threads as ultralytics, and on every core, with the
  share of time spent outside the detector's forward pass (deck identification's own network
  counted outside it); on each engine installed (OpenVINO, the default, and ONNX Runtime; or
  --engine).
With a trained model each side runs as a user gets it: ultralytics at its default confidence
0.25, blitzcam as it ships (reading boxes down to DOUBTED_FROM, 0.1, counting from 0.45). With
--conf, or for random weights (which fire anywhere: the lowest threshold leaving a table's worth of
boxes, as identification cost grows with the number of backs), both use the same threshold.
Ratios are measured in one run, interleaved frame by frame, so machine load hits both alike.
OpenCV's own threads are as each side has them: importing ultralytics lowers them (for its data
loaders), which `blitzcam count` never does, so they are set back for blitzcam's side.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from blitzcam.paths import REPO_ROOT
from blitzcam.vision.onnx_session import ENGINES, ONNXRUNTIME, OPENVINO, openvino_installed


def synthetic_frames(count: int, seed: int = 7) -> list[np.ndarray]:
    """Seeded 1080p scenes from the dataset generator (BGR)."""
    from blitzcam.datasets import art
    from blitzcam.datasets.art import RANDOM_FAMILIES
    from blitzcam.datasets.compose import ArtCache, SceneConfig, compose_scene

    rng = np.random.default_rng(seed)
    cache = ArtCache(art)
    config = SceneConfig((1920, 1080), tuple(RANDOM_FAMILIES))
    return [
        np.ascontiguousarray(compose_scene(rng, config, cache).image[..., ::-1])
        for _ in range(count)
    ]


def realistic_conf(
    onnx_paths: dict[str, Path], frames: list[np.ndarray], target: int = 60
) -> float:
    """The lowest confidence threshold at which a random model gives at most `target` boxes on the
    median frame: a trained model finds a few dozen cards on a table, and both sides should do
    the work of a realistic frame (random weights fire anywhere)."""
    from blitzcam.vision.detector import Detector

    detector = Detector(next(iter(onnx_paths.values())))
    outputs = [(detector.forward(blob), params) for blob, params in map(detector.prepare, frames)]
    for conf in (0.25, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99):
        detector.conf = conf
        if (
            statistics.median(len(detector.decode(out, params)) for out, params in outputs)
            <= target
        ):
            return conf
    return 0.995


def _mean(values: list[float]) -> float:
    return statistics.fmean(values) if values else float("nan")


def _time(fn, frame) -> float:
    start = time.perf_counter()
    fn(frame)
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pt", type=Path)
    parser.add_argument("--onnx", type=Path)
    parser.add_argument("--frames", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--imgsz", type=int, default=None)
    parser.add_argument(
        "--conf",
        type=float,
        default=None,
        help="confidence threshold for both sides (default: 0.25 for a trained model; for a "
        "random one, the lowest giving a table's worth of boxes)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=0,
        help="CPU threads for both sides (default: ultralytics' own choice, for both)",
    )
    parser.add_argument(
        "--engine",
        choices=ENGINES,
        action="append",
        help="engine(s) running blitzcam's side (default: every installed one)",
    )
    args = parser.parse_args()
    if (args.pt is None) != (args.onnx is None):
        parser.error("--pt and --onnx go together: both sides run the same model")
    engines = args.engine or [ONNXRUNTIME] + ([OPENVINO] if openvino_installed() else [])

    import cv2

    from blitzcam.offline import import_ultralytics

    our_cv2_threads = cv2.getNumThreads()
    import_ultralytics()
    ultra_cv2_threads = cv2.getNumThreads()  # ultralytics sets it on import
    import torch
    from ultralytics import YOLO

    from blitzcam.vision.detector import Detector
    from blitzcam.vision.embedding import Embedder
    from blitzcam.vision.pipeline import (
        COUNT_IOU,
        DOUBTED_FROM,
        CountingPipeline,
        default_identity_path,
    )
    from blitzcam.vision.references import load_profile

    tmp = tempfile.TemporaryDirectory()
    pt, onnx_paths, trained = args.pt, {}, True
    if pt is None and (REPO_ROOT / "models" / "blitzcam-obb.pt").is_file():
        pt, args.onnx = (
            REPO_ROOT / "models" / "blitzcam-obb.pt",
            REPO_ROOT / "models" / "blitzcam-obb.onnx",
        )
    if pt is None:
        from benchmarks.random_obb import build_random_obb

        # a sparse class prior: a few dozen boxes per frame, as a trained model gives on a table
        built = build_random_obb(
            Path(tmp.name), imgsz=args.imgsz or 640, dynamic_too=True, score_bias=-6.0
        )
        pt, onnx_paths = built.pt, {"fixed": built.onnx, "dynamic": built.onnx_dynamic}
        trained = False
        print("model: random-init yolo11n-obb (no trained model in models/)")
    else:
        onnx_paths = {"shipped": args.onnx}
        int8 = Path(args.onnx).with_name(Path(args.onnx).stem + "-int8.onnx")
        if int8.is_file():  # its int8 export (`models/quantize.py`), the faster option
            onnx_paths["int8"] = int8
        print(f"model: {pt} vs {', '.join(str(p) for p in onnx_paths.values())}")

    if args.imgsz is None:  # the size the ONNX was exported at, as predict should use it
        args.imgsz = max(Detector(next(iter(onnx_paths.values()))).info.imgsz)
    frames = synthetic_frames(args.frames)
    profile = load_profile(None)
    yolo = YOLO(str(pt), task="obb")
    yolo.predict(frames[0], imgsz=args.imgsz, verbose=False)  # sets the predictor up
    ultra_threads = torch.get_num_threads()  # ultralytics' choice: cores - 1 on CPU
    all_cores = os.cpu_count() or 1
    same = args.threads or ultra_threads
    conf = args.conf
    if conf is None:
        conf = 0.25 if trained else realistic_conf(onnx_paths, frames)
    ours = DOUBTED_FROM if trained and args.conf is None else conf
    pipelines = {}
    identity = default_identity_path()
    for engine in engines:
        for name, path in onnx_paths.items():
            label = f"{name} ({engine})"
            # suppressed at the counting path's own overlap line, as blitzcam ships
            pipelines[f"{label}, {same} thread(s)"] = CountingPipeline(
                Detector(path, threads=same, conf=ours, iou=COUNT_IOU, engine=engine),
                Embedder(identity, threads=same, engine=engine),
                profile,
            )
            if all_cores != same:
                pipelines[f"{label}, all cores"] = CountingPipeline(
                    Detector(path, conf=ours, iou=COUNT_IOU, engine=engine),
                    Embedder(identity, engine=engine),
                    profile,
                )
    for pipeline in pipelines.values():
        # every box read comes back (the same work; only the returned record is not cut to
        # the counted ones), so identification's time is divided by the backs it read
        pipeline.keep_uncounted = True

    def ultra(frame: np.ndarray) -> None:
        yolo.predict(frame, imgsz=args.imgsz, conf=conf, verbose=False)

    ultra_runs = {f"ultralytics, {same} thread(s)": same}
    if all_cores != same:  # the same threads as blitzcam's all-cores rows
        ultra_runs["ultralytics, all cores"] = all_cores
    times: dict[str, list[float]] = {name: [] for name in ultra_runs}
    outside: dict[str, list[float]] = {}
    detect_only: dict[str, list[float]] = {}  # letterbox + forward + decode: predict's own work
    per_back: dict[str, list[float]] = {}  # identification milliseconds per back read
    for name in pipelines:
        times[f"blitzcam {name}"] = []
        outside[f"blitzcam {name}"] = []
        detect_only[f"blitzcam {name}"] = []
    for frame in frames[:2]:  # warm-up
        ultra(frame)
        for pipeline in pipelines.values():
            pipeline(frame)
    for _ in range(args.rounds):
        for frame in frames:
            cv2.setNumThreads(ultra_cv2_threads)
            for name, threads in ultra_runs.items():
                torch.set_num_threads(threads)
                times[name].append(_time(ultra, frame))
            cv2.setNumThreads(our_cv2_threads)
            for name, pipeline in pipelines.items():
                start = time.perf_counter()
                result = pipeline(frame)
                total = (time.perf_counter() - start) * 1000
                times[f"blitzcam {name}"].append(total)
                outside[f"blitzcam {name}"].append(1 - result.timing_ms["inference"] / total)
                stages = result.timing_ms
                detect_only[f"blitzcam {name}"].append(
                    stages["preprocess"] + stages["inference"] + stages["postprocess"]
                )
                backs = int(result.detections.of_class("back").sum())
                if backs:
                    per_back.setdefault(name, []).append(stages["identify"] / backs)
    torch.set_num_threads(ultra_threads)

    median = {name: statistics.median(values) for name, values in times.items()}
    mean = {name: statistics.fmean(values) for name, values in times.items()}
    print(
        f"cpu cores: {all_cores}, ultralytics' own thread choice: {ultra_threads}, frames: "
        f"{len(frames)} x {args.rounds} rounds, 1920x1080, conf {conf} (blitzcam reads from "
        f"{ours}), "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    tiled: list[bool] = []
    for name, pipeline in pipelines.items():
        results = [pipeline(frame) for frame in frames]
        found = [int(result.detections.counted.sum()) for result in results]
        print(f"  boxes counted per frame ({name}): {found}")
        # a frame of small cards is read again in tiles (vision/tiling.py): predict never is
        tiles = [result.tiles for result in results]
        print(f"  frames read again in tiles ({name}): {sum(n > 0 for n in tiles)}, {tiles}")
        tiled = tiled or [n > 0 for n in tiles]
    print("ms per 1080p frame: median, mean; mean of the frames read once, of those in tiles")
    for name, value in median.items():
        each = times[name]
        once = [t for i, t in enumerate(each) if not tiled[i % len(frames)]]
        in_tiles = [t for i, t in enumerate(each) if tiled[i % len(frames)]]
        line = f"  {name:<36} {value:7.1f} {mean[name]:7.1f}   "
        line += f"{_mean(once):7.1f} {_mean(in_tiles):7.1f}"
        if name in outside:
            share = statistics.median(outside[name]) * 100
            line += f"   outside the detector's forward pass: {share:4.1f}%"
        print(line)
    baseline = median[f"ultralytics, {same} thread(s)"]
    for name, values in per_back.items():
        print(f"deck identification, {name}: {statistics.median(values):.2f} ms per back read")
    threads_said = "at --threads" if args.threads else "as it runs by default"
    for name in pipelines:
        key = f"blitzcam {name}"
        print(
            f"speed-up of blitzcam {name} over ultralytics {threads_said} "
            f"({same} thread(s)): end to end {baseline / median[key]:.2f}x by median, "
            f"{mean[f'ultralytics, {same} thread(s)'] / mean[key]:.2f}x by mean, "
            f"detection alone {baseline / statistics.median(detect_only[key]):.2f}x by median"
        )
    if "ultralytics, all cores" in median:  # like for like: every core on both sides
        every = median["ultralytics, all cores"]
        for name in pipelines:
            if name.endswith("all cores"):
                print(
                    f"speed-up of blitzcam {name} over ultralytics on all cores: end to end "
                    f"{every / median[f'blitzcam {name}']:.2f}x by median, "
                    f"{mean['ultralytics, all cores'] / mean[f'blitzcam {name}']:.2f}x by mean"
                )
    tmp.cleanup()


if __name__ == "__main__":
    main()
