"""The ask benchmark's questions and scorer: at least 25 questions over real repositories
that resolve, a right answer scores right and a wrong one wrong (on the scripted model), and
the summary puts retrieval on and off side by side."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
import yaml

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "ask_bench.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("ask_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules["ask_bench"] = module
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("ask_bench", None)


def test_the_questions_cover_three_real_repositories(bench):
    repos, questions = bench.load_questions()
    assert len(questions) >= 25
    assert all(path.is_dir() for path in repos.values())
    used = {q["repo"] for q in questions}
    assert {"codeloop", "pathspec", "pyapp"} <= used
    assert all(q.get("all_of") for q in questions)  # every answer is checkable
    # the questions file is outside the repositories asked about: retrieval cannot read it
    assert not any(bench.QUESTIONS.is_relative_to(path) for path in repos.values())


def test_every_file_a_question_expects_exists(bench):
    repos, questions = bench.load_questions()
    for q in questions:
        for name in q.get("file") or []:
            matches = list(repos[q["repo"]].rglob(Path(name).name))
            assert any(m.as_posix().endswith(name) for m in matches), (q["id"], name)


def test_the_scorer_on_hand_made_answers(bench):
    q = {"all_of": [["requests"], ["click"], ["pyyaml", "PyYAML"]], "file": ["pyapp/report.py"]}
    right = bench.score_answer(q, "Requests, click and PyYAML (see pyapp/report.py:1).")
    assert right == {"correct": True, "missing": [], "file_named": True}
    wrong = bench.score_answer(q, "requests and click, in report.py")
    assert wrong["correct"] is False and wrong["missing"] == [["pyyaml", "PyYAML"]]
    assert wrong["file_named"] is False  # the bare file name is not the path asked for
    no_file = bench.score_answer(q, "requests, click, pyyaml")
    assert no_file["correct"] is False and no_file["file_named"] is False
    longer = bench.score_answer(q, "requests, click, pyyaml: tests/x/pyapp/report.py:3")
    assert longer["file_named"] is True  # the expected path as the end of a longer one


@pytest.mark.parametrize(("alternatives", "answer", "right"), [
    (["32"], "MAX_DEPTH is 32.", True),
    (["32"], "It is 320.", False),  # a number is matched whole
    (["32"], "Version 1.32 of it", False),
    (["0.0", "0", "zero"], "It returns 0.5 then", False),
    (["0.0", "0", "zero"], "It returns 0.", True),
    (["walk"], "see walker.py", False),  # a short name is matched as a word
    (["walk"], "ask/tools/walk.py imports it", True),
    (["report"], "reporting happens elsewhere", False),
    (["1.1."], "version 1.1.0", True),
    (["1.1."], "version 11.1.0", False),
    (["by 4"], "the length divided by 40", False),
    (["@scope/logger"], "express and @scope/logger", True),
])
def test_names_and_numbers_are_matched_as_whole_words(bench, alternatives, answer, right):
    assert bench.score_answer({"all_of": [alternatives]}, answer)["correct"] is right


def test_which_file_needs_the_path_not_the_bare_name(bench):
    q = {"all_of": [["PathGuard"]], "file": ["sandbox/pathguard.py"]}
    assert bench.score_answer(q, "PathGuard is in src/codeloop/sandbox/pathguard.py:40")[
        "correct"] is True
    assert bench.score_answer(q, "PathGuard is in `sandbox/pathguard.py`.")["correct"] is True
    assert bench.score_answer(q, "PathGuard is in pathguard.py")["correct"] is False
    assert bench.score_answer(q, "PathGuard is in mysandbox/pathguard.py")["correct"] is False
    bare = {"all_of": [["RunStore"]], "file": ["store.py"]}  # the path is a bare name
    assert bench.score_answer(bare, "RunStore (codeloop/store.py:100)")["correct"] is True
    assert bench.score_answer(bare, "RunStore, in run_store.py")["correct"] is False


def test_a_scripted_run_scores_right_and_wrong_answers(bench, tmp_path, monkeypatch):
    script = tmp_path / "oracle.yaml"
    script.write_text(yaml.safe_dump([
        {"match": "Plan how to complete", "json": {"steps": ["Find", "Read", "Answer"]}},
        {"match": "Which function computes the total value",
         "reply": "`inventory_value` (pyapp/report.py:6) sums the items."},
        {"match": "default threshold of low_stock",
         "reply": "It is 3 (pyapp/report.py:11)."},  # wrong: the default is 5
    ]))
    out = tmp_path / "results"
    code = bench.main(["--model", f"scripted:{script}", "--retrieval", "both", "--label", "t",
                       "--ids", "py-value-function", "py-low-stock-default", "--out-dir",
                       str(out)])
    assert code == 0
    records = [json.loads(line) for line in (out / "ask-t.jsonl").read_text().splitlines()]
    assert [(r["id"], r["retrieval"], r["correct"]) for r in records] == [
        ("py-value-function", True, True), ("py-value-function", False, True),
        ("py-low-stock-default", True, False), ("py-low-stock-default", False, False)]
    assert records[0]["grounded"] == records[0]["cited"] == 1
    assert records[0]["retrieval"] is True and records[1]["retrieval"] is False
    summary = bench.summarise(records)
    assert summary["on"]["accuracy"] == summary["off"]["accuracy"] == 0.5
    table = (out / "ask-t.md").read_text()
    assert "| correct answers | 1/2 (50%) | 1/2 (50%) |" in table
    assert "| grounding rate (grounded / cited) | 100% of 2 | 100% of 2 |" in table


def test_rescoring_saved_answers_needs_no_model(bench, tmp_path):
    saved = tmp_path / "ask-x.jsonl"
    rows = [{"id": "py-runtime-deps", "retrieval": True, "correct": False, "cited": 0,
             "grounded": 0, "tokens": 10, "seconds": 1.0, "score": 50.0,
             "answer": "requests, click and PyYAML"},
            {"id": "py-low-stock-default", "retrieval": False, "correct": True, "cited": 1,
             "grounded": 1, "tokens": 10, "seconds": 1.0, "score": 50.0,
             "answer": "It is `threshold: int = 3` (pyapp/report.py:11)."}]
    saved.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert bench.main(["--model", "m", "--rescore", str(saved)]) == 0
    again = [json.loads(line) for line in saved.read_text().splitlines()]
    assert [r["correct"] for r in again] == [True, False]  # both flags were wrong
    assert (again[1]["cited"], again[1]["grounded"]) == (1, 0)  # the quote is not there
    table = (tmp_path / "ask-x.md").read_text()
    assert "| correct answers | 1/1 (100%) | 0/1 (0%) |" in table
    assert "--rescore" in table


PYPI = Path(__file__).resolve().parents[2] / "benchmarks" / "ask_questions" / "pypi_libraries.yaml"
KINDS = {"return value", "exception", "import", "location", "dependency", "count",
         "architecture"}


def test_the_pypi_questions_are_30_or_more_each_with_a_kind_on_pinned_sdists(bench):
    data = yaml.safe_load(PYPI.read_text())
    questions = data["questions"]
    assert len(questions) >= 30
    assert {q["kind"] for q in questions} == KINDS
    assert all(q.get("all_of") and q["repo"] in data["repos"] for q in questions)
    for spec in data["repos"].values():  # pinned: a version and the sdist's hash
        assert set(spec) == {"pypi", "version", "sha256"} and len(spec["sha256"]) == 64
    assert len({q["id"] for q in questions}) == len(questions)


def _sdist(tmp_path: Path, members: dict[str, bytes], link: str | None = None) -> bytes:
    import io
    import tarfile

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        if link:
            info = tarfile.TarInfo("demo-1.0/escape")
            info.type, info.linkname = tarfile.SYMTYPE, link
            tar.addfile(info)
    return buffer.getvalue()


def _serve(monkeypatch, archive: bytes, sha: str) -> list[str]:
    """PyPI (the network) answers from memory: the simple API's JSON, then the file."""
    import io
    import urllib.request

    asked: list[str] = []

    def urlopen(request, timeout=None):
        url = getattr(request, "full_url", request)
        asked.append(url)
        if url.startswith("https://pypi.org/simple/"):
            body = json.dumps({"files": [{"filename": "demo-1.0.tar.gz", "url": "https://f/d",
                                          "hashes": {"sha256": sha}}]}).encode()
            return io.BytesIO(body)
        return io.BytesIO(archive)

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    return asked


