"""The counting pipeline: frame -> detections -> deck identities -> counts; thin over pure stages.

`CountingPipeline.from_defaults()` loads the shipped model (models/blitzcam-obb.onnx, or the file
named by BLITZCAM_MODEL) once and the deck profile (built-in art plus enrolled backs, or a
`--decks DIR`). Calling it on a BGR frame returns one FrameResult. Imports no torch.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np

from blitzcam.paths import REPO_ROOT
from blitzcam.vision.counting import Counts, count
from blitzcam.vision.detections import Detections
from blitzcam.vision.detector import Detector
from blitzcam.vision.identify import identify
from blitzcam.vision.references import DeckProfile, load_profile
from blitzcam.vision.stabilise import Stabiliser, thumbnail

MODEL_ENV: Final = "BLITZCAM_MODEL"
MODEL_NAME: Final = "blitzcam-obb.onnx"
# Backs at or above this detector confidence are counted. Chosen on the training recipe's
# validation split (best share of scenes counted exactly; see models/MODEL_CARD.md).
COUNT_CONF: Final = 0.45


def default_model_path() -> Path:
    """BLITZCAM_MODEL if set; else models/blitzcam-obb.onnx in the checkout or installed package."""
    override = os.environ.get(MODEL_ENV)
    if override:
        return Path(override)
    in_repo = REPO_ROOT / "models" / MODEL_NAME
    if in_repo.is_file():
        return in_repo
    try:
        from importlib.resources import files

        installed = Path(str(files("blitzcam.models") / MODEL_NAME))
        if installed.is_file():
            return installed
    except (ModuleNotFoundError, TypeError):
        pass
    return in_repo


@dataclass(frozen=True, slots=True)
class FrameResult:
    """Everything one frame says: the identified detections, the counts, where the time went."""

    detections: Detections
    counts: Mapping[str, int]  # backs per known deck, zeros included
    face_up: int
    unknown: int
    timing_ms: Mapping[str, float]  # preprocess, inference, postprocess, identify, total
    settled: bool = (
        True  # live counting: enough still frames of this scene agree (see LiveCounting)
    )


class CountingPipeline:
    """Detector + deck profile, loaded once; call it on BGR frames."""

    def __init__(self, detector: Detector, profile: DeckProfile) -> None:
        self.detector = detector
        self.profile = profile
        self.known_decks = profile.known_decks()

    def reload_profile(self, decks_dir: Path | None = None) -> None:
        """Pick up newly enrolled backs (the model stays loaded)."""
        profile = load_profile(decks_dir)
        self.profile, self.known_decks = profile, profile.known_decks()

    @classmethod
    def from_defaults(
        cls,
        *,
        model_path: Path | None = None,
        decks_dir: Path | None = None,
        threads: int | None = None,
    ) -> CountingPipeline:
        detector = Detector(model_path or default_model_path(), conf=COUNT_CONF, threads=threads)
        return cls(detector, load_profile(decks_dir))

    def __call__(self, frame_bgr: np.ndarray) -> FrameResult:
        t0 = time.perf_counter()
        blob, params = self.detector.prepare(frame_bgr)
        t1 = time.perf_counter()
        output = self.detector.forward(blob)
        t2 = time.perf_counter()
        detections = self.detector.decode(output, params)
        t3 = time.perf_counter()
        profile, known_decks = self.profile, self.known_decks  # reload_profile may swap them
        detections = identify(
            frame_bgr, detections, profile.features, profile.owners, profile.names
        )
        counts: Counts = count(detections, known_decks)
        t4 = time.perf_counter()
        timing = {
            "preprocess": (t1 - t0) * 1000,
            "inference": (t2 - t1) * 1000,
            "postprocess": (t3 - t2) * 1000,
            "identify": (t4 - t3) * 1000,
            "total": (t4 - t0) * 1000,
        }
        return FrameResult(
            detections=detections,
            counts=counts.per_deck,
            face_up=counts.face_up,
            unknown=counts.unknown,
            timing_ms=timing,
        )


class LiveCounting:
    """A pipeline for a camera feed: counts voted over recent still frames (see stabilise.py).

    Same call as CountingPipeline; the detections are this frame's, the counts the window's vote.
    """

    def __init__(self, pipeline: CountingPipeline, stabiliser: Stabiliser | None = None) -> None:
        self.pipeline = pipeline
        self.stabiliser = stabiliser or Stabiliser()

    def __call__(self, frame_bgr: np.ndarray) -> FrameResult:
        result = self.pipeline(frame_bgr)
        counts = Counts(per_deck=result.counts, face_up=result.face_up, unknown=result.unknown)
        stable = self.stabiliser.update(thumbnail(frame_bgr), counts)
        return dataclasses.replace(
            result,
            counts=stable.counts.per_deck,
            face_up=stable.counts.face_up,
            unknown=stable.counts.unknown,
            settled=stable.settled,
        )
