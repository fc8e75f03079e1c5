"""`codeloop mcp` as a real subprocess, driven by the MCP SDK's client: the handshake, the
tools and their schemas, `solve` on the scripted model with progress, a bad argument
(one clear line, no run), cancellation (the run stops at its next model call)."""

from __future__ import annotations

import anyio
import yaml
from mcp_kit import TOOLS, connect, structured, text_of
from server_kit import ADD, ADD_TASK, write_script


def test_initialize_lists_every_tool_with_its_schemas(tmp_path):
    model = write_script(tmp_path, [ADD])

    async def scenario():
        async with connect(tmp_path, model) as client:
            assert client.server_info.name == "codeloop"
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert TOOLS <= set(tools)
            solve = tools["solve"]
            assert solve.input_schema["required"] == ["task"]
            assert {"model", "max_refinements"} <= set(solve.input_schema["properties"])
            for name in ("agent", "review"):  # the API's params, required as there
                assert set(tools[name].input_schema["required"]) >= {"workspace"}
            for name in TOOLS:
                assert tools[name].output_schema is not None, name
                assert tools[name].description, name
            assert "run_id" in solve.output_schema["properties"]
            assert "diff_digest" in tools["review"].output_schema["properties"]
            assert set(tools["approve"].input_schema["required"]) == {"run_id", "digest"}

    anyio.run(scenario)


def test_solve_runs_on_the_scripted_model_with_progress(tmp_path):
    model = write_script(tmp_path, [ADD])
    progress: list[str] = []

    async def on_progress(done, total, message):
        progress.append(message or "")

    async def scenario():
        async with connect(tmp_path, model) as client:
            result = await client.call_tool("solve", {"task": ADD_TASK},
                                            progress_callback=on_progress)
            outcome = structured(result)
            assert outcome["job"] == "solve" and outcome["result"]["passed"] is True
            assert (outcome["status"], outcome["outcome"]) == ("succeeded", "tests passed")
            assert outcome["result"]["code"].startswith("def add(a, b):")
            assert outcome["events"] > 0
            shown = structured(await client.call_tool("run_show", {"run_id":
                                                                   outcome["run_id"]}))
            assert shown["id"] == outcome["run_id"] and shown["job"] == "solve"
            listed = structured(await client.call_tool("runs_list", {"job": "solve"}))
            assert [r["id"] for r in listed["runs"]] == [outcome["run_id"]]
            record = await client.read_resource(f"codeloop://runs/{outcome['run_id']}")
            assert outcome["run_id"] in record.contents[0].text
            events = await client.read_resource(
                f"codeloop://runs/{outcome['run_id']}/events")
            assert '"stage_start"' in events.contents[0].text

    anyio.run(scenario)
    assert len(progress) >= 3, progress
    assert any("started" in line for line in progress), progress
    assert any("model call" in line for line in progress), progress


def test_a_bad_argument_is_one_clear_line_and_no_run(tmp_path):
    model = write_script(tmp_path, [ADD])

    async def scenario():
        async with connect(tmp_path, model) as client:
            bad_task = {**ADD_TASK, "signature": "add(a, b)"}  # not a def
            result = await client.call_tool("solve", {"task": bad_task})
            assert result.is_error
            assert "signature" in text_of(result) and "Traceback" not in text_of(result)
            wrong_type = await client.call_tool("solve", {"task": ADD_TASK,
                                                          "max_refinements": 9})
            assert wrong_type.is_error and "max_refinements" in text_of(wrong_type)
            no_such = await client.call_tool("run_show", {"run_id": "solve-nope"})
            assert no_such.is_error and "no run" in text_of(no_such)
            bad_model = await client.call_tool("solve", {"task": ADD_TASK,
                                                         "model": "scripted:/etc/passwd"})
            assert bad_model.is_error and "outside" in text_of(bad_model)
            listed = structured(await client.call_tool("runs_list", {}))
            assert listed["total"] == 0  # nothing started, nothing recorded
            # The session goes on: a good call after the bad ones works.
            assert structured(await client.call_tool("solve", {"task": ADD_TASK}))[
                "result"]["passed"] is True

    anyio.run(scenario)


def test_cancelling_the_call_cancels_the_run_at_its_next_model_call(tmp_path):
    wrong = "```python\ndef add(a, b):\n    return a - b\n```"
    slow = tmp_path / "slow.yaml"
    slow.write_text(yaml.safe_dump({"replies": [wrong] * 20, "delay_seconds": 1.0}))
    model = f"scripted:{slow}"
    progress: list[str] = []

    async def scenario():
        running = anyio.Event()

        async def on_progress(done, total, message):
            progress.append(message or "")
            if "model call" in (message or ""):
                running.set()

        async with connect(tmp_path, model) as client:
            async with anyio.create_task_group() as group:
                async def call():
                    await client.call_tool("solve", {"task": ADD_TASK},
                                           progress_callback=on_progress)
                    raise AssertionError("the slow run finished before the cancel")

                group.start_soon(call)
                with anyio.fail_after(60):
                    await running.wait()  # the run is under way: it has called the model
                group.cancel_scope.cancel()  # the client gives up: notifications/cancelled
            for _ in range(100):
                runs = structured(await client.call_tool("runs_list", {}))["runs"]
                if runs and runs[0]["status"] not in ("running", "queued"):
                    break
                await anyio.sleep(0.1)
            [run] = runs
            assert run["status"] == "cancelled", run
            shown = structured(await client.call_tool("run_show", {"run_id": run["id"]}))
            assert shown["live"] is False

    anyio.run(scenario)
    assert progress, "the run reported no progress before it was cancelled"
