"""The model card's facts come from the run folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blitzcam.models.card import wall_time_lines
from blitzcam.models.run_kind import FINISHED_FILE
from blitzcam.models.run_timing import add_train_seconds


def test_wall_time_says_where_each_stage_ran(tmp_path: Path) -> None:
    add_train_seconds(tmp_path, 600 + 480)  # stages on this CPU, then one elsewhere
    (tmp_path / "extend").mkdir()
    (tmp_path / "extend" / FINISHED_FILE).write_text(
        json.dumps({"seconds": 480, "device": "NVIDIA H200", "epochs": 10})
    )
    lines = wall_time_lines(tmp_path)
    assert len(lines) == 2
    assert "10 min on" in lines[0] and "CPU" in lines[0]
    assert "`extend`: 8 min on NVIDIA H200" in lines[1]


def test_wall_time_of_a_run_without_stage_records_is_all_cpu(tmp_path: Path) -> None:
    add_train_seconds(tmp_path, 3000)
    lines = wall_time_lines(tmp_path)
    assert len(lines) == 1 and "50 min on" in lines[0]


def test_the_reject_stage_is_described_only_as_far_as_the_run_had_it() -> None:
    from dataclasses import asdict, replace

    from blitzcam.models.card import _reject_stage_lines
    from blitzcam.models.identity_network import IdentityRecipe

    recipe = asdict(replace(IdentityRecipe(), negatives_per_step=32))
    lines = _reject_stage_lines(recipe)
    assert len(lines) == 2 and "drawings of no deck" in lines[1] and "7101, 7102, 7103" in lines[1]
    without = _reject_stage_lines(asdict(replace(IdentityRecipe(), negatives_per_step=0)))
    assert len(without) == 1 and "random design" in without[0]
    older = {k: v for k, v in recipe.items() if "negative" not in k}  # runs before negatives
    assert _reject_stage_lines(older) == without
    assert _reject_stage_lines({**recipe, "reject_steps": 0}) == []
    pulled = _reject_stage_lines(asdict(replace(IdentityRecipe(), attract_weight=1.0)))
    assert len(pulled) == 2 and "own design up to 0.8" in pulled[1] and "weight 1.0" in pulled[1]


def test_the_refine_stage_is_described_only_when_the_run_had_it() -> None:
    from dataclasses import asdict, replace

    from blitzcam.models.card import _refine_stage_lines
    from blitzcam.models.identity_network import IdentityRecipe

    recipe = asdict(replace(IdentityRecipe(), refine_steps=3000, refine_lr=3e-4))
    (line,) = _refine_stage_lines(recipe)
    assert "3000 steps more" in line and "15 %" in line and "20 %" in line and "lr 0.0003" in line
    assert "nor the eight decks'" not in line
    (decks_left,) = _refine_stage_lines({**recipe, "refine_builtin_augmented": False})
    assert "(never the references, nor the eight decks') given a pencil" in decks_left
    assert _refine_stage_lines({**recipe, "refine_steps": 0}) == []
    older = {k: v for k, v in recipe.items() if not k.startswith("refine_")}
    assert _refine_stage_lines(older) == []


def test_the_ink_gain_and_extra_drawings_are_described_only_when_the_run_had_them() -> None:
    from dataclasses import asdict, replace

    from blitzcam.models.card import _input_lines
    from blitzcam.models.identity_network import IdentityRecipe

    plain = asdict(replace(IdentityRecipe(), ink_gain=1.0, occluded_share=0.0, faded_share=0.0))
    assert _input_lines(plain) == []
    older = {k: v for k, v in plain.items() if k not in ("ink_gain", "occluded_share", "faded_share")}
    assert _input_lines(older) == []
    lines = _input_lines({**plain, "ink_gain": 3.0, "occluded_share": 0.15, "faded_share": 0.2})
    assert len(lines) == 2
    assert "up to 3.0×" in lines[0] and "ONNX" in lines[0]
    assert "15 %" in lines[1] and "20 %" in lines[1] and "never the references" in lines[1]


def test_shrunk_drawings_are_described_only_when_the_run_had_them() -> None:
    from dataclasses import asdict, replace

    from blitzcam.models.card import _input_lines, _refine_stage_lines
    from blitzcam.models.identity_network import IdentityRecipe

    plain = asdict(replace(IdentityRecipe(), refine_steps=3000))
    older = {k: v for k, v in plain.items() if k not in ("small_share", "refine_small_share")}
    assert _input_lines(plain) == _input_lines(older) == []
    assert _refine_stage_lines(plain) == _refine_stage_lines(older)
    assert "shrunk" not in _refine_stage_lines(plain)[0]
    (line,) = _input_lines({**plain, "small_share": 0.25})
    assert "25 % are shrunk to a far card's 6–20 pixels" in line
    (refine,) = _refine_stage_lines({**plain, "refine_small_share": 0.3})
    assert "30 % shrunk to a far card's 6–20 pixels" in refine


def test_what_a_report_could_not_measure_reads_n_a() -> None:
    # evaluate's JSON writes it as null: reading a set without face-up cards broke the card
    from blitzcam.models.card import _num, _pct

    assert _pct(None) == _pct(float("nan")) == "n/a"
    assert _pct(0.9675) == "96.75 %"
    assert _num(None, ".0f", " ms") == "n/a" and _num(279.4, ".0f", " ms") == "279 ms"


def test_the_command_line_says_what_a_run_changed_from_the_recipe() -> None:
    # the card said "the defaults are this recipe" of a run trained with --epochs 3
    import json
    from dataclasses import replace

    from blitzcam.models.card import command_line
    from blitzcam.models.recipe import SHIPPED

    as_saved = json.loads(json.dumps(SHIPPED.as_dict()))  # as recipe.json holds it
    assert command_line("blitzcam train", as_saved, SHIPPED.as_dict()) == (
        "- Command: `blitzcam train` (the defaults are this recipe)."
    )
    changed = json.loads(json.dumps(replace(SHIPPED, epochs=3).as_dict()))
    line = command_line("blitzcam train", changed, SHIPPED.as_dict())
    assert f"epochs 3 (default {SHIPPED.epochs})" in line and "defaults are this recipe" not in line


def test_a_run_gone_on_from_the_shipped_weights_says_whose_its_first_stages_are(
    tmp_path: Path,
) -> None:
    from dataclasses import replace

    from blitzcam.models import DETECTOR_PT
    from blitzcam.models.card import render_card
    from blitzcam.models.recipe import SHIPPED
    from blitzcam.models.run_record import go_on_from_shipped

    recipe = replace(SHIPPED, more_hours=0.1)
    run = tmp_path / "run"
    go_on_from_shipped(run, recipe, DETECTOR_PT, resume=False)
    (run / "more").mkdir()
    (run / "more" / FINISHED_FILE).write_text(
        json.dumps({"seconds": 420, "device": "NVIDIA H200", "epochs": 7})
    )
    saved = json.loads(json.dumps(recipe.as_dict()))  # as recipe.json holds it
    card = render_card(recipe=saved, run_dir=run, reports={}, notes="-")
    made = card.split("## How it was made")[1].split("## Measured")[0]
    assert "with its recipe changed from the defaults: more_hours 0.1 (default 0.0)" in made
    assert "epochs 14 (completed: 14)" in made and "6 epochs (completed: 6)" in made
    assert "Stage 5 (more): from the previous stage's best weights" in made
    assert "`--seed 2030 --late-rounds 0.25`" in made and "`time`: 7 epochs)" in made
    assert "wider" not in made
    wide = render_card(recipe={**saved, "more_wide_art": True}, run_dir=run, reports={},
                       notes="-")  # fmt: skip
    assert "`--seed 2030 --late-rounds 0.25 --wide-art`" in wide
    assert "random art of the wider families too" in wide
    assert "Stages `train`, `refine`, `extend` are those of the weights shipped before" in made
    walls = [line for line in made.splitlines() if line.startswith("- Wall time")]
    assert walls == [
        "- Wall time of stage `train`: 101 min on x86_64 CPU (scene generation and crops "
        "included).",
        "- Wall time of stage `refine`: 63 min on x86_64 CPU (scene generation and crops "
        "included).",
        "- Wall time of stage `extend`: 8 min on NVIDIA H200 (scene generation and crops "
        "included).",
        "- Wall time of stage `more`: 7 min on NVIDIA H200 (scene generation and crops "
        "included).",
    ]


def _identity_run(tmp_path: Path) -> Path:
    """An identity run folder as `train-identity` leaves one: its report (recipe, validation)."""
    from dataclasses import asdict

    from blitzcam.models.identity_network import IdentityRecipe

    validation = {"builtin_right": {"0.6": 0.98}, "random_rejected": {"0.6": 0.99}}
    report = {"recipe": asdict(IdentityRecipe()), "validation": validation}
    (tmp_path / "report.json").write_text(json.dumps(report))
    return tmp_path


SHIPPED_NETWORKS = tuple(
    Path(__file__).resolve().parents[2] / "models" / name
    for name in (
        "blitzcam-identity.pt",
        "blitzcam-identity-wide-art.pt",
        "blitzcam-identity-wide-art-late.pt",
        "blitzcam-identity-wide-art-late-2.pt",
    )
)


def test_the_identity_section_describes_the_networks_the_shipped_file_joins(
    tmp_path: Path,
) -> None:
    from blitzcam.files import sha256_of
    from blitzcam.models.card import identity_section

    text = "\n".join(identity_section(_identity_run(tmp_path), SHIPPED_NETWORKS))
    assert "4 small CNNs" in text and "0.837 × mean + 0.163" in text
    for k, path in enumerate(SHIPPED_NETWORKS, start=1):
        assert f"| `{path.name}` | network {k} of 4," in text and sha256_of(path) in text
    assert "identity_average " + " ".join(str(p) for p in SHIPPED_NETWORKS) in text
    assert "A small CNN" not in text  # (the one-network opening)


def test_a_card_naming_other_networks_than_the_shipped_file_joins_is_refused(
    tmp_path: Path,
) -> None:
    from blitzcam.models.card import identity_section

    run = _identity_run(tmp_path)
    with pytest.raises(ValueError, match=r"joins 4 identity network\(s\), but 2 were named"):
        identity_section(run, SHIPPED_NETWORKS[:2])
    with pytest.raises(ValueError, match=r"joins 4 identity networks: name their \.pt files"):
        identity_section(run)  # the joined file would be called one network


def test_a_shipped_network_alone_is_described_as_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import onnx
    from onnx import TensorProto, helper

    from blitzcam.models import card

    graph = helper.make_graph(
        [helper.make_node("Identity", ["patches"], ["embedding"])],
        "alone",
        [helper.make_tensor_value_info("patches", TensorProto.FLOAT, ["n", 4])],
        [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["n", 4])],
    )
    alone = tmp_path / "alone.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), alone)
    monkeypatch.setattr(card, "IDENTITY_ONNX", alone)
    text = "\n".join(card.identity_section(_identity_run(tmp_path)))
    assert "A small CNN" in text and "network 1 of" not in text
    with pytest.raises(ValueError, match=r"joins 1 identity network\(s\), but 4 were named"):
        card.identity_section(_identity_run(tmp_path), SHIPPED_NETWORKS)


def test_a_measurement_says_how_its_decks_were_decided_and_read() -> None:
    # the card wrote the same command for a run --in-play and for one read against a --decks
    # folder of two decks (0 % exact), as for one with the shipped art (review)
    from blitzcam.models.card import _decks_said

    shipped = {"references": {"red-plow": "built-in"}, "stand_ins": []}
    assert _decks_said(shipped) == "" and _decks_said({}) == ""
    folder = {"references": {"red-plow": "d/red-plow.png", "blue-plow": "built-in, not counted"},
              "stand_ins": ["blue-plow"]}  # fmt: skip
    assert _decks_said(folder) == ", decks read against prints of red-plow, blue-plow never counted"
    # a folder whose name begins "built-in" holds prints all the same (review)
    named = {"references": {"mine": "built-in-decks/mine.png"}, "stand_ins": []}
    assert _decks_said(named) == ", decks read against prints of mine"
