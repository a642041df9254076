"""Training data for the identity network: drawings cut from synthetic scenes, with the clean
reference drawing each one should match.

Each scene comes from the real generator (`datasets.compose.compose_scene`: perspective, light,
blur, noise, JPEG, overlaps). Every labelled back is cut out as the counting path would cut it:
its box disturbed the way the detector's boxes are (offset, size, a few degrees), half of them
then snapped to the ink as `identify` does. Its reference is the same design rendered flat and
large and cut into the variants enrollment makes (`vision.references.reference_boxes`). For
random-art backs the generator's random state is recorded just before the design is drawn, so
the same design can be drawn again at reference size. Identities: a built-in deck's name, or
"<scene>:<slot>" for a random design (one design per deck slot per scene).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Final

import cv2
import numpy as np

from blitzcam.datasets import art as art_module
from blitzcam.datasets.compose import ArtCache, SceneConfig, compose_scene
from blitzcam.datasets.generate import sample_resolution, scene_rng
from blitzcam.datasets.photometric import encode_jpeg
from blitzcam.datasets.scene import CLASS_BACK
from blitzcam.vision.back_boxes import snap_to_ink
from blitzcam.vision.detections import obb_corners
from blitzcam.vision.embedding import PATCH, drawing_patch
from blitzcam.vision.references import REFERENCE_WIDTH, card_on_white, reference_patches
from blitzcam.worker_pool import sigterm_unwinds, spawned_pool, workers_for

# How far detector boxes stray from the labels (median IoU ~0.7): centre offset and side scale
# as fractions of the box, and turn in degrees (one standard deviation each).
BOX_SHIFT: Final = 0.07
BOX_SCALE: Final = 0.1
BOX_TURN_DEG: Final = 4.0
MAX_QUERIES_PER_DECK: Final = 10  # per scene: built-in decks recur in every scene anyway
MAX_REFERENCES: Final = 24  # reference variants kept per identity


class RecordingArt(ArtCache):
    """An ArtCache that remembers the random state each random design was drawn from."""

    def __init__(self) -> None:
        super().__init__(art_module)
        self.random_designs: list[tuple[dict[str, Any], str]] = []

    def random_back(self, rng: np.random.Generator, width: int, family: str) -> Any:
        self.random_designs.append((copy.deepcopy(rng.bit_generator.state), family))
        return super().random_back(rng, width, family)


def random_reference(state: dict[str, Any], family: str) -> art_module.CardImage:
    """The random design drawn from `state`, again, at reference width."""
    rng = np.random.default_rng()
    rng.bit_generator.state = copy.deepcopy(state)
    return art_module.render_random_back(rng, width=REFERENCE_WIDTH, family=family)


def jitter_box(polygon: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A label box disturbed like a detector's box; (4,2) corners in ultralytics order."""
    (cx, cy), (w, h), angle = cv2.minAreaRect(polygon.reshape(-1, 1, 2).astype(np.float32))
    side = max(w, h, 1.0)
    cx, cy = np.array([cx, cy]) + rng.normal(0, BOX_SHIFT, 2) * side
    w, h = np.array([w, h]) * np.exp(rng.normal(0, BOX_SCALE, 2))
    angle = angle + rng.normal(0, BOX_TURN_DEG)
    return obb_corners(np.array([[cx, cy, w, h, np.deg2rad(angle)]], np.float32))[0]


