"""react-spa with the real Vite, Vitest, jsdom and Testing Library, in the sandbox without
network: the stack's own install step fills a node_modules once per session; each build gets
it hard-linked through a user stack file. A scripted task writes a component and its test; the
integration agent puts it in the App. V8 reserves address space for WebAssembly far beyond
what it uses: the stack raises its address space, and a memory bomb in its sandbox is still
stopped at its memory limit."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from build_replies import search_replace, task_script
from stack_deps import install_once, linking_stack_file

from codeloop.build.repo import merged_tasks
from codeloop.build.stacks import load_stack, render_files
from codeloop.build.testing import run_tests
from codeloop.gitutil import git

# Skipped on a developer's machine without npm; in CI (env CI set) a missing npm fails.
pytestmark = pytest.mark.skipif(shutil.which("npm") is None and not os.environ.get("CI"),
                                reason="needs node and npm")


@pytest.fixture(scope="session")
def react_modules(tmp_path_factory) -> Path:
    return install_once("react-spa", tmp_path_factory.mktemp("react-cache"), "vitest")


COUNTER_TEST = """import { render, screen, fireEvent } from '@testing-library/react';
import { test, expect } from 'vitest';
import Counter from './Counter.jsx';

test('counts clicks', () => {
  render(<Counter />);
  const button = screen.getByRole('button');
  expect(button.textContent).toBe('count is 0');
  fireEvent.click(button);
  expect(button.textContent).toBe('count is 1');
});
"""
COUNTER = """import { useState } from 'react';

export default function Counter() {
  const [count, setCount] = useState(0);
  return <button onClick={() => setCount(count + 1)}>count is {count}</button>;
}
"""
APP = "export default function App() {\n  return <h1>Hello</h1>;\n}"
APP_WITH_COUNTER = """import Counter from './Counter.jsx';

export default function App() {
  return <><h1>Hello</h1><Counter /></>;
}"""


def test_a_react_spa_built_with_real_vitest(build, react_modules, tmp_path):
    request = {"tech_stack": "react-spa", "tasks": [
        {"id": "T1", "description": "a Counter component", "keywords": ["counter"]}]}
    integration = [search_replace("src/App.jsx", APP, APP_WITH_COUNTER)]
    agents = {"task:T1": task_script("src/Counter.test.jsx", COUNTER_TEST,
                                     "src/Counter.jsx", COUNTER),
              "integration": integration}
    stack_file = linking_stack_file("react-spa", react_modules, tmp_path)
    built = build(request, agents, stack_file=stack_file)

    assert built.final["status"] == "COMPLETE", built.final.get("error")
    assert merged_tasks(built.out) == ["T1"]
    results = [e for e in built.events if e.type == "test_result"]
    assert (results[-1].passed, results[-1].failed) == (2, 0)  # App, Counter
    assert "<Counter />" in (built.out / "src" / "App.jsx").read_text()
    assert not any(p.startswith("node_modules/") for p in git(["ls-files"], built.out).stdout
                   .split())


# A model-written Vitest test: it runs in Vitest's worker, in the stack's sandbox. One process
# over the memory limit: RLIMIT_AS (now 32 GB here) no longer stops it, the tree's bound must.
# (Several processes: tests/attacks/test_limits_attacks.py, with the same raised limits.)
BOMB = """import { test } from 'vitest';

test('bomb', () => {
  process._rawDebug('bomb started');  // straight to stderr: the worker dies before a flush
  const blocks = [];
  for (let i = 0; i < 32; i++) blocks.push(Buffer.alloc(256 * 1024 * 1024, 1));  // 8 GB
  console.log('bomb held', blocks.length);
});
"""


@pytest.mark.attack
def test_a_memory_bomb_in_the_react_spa_sandbox_is_stopped(react_modules, tmp_path):
    stack = load_stack("react-spa")
    assert stack.address_space_mb > stack.memory_mb  # the bound below is not RLIMIT_AS's
    tree = tmp_path / "app"
    files = {**render_files(stack.config_files, "app", "react-spa"),
             **render_files(stack.scaffold_files, "app", "react-spa"),
             "src/Bomb.test.jsx": BOMB}
    for path, text in files.items():
        (tree / path).parent.mkdir(parents=True, exist_ok=True)
        (tree / path).write_text(text)
    subprocess.run(["cp", "-al", str(react_modules), str(tree / "node_modules")], check=True)

    run = run_tests(stack, tree)

    assert "bomb started" in run.output, run.output  # Vitest ran it: the stack works
    assert not run.passed and "limit hit: memory" in run.summary, run
    assert "bomb held" not in run.output
