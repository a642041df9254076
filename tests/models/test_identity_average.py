"""Identity networks joined into one ONNX, averaged and lifted (models/identity_average.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from blitzcam.models import identity_average
from blitzcam.models.identity_average import join_networks
from blitzcam.vision.embedding import Embedder

REPO_ROOT = Path(__file__).resolve().parents[2]
SHIPPED = REPO_ROOT / "models" / "blitzcam-identity.onnx"
SHIPPED_PT = REPO_ROOT / "models" / "blitzcam-identity.pt"
DETECTOR = REPO_ROOT / "models" / "blitzcam-obb.onnx"


def _single(tmp_path: Path, scale: float) -> Path:
    """A stand-in identity network: n×3×8×8 patches -> their mean colour times `scale`, and
    a constant, as a 4-vector (a network whose vector is known by hand)."""
    import onnx
    from onnx import TensorProto, helper

    nodes = [
        helper.make_node("ReduceMean", ["patches"], ["mean"], axes=[2, 3], keepdims=0),
        helper.make_node("Mul", ["mean", "scale"], ["scaled"]),
        helper.make_node("Concat", ["scaled", "ones"], ["embedding"], axis=1),
    ]
    graph = helper.make_graph(
        nodes,
        "stand-in",
        [helper.make_tensor_value_info("patches", TensorProto.FLOAT, ["n", 3, 8, 8])],
        [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["n", 4])],
        initializer=[
            helper.make_tensor("scale", TensorProto.FLOAT, [1], [scale]),
            helper.make_tensor("ones", TensorProto.FLOAT, [1, 1], [1.0]),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    # ("ones" is 1×1: a batch of n needs it tiled; the stand-in is fed one patch at a time)
    path = tmp_path / f"single-{scale}.onnx"
    onnx.save(model, path)
    return path


@pytest.fixture(scope="module")
def single(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped .pt's network alone, exported (the shipped ONNX may join several)."""
    from blitzcam.models.identity_checkpoint import export_onnx

    return export_onnx(SHIPPED_PT, tmp_path_factory.mktemp("single") / "single.onnx")


