"""The memory stream: records, durable storage, retrieval scoring, importance, reflection.

Knows nothing of towns or maps: the same memory works for any world (a social feed too).
"""

from simulacra.memory.record import Kind, MemoryRecord, NewMemory
from simulacra.memory.store import MemoryStore
from simulacra.memory.stream import MemoryStream, Retrieved

__all__ = ["Kind", "MemoryRecord", "MemoryStore", "MemoryStream", "NewMemory", "Retrieved"]
