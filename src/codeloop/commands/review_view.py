"""The terminal view of a review run: live stage lines (and, with --debug, every DebugLog in
the one-line form `[HH:MM:SS] node/agent ICON content (tokens)`), the pending diffs coloured
with their +/- counts and description, the security findings, the reviewer's verdict, the
approval prompt, and the final outcome.

Everything shown here was written or chosen by a model (file names, diffs, messages): it is
printed through `printable` and as rich Text, never read as markup or terminal controls.
Outcomes are plain dicts (ReviewOutcome.model_dump()), so this module needs no engine."""

from __future__ import annotations

import shlex
import time
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from codeloop.run_statuses import settle
from codeloop.textsafe import marked_segments, printable

ICONS = {"thinking": "💭", "tool_call": "🔧", "prompt": "📝", "result": "✅", "error": "❌"}
DEBUG_CONTENT_CHARS = 200  # a debug line stays one line; the full text is in the run store
SEVERITY_STYLES = {"high": "bold red", "medium": "yellow", "low": "dim"}
# By the run's status (run_statuses.STATUSES): the same words every job's runs show.
STATUS_STYLES = {"succeeded": "bold green", "awaiting_approval": "bold yellow",
                 "failed": "bold red", "cancelled": "bold yellow", "interrupted": "bold yellow"}


