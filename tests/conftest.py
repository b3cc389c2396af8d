"""Shared fixtures. Tests never touch the user's caches; real-model fixtures load once."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from simulacra.settings import default_cache_dir

USER_CACHE = default_cache_dir()  # before the session points SIMULACRA_CACHE_DIR elsewhere


@pytest.fixture(scope="session", autouse=True)
def _interruptible():
    # A suite started in the background by a shell without job control inherits an ignored
    # SIGINT, and so would the commands it starts: their Ctrl-C tests would hang. (Handled,
    # not ignored, it is reset to the default in every child, where Python catches it.)
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session", autouse=True)
def _private_cache(tmp_path_factory):
    # Set before any Settings() is built: the replay and embedding caches live here.
    from simulacra.llm.resolve import embedded_model

    path = tmp_path_factory.mktemp("simulacra-cache")
    os.environ["SIMULACRA_CACHE_DIR"] = str(path)
    # The suite runs on SmolLM2 for speed, whatever else is installed; tests about the capable
    # model ask for it with the `capable_model` fixture.
    os.environ["SIMULACRA_MODEL"] = str(embedded_model())
    yield path


@pytest.fixture(scope="session")
def capable_model() -> Path:
    """The default capable model, assembled in the user's cache by scripts/install.sh."""
    from simulacra.llm import catalogue

    state = catalogue.status(catalogue.find("qwen2.5-coder-1.5b"), USER_CACHE)
    if not (state.installed and state.verified):
        pytest.skip("the capable model is not installed (scripts/install.sh installs it)")
    return state.path


@pytest.fixture
def settings():
    from simulacra.settings import Settings

    return Settings()


@pytest.fixture
def scripted():
    """A function building a model over the scripted backend: ``scripted({template: answer})``."""
    from simulacra.llm import open_model
    from simulacra.llm.scripted import ScriptedModel
    from simulacra.settings import Settings

    def build(scripts=None, log_dir: Path | None = None):
        settings = Settings()
        settings.llm.cache = False
        backend = ScriptedModel(scripts)
        model = open_model(settings.llm, completer=backend, log_dir=log_dir)
        return model  # model.completer is the ScriptedModel

    return build


@pytest.fixture(scope="session")
def real_backend():
    """llama.cpp with the embedded SmolLM2-135M (loads in a fraction of a second)."""
    from simulacra.llm.llama import LlamaCppModel
    from simulacra.llm.resolve import embedded_model
    from simulacra.settings import Settings

    return LlamaCppModel(embedded_model(), Settings().llm)


@pytest.fixture
def real_model(real_backend, tmp_path):
    from simulacra.llm import StructuredModel
    from simulacra.llm.calllog import CallLog
    from simulacra.settings import Settings

    return StructuredModel(real_backend, Settings().llm, CallLog(tmp_path / "calls.jsonl"))


@pytest.fixture(scope="session")
def real_embedder():
    """all-MiniLM-L6-v2 through sentence-transformers (importing torch takes seconds: once)."""
    from simulacra.embed import open_embedder
    from simulacra.settings import Settings

    embedder = open_embedder(Settings().embed, cache_dir=None)
    embedder.inner.model  # noqa: B018
    return embedder


class WordEmbedder:
    """A deterministic stand-in for logic tests: hashed bag of words, L2-normalised."""

    identity = "words"

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self.calls = 0

    def embed(self, texts):
        import hashlib

        import numpy as np

        self.calls += 1
        out = np.zeros((len(texts), self.dim), np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().replace(".", " ").replace(",", " ").split():
                out[row, int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)

    def embed_one(self, text):
        return self.embed([text])[0]


@pytest.fixture
def word_embedder():
    return WordEmbedder()


@pytest.fixture(scope="module")
def saved_run(tmp_path_factory) -> Path:
    """A small scripted run of smallville-3, made once per test module; tests change a copy
    (``run``), never this."""
    from hostile_helpers import make_run

    return make_run(tmp_path_factory.mktemp("saved") / "run")


@pytest.fixture
def run(saved_run, tmp_path) -> Path:
    """A copy of ``saved_run`` for one test to change."""
    import shutil

    copy = tmp_path / "run"
    shutil.copytree(saved_run, copy)
    return copy
