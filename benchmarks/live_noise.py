"""The live vote on the real detector's own noise: still tables filmed by a noisy camera.

    python -m benchmarks.live_noise [--scenes 20] [--frames 60] [--seed 777]
        [--save rec.npz | --replay rec.npz]

Record: `--scenes` generated tables (1280x720, the generator's seed `--seed`) and the four demo
tables, each as `--frames` frames of one still camera: sensor noise (sigma 2-4), JPEG at quality
70-90, up to 1 px of jitter and a light's flicker (gain 0.96-1.04, +-3 grey), drawn from one
seeded generator. Each frame is counted by the shipped pipeline, decided among the scene's
decks as a match's scan is (a demo table: the decks its clean photo shows), and its thumbnail
and card blocks kept as `vision.pipeline.LiveCounting` makes them.

Replay: the same recorded frames through `Stabiliser` with the shipped settings and others,
side by side, at 5 counts a second with the camera watched between them (30 ms unseen): per
setting, settled frames whose per-deck counts differ from the sequence's own majority (the
vote's doing) and from the generator's truth (the detector's too), shown counts that change
while settled (per deck; the warning's backs read as no deck), frames until the first settled
count, and frames taken for motion. The frames alone: how often a frame's per-deck counts
differ from its sequence's majority, and how such frames come (alone or in runs).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from blitzcam.game.counts import Counts
from blitzcam.game.decks import DECK_NAMES
from blitzcam.paths import REPO_ROOT
from blitzcam.vision.frame_change import card_blocks, card_centres, thumbnail
from blitzcam.vision.stabilise import SPLIT_SETTLES, VOTES, Stabiliser

COUNT_EVERY_S = 0.2  # five counts a second: the app's pace on a laptop, 1080p
UNSEEN_S = 0.03  # the camera's wait between a count's report and the next frame
SETTINGS = ((VOTES, SPLIT_SETTLES), (7, 5), (VOTES, 3), (5, 5), (11, 5))  # (votes, split)


def noisy(photo: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One frame of a still camera over `photo`: jitter, flicker, sensor noise, JPEG."""
    dx, dy = rng.uniform(-1, 1, 2)
    shift = np.float32([[1, 0, dx], [0, 1, dy]])
    size = (photo.shape[1], photo.shape[0])
    frame = cv2.warpAffine(photo.astype(np.float32), shift, size, borderMode=cv2.BORDER_REFLECT)
    frame = frame * rng.uniform(0.96, 1.04) + rng.uniform(-3, 3)
    frame += rng.normal(0, rng.uniform(2, 4), frame.shape)
    frame = np.clip(np.rint(frame), 0, 255).astype(np.uint8)
    quality = int(rng.integers(70, 91))
    return cv2.imdecode(cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, quality])[1], 1)


def _tables(n: int, seed: int, folder: Path) -> list[tuple[str, Path, dict | None]]:
    """(name, photo, truth: the generator's counts per deck and of backs of no deck, or None)."""
    from blitzcam.datasets.generate import GenerateRequest, generate_dataset

    out = generate_dataset(
        GenerateRequest(out=folder / "scenes", n=n, seed=seed, res=(1280, 720), progress=False)
    )
    tables: list[tuple[str, Path, dict | None]] = []
    for scene in sorted(out.glob("scenes/*/*.json")):
        record = json.loads(scene.read_text())
        counts = record["counts"]
        truth = {
            "per_deck": {deck: counts.get(deck, 0) for deck in DECK_NAMES},
            "unknown": sum(k for deck, k in counts.items() if deck not in DECK_NAMES),
        }
        tables.append((scene.stem, out / record["image"], truth))
    demo = sorted((REPO_ROOT / "datasets" / "demo").glob("table-*.jpg"))
    return tables + [(path.stem, path, None) for path in demo]


def record(n: int, frames: int, seed: int) -> list[dict]:
    """Each table's frames counted by the shipped pipeline (see the module's docstring)."""
    from blitzcam.vision.pipeline import CountingPipeline

    pipeline = CountingPipeline.from_defaults()
    rng = np.random.default_rng(seed)
    sequences = []
    with tempfile.TemporaryDirectory() as folder:
        for name, path, truth in _tables(n, seed, Path(folder)):
            photo = cv2.imread(str(path))
            if truth is not None:
                in_play = frozenset(d for d, k in truth["per_deck"].items() if k) or None
            else:
                shown = pipeline(photo).counted.per_deck
                in_play = frozenset(d for d, k in shown.items() if k) or None
            sequence: dict = {"name": name, "truth": truth, "counts": [], "thumbs": [],
                              "cards": [], "centres": []}  # fmt: skip
            for _ in range(frames):
                frame = noisy(photo, rng)
                result = pipeline(frame, in_play=in_play)
                corners = result.detections.corners[result.detections.counted]
                c = result.counted
                said = {"per_deck": dict(c.per_deck), "face_up": c.face_up, "unknown": c.unknown}
                sequence["counts"].append(said)
                sequence["thumbs"].append(thumbnail(frame))
                sequence["cards"].append(card_blocks(corners, frame.shape[:2]))
                sequence["centres"].append(card_centres(corners, frame.shape[:2]))
            sequences.append(sequence)
            print(f"recorded {name}", flush=True)
    return sequences


