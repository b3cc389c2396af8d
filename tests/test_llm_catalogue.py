"""The model catalogue on a tiny fake model split across three fake part packages."""

import hashlib
import importlib
import os
from pathlib import Path

import pytest

from simulacra.errors import UserError
from simulacra.llm import catalogue as cat
from simulacra.llm.resolve import resolve_model

PIECES = [b"GGUF" + b"a" * 3000, b"b" * 5000, b"c" * 100]


def fake_model(rank: int = 99, name: str = "tiny", sha: str | None = None) -> cat.CatalogueModel:
    whole = b"".join(PIECES)
    return cat.CatalogueModel(
        name=name,
        title=f"Tiny {name}",
        file=f"{name}.gguf",
        extra=name,
        licence="MIT",
        trained_context=512,
        rank=rank,
        good_for="tests",
        parts=cat.Parts(
            package=f"fake_{name}_part{{n}}",
            file="data/part{n:02d}.bin",
            count=3,
            distribution=f"fake-{name}-part{{n}}",
            version="1.0",
            sha256=tuple(hashlib.sha256(p).hexdigest() for p in PIECES),
        ),
        size=len(whole),
        sha256=sha or hashlib.sha256(whole).hexdigest(),
    )


@pytest.fixture
def site(tmp_path, monkeypatch):
    """A directory on sys.path where fake part packages are installed."""
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))

    def install(model: cat.CatalogueModel, parts=(1, 2, 3), pieces=PIECES) -> None:
        for n in parts:
            package = root / model.parts.package_of(n) / "data"
            package.mkdir(parents=True)
            (package.parent / "__init__.py").write_text("")
            (package / f"part{n:02d}.bin").write_bytes(pieces[n - 1])
        importlib.invalidate_caches()

    return install


def test_assembly_streams_the_parts_into_one_verified_file(site, tmp_path):
    model = fake_model()
    site(model)
    written = []
    path = cat.assemble(model, tmp_path / "cache", written.append)
    assert path.read_bytes() == b"".join(PIECES)
    assert sum(written) == model.size
    state = cat.status(model, tmp_path / "cache")
    assert state.installed and state.verified and state.path == path
    # Once verified, nothing is read again.
    written.clear()
    assert cat.assemble(model, tmp_path / "cache", written.append) == path
    assert written == []


def test_a_missing_part_is_a_one_line_error_naming_the_package(site, tmp_path):
    model = fake_model()
    site(model, parts=(1, 3))
    with pytest.raises(UserError) as e:
        cat.assemble(model, tmp_path / "cache")
    message = str(e.value)
    assert "fake-tiny-part2==1.0" in message and "\n" not in message
    assert not (tmp_path / "cache" / "models" / "tiny.gguf").exists()


def test_a_corrupted_part_is_named_and_nothing_is_left_behind(site, tmp_path):
    model = fake_model()
    site(model, pieces=[PIECES[0], b"X" * 5000, PIECES[2]])
    with pytest.raises(UserError) as e:
        cat.assemble(model, tmp_path / "cache")
    message = str(e.value)
    assert "fake-tiny-part2==1.0" in message and "SHA-256" in message and "\n" not in message
    assert list((tmp_path / "cache" / "models").iterdir()) == []


def test_a_wrong_whole_file_hash_is_refused(site, tmp_path):
    model = fake_model(sha="0" * 64)
    site(model)
    with pytest.raises(UserError, match="does not match its SHA-256"):
        cat.assemble(model, tmp_path / "cache")
    assert cat.status(model, tmp_path / "cache").path is None


def test_resolution_takes_the_most_capable_installed_model(site, tmp_path, monkeypatch):
    monkeypatch.delenv("SIMULACRA_MODEL", raising=False)
    strong, weak = fake_model(rank=50, name="strong"), fake_model(rank=5, name="weak")
    site(weak)
    models = (strong, weak)
    resolved = resolve_model(None, tmp_path / "none", cache_dir=tmp_path, catalogue=models)
    assert resolved.path.name == "weak.gguf"
    site(strong)
    resolved = resolve_model(None, tmp_path / "none", cache_dir=tmp_path, catalogue=models)
    assert resolved.path.name == "strong.gguf" and "Tiny strong" in resolved.source


def test_a_half_installed_model_is_an_error_not_a_silent_fallback(site, tmp_path, monkeypatch):
    monkeypatch.delenv("SIMULACRA_MODEL", raising=False)
    strong, weak = fake_model(rank=50, name="strong"), fake_model(rank=5, name="weak")
    site(weak)
    site(strong, parts=(1,))
    with pytest.raises(UserError, match="strong is incomplete"):
        resolve_model(None, tmp_path / "none", cache_dir=tmp_path, catalogue=(strong, weak))


