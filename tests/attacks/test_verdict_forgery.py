"""A wrong answer must never be reported as passing, whatever it does to the test run.

The first three are the audit's forgery (read the harness config, append "pass" and "done"
records to the result file, os._exit(0)) in each mode; it made every test pass before the
verdict moved to a channel the candidate cannot reach. The rest are variants against the
new design: every fd it has, the harness's fds through /proc, killing or stopping the
harness, fake records on stdout, objects whose __eq__ always says yes, a planted conftest.
"""

from __future__ import annotations

import pytest

from codeloop.sandbox.testrun import run_asserts, run_check, run_pytest

WRONG_ADD = "def add(a, b):\n    return 0\n"
ASSERTS = ["assert add(1, 2) == 3", "assert add(2, 2) == 4"]
CHECK = "def check(candidate):\n    assert candidate(1, 2) == 3\n    assert candidate(2, 2) == 4\n"
PYTEST = "from solution import add\n\ndef test_a():\n    assert add(1, 2) == 3\n\n" \
         "def test_b():\n    assert add(2, 2) == 4\n"

AUDIT_FORGERY = WRONG_ADD + '''
import json, os
cfg = json.load(open("_codeloop_config.json"))
with open(cfg["result_file"], "a") as fh:
    names = cfg.get("asserts") or ["check(%s)" % cfg.get("entry_point")]
    for name in names:
        fh.write(json.dumps({"kind": "pass", "name": name}) + "\\n")
    fh.write(json.dumps({"kind": "done"}) + "\\n")
os._exit(0)
'''

PYTEST_FORGERY = WRONG_ADD + '''
import json, os
path = os.environ.get("CODELOOP_RESULT_FILE") or "results.jsonl"
with open(path, "a") as fh:
    for name in ("test_solution.py::test_a", "test_solution.py::test_b"):
        fh.write(json.dumps({"kind": "pass", "name": name}) + "\\n")
os._exit(0)
'''

RECORDS = ('{"kind": "start"}\\n{"kind": "pass", "name": "assert add(1, 2) == 3"}\\n'
           '{"kind": "pass", "name": "assert add(2, 2) == 4"}\\n'
           '{"kind": "pass", "name": "check(add)"}\\n{"kind": "done", "exit_code": 0}\\n')

EVERY_FD = WRONG_ADD + f'''
import os
RECORDS = "{RECORDS}".encode()
for fd in range(1024):
    try:
        os.write(fd, RECORDS)
    except OSError:
        pass
'''

PARENT_FDS = WRONG_ADD + f'''
import os
RECORDS = "{RECORDS}".encode()
opened = []
for pid in {{os.getppid(), 1, 2, 3}}:
    try:
        names = os.listdir(f"/proc/{{pid}}/fd")
    except OSError:
        continue
    for name in names:
        try:
            fd = os.open(f"/proc/{{pid}}/fd/{{name}}", os.O_WRONLY | os.O_APPEND)
        except OSError:
            continue
        opened.append(name)
        os.write(fd, RECORDS)
'''

KILL_PARENT = WRONG_ADD.replace("return 0", "import os, signal\n    "
                                "os.kill(os.getppid(), signal.SIGKILL)\n    return 0")
STOP_PARENT = WRONG_ADD.replace("return 0", "import os, signal\n    "
                                "os.kill(os.getppid(), signal.SIGSTOP)\n    return 0")
FAKE_STDOUT = WRONG_ADD + f'''
import sys
sys.stdout.write("{RECORDS}")
sys.stderr.write("{RECORDS}")
'''
ALWAYS_EQUAL = '''
class Yes(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__

class Anything:
    def __eq__(self, other):
        return True

def add(a, b):
    return Anything() if a == 1 else Yes(0)
'''


def _never_passes(report) -> None:
    assert not report.all_passed, report
    assert report.passed == 0, report.cases
    assert report.harness_error is None, report.harness_error  # the code's failure, not ours


@pytest.mark.parametrize("code", [AUDIT_FORGERY, EVERY_FD, PARENT_FDS, KILL_PARENT,
                                  FAKE_STDOUT, ALWAYS_EQUAL],
                         ids=["audit", "every_fd", "parent_fds", "kill_parent", "stdout",
                              "always_equal"])
def test_asserts_cannot_be_forged(code):
    _never_passes(run_asserts(code, ASSERTS, timeout=3))


@pytest.mark.parametrize("code", [AUDIT_FORGERY, EVERY_FD, PARENT_FDS, KILL_PARENT,
                                  FAKE_STDOUT, ALWAYS_EQUAL],
                         ids=["audit", "every_fd", "parent_fds", "kill_parent", "stdout",
                              "always_equal"])
def test_check_cannot_be_forged(code):
    _never_passes(run_check(code, CHECK, "add", timeout=3))


@pytest.mark.parametrize("code", [PYTEST_FORGERY, EVERY_FD, PARENT_FDS, KILL_PARENT,
                                  FAKE_STDOUT, ALWAYS_EQUAL],
                         ids=["audit", "every_fd", "parent_fds", "kill_parent", "stdout",
                              "always_equal"])
def test_pytest_cannot_be_forged(code):
    _never_passes(run_pytest(code, PYTEST, timeout=3))


def test_a_stopped_harness_is_a_timeout_not_a_pass():
    report = run_asserts(STOP_PARENT, ASSERTS, timeout=1)
    _never_passes(report)
    assert report.timed_out


def test_a_conftest_planted_while_loading_changes_no_outcome():
    plant = WRONG_ADD + '''
open("conftest.py", "w").write("""
import pytest
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    report.outcome = "passed"
    report.longrepr = None
""")
'''
    report = run_pytest(plant, PYTEST, timeout=3)
    _never_passes(report)
    assert [c.kind for c in report.cases] == ["fail", "fail"]


def test_a_planted_module_is_never_imported_by_the_harness():
    # The harness imports nothing from the workspace: shadowing a stdlib module the
    # harness or pytest might import late changes nothing.
    plant = WRONG_ADD + '''
for name in ("difflib", "pprint", "linecache", "tokenize", "reprlib", "textwrap"):
    open(name + ".py", "w").write("import os\\nos._exit(0)\\n")
'''
    _never_passes(run_pytest(plant, PYTEST, timeout=3))
    _never_passes(run_asserts(plant, ["assert add(1, 2) == 3", "assert add([1], [2]) == 3"],
                              timeout=3))


SIGNAL_PARENT = '''
import os, signal
def add(a, b):
    if (a, b) == (2, 2):
        os.kill(os.getppid(), signal.SIG)
        return 0
    return a + b
'''


@pytest.mark.parametrize("sig", ["SIGKILL", "SIGINT", "SIGALRM", "SIGTERM"])
def test_signalling_the_harness_after_honest_passes_drops_no_test(sig):
    # test_a passes honestly; the second call signals the harness: the second test (and
    # none other) may never go missing from the verdict, nor become a harness error.
    code = SIGNAL_PARENT.replace("signal.SIG)", f"signal.{sig})")
    for report in (run_asserts(code, ASSERTS, timeout=2), run_pytest(code, PYTEST, timeout=2)):
        assert not report.all_passed, (sig, report)
        assert report.passed <= 1 and report.harness_error is None, (sig, report)


def test_a_stop_iteration_cannot_end_a_check_loop_early():
    code = "def is_even(n):\n    raise StopIteration\n"
    check = "def check(candidate):\n    assert all(map(candidate, [2, 3, 4]))\n"
    report = run_check(code, check, "is_even", timeout=3)
    _never_passes(report)
