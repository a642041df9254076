from __future__ import annotations

import numpy as np
import pytest

from blitzcam.models.metrics import (
    ScenePrediction,
    SceneTruth,
    average_precision,
    evaluate_scene,
    match_boxes,
    summarize,
)


def box(cx: float, cy: float, w: float = 10, h: float = 10) -> np.ndarray:
    return np.array([[cx - w / 2, cy - h / 2], [cx + w / 2, cy - h / 2],
                     [cx + w / 2, cy + h / 2], [cx - w / 2, cy + h / 2]], np.float64)


def test_match_boxes_is_one_to_one_and_confidence_first() -> None:
    truth = np.stack([box(0, 0), box(30, 0)])
    predicted = np.stack([box(1, 0), box(0, 1), box(60, 0)])
    claims = match_boxes(truth, predicted, np.array([0.5, 0.9, 0.8]))
    # the more confident duplicate claims the truth; the other becomes a false positive
    assert claims.tolist() == [-1, 0, -1]


@pytest.mark.parametrize(
    ("confidence", "correct", "n_truth", "ap"),
    [
        ([0.9, 0.8], [True, True], 2, 1.0),   # all found, no false positives
        ([0.9, 0.8], [False, False], 2, 0.0),  # nothing right
        ([0.9], [True], 2, 51 / 101),  # precision 1 up to recall 0.5: 51 of the 101 points
    ],
)
def test_average_precision(confidence: list[float], correct: list[bool], n_truth: int, ap: float) -> None:
    value = average_precision(np.array(confidence), np.array(correct), n_truth)
    assert value == pytest.approx(ap, abs=1e-6)


def test_average_precision_without_truth_is_undefined() -> None:
    assert np.isnan(average_precision(np.zeros(0), np.zeros(0, bool), 0))


def scene() -> SceneTruth:
    return SceneTruth(
        corners=np.stack([box(0, 0), box(30, 0), box(60, 0), box(200, 200, 80, 120)]),
        classes=np.array([0, 0, 0, 1]),
        decks=("green-pump", "green-pump", "unknown:animal", None),
    )


def prediction(decks: tuple[str, ...], *, extra_on_face: bool = False) -> ScenePrediction:
    corners = [box(0, 0), box(30, 0), box(60, 0), box(200, 200, 80, 120)]
    classes = [0, 0, 0, 1]
    if extra_on_face:
        corners.append(box(200, 200, 20, 20))
        classes.append(0)
        decks = (*decks, "red-buggy")
    return ScenePrediction(
        corners=np.stack(corners), classes=np.array(classes),
        confidence=np.linspace(0.9, 0.5, len(classes)), decks=decks,
        counted=np.ones(len(classes), bool),
    )


def test_a_perfect_scene_is_exact() -> None:
    outcome = evaluate_scene("s", scene(), prediction(("green-pump", "green-pump", "unknown", "unknown")),
                             known_decks=["green-pump", "red-buggy"])
    assert outcome.exact
    assert outcome.truth_counts == {"green-pump": 2, "unknown": 1}
    assert outcome.face_up_counted == 0
    report = summarize([outcome])
    assert report["scene_exact_rate"] == 1.0
    assert report["detector"]["back"]["precision"] == 1.0
    assert report["detector"]["back"]["recall"] == 1.0
    assert report["detector"]["back"]["mAP50"] == pytest.approx(1.0)
    assert report["confusions"] == []


def test_a_confused_deck_and_a_counted_face_are_reported() -> None:
    outcome = evaluate_scene(
        "s", scene(), prediction(("green-pump", "red-buggy", "unknown", "unknown"), extra_on_face=True),
        known_decks=["green-pump", "red-buggy"],
    )
    assert not outcome.exact
    assert outcome.face_up_counted == 1
    report = summarize([outcome])
    assert {"truth": "green-pump", "predicted": "red-buggy", "cards": 1} in report["confusions"]
    assert report["per_deck"]["green-pump"]["mean_abs_error"] == 1.0
    assert report["per_deck"]["red-buggy"]["mean_abs_error"] == 2.0
    assert report["face_up_counted"] == 1
    assert report["face_up_counted_scenes"] == ["s"]  # (which photo: a review's 50 had none)
    assert report["inexact_scenes"] == ["s"]


