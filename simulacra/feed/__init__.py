"""The social feed: generative agents on an asynchronous thread board (the AI-DOL design).

Built on the memory core alone (``llm``, ``embed``, ``memory`` and :class:`GenerativeAgent`),
stepped by the town's engine (``sim/engine.py``, which knows nothing of towns either);
nothing here knows of towns.
"""

from simulacra.feed.agent import FeedAgent
from simulacra.feed.board import Board, FeedDecision, Message
from simulacra.feed.run import FeedRun, is_feed_run
from simulacra.feed.world import FeedWorld, load_world

__all__ = [
    "Board",
    "FeedDecision",
    "FeedAgent",
    "FeedRun",
    "FeedWorld",
    "Message",
    "is_feed_run",
    "load_world",
]
