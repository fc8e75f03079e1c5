from __future__ import annotations

import pytest

from codeloop.agent.snapshots import Snapshots, init_repo
from codeloop.events import EventBus, EventRecorder
from codeloop.store import RunStore
from codeloop.tools import Workspace


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    (root / "README.md").write_text("# demo\n")
    init_repo(root)
    return Workspace.at(root)


@pytest.fixture
def store(tmp_path):
    with RunStore(tmp_path / "runs.sqlite") as s:
        yield s


@pytest.fixture
def events():
    bus, recorder = EventBus(), EventRecorder()
    bus.subscribe(recorder)
    return bus, recorder


@pytest.fixture
def snapshots(repo):
    return Snapshots(repo)
