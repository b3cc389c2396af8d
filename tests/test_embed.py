"""The real embedder (all-MiniLM-L6-v2) and its text-hash cache."""

import numpy as np
import pytest

from simulacra.embed import CachedEmbedder

pytestmark = pytest.mark.real


def test_embeddings_are_normalised_rows(real_embedder):
    vectors = real_embedder.embed(["Klaus is writing a paper", "Maria is studying physics"])
    assert vectors.shape == (2, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_related_sentences_are_closer(real_embedder):
    a, b, c = real_embedder.embed(
        ["a research paper on gentrification", "studying urban neighbourhoods", "a cup of tea"]
    )
    assert a @ b > a @ c


def test_only_new_texts_reach_the_model_and_the_cache_persists(real_embedder, tmp_path):
    cache = CachedEmbedder(real_embedder.inner, tmp_path / "emb.sqlite")
    first = cache.embed(["one", "two", "one"])
    assert cache.misses == 2
    cache.embed(["two", "three"])
    assert cache.misses == 3
    reopened = CachedEmbedder(real_embedder.inner, tmp_path / "emb.sqlite")
    again = reopened.embed(["one", "two"])
    assert reopened.misses == 0
    assert np.allclose(again, first[:2])


@pytest.mark.parametrize(
    ("activity", "fitting"),
    [
        ("brewing the first pot of coffee", {"coffee", "drink", "cook", "serve"}),
        ("having breakfast", {"eat", "cook"}),
        ("attending his sociology lecture", {"study", "read", "write", "teach"}),
        ("taking a shower", {"wash"}),
        ("writing about the impact of gentrification", {"write"}),  # "garden" by the word alone
        ("typing on a laptop", {"computer", "write", "work"}),
        ("watching a TV show", {"television"}),
    ],
)
def test_a_bubble_s_emoji_is_the_word_nearest_the_activity(real_embedder, activity, fitting):
    """The event's emoji word, once the 1.5B's ("sleep" over someone decorating tables), is
    the embedding model's (the eval's emoji cases, stop 86)."""
    from simulacra.cognition.emoji import EMOJI, EmojiByMeaning, word_of

    shown = EmojiByMeaning(real_embedder)(activity)
    assert shown in EMOJI.values() and word_of(shown) in fitting
