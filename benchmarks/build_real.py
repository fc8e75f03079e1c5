"""A real build with the embedded model (a benchmark, not a test): the bundled todo-API graph
(examples/build/todo/tasks.json: model, storage, endpoints) on python-api.

    flock /tmp/codeloop-model.lock .venv/bin/python benchmarks/build_real.py \\
        [--model local:qwen2.5-coder-1.5b] [--tasks examples/build/todo/tasks.json] \\
        [--max-parallel 1] [--retries 1] [--out-dir benchmarks/results/build-1.5b]

Writes OUT_DIR/summary.json (status, tasks merged, failures, tests at the end, tokens and
minutes per agent), OUT_DIR/progress.txt (every step as the terminal showed it) and
OUT_DIR/project.tar.gz (the generated project's main branch, via git archive) and
OUT_DIR/task-<id>.tar.gz for each task branch that was not merged, and
OUT_DIR/transcript.jsonl.gz (each model call: the agent, the messages, the reply).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

from codeloop.build.models import models_for
from codeloop.build.runner import BuildOptions, execute, prepare
from codeloop.build.runtime import BuildRuntime
from codeloop.config import load_config
from codeloop.gitutil import git
from codeloop.llm.base import LLMError, to_messages
from codeloop.store import RunStore

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="local:qwen2.5-coder-1.5b")
    parser.add_argument("--tasks", default=str(ROOT / "examples/build/todo/tasks.json"))
    parser.add_argument("--max-parallel", type=int, default=1)
    parser.add_argument("--retries", type=int, default=1)
    parser.add_argument("--out-dir", default=str(ROOT / "benchmarks/results/build-1.5b"))
    args = parser.parse_args()
    summary = run_build(args.tasks, args.model, Path(args.out_dir),
                        max_parallel=args.max_parallel, retries=args.retries,
                        command=".venv/bin/python benchmarks/build_real.py "
                                + " ".join(sys.argv[1:]))
    final = summary["final"]
    print(json.dumps({k: summary[k] for k in ("minutes", "tokens")}, indent=1))
    print(final["status"], final["completed_tasks"], final["failed_tasks"])


class _TimeUp:
    """A model that, once the benchmark's time is up, answers every call with LLMError (the
    merge and integration agents note it and go on; task agents stop on the build's own
    stop flag): the build ends, and what main holds is still archived and scored."""

    def __init__(self, llm, up: threading.Event, key: str = "",
                 transcript: list[dict] | None = None) -> None:
        self._llm, self._up, self._key = llm, up, key
        self._transcript = transcript if transcript is not None else []

    def _check(self) -> None:
        if self._up.is_set():
            raise LLMError("the benchmark's time is up")

    def _record(self, messages, reply: str) -> None:
        # What each agent was shown and answered: where a task failed, and why, is read here.
        self._transcript.append({"agent": self._key, "time": round(time.time()),
                                 "messages": [m.as_dict() for m in to_messages(messages)],
                                 "reply": reply})

    def complete(self, messages, *args, **kwargs):
        self._check()
        reply = self._llm.complete(messages, *args, **kwargs)
        self._record(messages, getattr(reply, "text", str(reply)))
        return reply

    def complete_json(self, *args, **kwargs):
        self._check()
        return self._llm.complete_json(*args, **kwargs)

    def stream(self, messages, *args, **kwargs):
        # the tests-first replies and the edit engine's rounds are streamed (ask_model stops
        # a reply that loops): recorded too, as far as they were read
        self._check()
        pieces: list[str] = []
        try:
            for item in self._llm.stream(messages, *args, **kwargs):
                if isinstance(item, str):
                    pieces.append(item)
                yield item
        finally:
            self._record(messages, "".join(pieces))

    def __getattr__(self, name: str):
        return getattr(self._llm, name)


def run_build(tasks: str, model: str, out_dir: Path, *, max_parallel: int = 1,
              retries: int = 1, command: str = "", minutes: float = 0) -> dict:
    """One build of the graph in `tasks` on `model`; writes out_dir's files (see above) and
    returns the summary. `minutes` > 0: the build is stopped after that long (status
    FAILED, "stopped_at_minutes" in the summary), its main archived all the same."""
    results = Path(out_dir).resolve()  # git runs in the project: an absolute path
    results.mkdir(parents=True, exist_ok=True)
    settings = load_config({"model": model}).settings
    base_llm_for = models_for(model, settings)
    time_up = threading.Event()

    transcript: list[dict] = []

    def llm_for(key: str):
        return _TimeUp(base_llm_for(key), time_up, key, transcript)
    tokens: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # calls, prompt, completion
    seconds: dict[str, float] = defaultdict(float)  # in model calls, per stage
    lines: list[str] = []
    started = time.time()

    def listen(event) -> None:
        stamp = f"{(event.ts - started) / 60:6.1f} min"
        if event.type == "llm_call":
            for key in (event.stage, "total"):
                figures = tokens[key]
                figures[0] += 1
                figures[1] += event.prompt_tokens
                figures[2] += event.completion_tokens
                seconds[key] += event.seconds
            lines.append(f"{stamp}  model call ({event.stage}): {event.prompt_tokens} prompt "
                         f"+ {event.completion_tokens} completion tokens, "
                         f"{event.seconds:.0f} s")
        elif event.type == "progress" and event.message:
            lines.append(f"{stamp}  {event.message}")
        elif event.type in ("stage_start", "stage_end") and event.stage in (
                "scaffold", "generate", "integrate", "build.task"):
            what = getattr(event, "detail", "") or getattr(event, "output", "")
            lines.append(f"{stamp}  {event.type} {event.stage} {what}"[:400])
        elif event.type == "test_result":
            lines.append(f"{stamp}  tests: {event.passed} passed, {event.failed} failed, "
                         f"{event.errors} errors")
        # written as it goes: a run stopped at the deadline still shows its steps
        (results / "progress.txt").write_text("\n".join(lines) + "\n")

    with tempfile.TemporaryDirectory(prefix="codeloop-build-real-") as tmp:
        out = Path(tmp) / Path(tasks).resolve().parent.name
        inputs = prepare(tasks, out_dir=out, options=BuildOptions(
            max_parallel=max_parallel, retries=retries, backoff_seconds=1.0))
        with RunStore(Path(tmp) / "runs.sqlite") as store, \
                store.run("build", inputs.record()) as run:
            run.bus.subscribe(listen)
            runtime = BuildRuntime(llm_for=llm_for)

            def stop() -> None:
                lines.append(f"{(time.time() - started) / 60:6.1f} min  the benchmark's "
                             f"{minutes:g} minutes are up: the build is stopped")
                runtime.stop.set()  # task agents: BuildStopped at their next call
                time_up.set()

            timer = threading.Timer(minutes * 60, stop) if minutes > 0 else None
            if timer is not None:
                timer.daemon = True
                timer.start()
            try:
                final = execute(inputs, run, store, runtime)
            finally:
                if timer is not None:
                    timer.cancel()
        took = (time.time() - started) / 60
        # The project holds model-written files (a .gitattributes filter, hooks...): git
        # runs hardened here too (gitutil), and archives go to files, not through text.
        git(["archive", "--format=tar.gz", f"--output={results / 'project.tar.gz'}", "main"],
            out)
        for branch in git(["branch", "--format=%(refname:short)", "--list", "task/*"],
                          out).stdout.split():
            # A task not merged keeps its branch: what the model wrote, for a look.
            kept = results / f"{branch.replace('/', '-')}.tar.gz"
            git(["archive", "--format=tar.gz", f"--output={kept}", branch], out)
        log = git(["log", "--format=%h %s"], out).stdout
    try:
        tasks_file = str(Path(tasks).resolve().relative_to(ROOT))
    except ValueError:
        tasks_file = str(tasks)
    summary = {
        "command": command, "model": model, "tasks_file": tasks_file,
        "minutes": round(took, 1), "final": final,
        **({"stopped_at_minutes": minutes} if time_up.is_set() else {}), "git_log": log.splitlines(),
        "tokens": {key: {"calls": c, "prompt": p, "completion": o,
                         "model_seconds": round(seconds[key])}
                   for key, (c, p, o) in sorted(tokens.items())},
    }
    (results / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    (results / "progress.txt").write_text("\n".join(lines) + "\n")
    with gzip.open(results / "transcript.jsonl.gz", "wt", encoding="utf-8") as out_file:
        out_file.writelines(json.dumps(entry) + "\n" for entry in transcript)
    return summary


if __name__ == "__main__":
    main()