def test_the_shipped_catalogue_is_complete():
    models = cat.catalogue()
    assert [m.name for m in models][-1] == "smollm2-135m"  # the weakest, the last resort
    for model in models:
        if not model.single_file:
            assert len(model.parts.sha256) == model.parts.count
            assert model.size and model.sha256 and model.extra
    pyproject = (Path(__file__).parents[1] / "pyproject.toml").read_text()
    for model in models:
        if model.extra:
            assert f'"{model.extra}" = [' in pyproject
            for n in range(1, model.parts.count + 1):
                assert f'"{model.parts.requirement(n)}"' in pyproject


@pytest.mark.real
def test_the_capable_model_is_the_default_once_installed(capable_model, monkeypatch):
    from conftest import USER_CACHE

    monkeypatch.delenv("SIMULACRA_MODEL")
    resolved = resolve_model(None, Path("/nonexistent"), cache_dir=USER_CACHE)
    assert resolved.path == capable_model
    assert "Qwen2.5-Coder-1.5B" in resolved.source


def test_models_list_shows_every_catalogue_model():
    from click.testing import CliRunner

    from simulacra.cli import cli

    done = CliRunner().invoke(cli, ["models", "list"])
    assert done.exit_code == 0, done.output
    for title in ("Qwen2.5-Coder-1.5B", "Qwen2.5-Coder-0.5B", "SmolLM2-135M"):
        assert title in " ".join(done.output.split())
    assert "simulacra[qwen-1-5b]" in done.output


# -- issue 33, item 11: the .verified marker looks at the file, cheaply ---------------------


def _damage(path: Path, at: int, *, keep_mtime: bool) -> None:
    """One byte changed in place: the size stays, and the mtime too when asked."""
    info = path.stat()
    with path.open("r+b") as f:
        f.seek(at)
        byte = f.read(1)
        f.seek(at)
        f.write(bytes([byte[0] ^ 0xFF]))
    if keep_mtime:
        os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    else:
        os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000_000))


@pytest.mark.parametrize("keep_mtime", [True, False])
@pytest.mark.parametrize("where", ["head", "tail"])
def test_a_model_damaged_in_place_with_the_same_size_is_not_verified(
    site, tmp_path, monkeypatch, where, keep_mtime
):
    monkeypatch.setattr(cat, "CHUNK", 1024)  # "the first and last MiB", on a file of 8 KB
    model = fake_model()
    site(model)
    cache = tmp_path / "cache"
    path = cat.assemble(model, cache)
    _damage(path, 100 if where == "head" else model.size - 100, keep_mtime=keep_mtime)
    assert not cat.status(model, cache).verified
    # Assembling again puts the right bytes back, and verifies them.
    assert cat.assemble(model, cache).read_bytes() == b"".join(PIECES)
    assert cat.status(model, cache).verified


def test_a_touched_model_is_hashed_whole_once_and_stays_verified(site, tmp_path, monkeypatch):
    model = fake_model()
    site(model)
    cache = tmp_path / "cache"
    path = cat.assemble(model, cache)
    info = path.stat()
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000_000))  # copied, say
    hashed = []
    whole = cat._whole_hash
    monkeypatch.setattr(cat, "_whole_hash", lambda p: hashed.append(p) or whole(p))
    assert cat.status(model, cache).verified
    assert cat.status(model, cache).verified
    assert hashed == [path]  # the marker now records the new mtime


def test_a_marker_of_an_older_simulacra_is_checked_against_the_whole_file(site, tmp_path):
    model = fake_model()
    site(model)
    cache = tmp_path / "cache"
    path = cat.assemble(model, cache)
    marker = path.with_name(path.name + ".verified")
    marker.write_text(f"{model.sha256} {model.size}\n", encoding="ascii")  # size only
    _damage(path, 4000, keep_mtime=True)
    assert not cat.status(model, cache).verified
    _damage(path, 4000, keep_mtime=True)  # undone
    assert cat.status(model, cache).verified
    assert len(marker.read_text().split()) == 4


@pytest.mark.parametrize("marker", [b"\xff\xfe garbage", b"", b"\x00" * 10])
def test_a_damaged_marker_means_not_verified(site, tmp_path, marker):
    model = fake_model()
    site(model)
    cache = tmp_path / "cache"
    path = cat.assemble(model, cache)
    path.with_name(path.name + ".verified").write_bytes(marker)
    assert not cat.status(model, cache).verified
    assert cat.assemble(model, cache) == path and cat.status(model, cache).verified
