"""The review run's terminal view: the one-line debug form, coloured diffs with their counts
and description, findings by severity, the resume lines, and hostile text (terminal escapes,
rich markup, newlines in model-written names and messages) shown inert."""

from __future__ import annotations

import re
import time

from rich.console import Console

from codeloop.commands.review_view import (
    LiveReview,
    debug_line,
    diff_body,
    diff_counts,
    findings_table,
    render_diff,
    render_outcome,
    render_pending,
    resume_commands,
)
from codeloop.events import DebugLog, StageStart, TokenUsage

HUNKS = ("--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,3 @@\n def add(a, b):\n"
         "-    return a + b\n+    \"\"\"Add.\"\"\"\n+    return a + b\n")


def _console(width: int = 120) -> Console:
    return Console(record=True, width=width, force_terminal=True, color_system="truecolor")


def test_debug_line_is_the_seeds_one_line_form():
    ts = time.mktime((2026, 1, 2, 9, 5, 7, 0, 0, -1))
    event = DebugLog(ts=ts, node="reviewer", agent="ReviewerAgent", event_type="thinking",
                     content="checking 2 files\n  against   the tests",
                     token_usage=TokenUsage(prompt_tokens=1000, completion_tokens=234,
                                            total_tokens=1234))
    assert debug_line(event) == ("[09:05:07] reviewer/ReviewerAgent 💭 checking 2 files "
                                 "against the tests (1,234 tokens)")
    bare = DebugLog(ts=ts, node="persistence", event_type="result", content="wrote a.py")
    assert debug_line(bare) == "[09:05:07] persistence ✅ wrote a.py"
    icons = {kind: debug_line(DebugLog(node="n", event_type=kind)).split()[2]
             for kind in ("thinking", "tool_call", "prompt", "result", "error")}
    assert len(set(icons.values())) == 5


def test_debug_line_keeps_hostile_content_inert_and_short():
    event = DebugLog(node="coder", event_type="result",
                     content="\x1b]52;c;ZXZpbA==\x07 \x1b[2J" + "x" * 500)
    line = debug_line(event)
    assert "\x1b" not in line and "\x07" not in line and "\\x1b]52" in line
    assert "\n" not in line and len(line) < 260 and line.endswith("…")


def test_live_view_prints_debug_logs_only_with_debug():
    events = [StageStart(stage="security_gate", detail="2 files"),
              DebugLog(node="security_gate", agent="Bandit", event_type="tool_call",
                       content="bandit -q calc.py")]
    quiet, loud = _console(), _console()
    for event in events:
        LiveReview(quiet)(event)
        LiveReview(loud, debug=True)(event)
    shown = quiet.export_text()
    assert "security_gate" in shown and "bandit -q" not in shown
    text = loud.export_text()
    assert "▶ security_gate 2 files" in text
    assert re.search(r"\[\d\d:\d\d:\d\d\] security_gate/Bandit 🔧 bandit -q calc.py", text)


def test_a_diff_is_coloured_with_counts_and_description():
    console = _console()
    diff = {"file_path": "calc.py", "original_content": "x", "modified_content": "y",
            "diff_hunks": HUNKS, "description": "Add a docstring", "added": 2, "removed": 1}
    render_diff(console, diff)
    text = console.export_text(clear=False)
    assert "calc.py" in text and "+2 -1" in text and "Add a docstring" in text
    assert "(new file)" not in text
    body = diff_body(HUNKS)
    styles = {body.plain[span.start:span.end].rstrip("\n"): str(span.style)
              for span in body.spans}
    assert styles['+    """Add."""'] == "green"
    assert styles["-    return a + b"] == "red"
    assert styles["@@ -1,2 +1,3 @@"] == "cyan"
    assert styles["+++ b/calc.py"] == "bold"
    ansi = console.export_text(styles=True, clear=False)
    assert "\x1b[32m" in ansi and "\x1b[31m" in ansi  # green and red reach the terminal


def test_counts_come_from_the_hunks_when_the_engine_gives_none():
    assert diff_counts({"diff_hunks": HUNKS}) == (2, 1)
    assert diff_counts({"diff_hunks": HUNKS, "added": 7, "removed": 0}) == (7, 0)


def test_hostile_names_and_descriptions_are_shown_not_obeyed():
    console = _console()
    diff = {"file_path": "[bold red]x[/]\x1b[2J.py", "original_content": "",
            "diff_hunks": "+++ b/x\n+\x1b]52;c;ZXZpbA==\x07\n",
            "description": "[link=file:///etc/passwd]click[/link]\x9b31m"}
    render_diff(console, diff)
    render_outcome(console, {"status": "applied", "message": "[blink]done\x1b[5m",
                             "written": ["a\x1b[1Ab.py"], "run_id": "review-1"})
    raw = console.export_text(styles=True, clear=False)
    text = console.export_text()
    assert "\x1b[2J" not in raw and "\x1b]52" not in raw and "\x9b" not in raw
    assert "\x1b[1A" not in raw and "\x1b[5m" not in raw
    # what a person approves shows each control as a marker (textsafe's one rule)
    assert "[bold red]x[/]⟪U+001B⟫[2J.py" in text and "(new file)" in text
    assert "+⟪U+001B⟫]52;c;ZXZpbA==⟪U+0007⟫" in text
    assert "[link=file:///etc/passwd]click[/link]⟪U+009B⟫31m" in text
    assert "[blink]done\\x1b[5m" in text


def test_findings_are_listed_high_first_and_pending_shows_the_verdict():
    findings = [{"tool": "bandit", "severity": "low", "line": 3, "file_path": "a.py",
                 "message": "assert used"},
                {"tool": "secrets", "severity": "high", "line": 9, "file_path": "b.py",
                 "message": "hard-coded password"}]
    console = _console()
    console.print(findings_table(findings))
    text = console.export_text()
    assert text.index("hard-coded password") < text.index("assert used")
    assert "b.py:9" in text
    console = _console()
    render_pending(console, {"workflow_type": "review", "pending_diffs": [
        {"file_path": "calc.py", "diff_hunks": HUNKS, "original_content": "x",
         "description": "doc"}], "findings": findings,
        "review_feedback": {"approved": False, "issues": ["SQL built by +"],
                            "suggestions": ["use parameters"],
                            "tests": {"passed": 3, "failed": 1},
                            "model_approved": True,
                            "metrics": {"calc.py": {"mi_before": 88.6, "mi_after": 78.6,
                                                    "mi_delta": -10.0, "complexity_before": 1,
                                                    "complexity_after": 2,
                                                    "complexity_delta": 1}}}})
    text = console.export_text()
    assert "1 file(s) to change (review)" in text
    assert "Reviewer: not approved (the model approved; a failing test" in text
    assert "tests: 3 passed, 1 failed" in text
    assert "issue: SQL built by +" in text and "suggestion: use parameters" in text
    assert ("calc.py: maintainability 88.6 → 78.6 (-10.0), complexity 1 → 2 (+1)"
            in text)


def test_resume_lines_name_the_store_quoted():
    approve, reject = resume_commands("review-1", "/tmp/my runs.sqlite")
    assert approve == "codeloop approve review-1 -m \"LGTM\" --store '/tmp/my runs.sqlite'"
    assert reject.startswith("codeloop reject review-1 -m ")
    assert resume_commands("review-1", None)[0] == 'codeloop approve review-1 -m "LGTM"'
