"""A task's module written with its tests in place of its code is refused, with what to write.

Measured on the 1.5B (build benchmark at ec2b586, notes N4): asked for app/routes.py with the
task's tests in the prompt, it sent a copy of those tests as app/routes.py (`def
test_post_note(): ...`, no `router`); the module raised on import, the next rounds sent it
back, and the task used half the graph's minutes on it before it was blocked. A source
module (not a test file) whose top level defines test functions and none of the names the
task promises is not written: the engine's next round is told the tests are in place and
what the module must define."""

from __future__ import annotations

import ast

from codeloop.build.contract import TaskContract, is_test_module


def written_as_tests(path: str, text: str, contract: TaskContract) -> str | None:
    """Why `text` is no code for `path`, or None."""
    if not path.endswith(".py") or is_test_module(path) or path not in contract.modules:
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None  # the stack's tests report it
    defined = {node.name for node in tree.body
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    defined |= {target.id for node in tree.body if isinstance(node, ast.Assign)
                for target in node.targets if isinstance(target, ast.Name)}
    tests = sorted(name for name in defined if name.startswith("test_"))
    promised = [name for name in contract.names if name in defined]
    if not tests or promised:
        return None
    names = ", ".join(contract.names) or "the task's code"
    return (f"{path} holds test functions ({', '.join(tests[:3])}) and none of {names}: "
            f"those are tests, and the task's tests are in {contract.test_path} already; "
            f"write {path} as the code they test, defining {names}")
