"""The ensemble experiment's wrapper: averaged networks give the mean of their cosines."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from benchmarks import identity_ensemble
from blitzcam.vision import embedding
from blitzcam.vision.pipeline import default_identity_path


def _joined(rest: list[str], folder: Path, lift: float = 1.0) -> embedding.Embedder:
    """The identity network `joined_with` gives the command, the shipped one averaged with itself."""
    args = identity_ensemble.joined_with([default_identity_path()], rest, folder, lift)
    assert args[-2] == "--identity-model" and "--identity-model" not in args[:-2]
    return embedding.Embedder(Path(args[-1]))


def test_a_network_averaged_with_itself_gives_its_own_cosines(tmp_path: Path) -> None:
    patches = np.random.default_rng(0).integers(0, 255, (6, 32, 32, 3), dtype=np.uint8)
    single = embedding.Embedder(default_identity_path()).embed(patches)
    joined = _joined([], tmp_path)
    averaged = joined.embed(patches)
    assert averaged.shape == (6, 2 * single.shape[1])
    assert np.allclose(np.linalg.norm(averaged, axis=1), 1, atol=1e-5)
    assert np.allclose(averaged @ averaged.T, single @ single.T, atol=1e-5)
    assert joined.embed(patches[:0]).shape == (0, 2 * single.shape[1])


def test_the_command_s_own_identity_network_is_the_one_averaged(tmp_path: Path) -> None:
    from blitzcam.models.identity_average import networks_joined

    for rest in (["--identity-model", str(default_identity_path())],
                 [f"--identity-model={default_identity_path()}"]):  # fmt: skip
        args = identity_ensemble.joined_with([default_identity_path()], ["--data", "d", *rest], tmp_path)
        assert args[:2] == ["--data", "d"] and args[2] == "--identity-model" and len(args) == 4
        assert networks_joined(Path(args[3])) == 2


def test_a_missing_network_or_command_is_said(tmp_path: Path, capsys) -> None:
    assert identity_ensemble.main([str(tmp_path / "none.onnx"), "evaluate"]) == 2
    assert "none.onnx: no such identity network" in capsys.readouterr().err
    assert identity_ensemble.main([str(default_identity_path()), "count"]) == 2
    assert "--in-play-line" in capsys.readouterr().err  # (every form of its usage, not one)
    assert identity_ensemble.main(["--help"]) == 0  # (asked for: no error, on stdout)
    assert "--lift a" in capsys.readouterr().out


def test_a_lift_maps_every_cosine_alike(tmp_path: Path) -> None:
    patches = np.random.default_rng(1).integers(0, 255, (5, 32, 32, 3), dtype=np.uint8)
    single = embedding.Embedder(default_identity_path()).embed(patches)
    joined = _joined([], tmp_path, lift=0.7)
    lifted = joined.embed(patches)
    assert np.allclose(np.linalg.norm(lifted, axis=1), 1, atol=1e-5)
    assert np.allclose(lifted @ lifted.T, 0.7 * (single @ single.T) + 0.3, atol=1e-5)
    assert joined.embed(patches[:0]).shape == (0, 2 * single.shape[1] + 1)
    with pytest.raises(ValueError, match="lift 0"):
        _joined([], tmp_path, lift=0)


@pytest.mark.parametrize("lift", ["1.5", "0", "x", "nan"])
def test_a_lift_outside_zero_to_one_is_refused(lift: str, capsys) -> None:
    assert identity_ensemble.main([str(default_identity_path()), "--lift", lift, "evaluate"]) == 2
    assert "evaluate" in capsys.readouterr().err


def test_the_in_play_line_reaches_the_pipelines_made_after(monkeypatch: pytest.MonkeyPatch) -> None:
    from blitzcam import cli
    from blitzcam.vision import pipeline

    monkeypatch.setattr(pipeline, "UNKNOWN_BELOW_IN_PLAY", pipeline.UNKNOWN_BELOW_IN_PLAY)  # restored
    monkeypatch.setattr(identity_ensemble, "joined_with", lambda others, rest, folder, lift=1.0: rest)
    seen: list[float] = []
    monkeypatch.setattr(cli, "main", lambda argv: seen.append(pipeline.CountingPipeline.from_defaults(threads=1).unknown_below_in_play) or 0)
    argv = [str(default_identity_path()), "--lift", "0.9", "--in-play-line", "0.52", "evaluate"]
    assert identity_ensemble.main(argv) == 0 and seen == [0.52]


def test_a_run_leaves_no_folder_and_the_cache_where_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # (each run left its cache, 70 MB, in /tmp, and the suite's later tests used it)
    import os
    import tempfile

    from blitzcam import cli

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setenv("BLITZCAM_CACHE_DIR", str(tmp_path / "ours"))
    monkeypatch.setattr(identity_ensemble, "joined_with", lambda others, rest, folder, lift=1.0: rest)
    during: list[str] = []
    monkeypatch.setattr(cli, "main", lambda argv: during.append(os.environ["BLITZCAM_CACHE_DIR"]) or 0)
    assert identity_ensemble.main([str(default_identity_path()), "evaluate"]) == 0
    assert during and during[0].startswith(str(tmp_path / "blitzcam-ensemble-"))
    assert list(tmp_path.iterdir()) == [] and os.environ["BLITZCAM_CACHE_DIR"] == str(tmp_path / "ours")
    monkeypatch.delenv("BLITZCAM_CACHE_DIR")
    assert identity_ensemble.main([str(default_identity_path()), "evaluate"]) == 0
    assert "BLITZCAM_CACHE_DIR" not in os.environ


@pytest.mark.parametrize("line", ["0", "1", "x"])
def test_an_in_play_line_outside_zero_to_one_is_refused(line: str, capsys) -> None:
    assert identity_ensemble.main([str(default_identity_path()), "--in-play-line", line, "evaluate"]) == 2
    assert "evaluate" in capsys.readouterr().err