def counted_patch(frame: np.ndarray, box: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """`box`'s drawing cut as the counting path may cut it: half the time snapped to the ink
    first (`identify` reads doubtful drawings a second time that way)."""
    if rng.random() < 0.5:
        box = snap_to_ink(frame, box)
    return drawing_patch(frame, box)


@dataclass(frozen=True)
class SceneSamples:
    queries: np.ndarray  # (q, PATCH, PATCH, 3) uint8 BGR
    query_ids: list[str]
    references: dict[str, np.ndarray]  # identity -> (r, PATCH, PATCH, 3) uint8 BGR


def reference_set(card: art_module.CardImage, rng: np.random.Generator, name: str) -> np.ndarray:
    """The reference variants enrollment would make of this card (at most MAX_REFERENCES)."""
    patches = reference_patches(card_on_white(card.rgba), card.drawing_mask, name=name)
    if len(patches) > MAX_REFERENCES:
        keep = sorted(rng.choice(len(patches), MAX_REFERENCES, replace=False))
        patches = [patches[i] for i in keep]
    return np.stack(patches)


def scene_samples(
    seed: int, index: int, families: tuple[str, ...], late_round: bool = False
) -> SceneSamples:
    """Query drawings and references of scene `index` (pure in its arguments); with
    `late_round`, the scene is a big game's late round (`SceneConfig.late_round`)."""
    rng = scene_rng(seed, index)
    art = RecordingArt()
    config = SceneConfig(sample_resolution(rng), families, late_round=late_round)
    scene = compose_scene(rng, config, art)
    frame = cv2.imdecode(
        np.frombuffer(encode_jpeg(scene.image, scene.jpeg_quality), np.uint8), cv2.IMREAD_COLOR
    )
    local = np.random.default_rng(np.random.SeedSequence([seed, index, 1]))
    slots = scene.meta["decks"]
    random_slots = [s["slot"] for s in slots if s["art"] == "random"]
    identity = {
        s["slot"]: (s["deck"] if s["art"] == "builtin" else f"{index}:{s['slot']}") for s in slots
    }
    references: dict[str, np.ndarray] = {}
    for slot, (state, family) in zip(random_slots, art.random_designs, strict=True):
        references[identity[slot]] = reference_set(
            random_reference(state, family), local, f"scene {index} slot {slot}"
        )
    queries, query_ids = [], []
    taken: dict[str, int] = {}
    for obj in scene.objects:
        if obj.cls != CLASS_BACK:
            continue
        key = identity[obj.slot]
        builtin = key in art_module.DECK_NAMES
        if builtin and taken.get(key, 0) >= MAX_QUERIES_PER_DECK:
            continue
        taken[key] = taken.get(key, 0) + 1
        queries.append(counted_patch(frame, jitter_box(obj.polygon, local), local))
        query_ids.append(key)
    empty = np.zeros((0, PATCH, PATCH, 3), np.uint8)
    return SceneSamples(np.stack(queries) if queries else empty, query_ids, references)


def builtin_references(seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        deck: reference_set(art_module.render_back(deck, width=REFERENCE_WIDTH), rng, deck)
        for deck in art_module.DECK_NAMES
    }


@dataclass(frozen=True)
class IdentityData:
    """Many scenes' samples, flat: identity i is `names[i]`; built-in decks come first."""

    names: list[str]
    queries: np.ndarray  # (q, PATCH, PATCH, 3) uint8
    query_owner: np.ndarray  # (q,) int64
    references: np.ndarray  # (r, PATCH, PATCH, 3) uint8
    reference_owner: np.ndarray  # (r,) int64

    def save(self, path: Any) -> None:
        import io

        from blitzcam.files import write_bytes_atomic

        buffer = io.BytesIO()
        np.savez(
            buffer,
            names=np.array(self.names),
            queries=self.queries,
            query_owner=self.query_owner,
            references=self.references,
            reference_owner=self.reference_owner,
        )
        write_bytes_atomic(path, buffer.getvalue())

    @classmethod
    def concat(cls, parts: list[IdentityData]) -> IdentityData:
        """One dataset of several (their random designs kept apart; built-in decks shared)."""
        first = parts[0]
        names = list(first.names)
        queries, query_owner = [first.queries], [first.query_owner]
        references, reference_owner = [first.references], [first.reference_owner]
        n_builtin = len(art_module.DECK_NAMES)
        for part in parts[1:]:
            offset = len(names) - n_builtin
            names += part.names[n_builtin:]
            queries.append(part.queries)
            query_owner.append(
                np.where(part.query_owner < n_builtin, part.query_owner, part.query_owner + offset)
            )
            references.append(part.references)
            reference_owner.append(
                np.where(
                    part.reference_owner < n_builtin,
                    part.reference_owner,
                    part.reference_owner + offset,
                )
            )
        return cls(
            names,
            np.concatenate(queries),
            np.concatenate(query_owner),
            np.concatenate(references),
            np.concatenate(reference_owner),
        )

    @classmethod
    def load(cls, path: Any) -> IdentityData:
        """Drawings `save` wrote; UserError naming the file for one damaged since (it is
        written whole or not at all, so a run never leaves one half-written)."""
        import zipfile

        from blitzcam.errors import UserError, library_reason

        try:
            with np.load(path, allow_pickle=False) as data:
                return cls(
                    [str(n) for n in data["names"]],
                    data["queries"],
                    data["query_owner"],
                    data["references"],
                    data["reference_owner"],
                )
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
            why = library_reason(exc, path)
            raise UserError(
                f"{path}: cannot be read as cut drawings ({why}): delete it, and a run cuts them "
                "again"
            ) from None


def _samples(args: tuple[int, int, tuple[str, ...], bool]) -> SceneSamples:
    return scene_samples(*args)


def build(
    seed: int,
    n: int,
    families: tuple[str, ...],
    *,
    workers: int = 1,
    progress: Any = None,
    late_round: bool = False,
) -> IdentityData:
    """Scenes 0..n-1 of `seed` as one IdentityData (the same for any worker count); with
    `late_round`, every scene is a big game's late round."""
    names = list(art_module.DECK_NAMES)
    index = {name: i for i, name in enumerate(names)}
    refs = builtin_references(seed)
    reference_rows = [refs[name] for name in names]
    reference_owner = [np.full(len(refs[name]), i) for i, name in enumerate(names)]
    queries, query_owner = [], []
    jobs = [(seed, i, families, late_round) for i in range(n)]
    workers = workers_for(workers, len(jobs), said=False)
    if workers > 1:
        pool = spawned_pool(workers)
        results = pool.imap(_samples, jobs, chunksize=4)
    else:
        pool, results = None, map(_samples, jobs)
    # (a kill unwinds as Ctrl+C does: the workers are stopped, not left to fail one by one)
    with sigterm_unwinds():
        finished = False
        try:
            for done, samples in enumerate(results, 1):
                for key, patches in samples.references.items():
                    index[key] = len(names)
                    names.append(key)
                    reference_rows.append(patches)
                    reference_owner.append(np.full(len(patches), index[key]))
                if len(samples.queries):
                    queries.append(samples.queries)
                    query_owner.append(np.array([index[k] for k in samples.query_ids]))
                if progress is not None:
                    progress(done, n)
            finished = True
        finally:
            if pool is not None:
                # interrupted (Ctrl-C, SIGTERM): the workers are stopped, not waited for (a
                # closed pool would go on cutting to the end)
                if finished:
                    pool.close()
                else:
                    pool.terminate()
                pool.join()
    return IdentityData(
        names,
        np.concatenate(queries),
        np.concatenate(query_owner).astype(np.int64),
        np.concatenate(reference_rows),
        np.concatenate(reference_owner).astype(np.int64),
    )
