"""Why a task's code would go untested, said up front: examples that call some other
function are not tests of this one (a typo, a renamed function) and are named, not dropped
silently; a task with no test at all gets the UNTESTED verdict with the reason."""

from __future__ import annotations

import ast

from codeloop.solve.tasks import Task

MAX_NAMED = 3  # dropped examples quoted in the reason; the count says how many in all
MAX_QUOTED = 80  # characters of one quoted example


def example_chunks(examples: str) -> list[str]:
    """The example lines, one per example: a doctest's expected-value line belongs to the
    `>>>` line before it and is not an example of its own."""
    chunks: list[str] = []
    after_prompt = False
    for raw in examples.splitlines():
        line = raw.strip()
        if not line:
            after_prompt = False
            continue
        if line.startswith(">>>"):
            chunks.append(line)
            after_prompt = True
        elif after_prompt:
            after_prompt = False  # the value a `>>>` call is expected to give
        else:
            chunks.append(line)
    return chunks


def _expression(chunk: str) -> ast.expr | None:
    text = chunk.removeprefix(">>>").strip()
    text = text.removeprefix("assert ").strip()
    try:
        return ast.parse(text, mode="eval").body
    except SyntaxError:
        return None


def _called_names(node: ast.expr) -> set[str]:
    return {c.func.id for c in ast.walk(node)
            if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}


def stray_examples(examples: str, entry_point: str) -> list[str]:
    """Examples that are Python calling some function, but never `entry_point`: they
    cannot test it."""
    stray = []
    for chunk in example_chunks(examples):
        node = _expression(chunk)
        if node is None:
            continue
        names = _called_names(node)
        if names and entry_point not in names:
            stray.append(chunk)
    return stray


def quoted(chunks: list[str]) -> str:
    shown = [c if len(c) <= MAX_QUOTED else c[:MAX_QUOTED - 1] + "…" for c in chunks[:MAX_NAMED]]
    more = f" (and {len(chunks) - MAX_NAMED} more)" if len(chunks) > MAX_NAMED else ""
    return "; ".join(f"`{c}`" for c in shown) + more


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def untested_reason(task: Task, has_test_file: bool) -> str:
    """Why no test ran for `task`, in one line (for a task none of whose examples became a
    test and whose test file, if any, held none)."""
    name = task.entry_point
    stray = stray_examples(task.examples, name)
    chunks = example_chunks(task.examples)
    if stray:
        why = (f"no example calls {name}; {_plural(len(stray), 'example')} dropped: "
               f"{quoted(stray)}")
    elif chunks:
        why = (f"no example is a test of {name} (write one as `{name}(...) == value`); "
               f"{_plural(len(chunks), 'line')} ignored: {quoted(chunks)}")
    else:
        why = "the task has no examples"
    why += "; the test file held no test for it" if has_test_file else " and no test file"
    return f"{why}: nothing checked what {name} returns"


def dropped_warning(task: Task) -> str:
    """A warning naming the examples that do not call the function ("" when none): the
    task's other examples ran, these did not."""
    stray = stray_examples(task.examples, task.entry_point)
    if not stray:
        return ""
    verb = "does" if len(stray) == 1 else "do"
    return (f"{_plural(len(stray), 'example')} {verb} not call {task.entry_point}, so "
            f"{'it was' if len(stray) == 1 else 'they were'} not run: {quoted(stray)}")
