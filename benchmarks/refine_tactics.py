"""Which refinement tactic fixes the failures a task's own examples reveal (a diagnostic,
not a test). It decided what `solve`'s refinement stage does.

For every failed problem of a one-shot run whose code fails the task's own examples (the
"caught" group of visible_failures.py), each tactic makes new candidates; each candidate
is run on the task's examples (what refinement can see) and on the hidden tests (what the
benchmark scores):

  sample   the plain one-shot prompt at a temperature
  hinted   the refinement stage's prompt: the task plus the concrete failures
  repair   the task, the wrong code and its failures (codeloop's repair prompt until
           2026-11-22), greedy and at a temperature
  worked   hinted, and asked to work the failing example out by hand from the description
           before writing the code (`--tactics hinted worked --ids ...`)

    python benchmarks/refine_tactics.py benchmarks/results/humaneval-1.5b-oneshot --samples 3 \
        --out runs/refine-tactics.jsonl
    python benchmarks/refine_tactics.py --summary benchmarks/results/refine-tactics/humaneval-1.5b.jsonl
    python benchmarks/refine_tactics.py benchmarks/results/humaneval-1.5b-oneshot --tactics hinted \
        --temperature 0.5 1.0 --samples 3 --ids HumanEval/26,... --out runs/stuck.jsonl

The stored records (2026-11-23, 1.5B, 2 threads) were made on the one-shot run of
2026-11-22 (benchmarks/results/humaneval-1.5b-oneshot as of commit a39d1b4, 117/164) with this
file's prompts, except that the repair prompt then listed every failing case, not the first.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from jinja2 import Template
from visible_failures import classify

from codeloop.bench.compare import load_run
from codeloop.bench.datasets import Problem, load_dataset
from codeloop.bench.program import build_program
from codeloop.bench.scoring import score
from codeloop.bench.task_builder import task_for
from codeloop.docstring_examples.parse import task_assertions
from codeloop.jobs.extract import extract_code
from codeloop.jobs.prompts import load_prompt
from codeloop.llm.base import LLM, user
from codeloop.llm.registry import get_llm
from codeloop.solve.execute import run_tests
from codeloop.solve.extract import join_program
from codeloop.solve.verify import MAX_FAILURE_LINES

REPAIR = Template("""{{ plain }}

This attempt is wrong:
```python
{{ code }}
```

Running it against the examples gave: {{ failures }}

