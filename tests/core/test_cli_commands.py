"""The CLI's shape: every command is a module-level function the app registers, the root help
lists each command on one line, and the help path stays free of the heavy runtimes."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import typer
from typer.testing import CliRunner

from codeloop.cli import app
from codeloop.commands import (
    agent_cmd,
    ask_cmd,
    bench_cmd,
    build_cmd,
    chat_cmd,
    config_cmd,
    mcp_cmd,
    models_cmd,
    review_cmd,
    run_show,
    runs_cmd,
    sandbox_cmd,
    serve_cmd,
    solve_cmd,
)

# command path -> the module-level function that runs it ("models" alone is the group's
# callback: bare `codeloop models` lists the models).
EXPECTED = {
    ("solve",): solve_cmd.solve,
    ("agent",): agent_cmd.agent,
    ("review",): review_cmd.review,
    ("build",): build_cmd.build,
    ("ask",): ask_cmd.ask,
    ("chat",): chat_cmd.chat,
    ("serve",): serve_cmd.serve,
    ("mcp",): mcp_cmd.mcp,
    ("runs",): runs_cmd.runs,
    ("runs", "show"): run_show.show,
    ("approve",): runs_cmd.approve,
    ("reject",): runs_cmd.reject,
    ("bench", "humaneval"): bench_cmd.humaneval,
    ("bench", "mbpp"): bench_cmd.mbpp,
    ("bench", "compare"): bench_cmd.compare,
    ("bench", "strategies"): bench_cmd.strategies,
    ("models",): models_cmd.models,
    ("models", "install"): models_cmd.install,
    ("sandbox", "run"): sandbox_cmd.run,
    ("sandbox", "info"): sandbox_cmd.info,
    ("config", "show"): config_cmd.show,
}
TOP_LEVEL = ["solve", "agent", "review", "build", "ask", "chat", "serve", "mcp", "runs",
             "approve", "reject", "bench", "models", "sandbox", "config"]
MODULES = [solve_cmd, agent_cmd, review_cmd, build_cmd, ask_cmd, chat_cmd, serve_cmd, mcp_cmd,
           runs_cmd, bench_cmd, models_cmd, sandbox_cmd, config_cmd]


def _callbacks(typer_app: typer.Typer, prefix: tuple[str, ...] = ()) -> dict:
    """{command path: the function typer calls} for everything registered on `typer_app`."""
    found = {}
    if prefix and typer_app.registered_callback is not None:
        found[prefix] = typer_app.registered_callback.callback
    for info in typer_app.registered_commands:
        found[prefix + (info.name,)] = info.callback
    for group in typer_app.registered_groups:
        found.update(_callbacks(group.typer_instance, prefix + (group.name,)))
    return found


def test_every_command_is_a_module_level_function_the_app_registers():
    registered = _callbacks(app)
    assert registered == EXPECTED
    for path, function in registered.items():
        # A closure inside register() has a qualname like "register.<locals>.solve".
        assert function.__qualname__ == function.__name__, (path, function.__qualname__)
        assert getattr(sys.modules[function.__module__], function.__name__) is function


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[1])
def test_register_adds_the_same_functions_as_the_cli(module):
    # Tests and other front ends build their own app from one module; it must be the same
    # command the real CLI runs, and a second app gets a group of its own.
    first, second = typer.Typer(), typer.Typer()
    module.register(first)
    module.register(second)
    mine = _callbacks(first)
    assert mine and mine == _callbacks(second)
    assert all(EXPECTED[path] is function for path, function in mine.items())
    groups = [g.typer_instance for a in (first, second) for g in a.registered_groups]
    assert len({id(g) for g in groups}) == len(groups)


def test_a_module_level_command_runs_on_an_app_of_its_own():
    solo = typer.Typer()
    solo.command()(bench_cmd.strategies)  # a single-command app: no subcommand name
    result = CliRunner().invoke(solo, [])
    assert result.exit_code == 0, result.output
    from codeloop.bench.strategies import available

    names = [line.split()[0] for line in result.output.splitlines()]
    assert names == list(available()) and "oneshot" in names


def _help_rows(columns: int) -> list[str]:
    """The rows of the Commands panel of the real `codeloop --help`, at a given width."""
    env = {**os.environ, "COLUMNS": str(columns), "TERM": "dumb", "NO_COLOR": "1"}
    out = subprocess.run([sys.executable, "-m", "codeloop", "--help"], capture_output=True,
                         text=True, check=True, env=env).stdout
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if "Commands" in line)
    rows = []
    for line in lines[start + 1:]:
        if line.startswith("╰"):
            break
        rows.append(line.strip("│ "))
    return rows


def test_root_help_lists_every_command_on_one_line_each():
    rows = _help_rows(80)
    names = [row.split()[0] for row in rows]
    assert sorted(names) == sorted(TOP_LEVEL), rows  # no wrapped line, nothing missing
    for row in rows:
        assert len(row.split(None, 1)) == 2, f"command without a help line: {row!r}"


def test_help_imports_no_model_runtime_or_graph_library():
    # Building and printing the whole help tree, subcommands included, stays light.
    code = (
        "import sys\n"
        "from codeloop.cli import app\n"
        "for args in (['--help'], ['bench', '--help'], ['models', '--help'],\n"
        "             ['sandbox', 'run', '--help'], ['solve', '--help'], ['agent', '--help'],\n"
        "             ['review', '--help'], ['build', '--help'], ['ask', '--help'],\n"
        "             ['serve', '--help'], ['mcp', '--help'], ['runs', '--help'],\n"
        "             ['approve', '--help']):\n"
        "    try:\n"
        "        app(args)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "heavy = [m for m in ('langgraph', 'llama_cpp', 'openai', 'radon', 'fastapi',\n"
        "                               'uvicorn', 'bm25s')\n"
        "         if m in sys.modules]\n"
        "print('HEAVY', heavy, file=sys.stderr)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={**os.environ, "COLUMNS": "100"})
    assert "HEAVY []" in out.stderr, out.stderr


def test_an_unknown_command_is_one_clean_error():
    result = CliRunner().invoke(app, ["reveiw"])
    assert result.exit_code == 2
    assert "No such command 'reveiw'" in result.output
    assert "Traceback" not in result.output
