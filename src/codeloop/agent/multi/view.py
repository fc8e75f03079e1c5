"""What a multi-agent run hands the user: the plan, each round's implementation report and
validation verdict, as data (--json, the run store) and as terminal lines.

Everything in them is model text: it is shown through `printable` as plain rich Text, never
as markup, so a plan cannot style, link or clear the terminal.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from codeloop.agent.multi.schemas import MultiAgentResult
from codeloop.textsafe import printable


def phase_details(result: MultiAgentResult) -> dict[str, Any]:
    """The phases' outputs for --json and the run's record (status, steps and tokens are
    the turn's own keys)."""
    return result.model_dump(include={"plan", "implementations", "validations", "rounds",
                                      "notes"})


def print_phases(console: Console, details: dict[str, Any]) -> None:
    plan = details.get("plan")
    if plan:
        _line(console, "Plan: ", plan["analysis"])
        for step in plan["steps"]:
            _line(console, "", f"{step['seq']}. {step['action']} {step['file']}: "
                               f"{step['details']}", indent=2)
        for consideration in plan["considerations"]:
            _line(console, "", f"- {consideration}", indent=2)
    implementations = details.get("implementations") or []
    validations = details.get("validations") or []
    for index in range(max(len(implementations), len(validations))):
        if index < len(implementations):
            _line(console, f"Implementation, round {index + 1}: ",
                  implementation_summary(implementations[index]))
        if index < len(validations):
            review = validations[index]
            _line(console, f"Validation, round {index + 1}: ",
                  f"{review['status']} (quality {review['quality_score']:.1f}/10): "
                  f"{review['changes_summary']}")
            for issue in review["issues"]:
                _line(console, "", f"- {issue}", indent=2)
            if review["fix_instructions"]:
                _line(console, "", f"fix: {review['fix_instructions']}", indent=2)
    for note in details.get("notes") or []:
        _line(console, "note: ", note)


def implementation_summary(report: dict[str, Any]) -> str:
    """"success; created a.py; modified b.py; lint: a.py 9.5 (unused import)"."""
    parts = [report["status"]]
    if report["files_created"]:
        parts.append("created " + ", ".join(report["files_created"]))
    if report["files_modified"]:
        parts.append("modified " + ", ".join(report["files_modified"]))
    if not report["files_created"] and not report["files_modified"]:
        parts.append("no file named")
    lints = [f"{lint['file']} {lint['score']:.1f}" + (f" ({lint['notes']})" if lint["notes"]
                                                      else "")
             for lint in report["linting_results"]]
    if lints:
        parts.append("lint: " + ", ".join(lints))
    return "; ".join(parts)


def _line(console: Console, label: str, text: str, indent: int = 0) -> None:
    line = Text(" " * indent)
    line.append(label, style="bold")
    line.append(printable(text))
    console.print(line, highlight=False)
