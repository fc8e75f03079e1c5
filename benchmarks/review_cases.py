"""The review benchmark's cases and their scoring (no model here).

Each case in benchmarks/review_tasks/<name>/ has:
  case.yaml   request, files (to review), problem (the planted one, one line), kind
  workspace/  the starting workspace: a small module and, mostly, its visible tests
  hidden/     pytest files that pass only when the problem is fixed and behaviour is kept
  check.yaml  `absent:` the planted finding that must be gone, each item a `file` and one of
              `finding` (a security-scan id: bandit B608, or a secret rule id), `ruff` (a
              ruff rule id, e.g. B006) or `regex` (must not match the file's text); an empty
              list when the problem is a behaviour bug the hidden tests alone catch
  reference/  a correct fix, overlaid on workspace/ only to prove the case is sound

A result is *fixed* when the hidden tests pass in the sandbox and no check item is violated.
"""

from __future__ import annotations

import re
import shutil
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import yaml

CASES_DIR = Path(__file__).parent / "review_tasks"
HIDDEN_TIMEOUT_S = 60
# Our own ini file, so a pytest.ini/pyproject/setup.cfg the model wrote sets no options.
_INI_NAME = "_review_bench_pytest.ini"
_SUMMARY = re.compile(r"\b(\d+) (passed|failed|errors?|skipped|xfailed|xpassed)\b")


@dataclass(frozen=True)
class Case:
    name: str
    folder: Path
    request: str
    files: tuple[str, ...]
    problem: str
    kind: str
    absent: tuple[dict, ...]

    @property
    def hidden_tests(self) -> dict[str, str]:
        return {p.name: p.read_text() for p in sorted((self.folder / "hidden").glob("*.py"))}


@dataclass(frozen=True)
class HiddenResult:
    passed: bool
    summary: str  # pytest's counts ("3 passed, 1 failed") or why nothing ran


@dataclass(frozen=True)
class Score:
    fixed: bool
    hidden: HiddenResult
    violations: tuple[str, ...]  # check items still present ("B608 in users.py line 21")


def load_case(folder: Path) -> Case:
    spec = yaml.safe_load((folder / "case.yaml").read_text())
    check = yaml.safe_load((folder / "check.yaml").read_text()) or {}
    return Case(name=folder.name, folder=folder, request=" ".join(spec["request"].split()),
                files=tuple(spec["files"]), problem=spec["problem"], kind=spec["kind"],
                absent=tuple(check.get("absent") or ()))


