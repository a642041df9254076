"""Reference vectors kept on disk between runs, named by everything they are computed from.

Embedding every reference view of every deck in its four quarter turns is most of the time
from start to first count (about a second on a laptop CPU), and the result only changes when the
identity network or a reference changes. So the vectors are stored in the data directory under
a name hashed from the network file's bytes and the reference patches, owners and sizes: a
changed model or profile can never meet stale vectors. A cache that cannot be read or written
is only slower: the vectors are computed again, and nothing else changes.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
from pathlib import Path
from typing import Final, Protocol

import numpy as np

from blitzcam.files import write_bytes_atomic
from blitzcam.paths import data_dir
from blitzcam.vision.embedding import References, reference_vectors

CACHE_FOLDER: Final = "cache"
KEEP: Final = 8  # the newest files kept: a few profiles (built-in, enrolled, --decks) in turn
PREFIX: Final = "reference-vectors-"
FORMAT: Final = b"blitzcam reference vectors 1"  # part of the name: a new layout, a new name


class Embeds(Protocol):
    path: Path

    def embed(self, patches: np.ndarray) -> np.ndarray: ...


def cache_key(
    model_bytes: bytes, patches: np.ndarray, owners: np.ndarray, seen_at: np.ndarray
) -> str:
    """The name part that identifies these vectors: a hash of everything they come from."""
    digest = hashlib.sha256(FORMAT)
    for part in (model_bytes, *(np.ascontiguousarray(a) for a in (patches, owners, seen_at))):
        digest.update(str(getattr(part, "shape", len(part))).encode())
        digest.update(part.tobytes() if isinstance(part, np.ndarray) else part)
    return digest.hexdigest()[:24]


def cached_reference_vectors(
    embedder: Embeds,
    patches: np.ndarray,
    owners: np.ndarray,
    seen_at: np.ndarray,
    *,
    folder: Path | None = None,
) -> References:
    """`reference_vectors(embedder.embed, patches, owners, seen_at)`, from `folder` (default
    data_dir()/cache) when computed before with the same network and references."""
    folder = Path(folder) if folder is not None else data_dir() / CACHE_FOLDER
    key = cache_key(Path(embedder.path).read_bytes(), patches, owners, seen_at)
    path = folder / f"{PREFIX}{key}.npy"
    expected_rows = 4 * len(patches)
    stored = _load(path, expected_rows)
    if stored is not None:
        with contextlib.suppress(OSError):
            path.touch()  # recently used: pruned last
        return References(stored, np.tile(owners, 4), np.tile(np.asarray(seen_at, np.int64), 4))
    references = reference_vectors(embedder.embed, patches, owners, seen_at)
    _store(path, references.vectors)
    return references


def _load(path: Path, rows: int) -> np.ndarray | None:
    try:
        vectors = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError):
        return None  # absent, unreadable, empty or not an .npy file: compute again
    ok = vectors.dtype == np.float32 and vectors.ndim == 2 and len(vectors) == rows
    return vectors if ok and np.isfinite(vectors).all() else None


def _store(path: Path, vectors: np.ndarray) -> None:
    buffer = io.BytesIO()
    np.save(buffer, vectors, allow_pickle=False)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_bytes_atomic(path, buffer.getvalue())
        _prune(path.parent)
    except OSError:
        pass  # a read-only or full data directory: the next start computes them again


def _prune(folder: Path) -> None:
    """Keep the KEEP newest cache files."""
    files = sorted(folder.glob(f"{PREFIX}*.npy"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in files[KEEP:]:
        old.unlink(missing_ok=True)
