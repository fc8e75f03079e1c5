"""Each task type's path through the six nodes, on the scripted model: the loop (continue,
retry, the iteration cap), the no-model fallback report, the run store's record."""

from __future__ import annotations

import pytest

from codeloop.ask.context import AskError
from codeloop.ask.service import ask
from codeloop.events import EventRecorder
from codeloop.llm.scripted import ScriptedLLM
from codeloop.store import RunStore

REASONER = "Plan how to complete the task"
ANSWER = "Code from the repository"
REPORT = "Write two Markdown sections"
CONTENT = "Write it now"
GENERAL = "Answer clearly and briefly"
CLASSIFY = "Classify this request"
GOOD_ANSWER = ("`inventory_value` adds up `item.total()` for every item "
               "(pyapp/report.py:6-8); each `total` is quantity times price (pyapp/models.py:12).")


def steps(*text):
    return {"match": REASONER, "json": {"steps": list(text)}}


def run(question, repo, script, **options):
    recorder = EventRecorder()
    llm = ScriptedLLM(script) if script is not None else None
    result = ask(question, repo, llm, listen=recorder, **options)
    nodes = [e.stage for e in recorder.of_type("stage_start")]
    return result, nodes, recorder, llm


def test_a_question_retrieves_reasons_reflects_and_answers_with_grounded_citations(pyapp):
    result, nodes, recorder, _ = run(
        "Where is the inventory value computed?", pyapp,
        [steps("Find the function that sums the items",
               "Read inventory_value in pyapp/report.py", "Answer citing the lines"),
         {"match": ANSWER, "reply": GOOD_ANSWER}])
    assert nodes == ["planner", "repo_analyzer", "reasoner", "reflector", "generator",
                     "evaluator"]
    assert (result.task_type, result.task_type_source) == ("answer_question", "rules")
    assert [u["tool"] for u in result.tool_usage] == ["generate_architecture_map",
                                                      "retrieve_chunks"]
    assert all(u["result_size"] > 2 for u in result.tool_usage)
    assert ("pyapp/report.py", 6) in [(c["path"], c["start"]) for c in result.retrieved]
    assert result.reasoning_steps[0] == ("Planning: task type is answer_question, next "
                                         "action is retrieve")
    assert result.reflection_notes[-1]["decision"] == "generate"
    assert result.final_output == GOOD_ANSWER
    g = result.grounding
    assert (g["cited"], g["grounded"], g["rate"]) == (2, 2, 1.0)
    # the seed's rules: complete within the limit 100; 4 reasoning steps (planning + 3) and a
    # reflection 40 + 30 + 20; 2 tool calls 50 + 20; 1 reflection note 30 + 15; the code
    # question's answer: a path 10, code 10, identifiers 10, 100+ characters 8
    scores = {k: v["score"] for k, v in result.evaluation_scores["metrics"].items()}
    assert scores == {"task_completion": 100, "reasoning_quality": 90, "tool_effectiveness": 70,
                      "reflection_quality": 45, "output_quality": 38}
    # (100x35 + 90x25 + 70x15 + 45x10 + 38x15) / 100
    assert result.evaluation_scores["overall"] == pytest.approx(78.2)
    assert [e.tool for e in recorder.of_type("tool_call")] == ["generate_architecture_map",
                                                               "retrieve_chunks"]
    assert result.totals.calls == 2 and result.totals.total_tokens > 0


def test_continue_reads_the_files_the_reasoning_names(pyapp):
    result, nodes, _, _ = run(
        "Where is the value computed?", pyapp,
        [steps("Open pyapp/storage.py", "Follow load_items", "Answer"),
         {"match": ANSWER, "reply": GOOD_ANSWER}])
    assert nodes == ["planner", "repo_analyzer", "reasoner", "reflector",
                     "planner", "repo_analyzer", "reasoner", "reflector",
                     "generator", "evaluator"]
    notes = result.reflection_notes
    assert [n["decision"] for n in notes] == ["continue", "generate"]
    assert "pyapp/storage.py" in notes[0]["reason"]
    assert result.iteration_count == 2
    assert result.tool_usage[-1]["tool"] == "read_source_files"
    assert result.tool_usage[-1]["arguments"]["files"] == ["pyapp/storage.py"]
    assert "Planning: task type is answer_question, next action is read_files" in \
        result.reasoning_steps


