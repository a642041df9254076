"""Reference vectors kept on disk between runs (vision/reference_cache.py)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from blitzcam.vision import reference_cache
from blitzcam.vision.reference_cache import PREFIX, cache_key, cached_reference_vectors


class FakeEmbedder:
    """Counts the patches it embeds; its 'network' is a file whose bytes can change."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.embedded = 0

    def embed(self, patches: np.ndarray) -> np.ndarray:
        self.embedded += len(patches)
        flat = patches.reshape(len(patches), -1)[:, :4].astype(np.float32) + 1.0
        return flat / np.linalg.norm(flat, axis=1, keepdims=True)


@pytest.fixture
def embedder(tmp_path: Path) -> FakeEmbedder:
    model = tmp_path / "identity.onnx"
    model.write_bytes(b"network one")
    return FakeEmbedder(model)


def profile(seed: int = 0, rows: int = 3) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    patches = rng.integers(0, 255, (rows, 4, 4, 3), dtype=np.uint8)
    return patches, np.arange(rows) % 2, np.array([0, 12, 16][:rows])


def test_the_second_start_reads_the_vectors_instead_of_embedding(embedder, tmp_path) -> None:
    first = cached_reference_vectors(embedder, *profile(), folder=tmp_path / "cache")
    assert embedder.embedded == 12  # three patches in four quarter turns
    second = cached_reference_vectors(embedder, *profile(), folder=tmp_path / "cache")
    assert embedder.embedded == 12
    np.testing.assert_array_equal(first.vectors, second.vectors)
    np.testing.assert_array_equal(first.owners, second.owners)
    np.testing.assert_array_equal(first.seen_at, second.seen_at)
    assert second.seen_at is not None and second.seen_at.tolist() == [0, 12, 16] * 4


@pytest.mark.parametrize("change", ["patches", "owners", "seen_at", "network"])
def test_anything_they_come_from_changing_means_embedding_again(
    embedder, tmp_path, change: str
) -> None:
    patches, owners, seen_at = profile()
    cached_reference_vectors(embedder, patches, owners, seen_at, folder=tmp_path)
    if change == "patches":
        patches = patches.copy()
        patches[0, 0, 0, 0] ^= 1
    elif change == "owners":
        owners = owners + 1
    elif change == "seen_at":
        seen_at = np.array([0, 16, 12])
    else:
        embedder.path.write_bytes(b"network two")
    cached_reference_vectors(embedder, patches, owners, seen_at, folder=tmp_path)
    assert embedder.embedded == 24
    assert len(list(tmp_path.glob(f"{PREFIX}*.npy"))) == 2


@pytest.mark.parametrize("damage", [b"", b"not numpy at all", None])
def test_a_damaged_cache_file_is_computed_again_and_replaced(
    embedder, tmp_path, damage: bytes | None
) -> None:
    good = cached_reference_vectors(embedder, *profile(), folder=tmp_path)
    (stored,) = tmp_path.glob(f"{PREFIX}*.npy")
    if damage is None:  # a readable array of the wrong shape
        np.save(stored, np.zeros((5, 4), np.float32))
    else:
        stored.write_bytes(damage)
    again = cached_reference_vectors(embedder, *profile(), folder=tmp_path)
    assert embedder.embedded == 24
    np.testing.assert_array_equal(good.vectors, again.vectors)
    np.testing.assert_array_equal(np.load(stored), good.vectors)


def test_a_cache_that_cannot_be_written_only_costs_time(embedder, tmp_path) -> None:
    blocked = tmp_path / "a file, not a folder"
    blocked.write_bytes(b"")
    first = cached_reference_vectors(embedder, *profile(), folder=blocked / "cache")
    second = cached_reference_vectors(embedder, *profile(), folder=blocked / "cache")
    np.testing.assert_array_equal(first.vectors, second.vectors)
    assert embedder.embedded == 24


def test_only_the_newest_files_are_kept_and_reading_one_renews_it(
    embedder, tmp_path, monkeypatch
) -> None:
    monkeypatch.setattr(reference_cache, "KEEP", 3)

    def path_of(seed: int) -> Path:
        key = cache_key(embedder.path.read_bytes(), *profile(seed))
        return tmp_path / f"{PREFIX}{key}.npy"

    for seed in range(3):
        cached_reference_vectors(embedder, *profile(seed), folder=tmp_path)
        os.utime(path_of(seed), (1_000_000 + seed, 1_000_000 + seed))  # an unambiguous order
    used = embedder.embedded
    cached_reference_vectors(embedder, *profile(0), folder=tmp_path)  # the oldest, read again
    assert embedder.embedded == used
    cached_reference_vectors(embedder, *profile(99), folder=tmp_path)
    kept = set(tmp_path.glob(f"{PREFIX}*.npy"))
    assert kept == {path_of(0), path_of(2), path_of(99)}


def test_the_default_folder_is_the_data_directory(embedder, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("BLITZCAM_DATA_DIR", str(tmp_path / "data"))
    cached_reference_vectors(embedder, *profile())
    assert len(list((tmp_path / "data" / "cache").glob(f"{PREFIX}*.npy"))) == 1
