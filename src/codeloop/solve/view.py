"""The terminal view of a solve run: a live line per stage (with each stage's output and the
model's tokens when asked), then the code, the verdict, the metrics and the usage tables.
It is one more consumer of the event stream."""

from __future__ import annotations

from rich.console import Console
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table

from codeloop.events import Event
from codeloop.solve.runner import SolveResult
from codeloop.solve.state import CORRECT, UNTESTED
from codeloop.textsafe import printable


class LiveStages:
    """Prints stage progress as events arrive. With `show_node_info`, each stage's output
    too, and streamed tokens as the model writes them."""

    def __init__(self, console: Console, show_node_info: bool = False) -> None:
        self.console = console
        self.show_node_info = show_node_info
        self._streaming = False

    def __call__(self, event: Event) -> None:
        if event.type == "token" and self.show_node_info:
            self.console.out(printable(event.text), end="", highlight=False, style="dim")
            self._streaming = True
            return
        if self._streaming and event.type != "token":
            self.console.out("")
            self._streaming = False
        if event.type == "stage_start":
            self.console.print(f"[bold cyan]▶ {event.stage}[/] [dim]{event.detail}[/]")
        elif event.type == "stage_end":
            mark = "[green]✓[/]" if event.ok else "[yellow]✗[/]"
            self.console.print(f"{mark} {event.stage} [dim]{event.seconds:.1f}s[/]")
            if self.show_node_info and event.output:
                self.console.print(Panel(printable(event.output), title=event.stage,
                                         expand=False),
                                   markup=False, highlight=False)
        elif event.type == "llm_call":
            self.console.print(f"  [dim]model {event.model}: {event.prompt_tokens} prompt + "
                               f"{event.completion_tokens} completion tokens, "
                               f"{event.seconds:.1f}s[/]")
        elif event.type == "test_result":
            self.console.print(f"  [dim]tests: {event.passed} passed, {event.failed} failed[/]")


def render_result(console: Console, result: SolveResult) -> None:
    console.rule(f"[bold]{result.task_id}")
    if result.code:
        # Wrapped, never cropped at the terminal's width: a cut line reads as other code.
        console.print(Syntax(printable(result.code), "python", line_numbers=False,
                             word_wrap=True))
    else:
        console.print("[red](no code was produced)[/]")
    style = {CORRECT: "bold green", UNTESTED: "bold yellow"}.get(result.verdict, "bold red")
    ex = result.exec_result
    tested = f"{ex['passed']}/{ex['total']} tests passed" if ex["total"] else "no tests to run"
    console.print(f"[{style}]{result.verdict}[/]  ({tested}, "
                  f"{result.refinement_count} refinement round(s))")
    if result.untested_reason:
        console.print(f"  - untested: {printable(result.untested_reason)}", markup=False,
                      highlight=False)
    for issue in result.review.get("issues", []):
        console.print(f"  - {printable(issue)}", markup=False, highlight=False)
    for warning in result.review.get("warnings", []):
        console.print(f"  - warning: {printable(warning)}", markup=False, highlight=False)
    console.print(metrics_table(result))
    console.print(usage_table(result))


def metrics_table(result: SolveResult) -> Table:
    from codeloop.quality.metrics import QualityMetrics

    table = Table(title="Quality metrics", show_header=False)
    table.add_column("metric")
    table.add_column("value")
    if not result.quality_metrics:
        table.add_row("(no code)", "")
        return table
    for label, value in QualityMetrics.model_validate(result.quality_metrics).table_rows():
        table.add_row(label, value)
    return table


def usage_table(result: SolveResult) -> Table:
    table = Table(title="Stages")
    for column in ("stage", "calls", "prompt tokens", "completion tokens", "seconds"):
        table.add_column(column, justify="left" if column == "stage" else "right")
    for stage, figures in result.stages.items():
        table.add_row(stage, str(figures.calls), str(figures.prompt_tokens),
                      str(figures.completion_tokens), f"{figures.seconds:.1f}")
    t = result.totals
    table.add_row("total", str(t.calls), str(t.prompt_tokens), str(t.completion_tokens),
                  f"{t.seconds:.1f}", style="bold")
    return table
