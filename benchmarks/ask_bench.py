"""Ask benchmark (not a test): questions with checkable answers about real repositories.

Each question in benchmarks/ask_questions/questions.yaml names its repository and what a
right answer contains (`all_of` groups of alternatives, optionally a `file` it must name).
For each question and each retrieval setting the ask job runs end to end; the record holds
the answer, whether it is right, its grounding (cited file:line that exist and hold what is
quoted), its tokens and seconds. The summary puts retrieval on and off side by side.

    python benchmarks/ask_bench.py --model local:qwen2.5-coder-1.5b --retrieval both \
        --label 1.5b          # -> benchmarks/results/ask-1.5b.{jsonl,md}
    python benchmarks/ask_bench.py --rescore benchmarks/results/ask-1.5b.jsonl \
        --model local:qwen2.5-coder-1.5b   # the saved answers scored again, no model run
    python benchmarks/ask_bench.py --questions benchmarks/ask_questions/pypi_libraries.yaml \
        --model local:qwen2.5-coder-1.5b --retrieval on --label 1.5b-pypi

A repository given as `{pypi: NAME, version: V, sha256: H}` is that sdist from PyPI (fetch.py:
downloaded once into runs/ask-cache/, its hash checked, unpacked without running anything).
The summary also counts right answers per question `kind`.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = Path(__file__).parent / "ask_questions" / "questions.yaml"
RESULTS = Path(__file__).parent / "results"
CACHE = ROOT / "runs" / "ask-cache"


def load_questions(path: Path = QUESTIONS) -> tuple[dict[str, Path], list[dict[str, Any]]]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    repos = {name: resolve_repo(spec) for name, spec in data["repos"].items()}
    questions = data["questions"]
    ids = [q["id"] for q in questions]
    if len(set(ids)) != len(ids):
        raise ValueError("question ids repeat")
    for q in questions:
        if q["repo"] not in repos:
            raise ValueError(f"{q['id']}: unknown repository {q['repo']!r}")
    return repos, questions


def resolve_repo(spec: dict[str, str]) -> Path:
    """{project: path in this repository}, {package: an installed package's name} or
    {pypi: name, version, sha256}: the sdist, fetched into the cache on first use."""
    if "project" in spec:
        return ROOT / spec["project"]
    if "pypi" in spec:
        return fetch_sdist(spec["pypi"], str(spec["version"]), spec["sha256"], CACHE)
    found = importlib.util.find_spec(spec["package"])
    if found is None or not found.submodule_search_locations:
        raise ValueError(f"package {spec['package']} is not installed")
    return Path(next(iter(found.submodule_search_locations)))


SIMPLE_API = "https://pypi.org/simple/{name}/"


def fetch_sdist(name: str, version: str, sha256: str, cache: Path) -> Path:
    """The unpacked sdist `name==version` under `cache` (downloaded from PyPI's simple JSON
    API on first use). The archive must hash to `sha256`; it is unpacked with tarfile's
    "data" filter (no links out, no devices) and nothing in it is run: no build, no setup.py.
    Returns the sdist's top folder (NAME-VERSION/)."""
    import hashlib
    import tarfile
    import urllib.request

    target = cache / f"{name}-{version}"
    done = target / ".fetched"
    if done.is_file() and done.read_text().strip() == sha256:
        return _top_folder(target)
    request = urllib.request.Request(SIMPLE_API.format(name=name),
                                     headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(request, timeout=60) as reply:
        files = json.load(reply)["files"]
    wanted = [f for f in files if f.get("hashes", {}).get("sha256") == sha256
              and f["filename"].endswith(".tar.gz")]
    if not wanted:
        raise ValueError(f"PyPI lists no sdist of {name} with SHA-256 {sha256}")
    with urllib.request.urlopen(wanted[0]["url"], timeout=120) as reply:
        data = reply.read()
    if hashlib.sha256(data).hexdigest() != sha256:
        raise ValueError(f"{wanted[0]['filename']}: SHA-256 does not match the pinned one")
    target.mkdir(parents=True, exist_ok=True)
    archive = target / wanted[0]["filename"]
    archive.write_bytes(data)
    with tarfile.open(archive) as tar:
        tar.extractall(target / "src", filter="data")
    archive.unlink()
    done.write_text(sha256)
    return _top_folder(target)


def _top_folder(target: Path) -> Path:
    tops = [p for p in (target / "src").iterdir() if p.is_dir()]
    if len(tops) != 1:
        raise ValueError(f"{target}: the sdist should hold one top folder, found {len(tops)}")
    return tops[0]


_NUMBER = re.compile(r"\d+(?:\.\d+)*")


def _pattern(alternative: str) -> re.Pattern[str]:
    """An expected name or number as a whole word, case-insensitive: `32` is not in `320` or
    `1.32`, `walk` is not in `walker`, `0` is not in `0.5`; an end that is not a word
    character (`1.1.`, `@scope/logger`) needs no boundary there."""
    text = str(alternative)
    if _NUMBER.fullmatch(text):
        return re.compile(rf"(?<![\w.]){re.escape(text)}(?!\w|\.\d)")
    start = r"(?<!\w)" if re.match(r"\w", text) else ""
    end = r"(?!\w)" if re.search(r"\w$", text) else ""
    return re.compile(start + re.escape(text) + end, re.IGNORECASE)


def _mentions_file(answer: str, files: list[str]) -> bool:
    """The answer names one of `files` by its path as given (`sandbox/pathguard.py`), whole
    or as the end of a longer path (`src/codeloop/sandbox/pathguard.py:12`); the bare file
    name (`pathguard.py`) is not enough when the expected path has a directory."""
    return any(re.search(rf"(?:(?<=/)|(?<![\w./-])){re.escape(f)}(?![\w/-])", answer,
                         re.IGNORECASE) for f in files)


def score_answer(question: dict[str, Any], answer: str) -> dict[str, Any]:
    """{correct, missing (groups not satisfied), file_named}. Every group needs one of its
    alternatives as a whole word (case-insensitive); `file`: one of the paths, see
    _mentions_file."""
    missing = [group for group in question.get("all_of", [])
               if not any(_pattern(alt).search(answer) for alt in group)]
    files = question.get("file") or []
    file_named = _mentions_file(answer, files) if files else True
    return {"correct": not missing and file_named, "missing": missing,
            "file_named": file_named}


def run_one(question: dict[str, Any], repo: Path, llm, retrieval: bool, index) -> dict[str, Any]:
    from codeloop.ask.context import AskError
    from codeloop.ask.service import ask
    from codeloop.llm.base import LLMError

    started = time.perf_counter()
    try:
        result = ask(question["question"], repo, llm, None, None, retrieval=retrieval,
                     index=index)
    except (AskError, LLMError) as exc:
        return {"id": question["id"], "retrieval": retrieval, "kind": question.get("kind", ""),
                "error": str(exc)[:300],
                "correct": False, "seconds": round(time.perf_counter() - started, 2)}
    scored = score_answer(question, result.final_output)
    g = result.grounding
    return {"id": question["id"], "repo": question["repo"], "retrieval": retrieval,
            "kind": question.get("kind", ""), **scored, "task_type": result.task_type, "answer": result.final_output,
            "cited": g.get("cited", 0), "grounded": g.get("grounded", 0),
            "invented": g.get("invented", []), "score": result.evaluation_scores["overall"],
            "tokens": result.totals.total_tokens, "calls": result.totals.calls,
            "seconds": round(time.perf_counter() - started, 2),
            "iterations": result.iteration_count,
            "ran": bool(getattr(result, "observation", None))}


def summarise(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    out = {}
    for setting in (True, False):
        rows = [r for r in records if r["retrieval"] is setting]
        if not rows:
            continue
        n = len(rows)
        cited = sum(r.get("cited", 0) for r in rows)
        out["on" if setting else "off"] = {
            "questions": n,
            "correct": sum(r["correct"] for r in rows),
            "accuracy": round(sum(r["correct"] for r in rows) / n, 3),
            "answers_citing": sum(1 for r in rows if r.get("cited")),
            "citations": cited,
            "grounding_rate": round(sum(r.get("grounded", 0) for r in rows) / cited, 3)
            if cited else None,
            "tokens_per_question": round(sum(r.get("tokens", 0) for r in rows) / n),
            "seconds_per_question": round(sum(r["seconds"] for r in rows) / n, 1),
            "errors": sum(1 for r in rows if "error" in r),
            "mean_self_score": round(sum(r.get("score", 0) for r in rows) / n, 1),
            "answers_grounded": sum(1 for r in rows if r.get("grounded")),
            "ran_calls": sum(1 for r in rows if r.get("ran")),
            "by_kind": by_kind(rows),
        }
    return out


def by_kind(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """{kind: {questions, correct, seconds_per_question, tokens_per_question}}."""
    kinds: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        kinds.setdefault(row.get("kind") or "(no kind)", []).append(row)
    return {kind: {"questions": len(group), "correct": sum(r["correct"] for r in group),
                   "seconds_per_question": round(sum(r["seconds"] for r in group) / len(group), 1),
                   "tokens_per_question": round(sum(r.get("tokens", 0) for r in group)
                                                / len(group))}
            for kind, group in sorted(kinds.items())}


def markdown(summary: dict[str, dict[str, Any]], model: str, *commands: str) -> str:
    settings = list(summary)
    lines = [f"# Ask benchmark: {model}", "", "Commands:", "",
             *(f"    {command}" for command in commands), "",
             "| | " + " | ".join(f"retrieval {s}" for s in settings) + " |",
             "|---|" + "---|" * len(settings)]
    rows = [("questions", "questions"), ("correct answers", "accuracy"),
            ("answers citing file:line", "answers_citing"),
            ("answers with a grounded citation", "answers_grounded"),
            ("answers from a call run in the sandbox", "ran_calls"),
            ("grounding rate (grounded / cited)", "grounding_rate"),
            ("tokens per question", "tokens_per_question"),
            ("seconds per question", "seconds_per_question"),
            ("mean self-score (evaluator)", "mean_self_score"), ("errors", "errors")]
    for label, key in rows:
        cells = []
        for s in settings:
            value = summary[s][key]
            if key == "accuracy":
                value = f"{summary[s]['correct']}/{summary[s]['questions']} ({value:.0%})"
            elif key == "grounding_rate":
                value = "n/a" if value is None else f"{value:.0%} of {summary[s]['citations']}"
            cells.append(str(value))
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    for s in settings:
        kinds = summary[s].get("by_kind") or {}
        if len(kinds) < 2:
            continue
        lines += ["", f"Per kind (retrieval {s}):", "",
                  "| kind | right | seconds / question | tokens / question |",
                  "|---|---|---|---|"]
        lines += [f"| {k} | {v['correct']}/{v['questions']} | {v['seconds_per_question']} | "
                  f"{v['tokens_per_question']} |" for k, v in kinds.items()]
    return "\n".join(lines) + "\n"


def rescore(path: Path, model: str, command: str, questions_file: Path = QUESTIONS) -> int:
    """Score the saved answers again (the records keep their answers) and check their
    citations again against the repositories as they are now; rewrite the .jsonl and its
    .md summary beside it."""
    from codeloop.ask.grounding import check_grounding
    from codeloop.ask.tools.walk import RepoIndex

    repos, questions = load_questions(questions_file)
    by_id = {q["id"]: q for q in questions}
    indexes: dict[str, Any] = {}
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for record in records:
        question = by_id.get(record["id"])
        if "answer" not in record or question is None:
            continue
        record.update(score_answer(question, record["answer"]), kind=question.get("kind", ""))
        repo = question["repo"]
        if repo not in indexes:
            indexes[repo] = RepoIndex.open(repos[repo])
        g = check_grounding(record["answer"], indexes[repo])
        record.update(cited=g["cited"], grounded=g["grounded"], invented=g["invented"])
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    summary = summarise(records)
    label = path.stem.removeprefix("ask-")
    answers = (f"python benchmarks/ask_bench.py --model {model} --retrieval both "
               f"--label {label}   # the answers")
    path.with_suffix(".md").write_text(
        markdown(summary, model, answers, f"{command}   # scored again"), encoding="utf-8")
    print(json.dumps(summary, indent=2))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--retrieval", choices=("on", "off", "both"), default="both")
    parser.add_argument("--label", default=None, help="results/ask-LABEL.{jsonl,md}")
    parser.add_argument("--ids", nargs="*", help="only these question ids")
    parser.add_argument("--questions", type=Path, default=QUESTIONS,
                        help="the questions file (default: ask_questions/questions.yaml)")
    parser.add_argument("--out-dir", type=Path, default=RESULTS)
    parser.add_argument("--rescore", type=Path, help="score the answers in this .jsonl again "
                        "with the current questions (a scorer fix needs no model run)")
    args = parser.parse_args(argv)
    command = "python benchmarks/ask_bench.py " + " ".join(argv if argv is not None
                                                           else sys.argv[1:])
    if args.rescore:
        return rescore(args.rescore, args.model, command, args.questions)

    from codeloop.ask.tools.walk import RepoIndex
    from codeloop.config import load_config
    from codeloop.llm.registry import get_llm

    repos, questions = load_questions(args.questions)
    if args.ids:
        questions = [q for q in questions if q["id"] in set(args.ids)]
    llm = get_llm(args.model, load_config({"model": args.model}).settings)
    settings = {"on": [True], "off": [False], "both": [True, False]}[args.retrieval]
    indexes = {name: RepoIndex.open(path) for name, path in repos.items()}
    label = args.label or args.model.replace(":", "-").replace("/", "-")
    args.out_dir.mkdir(parents=True, exist_ok=True)
    jsonl = args.out_dir / f"ask-{label}.jsonl"
    records = []
    with jsonl.open("w", encoding="utf-8") as out:
        for q in questions:  # on and off side by side: a run cut short still pairs them
            for retrieval in settings:
                record = run_one(q, repos[q["repo"]], llm, retrieval, indexes[q["repo"]])
                records.append(record)
                out.write(json.dumps(record) + "\n")
                out.flush()
                print(f"{'on ' if retrieval else 'off'} {q['id']:<24} "
                      f"{'OK ' if record['correct'] else 'no '} "
                      f"cited {record.get('cited', 0)} grounded {record.get('grounded', 0)} "
                      f"{record.get('tokens', 0)} tok {record['seconds']} s", flush=True)
    summary = summarise(records)
    (args.out_dir / f"ask-{label}.md").write_text(markdown(summary, args.model, command),
                                                  encoding="utf-8")
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