def _cosines(embedder: Embedder, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (embedder.embed(a) * embedder.embed(b)).sum(axis=1)


def test_one_network_joined_with_itself_reads_as_it_does_alone(tmp_path: Path, single: Path) -> None:
    rng = np.random.default_rng(5)
    patches = rng.integers(0, 256, (6, 32, 32, 3), dtype=np.uint8)
    other = rng.integers(0, 256, (6, 32, 32, 3), dtype=np.uint8)
    alone = Embedder(single, threads=1)
    for k in (2, 3):
        joined = Embedder(join_networks([single] * k, tmp_path / f"{k}.onnx"), threads=1)
        assert joined.embed(patches).shape == (6, k * alone.embed(patches).shape[1])
        np.testing.assert_allclose(_cosines(joined, patches, other), _cosines(alone, patches, other), atol=1e-5)


@pytest.mark.parametrize("lift", [0.5, 0.843, 1.0])
def test_a_lift_maps_every_likeness_to_lift_times_it_plus_the_rest(tmp_path: Path, single: Path, lift: float) -> None:
    rng = np.random.default_rng(6)
    patches = rng.integers(0, 256, (7, 32, 32, 3), dtype=np.uint8)  # a batch: the column is n long
    other = rng.integers(0, 256, (7, 32, 32, 3), dtype=np.uint8)
    alone = Embedder(single, threads=1)
    lifted = Embedder(join_networks([single, single], tmp_path / "lifted.onnx", lift=lift), threads=1)
    assert lifted.embed(patches).shape == (7, 2 * 64 + (lift < 1))
    np.testing.assert_allclose(
        _cosines(lifted, patches, other), lift * _cosines(alone, patches, other) + 1 - lift, atol=1e-5
    )
    assert lifted.embed(patches[:0]).shape[0] == 0


def test_a_lift_outside_zero_to_one_and_a_lone_network_are_refused(tmp_path: Path, single: Path) -> None:
    for lift in (0.0, 1.5, float("nan")):
        with pytest.raises(ValueError, match="must be in"):
            join_networks([single, single], tmp_path / "x.onnx", lift=lift)
    with pytest.raises(ValueError, match="joining needs two or more"):
        join_networks([single], tmp_path / "x.onnx")
    assert not (tmp_path / "x.onnx").exists()


def test_two_different_networks_give_each_one_s_unit_vector_side_by_side(tmp_path: Path) -> None:
    first, second = _single(tmp_path, 1.0), _single(tmp_path, -3.0)
    pair = join_networks([first, second], tmp_path / "pair.onnx")
    import onnxruntime as ort

    patch = np.full((1, 3, 8, 8), 0.5, np.float32)
    patch[0, 1] = 0.25
    got = ort.InferenceSession(str(pair)).run(None, {"patches": patch})[0]
    a = np.array([0.5, 0.25, 0.5, 1.0])
    b = np.array([-1.5, -0.75, -1.5, 1.0])
    expected = np.concatenate([a / np.linalg.norm(a), b / np.linalg.norm(b)])[None]
    np.testing.assert_allclose(got, expected, atol=1e-6)


def test_a_model_other_than_an_identity_network_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not an identity network export"):
        join_networks([DETECTOR, SHIPPED], tmp_path / "pair.onnx")
    assert not (tmp_path / "pair.onnx").exists()


def test_the_fitted_lift_is_the_one_that_made_the_likenesses() -> None:
    alone = np.random.default_rng(2).uniform(-0.2, 1.0, 300)
    averaged = (alone - 1) / 0.8 + 1  # alone = 0.8 * averaged + 0.2
    assert identity_average.fitted_lift(averaged, alone) == pytest.approx(0.8)


def test_own_and_best_other_reads_each_drawing_s_designs() -> None:
    from blitzcam.vision.embedding import References

    refs = References(np.eye(3, dtype=np.float32), np.array([0, 1, 2]))
    vectors = np.array([[0.9, 0.3, 0.1], [0.2, 0.1, 0.95]], np.float32)
    got = identity_average.own_and_best_other(vectors, refs, np.array([0, 2]))
    assert got.tolist() == pytest.approx([0.9, 0.95, 0.3, 0.2])


def _drawings(rng: np.random.Generator) -> object:
    from blitzcam.models.identity_data import IdentityData

    references = rng.integers(0, 256, (4, 32, 32, 3), dtype=np.uint8)
    queries = np.clip(np.repeat(references, 3, axis=0) + rng.normal(0, 30, (12, 32, 32, 3)), 0, 255)
    return IdentityData(["a", "b", "c", "d"], queries.astype(np.uint8), np.repeat(np.arange(4), 3), references, np.arange(4))


def test_a_network_averaged_with_itself_needs_no_lift(tmp_path: Path, single: Path) -> None:
    data = _drawings(np.random.default_rng(3))
    joined = join_networks([single, single], tmp_path / "plain.onnx")
    lift = identity_average.lift_on(Embedder(single).embed, Embedder(joined).embed, data)
    assert lift == pytest.approx(1.0, abs=1e-4)


def test_the_average_of_checkpoints_is_made_from_their_exports(tmp_path: Path, single: Path) -> None:
    identity_average.main([str(SHIPPED_PT), str(SHIPPED_PT), "--lift", "0.7", "--out", str(tmp_path)])
    joined = Embedder(tmp_path / "blitzcam-identity.onnx", threads=1)
    patches = np.random.default_rng(9).integers(0, 256, (4, 32, 32, 3), dtype=np.uint8)
    alone = Embedder(single, threads=1).embed(patches)
    expected = np.hstack([alone, alone, np.full((4, 1), np.sqrt(2 * 0.3 / 0.7))]) / np.sqrt(2 / 0.7)
    np.testing.assert_allclose(joined.embed(patches), expected, atol=1e-5)


@pytest.mark.parametrize(("argv", "said"), [
    (["one.pt", "--out", "d"], "give two or more checkpoints"),
    (["a.pt", "b.pt", "--lift", "2", "--out", "d"], "--lift 2.0: must be in (0, 1]"),
])
def test_bad_arguments_are_said(argv: list[str], said: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        identity_average.main(argv)
    assert exit_.value.code == 2 and said in capsys.readouterr().err


def test_both_engines_read_a_lifted_join_alike(tmp_path: Path, single: Path) -> None:
    from blitzcam.vision.onnx_session import ENGINES, OPENVINO, openvino_installed

    joined = join_networks([single, single, single], tmp_path / "three.onnx", lift=0.8)
    patches = np.random.default_rng(8).integers(0, 256, (5, 32, 32, 3), dtype=np.uint8)
    engines = [e for e in ENGINES if e != OPENVINO or openvino_installed()]
    readings = [Embedder(joined, threads=1, engine=engine).embed(patches) for engine in engines]
    assert readings[0].shape == (5, 3 * 64 + 1)
    for other in readings[1:]:
        np.testing.assert_allclose(other, readings[0], atol=1e-4)


def test_neither_a_lift_nor_drawings_to_fit_it_on_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="give the lift, or the drawings"):
        identity_average.average_from_checkpoints([SHIPPED_PT, SHIPPED_PT], tmp_path / "x.onnx")
    assert not (tmp_path / "x.onnx").exists()


def test_a_joined_file_says_how_many_networks_it_runs(tmp_path: Path, single: Path) -> None:
    joined = join_networks([single, single, single], tmp_path / "three.onnx", lift=0.8)
    assert identity_average.networks_joined(joined) == 3
    assert identity_average.networks_joined(single) == 1  # a network exported alone
    hint = identity_average.join_again_hint(tmp_path, 3)
    assert "joined 3 networks and is now this one alone" in hint
    assert "python -m blitzcam.models.identity_average" in hint and str(tmp_path) in hint


def test_the_shipped_file_is_the_four_networks_joined() -> None:
    # (MODEL_CARD.md: four networks, averaged and lifted; `train-identity` ships one over it)
    assert identity_average.networks_joined(SHIPPED) == 4
