"""Embeddings for memory relevance: a local sentence-transformers model with a text-hash cache."""

from simulacra.embed.embedder import (
    CachedEmbedder,
    Embedder,
    SentenceTransformerEmbedder,
    open_embedder,
)

__all__ = ["CachedEmbedder", "Embedder", "SentenceTransformerEmbedder", "open_embedder"]