Fix the function so that every check passes. Priorities: correctness, then edge cases, \
then quality and readability.""")


WORKED = ("\n\nBefore you write the code, work that example out by hand: follow the "
          "description step by step and show how it gives the expected result. Then write "
          "the function.")
MAX_TOKENS = {"worked": 1024}  # the working-out comes before the code


class Bench:
    def __init__(self, problem: Problem, code: str, timeout: float) -> None:
        self.problem, self.timeout = problem, timeout
        self.task = task_for(problem.public())
        params = [a.arg for a in self.task.signature_node().args.args]
        self.assertions = task_assertions(self.task.examples, self.task.docstring,
                                          self.task.entry_point, self.task.context,
                                          params=params)
        self.code = code
        shown = self.visible(code)
        self.failures = "; ".join((shown["failures"] or [shown["error"]])[:MAX_FAILURE_LINES])

    def visible(self, code: str) -> dict:
        return run_tests(join_program(self.task.context, code), self.assertions, None,
                         timeout=self.timeout)

    def prompts(self) -> dict[str, str]:
        source = self.task.prompt_source()
        plain = load_prompt("codeloop.solve", "generation").messages(
            source=source, plan="")[-1].content
        hinted = load_prompt("codeloop.solve", "refinement").messages(
            source=source, failures=self.failures)[-1].content
        repair = REPAIR.render(plain=plain, code=self.code.strip(), failures=self.failures)
        return {"sample": plain, "hinted": hinted, "repair": repair, "worked": hinted + WORKED}

    def judge(self, reply: str) -> tuple[bool, bool]:
        code = extract_code(reply, self.task.entry_point)
        if code is None:
            return False, False
        program = build_program(self.problem.public(), f"```python\n{code}\n```")
        hidden = bool(program) and score(self.problem, program.code, timeout=self.timeout).passed
        return self.visible(code)["all_passed"], hidden


def try_tactics(llm: LLM, bench: Bench, samples: int, temperatures: list[float],
                tactics: list[str]) -> list[dict]:
    prompts = bench.prompts()
    plan = [(t, temp) for t in tactics if t != "repair" for temp in temperatures
            for _ in range(samples)]
    plan += [("repair", 0.0), ("repair", temperatures[0])] if "repair" in tactics else []
    tries = []
    for tactic, temp in plan:
        reply = llm.complete([user(prompts[tactic])], max_tokens=MAX_TOKENS.get(tactic, 768),
                             temperature=temp)
        visible, hidden = bench.judge(reply.text)
        tries.append({"tactic": tactic, "temperature": temp, "visible": visible,
                      "hidden": hidden, "tokens": reply.usage.total_tokens})
    return tries


def summarise(rows: list[dict]) -> str:
    """Per tactic and temperature: tries, tries passing the examples, tries passing the
    hidden tests, examples passed but hidden failed (what would end solve's rounds with a
    wrong answer), problems with at least one hidden pass, tokens a try."""
    lines = [f"{len(rows)} problem(s) whose one-shot code fails its own examples",
             ("tactic              tries  pass examples  pass hidden  examples only  problems"
              "  tokens/try")]
    keys = sorted({(t["tactic"], t["temperature"]) for r in rows for t in r["tries"]})
    for tactic, temp in keys:
        def mine(row: dict, key: tuple = (tactic, temp)) -> list[dict]:
            return [t for t in row["tries"] if (t["tactic"], t["temperature"]) == key]
        tries = [t for r in rows for t in mine(r)]
        won = sum(1 for r in rows if any(t["hidden"] for t in mine(r)))
        label = f"{tactic} @{temp}"
        lines.append(f"{label:<18}  {len(tries):>5}  {sum(t['visible'] for t in tries):>13}"
                     f"  {sum(t['hidden'] for t in tries):>11}"
                     f"  {sum(t['visible'] and not t['hidden'] for t in tries):>13}"
                     f"  {won:>8}"
                     f"  {sum(t['tokens'] for t in tries) / len(tries):>10.0f}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path, nargs="?",
                        help="a one-shot `codeloop bench --out` directory")
    parser.add_argument("--summary", type=Path, help="only print the table of a records file")
    parser.add_argument("--model", default="local:qwen2.5-coder-1.5b")
    parser.add_argument("--samples", type=int, default=3, help="tries per sampled tactic")
    parser.add_argument("--temperature", type=float, nargs="+", default=[0.8],
                        help="each sampled tactic is tried at every one of these")
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--out", type=Path, help="JSONL, appended per problem")
    parser.add_argument("--tactics", nargs="+", default=["sample", "hinted", "repair"],
                        choices=["sample", "hinted", "repair", "worked"])
    parser.add_argument("--ids", help="comma-separated task ids: only these of the caught ones")
    args = parser.parse_args()
    if args.summary:
        lines = args.summary.read_text(encoding="utf-8").splitlines()
        print(summarise([json.loads(line) for line in lines if line.strip()]))
        return
    if args.run_dir is None or args.out is None:
        parser.error("a run directory and --out are needed (or --summary FILE)")
    meta, records = load_run(args.run_dir)
    problems = {p.task_id: p for p in load_dataset(meta["dataset"], meta.get("data_path"))}
    llm = get_llm(args.model)
    rows = []
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("a", encoding="utf-8") as out:
        wanted = set(args.ids.split(",")) if args.ids else None
        for task_id in classify(args.run_dir, args.timeout)["caught"]:
            if wanted is not None and task_id not in wanted:
                continue
            problem = problems[task_id]
            code = extract_code(records[task_id].reply, problem.entry_point) or ""
            row = {"task_id": task_id,
                   "tries": try_tactics(llm, Bench(problem, code, args.timeout),
                                        args.samples, args.temperature, args.tactics)}
            out.write(json.dumps(row) + "\n")
            out.flush()
            rows.append(row)
            print(task_id, [(t["tactic"], t["visible"], t["hidden"]) for t in row["tries"]],
                  flush=True)
    print(summarise(rows))


if __name__ == "__main__":
    main()
