"""What a review guarantees whatever the model sends (issue 51, from held-out requests), on the
scripted model with the real sandbox: code that does not import is never approved (a module
no test imports is checked too), no file is created that the request gave no reason for (a
placeholder path copied from a prompt, a line of a file listing), and the security gate
scans the file the request is about, not only what the model proposed."""

from __future__ import annotations

from review_helpers import BUGGY, FIXED, NO_REQUEST_TEST, approve

from codeloop.llm.scripted import ScriptedLLM
from codeloop.review.service import ReviewRequest, start_review

SUM = "make add in calc.py return the sum"


def _start(workspace, store, replies, **kwargs):
    llm = ScriptedLLM(replies)
    return start_review(ReviewRequest(workspace=workspace, **kwargs), llm, store), llm


def _whole(path: str, text: str) -> str:
    return f"FILE: {path}\n```python\n{text}```\n"


def _unimportable(n: int) -> str:
    return _whole("calc.py", f"import passlib  # {n}\n\n\n{FIXED}")


def test_a_fix_that_does_not_import_goes_back_to_the_model_with_the_error(workspace, store):
    (workspace / "test_calc.py").unlink()  # no test imports calc.py
    out, llm = _start(workspace, store, [NO_REQUEST_TEST, _unimportable(1),
                                         _whole("calc.py", FIXED), approve()],
                      files=["calc.py"], request=SUM)
    assert out.status == "awaiting_approval", out.message
    assert ("calc.py does not import: ModuleNotFoundError: No module named 'passlib'"
            in llm.calls[3][-1].content)
    assert out.pending_diffs[0]["modified_content"] == FIXED


UNDEFINED = FIXED + "\n\ndef secret():\n    return vault.read('CALC_SECRET')\n"


def test_a_fix_with_an_undefined_name_goes_back_to_the_model(workspace, store):
    # calc.py imports and its test passes: only the lint of the change sees the undefined name
    defined = "from calc_vault import vault\n\n\n" + UNDEFINED
    (workspace / "calc_vault.py").write_text("vault = {}\n")
    out, llm = _start(workspace, store, [_whole("calc.py", UNDEFINED), _whole("calc.py", defined),
                                         approve()], files=["calc.py"], request=SUM)
    assert out.status == "awaiting_approval", out.message
    assert "calc.py:6: F821 Undefined name `vault`" in llm.calls[1][-1].content
    assert out.pending_diffs[0]["modified_content"] == defined


def test_a_forgotten_standard_library_import_is_added_by_the_harness(workspace, store):
    # the 1.5B's hardcoded_secret case: os.getenv without `import os`, sent back that way by
    # two refinements of three rounds each; the engine adds the import and says so
    forgot = FIXED + "\n\ndef secret():\n    return os.getenv('CALC_SECRET')\n"
    out, llm = _start(workspace, store, [_whole("calc.py", forgot), approve()],
                      files=["calc.py"], request=SUM)
    assert out.status == "awaiting_approval", out.message
    assert out.pending_diffs[0]["modified_content"] == "import os\n" + forgot
    assert llm.remaining == 0 and len(llm.calls) == 2  # the model was not asked again


def test_code_that_does_not_import_is_never_approved(workspace, store):
    (workspace / "test_calc.py").unlink()
    bad = [_unimportable(n) for n in range(6)]
    out, _ = _start(workspace, store, [NO_REQUEST_TEST, *bad[:3], approve(), *bad[3:],
                                       approve()], files=["calc.py"], request=SUM)
    assert out.status == "failed"
    feedback = out.review_feedback
    assert feedback["model_approved"] is True and feedback["approved"] is False
    assert any("does not import" in issue for issue in feedback["issues"])
    assert (workspace / "calc.py").read_text() == BUGGY


def test_a_placeholder_path_is_never_created(workspace, store):
    placeholder = _whole("relative/path.py", FIXED) + "\n" + _whole("your_module.py", FIXED)
    out, llm = _start(workspace, store, [placeholder, _whole("calc.py", FIXED), approve()],
                      files=["calc.py"], request=SUM)
    assert out.status == "awaiting_approval", out.message
    assert [d["file_path"] for d in out.pending_diffs] == ["calc.py"]
    second = llm.calls[1][-1].content
    assert "relative/path.py is not a file of this request" in second
    assert "your_module.py was not written" in second and "placeholder" in second
    assert not (workspace / "relative").exists() and not (workspace / "your_module.py").exists()


def test_a_file_listing_copied_into_the_reply_makes_no_file(workspace, store):
    # the request names no file: the coder decides where the code goes, but a listing's
    # "path: definitions" line is no path
    (workspace / "calc.py").write_text(FIXED)  # the workspace's tests pass
    listing = _whole("calc.py: def add", FIXED) + "\n" + _whole("greet.py", GREET)
    out, _ = _start(workspace, store, [listing, approve()],
                    request="Add a greet(name) function that returns 'hi ' + name")
    assert out.status == "awaiting_approval", out.message
    assert [d["file_path"] for d in out.pending_diffs] == ["greet.py"]


GREET = "def greet(name):\n    return 'hi ' + name\n"
RUN = "import subprocess\n\n\ndef run(cmd):\n    return subprocess.run(cmd, shell=True)\n"
SAFE = ("import shlex\nimport subprocess\n\n\ndef run(cmd):\n"
        "    return subprocess.run(shlex.split(cmd), check=False)\n")


def test_the_gate_scans_the_file_the_request_names(workspace, store):
    # Asked to fix run.py and write its tests, the model writes only the tests: the gate
    # still scans run.py, its HIGH finding blocks the model's approval, and the refiner
    # gets run.py to fix.
    (workspace / "calc.py").write_text(FIXED)  # the workspace's other tests pass
    (workspace / "run.py").write_text(RUN)
    tests = "from run import run\n\n\ndef test_runs():\n    assert run('true').returncode == 0\n"
    request = "Fix the shell injection in run.py and write its tests in test_run.py"
    out, llm = _start(workspace, store, [_whole("test_run.py", tests),
                                         _whole("test_run.py", tests + "\n# again\n"),
                                         approve(), _whole("run.py", SAFE), approve()],
                      request=request)
    assert out.workflow_type == "implementation"
    refiner = llm.calls[3][-1].content
    assert "HIGH security finding in run.py" in refiner and "FILE: run.py" in refiner
    assert out.status == "awaiting_approval", out.message
    assert {d["file_path"] for d in out.pending_diffs} == {"run.py", "test_run.py"}
    assert not [f for f in out.findings if f["severity"] == "high"]


def test_the_refiner_sees_the_failing_assertion_with_its_values(workspace, store):
    # the reviewer's issue list holds pytest's summary line, cut short; the refiner's prompt
    # holds what the checks measure: the failing line and the values
    out, llm = _start(workspace, store, [_whole("calc.py", FIXED), approve()],
                      files=["calc.py"], request=SUM)
    assert out.status == "awaiting_approval", out.message
    first = llm.calls[0][-1].content
    assert "assert add(1, 2) == 3" in first and "assert -1 == 3" in first
