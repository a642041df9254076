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
    size = np.ones(n)
    np.fill_diagonal(total, -np.inf)
    alive = np.ones(n, bool)
    while True:
        mean = total / np.outer(size, size)
        mean[~alive] = -np.inf
        mean[:, ~alive] = -np.inf
        i, j = np.unravel_index(int(np.argmax(mean)), mean.shape)
        if mean[i, j] < link:
            return labels
        total[i] += total[j]
        total[:, i] += total[:, j]
        total[i, i] = -np.inf
        size[i] += size[j]
        alive[j] = False
        labels[labels == j] = i


def group_means(vectors: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Each row replaced by the unit-length mean of its group's rows."""
    out = np.empty_like(vectors)
    for label in np.unique(labels):
        members = labels == label
        mean = vectors[members].mean(axis=0)
        out[members] = mean / max(float(np.linalg.norm(mean)), 1e-6)
    return out