def test_the_iteration_cap_stops_the_loop(pyapp):
    result, nodes, _, _ = run(
        "How does the command line print the value?", pyapp,
        [steps("Open pyapp/cli.py", "Follow main()", "Answer"),
         {"match": ANSWER, "reply": "It echoes it (pyapp/cli.py:14)."}],
        max_iterations=1)
    assert nodes.count("planner") == 1 and nodes[-2:] == ["generator", "evaluator"]
    assert result.reflection_notes == [{"iteration": 1, "decision": "generate",
                                        "reason": "the iteration cap (1) is reached"}]
    completion = result.evaluation_scores["metrics"]["task_completion"]
    assert completion["score"] == 90  # at the cap: 10 for the iterations, not 20
    assert "all 1 iterations: +10" in completion["why"]


def test_bad_json_falls_back_then_retry_asks_again(pyapp):
    result, nodes, recorder, llm = run(
        "What is 6 times 7?", None,
        [{"match": REASONER, "json": {"steps": ["only one"]}, "times": 1},
         steps("Multiply six by seven", "Check the product", "State it"),
         {"match": GENERAL, "reply": "6 x 7 = 42\nAnswer: 42"}])
    assert nodes == ["planner", "reasoner", "reflector", "planner", "reasoner", "reflector",
                     "generator", "evaluator"]
    assert [n["decision"] for n in result.reflection_notes] == ["retry", "generate"]
    errors = [e for e in recorder.of_type("debug_log") if e.event_type == "error"]
    assert errors and errors[0].content.startswith("fell back to simple steps: the model's JSON")
    assert "Give each step as one plain sentence" in llm.calls[1][-1].content  # the retry note
    assert result.reasoning_steps[-3:] == ["Step 1: Multiply six by seven",
                                           "Step 2: Check the product", "Step 3: State it"]
    metrics = result.evaluation_scores["metrics"]
    assert metrics["reflection_quality"]["score"] == 50  # 2 notes: 30 + 20
    assert metrics["reasoning_quality"]["score"] == 100  # 8 steps across both rounds
    assert metrics["tool_effectiveness"]["score"] == 0  # the seed's: no tool, no points


def test_analyze_repo_report_has_the_models_prose_and_the_tools_data(pyapp):
    result, nodes, _, _ = run(
        "Analyze this repository", pyapp,
        [steps("Read the tree", "Map imports", "Write the report"),
         {"match": REPORT, "reply": "## Purpose\nAn inventory tool.\n\n## Architecture\n"
                                    "- models.py holds `Item` (pyapp/models.py:6)"}])
    assert nodes[:2] == ["planner", "repo_analyzer"]
    assert [u["tool"] for u in result.tool_usage] == [
        "analyze_directory_structure", "extract_dependencies", "generate_architecture_map",
        "read_source_files"]
    text = result.final_output
    assert result.output_source == "model"
    assert "## Purpose\nAn inventory tool." in text
    assert "- **runtime** (3): requests >=2.31, click ==8.1.7, pyyaml >=6" in text
    assert "| pyapp/models.py | 2 | 0 | Item |" in text
    assert "- pyapp/cli.py (main: __main__)" in text
    for section in ("Purpose", "Structure", "Dependencies", "Architecture", "Entry points"):
        assert f"## {section}" in text
    assert result.grounding["rate"] == 1.0


@pytest.mark.parametrize("llm_script", [None, [{"match": ".", "raise": "BackendUnreachable"}]])
def test_no_model_gives_the_template_report(pyapp, llm_script):
    result, nodes, recorder, llm = run("Analyze this repository", pyapp, llm_script)
    assert result.output_source == "template"
    assert "## Purpose\npyapp keeps a small inventory of items and prints reports about them." \
        in result.final_output
    assert "- pyapp/models.py:1 is imported by 2 module(s); defines Item" in result.final_output
    assert result.reasoning_steps[1] == "Step 1: Read the directory structure and the " \
                                        "declared dependencies"
    if llm is not None:
        assert len(llm.calls) == 1  # one failed call; no node waits on a dead backend twice
        assert any("no model reachable" in e.content for e in recorder.of_type("debug_log"))
    assert nodes[-1] == "evaluator" and result.evaluation_scores["overall"] > 0


def test_other_types_need_a_model(pyapp, tmp_path):
    store = RunStore(tmp_path / "runs.db")
    with pytest.raises(AskError, match="needs a model"):
        ask("What is 2 + 2?", None, None, store)
    assert store.count_runs("ask") == 0  # refused before anything was recorded
    with pytest.raises(AskError, match="no model reachable for a answer_question task"):
        ask("Where is the value computed?", pyapp,
            ScriptedLLM([{"match": ".", "raise": "BackendUnreachable"}]), store)
    assert store.list_runs("ask")[0].status == "failed"


