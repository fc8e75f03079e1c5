"""bench on a real local Ray cluster (issue 25), scripted model: the same records as the local
run, a worker killed mid-unit, a unit lost twice, a node without the sandbox."""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

import pytest
from ray_support import kill_units, records, stable, write_script

from codeloop.bench.meta import run_meta
from codeloop.bench.runner import run_bench
from codeloop.bench.strategies import get_strategy
from codeloop.bench.unit import BenchUnit, forget_models, register_model
from codeloop.config import Settings
from codeloop.jobs.executor import LocalExecutor
from codeloop.llm.registry import get_llm

ray = pytest.importorskip("ray") if not os.environ.get("CI") else __import__("ray")
pytestmark = pytest.mark.ray

IDS = ["HumanEval/0", "HumanEval/2", "HumanEval/4", "HumanEval/7", "HumanEval/12",
       "HumanEval/13"]


@pytest.fixture(scope="module")
def cluster():
    """A real local cluster: 2 CPUs, no dashboard; worker processes of its own."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    yield
    ray.shutdown()


@pytest.fixture
def problems(humaneval):
    return [humaneval[i] for i in IDS]


def _meta():
    return run_meta(dataset="humaneval", data_path=None, strategy="oneshot",
                    model="scripted", argv=["codeloop", "bench", "humaneval"])


def _unit(model: str, strategy: str = "oneshot", **options) -> BenchUnit:
    settings = Settings(model=model).model_dump()
    return BenchUnit(problem=None, strategy=strategy, strategy_options=options,  # type: ignore[arg-type]
                     model=model, settings=settings, timeout=10.0, sandbox_missing="record")


def _executor(**kwargs):
    from codeloop.jobs.ray_executor import RayExecutor

    return RayExecutor(**kwargs)


@pytest.mark.parametrize("strategy", ["oneshot", "pipeline"])
def test_ray_gives_the_records_of_the_local_run(cluster, problems, tmp_path, strategy):
    model = write_script(tmp_path / "script.json", problems, wrong={"HumanEval/2"},
                         no_code={"HumanEval/4"})
    settings = Settings(model=model)
    local = run_bench(problems, get_strategy(strategy), get_llm(model, settings),
                      tmp_path / "local", _meta())
    distributed = run_bench(problems, get_strategy(strategy), None, tmp_path / "ray", _meta(),
                            executor=_executor(), unit=_unit(model, strategy))

    by_id = {r["task_id"]: stable(r) for r in records(tmp_path / "ray")}
    assert sorted(by_id) == sorted(IDS)  # every problem once
    assert by_id == {r["task_id"]: stable(r) for r in records(tmp_path / "local")}
    assert by_id["HumanEval/2"]["outcome"] == "wrong_answer"
    assert by_id["HumanEval/4"]["outcome"] == "no_code"
    assert distributed.summary["passed"] == local.summary["passed"] == 4
    assert distributed.summary["llm"] == local.summary["llm"]


def test_the_local_executor_runs_the_same_units(problems, tmp_path):
    """The seam takes either executor: units in this process share the driver's model."""
    model = write_script(tmp_path / "script.json", problems, wrong={"HumanEval/2"})
    settings = Settings(model=model)
    llm = get_llm(model, settings)
    plain = run_bench(problems, get_strategy("oneshot"), llm, tmp_path / "plain", _meta())
    register_model(model, settings.model_dump(), llm)
    try:
        with LocalExecutor(2) as pool:
            pooled = run_bench(problems, get_strategy("oneshot"), llm, tmp_path / "pool",
                               _meta(), executor=pool, unit=_unit(model))
    finally:
        forget_models()
    assert len(llm.calls) == 2 * len(IDS)  # one model instance served both runs
    assert ({r["task_id"]: stable(r) for r in records(tmp_path / "pool")}
            == {r["task_id"]: stable(r) for r in records(tmp_path / "plain")})
    assert pooled.summary["passed"] == plain.summary["passed"] == 5