def test_exact_rate_by_threshold_counts_only_confident_backs() -> None:
    from blitzcam.models.metrics import exact_rate_by_threshold

    truth = scene()
    confident = prediction(("green-pump", "green-pump", "unknown", "unknown"), extra_on_face=True)
    # the extra back on the face-up card is the least confident (0.5): a threshold above it fixes
    # the scene, one below it does not
    rates = exact_rate_by_threshold([(truth, confident)], [0.4, 0.55],
                                    known_decks=["green-pump", "red-buggy"])
    assert rates == {0.4: 0.0, 0.55: 1.0}


def test_exact_rate_counts_what_the_pipeline_counted_whatever_its_confidence() -> None:
    import dataclasses

    from blitzcam.models.metrics import exact_rate, exact_rate_by_threshold

    known = ["green-pump", "red-buggy"]
    truth = scene()
    extra = prediction(("green-pump", "green-pump", "unknown", "unknown"), extra_on_face=True)
    assert exact_rate([(truth, extra)], known_decks=known) == 0.0
    # the pipeline left the extra back uncounted: exact, while a confidence line would count it
    left = dataclasses.replace(extra, counted=np.array([True, True, True, True, False]))
    assert exact_rate([(truth, left)], known_decks=known) == 1.0
    assert exact_rate_by_threshold([(truth, left)], [0.4], known_decks=known) == {0.4: 0.0}
    assert np.isnan(exact_rate([], known_decks=known))


def test_identity_errors_are_told_from_detection_errors() -> None:
    known = ["green-pump", "red-buggy"]
    # a wrong deck only: the detector alone would have made the scene exact
    confused = evaluate_scene("a", scene(), prediction(("green-pump", "red-buggy", "unknown", "unknown")),
                              known_decks=known)
    assert not confused.exact and confused.exact_if_identity_right
    # an extra back (on the face-up card) is the detector's error: inexact either way
    extra = evaluate_scene("b", scene(), prediction(("green-pump", "green-pump", "unknown", "unknown"),
                                                    extra_on_face=True), known_decks=known)
    assert not extra.exact and not extra.exact_if_identity_right
    assert extra.counts_if_identity_right == {"green-pump": 2, "unknown": 1, "red-buggy": 1}
    report = summarize([confused, extra])
    assert report["scene_exact_rate"] == 0.0
    assert report["scene_exact_rate_if_identity_right"] == 0.5


def test_scenes_with_random_art_are_reported_apart() -> None:
    import dataclasses

    known = ["green-pump", "red-buggy"]
    plain = dataclasses.replace(scene(), decks=("green-pump", "green-pump", "red-buggy", None))
    exact = evaluate_scene("plain", plain, prediction(("green-pump", "green-pump", "red-buggy", "unknown")),
                           known_decks=known)
    # the random-art back (unknown:animal) counted as a deck: only the random-art rate suffers
    wrong = evaluate_scene("random", dataclasses.replace(scene(), random_art=True),
                           prediction(("green-pump", "green-pump", "red-buggy", "unknown")),
                           known_decks=known)
    report = summarize([exact, wrong])
    assert report["scenes_builtin_art"] == 1
    assert report["scene_exact_rate_builtin_art"] == 1.0
    assert report["scene_exact_rate_random_art"] == 0.0


def test_an_unknown_back_on_a_face_is_counted_to_nobody() -> None:
    import dataclasses

    known = ["green-pump", "red-buggy"]
    seen = prediction(("green-pump", "green-pump", "unknown", "unknown"), extra_on_face=True)
    unknown = dataclasses.replace(seen, decks=(*seen.decks[:-1], "unknown"))
    assert evaluate_scene("s", scene(), seen, known_decks=known).face_up_counted == 1
    assert evaluate_scene("s", scene(), unknown, known_decks=known).face_up_counted == 0


