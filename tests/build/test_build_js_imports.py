"""A JavaScript task's test that imports a component without an extension (`from
'./Counter'`): the code is asked for in the file its kind needs, `src/Counter.jsx` for a
react-spa test (Vite refuses JSX in a .js file), not `src/Counter.js`. On the scripted model
with a react-spa stack whose test command (node, no Vitest) fails when a .js Counter
appears, so the build itself shows which file was written."""

from __future__ import annotations

import shutil

import pytest
import yaml
from build_replies import file_reply, no_wiring

from codeloop.build.stacks import load_stack
from codeloop.gitutil import git

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs node")

COUNTER_TEST = """import { test, expect } from 'vitest';
import Counter from './Counter';

test('renders', () => {
  expect(Counter).toBeTruthy();
});
"""
COUNTER = "export default function Counter() {\n  return <button>count is 0</button>;\n}\n"
NO_JS_COUNTER = ("process.exit(require('fs').existsSync('src/Counter.js') ? 1 : 0)")


def _light_react_stack(folder):
    data = load_stack("react-spa").model_dump()
    data.update(test_command=["node", "-e", NO_JS_COUNTER], installed_check=["true"],
                install_command=[], requires=[])
    path = folder / "react-light.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_an_extensionless_import_in_a_jsx_test_asks_for_a_jsx_file(build, tmp_path):
    request = {"tech_stack": "react-spa", "tasks": [
        {"id": "T1", "description": "a Counter component", "keywords": ["counter"]}]}
    agents = {"task:T1": [f"```jsx\n{COUNTER_TEST}```", file_reply(("src/Counter.jsx", COUNTER))],
              "integration": no_wiring()}
    built = build(request, agents, stack_file=_light_react_stack(tmp_path))

    code_prompt = built.llm_for("task:T1").calls[1][-1].content
    assert "Write src/Counter.jsx so that" in code_prompt  # a path, not src.Counter.jsx
    assert "src/Counter.js\n" not in code_prompt and "src/Counter.js " not in code_prompt
    assert built.final["status"] == "COMPLETE", built.final.get("error")
    files = git(["ls-files"], built.out).stdout.split()
    assert "src/Counter.jsx" in files and "src/Counter.js" not in files
