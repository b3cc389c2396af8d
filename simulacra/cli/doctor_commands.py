"""`simulacra doctor`: the model, embedder and vector store in use, each timed on one call."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import click

from simulacra.cli.app import cli, model_options, vector_options
from simulacra.cli.console import console
from simulacra.llm import resolve_model
from simulacra.llm.templates import find_template
from simulacra.settings import Settings


def _versions(*packages: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for name in packages:
        try:
            found.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            found.append(f"{name} (not installed)")
    return " · ".join(found)


@cli.command()
@model_options
@vector_options
@click.pass_obj
def doctor(settings: Settings) -> None:
    """Show the model, embedder and vector store in use, then time one call of each."""
    from simulacra.embed import open_embedder
    from simulacra.llm.structured import StructuredModel
    from simulacra.memory.vectors import VectorStore

    backend = _doctor_backend(settings)
    embedder = open_embedder(settings.embed, cache_dir=None)
    console.print(f"embedder   {embedder.identity}  {embedder.inner.model_dir}")
    console.print(
        f"           {_versions('sentence-transformers', 'torch')} · {settings.embed.device}"
    )
    where = settings.vectors.server or "embedded"
    console.print(f"vectors    {_versions('chromadb')} · {where} · telemetry off")
    cache = "on" if settings.llm.cache else "off"
    console.print(f"cache      replay {cache} · {settings.llm.cache_dir}")

    # The checks bypass the replay cache so the timings are real.
    model = StructuredModel(backend, settings.llm, retries=0)
    template = find_template("importance")
    start = time.perf_counter()
    answer = template.ask_example(model)
    entry = model.log.last
    console.print(
        f"check      structured call ({template.name}): {answer.model_dump_json(by_alias=True)} in "
        f"{time.perf_counter() - start:.2f} s ({entry['prompt_tokens']} prompt tokens, "
        f"{entry['generated_tokens']} generated)"
    )
    start = time.perf_counter()
    embedder.inner.model  # noqa: B018 - load, timed apart from the embedding itself
    loaded = time.perf_counter() - start
    start = time.perf_counter()
    vector = embedder.embed_one("Isabella Rodriguez is opening Hobbs Cafe")
    console.print(
        f"           embedding: {vector.shape[0]} dimensions in {time.perf_counter() - start:.3f} s"
        f" (model loaded in {loaded:.1f} s)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        namespace = f"doctor{os.getpid()}"
        vectors = VectorStore(
            Path(tmp), server=settings.vectors.server, namespace=namespace
        ).collection("doctor")
        vectors.upsert([1], vector[None, :])
        ((found, similarity),) = vectors.nearest(vector, 1)
        vectors.drop()
        console.print(
            f"           chroma round trip: id {found}, similarity {similarity:.3f}"
            f" in {time.perf_counter() - start:.2f} s"
        )
    console.print("ok")


def _doctor_backend(settings: Settings):
    """The backend in use, described; loaded (or asked) so its timing is apart from the call."""
    start = time.perf_counter()
    if settings.llm.server:
        from simulacra.llm.server import ServerModel

        backend = ServerModel(settings.llm.server, settings.llm)
        name = backend.model
        console.print(f"model      {name}  [server {backend.url}]")
        seconds = time.perf_counter() - start
        console.print(f"           OpenAI-compatible chat API · answered in {seconds:.2f} s")
        return backend
    from simulacra.llm.llama import LlamaCppModel

    resolved = resolve_model(settings.llm.model, cache_dir=settings.llm.cache_dir)
    backend = LlamaCppModel(resolved.path, settings.llm)
    info = backend.info
    load_s = time.perf_counter() - start
    console.print(f"model      {info.name}  [{resolved.source}]")
    console.print(f"           {info.path}")
    console.print(
        f"           llama-cpp-python {info.llama_cpp_version} · n_ctx {info.n_ctx}"
        f" (trained {info.n_ctx_train or '?'}) · {info.n_threads} threads"
        f" · {info.n_gpu_layers} GPU layers · chat template {info.chat_template}"
        f" · loaded in {load_s:.2f} s"
    )
    return backend
