"""The imports a model's test file forgot (`pytest.raises` with no `import pytest`: the 1.5B's
bookmarks tests, blocked three times as out of scope) are added by the harness; a name the
file binds itself, or a module the tests cannot import, is left alone."""

from __future__ import annotations

from build_replies import file_reply, no_wiring, reply_with_tests, tasks

from codeloop.jobs.forgotten_imports import add_forgotten_imports, importable_modules

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
