"""The ask REPL: each line is a question (its type detected, its score panel shown); the
session keeps its history and stats.

/history  this session's questions, types and scores
/stats    queries, tokens, mean score, mean grounding
/help     this list
/quit     leave (also /exit, or end of input)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from rich.console import Console
from rich.markup import escape

from codeloop.ask.service import AskResult
from codeloop.textsafe import printable

HELP = __doc__.split("\n\n", 1)[1].strip()


@dataclass
class SessionStats:
    results: list[AskResult] = field(default_factory=list)
    errors: int = 0

    def add(self, result: AskResult) -> None:
        self.results.append(result)

    def summary(self) -> dict[str, float | int | None]:
        n = len(self.results)
        rates = [r.grounding["rate"] for r in self.results
                 if r.grounding and r.grounding.get("rate") is not None]
        return {
            "queries": n,
            "errors": self.errors,
            "tokens": sum(r.totals.total_tokens for r in self.results),
            "mean_score": round(sum(r.evaluation_scores.get("overall", 0)
                                    for r in self.results) / n, 1) if n else None,
            "mean_grounding": round(sum(rates) / len(rates), 3) if rates else None,
            "seconds": round(sum(r.seconds for r in self.results), 1),
        }


def run_repl(answer: Callable[[str], AskResult | None], read_line: Callable[[], str | None],
             console: Console, show: Callable[[AskResult], None]) -> SessionStats:
    """Read lines until /quit or the end of input. `answer(question)` runs one question (None
    when it failed: it has told the user why); `show` prints a result."""
    stats = SessionStats()
    console.print("[dim]codeloop ask. Type a question, or /help.[/]")
    while True:
        line = read_line()
        if line is None:
            break
        line = line.strip()
        if not line:
            continue
        if line.startswith("/"):
            if not _command(line, stats, console):
                break
            continue
        result = answer(line)
        if result is None:
            stats.errors += 1
            continue
        stats.add(result)
        show(result)
    return stats


def _command(line: str, stats: SessionStats, console: Console) -> bool:
    """Run a slash command; False means quit."""
    name = line.split()[0]
    if name in ("/quit", "/exit"):
        return False
    if name == "/history":
        if not stats.results:
            console.print("[dim]No questions yet.[/]")
        for i, r in enumerate(stats.results, start=1):
            rate = r.grounding.get("rate") if r.grounding else None
            line = (f"{i}. [{r.task_type}] {printable(r.task[:80])} -> score "
                    f"{r.evaluation_scores.get('overall')}, grounding "
                    f"{'n/a' if rate is None else f'{rate:.0%}'}")
            console.print(escape(line), highlight=False)
    elif name == "/stats":
        s = stats.summary()
        score = "n/a" if s["mean_score"] is None else s["mean_score"]
        grounding = "n/a" if s["mean_grounding"] is None else f"{s['mean_grounding']:.0%}"
        console.print(f"{s['queries']} queries ({s['errors']} failed), {s['tokens']} tokens, "
                      f"mean score {score}, mean grounding {grounding}, {s['seconds']} s",
                      highlight=False)
    elif name == "/help":
        console.print(escape(HELP))
    else:
        console.print(f"[yellow]unknown command {escape(name)}[/] (try /help)")
    return True
