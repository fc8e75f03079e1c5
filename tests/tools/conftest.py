from __future__ import annotations

import pytest

from codeloop.tools import ALL_TOOLS, Toolbox, Workspace


@pytest.fixture
def ws(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    return Workspace.at(root)


@pytest.fixture
def box(ws):
    return Toolbox(ws, list(ALL_TOOLS))
