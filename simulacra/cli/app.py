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


def model_options(command=None, *, seed: bool = True):
    """--model, --n-ctx, --threads, --gpu-layers, --seed, --no-cache, --server, --server-model,
    written into the settings.

    ``seed=False`` leaves --seed to the command (``agent new`` uses it for seed memories).
    """
    if command is None:
        return functools.partial(model_options, seed=seed)

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        llm = click.get_current_context().obj.llm
        options = {
            "--model": ("model", kwargs.pop("model")),
            "--n-ctx": ("n_ctx", kwargs.pop("n_ctx")),
            "--threads": ("n_threads", kwargs.pop("threads")),
            "--gpu-layers": ("n_gpu_layers", kwargs.pop("gpu_layers")),
            "--seed": ("seed", kwargs.pop("sampling_seed", None)),
            "--no-cache": ("cache", False if kwargs.pop("no_cache") else None),
            "--server": ("server", kwargs.pop("server")),
            "--server-model": ("server_model", kwargs.pop("server_model")),
        }
        for option, (name, value) in options.items():
            if value is not None:
                try:
                    setattr(llm, name, value)
                except ValidationError as e:
                    raise UserError(e.errors()[0]["msg"], field=option) from None
        if llm.server:
            from simulacra.llm.server import base_url

            base_url(llm.server)  # a malformed URL fails here, before anything is written
        return command(*args, **kwargs)

    decorators = [
        click.option(
            "--model",
            type=click.Path(dir_okay=False, path_type=Path),
            help="GGUF file. Default: $SIMULACRA_MODEL, a .gguf in models/, the most capable"
            " installed catalogue model (`simulacra models list`), the embedded SmolLM2.",
        ),
        click.option("--n-ctx", type=int, help="Context window in tokens."),
        click.option("--threads", type=int, help="CPU threads for llama.cpp."),
        click.option("--gpu-layers", type=int, help="Layers to offload to a GPU (-1: all)."),
        click.option("--no-cache", is_flag=True, help="Ask the model even for recorded answers."),
        click.option(
            "--server",
            metavar="URL",
            help="Use the OpenAI-compatible model server at URL (llama-server, vLLM) instead "
            "of llama.cpp in this process, e.g. http://127.0.0.1:8080.",
        ),
        click.option(
            "--server-model",
            metavar="NAME",
            help="Model to ask the server for (default: its first).",
        ),
    ]
    if seed:
        decorators.append(click.option("--seed", "sampling_seed", type=int, help="Sampling seed."))
    for decorate in reversed(decorators):
        wrapper = decorate(wrapper)
    return wrapper


def vector_options(command):
    """--chroma URL, written into the settings: memory vectors on a Chroma server."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        url = kwargs.pop("chroma")
        if url is not None:
            from simulacra.memory.vectors import server_address

            server_address(url)  # a malformed URL fails here, before anything is written
            click.get_current_context().obj.vectors.server = url
        return command(*args, **kwargs)

    return click.option(
        "--chroma",
        metavar="URL",
        help="Keep memory vectors on the Chroma server at URL (`chroma run`) instead of "
        "embedded on disk, e.g. http://127.0.0.1:8000.",
    )(wrapper)


def register() -> None:
    # Each command group registers itself on import.
    from simulacra.cli import (
        agent_commands,  # noqa: F401
        catalogue_commands,  # noqa: F401
        doctor_commands,  # noqa: F401
        eval_commands,  # noqa: F401
        feed_commands,  # noqa: F401
        play_commands,  # noqa: F401
        prompt_commands,  # noqa: F401
        sim_commands,  # noqa: F401
        stats_commands,  # noqa: F401
        view_commands,  # noqa: F401
        world_commands,  # noqa: F401
    )


register()