def test_a_worker_killed_mid_unit_is_retried_and_nothing_counts_twice(cluster, problems,
                                                                      tmp_path):
    model = write_script(tmp_path / "script.json", problems[:3], delay=2.0)
    killed: list[int] = []
    killer = threading.Thread(target=lambda: killed.extend(kill_units(1)))
    killer.start()
    outcome = run_bench(problems[:3], get_strategy("oneshot"), None, tmp_path / "run",
                        _meta(), executor=_executor(), unit=_unit(model))
    killer.join()

    assert len(killed) == 1
    ids = [r["task_id"] for r in records(tmp_path / "run")]
    assert sorted(ids) == sorted(IDS[:3])  # each once: the lost try left no record
    assert outcome.summary["passed"] == 3 and outcome.summary["complete"]
    assert outcome.summary["infra_errors"] == []


def test_a_unit_lost_on_both_tries_is_an_infrastructure_error_not_a_wrong_answer(
        cluster, problems, tmp_path):
    model = write_script(tmp_path / "script.json", problems[:1], delay=2.0)
    out = tmp_path / "run"
    killer = threading.Thread(target=kill_units, args=(2,))
    killer.start()
    lost = run_bench(problems[:1], get_strategy("oneshot"), None, out, _meta(),
                     executor=_executor(), unit=_unit(model))
    killer.join()

    (record,) = records(out)
    assert record["outcome"] == "infra_error" and not record["passed"]
    assert "lost on all 2 tries" in record["reason"]
    assert "WorkerCrashedError" in record["reason"]
    summary = lost.summary
    assert summary["problems_done"] == 0 and not summary["complete"]
    assert summary["outcomes"] == {} and summary["pass_at_1"] == 0.0
    assert [e["task_id"] for e in summary["infra_errors"]] == ["HumanEval/0"]
    assert "infrastructure lost them" in (out / "summary.md").read_text()

    resumed = run_bench(problems[:1], get_strategy("oneshot"), None, out, _meta(),
                        resume=True, executor=_executor(), unit=_unit(model))
    assert resumed.ran == 1
    assert resumed.summary["passed"] == 1 and resumed.summary["complete"]
    assert resumed.summary["infra_errors"] == []


def _path_without_sandbox_tools(tmp_path: Path) -> str:
    """A PATH holding every system command except util-linux's prlimit and setpriv, as on a
    node where they are not installed (bubblewrap cannot be run safely without them)."""
    bin_dir = tmp_path / "bin-without-util-linux"
    bin_dir.mkdir()
    for folder in ("/usr/bin", "/usr/sbin"):
        for entry in os.scandir(folder):
            if entry.name not in ("prlimit", "setpriv") and not (bin_dir / entry.name).exists():
                (bin_dir / entry.name).symlink_to(entry.path)
    return str(bin_dir)


def test_a_node_without_the_sandbox_fails_its_units_naming_the_node(cluster, problems,
                                                                     tmp_path):
    marker = tmp_path / "ran-on-the-host"
    problem = problems[0]
    # The answer would leave a file on the host if it ever ran outside the sandbox.
    script = tmp_path / "script.json"
    write_script(script, [problem], preamble=f"open({str(marker)!r}, 'w').close()\n")
    executor = _executor(runtime_env={"env_vars": {
        "PATH": _path_without_sandbox_tools(tmp_path)}})
    outcome = run_bench([problem], get_strategy("oneshot"), None, tmp_path / "run", _meta(),
                        executor=executor, unit=_unit(f"scripted:{script}"))

    (record,) = records(tmp_path / "run")
    assert record["outcome"] == "infra_error"
    assert record["reason"].startswith(f"node {socket.gethostname()} (")
    assert "no sandbox, the unit did not run" in record["reason"]
    assert "prlimit" in record["reason"]
    assert outcome.summary["problems_done"] == 0
    assert not marker.exists()
