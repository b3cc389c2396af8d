"""The root command group and the options shared by subcommands."""

from __future__ import annotations

import functools
from pathlib import Path

import click
from pydantic import ValidationError

from simulacra.errors import UserError
from simulacra.settings import Settings


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option(
    "--config",
    type=click.Path(dir_okay=False, path_type=Path),
    help="TOML file overriding settings (sections as in simulacra/settings.py).",
)
@click.version_option(package_name="simulacra")
@click.pass_context
def cli(ctx: click.Context, config: Path | None) -> None:
    """Generative agents that remember, reflect, plan and talk, on a local model.

    Everything runs offline: llama.cpp for the language model, sentence-transformers for
    embeddings, Chroma for vectors.
    """
    ctx.obj = Settings.load(config)


def model_options(command):
    """--model, --n-ctx, --threads, --gpu-layers, --seed, --no-cache: written into the settings."""

    @click.option(
        "--model",
        type=click.Path(dir_okay=False, path_type=Path),
        help="GGUF file. Default: $SIMULACRA_MODEL, a .gguf in models/, the embedded SmolLM2.",
    )
    @click.option("--n-ctx", type=int, help="Context window in tokens.")
    @click.option("--threads", type=int, help="CPU threads for llama.cpp.")
    @click.option("--gpu-layers", type=int, help="Layers to offload to a GPU (-1: all).")
    @click.option("--seed", type=int, help="Sampling seed.")
    @click.option(
        "--no-cache", is_flag=True, help="Ask the model even for answers already recorded."
    )
    @functools.wraps(command)
    def wrapper(*args, model, n_ctx, threads, gpu_layers, seed, no_cache, **kwargs):
        llm = click.get_current_context().obj.llm
        for option, name, value in (
            ("--model", "model", model),
            ("--n-ctx", "n_ctx", n_ctx),
            ("--threads", "n_threads", threads),
            ("--gpu-layers", "n_gpu_layers", gpu_layers),
            ("--seed", "seed", seed),
            ("--no-cache", "cache", False if no_cache else None),
        ):
            if value is not None:
                try:
                    setattr(llm, name, value)
                except ValidationError as e:
                    raise UserError(e.errors()[0]["msg"], field=option) from None
        return command(*args, **kwargs)

    return wrapper


def register() -> None:
    from simulacra.cli import model_commands  # noqa: F401


register()
