"""Two identity networks joined into one ONNX (models/identity_pair.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from blitzcam.models.identity_pair import join_networks
from blitzcam.vision.embedding import Embedder

REPO_ROOT = Path(__file__).resolve().parents[2]
SHIPPED = REPO_ROOT / "models" / "blitzcam-identity.onnx"
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


def test_the_pair_s_likeness_is_the_mean_of_the_two_networks(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    patches = rng.integers(0, 256, (6, 32, 32, 3), dtype=np.uint8)
    other = rng.integers(0, 256, (6, 32, 32, 3), dtype=np.uint8)
    shipped = Embedder(SHIPPED, threads=1)
    pair = Embedder(join_networks(SHIPPED, SHIPPED, tmp_path / "pair.onnx"), threads=1)
    assert pair.embed(patches).shape == (6, 2 * shipped.embed(patches).shape[1])
    # one network twice: the same likeness as the network alone
    alone = (shipped.embed(patches) * shipped.embed(other)).sum(axis=1)
    joined = (pair.embed(patches) * pair.embed(other)).sum(axis=1)
    np.testing.assert_allclose(joined, alone, atol=1e-5)


def test_two_different_networks_give_each_one_s_unit_vector_side_by_side(tmp_path: Path) -> None:
    first, second = _single(tmp_path, 1.0), _single(tmp_path, -3.0)
    pair = join_networks(first, second, tmp_path / "pair.onnx")
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
        join_networks(DETECTOR, SHIPPED, tmp_path / "pair.onnx")
    assert not (tmp_path / "pair.onnx").exists()


def test_the_pair_of_two_checkpoints_is_made_from_their_exports(tmp_path: Path) -> None:
    from blitzcam.models.identity_pair import main

    pt = REPO_ROOT / "models" / "blitzcam-identity.pt"
    main([str(pt), str(pt), "--out", str(tmp_path)])
    pair = Embedder(tmp_path / "blitzcam-identity.onnx", threads=1)
    patches = np.random.default_rng(9).integers(0, 256, (4, 32, 32, 3), dtype=np.uint8)
    alone = Embedder(SHIPPED, threads=1).embed(patches)  # the shipped ONNX is the .pt's export
    np.testing.assert_allclose(pair.embed(patches), np.hstack([alone, alone]) / np.sqrt(2), atol=1e-5)
