"""simulacra: generative agents (Park et al., 2023) on a local model, fully offline."""

from simulacra.agent import GenerativeAgent, Reaction, Utterance
from simulacra.cognition.dialogue import Line
from simulacra.persona import Lifestyle, Persona
from simulacra.settings import Settings

__all__ = [
    "GenerativeAgent",
    "Lifestyle",
    "Line",
    "Persona",
    "Reaction",
    "Settings",
    "Utterance",
]
