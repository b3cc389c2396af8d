"""Retrieval scoring against hand-computed values (paper §4.1)."""

import numpy as np
import pytest

from simulacra.memory.retrieval import FLAT, normalise, score, top
from simulacra.settings import RetrievalSettings


def test_normalise_maps_to_the_unit_range():
    assert np.allclose(normalise(np.array([2.0, 4.0, 6.0])), [0.0, 0.5, 1.0])


def test_all_equal_values_and_a_single_value_are_flat():
    assert np.allclose(normalise(np.array([3.0, 3.0, 3.0])), [FLAT] * 3)
    assert np.allclose(normalise(np.array([7.0])), [FLAT])
    assert normalise(np.array([])).size == 0


def test_each_component_by_hand():
    weights = RetrievalSettings()  # paper: all weights 1, decay 0.995 per game hour
    query = np.array([1.0, 0.0])
    vectors = np.array([[1.0, 0.0], [0.0, 1.0], [np.sqrt(0.5), np.sqrt(0.5)]])
    importance = np.array([2.0, 8.0, 5.0])
    hours = np.array([0.0, 10.0, 100.0])
    s = score(
        query=query,
        vectors=vectors,
        importance=importance,
        hours_since_access=hours,
        weights=weights,
    )

    raw_recency = 0.995**hours  # 1, 0.95111, 0.60577
    expected_recency = (raw_recency - raw_recency.min()) / (raw_recency.max() - raw_recency.min())
    assert np.allclose(s.recency, expected_recency)
    assert np.allclose(s.recency, [1.0, 0.876, 0.0], atol=1e-3)
    assert np.allclose(s.importance, [0.0, 1.0, 0.5])
    assert np.allclose(s.relevance, [1.0, 0.0, np.sqrt(0.5)])
    assert np.allclose(s.total, s.recency + s.importance + s.relevance)


def test_weights_scale_their_component():
    weights = RetrievalSettings(recency_weight=0.5, importance_weight=2.0, relevance_weight=3.0)
    s = score(
        query=np.array([1.0, 0.0]),
        vectors=np.array([[1.0, 0.0], [0.0, 1.0]]),
        importance=np.array([1.0, 10.0]),
        hours_since_access=np.array([5.0, 0.0]),
        weights=weights,
    )
    assert np.allclose(s.total, [0.5 * 0 + 2 * 0 + 3 * 1, 0.5 * 1 + 2 * 1 + 3 * 0])


def test_a_single_memory_scores_flat_on_every_component():
    s = score(
        query=np.array([1.0, 0.0]),
        vectors=np.array([[0.0, 1.0]]),
        importance=np.array([4.0]),
        hours_since_access=np.array([3.0]),
        weights=RetrievalSettings(),
    )
    assert np.allclose([s.recency[0], s.importance[0], s.relevance[0]], [FLAT] * 3)
    assert s.total[0] == pytest.approx(3 * FLAT)


def test_reverie_preset_is_available_by_name():
    preset = RetrievalSettings.preset("reverie")
    assert (preset.recency_weight, preset.relevance_weight, preset.importance_weight) == (0.5, 3, 2)


def test_top_orders_best_first():
    totals = np.array([0.1, 0.9, 0.5, 0.7])
    assert list(top(totals, 2)) == [1, 3]
    assert list(top(totals, 10)) == [1, 3, 2, 0]