def test_content_is_written_from_the_repositorys_facts(pyapp):
    result, nodes, _, llm = run(
        "Write a LinkedIn post about this project", pyapp,
        [steps("Collect facts", "Pick a tone", "Write"),
         {"match": CONTENT, "reply": "Meet pyapp!\n\nIt values your inventory."}])
    assert result.task_type == "generate_content"
    assert "repo_analyzer" in nodes
    prompt = llm.calls[-1][-1].content
    assert "pyapp keeps a small inventory of items" in prompt
    assert "Built on: requests, click, pyyaml" in prompt
    assert result.final_output == "Meet pyapp!\n\nIt values your inventory."


def test_the_model_decides_the_type_when_the_rules_cannot(pyapp):
    result, _, _, llm = run(
        "inventory valuation", pyapp,
        [{"match": CLASSIFY, "json": {"task_type": "answer_question"}},
         steps("Find it", "Read it", "Say it"),
         {"match": ANSWER, "reply": GOOD_ANSWER}])
    assert (result.task_type, result.task_type_source) == ("answer_question", "model")
    assert llm.schemas[0]["properties"]["task_type"]["enum"][0] == "analyze_repo"


def test_the_users_type_wins(pyapp):
    result, _, _, _ = run("Where is the value computed?", pyapp,
                          [steps("a b", "c d", "e f"),
                           {"match": CONTENT, "reply": "A post.\n\nMore."}],
                          task_type="generate_content")
    assert (result.task_type, result.task_type_source) == ("generate_content", "user")


def test_invented_citations_are_counted_as_such(pyapp):
    result, _, _, _ = run(
        "Where is the value computed?", pyapp,
        [steps("Find it", "Read it", "Say it"),
         {"match": ANSWER, "reply": "In `compute_value` (pyapp/valuation.py:3), and "
                                    "`inventory_value` (pyapp/report.py:6)."}])
    g = result.grounding
    assert (g["cited"], g["existing"], g["grounded"]) == (2, 1, 1)
    assert g["invented"] == ["pyapp/valuation.py:3"]
    assert result.evaluation_scores["metrics"]["task_completion"]["score"] == 100  # not folded


def test_retrieval_off_gives_the_central_files(pyapp):
    result, _, _, llm = run(
        "Where is the value computed?", pyapp,
        [steps("Find it", "Read it", "Say it"), {"match": ANSWER, "reply": GOOD_ANSWER}],
        retrieval=False)
    assert result.retrieved == []
    assert [u["tool"] for u in result.tool_usage][-1] == "read_source_files"
    assert "--- pyapp/models.py:1-" in llm.calls[-1][-1].content  # numbered, most central


def test_the_run_is_recorded_with_its_events(pyapp, tmp_path):
    store = RunStore(tmp_path / "runs.db")
    llm = ScriptedLLM([steps("Find it", "Read it", "Say it"),
                       {"match": ANSWER, "reply": GOOD_ANSWER}])
    result = ask("Where is the value computed?", pyapp, llm, store)
    record = store.get_run(result.run_id)
    assert (record.job, record.status) == ("ask", "succeeded")
    assert record.result["grounding"]["rate"] == 1.0
    kinds = {event.type for _, event in store.events(result.run_id)}
    assert {"stage_start", "stage_end", "tool_call", "llm_call", "debug_log"} <= kinds
    assert store.checkpointer().get_tuple({"configurable": {"thread_id": result.run_id}})


@pytest.mark.parametrize(("question", "repo", "message"), [
    ("   ", None, "the question is empty"),
    ("x" * 5000, None, "at most 4000"),
    ("hi?", "missing-dir", "does not exist"),
])
def test_bad_input_is_one_clear_error(question, repo, message, tmp_path):
    with pytest.raises(AskError, match=message):
        ask(question, tmp_path / repo if repo else None, ScriptedLLM([]))


def test_a_binary_only_repository_is_refused(tmp_path):
    (tmp_path / "a.bin").write_bytes(b"\x00\x01\x02" * 10)
    (tmp_path / "b.dat").write_bytes(bytes(range(256)))
    with pytest.raises(AskError, match=r"no readable text files \(2 binary\)"):
        ask("What is here?", tmp_path, ScriptedLLM([]))