def test_a_back_left_unknown_changes_no_deck_count() -> None:
    import dataclasses

    # an extra box (clutter, a neighbour's edge) that the identity step leaves "unknown" is
    # counted to nobody: every known deck's count is still right, only the strict rate suffers
    known = ["green-pump", "red-buggy"]
    extra = prediction(("green-pump", "green-pump", "unknown", "unknown"), extra_on_face=True)
    extra = dataclasses.replace(extra, decks=(*extra.decks[:-1], "unknown"))
    outcome = evaluate_scene("s", scene(), extra, known_decks=known)
    assert outcome.exact and not outcome.exact_with_unknown
    assert outcome.exact_if_identity_right
    report = summarize([outcome])
    assert report["scene_exact_rate"] == 1.0
    assert report["scene_exact_rate_with_unknown"] == 0.0
    assert report["mean_abs_count_error"] == 0.0  # "unknown" is not a deck
    assert report["per_deck"]["unknown"]["mean_abs_error"] == 1.0  # but is still shown
    from blitzcam.models.metrics import exact_rate_by_threshold

    assert exact_rate_by_threshold([(scene(), extra)], [0.4], known_decks=known) == {0.4: 1.0}


def test_a_back_lying_on_top_of_a_face_up_card_is_a_back() -> None:
    # a labelled back over a face-up card's outline, counted right: no face-up card was
    # counted; a box on the same face-up card that is no labelled back still is one
    known = ["green-pump", "red-buggy"]
    truth = SceneTruth(
        corners=np.stack([box(0, 0), box(200, 200, 80, 120), box(215, 215)]),
        classes=np.array([0, 1, 0]),
        decks=("green-pump", None, "red-buggy"),
    )
    seen = ScenePrediction(
        corners=np.stack([box(0, 0), box(200, 200, 80, 120), box(215, 215)]),
        classes=np.array([0, 1, 0]),
        confidence=np.array([0.9, 0.8, 0.7]),
        decks=("green-pump", "unknown", "red-buggy"),
        counted=np.ones(3, bool),
    )
    outcome = evaluate_scene("s", truth, seen, known_decks=known)
    assert outcome.exact
    assert outcome.face_up_counted == 0
    on_the_face = ScenePrediction(
        corners=np.concatenate([seen.corners, box(190, 190, 20, 20)[None]]),
        classes=np.array([0, 1, 0, 0]),
        confidence=np.array([0.9, 0.8, 0.7, 0.6]),
        decks=(*seen.decks, "green-pump"),
        counted=np.ones(4, bool),
    )
    assert evaluate_scene("s", truth, on_the_face, known_decks=known).face_up_counted == 1


def test_a_back_on_a_face_up_card_boxed_askew_is_no_face_up_card_counted() -> None:
    # its box under IoU 0.5 with it, centred on the back where it lies on the face-up card:
    # "a face-up card counted as a deck", the mistake users must never see, though it was the
    # back counted right
    known = ["green-pump", "red-buggy"]
    truth = SceneTruth(
        corners=np.stack([box(200, 200, 80, 120), box(215, 215, 14, 20)]),
        classes=np.array([1, 0]),
        decks=(None, "red-buggy"),
    )
    askew = ScenePrediction(
        corners=np.stack([box(200, 200, 80, 120), box(220, 215, 24, 12)]),
        classes=np.array([1, 0]),
        confidence=np.array([0.8, 0.7]),
        decks=("unknown", "red-buggy"),
        counted=np.ones(2, bool),
    )
    outcome = evaluate_scene("s", truth, askew, known_decks=known)
    assert outcome.counted_correct["back"][0] == 0  # no match: the box is askew
    assert outcome.face_up_counted == 0


def test_nothing_to_measure_is_no_count_error_and_boxed_says_what_was_found() -> None:
    # an empty table: the mean count error said 0.000 where every rate said n/a
    empty = SceneTruth(corners=np.zeros((0, 4, 2)), classes=np.zeros(0, int), decks=())
    none = ScenePrediction(corners=np.zeros((0, 4, 2)), classes=np.zeros(0, int),
                           confidence=np.zeros(0), decks=(), counted=np.zeros(0, bool))  # fmt: skip
    report = summarize([evaluate_scene("s", empty, none, known_decks=["green-pump"])])
    assert np.isnan(report["mean_abs_count_error"])
    # mAP50 stops at 100/101 once one back is never boxed, however many more are missed:
    # "boxed" says how many were found at any confidence
    truth = SceneTruth(corners=np.stack([box(30 * i, 0) for i in range(10)]),
                       classes=np.zeros(10, int), decks=("green-pump",) * 10)  # fmt: skip
    reports = []
    for found in (9, 5):
        seen = ScenePrediction(corners=np.stack([box(30 * i, 0) for i in range(found)]),
                               classes=np.zeros(found, int), confidence=np.full(found, 0.9),
                               decks=("green-pump",) * found, counted=np.ones(found, bool))  # fmt: skip
        reports.append(summarize([evaluate_scene("s", truth, seen, known_decks=["green-pump"])]))
    assert [r["detector"]["back"]["boxed"] for r in reports] == [0.9, 0.5]
    assert reports[0]["detector"]["all"]["boxed"] == 0.9
    assert reports[0]["detector"]["back"]["mAP50"] == pytest.approx(91 / 101)


