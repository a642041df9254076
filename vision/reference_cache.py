"""Reference vectors kept between runs, so that start-up does not embed every reference again.

Embedding each enrolled back in every variant and quarter turn (the eight built-in decks: 1,152
drawings) is the largest part of start-up once the models are compiled: 0.35-0.45 s of about 2 s
on a 2-core AVX2 CPU. The vectors depend only on the identity network's bytes, the engine and its
version, and the reference drawings, so they are filed under a hash of all of those in the cache
folder and read back when every one matches. A missing, damaged or foreign file is embedded
again, never trusted; a cache that cannot be written costs the time, never the count.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import io
import os
from importlib import metadata
from pathlib import Path
from typing import Final, Protocol

import numpy as np

from blitzcam.files import write_bytes_atomic
from blitzcam.paths import cache_dir
from blitzcam.vision.embedding import References, reference_owners, reference_vectors

FOLDER: Final = "reference-vectors"
KEEP: Final = 16  # files kept, the latest used first: the profiles a user has had lately
UNIT_TOLERANCE: Final = 1e-3  # rows are unit vectors; a file whose rows are not is damaged


class EmbedsDrawings(Protocol):
    """What is cached: the identity network (vision/embedding.py: Embedder) and what runs it."""

    path: Path
    engine: str

    def embed(self, patches: np.ndarray) -> np.ndarray: ...


def cache_folder() -> Path:
    return cache_dir() / FOLDER


def engine_version(engine: str) -> str:
    """The engine module's own version: the same whichever package installed it (onnxruntime,
    onnxruntime-gpu, ...), so an upgrade of any of them embeds again."""
    try:
        return str(importlib.import_module(engine).__version__)
    except (ImportError, AttributeError):
        try:
            return metadata.version(engine)
        except metadata.PackageNotFoundError:
            return "?"


def cache_key(model_bytes: bytes, engine: str, patches: np.ndarray) -> str:
    """A name for the vectors of `patches` embedded by this network on this engine."""
    version = engine_version(engine)
    digest = hashlib.sha256()
    for part in (model_bytes, f"{engine} {version} {patches.shape} {patches.dtype}".encode()):
        digest.update(hashlib.sha256(part).digest())
    digest.update(np.ascontiguousarray(patches).tobytes())
    return digest.hexdigest()[:40]


def read_vectors(path: Path, rows: int) -> np.ndarray | None:
    """The (rows, dim) float32 unit vectors stored at `path`, or None for anything else: a
    cache file is only ever a shortcut, and one damaged (a flipped bit in its header raised
    numpy's tokenizer errors, or a shape of 419 TiB) is rebuilt, never a reason to stop."""
    try:
        if not _sized_as_its_header_says(path):
            return None
        vectors = np.load(path, allow_pickle=False)
    except Exception:  # numpy's header parser alone raises half a dozen kinds
        return None
    if not isinstance(vectors, np.ndarray):  # an .npz archive under the name: close it, refuse
        vectors.close()
        return None
    if (
        vectors.dtype != np.float32
        or vectors.ndim != 2
        or vectors.shape[0] != rows
        or vectors.shape[1] == 0
        or not np.isfinite(vectors).all()
        or np.abs(np.linalg.norm(vectors, axis=1) - 1.0).max() > UNIT_TOLERANCE
    ):
        return None
    return vectors


def _sized_as_its_header_says(path: Path) -> bool:
    """Whether an .npy file holds as many bytes of data as its header's shape and type take
    (read before the data: a damaged shape would have numpy reserve it)."""
    with path.open("rb") as file:
        version = np.lib.format.read_magic(file)
        if version == (1, 0):
            shape, _, dtype = np.lib.format.read_array_header_1_0(file)
        else:
            shape, _, dtype = np.lib.format.read_array_header_2_0(file)
        data = path.stat().st_size - file.tell()
    return data == int(np.prod(shape, dtype=np.int64)) * dtype.itemsize


def write_vectors(path: Path, vectors: np.ndarray, keep: int = KEEP) -> None:
    """Store `vectors` at `path` whole or not at all, and drop all but the `keep` files used
    last. Nothing is raised: the cache is an optimisation."""
    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(vectors, np.float32), allow_pickle=False)
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        write_bytes_atomic(path, buffer.getvalue())
        stored = sorted(path.parent.glob("*.npy"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in stored[keep:]:
            old.unlink(missing_ok=True)


def cached_reference_vectors(
    embedder: EmbedsDrawings,
    patches: np.ndarray,
    owners: np.ndarray,
    folder: Path | None = None,
) -> References:
    """`reference_vectors(embedder.embed, patches, owners)`, read from the cache folder when
    this network, engine and set of drawings were embedded before."""
    patches = np.asarray(patches)
    if len(patches) == 0:
        return reference_vectors(embedder.embed, patches, owners)
    try:
        model_bytes = Path(embedder.path).read_bytes()
    except OSError:
        return reference_vectors(embedder.embed, patches, owners)
    path = (folder or cache_folder()) / f"{cache_key(model_bytes, embedder.engine, patches)}.npy"
    vectors = read_vectors(path, 4 * len(patches))
    if vectors is None:
        references = reference_vectors(embedder.embed, patches, owners)
        write_vectors(path, references.vectors)
        return references
    with contextlib.suppress(OSError):
        os.utime(path)  # used last: kept longest
    return References(vectors, reference_owners(owners))
