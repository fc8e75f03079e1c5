"""Plain-text report of a task list."""

from models import Task


def format_task(task: Task) -> str:
    mark = "x" if task.done else " "
    return f"[{mark}] (P{task.priority}) {task.title}"


def format_report(tasks: list[Task]) -> str:
    ordered = sorted(tasks, key=lambda t: -t.priority)
    lines = [format_task(t) for t in ordered]
    done = sum(1 for t in tasks if t.done)
    lines.append(f"{len(tasks)} tasks, {done} done")
    return "\n".join(lines)
