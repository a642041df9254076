"""The two engines behind one ModelSession: same answers, same errors, safe to share."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from blitzcam.errors import UserError
from blitzcam.paths import REPO_ROOT
from blitzcam.vision import onnx_session
from blitzcam.vision.onnx_session import (
    ENGINE_ENV,
    ENGINES,
    ONNXRUNTIME,
    OPENVINO,
    open_session,
)

SHIPPED_IDENTITY = REPO_ROOT / "models" / "blitzcam-identity.onnx"


def _open(path: Path, engine: str | None, threads: int | None = 1):
    return open_session(path, threads=threads, missing="no model", engine=engine)


def test_the_engine_unasked_is_openvino_where_installed(monkeypatch, random_model) -> None:
    monkeypatch.delenv(ENGINE_ENV, raising=False)
    assert _open(random_model.onnx, None).engine == OPENVINO
    monkeypatch.setattr(onnx_session, "openvino_installed", lambda: False)
    assert _open(random_model.onnx, None).engine == ONNXRUNTIME


@pytest.mark.parametrize("value", ["onnxruntime", " OnnxRuntime ", "openvino"])
def test_engine_from_env(monkeypatch, random_model, value: str) -> None:
    monkeypatch.setenv(ENGINE_ENV, value)
    assert _open(random_model.onnx, None).engine == value.strip().lower()


def test_unknown_or_missing_engine_is_a_clear_error(monkeypatch, random_model) -> None:
    monkeypatch.setenv(ENGINE_ENV, "tensorrt")
    with pytest.raises(UserError, match=r"^BLITZCAM_ENGINE: unknown engine 'tensorrt' \(choose"):
        _open(random_model.onnx, None)
    with pytest.raises(UserError, match=r"^engine: unknown engine 'cuda'"):
        _open(random_model.onnx, "cuda")
    monkeypatch.setattr(onnx_session, "openvino_installed", lambda: False)
    with pytest.raises(UserError, match="engine openvino is not installed"):
        _open(random_model.onnx, OPENVINO)


def test_unasked_openvino_that_fails_gives_way_to_onnxruntime(monkeypatch, random_model) -> None:
    def broken(path, threads):
        raise RuntimeError("openvino: unsupported operator")

    monkeypatch.delenv(ENGINE_ENV, raising=False)
    monkeypatch.setattr(onnx_session, "_open_openvino", broken)
    session = open_session(random_model.onnx, threads=1, missing="no model")
    assert session.engine == ONNXRUNTIME
    # asked for by name, it is used or fails: never swapped
    with pytest.raises(UserError, match=r"\.onnx: cannot load the ONNX model \(openvino: unsupported operator\)$"):
        _open(random_model.onnx, OPENVINO)
    monkeypatch.setenv(ENGINE_ENV, OPENVINO)
    with pytest.raises(UserError, match="cannot load the ONNX model"):
        open_session(random_model.onnx, threads=1, missing="no model")


@pytest.mark.parametrize("engine", [*ENGINES, None])
@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "^no model$"),
        (b"", r"m\.onnx: cannot load the ONNX model \("),
        (b"not an onnx file", r"m\.onnx: cannot load the ONNX model \("),
    ],
)
def test_bad_model_files(monkeypatch, tmp_path: Path, engine, content, message: str) -> None:
    monkeypatch.delenv(ENGINE_ENV, raising=False)  # engine None: OpenVINO, then ONNX Runtime
    path = tmp_path / "m.onnx"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(UserError, match=message) as caught:
        _open(path, engine)
    assert "\n" not in str(caught.value)


def test_engines_read_the_same_model(random_model) -> None:
    for path in (random_model.onnx, random_model.onnx_dynamic):
        ort, ov = _open(path, ONNXRUNTIME), _open(path, OPENVINO)
        assert (ort.engine, ov.engine) == (ONNXRUNTIME, OPENVINO)
        assert ov.input_name == ort.input_name
        assert dict(ov.metadata) == dict(ort.metadata)
        # fixed sizes agree; a free size is a name on both (the names differ by engine)
        for ours, theirs in ((ov.input_shape, ort.input_shape), (ov.output_shape, ort.output_shape)):
            assert len(ours) == len(theirs)
            for a, b in zip(ours, theirs, strict=True):
                assert a == b if isinstance(b, int) else isinstance(a, str)


@pytest.mark.parametrize("threads", [1, None])
def test_engines_agree_on_the_detector(random_model, threads) -> None:
    rng = np.random.default_rng(3)
    blob = rng.random((1, 3, 320, 320), dtype=np.float32)
    ort = _open(random_model.onnx, ONNXRUNTIME, threads).run(blob)
    ov = _open(random_model.onnx, OPENVINO, threads).run(blob)
    assert ov.shape == ort.shape and ov.dtype == np.float32
    np.testing.assert_allclose(ov, ort, rtol=1e-3, atol=1e-3 * float(np.abs(ort).max()))


def test_engines_agree_on_the_identity_network_at_any_batch() -> None:
    rng = np.random.default_rng(4)
    ort, ov = _open(SHIPPED_IDENTITY, ONNXRUNTIME), _open(SHIPPED_IDENTITY, OPENVINO)
    size = ort.input_shape[2]
    for batch in (1, 7, 40, 3):  # a dynamic batch: the frame's count of backs
        patches = rng.random((batch, 3, size, size), dtype=np.float32)
        np.testing.assert_allclose(ov.run(patches), ort.run(patches), atol=1e-4)


def test_openvino_results_are_not_overwritten_by_the_next_call(random_model) -> None:
    session = _open(random_model.onnx, OPENVINO)
    rng = np.random.default_rng(5)
    first_blob, second_blob = (rng.random((1, 3, 320, 320), dtype=np.float32) for _ in range(2))
    first = session.run(first_blob)
    kept = first.copy()
    second = session.run(second_blob)
    np.testing.assert_array_equal(first, kept)
    assert not np.array_equal(first, second)


@pytest.mark.parametrize("engine", ENGINES)
def test_one_session_serves_threads_at_once(random_model, engine: str) -> None:
    session = _open(random_model.onnx, engine, threads=None)
    rng = np.random.default_rng(6)
    blobs = [rng.random((1, 3, 320, 320), dtype=np.float32) for _ in range(4)]
    alone = [session.run(blob) for blob in blobs]
    together: list[np.ndarray | None] = [None] * len(blobs)

    def work(i: int) -> None:
        for _ in range(3):
            together[i] = session.run(blobs[i])

    workers = [threading.Thread(target=work, args=(i,)) for i in range(len(blobs))]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    for mine, reference in zip(together, alone, strict=True):
        np.testing.assert_allclose(mine, reference, rtol=1e-5, atol=1e-5)


def test_openvino_sends_no_usage_telemetry(tmp_path: Path) -> None:
    # a fresh interpreter: `import openvino` is where its converter would start telemetry
    script = (
        "import sys\n"
        "from blitzcam.vision.onnx_session import open_session\n"
        f"open_session({str(SHIPPED_IDENTITY)!r}, threads=1, missing='x', engine='openvino')\n"
        "import openvino.tools.ovc.telemetry_utils as used\n"
        "print(used.tm.__name__)\n"
    )
    env = {**os.environ, "HOME": str(tmp_path), "BLITZCAM_DATA_DIR": str(tmp_path / "data")}
    env.pop("CI", None)  # openvino-telemetry stays quiet in CI: this must hold outside it too
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "openvino.tools.ovc.telemetry_stub"
    assert not (tmp_path / "intel").exists()  # where openvino-telemetry keeps its client id


def test_openvino_keeps_compiled_models_in_the_cache_and_counts_the_same(
    monkeypatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("BLITZCAM_CACHE_DIR", str(tmp_path / "cache"))
    patches = np.random.default_rng(6).random((5, 3, 32, 32), dtype=np.float32)
    compiled = _open(SHIPPED_IDENTITY, OPENVINO).run(patches)
    blobs = sorted(onnx_session.compile_cache().glob("*.blob"))
    assert onnx_session.compile_cache() == tmp_path / "cache" / "openvino"
    assert len(blobs) == 1
    imported = _open(SHIPPED_IDENTITY, OPENVINO).run(patches)  # from the blob this time
    assert sorted(onnx_session.compile_cache().glob("*.blob")) == blobs
    np.testing.assert_array_equal(imported, compiled)


def _no_folder(cache: Path) -> None:
    cache.parent.mkdir(parents=True)
    cache.write_bytes(b"not a folder")  # a file where the cache folder should be


def _damaged_blobs(cache: Path) -> None:
    _open(SHIPPED_IDENTITY, OPENVINO)  # leaves a good compiled model to damage
    blobs = list(cache.glob("*.blob"))
    assert blobs
    for blob in blobs:
        blob.write_bytes(b"\0" * 64)


def _damaged_inside(cache: Path) -> None:
    # (a page of the compiled model overwritten, its size kept: OpenVINO's own cache imported
    # it without a word, and the detector then found no cards on every later start)
    _open(SHIPPED_IDENTITY, OPENVINO)
    (blob,) = cache.glob("*.blob")
    data = bytearray(blob.read_bytes())
    at = len(data) * 3 // 10
    data[at : at + 4096] = np.random.default_rng(1).integers(0, 256, 4096, np.uint8).tobytes()
    blob.write_bytes(bytes(data))


def _left_by_openvino_s_own_cache(cache: Path) -> None:  # (named by its numbers): swept
    cache.mkdir(parents=True)
    (cache / "4111023374947502521.blob").write_bytes(b"\0" * 64)


@pytest.mark.parametrize(
    "spoil", [_no_folder, _damaged_blobs, _damaged_inside, _left_by_openvino_s_own_cache]
)
def test_an_unusable_cache_costs_time_not_the_model(monkeypatch, tmp_path: Path, spoil) -> None:
    monkeypatch.setenv("BLITZCAM_CACHE_DIR", str(tmp_path / "cache"))
    patches = np.random.default_rng(7).random((3, 3, 32, 32), dtype=np.float32)
    expected = _open(SHIPPED_IDENTITY, ONNXRUNTIME).run(patches)
    spoil(onnx_session.compile_cache())
    np.testing.assert_allclose(_open(SHIPPED_IDENTITY, OPENVINO).run(patches), expected, atol=1e-4)
    # and the next start reads a good copy again (the damaged one replaced, the old swept)
    np.testing.assert_allclose(_open(SHIPPED_IDENTITY, OPENVINO).run(patches), expected, atol=1e-4)
    if onnx_session.compile_cache().is_dir():
        assert not [b for b in onnx_session.compile_cache().glob("*.blob") if b.stem.isdigit()]


@pytest.mark.parametrize("engine", ["openvino", "onnxruntime"])
def test_a_file_that_is_no_onnx_model_is_one_line_and_no_engine_noise(
    tmp_path: Path, engine: str, capfd: pytest.CaptureFixture[str]
) -> None:
    # (OpenVINO handed a text file to TensorFlow's frontend, which logged absl and GraphDef
    # parse lines to the terminal before the error)
    path = tmp_path / "notes.onnx"
    path.write_text("node { name: 'x' }\nthis is a text file\n")
    with pytest.raises(UserError, match=r"notes\.onnx: cannot load the ONNX model \(not an ONNX"):
        open_session(path, threads=1, missing="no model", engine=engine)
    assert capfd.readouterr().err == ""