def test_the_decks_in_play_of_a_scene_are_the_known_decks_it_holds() -> None:
    from blitzcam.models.evaluation import scene_decks

    truth = SceneTruth(
        corners=np.stack([box(0, 0)] * 4),
        classes=np.array([0, 0, 1, 0]),
        decks=("red-buggy", "unknown:animal-3", "green-pump", "blue-plow"),  # the face is no back
        random_art=True,
    )
    names = ("green-pump", "red-buggy", "blue-plow", "house-deck")
    assert scene_decks(truth, names) == ("red-buggy", "blue-plow")  # in the profile's order


def test_a_wrong_deck_adds_its_own_error_not_a_zero_to_every_scene() -> None:
    # two scenes of two green pumps, each counted one short; then one of the two scenes also
    # counts a deck it does not hold: that mistake, as large as the mean, must not lower it (it
    # did when every scene added a zero for that deck). A mistake smaller than the mean still
    # lowers any mean: that is what a mean is.
    from blitzcam.models.metrics import ScenePrediction, SceneTruth

    def box(cx: float) -> np.ndarray:
        return np.array([[cx - 5, -5], [cx + 5, -5], [cx + 5, 5], [cx - 5, 5]], float)

    known = ["green-pump", "red-buggy", "blue-plow"]
    truth = SceneTruth(np.stack([box(0), box(30)]), np.array([0, 0]), ("green-pump",) * 2)

    def counted(*decks: str) -> ScenePrediction:
        n = len(decks)
        corners = np.stack([box(30 * i) for i in range(n)])
        return ScenePrediction(corners, np.zeros(n, int), np.full(n, 0.9), decks, np.ones(n, bool))

    short = [evaluate_scene(f"s{i}", truth, counted("green-pump"), known_decks=known) for i in (0, 1)]
    worse = [evaluate_scene("s0", truth, counted("green-pump", "red-buggy"), known_decks=known)]
    worst = [
        evaluate_scene("s0", truth, counted("green-pump", "red-buggy", "blue-plow"), known_decks=known)
    ]
    errors = [summarize(s)["mean_abs_count_error"] for s in (short, worse + short[1:], worst + short[1:])]
    assert errors[0] == 1.0  # one card off for the one deck on each table
    assert errors[0] <= errors[1] <= errors[2]


def test_two_boxes_on_one_face_up_card_are_one_card_counted() -> None:
    known = ["green-pump", "red-buggy"]
    one = prediction(("green-pump", "green-pump", "unknown", "unknown"), extra_on_face=True)
    two = ScenePrediction(  # a second, smaller box on the same face
        corners=np.concatenate([one.corners, box(195, 195, 12, 12)[None]]),
        classes=np.append(one.classes, 0),
        confidence=np.append(one.confidence, 0.45),
        decks=(*one.decks, "red-buggy"),
        counted=np.ones(len(one.classes) + 1, bool),
    )
    assert evaluate_scene("s", scene(), two, known_decks=known).face_up_counted == 1  # was 2


def test_a_counted_box_is_scored_though_a_more_confident_uncounted_one_lies_on_its_back() -> None:
    # two boxes on one back, only the less confident joined the pile: it took the back's place
    # in precision and recall, and in "had every box its back's deck", from the uncounted one
    truth = SceneTruth(corners=np.stack([box(0, 0)]), classes=np.array([0]), decks=("green-pump",))
    predicted = ScenePrediction(
        corners=np.stack([box(0, 0, 12, 11), box(0, 0)]), classes=np.array([0, 0]),
        confidence=np.array([0.30, 0.25]), decks=("unknown", "green-pump"),
        counted=np.array([False, True]),
    )
    outcome = evaluate_scene("s", truth, predicted, known_decks=["green-pump"])
    assert outcome.exact and outcome.exact_if_identity_right
    assert outcome.counted_correct["back"] == (1, 1)
    assert outcome.confusions == {("green-pump", "green-pump"): 1}
    report = summarize([outcome])
    assert report["detector"]["back"]["precision"] == report["detector"]["back"]["recall"] == 1.0


