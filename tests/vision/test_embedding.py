"""The pure parts around the identity network: cutting, white balance, turns, nearest deck."""

from __future__ import annotations

import numpy as np
import pytest

from blitzcam.errors import UserError
from blitzcam.vision.embedding import (
    PATCH,
    Embedder,
    References,
    deck_similarity,
    drawing_patch,
    network_input,
    quarter_turns,
    reference_vectors,
    white_balance,
)


def _square(side: float, centre: float = 100.0) -> np.ndarray:
    h = side / 2
    # ultralytics corner order: corners[2] is the box frame's origin, [1] its x end, [3] its y end
    return np.float32([[centre + h, centre + h], [centre + h, centre - h],
                       [centre - h, centre - h], [centre - h, centre + h]])


def test_a_large_drawing_is_area_averaged_not_aliased() -> None:
    # one-pixel stripes: sampled straight onto 32 px they alias into solid bars; averaged they are grey
    stripes = np.zeros((200, 200, 3), np.uint8)
    stripes[:, ::2] = 255
    patch = drawing_patch(stripes, _square(160), PATCH)
    assert patch.shape == (PATCH, PATCH, 3)
    assert 100 < patch.mean() < 155
    assert patch.std() < 40  # sampled directly, the stripes alias to 0 and 255 (std ~127)


def test_a_small_drawing_is_warped_directly() -> None:
    image = np.zeros((50, 50, 3), np.uint8)
    image[25:, :] = 255
    patch = drawing_patch(image, _square(20, centre=25), PATCH)
    assert patch.shape == (PATCH, PATCH, 3)
    # the box frame's origin is corner 2 (top-left here): bright half at the bottom
    assert patch[-4:].mean() > 200 and patch[:4].mean() < 50


def test_network_input_cancels_the_colour_of_the_light() -> None:
    rng = np.random.default_rng(0)
    paper = np.full((PATCH, PATCH, 3), 240.0)
    paper[8:24, 8:24] = (40.0, 160.0, 60.0)  # a green drawing on white
    paper += rng.normal(0, 2, paper.shape)
    neutral = np.clip(paper, 0, 255).astype(np.uint8)
    warm = np.clip(paper * (0.8, 0.95, 1.05), 0, 255).astype(np.uint8)  # BGR: less blue
    a, b = network_input(np.stack([neutral, warm]))
    assert a.shape == (3, PATCH, PATCH) and a.dtype == np.float32
    assert np.abs(a - b).mean() < 0.03
    assert a.min() >= -1.0 and a.max() <= 1.0


@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.float64])
def test_network_input_is_white_balance_laid_out_for_the_network(dtype) -> None:
    # (found among the bytes, channel-first, it is the same floats as white_balance's steps)
    rng = np.random.default_rng(11)
    patches = rng.integers(0, 256, (9, 32, 32, 3)).astype(dtype)
    patches[0] = rng.integers(0, 6, (32, 32, 3))  # a dark patch: the paper's floor of 8
    if dtype is not np.uint8:  # (an augmented patch: values between the bytes)
        patches[1:] += rng.random((8, 32, 32, 3)).astype(dtype)
    expected = (white_balance(patches.astype(np.float32)) * 2.0 - 1.0).transpose(0, 3, 1, 2)
    got = network_input(patches)
    assert got.dtype == np.float32 and got.flags.c_contiguous
    assert np.array_equal(got, expected)


def test_network_input_rejects_a_wrong_shape() -> None:
    with pytest.raises(ValueError, match="patches must be"):
        network_input(np.zeros((4, PATCH, PATCH), np.uint8))


def test_quarter_turns_and_their_owners_line_up() -> None:
    patches = np.arange(2 * 2 * 2 * 3, dtype=np.uint8).reshape(2, 2, 2, 3)
    turned = quarter_turns(patches)
    assert turned.shape == (8, 2, 2, 3)
    np.testing.assert_array_equal(turned[2 + 1], np.rot90(patches[1], 1))
    seen = []
    refs = reference_vectors(lambda p: (seen.append(len(p)), np.eye(8, 4)[: len(p)])[1], patches,
                             np.array([5, 7]))
    assert seen == [8]
    np.testing.assert_array_equal(refs.owners, [5, 7] * 4)


def test_each_deck_scores_its_nearest_reference() -> None:
    refs = References(np.float32([[1, 0], [0, 1], [0.6, 0.8]]), np.array([0, 1, 1]))
    sims = deck_similarity(np.float32([[0.8, 0.6]]), refs, 3)
    np.testing.assert_allclose(sims, [[0.8, 0.96, -1.0]], atol=1e-6)  # deck 2 has no reference