def test_an_sdist_is_fetched_once_checked_and_unpacked_without_running_it(bench, tmp_path,
                                                                          monkeypatch):
    import hashlib

    archive = _sdist(tmp_path, {"demo-1.0/setup.py": b"raise SystemExit('never run')\n",
                                "demo-1.0/demo/__init__.py": b"X = 1\n"})
    sha = hashlib.sha256(archive).hexdigest()
    asked = _serve(monkeypatch, archive, sha)
    root = bench.fetch_sdist("demo", "1.0", sha, tmp_path / "cache")
    assert root == tmp_path / "cache" / "demo-1.0" / "src" / "demo-1.0"
    assert (root / "demo" / "__init__.py").read_text() == "X = 1\n"
    assert bench.fetch_sdist("demo", "1.0", sha, tmp_path / "cache") == root
    assert len(asked) == 2  # the second call used the cache


def test_a_wrong_hash_or_a_link_out_of_the_sdist_is_refused(bench, tmp_path, monkeypatch):
    import hashlib
    import tarfile

    archive = _sdist(tmp_path, {"demo-1.0/a.py": b"A = 1\n"})
    _serve(monkeypatch, archive, "0" * 64)
    with pytest.raises(ValueError, match="no sdist of demo"):
        bench.fetch_sdist("demo", "1.0", hashlib.sha256(b"other").hexdigest(), tmp_path / "c")
    evil = _sdist(tmp_path, {"demo-1.0/a.py": b"A = 1\n"}, link="/etc/passwd")
    _serve(monkeypatch, evil, hashlib.sha256(evil).hexdigest())
    with pytest.raises(tarfile.TarError):
        bench.fetch_sdist("demo", "1.0", hashlib.sha256(evil).hexdigest(), tmp_path / "d")


def test_the_summary_counts_right_answers_per_kind(bench):
    rows = [{"retrieval": True, "kind": "return value", "correct": True, "seconds": 10.0,
             "tokens": 100, "ran": True, "cited": 1, "grounded": 1},
            {"retrieval": True, "kind": "return value", "correct": False, "seconds": 20.0,
             "tokens": 300},
            {"retrieval": True, "kind": "import", "correct": True, "seconds": 4.0,
             "tokens": 50}]
    summary = bench.summarise(rows)["on"]
    assert summary["by_kind"] == {
        "import": {"questions": 1, "correct": 1, "seconds_per_question": 4.0,
                   "tokens_per_question": 50},
        "return value": {"questions": 2, "correct": 1, "seconds_per_question": 15.0,
                         "tokens_per_question": 200}}
    assert (summary["ran_calls"], summary["answers_grounded"]) == (1, 1)
    table = bench.markdown({"on": summary}, "m", "cmd")
    assert "| return value | 1/2 | 15.0 | 200 |" in table
