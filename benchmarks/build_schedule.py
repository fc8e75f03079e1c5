"""Build scheduling (a benchmark, not a test): a 6-task graph on the scripted model with a
fixed delay per model call, built with --max-parallel 1 and 3; the wall-time ratio against
the graph's critical-path bound.

    .venv/bin/python benchmarks/build_schedule.py [--delay 0.25] [--shared-model]

Graph: A, B, C free; D needs A; E needs B and C; F needs D and E. Critical path A-D-F: 3 of
the 6 tasks, so no schedule can beat half the serial time (speed-up bound 2.0 at 3 slots).
Each task agent makes 12 model calls (tests first, then code) and runs its tests once in the
sandbox; merges are one at a time. --shared-model serialises every call on one lock, as the
embedded llama.cpp model does (one model, one call at a time): then only the sandbox runs,
git and merges overlap.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import threading
import time
from pathlib import Path

from codeloop.build.runner import BuildOptions, execute, prepare
from codeloop.build.runtime import BuildRuntime
from codeloop.llm.scripted import ScriptedLLM
from codeloop.store import RunStore

GRAPH = [("A",), ("B",), ("C",), ("D", "A"), ("E", "B", "C"), ("F", "D", "E")]
CRITICAL_PATH = 3  # tasks on the longest chain (A -> D -> F)


def _write(path: str, text: str) -> list[str]:
    return [json.dumps({"thought": f"write {path}", "tool": "write_file"}),
            json.dumps({"path": path, "start_line": None, "end_line": None}), f"```\n{text}```"]


def _step(tool: str, args: dict) -> list[str]:
    return [json.dumps({"thought": tool, "tool": tool}), json.dumps(args)]


def task_script(name: str) -> list[str]:
    test = f"from app.{name} import {name}\n\n\ndef test_{name}():\n    assert {name}() == 1\n"
    return (_write(f"tests/test_{name}.py", test) + _step("finish", {"summary": "tests"})
            + _step("read_file", {"path": f"tests/test_{name}.py", "start_line": None,
                                  "end_line": None})
            + _write(f"app/{name}.py", f"def {name}():\n    return 1\n")
            + _step("finish", {"summary": "code"}))


class DelayedLLM(ScriptedLLM):
    """A scripted model that takes `delay` seconds a call (optionally one call at a time
    over all agents, like one in-process model)."""

    def __init__(self, replies, delay: float, lock: threading.Lock | None) -> None:
        super().__init__(replies)
        self.delay, self.lock = delay, lock

    def _generate(self, request):
        if self.lock is not None:
            with self.lock:
                time.sleep(self.delay)
        else:
            time.sleep(self.delay)
        yield from super()._generate(request)


def one_build(max_parallel: int, delay: float, shared: bool, root: Path) -> dict:
    lock = threading.Lock() if shared else None
    integration = _step("read_file", {"path": "app/main.py", "start_line": None,
                                      "end_line": None}) + _step("finish", {"summary": "ok"})
    agents = {f"task:{t}": DelayedLLM(task_script(t.lower()), delay, lock) for t, *_ in GRAPH}
    agents["integration"] = DelayedLLM(integration, delay, lock)
    request = {"tech_stack": "python-api", "tasks": [
        {"id": t, "description": f"the {t.lower()} function", "depends_on": list(deps),
         "keywords": [t.lower()]} for t, *deps in GRAPH]}
    out = root / f"p{max_parallel}"
    inputs = prepare(request, out_dir=out, options=BuildOptions(max_parallel=max_parallel,
                                                                retries=0))
    spans: dict[str, list[float]] = {}
    with RunStore(root / f"runs{max_parallel}.sqlite") as store, \
            store.run("build", inputs.record()) as run:
        def track(event) -> None:
            if event.type == "stage_start" and event.stage in ("generate", "build.task"):
                spans.setdefault(event.detail if event.stage == "build.task" else "generate",
                                 [event.ts])
            elif event.type == "stage_end" and event.stage == "build.task":
                spans[event.output.split(":", 1)[0]].append(event.ts)
            elif event.type == "stage_end" and event.stage == "generate":
                spans["generate"].append(event.ts)
        run.bus.subscribe(track)
        started = time.perf_counter()
        final = execute(inputs, run, store, BuildRuntime(llm_for=lambda key: agents[key]))
        total = time.perf_counter() - started
    assert final["status"] == "COMPLETE", final
    task_seconds = [end - start for key, (start, end) in spans.items() if key != "generate"]
    generate = spans["generate"][1] - spans["generate"][0]
    return {"max_parallel": max_parallel, "total_s": round(total, 2),
            "generate_s": round(generate, 2),
            "mean_task_s": round(sum(task_seconds) / len(task_seconds), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=0.25, help="seconds per model call")
    parser.add_argument("--shared-model", action="store_true",
                        help="one model call at a time over all agents")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="codeloop-build-bench-") as tmp:
        serial = one_build(1, args.delay, args.shared_model, Path(tmp))
        parallel = one_build(3, args.delay, args.shared_model, Path(tmp))
    ratio = serial["generate_s"] / parallel["generate_s"]
    bound = len(GRAPH) / CRITICAL_PATH
    print(f"delay {args.delay} s/call, {'shared' if args.shared_model else 'independent'} "
          "model calls")
    for row in (serial, parallel):
        print(f"  --max-parallel {row['max_parallel']}: generation {row['generate_s']} s "
              f"(whole build {row['total_s']} s), mean task {row['mean_task_s']} s")
    # The bound: with enough slots the generation takes the critical path's time, three
    # tasks at the uncontended (serial) task time.
    best = CRITICAL_PATH * serial["mean_task_s"]
    print(f"  speed-up {ratio:.2f}x (critical-path bound {bound:.2f}x); parallel generation "
          f"{parallel['generate_s']} s vs the bound {best:.2f} s (3 x the serial mean task): "
          f"{best / parallel['generate_s']:.0%} of ideal")


if __name__ == "__main__":
    main()
