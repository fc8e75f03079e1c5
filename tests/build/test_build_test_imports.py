"""The imports a model's test file forgot (`pytest.raises` with no `import pytest`: the 1.5B's
bookmarks tests, blocked three times as out of scope) are added by the harness; a name the
file binds itself, or a module the tests cannot import, is left alone."""

from __future__ import annotations

from build_replies import file_reply, func_task, no_wiring, reply_with_tests, tasks

from codeloop.jobs.forgotten_imports import (
    STANDARD_LIBRARY,
    add_forgotten_imports,
    importable_modules,
)

MODULES = importable_modules(["fastapi", "pydantic"])


def test_a_forgotten_pytest_and_json_are_imported_after_the_docstring_and_future():
    text = ('"""Tests."""\nfrom __future__ import annotations\n\nfrom app.a import a\n\n\n'
            "def test_a():\n    with pytest.raises(ValueError):\n        a(json.loads('1'))\n")
    fixed, added = add_forgotten_imports(text, MODULES)
    assert added == ["json", "pytest"]
    assert fixed.startswith('"""Tests."""\nfrom __future__ import annotations\n'
                            "import json\nimport pytest\n\nfrom app.a import a\n")


def test_bound_names_and_modules_the_tests_cannot_import_are_left_alone():
    text = ("import pytest as pt\n\n\ndef test_a(request, client):\n    re = 1\n"
            "    pt.raises(ValueError)\n    request.node\n    client.get('/')\n"
            "    passlib.hash\n    re.x\n")
    assert add_forgotten_imports(text, MODULES) == (text, [])
    assert add_forgotten_imports("def f(:\n", MODULES) == ("def f(:\n", [])


def test_a_task_whose_tests_forgot_import_pytest_is_built(build):
    tests = ("from app.a import a\n\n\ndef test_a():\n    assert a() == 1\n"
             "    with pytest.raises(TypeError):\n        a(1)\n")
    agents = {"task:A": [reply_with_tests(tests), file_reply(("app/a.py",
                                                              "def a():\n    return 1\n"))],
              "integration": no_wiring()}
    built = build(tasks(("A",)), agents)

    assert built.final["status"] == "COMPLETE", built.final
    assert (built.out / "tests" / "test_a.py").read_text().startswith("import pytest\n")


def test_typing_generics_used_bare_are_imported_from_typing_once():
    text = ("from app.a import a\n\n\ndef test_a():\n    x: Optional[List[int]] = a()\n"
            "    assert x is None\n")
    fixed, added = add_forgotten_imports(text, MODULES)
    assert added == ["List", "Optional"]
    assert fixed.startswith("from typing import List, Optional\nfrom app.a import a\n")
    # bound by the file, or a name typing has but a file more likely meant from elsewhere
    bound = "from typing import List\nText = str\n\n\ndef f(x: List) -> Text:\n    return x\n"
    assert add_forgotten_imports(bound, MODULES) == (bound, [])
    # the code's own files get them too (the standard library holds typing)
    assert add_forgotten_imports("def f() -> Dict:\n    return {}\n",
                                 STANDARD_LIBRARY)[1] == ["Dict"]


def test_a_librarys_name_used_bare_is_imported_where_the_file_imports_that_library():
    """The 1.5B's bookmarks B1: `from pydantic import BaseModel, Field, validator` over an
    `@field_validator`, a NameError at import in attempt after attempt."""
    code = ("from pydantic import BaseModel, validator\n\n\nclass A(BaseModel):\n"
            "    x: str\n\n    @field_validator('x')\n    def v(cls, value):\n"
            "        raise HTTPException(404)\n")
    fixed, added = add_forgotten_imports(code, STANDARD_LIBRARY)
    assert added == ["field_validator"]
    assert fixed.startswith("from pydantic import field_validator\nfrom pydantic import ")
    # fastapi is not imported by the file: its HTTPException is not added
    assert "import HTTPException" not in fixed
    plain = "x = field_validator\n"
    assert add_forgotten_imports(plain, STANDARD_LIBRARY) == (plain, [])
    # the standard library's names with one home, always (inventory I4's bare `Decimal`)
    report = "def total(items) -> Decimal:\n    return Decimal(sum(items))\n"
    fixed, added = add_forgotten_imports(report, STANDARD_LIBRARY)
    assert added == ["Decimal"] and fixed.startswith("from decimal import Decimal\n")


def test_tests_that_import_an_earlier_tasks_name_from_the_wrong_module_are_corrected(build):
    """B's tests import A's `Store` and B's own `router` from app.main, which holds neither:
    the harness points each import at its home (A's app.a defines Store; app.b is what B
    builds), so the tests stay in scope and B merges without a rewrite."""
    request = {"tech_stack": "python-api", "tasks": [
        {"id": "A", "description": "class Store in app.a", "depends_on": []},
        {"id": "B", "description": "a function named router in app.b that uses Store",
         "depends_on": ["A"]}]}
    a_test = "from app.a import Store\n\n\ndef test_store():\n    assert Store().n == 0\n"
    a_code = "class Store:\n    n = 0\n"
    b_test = ("from app.main import Store, app, router\n\n\ndef test_router():\n"
              "    assert router(Store()) == 0\n    assert app is not None\n")
    b_code = "from app.a import Store\n\n\ndef router(store: Store) -> int:\n    return store.n\n"
    agents = {"task:A": [reply_with_tests(a_test), file_reply(("app/a.py", a_code))],
              "task:B": [reply_with_tests(b_test), file_reply(("app/b.py", b_code))],
              "integration": no_wiring()}
    built = build(request, agents)

    assert built.final["status"] == "COMPLETE", built.final
    assert sorted(built.final["completed_tasks"]) == ["A", "B"], built.final
    merged = (built.out / "tests" / "test_b.py").read_text()
    assert merged.startswith("from app.main import app\nfrom app.a import Store\n"
                             "from app.b import router\n"), merged
    said = [e.message for e in built.events if getattr(e, "type", "") == "progress"]
    assert any("Store is imported from app.a, not app.main" in m for m in said), said


def test_the_code_prompt_says_which_pydantic_is_installed_where_pydantic_is_in_play(build):
    """python-api's code prompt names pydantic 2's API: asked for "a field_validator", the
    1.5B wrote pydantic 1's `@validator(..., mode='before')` and the module never imported.
    Only where pydantic is in play: shown for inventory I2's two plain functions, the note
    made the 1.5B write a pydantic class with methods in every attempt."""
    request = tasks(("A",), ("B",))
    request["tasks"][0]["description"] = "the a function, over a pydantic model"
    agents = {"task:A": func_task("a", "1"), "task:B": func_task("b", "2"),
              "integration": no_wiring()}
    built = build(request, agents)

    assert built.final["status"] == "COMPLETE", built.final
    code_prompt = built.llm_for("task:A").calls[1][-1].content
    assert "pydantic 2 is installed" in code_prompt and "field_validator" in code_prompt
    assert "pydantic 2 is installed" not in built.llm_for("task:B").calls[1][-1].content