def test_a_missing_identity_model_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(UserError, match=r"no identity model at .*train-identity"):
        Embedder(tmp_path / "models" / "blitzcam-identity.onnx")  # the shipped one, gone
    with pytest.raises(UserError, match=r"none\.onnx: no such identity model file$"):
        Embedder(tmp_path / "none.onnx")  # another (mistyped)
    (tmp_path / "models").mkdir()  # a folder given: it said "no such identity model file"
    with pytest.raises(UserError, match=r"models: is a folder, not a model file \(an \.onnx\)$"):
        Embedder(tmp_path / "models")
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not onnx")
    with pytest.raises(UserError, match="cannot load the ONNX model"):
        Embedder(broken)


@pytest.mark.parametrize("engine", ["openvino", "onnxruntime"])
def test_the_detector_given_as_the_identity_network_is_one_line(engine: str) -> None:
    # (an engine's traceback on the first patches, exit 1: "an image failed")
    from blitzcam.vision.pipeline import default_model_path

    with pytest.raises(UserError, match=r"blitzcam-obb\.onnx: not an identity network \(it "
                       r"takes 1×3×736×1280 and gives 1×7×19320,"):  # fmt: skip
        Embedder(default_model_path(), engine=engine)


@pytest.mark.parametrize(
    ("inputs", "outputs", "fits"),
    [
        (("n", 3, 32, 32), ("n", 64), True),
        (("n", 3, "h", "w"), ("n", 64), True),  # free sizes: fed square patches
        ((1, 3, 736, 1280), (1, 7, 19320), False),
        (("n", 3, 32, 48), ("n", 64), False),
        (("n", 1, 32, 32), ("n", 64), False),  # grey
        (("n", 3, 32, 32), ("n", 64, 1), False),
        ((3, 32, 32), ("n", 64), False),
    ],
)
def test_only_square_colour_patches_to_vectors_are_an_identity_network(inputs, outputs,
                                                                       fits) -> None:  # fmt: skip
    from blitzcam.vision.embedding import check_identity_shapes

    if fits:
        check_identity_shapes(inputs, outputs, source="m.onnx")
    else:
        with pytest.raises(UserError, match=r"^m\.onnx: not an identity network"):
            check_identity_shapes(inputs, outputs, source="m.onnx")


def test_the_shipped_network_gives_unit_vectors() -> None:
    from blitzcam.vision.pipeline import default_identity_path

    embedder = Embedder(default_identity_path(), threads=1)
    rng = np.random.default_rng(3)
    vectors = embedder.embed(rng.integers(0, 255, (5, PATCH, PATCH, 3), dtype=np.uint8))
    assert vectors.shape[0] == 5 and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    assert embedder.embed(np.zeros((0, PATCH, PATCH, 3), np.uint8)).shape[0] == 0


@pytest.mark.parametrize("engine", ["openvino", "onnxruntime"])
def test_the_network_runs_on_a_few_batch_sizes_and_gives_each_patch_its_own_vector(engine) -> None:
    # OpenVINO kept memory for each new batch size: a frame's backs came in 55 sizes over 26
    # tables, and sizes 1 to 300 took 583 MB that were never given back. (Padded to a multiple
    # of 32, 33 backs ran 64 patches, 31 of them blank.)
    from blitzcam.vision.embedding import BATCH_MOST, BATCH_STEP, network_input
    from blitzcam.vision.pipeline import default_identity_path

    embedder = Embedder(default_identity_path(), threads=1, engine=engine)
    session, sizes = embedder._session, []

    class Recording:  # the session, noting the batch sizes it is given
        output_shape = session.output_shape

        def run(self, blob: np.ndarray) -> np.ndarray:
            sizes.append(len(blob))
            return session.run(blob)

    patches = np.random.default_rng(5).integers(0, 255, (70, PATCH, PATCH, 3), dtype=np.uint8)
    alone = session.run(network_input(patches))
    alone /= np.linalg.norm(alone, axis=1, keepdims=True)
    embedder._session = Recording()
    for n in (1, 31, 32, 33, 70):
        np.testing.assert_array_equal(embedder.embed(patches[:n]), alone[:n].astype(np.float32))
    assert sizes == [8, 32, 32, 32, 8, 32, 32, 8]
    assert all(size % BATCH_STEP == 0 and size <= BATCH_MOST for size in sizes)
    sizes.clear()
    for n in range(1, 301):  # as many sizes as a day of tables brings: four
        embedder.embed(patches[: n % 70 + 1])
    assert set(sizes) == {8, 16, 24, 32}

