"""Backs of one deck in one frame are prints of the same drawing: decide them together.

A player's cards are spread as one sorted pile, so a frame holds a few dozen copies of each
deck's back. Read one at a time, a back that is half covered, blurred or cut a few pixels off
can fall under the "unknown" line or drift towards another deck. Grouping the frame's drawings
by their own similarity first (average-linkage agglomeration, stopped at a strict line so
two decks' groups rarely merge) and deciding each group by its mean drawing lets the clear
copies carry the doubtful ones, and lets a foreign drawing's many copies agree that they match
no deck. A deck's most covered copies can still form a group of their own; `merge_same_deck`
joins groups that are nearest the same deck and still alike. A back the detector doubts (under
the counting line) is not grouped, so it cannot sway a decision, but `join_groups` lets one whose
drawing is a close copy of a counted group's join it. Pure functions.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def scene_groups(vectors: np.ndarray, link: float) -> np.ndarray:
    """(n, dim) unit vectors -> (n,) group label of each: average-linkage agglomeration that
    merges while two groups' mean pairwise cosine similarity is at least `link`.

    Labels are the index of one member of each group (not consecutive).
    """
    n = len(vectors)
    labels = np.arange(n)
    if n < 2:
        return labels
    vectors = np.asarray(vectors, np.float64)
    total = vectors @ vectors.T  # summed pairwise similarity between groups
    np.fill_diagonal(total, -np.inf)
    mean = total.copy()  # mean pairwise similarity between groups; -inf for merged-away rows
    size = np.ones(n)
    alive = np.ones(n, bool)
    for _ in range(n - 1):
        i, j = np.unravel_index(int(np.argmax(mean)), mean.shape)
        if not mean[i, j] >= link:
            break
        total[i] += total[j]
        total[:, i] = total[i]
        total[i, i] = -np.inf
        size[i] += size[j]
        alive[j] = False
        mean[i] = np.where(alive, total[i] / (size[i] * size), -np.inf)
        mean[i, i] = -np.inf
        mean[:, i] = mean[i]
        mean[j] = -np.inf
        mean[:, j] = -np.inf
        labels[labels == j] = i
    return labels


def group_means(vectors: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Each row replaced by the unit-length mean of its group's rows."""
    out = np.empty_like(vectors)
    for label in np.unique(labels):
        members = labels == label
        out[members] = _unit_mean(vectors[members])
    return out


def merge_same_deck(
    vectors: np.ndarray,
    labels: np.ndarray,
    nearest_deck: Callable[[np.ndarray], np.ndarray],
    link: float,
) -> np.ndarray:
    """Groups that are nearest the same deck and whose mean drawings are at least `link` alike
    become one (the most alike pair first, means recomputed after each merge).

    A deck's pile in one frame is one player's cards, but its blurred or half-covered copies can
    form a group of their own whose mean falls under the unknown line; beside the clear copies'
    group, nearest the same deck and still alike, they are the same pile. `nearest_deck` maps
    (g, dim) unit means to each one's nearest deck index.
    """
    labels = np.array(labels, copy=True)
    while True:
        ids = np.unique(labels)
        if len(ids) < 2:
            return labels
        means = np.stack([_unit_mean(vectors[labels == g]) for g in ids])
        deck = np.asarray(nearest_deck(means))
        alike = means @ means.T
        alike[deck[:, None] != deck[None, :]] = -np.inf
        np.fill_diagonal(alike, -np.inf)
        i, j = np.unravel_index(int(np.argmax(alike)), alike.shape)
        if not alike[i, j] >= link:
            return labels
        labels[labels == ids[j]] = ids[i]


def join_groups(
    doubted: np.ndarray, vectors: np.ndarray, labels: np.ndarray, alike: float | np.ndarray
) -> np.ndarray:
    """(k, dim) unit drawings -> (k,) the label of the group of `vectors` (grouped by `labels`)
    whose unit mean drawing each is most alike, or -1 where none is at least `alike` (one line,
    or (k,) lines, one per drawing).
    """
    joined = np.full(len(doubted), -1, np.int64)
    if not len(doubted) or not len(vectors):
        return joined
    ids, alikeness = alikeness_to_groups(doubted, vectors, labels)
    best = alikeness.argmax(axis=1)
    sure = alikeness[np.arange(len(doubted)), best] >= alike
    joined[sure] = ids[best[sure]]
    return joined


def alikeness_to_groups(
    drawings: np.ndarray, vectors: np.ndarray, labels: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(k, dim) unit drawings -> the group labels of `vectors` (grouped by `labels`), sorted,
    and (k, groups) each drawing's cosine similarity to each group's unit mean drawing."""
    ids = np.unique(labels)
    means = np.stack([_unit_mean(vectors[labels == g]) for g in ids])
    return ids, np.asarray(drawings, np.float64) @ means.T


def _unit_mean(rows: np.ndarray) -> np.ndarray:
    mean = rows.mean(axis=0)
    return mean / max(float(np.linalg.norm(mean)), 1e-6)
