"""What a run records about itself: the machine, the version, the command line, the date."""

from __future__ import annotations

import os
import platform
import shlex
import sys
from datetime import UTC, datetime
from pathlib import Path

from codeloop import __version__


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict[str, object]:
    return {
        "cores": os.cpu_count(),
        "cpu_model": cpu_model(),
        "platform": platform.platform(),
        "python": platform.python_version(),
    }


def command_line(argv: list[str] | None = None) -> str:
    argv = list(sys.argv if argv is None else argv)
    if argv:
        argv[0] = Path(argv[0]).name
    return shlex.join(argv)


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def runtime(llm: object) -> dict[str, object]:
    """The backend settings that change a greedy answer: llama.cpp's thread count changes
    the order of its float sums, and measured here the same greedy one-shot HumanEval run
    gave 117/164 with 1 thread and 113/164 with 2."""
    return {key: getattr(llm, key) for key in ("n_threads", "n_ctx") if hasattr(llm, key)}


def run_meta(*, dataset: str, data_path: str | None, strategy: str, model: str,
             options: dict[str, object] | None = None,
             argv: list[str] | None = None) -> dict[str, object]:
    return {
        "dataset": dataset,
        "data_path": data_path,
        "strategy": strategy,
        "model": model,
        "options": options or {},
        "date": now_iso(),
        "machine": machine(),
        "codeloop_version": __version__,
        "command": command_line(argv),
    }
