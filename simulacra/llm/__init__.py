"""Language models: the interface cognition uses, the llama.cpp backend and its wrappers."""

from __future__ import annotations

from pathlib import Path

from simulacra.llm.calllog import CALLS_FILE, CallLog
from simulacra.llm.completion import Completer
from simulacra.llm.interface import LanguageModel, ModelOutputError, Prompt
from simulacra.llm.replay import ReplayCache
from simulacra.llm.resolve import ResolvedModel, resolve_model
from simulacra.llm.structured import StructuredModel
from simulacra.settings import LLMSettings

__all__ = [
    "CALLS_FILE",
    "CallLog",
    "LanguageModel",
    "ModelOutputError",
    "Prompt",
    "ResolvedModel",
    "StructuredModel",
    "open_model",
    "resolve_model",
]

REPLAY_FILE = "llm-replay.sqlite"


def open_model(
    settings: LLMSettings,
    *,
    log_dir: Path | None = None,
    retries: int = 1,
    completer: Completer | None = None,
    agents: int = 1,
) -> StructuredModel:
    """The product's model stack: llama.cpp in this process, or the model server of
    ``settings.server``, wrapped in the replay cache (unless turned off), with every call
    written to ``log_dir/calls.jsonl``. Safe to call from several threads at once.

    ``completer`` replaces the backend (tests pass the scripted model here); ``agents``, how
    many agents will call it, sizes its saved KV states (``LLMSettings.kv_cache_mb_for``).
    """
    if completer is None and settings.server:
        from simulacra.llm.server import ServerModel

        completer = ServerModel(settings.server, settings)
        # A server answers under its own grammar converter: give a garbled answer as many
        # tries as a failed request (``retries=0`` still means exactly one call).
        retries = max(retries, settings.server_retries) if retries else 0
    elif completer is None:
        from simulacra.llm.llama import LlamaCppModel

        resolved = resolve_model(settings.model, cache_dir=settings.cache_dir)
        completer = LlamaCppModel(resolved.path, settings, agents=agents)
    if settings.cache:
        completer = ReplayCache(completer, settings.cache_dir / REPLAY_FILE)
    log = CallLog(log_dir / CALLS_FILE if log_dir is not None else None)
    return StructuredModel(completer, settings, log, retries=retries)
