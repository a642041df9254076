"""Backs of one deck in one frame are prints of the same drawing: decide them together.

A player's cards are spread as one sorted pile, so a frame holds a few dozen copies of each
deck's back. Read one at a time, a back that is half covered, blurred or cut a few pixels off
can fall under the "unknown" line or drift towards another deck. Grouping the frame's drawings
by their own similarity first (average-linkage agglomeration, stopped at a strict line so
two decks never merge) and deciding each group by its mean drawing lets the clear copies carry
the doubtful ones, and lets a foreign drawing's many copies agree that they match no deck.
Pure functions.
"""

from __future__ import annotations

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
        mean = vectors[members].mean(axis=0)
        out[members] = mean / max(float(np.linalg.norm(mean)), 1e-6)
    return out