def save(sequences: list[dict], path: Path) -> None:
    arrays = {f"{key}{i}": np.stack(s[key]) for i, s in enumerate(sequences)
              for key in ("thumbs", "cards", "centres")}  # fmt: skip
    meta = [{k: s[k] for k in ("name", "truth", "counts")} for s in sequences]
    np.savez_compressed(path, meta=np.array(json.dumps(meta)), **arrays)


def load(path: Path) -> list[dict]:
    with np.load(path, allow_pickle=False) as data:  # (our own file; never a pickle)
        meta = json.loads(str(data["meta"]))
        for i, s in enumerate(meta):
            s |= {key: list(data[f"{key}{i}"]) for key in ("thumbs", "cards", "centres")}
    return meta


def majority(counts: list[dict]) -> dict[str, int]:
    return {deck: Counter(c["per_deck"][deck] for c in counts).most_common(1)[0][0]
            for deck in counts[0]["per_deck"]}  # fmt: skip


def replay(sequences: list[dict], votes: int, split: int) -> dict[str, float]:
    """What the live view shows over the recorded frames with these settings."""
    off_majority = off_truth = settled = deck_changes = warning_changes = moving = 0
    firsts = []
    for s in sequences:
        most, truth = majority(s["counts"]), s["truth"]
        stabiliser = Stabiliser(window=votes, split_settles=split)
        before, first = None, None
        for i, c in enumerate(s["counts"]):
            out = stabiliser.update(
                s["thumbs"][i],
                Counts(c["per_deck"], c["face_up"], c["unknown"]),
                at=i * COUNT_EVERY_S,
                unseen_s=UNSEEN_S,
                cards=s["cards"][i],
                centres=s["centres"][i],
            )
            moving += out.view is None
            if not out.settled:
                continue
            settled += 1
            first = i + 1 if first is None else first
            shown = dict(out.counts.per_deck)
            off_majority += shown != most
            off_truth += truth is not None and shown != truth["per_deck"]
            if before is not None:
                deck_changes += sum(shown[d] != before[0][d] for d in shown)
                warning_changes += out.counts.unknown != before[1]
            before = shown, out.counts.unknown
        firsts.append(first if first is not None else len(s["counts"]) + 1)
    return {"settled": settled, "off_majority": off_majority, "off_truth": off_truth,
            "deck_changes": deck_changes, "warning_changes": warning_changes,
            "first_median": statistics.median(firsts), "first_max": max(firsts),
            "moving": moving}  # fmt: skip


def frames_alone(sequences: list[dict]) -> str:
    off = total = 0
    lengths: Counter[int] = Counter()
    for s in sequences:
        most = majority(s["counts"])
        run = 0
        for c in s["counts"]:
            total += 1
            if c["per_deck"] != most:
                off += 1
                run += 1
                continue
            if run:
                lengths[run] += 1
            run = 0
        if run:
            lengths[run] += 1
    said = ", ".join(f"{k} of {n}" for n, k in sorted(lengths.items()))
    return f"frames off their sequence's majority: {off} of {total} (runs: {said or 'none'})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=20)
    parser.add_argument("--frames", type=int, default=60)
    parser.add_argument("--seed", type=int, default=777)
    parser.add_argument("--save", type=Path, help="keep the recording (.npz) to replay later")
    parser.add_argument("--replay", type=Path, help="replay a recording instead of recording")
    args = parser.parse_args()
    sequences = load(args.replay) if args.replay else record(args.scenes, args.frames, args.seed)
    if args.save:
        save(sequences, args.save)
    print(f"{len(sequences)} still tables, {frames_alone(sequences)}")
    truths = sum(s["truth"] is not None for s in sequences)
    for votes, split in SETTINGS:
        r = replay(sequences, votes, split)
        shipped = " (shipped)" if (votes, split) == (VOTES, SPLIT_SETTLES) else ""
        print(
            f"votes {votes:2}, split settles at {split}{shipped}: settled {r['settled']}, "
            f"off the majority {r['off_majority']}, off the truth {r['off_truth']} "
            f"({truths} tables with one), per-deck changes while settled {r['deck_changes']}, "
            f"no-deck warning changes {r['warning_changes']}, first settled at frame "
            f"{r['first_median']:g} (median; {r['first_max']} at most), moving {r['moving']}"
        )


if __name__ == "__main__":
    main()
