"""A task's module sent back as a copy of its tests is refused with what to write
(build/tests_as_code.py): the 1.5B's notes N4 wrote its tests as app/routes.py, which raised
on import, and the task spent half the graph's minutes on it. Real build: git, sandbox,
pytest, scripted task agents."""

from __future__ import annotations

from build_replies import file_reply, no_wiring, reply_with_tests

from codeloop.build.contract import TaskContract
from codeloop.build.tests_as_code import written_as_tests

TESTS = ("from app.calc import double\n\n\ndef test_double():\n    assert double(2) == 4\n")
CODE = "def double(x):\n    return 2 * x\n"


def _contract() -> TaskContract:
    return TaskContract(task_id="C", language="python", src_dir="app",
                        test_path="tests/test_calc.py", modules=["app/calc.py"],
                        modules_named=True, names=["double"], endpoints=[], serves_http=False,
                        built={}, built_by={}, served=[])


def test_tests_written_as_the_module_are_no_code():
    why = written_as_tests("app/calc.py", TESTS, _contract())
    assert why is not None and "holds test functions (test_double) and none of double" in why
    assert "tests/test_calc.py" in why
    # the code itself, code with a test-named helper beside what it promises, another
    # module, a test file, or text that does not parse: not refused here
    helper = CODE + "\n\ndef test_mode():\n    return False\n"
    for path, text in (("app/calc.py", CODE), ("app/calc.py", helper),
                       ("app/other.py", TESTS), ("tests/test_calc.py", TESTS),
                       ("app/calc.py", "def f(:\n")):
        assert written_as_tests(path, text, _contract()) is None, (path, text)


def test_the_module_written_as_its_tests_is_refused_and_the_next_round_told(build):
    request = {"tech_stack": "python-api", "tasks": [
        {"id": "C", "description": "Doubling in app.calc: function double(x) -> 2 * x",
         "depends_on": []}]}
    agents = {"task:C": [reply_with_tests(TESTS), file_reply(("app/calc.py", TESTS)),
                         file_reply(("app/calc.py", CODE))],
              "integration": no_wiring()}
    built = build(request, agents)

    assert built.final["status"] == "COMPLETE", "\n".join(built.progress())
    assert (built.out / "app" / "calc.py").read_text() == CODE
    retry = built.llm_for("task:C").calls[2][-1].content
    assert "app/calc.py not written: app/calc.py holds test functions (test_double)" in retry
