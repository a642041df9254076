"""Reference vectors kept between runs (vision/reference_cache.py): read back only when the
network, engine and drawings all match; anything damaged is embedded again."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from blitzcam.vision.embedding import reference_vectors
from blitzcam.vision.reference_cache import (
    KEEP,
    cache_folder,
    cached_reference_vectors,
    read_vectors,
    write_vectors,
)


class CountingEmbedder:
    """A stand-in network: a fixed projection of the pixels to unit vectors, calls counted."""

    def __init__(self, path: Path, engine: str = "onnxruntime") -> None:
        self.path, self.engine, self.calls = path, engine, 0
        self._projection = np.random.default_rng(0).normal(size=(8 * 8 * 3, 16))

    def embed(self, patches: np.ndarray) -> np.ndarray:
        self.calls += 1
        flat = np.asarray(patches, np.float32).reshape(len(patches), -1) @ self._projection
        return (flat / np.linalg.norm(flat, axis=1, keepdims=True)).astype(np.float32)


@pytest.fixture(autouse=True)
def _own_cache(monkeypatch, tmp_path: Path) -> None:
    """A cache folder of this test's own (the suite's is shared between tests)."""
    monkeypatch.setenv("BLITZCAM_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def model(tmp_path: Path) -> Path:
    path = tmp_path / "identity.onnx"
    path.write_bytes(b"network weights, version 1")
    return path


def _drawings(seed: int = 1, n: int = 6) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, (n, 8, 8, 3), dtype=np.uint8), np.arange(n) % 3


def test_a_second_start_reads_what_the_first_embedded(model: Path) -> None:
    patches, owners = _drawings()
    first, second = CountingEmbedder(model), CountingEmbedder(model)
    made = cached_reference_vectors(first, patches, owners)
    read = cached_reference_vectors(second, patches, owners)
    assert (first.calls, second.calls) == (1, 0)
    expected = reference_vectors(CountingEmbedder(model).embed, patches, owners)
    np.testing.assert_array_equal(made.vectors, expected.vectors)
    np.testing.assert_array_equal(read.vectors, expected.vectors)
    np.testing.assert_array_equal(read.owners, expected.owners)
    assert len(list(cache_folder().glob("*.npy"))) == 1


@pytest.mark.parametrize(
    "change",
    [
        "network",  # a retrained network under the same file name
        "engine",  # ONNX Runtime's vectors are not OpenVINO's to the last bit
        "drawings",  # a newly enrolled back
    ],
)
def test_anything_else_is_embedded_again(model: Path, change: str) -> None:
    patches, owners = _drawings()
    cached_reference_vectors(CountingEmbedder(model), patches, owners)
    embedder = CountingEmbedder(model, engine="openvino" if change == "engine" else "onnxruntime")
    if change == "network":
        model.write_bytes(b"network weights, version 2")
    if change == "drawings":
        patches = patches.copy()
        patches[0, 0, 0, 0] ^= 1
    cached_reference_vectors(embedder, patches, owners)
    assert embedder.calls == 1
    assert len(list(cache_folder().glob("*.npy"))) == 2


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:100])


def _wrong_rows(path: Path) -> None:
    write_vectors(path, np.eye(5, 16, dtype=np.float32))


def _not_unit(path: Path) -> None:
    write_vectors(path, np.full((24, 16), 0.5, np.float32))


def _not_finite(path: Path) -> None:
    vectors = np.load(path)
    vectors[3, 2] = np.nan
    write_vectors(path, vectors)


def _pickled(path: Path) -> None:
    np.save(path, np.array([{"a": 1}] * 24, dtype=object), allow_pickle=True)


def _not_numpy(path: Path) -> None:
    path.write_text("hello")


def _an_archive(path: Path) -> None:  # np.load gives an NpzFile, not an array, for a zip
    vectors = np.load(path)
    with path.open("wb") as file:
        np.savez(file, vectors=vectors)


def _header_bit_flipped(path: Path) -> None:  # (numpy's tokenizer raised TokenError: a crash)
    data = bytearray(path.read_bytes())
    data[8] ^= 0x40
    path.write_bytes(bytes(data))


def _huge_shape(path: Path) -> None:  # a header that says 419 TiB (MemoryError)
    data = path.read_bytes()
    header_end = data.index(b"\n") + 1
    header = data[:header_end].decode("latin1")
    start = header.index("'shape': (") + len("'shape': (")
    rows = header[start : header.index(",", start)]
    spoiled = header.replace(f"'shape': ({rows},", f"'shape': ({rows}000000000,", 1)
    spoiled = spoiled.replace(" " * 9 + "\n", "\n")  # out of the padding: the header's length
    assert len(spoiled) == len(header)
    path.write_bytes(spoiled.encode("latin1") + data[header_end:])


@pytest.mark.parametrize(
    "spoil",
    [_truncate, _wrong_rows, _not_unit, _not_finite, _pickled, _not_numpy, _an_archive,
     _header_bit_flipped, _huge_shape],
)
def test_a_damaged_file_is_embedded_again_and_replaced(model: Path, spoil) -> None:
    patches, owners = _drawings()
    good = cached_reference_vectors(CountingEmbedder(model), patches, owners)
    (stored,) = cache_folder().glob("*.npy")
    spoil(stored)
    assert read_vectors(stored, 4 * len(patches)) is None
    embedder = CountingEmbedder(model)
    again = cached_reference_vectors(embedder, patches, owners)
    assert embedder.calls == 1
    np.testing.assert_array_equal(again.vectors, good.vectors)
    np.testing.assert_array_equal(read_vectors(stored, 4 * len(patches)), good.vectors)


def test_a_cache_that_cannot_be_written_costs_time_not_the_vectors(
    monkeypatch, tmp_path: Path, model: Path
) -> None:
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache folder should be")
    monkeypatch.setenv("BLITZCAM_CACHE_DIR", str(blocked))
    patches, owners = _drawings()
    for _ in range(2):
        embedder = CountingEmbedder(model)
        references = cached_reference_vectors(embedder, patches, owners)
        assert embedder.calls == 1
        assert references.vectors.shape == (4 * len(patches), 16)


def test_only_the_latest_profiles_are_kept(model: Path) -> None:
    for seed in range(KEEP + 3):
        cached_reference_vectors(CountingEmbedder(model), *_drawings(seed))
    assert len(list(cache_folder().glob("*.npy"))) == KEEP


def test_no_drawings_need_no_file(model: Path) -> None:
    references = cached_reference_vectors(
        CountingEmbedder(model), np.zeros((0, 8, 8, 3), np.uint8), np.zeros(0, np.int64)
    )
    assert len(references) == 0
    assert not cache_folder().exists()


def test_the_pipeline_counts_the_same_from_cached_vectors(table_frame) -> None:
    from blitzcam.vision.pipeline import CountingPipeline

    fresh = CountingPipeline.from_defaults(threads=1)
    cached = CountingPipeline.from_defaults(threads=1)
    assert len(list(cache_folder().glob("*.npy"))) == 1
    np.testing.assert_array_equal(cached.references.vectors, fresh.references.vectors)
    a, b = fresh(table_frame), cached(table_frame)
    assert a.counts == b.counts
    np.testing.assert_array_equal(a.detections.deck, b.detections.deck)


def test_the_engine_version_is_the_modules_own() -> None:
    # read from the module, so onnxruntime installed as onnxruntime-gpu (another package
    # name) still keys the cache by its version
    import onnxruntime

    from blitzcam.vision.reference_cache import engine_version

    assert engine_version("onnxruntime") == onnxruntime.__version__
    assert engine_version("no_such_engine_here") == "?"
