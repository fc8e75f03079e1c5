"""What the terminal shows of an ask run: the nodes as they finish, the answer, and the score
panel (the five metrics with their weights, the overall score, and grounding beside it).

Everything shown that came from the repository or the model is escaped: a file can hold
rich markup or terminal control sequences."""

from __future__ import annotations

from rich.console import Console
from rich.markdown import Markdown
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table

from codeloop.ask.service import AskResult
from codeloop.events import Event
from codeloop.textsafe import printable

LABELS = {"task_completion": "Task completion", "reasoning_quality": "Reasoning quality",
          "tool_effectiveness": "Tool effectiveness", "reflection_quality": "Reflection quality",
          "output_quality": "Output quality"}


def _safe(text: str) -> str:
    return escape(printable(text))


class LiveNodes:
    """An event listener: one dim line per finished node and per tool call."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def __call__(self, event: Event) -> None:
        if event.type == "stage_end":
            first = (event.output.strip().splitlines() or [""])[0][:110]
            self.console.print(f"[dim]{event.stage} ({event.seconds:.1f} s): {_safe(first)}[/]",
                               highlight=False)
        elif event.type == "tool_call":
            self.console.print(f"[dim]  tool {event.tool}: {_safe(event.result[:100])}[/]",
                               highlight=False)


def score_table(result: AskResult) -> Table:
    table = Table(title="Evaluation", show_edge=False, pad_edge=False)
    table.add_column("metric")
    table.add_column("score", justify="right")
    table.add_column("weight", justify="right")
    table.add_column("why")
    metrics = result.evaluation_scores.get("metrics", {})
    for name, label in LABELS.items():
        m = metrics.get(name)
        if m is not None:
            table.add_row(label, str(m["score"]), str(m["weight"]), _safe("; ".join(m["why"])))
    table.add_row("[bold]Overall[/]", f"[bold]{result.evaluation_scores.get('overall', 0)}[/]",
                  "100", "")
    return table


def grounding_line(result: AskResult) -> str:
    g = result.grounding
    if not g or not g.get("cited"):
        return "Grounding: no file:line cited"
    line = (f"Grounding: {g['grounded']}/{g['cited']} citations grounded ({g['rate']:.0%}), "
            f"{g['existing']} exist")
    if g.get("invented"):
        line += "; invented: " + ", ".join(g["invented"][:5])
    return line


def render_result(console: Console, result: AskResult) -> None:
    kind = f"{result.task_type} (by {result.task_type_source})"
    console.print(f"[bold]Task type:[/] {_safe(kind)}", highlight=False)
    if result.output_source == "template":
        console.print("[yellow]No model reachable: the report is built from the tool data "
                      "alone.[/]")
    console.print(Markdown(printable(result.final_output)))
    console.print(Panel(score_table(result), title="Score", expand=False))
    console.print(_safe(grounding_line(result)), highlight=False)
    t = result.totals
    console.print(f"[dim]{result.iteration_count} iteration(s), {t.calls} model call(s), "
                  f"{t.total_tokens} tokens, {result.seconds:.1f} s[/]", highlight=False)
