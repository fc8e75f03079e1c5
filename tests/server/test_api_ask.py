"""ask through the API on the scripted model, real store: POST /api/runs {job: "ask"} runs
the six nodes on a repository under the server's roots and stores the answer, its grounded
citations and the five scores; bad input (a repository outside the roots or missing, an
empty question, a type that needs a repository) is a 4xx with one line and no run."""

from __future__ import annotations

import shutil
from pathlib import Path

from server_kit import served, start, wait_status, write_script

from codeloop.store import RunStore

FIXTURES = Path(__file__).parents[1] / "ask" / "fixtures"
REASONER = "Plan how to complete the task"
ANSWER = "Code from the repository"
GOOD_ANSWER = ("`inventory_value` adds up `item.total()` for every item "
               "(pyapp/report.py:6-8); each `total` is quantity times price (pyapp/models.py:12)."
               " The cache lives in pyapp/cache.py:3.")
STEPS = {"match": REASONER, "json": {"steps": ["Find the function that sums the items",
                                               "Read inventory_value", "Answer citing lines"]}}
# The status a finished ask has: the lifecycle word, or the job's older word.
ANSWERED = {"succeeded", "completed"}


def _pyapp(root: Path) -> Path:
    repo = root / "pyapp"
    shutil.copytree(FIXTURES / "pyapp", repo)
    return repo


def test_an_ask_run_answers_with_grounded_citations_and_its_scores(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    repo = _pyapp(root)
    spec = write_script(root, [STEPS, {"match": ANSWER, "reply": GOOD_ANSWER}], "ask.yaml")
    with served(root) as client:
        run_id = start(client, "ask", {"question": "Where is the inventory value computed?",
                                       "repo": "pyapp", "model": spec})
        detail = wait_status(client, run_id, ANSWERED | {"failed", "error"})
        assert detail["status"] in ANSWERED, detail
        assert detail["job"] == "ask" and detail["model"] == spec
        assert detail["input"]["repo"] == str(repo.resolve())
        result = detail["result"]
        assert result["final_output"] == GOOD_ANSWER
        assert result["task_type"] == "answer_question"
        grounding = result["grounding"]
        assert (grounding["cited"], grounding["grounded"]) == (3, 2)
        assert grounding["invented"] == ["pyapp/cache.py:3"]
        assert set(result["evaluation_scores"]["metrics"]) == {
            "task_completion", "reasoning_quality", "tool_effectiveness",
            "reflection_quality", "output_quality"}
        assert detail["tokens"] > 0 and detail["tokens_per_stage"]["generator"]["calls"] == 1
        [row] = client.get("/api/runs", params={"job": "ask"}).json()["runs"]
        assert row["id"] == run_id


def test_bad_ask_requests_are_one_line_4xx_and_record_nothing(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    _pyapp(root)
    (root / "empty").mkdir()
    outside = tmp_path / "elsewhere"
    shutil.copytree(FIXTURES / "pyapp", outside)
    (root / "link").symlink_to(outside)
    with served(root) as client:
        def post(params: dict):
            return client.post("/api/runs", json={"job": "ask", "params": params})

        cases = [
            ({"question": "What is this?", "repo": str(outside)}, 403, "outside"),
            ({"question": "What is this?", "repo": "link"}, 403, "outside"),  # a link out
            ({"question": "What is this?", "repo": "missing"}, 400, "not an existing"),
            ({"question": "What is this?", "repo": "empty"}, 400, "no readable text"),
            ({"question": "   ", "repo": "pyapp"}, 400, "the question is empty"),
            ({"question": "Describe it", "task_type": "analyze_repo"}, 400,
             "needs a repository"),
            ({"question": ""}, 422, "question"),
            ({"question": "x", "task_type": "poem"}, 422, "task_type"),
            ({"question": "x", "repo": "pyapp", "shell": "rm -rf /"}, 422, "shell"),
        ]
        for params, status, says in cases:
            answer = post(params)
            assert answer.status_code == status, (params, answer.text)
            body = answer.json()
            assert says in body["detail"] and "\n" not in body["detail"], (params, body)
        assert client.get("/api/runs").json()["total"] == 0
    with RunStore(root / "runs.sqlite") as store:
        assert store.count_runs() == 0


def test_the_ask_job_is_offered_by_the_server(tmp_path):
    with served(tmp_path) as client:
        assert "ask" in client.get("/api/info").json()["jobs"]
        schema = client.get("/openapi.json").json()["components"]["schemas"]
        assert {"question", "repo"} <= set(schema["AskParams"]["properties"])
