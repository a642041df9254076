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
drawing is a close copy of a counted group's join it. Two look-alike decks' copies merged into
one pile are parted again by `look_alike_part`. Pure functions.
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
        out[members] = unit_mean(vectors[members])
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
        means = np.stack([unit_mean(vectors[labels == g]) for g in ids])
        deck = np.asarray(nearest_deck(means))
        alike = means @ means.T
        alike[deck[:, None] != deck[None, :]] = -np.inf
        np.fill_diagonal(alike, -np.inf)
        i, j = np.unravel_index(int(np.argmax(alike)), alike.shape)
        if not alike[i, j] >= link:
            return labels
        labels[labels == ids[j]] = ids[i]


def look_alike_part(
    vectors: np.ndarray,
    own_sims: np.ndarray,
    deck: int,
    other: int,
    similarity: Callable[[np.ndarray], np.ndarray],
    *,
    parts_alike: float,
    rounds: int = 20,
) -> np.ndarray | None:
    """The members of a pile decided as `deck` that are copies of its look-alike `other`: a
    (n,) mask, or None where the pile is not two decks' copies.

    Two enrolled designs in one ink can read so alike that their piles merge (or group as one)
    and even `other`'s copies read nearer `deck`'s reference; yet each design's copies are far
    more alike to each other than to the other's (on enrollment's choice set 0.59-0.97 within,
    most over 0.8, and 0.29-0.75 across). The members, first parted by which of the two
    references each reads nearer, are parted again by two-means on their own drawings; the two
    parts are two decks when their mean drawings are less than `parts_alike` alike, and the
    part that is `other`'s is the one whose taking `other` gives the larger summed similarity.
    A pile whose every member reads nearer `deck` is never parted. `vectors` (n, dim) unit
    drawings, `own_sims` (n, decks) each member's own similarity to every deck, `similarity`
    (g, dim) unit means -> (g, decks).
    """
    part = own_sims[:, other] > own_sims[:, deck]
    for _ in range(rounds):
        if part.all() or not part.any():
            return None
        means = np.stack([unit_mean(vectors[~part]), unit_mean(vectors[part])])
        again = vectors @ means[1] > vectors @ means[0]
        if (again == part).all():
            break
        part = again
    else:  # still moving: the members do not fall into two parts
        return None
    if not float(means[0] @ means[1]) < parts_alike:
        return None
    sims = similarity(means)
    as_read = sims[0, deck] + sims[1, other]
    return part if as_read >= sims[0, other] + sims[1, deck] else ~part


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
    means = np.stack([unit_mean(vectors[labels == g]) for g in ids])
    return ids, np.asarray(drawings, np.float64) @ means.T


def unit_mean(rows: np.ndarray) -> np.ndarray:
    """The unit-length mean of (n, dim) rows (a group's mean drawing)."""
    mean = rows.mean(axis=0)
    return mean / max(float(np.linalg.norm(mean)), 1e-6)
