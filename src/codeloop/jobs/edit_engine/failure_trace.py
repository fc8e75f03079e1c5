"""What the code did in a failing test: the calls into the files to edit, in order, with
their arguments, what they returned or raised, their variables at the end, and what changed
on `self` (runtime values as feedback, after LDB: Zhong et al. 2024, "Debug like a Human").

Why: when a small model sends the code back unchanged twice, it does not see the bug from the
source and the assertion (fix_inventory_state: "assert 5 == 3" for a remove() that computed
the new count and never stored it). The values make it concrete: `remove(name='apple',
qty=2) returned 3; its variables: have=5, left=3; self._stock unchanged: {'apple': 5}`.

The tests run under a tracer in the sandbox, through the shell tool, like the tests
themselves: the code is the model's. What comes back is read as data (one JSON line, sizes
capped) and only ever shown to the model.
"""

from __future__ import annotations

from codeloop import jsonsafe
from codeloop.jobs.edit_engine.sandbox_script import python_command
from codeloop.jobs.edit_engine.stable_output import stable_output

MARK = "CODELOOP-TRACE "
MAX_TESTS = 1  # the first failing test: a second doubles the prompt and rarely adds
MAX_TEXT = 2_500

# Run in the sandbox: pytest in-process under sys.settrace, calls into the target files
# recorded per test; one JSON line (after MARK) with the failing tests' calls.
_RUNNER = r'''
import contextlib, io, json, os, reprlib, sys
targets = {os.path.abspath(p) for p in json.loads(sys.argv[1])}
short = reprlib.Repr()
short.maxstring = short.maxother = 60
short.maxlist = short.maxtuple = short.maxdict = short.maxset = 6
short.maxlevel = 3
MAX_CALLS = 6

def show(value):
    try:
        return short.repr(value)
    except Exception:
        return "<" + type(value).__name__ + ">"

def attrs(obj):
    try:
        return {k: show(v) for k, v in list(vars(obj).items())[:8]}
    except TypeError:
        return None

calls, failed, current = {}, [], [None]

def tracer(frame, event, arg):
    if event != "call" or current[0] is None:
        return None
    code = frame.f_code
    if os.path.abspath(code.co_filename) not in targets:
        return None
    records = calls.setdefault(current[0], [])
    if len(records) >= MAX_CALLS:
        return None
    params = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    local = frame.f_locals
    me = local.get("self") if params[:1] == ("self",) else None
    record = {"function": getattr(code, "co_qualname", code.co_name),
              "args": [[a, show(local[a])] for a in params if a != "self" and a in local],
              "before": attrs(me) if me is not None else None}
    records.append(record)

    def step(frame, event, arg):
        if event == "exception":
            record["raised"] = arg[0].__name__ + ": " + show(str(arg[1]))
        elif event == "line":
            record.pop("raised", None)  # caught inside the function
        elif event == "return":
            if "raised" not in record:
                record["returned"] = show(arg)
            record["variables"] = [[k, show(v)] for k, v in frame.f_locals.items()
                                   if k not in params and k != "self"][:6]
            if me is not None:
                record["after"] = attrs(me)
        return step
    return step

class Watch:
    def pytest_runtest_setup(self, item):
        current[0] = item.nodeid

    def pytest_runtest_logreport(self, report):
        if report.failed and report.nodeid not in failed:
            failed.append(report.nodeid)

import pytest
sys.settrace(tracer)
try:
    with contextlib.redirect_stdout(io.StringIO()):
        pytest.main(["-q", "-p", "no:cacheprovider"], plugins=[Watch()])
finally:
    sys.settrace(None)
out = [{"test": t, "calls": calls.get(t, [])} for t in failed[:1]]
print("CODELOOP-TRACE " + json.dumps(out))
'''


def trace_command(paths: list[str]) -> str:
    """The shell command that runs the project's tests under the tracer, recording the calls
    into `paths` (the payload base64-encoded: no quoting)."""
    return python_command("trace", _RUNNER, paths)


def _text(value) -> str:
    return value if isinstance(value, str) else ""


def _pairs(value) -> list[tuple[str, str]]:
    if not isinstance(value, list):
        return []
    return [(_text(p[0]), _text(p[1])) for p in value
            if isinstance(p, list) and len(p) == 2]


def _state_lines(before, after) -> list[str]:
    """What changed on self; what stayed too, when something changed (a method that updates
    one attribute and not the other is the bug this shows)."""
    if not isinstance(before, dict) or not isinstance(after, dict):
        return []
    changed = [f"    self.{k}: {_text(before.get(k)) or '(not set)'} -> {_text(v)}"
               for k, v in after.items() if before.get(k) != v]
    if not changed:
        return []
    same = [f"    self.{k} unchanged: {_text(v)}" for k, v in after.items()
            if before.get(k) == v]
    return changed + same


def trace_text(output: str, paths: list[str]) -> str:
    """The trace as lines for the model; "" when the output holds none (no failing test, the
    tracer crashed, or the output is not what the runner prints)."""
    line = next((raw for raw in reversed(output.splitlines()) if raw.startswith(MARK)), "")
    try:
        tests = jsonsafe.loads(line[len(MARK):]) if line else []
    except ValueError:  # the model's code can print this line too
        return ""
    parts: list[str] = []
    for test in tests[:MAX_TESTS] if isinstance(tests, list) else []:
        calls = test.get("calls") if isinstance(test, dict) else None
        if not isinstance(calls, list) or not calls:
            continue
        parts.append(f"What the code did in the failing test {_text(test.get('test'))} (the "
                     f"calls into {', '.join(paths)}, in order):")
        for call in calls:
            if not isinstance(call, dict):
                continue
            args = ", ".join(f"{k}={v}" for k, v in _pairs(call.get("args")))
            head = f"- {_text(call.get('function'))}({args})"
            head += (f" raised {_text(call['raised'])}" if "raised" in call
                     else f" returned {_text(call.get('returned'))}")
            parts.append(head)
            variables = _pairs(call.get("variables"))
            if variables:
                parts.append("    its variables at the end: "
                             + ", ".join(f"{k}={v}" for k, v in variables))
            parts += _state_lines(call.get("before"), call.get("after"))
    text = stable_output("\n".join(parts))
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT].rsplit("\n", 1)[0] + "\n..."


def failure_trace(box, paths: list[str]) -> str:
    """Run the tests under the tracer through `box`'s shell tool (the sandbox); the calls
    into `paths` in the failing tests, as text for the model ("" when there is nothing)."""
    python = [p for p in paths if p.endswith(".py")]
    if not python:
        return ""
    outcome = box.run("run_bash_command", {"command": trace_command(python)})
    return trace_text(outcome.output, python)