def load_cases(names: list[str] | None = None) -> list[Case]:
    folders = sorted(p for p in CASES_DIR.iterdir() if (p / "case.yaml").is_file())
    known = {p.name for p in folders}
    unknown = [n for n in names or [] if n not in known]
    if unknown:
        raise ValueError(f"unknown case(s): {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    if not names:
        return [load_case(p) for p in folders]
    return [load_case(CASES_DIR / name) for name in dict.fromkeys(names)]  # in the order given


def _copy_tree(source: Path, target: Path) -> None:
    for path in sorted(source.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            dest = target / path.relative_to(source)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest)


def materialise(case: Case, target: Path, *, with_reference: bool = False) -> Path:
    """Copy the case's workspace to `target` (created), the reference fix on top if asked."""
    target.mkdir(parents=True, exist_ok=True)
    _copy_tree(case.folder / "workspace", target)
    if with_reference:
        _copy_tree(case.folder / "reference", target)
    return target


def run_hidden(case: Case, workspace: Path) -> HiddenResult:
    """The hidden tests on a throw-away copy of `workspace`, in the sandbox. Passed means
    pytest exited 0 having run every hidden test and none failed."""
    from codeloop.sandbox import SandboxError, run_command

    hidden = case.hidden_tests
    argv = [sys.executable, "-m", "pytest", "-q", "-c", _INI_NAME, "--noconftest",
            "-p", "no:cacheprovider", *hidden]
    try:
        result = run_command(argv, workspace=workspace, mode="cow", timeout=HIDDEN_TIMEOUT_S,
                             files={**hidden, _INI_NAME: "[pytest]\n"},
                             env={"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    except SandboxError as exc:
        return HiddenResult(False, f"the sandbox could not run the tests: {exc}")
    output = (result.stdout + result.stderr).strip().splitlines()
    counts = {kind: 0 for kind in ("passed", "failed", "error")}
    summary_line = next((line for line in reversed(output) if _SUMMARY.search(line)), "")
    for number, kind in _SUMMARY.findall(summary_line):
        key = "error" if kind.startswith("error") else kind
        counts[key] = counts.get(key, 0) + int(number)
    if result.limit_hit is not None:
        return HiddenResult(False, f"sandbox limit hit: {result.limit_hit}")
    passed = result.exit_code == 0 and counts["passed"] > 0 and not counts["failed"] \
        and not counts["error"]
    summary = summary_line.strip("= ") or (output[-1][:200] if output else
                                           f"exit {result.exit_code}, no output")
    return HiddenResult(passed, summary)


def _ruff_hits(path: Path, rule: str) -> list[int]:
    """Lines where ruff's `rule` fires in the file at `path` (ruff reads no config file)."""
    import json

    from codeloop.quality.tool_runner import run_tool, staged_copy

    with staged_copy(path.read_text(encoding="utf-8", errors="replace"), path.name) as staged:
        run = run_tool("ruff", ["check", "--isolated", "--select", rule, "--output-format",
                                "json", "--exit-zero", staged.path.name], staged, 60)
    return [item["location"]["row"] for item in json.loads(run.stdout or "[]")
            if item.get("code") == rule]


def _finding_hits(path: Path, test_id: str) -> list[int]:
    from codeloop.quality.security import scan_path

    return [f.line for f in scan_path(path).findings if f.test_id == test_id]


def check_violations(case: Case, workspace: Path) -> list[str]:
    """The check items of `case` still present in `workspace` (empty: the finding is gone)."""
    violations = []
    for item in case.absent:
        path = workspace / item["file"]
        if not path.is_file():
            violations.append(f"{item['file']} is missing")
            continue
        if "finding" in item:
            label, lines = item["finding"], _finding_hits(path, item["finding"])
        elif "ruff" in item:
            label, lines = f"ruff {item['ruff']}", _ruff_hits(path, item["ruff"])
        else:
            text = path.read_text(encoding="utf-8", errors="replace")
            lines = [text.count("\n", 0, m.start()) + 1
                     for m in re.finditer(item["regex"], text)]
            label = f"/{item['regex']}/"
        if lines:
            violations.append(f"{label} in {item['file']} line {lines[0]}")
    return violations


def score(case: Case, workspace: Path) -> Score:
    hidden = run_hidden(case, workspace)
    violations = tuple(check_violations(case, workspace))
    return Score(hidden.passed and not violations, hidden, violations)


def serious_findings(workspace: Path, files: list[str]) -> Counter:
    """(file, finding id) -> count of MEDIUM/HIGH security findings (bandit + secrets) in the
    files that exist. Counted by id, not line: a fix moves lines."""
    from codeloop.quality.security import scan_path

    found: Counter = Counter()
    for name in files:
        path = workspace / name
        if path.is_file():
            for finding in scan_path(path).findings:
                if finding.severity in ("MEDIUM", "HIGH"):
                    found[(name, finding.test_id)] += 1
    return found


def introduced_findings(before: Counter, after: Counter) -> list[str]:
    """"file: ID" for each MEDIUM/HIGH finding the change added."""
    return [f"{name}: {test_id}" for (name, test_id), count in sorted((after - before).items())
            for _ in range(count)]


def changed_files(case: Case, workspace: Path) -> list[str]:
    """Files (relative) that differ from the case's starting workspace, added ones included;
    not the runner's own bookkeeping (a peer's git repository, aider's caches)."""
    original = case.folder / "workspace"
    changed = []
    for path in sorted(workspace.rglob("*")):
        if not path.is_file() or path.name == ".ai_context.json":
            continue
        rel = path.relative_to(workspace)
        if "__pycache__" in rel.parts or rel.parts[0] == ".git" or \
                rel.parts[0].startswith(".aider"):
            continue
        before = original / rel
        if not before.is_file() or before.read_bytes() != path.read_bytes():
            changed.append(rel.as_posix())
    return changed
