"""Comparing a new identity network's drawings figures with the shipped one's."""

from __future__ import annotations

from blitzcam.models.identity_eval import THRESHOLDS, against_shipped


def _report(**at_line: float) -> dict[str, dict[float, float]]:
    keys = ("builtin_right", "builtin_wrong_deck", "random_rejected", "enrolled_right")
    return {key: {t: at_line.get(key, 0.5) for t in THRESHOLDS} for key in keys}


def test_each_figure_is_set_beside_the_shipped_networks() -> None:
    new = _report(builtin_right=0.9836, random_rejected=0.9983)
    old = _report(builtin_right=0.9790, random_rejected=0.9983)
    lines = against_shipped(new, old, 0.6)
    assert lines[0] == "  built-in backs given their own deck: 98.36 % against 97.90 %"
    assert "  unenrolled art left unknown: 99.83 % against 99.83 %" in lines
    assert len(lines) == 4 and not any(line.startswith("warning") for line in lines)


def test_a_network_that_lets_more_random_art_through_is_warned_about() -> None:
    lines = against_shipped(_report(random_rejected=0.9949), _report(random_rejected=0.9983), 0.6)
    assert "  unenrolled art left unknown: 99.49 % against 99.83 %" in lines
    assert lines[-1].startswith("warning: this network leaves unenrolled art unknown less often")
    assert "random art nobody enrolled" in lines[-1]
    # it is read at the line asked for, not elsewhere
    new, old = _report(random_rejected=0.99), _report(random_rejected=0.99)
    new["random_rejected"][0.4] = 0.5
    assert not any(line.startswith("warning") for line in against_shipped(new, old, 0.6))
