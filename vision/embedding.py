"""Deck identity by a learned embedding: a small CNN maps a drawing to a unit vector, and a back
belongs to the enrolled deck whose reference drawing lies nearest (cosine similarity).

The network (models/blitzcam-identity.onnx, trained by `blitzcam train-identity`) was taught on
thousands of random line-art designs, never on "which of our eight decks is this": it learned
what makes two drawings the same drawing, so an enrolled deck of unfamiliar art is told apart
from the others without retraining. The shipped file joins three such networks into one
(models/identity_average.py): its vector is theirs side by side, so the cosine taken here is
their averaged likeness, and nothing here tells one network from several. Everything here is
pure numpy/OpenCV around one model session (vision/onnx_session.py); no torch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import cv2
import numpy as np

from blitzcam.errors import UserError
from blitzcam.vision.onnx_session import missing_model, open_session

PATCH: Final = 32  # side of the square a drawing is warped to for the network
MAX_SUPERSAMPLE: Final = 8


def drawing_patch(image_bgr: np.ndarray, corners: np.ndarray, size: int = PATCH) -> np.ndarray:
    """The (4,2) oriented box of `image_bgr` (ultralytics corner order) as a size x size patch.

    Large drawings are warped at a multiple of `size` and area-averaged down: thin engraved
    lines alias into noise when a 150-px drawing is sampled straight onto 32 px.
    """
    corners = np.asarray(corners, np.float32)
    side = float(
        max(np.linalg.norm(corners[1] - corners[2]), np.linalg.norm(corners[3] - corners[2]))
    )
    factor = int(np.clip(np.ceil(side / size), 1, MAX_SUPERSAMPLE))
    big = size * factor
    src = np.stack([corners[2], corners[1], corners[3]])  # box-frame (0,0), (w,0), (0,h)
    dst = np.float32([[0, 0], [big, 0], [0, big]])
    matrix = cv2.getAffineTransform(src, dst)
    patch = cv2.warpAffine(
        image_bgr, matrix, (big, big), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    if factor > 1:
        patch = cv2.resize(patch, (size, size), interpolation=cv2.INTER_AREA)
    return patch


def white_balance(patch_bgr: np.ndarray, *, sample_step: int = 1) -> np.ndarray:
    """One (H,W,3) patch or a stack (n,H,W,3) as float32 0..1, divided by its bright paper.

    The paper is each patch's 85th percentile per channel (estimated from every
    `sample_step`-th pixel), so a colour cast of the light divides out and the ink keeps its own
    colour.
    """
    patch = np.asarray(patch_bgr, np.float32)
    flat = patch.reshape(*patch.shape[:-3], -1, 3)[..., ::sample_step, :]
    k = int(0.85 * (flat.shape[-2] - 1))
    paper = np.maximum(np.partition(flat, k, axis=-2)[..., k, :], 8.0)
    return np.clip(patch / paper.reshape(*patch.shape[:-3], 1, 1, 3), 0.0, 1.0)


def network_input(patches: np.ndarray) -> np.ndarray:
    """(n, S, S, 3) uint8 BGR patches -> (n, 3, S, S) float32 in -1..1, white-balanced on the
    paper (`white_balance`), so the network sees the ink's own colour.

    `white_balance`'s own steps, laid out channel-first before them and the paper found among
    the bytes (uint8 to float32 keeps the order, so the same value is picked): the same floats
    (tests compare the two), 36 -> 21 microseconds a patch."""
    stack = np.asarray(patches)
    if stack.ndim != 4 or stack.shape[-1] != 3:
        raise ValueError(f"patches must be (n, S, S, 3), got {stack.shape}")
    n, height, width, _ = stack.shape
    planes = np.ascontiguousarray(stack.reshape(n, height * width, 3).transpose(0, 2, 1))
    k = int(0.85 * (height * width - 1))
    paper = np.partition(planes, k, axis=-1)[..., k].astype(np.float32)
    paper = np.maximum(paper, 8.0)[:, :, None, None]
    balanced = np.divide(planes.reshape(n, 3, height, width).astype(np.float32), paper)
    np.clip(balanced, 0.0, 1.0, out=balanced)
    balanced *= 2.0
    balanced -= 1.0
    return balanced


@dataclass(frozen=True, slots=True)
class References:
    """Embeddings of every reference variant in every quarter turn, and whose deck each is."""

    vectors: np.ndarray  # (rows, dim) float32 unit vectors
    owners: np.ndarray  # (rows,) int64 deck index

    def __len__(self) -> int:
        return len(self.owners)

    def of_decks(self, keep: Sequence[int]) -> References:
        """The rows of the decks `keep` (indices), those decks numbered 0, 1, ... in order."""
        rows, owners = renumbered(self.owners, keep)
        return References(self.vectors[rows], owners)


def renumbered(owners: np.ndarray, keep: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """(rows,) deck indices -> the rows owned by a deck in `keep`, and their decks' indices
    among `keep` (its order)."""
    index = np.full(int(max(owners.max(initial=-1), max(keep, default=-1))) + 1, -1, np.int64)
    index[list(keep)] = np.arange(len(keep))
    rows = np.isin(owners, keep)
    return rows, index[owners[rows]]


def quarter_turns(patches: np.ndarray) -> np.ndarray:
    """(n,S,S,3) -> (4n,S,S,3): each patch in its four quarter turns (a box's sides carry no
    'up'), turn-major."""
    return np.concatenate([np.rot90(patches, k, axes=(1, 2)) for k in range(4)])


def deck_similarity(vectors: np.ndarray, references: References, n_decks: int) -> np.ndarray:
    """(n, dim) drawings -> (n, n_decks) cosine similarity to each deck's nearest reference."""
    out = np.full((len(vectors), n_decks), -1.0, np.float32)
    if not len(vectors) or not len(references):
        return out
    sims = vectors @ references.vectors.T
    for deck in range(n_decks):
        columns = references.owners == deck
        if columns.any():
            out[:, deck] = sims[:, columns].max(axis=1)
    return out