def one_line(text: str, limit: int = DEBUG_CONTENT_CHARS) -> str:
    """`text` on one line (whitespace runs collapsed), cut at `limit` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def debug_line(event: Any) -> str:
    """The seed's one-line form of a DebugLog event: `[HH:MM:SS] node/agent ICON content
    (N tokens)`; the token part only when the step cost any."""
    stamp = time.strftime("%H:%M:%S", time.localtime(event.ts))
    who = f"{event.node}/{event.agent}" if event.agent else event.node
    icon = ICONS.get(event.event_type, "•")
    line = f"[{stamp}] {who} {icon} {one_line(event.content)}"
    total = event.token_usage.total_tokens
    if total:
        line += f" ({total:,} tokens)"
    return printable(line)


class LiveReview:
    """An event-bus listener: a line per node as the run goes, model calls dimmed, errors in
    red; with `debug`, every DebugLog line too. Listeners may be called from worker threads;
    rich's Console serialises its writes."""

    def __init__(self, console: Console, debug: bool = False) -> None:
        self.console = console
        self.debug = debug

    def __call__(self, event: Any) -> None:
        kind = event.type
        if kind == "debug_log":
            if self.debug:
                style = "red" if event.event_type == "error" else "dim" if \
                    event.event_type == "prompt" else None
                self.console.print(Text(debug_line(event), style=style or ""),
                                   soft_wrap=True)
        elif kind == "stage_start":
            self.console.print(Text.assemble(("▶ ", "bold cyan"),
                                             (printable(event.stage), "bold cyan"),
                                             (" " + one_line(printable(event.detail)), "dim")))
        elif kind == "stage_end":
            mark = ("✓ ", "green") if event.ok else ("✗ ", "yellow")
            self.console.print(Text.assemble(mark, printable(event.stage),
                                             (f" {event.seconds:.1f}s", "dim")))
        elif kind == "llm_call" and not self.debug:
            self.console.print(Text(
                f"  model {printable(event.model)}: {event.prompt_tokens} prompt + "
                f"{event.completion_tokens} completion tokens, {event.seconds:.1f}s",
                style="dim"))
        elif kind == "test_result":
            self.console.print(Text(f"  tests: {event.passed} passed, {event.failed} failed",
                                    style="dim"))
        elif kind == "error":
            where = f"{printable(event.where)}: " if event.where else ""
            self.console.print(Text(f"  error: {where}{one_line(printable(event.message))}",
                                    style="red"))


# ------------------------------------------------------------------ diffs and findings
MARKER_STYLE = "bold black on yellow"


def shown_exactly(text: str, style: str = "") -> Text:
    """`text` as it is, but each hidden character (control, bidi override, zero-width, line
    separator: textsafe's rule) as a styled `⟪U+XXXX⟫` marker: what a person approves
    reads as what gets written."""
    out = Text(style=style)
    for piece, is_marker in marked_segments(text):
        out.append(piece, style=MARKER_STYLE if is_marker else "")
    return out


def diff_body(hunks: str) -> Text:
    """A unified diff, coloured line by line: additions green, removals red, hunk headers
    cyan, file headers bold. Lines end at newlines only, as in the file."""
    body = Text()
    lines = hunks.split("\n")
    for line in lines[:-1] if lines and lines[-1] == "" else lines:
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("+"):
            style = "green"
        elif line.startswith("-"):
            style = "red"
        elif line.startswith("@@"):
            style = "cyan"
        else:
            style = ""
        body.append(shown_exactly(line, style))
        body.append("\n")
    return body


def diff_counts(diff: dict[str, Any]) -> tuple[int, int]:
    """(+added, -removed) lines: the engine's figures, or counted from the hunks."""
    if isinstance(diff.get("added"), int) and isinstance(diff.get("removed"), int):
        return diff["added"], diff["removed"]
    lines = str(diff.get("diff_hunks") or "").splitlines()
    added = sum(1 for x in lines if x.startswith("+") and not x.startswith("+++"))
    removed = sum(1 for x in lines if x.startswith("-") and not x.startswith("---"))
    return added, removed


def render_diff(console: Console, diff: dict[str, Any]) -> None:
    added, removed = diff_counts(diff)
    new_file = not diff.get("original_content")
    title = Text.assemble(shown_exactly(str(diff.get("file_path", "?")), "bold"),
                          " (new file)" if new_file else "", "  ",
                          (f"+{added}", "green"), " ", (f"-{removed}", "red"))
    console.rule(title, align="left")
    if diff.get("description"):
        console.print(shown_exactly(str(diff["description"]), "italic"))
    hunks = str(diff.get("diff_hunks") or "")
    console.print(diff_body(hunks) if hunks.strip() else Text("(no textual change)",
                                                                style="dim"))


def findings_table(findings: list[dict[str, Any]]) -> Table:
    table = Table(title="Security findings", title_justify="left")
    for column in ("severity", "tool", "where", "message"):
        table.add_column(column)
    order = {"high": 0, "medium": 1, "low": 2}
    for f in sorted(findings, key=lambda f: order.get(str(f.get("severity")), 3)):
        severity = str(f.get("severity", "?"))
        where = printable(str(f.get("file_path") or ""))
        if f.get("line"):
            where += f":{f['line']}"
        table.add_row(Text(severity, style=SEVERITY_STYLES.get(severity, "")),
                      Text(printable(str(f.get("tool", "")))), Text(where),
                      Text(printable(str(f.get("message", "")))))
    return table


METRIC_LABELS = {"mi": "maintainability", "complexity": "complexity", "lloc": "logical lines"}
_FEEDBACK_SHOWN = {"approved", "model_approved", "iteration", "issues", "suggestions", "tests",
                   "metrics", "lint", "request_test"}


def _number(value: Any, signed: bool = False) -> str:
    if isinstance(value, float):
        return f"{value:+.1f}" if signed else f"{value:.1f}"
    if isinstance(value, int) and signed:
        return f"{value:+d}"
    return printable(str(value))


def metric_line(path: str, figures: dict[str, Any]) -> str:
    """`calc.py: maintainability 88.6 → 78.6 (-10.0), complexity 1 → 2 (+1)` from the
    reviewer's `<name>_before` / `_after` / `_delta` figures of one file."""
    names = list(dict.fromkeys(k.rsplit("_", 1)[0] for k in figures
                               if k.endswith(("_before", "_after", "_delta"))))
    parts = []
    for name in names:
        before, after = figures.get(f"{name}_before"), figures.get(f"{name}_after")
        delta = figures.get(f"{name}_delta")
        text = METRIC_LABELS.get(name, printable(name)) + " "
        text += (f"{_number(before)} → {_number(after)}" if before is not None
                 else f"{_number(after)} (new)")
        if delta:
            text += f" ({_number(delta, signed=True)})"
        parts.append(text)
    return f"{printable(path)}: {', '.join(parts)}"


def render_feedback(console: Console, feedback: dict[str, Any] | None) -> None:
    if not feedback:
        return
    approved = bool(feedback.get("approved"))
    line = Text.assemble("Reviewer: ", ("approved" if approved else "not approved",
                                        "bold green" if approved else "bold red"))
    if feedback.get("model_approved") and not approved:
        line.append(" (the model approved; a failing test or a HIGH finding overrules it)")
    elif approved and feedback.get("model_approved") is False:
        line.append(" (the model did not: its remarks are below; the request's test and "
                    "every check pass)")
    tests = feedback.get("tests") or {}
    if tests.get("ran") is False:
        line.append("  no tests ran")
    elif tests:
        line.append(f"  tests: {tests.get('passed', 0)} passed, {tests.get('failed', 0)} "
                    f"failed")
        before = tests.get("before")
        if isinstance(before, dict):
            line.append(f" (before: {before.get('passed', 0)} passed, "
                        f"{before.get('failed', 0)} failed)")
    console.print(line)
    request_test = feedback.get("request_test")
    if isinstance(request_test, dict):
        names = ", ".join(printable(str(n)) for n in request_test.get("tests") or [])
        state = "pass now" if request_test.get("passes") else "still fail"
        if request_test.get("set_aside"):
            state = "set aside: " + one_line(printable(str(request_test["set_aside"])), 400)
        console.print(Text(f"  request test {printable(str(request_test.get('path', '')))} "
                           f"({names}): failed on the code before the change, {state}",
                           style="green" if request_test.get("passes") else "yellow"))
    for failure in (tests.get("failures") or [])[:5]:
        console.print(Text(f"  - failing: {one_line(printable(str(failure)), 300)}",
                           style="red"))
    for label, key in (("issue", "issues"), ("suggestion", "suggestions"), ("lint", "lint")):
        for item in feedback.get(key) or []:
            console.print(Text(f"  - {label}: {one_line(printable(str(item)), 400)}"))
    metrics = feedback.get("metrics")
    if isinstance(metrics, dict):
        for path, figures in metrics.items():
            if isinstance(figures, dict):
                console.print(Text("  " + metric_line(str(path), figures), style="dim"))
    for key, value in feedback.items():  # anything newer the engine adds, shown plainly
        if key not in _FEEDBACK_SHOWN and value not in (None, "", [], {}):
            console.print(Text(f"  {printable(str(key))}: {one_line(printable(str(value)))}",
                               style="dim"))


def render_pending(console: Console, outcome: dict[str, Any]) -> None:
    """What a person approves: every diff, the findings, the reviewer's verdict."""
    diffs = outcome.get("pending_diffs") or []
    console.print(Text(f"{len(diffs)} file(s) to change ({outcome.get('workflow_type', '?')})",
                       style="bold"))
    for diff in diffs:
        render_diff(console, diff)
    if outcome.get("diff_digest"):  # what an approval names: these diffs and no others
        console.print(Text.assemble(("digest ", "dim"), printable(str(outcome["diff_digest"]))))
    if outcome.get("findings"):
        console.print(findings_table(outcome["findings"]))
    render_feedback(console, outcome.get("review_feedback"))


# ------------------------------------------------------------------ outcome and resuming
def resume_commands(run_id: str, store_flag: str | None, digest: str = "") -> list[str]:
    """The exact lines that decide a waiting run from another shell (with --store when the
    run lives in a store the default would not find). `digest`: of the diffs just shown;
    without it, `codeloop approve` shows them and asks for theirs."""
    suffix = f" --store {shlex.quote(store_flag)}" if store_flag else ""
    named = f" --digest {printable(digest)}" if digest else ""
    return [f'codeloop approve {run_id}{named} -m "LGTM"{suffix}',
            f'codeloop reject {run_id} -m "what to change"{suffix}']


def render_waiting(console: Console, run_id: str, store_flag: str | None,
                   digest: str = "") -> None:
    approve, reject = resume_commands(run_id, store_flag, digest)
    console.print(Text.assemble(("Waiting for approval: ", "bold yellow"), run_id))
    # soft_wrap: a command cut in two by the terminal width would not paste back whole
    console.print(Text.assemble("  approve: ", (approve, "bold")), soft_wrap=True)
    console.print(Text.assemble("  reject:  ", (reject, "bold")), soft_wrap=True)


def render_outcome(console: Console, outcome: dict[str, Any]) -> None:
    status = str(outcome.get("status", "?"))
    message = str(outcome.get("message", ""))
    if status == "awaiting_approval":  # the engine's line names commands; ours add --store
        files = [str(d.get("file_path", "?")) for d in outcome.get("pending_diffs") or []]
        message = f"changes to {', '.join(files)}" if files else "no file needs a change"
    # The run's status from the one set, the review's own word beside it (applied, blocked, ...)
    lifecycle = settle("review", status, outcome)[0]
    head = lifecycle.replace("_", " ") + (f" ({status})" if status != lifecycle else "")
    console.print(Text.assemble((head, STATUS_STYLES.get(lifecycle, "bold")), "  ",
                                printable(message)))
    for path in outcome.get("written") or []:
        console.print(Text(f"  wrote {printable(str(path))}", style="green"))
    for line in outcome.get("error_log") or []:
        console.print(Text(f"  - {printable(one_line(str(line), 400))}", style="red"))
    tokens = (outcome.get("tokens") or {}).get("total")
    if tokens:
        console.print(Text(f"  {tokens:,} tokens, {len(outcome.get('refinements') or [])} "
                           f"refinement(s)", style="dim"))
    console.print(Text(f"  run {outcome.get('run_id', '?')}", style="dim"))


def ask_decision(console: Console) -> tuple[bool, str] | None:
    """Ask approve / reject (with a message) / quit; None = quit (the run stays waiting).
    A rejection needs a message: it is what the refiner is told to change."""
    from rich.prompt import Prompt

    choice = Prompt.ask("[bold]Apply these changes?[/]", console=console,
                        choices=["approve", "reject", "quit"], default="approve")
    if choice == "quit":
        return None
    if choice == "approve":
        return True, Prompt.ask("Message", console=console, default="LGTM").strip() or "LGTM"
    while True:
        message = Prompt.ask("What should change? (sent to the refiner)",
                             console=console).strip()
        if message:
            return False, message
        console.print(escape("A rejection needs a message."), style="yellow")
