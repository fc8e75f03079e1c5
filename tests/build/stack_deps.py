"""A bundled node stack's dependencies, installed once per session by the stack's own install
step (npm, lifecycle scripts off), and a user stack file whose install step hard-links them
into each build's project (the --stack-file path): a build then needs no registry."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from codeloop.build.install import install_dependencies
from codeloop.build.stacks import load_stack, render_files


def install_once(stack_name: str, folder: Path, must_have: str) -> Path:
    """node_modules of `stack_name`'s package.json, installed in `folder`. Skips on a
    developer's machine where npm cannot install; in CI (env CI set) fails instead, so the
    suite never passes with a stack unbuilt."""
    stack = load_stack(stack_name)
    (folder / "package.json").write_text(
        render_files(stack.config_files, "cache", stack_name)["package.json"])
    installed = install_dependencies(stack, folder)
    if not installed.ok:
        why = f"npm could not install the {stack_name} dependencies: {installed.message}"
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)
    assert not installed.skipped
    assert (folder / "node_modules" / must_have / "package.json").is_file()
    return folder / "node_modules"


def linking_stack_file(stack_name: str, node_modules: Path, folder: Path) -> Path:
    """A copy of the bundled stack whose install step hard-links `node_modules`."""
    data = load_stack(stack_name).model_dump()
    data["install_command"] = ["cp", "-al", str(node_modules), "node_modules"]
    path = folder / f"{stack_name}-linked.yaml"
    path.write_text(yaml.safe_dump(data))
    return path
