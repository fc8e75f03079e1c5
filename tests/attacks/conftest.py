"""The attack suite: every test here runs hostile input or code against codeloop and asserts
that the attack failed and the host is untouched. `pytest -m attack` runs it alone."""

import pytest


def pytest_collection_modifyitems(items):
    for item in items:
        if "/tests/attacks/" in str(item.fspath):
            item.add_marker(pytest.mark.attack)