def test_the_exact_rate_is_sliced_by_what_scenes_were_made_under() -> None:
    import dataclasses

    known = ["green-pump", "red-buggy"]
    right = prediction(("green-pump", "green-pump", "unknown", "unknown"))
    named_wrong = prediction(("green-pump", "red-buggy", "unknown", "unknown"))  # identity's miss
    missed = dataclasses.replace(right, counted=np.array([True, False, True, True]))  # detector's
    dim, bright = {"light": "dim", "backs": "50-99"}, {"light": "bright", "backs": "100+"}
    outcomes = [
        evaluate_scene(name, dataclasses.replace(scene(), conditions=conditions), seen, known_decks=known)
        for name, conditions, seen in [
            ("a", bright, right), ("b", dim, named_wrong), ("c", dim, missed), ("d", dim, right),
            ("e", {}, named_wrong),  # a scene labelled otherwise: in no slice
        ]
    ]
    by_condition = summarize(outcomes)["exact_by_condition"]
    assert by_condition == {
        "backs": {
            "50-99": {"scenes": 3, "exact": 1, "exact_if_identity_right": 2},
            "100+": {"scenes": 1, "exact": 1, "exact_if_identity_right": 1},
        },
        "light": {
            "bright": {"scenes": 1, "exact": 1, "exact_if_identity_right": 1},
            "dim": {"scenes": 3, "exact": 1, "exact_if_identity_right": 2},
        },
    }
    assert list(by_condition["backs"]) == ["50-99", "100+"]  # by number, not spelling


def test_average_precision_reads_zeros_and_ones_as_wrong_and_right() -> None:
    # ~ on integers is no "not": [0, 1] gave 1.0 where [False, True] gives 0.5 (review)
    confidence = np.array([0.9, 0.8])
    assert average_precision(confidence, np.array([0, 1]), 1) == pytest.approx(
        average_precision(confidence, np.array([False, True]), 1)
    )


def test_labels_that_lie_on_few_of_the_backs_counted_are_said() -> None:
    # (a photo turned half a turn after it was labelled keeps its size: scored as it stood,
    # every box missed, and nothing said so)
    known = ["green-pump"]
    truth = SceneTruth(
        corners=np.stack([box(0, 0), box(30, 0), box(60, 0)]),
        classes=np.zeros(3, np.int64),
        decks=("green-pump",) * 3,
    )

    def found(*lefts: int, on: int = 0) -> ScenePrediction:
        """Backs at `lefts`, the first `on` of them on the labels' row, the others below it."""
        corners = [box(x, 0 if k < on else 300) for k, x in enumerate(lefts)]
        return ScenePrediction(
            corners=np.stack(corners), classes=np.zeros(len(lefts), np.int64),
            confidence=np.full(len(lefts), 0.9), decks=("green-pump",) * len(lefts),
            counted=np.ones(len(lefts), bool),
        )

    turned = evaluate_scene("turned.jpg", truth, found(0, 30, 60), known_decks=known)
    assert turned.exact and turned.labels_off  # its counts right, no box on a label
    assert summarize([turned])["labels_off_scenes"] == ["turned.jpg"]
    assert not evaluate_scene("s", truth, prediction_on(truth), known_decks=known).labels_off
    assert not evaluate_scene("few", truth, found(0, 30), known_decks=known).labels_off  # a miss
    # a box or two falls on a label all the same (a table turned is much like itself)
    one_in_six = found(0, *range(100, 600, 100), on=1)
    assert evaluate_scene("one", truth, one_in_six, known_decks=known).labels_off
    one_in_three = found(0, 100, 200, on=1)
    assert not evaluate_scene("one", truth, one_in_three, known_decks=known).labels_off


def prediction_on(truth: SceneTruth) -> ScenePrediction:
    n = len(truth.classes)
    return ScenePrediction(
        corners=truth.corners, classes=truth.classes, confidence=np.full(n, 0.9),
        decks=tuple(d or "unknown" for d in truth.decks), counted=np.ones(n, bool),
    )
