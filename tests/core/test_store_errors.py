"""A run store that cannot be used ends in one clear line and exit code 2, never a
traceback, and the file is left byte for byte as it was; a store is private to its user."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import pytest
import typer
import yaml
from typer.testing import CliRunner

from codeloop.agent.snapshots import init_repo
from codeloop.commands import agent_cmd
from codeloop.store import RunStore, StoreError


def _app() -> typer.Typer:
    app = typer.Typer()
    agent_cmd.register(app)

    @app.command("noop")
    def _noop() -> None:  # a second command keeps typer from collapsing the group
        """Nothing."""

    return app


def _agent(tmp_path: Path, store: Path | str):
    home = tmp_path / "proj"
    if not home.exists():
        home.mkdir()
        (home / "a.py").write_text("a = 1\n")
        init_repo(home)
    script = tmp_path / "script.yaml"
    script.write_text(yaml.safe_dump(['{"thought": "t", "tool": "finish"}',
                                      '{"answer": "hi"}']))
    return CliRunner().invoke(_app(), ["agent", "--home", str(home), "--model",
                                       f"scripted:{script}", "--store", str(store), "-p", "hi"])


def _assert_one_clear_line(result, *words: str) -> None:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and result.exception is None or isinstance(
        result.exception, SystemExit)
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), result.output
    for word in words:
        assert word in lines[0], lines[0]


def _real_store(path: Path, rows: int = 200) -> Path:
    with RunStore(path) as store:
        for i in range(rows):
            store.start_run("solve", {"n": i, "text": "x" * 200})
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


def _random_bytes(path: Path) -> None:
    path.write_bytes(os.urandom(8192))


def _truncated(path: Path) -> None:
    _real_store(path)
    data = path.read_bytes()
    assert len(data) > 4 * 4096
    path.write_bytes(data[: len(data) // 2])


def _bad_header(path: Path) -> None:
    _real_store(path)
    data = bytearray(path.read_bytes())
    data[:16] = b"SQLite format 4\x00"
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("spoil", [_random_bytes, _truncated, _bad_header],
                         ids=["random-bytes", "truncated", "bad-header"])
def test_a_corrupted_store_is_one_line_and_left_as_it_was(tmp_path, spoil):
    path = tmp_path / "runs.sqlite"
    spoil(path)
    before = path.read_bytes()
    result = _agent(tmp_path, path)
    _assert_one_clear_line(result, str(path), "--store")
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("runs")) == [
        "runs.sqlite"]  # no -wal or -shm made beside it
    with pytest.raises(StoreError):
        RunStore(path)
    assert path.read_bytes() == before


def test_a_directory_as_store(tmp_path):
    folder = tmp_path / "store-dir"
    folder.mkdir()
    _assert_one_clear_line(_agent(tmp_path, folder), str(folder), "is a directory")
    assert list(folder.iterdir()) == []


def test_a_file_used_as_the_store_directory(tmp_path):
    blocker = tmp_path / "blocker"
    blocker.write_text("keep me\n")
    _assert_one_clear_line(_agent(tmp_path, blocker / "runs.sqlite"), str(blocker))
    assert blocker.read_text() == "keep me\n"


def test_a_store_where_even_root_cannot_write(tmp_path):
    _assert_one_clear_line(_agent(tmp_path, "/proc/codeloop-store/runs.sqlite"),
                           "/proc/codeloop-store")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only directory")
def test_a_read_only_store_directory(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        _assert_one_clear_line(_agent(tmp_path, folder / "runs.sqlite"), str(folder))
    finally:
        folder.chmod(0o700)


def test_a_new_store_is_private(tmp_path):
    path = tmp_path / "data" / "runs.sqlite"
    with RunStore(path) as store:
        store.start_run("solve", {})
        store.checkpointer()
        for name in os.listdir(path.parent):
            assert stat.S_IMODE((path.parent / name).stat().st_mode) == 0o600, name
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_an_existing_store_is_made_private_when_opened(tmp_path, monkeypatch):
    data = tmp_path / "data"
    monkeypatch.setenv("CODELOOP_DATA_DIR", str(data))
    data.mkdir(mode=0o755)
    data.chmod(0o755)
    path = data / "runs.sqlite"
    sqlite3.connect(path).close()
    path.chmod(0o644)
    RunStore(path).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(data.stat().st_mode) == 0o700  # codeloop's own data directory
    project = tmp_path / "project"
    project.mkdir(mode=0o755)
    project.chmod(0o755)
    RunStore(project / "runs.sqlite").close()
    assert stat.S_IMODE(project.stat().st_mode) == 0o755  # a user's directory: left alone


def test_solve_with_a_corrupted_store_is_one_line_and_leaves_it(tmp_path):
    from codeloop.commands import solve_cmd

    app = typer.Typer()
    solve_cmd.register(app)

    @app.command("noop")
    def _noop() -> None:
        """Nothing."""

    store = tmp_path / "runs.sqlite"
    store.write_bytes(os.urandom(4096))
    before = store.read_bytes()
    tasks = tmp_path / "t.json"
    tasks.write_text('[{"task_id": "add", "signature": "def add(a, b)", "docstring": "Sum."}]')
    script = tmp_path / "s.yaml"
    script.write_text(yaml.safe_dump(["```python\ndef add(a, b):\n    return a + b\n```"]))
    result = CliRunner().invoke(app, ["solve", "--task-file", str(tasks), "--store", str(store),
                                      "--model", f"scripted:{script}"])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and str(store) in result.output.replace("\n", "")
    assert store.read_bytes() == before
