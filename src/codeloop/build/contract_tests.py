"""The task's contract as a test file, written by the harness when the model's tests never
stayed within the task (python stacks).

Measured on the 1.5B (build benchmark, shortener): the data-model task S2's tests called
`POST /links`, an endpoint a later task builds, in all six files asked for across two
attempts; nothing in them was left once those lines went, the task was blocked, and so were
the two tasks after it (0 of 9 acceptance tests). The contract (contract.py) already says
what the task must provide: its modules, the names its text gives and the routes it serves.
A test that those exist is weaker than the model's own tests would have been, and says so
in its docstring and the progress line; it still keeps a module that does not import, or
lacks a promised class or route, off main, and lets the graph go on. A routes task's routes
are also called once each (route_smoke.py): none may raise, and a POSTed item is read back.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import PurePosixPath

from codeloop.build.contract import TaskContract, module_of, route_shape
from codeloop.build.route_smoke import HELPER_FILE, promised_statuses, route_calls_helper


def contract_test(contract: TaskContract, entry_point: str, text: str) -> str | None:
    """The test file (python) for `contract` (the task's `text` says which names it gives):
    its modules import and hold its names, and its routes are served by a router or app in
    those modules or in `entry_point` (a task's router is included in the app by a later
    task or the integration), and answer when called (the helper of contract_helpers);
    None when the contract names nothing to check."""
    modules = [module_of(p) for p in contract.modules if p.endswith(".py")]
    names = [n for n in contract.names if _promised(n, text, contract)]
    routes = sorted({_route(e) for e in contract.endpoints}) if contract.serves_http else []
    if not (modules and names) and not routes:
        return None
    homes = list(dict.fromkeys([*modules, module_of(entry_point)] if routes and entry_point
                               else modules))
    lines = ['"""The task\'s contract, checked by the harness: the tests the model wrote reached',
             'outside the task. Its modules import and hold the names it promises; a router',
             'or app of the task serves its routes, each answers a call without an error and',
             'with the status the task promises, and an item a POST answers is read back."""',
             "", *[f"import {m}" for m in homes]]
    if routes:
        lines.append(f"from {helper_module(contract)} import check_routes, served_by")
    lines += ["", ""]
    if modules and names:
        lines += [f"MODULES = [{', '.join(modules)}]", f"NAMES = {names!r}", "", "",
                  "def test_the_modules_hold_the_names_the_task_promises():",
                  "    for name in NAMES:",
                  "        assert any(hasattr(m, name) for m in MODULES), name", "", ""]
    if routes:
        # what is served is read from the OpenAPI schema (the helper's served_by); when one
        # is not served, what is served is said: a router's prefix written again in its
        # routes (the 1.5B's `APIRouter(prefix='/todos')` with `@router.post('/todos')`)
        # shows as /todos/todos.
        lines += [f"ROUTES = {routes!r}", f"ROUTE_MODULES = [{', '.join(homes)}]",
                  f"PROMISED = {promised_statuses(text)!r}", "", "",
                  "def test_the_routes_the_task_promises_are_served():",
                  "    served = set()",
                  "    for module in ROUTE_MODULES:",
                  "        for value in list(vars(module).values()):",
                  "            served |= served_by(value)",
                  "    for method, path in ROUTES:",
                  "        assert (method, path) in served, (",
                  "            f'{method} {path} is not served; served: '",
                  "            + (', '.join(f'{m} {p}' for m, p in sorted(served)) or 'nothing'))",
                  "", "",
                  "def test_the_promised_routes_answer_and_keep_what_is_posted():",
                  "    check_routes([m.__name__ for m in ROUTE_MODULES], ROUTES, PROMISED)", ""]
    return "\n".join(lines).rstrip() + "\n"


def contract_helpers(contract: TaskContract) -> dict[str, str]:
    """{path: text} of the files the contract test imports besides the project's modules:
    the route calls' helper for a task that serves routes."""
    if not (contract.serves_http and contract.endpoints):
        return {}
    return {helper_path(contract): route_calls_helper()}


def routes_contract_beside(contract: TaskContract, entry_point: str,
                           text: str) -> dict[str, str]:
    """{path: text} of the contract test (and its helper) written beside a routes task's
    own tests when those stayed in scope: its routes must answer, with the statuses its text
    promises, and keep what is posted, whatever the model's tests check ({} for a task that
    serves no named route)."""
    test = contract_test(contract, entry_point, text) if contract.endpoints else None
    if test is None or not contract_helpers(contract):
        return {}
    path = PurePosixPath(contract.test_path)
    return {**contract_helpers(contract),
            str(path.with_name(f"{path.stem}_contract{path.suffix}")): test}


def with_helpers(contract: TaskContract) -> TaskContract:
    """`contract` with the contract test's helpers counted as project files (the scope
    check of the contract test, before they are written)."""
    return replace(contract, built={**contract.built,
                                    **{path: [] for path in contract_helpers(contract)}})


def helper_path(contract: TaskContract) -> str:
    return str(PurePosixPath(contract.test_path).parent / HELPER_FILE)


def helper_module(contract: TaskContract) -> str:
    return helper_path(contract).removesuffix(".py").replace("/", ".")


def _promised(name: str, text: str, contract: TaskContract) -> bool:
    """A module-level name the task gives: a class (CamelCase) or one its text introduces as
    `function name`, `named name`, `def name` (not `add(...)`, which may be a method), and
    not one main defines (`TodoStore`, which the routes task uses)."""
    if not name.isidentifier() or any(name in names for names in contract.built.values()):
        return False
    return name[0].isupper() or re.search(
        rf"\b(?:function|named|called|def|class)\s+`?{re.escape(name)}\b", text) is not None


def _route(endpoint: str) -> tuple[str, str]:
    method, _, path = endpoint.partition(" ")
    return method.upper(), route_shape(path.strip())
