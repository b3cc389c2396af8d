"""Retrieval scoring, exactly as the paper defines it (§4.1).

score = a_recency * recency + a_importance * importance + a_relevance * relevance, where
recency decays exponentially per game hour since the memory was last accessed, importance is
the 1-10 rating, relevance is the cosine similarity of the memory to the query, and each is
min-max normalised to [0, 1] over the candidates before weighting.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulacra.settings import RetrievalSettings

# When every candidate has the same value a component cannot rank them; it then scores every
# candidate at the middle of the range (as the original code does), not at 0 or 1.
FLAT = 0.5


def normalise(values: np.ndarray) -> np.ndarray:
    """Min-max to [0, 1]; all-equal values (including a single one) become ``FLAT``."""
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        return values
    low, high = values.min(), values.max()
    if high - low <= 1e-12:
        return np.full_like(values, FLAT)
    return (values - low) / (high - low)


@dataclass(frozen=True)
class Scores:
    """Normalised components and the weighted total, one entry per candidate."""

    recency: np.ndarray
    importance: np.ndarray
    relevance: np.ndarray
    total: np.ndarray


def score(
    *,
    query: np.ndarray,
    vectors: np.ndarray,
    importance: np.ndarray,
    hours_since_access: np.ndarray,
    weights: RetrievalSettings,
) -> Scores:
    """Score every candidate. ``vectors`` rows and ``query`` are L2-normalised embeddings."""
    recency = normalise(weights.decay ** np.maximum(hours_since_access, 0.0))
    importance_n = normalise(importance)
    relevance = normalise(vectors @ query)
    total = (
        weights.recency_weight * recency
        + weights.importance_weight * importance_n
        + weights.relevance_weight * relevance
    )
    return Scores(recency, importance_n, relevance, total)


def top(total: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` highest totals, best first."""
    n = total.shape[0]
    if k >= n:
        return np.argsort(-total, kind="stable")
    part = np.argpartition(-total, k - 1)[:k]
    return part[np.argsort(-total[part], kind="stable")]