def check_identity_shapes(
    input_shape: Sequence[object], output_shape: Sequence[object], *, source: str
) -> None:
    """UserError unless a model takes square colour patches (n×3×S×S) and gives a vector for
    each (n×dim), as the identity network does: another model (the detector, given as the
    identity network) failed on its first patches with the engine's own traceback."""

    def said(shape: Sequence[object]) -> str:
        return "×".join(str(d) if isinstance(d, int) else "n" for d in shape)

    square = (
        len(input_shape) == 4
        and input_shape[1] == 3
        and (
            not isinstance(input_shape[2], int)
            or not isinstance(input_shape[3], int)
            or input_shape[2] == input_shape[3]
        )
    )
    if not square or len(output_shape) != 2:
        raise UserError(
            f"{source}: not an identity network (it takes {said(input_shape)} and gives "
            f"{said(output_shape)}, not n×3×S×S patches to n×dim vectors): the detector's model "
            "in its place?"
        )


# The network is run on batches of BATCH_MOST patches, the last of a multiple of BATCH_STEP, the
# rest blank (each row's vector is its own: the same floats, both engines, whatever the batch).
# OpenVINO keeps memory for every batch size it is given and never frees it: a frame's backs
# and second looks came in 55 sizes over 26 tables, and embedding sizes 1 to 300 grew the
# process by 409 MB; so four sizes at most. (Padded to a multiple of 32, 37 backs ran 64
# patches: a tenth of a frame's counting time, at about half a millisecond a patch, blank.)
BATCH_STEP: Final = 8
BATCH_MOST: Final = 32


class Embedder:
    """The identity network, loaded once; `embed(patches)` -> unit vectors."""

    def __init__(
        self, model_path: Path, *, threads: int | None = None, engine: str | None = None
    ) -> None:
        model_path = Path(model_path)
        self._session = open_session(
            model_path,
            threads=threads,
            missing=missing_model(
                model_path, "blitzcam-identity.onnx", "identity model", "blitzcam train-identity"
            ),
            engine=engine,
        )
        check_identity_shapes(
            self._session.input_shape, self._session.output_shape, source=str(model_path)
        )
        size = self._session.input_shape[2]
        self.patch_size = int(size) if isinstance(size, int) else PATCH
        self.path = model_path

    @property
    def engine(self) -> str:
        """What runs the network: 'openvino' or 'onnxruntime' (vision/onnx_session.py)."""
        return self._session.engine

    def embed(self, patches: np.ndarray) -> np.ndarray:
        """(n, S, S, 3) uint8 BGR patches -> (n, dim) float32 unit vectors."""
        if len(patches) == 0:
            dim = self._session.output_shape[1]
            return np.zeros((0, int(dim) if isinstance(dim, int) else 0), np.float32)
        blob = network_input(patches)
        out = np.concatenate(
            [self._run(blob[i : i + BATCH_MOST]) for i in range(0, len(blob), BATCH_MOST)]
        )
        return (out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-6)).astype(
            np.float32
        )

    def _run(self, blob: np.ndarray) -> np.ndarray:
        """The network's output for `blob` (BATCH_MOST rows at most), run as a batch of a
        multiple of BATCH_STEP."""
        n, spare = len(blob), -len(blob) % BATCH_STEP
        if spare:
            blob = np.concatenate([blob, np.zeros((spare, *blob.shape[1:]), blob.dtype)])
        return self._session.run(blob)[:n]


def reference_vectors(
    embed: Callable[[np.ndarray], np.ndarray], patches: np.ndarray, owners: np.ndarray
) -> References:
    """Every reference patch in its four quarter turns, embedded (a box's sides carry no 'up')."""
    if len(patches) == 0:
        return References(np.zeros((0, 0), np.float32), np.zeros(0, np.int64))
    return References(embed(quarter_turns(np.asarray(patches))), reference_owners(owners))


def reference_owners(owners: np.ndarray) -> np.ndarray:
    """Each reference row's deck: the patches' owners once per quarter turn (`quarter_turns` is
    turn-major)."""
    return np.tile(np.asarray(owners, np.int64), 4)
