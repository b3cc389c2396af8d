from pathlib import Path

import pytest

from simulacra.errors import UserError
from simulacra.llm import catalogue
from simulacra.llm.resolve import EMBEDDED_FILE, resolve_model


def gguf(path: Path) -> Path:
    path.write_bytes(b"GGUF" + b"\0" * 60)
    return path


def test_explicit_path_wins_over_everything(tmp_path, monkeypatch):
    explicit = gguf(tmp_path / "explicit.gguf")
    monkeypatch.setenv("SIMULACRA_MODEL", str(gguf(tmp_path / "env.gguf")))
    models = tmp_path / "models"
    models.mkdir()
    gguf(models / "dir.gguf")
    assert resolve_model(explicit, models).path == explicit.resolve()


def test_environment_comes_second(tmp_path, monkeypatch):
    env = gguf(tmp_path / "env.gguf")
    monkeypatch.setenv("SIMULACRA_MODEL", str(env))
    models = tmp_path / "models"
    models.mkdir()
    gguf(models / "dir.gguf")
    resolved = resolve_model(None, models)
    assert resolved.path == env.resolve()
    assert resolved.source == "SIMULACRA_MODEL"


def test_models_directory_comes_third(tmp_path, monkeypatch):
    monkeypatch.delenv("SIMULACRA_MODEL", raising=False)
    models = tmp_path / "models"
    models.mkdir()
    first = gguf(models / "a-first.gguf")
    gguf(models / "b-second.gguf")
    resolved = resolve_model(None, models)
    assert resolved.path == first.resolve()
    assert "first of 2" in resolved.source


def test_embedded_model_is_the_default(tmp_path, monkeypatch):
    monkeypatch.delenv("SIMULACRA_MODEL", raising=False)
    only_embedded = (catalogue.find("smollm2-135m"),)
    resolved = resolve_model(None, tmp_path / "no-models-here", catalogue=only_embedded)
    assert resolved.path.name == EMBEDDED_FILE
    assert resolved.source.startswith("embedded")


def test_missing_file_is_a_one_line_user_error(tmp_path):
    with pytest.raises(UserError) as e:
        resolve_model(tmp_path / "nope.gguf")
    message = str(e.value)
    assert "nope.gguf" in message and "--model" in message and "\n" not in message


def test_a_file_that_is_not_gguf_is_refused(tmp_path, monkeypatch):
    fake = tmp_path / "weights.gguf"
    fake.write_text("not a model")
    monkeypatch.setenv("SIMULACRA_MODEL", str(fake))
    with pytest.raises(UserError, match="not a GGUF file"):
        resolve_model(None, tmp_path)
