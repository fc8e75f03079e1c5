"""Peers side by side (issue 26): aider and mini-swe-agent on the agent task suite, with the
same model file, request, time cap and scoring as benchmarks/agent_bench.py.

Each peer is installed into its own virtual environment under runs/peers-venvs/ (pinned
versions). The GGUF codeloop uses is served by llama.cpp's OpenAI-compatible server
(llama_cpp.server, same n_ctx and threads as codeloop's settings, the GGUF's own chat
template); every peer talks to it through a small in-script proxy that sums the `usage` of
each response, so tokens are counted the same way for every peer. Greedy (temperature 0)
and the same output cap per model call as codeloop (settings.max_tokens).

Per task: the task's files/ in a fresh git repository, the peer run there as a subprocess
(its whole process group killed at the time cap), then agent_bench.score_workspace (the
task's own tests restored when the request asks to fix code, check/ copied in, test_command
in codeloop's sandbox). Peers run their commands on the host, as they do for their users,
in the temporary workspace.

    .venv/bin/python benchmarks/peers/run_peers.py --install-only
    flock /tmp/codeloop-model.lock .venv/bin/python benchmarks/peers/run_peers.py \\
        --peers aider mini-swe-agent --out benchmarks/results/peers-1.5b
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Self

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from agent_bench import (
    TaskResult,
    _copy_files,
    _is_test,
    load_tasks,
    score_workspace,
    summarise,
)

REPO = Path(__file__).resolve().parents[2]
FULL_COMMAND = ("flock /tmp/codeloop-model.lock .venv/bin/python benchmarks/peers/run_peers.py "
                "--out benchmarks/results/peers-1.5b")
VENVS = REPO / "runs" / "peers-venvs"


# --- the peers -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Peer:
    name: str
    requirement: str  # pinned pip requirement
    distribution: str
    executable: str  # in the venv's bin/

    @property
    def venv(self) -> Path:
        return VENVS / self.name

    @property
    def exe(self) -> Path:
        return self.venv / "bin" / self.executable

    @property
    def version(self) -> str:
        return self.requirement.split("==", 1)[1]


PEERS = {
    "aider": Peer("aider", "aider-chat==0.86.2", "aider-chat", "aider"),
    "mini-swe-agent": Peer("mini-swe-agent", "mini-swe-agent==2.4.6", "mini-swe-agent", "mini"),
}


def installed_version(peer: Peer) -> str | None:
    python = peer.venv / "bin" / "python"
    if not python.exists():
        return None
    code = f"import importlib.metadata as m; print(m.version({peer.distribution!r}))"
    probe = subprocess.run([str(python), "-c", code], check=False, capture_output=True,
                           text=True)
    return probe.stdout.strip() if probe.returncode == 0 else None


def install(peer: Peer) -> None:
    """The pinned peer in its own venv (created from this interpreter's Python)."""
    if installed_version(peer) == peer.version and peer.exe.exists():
        return
    print(f"installing {peer.requirement} into {peer.venv}", flush=True)
    peer.venv.parent.mkdir(parents=True, exist_ok=True)
    if not (peer.venv / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(peer.venv)], check=True)
    pip = [str(peer.venv / "bin" / "python"), "-m", "pip", "install", "-q"]
    subprocess.run(pip + ["--upgrade", "pip"], check=True)
    subprocess.run(pip + [peer.requirement], check=True)
    if installed_version(peer) != peer.version:
        sys.exit(f"{peer.requirement}: install did not give version {peer.version}")


# --- the model server and the counting proxy -------------------------------------------------

def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def resolve_model(spec: str) -> tuple[Path, str]:
    """(GGUF path, model alias) from a codeloop model spec (local:NAME or local:/path.gguf)."""
    from codeloop.llm import weights

    name = spec.removeprefix("local:")
    if name in weights.EMBEDDED_MODELS:
        return weights.ensure_model(weights.EMBEDDED_MODELS[name]), name
    path = weights.check_gguf(name)
    return path, path.stem


class LlamaServer:
    """llama_cpp.server on a free local port, for the duration of a `with` block."""

    def __init__(self, model: Path, alias: str, n_ctx: int, threads: int, log: Path,
                 port: int = 0) -> None:
        self.port = port or free_port()
        self.argv = [sys.executable, "-m", "llama_cpp.server", "--model", str(model),
                     "--model_alias", alias, "--n_ctx", str(n_ctx), "--n_threads", str(threads),
                     "--n_threads_batch", str(threads), "--host", "127.0.0.1",
                     "--port", str(self.port)]
        self.log = log
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> Self:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with self.log.open("w") as out:
            self.process = subprocess.Popen(self.argv, stdout=out, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                sys.exit(f"llama_cpp.server exited ({self.process.returncode}); see {self.log}")
            try:
                with urllib.request.urlopen(self.url + "/v1/models", timeout=5) as reply:
                    if reply.status == 200:
                        return self
            except OSError:
                time.sleep(1)
        self.__exit__()
        sys.exit(f"llama_cpp.server did not answer within 300 s; see {self.log}")

    def __exit__(self, *exc) -> None:
        if self.process is not None and self.process.poll() is None:
            kill_group(self.process, grace=10)


@dataclass
class Usage:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    without_usage: int = 0  # completions whose response carried no usage


@contextlib.contextmanager
def counted_server(model_spec: str, n_ctx: int, threads: int, log_name: str
                   ) -> Iterator[tuple[str, CountingProxy]]:
    """(the model's alias, a CountingProxy in front of llama.cpp's server on its GGUF), for
    the peers harnesses; the server log is runs/LOG_NAME."""
    model, alias = resolve_model(model_spec)
    with LlamaServer(model, alias, n_ctx, threads, REPO / "runs" / log_name) as server:
        proxy = CountingProxy(server.url)
        try:
            yield alias, proxy
        finally:
            proxy.close()


class CountingProxy(ThreadingHTTPServer):
    """Forwards every request to the model server and adds the `usage` of each completion
    to the bucket that was current when the request arrived (a request still running when a
    peer was killed is counted for that peer's task)."""

    daemon_threads = True

    def __init__(self, upstream: str) -> None:
        super().__init__(("127.0.0.1", 0), _ProxyHandler)
        self.upstream = upstream.removeprefix("http://")
        self.bucket = Usage()
        self.inflight = 0
        self.cond = threading.Condition()
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def new_bucket(self) -> Usage:
        with self.cond:
            self.bucket = Usage()
            return self.bucket

    def wait_idle(self, timeout: float = 900) -> bool:
        """Wait until no request is in flight (the server finishes a killed peer's last
        generation before the next task starts, so it does not eat into that task's time)."""
        with self.cond:
            return self.cond.wait_for(lambda: self.inflight == 0, timeout)

    def close(self) -> None:
        self.shutdown()
        self.server_close()


def _usage_of(body: bytes, content_type: str) -> dict | None:
    try:
        if "text/event-stream" in content_type:
            found = None
            for line in body.decode("utf-8", "replace").splitlines():
                if line.startswith("data:") and line[5:].strip() not in ("", "[DONE]"):
                    chunk = json.loads(line[5:])
                    if isinstance(chunk, dict) and chunk.get("usage"):
                        found = chunk["usage"]
            return found
        data = json.loads(body)
        return data.get("usage") if isinstance(data, dict) else None
    except (ValueError, UnicodeDecodeError):
        return None


class _ProxyHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: CountingProxy

    def log_message(self, format: str, *args) -> None:
        pass

    def do_GET(self) -> None:
        self._forward()

    def do_POST(self) -> None:
        self._forward()

    def _forward(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        completion = self.command == "POST" and self.path.rstrip("/").endswith("completions")
        with self.server.cond:
            bucket = self.server.bucket
            self.server.inflight += 1
        try:
            headers = {k: v for k, v in self.headers.items()
                       if k.lower() not in ("host", "connection", "accept-encoding",
                                            "content-length")}
            conn = http.client.HTTPConnection(self.server.upstream, timeout=3600)
            try:
                conn.request(self.command, self.path, body=body, headers=headers)
                reply = conn.getresponse()
                data = reply.read()
                status, reply_headers = reply.status, reply.getheaders()
            finally:
                conn.close()
            if completion:
                usage = _usage_of(data, reply.getheader("Content-Type") or "")
                with self.server.cond:
                    bucket.calls += 1
                    if usage:
                        bucket.prompt_tokens += int(usage.get("prompt_tokens") or 0)
                        bucket.completion_tokens += int(usage.get("completion_tokens") or 0)
                    else:
                        bucket.without_usage += 1
        except OSError as exc:
            data = json.dumps({"error": {"message": f"proxy: {exc}"}}).encode()
            status, reply_headers = 502, [("Content-Type", "application/json")]
        finally:
            with self.server.cond:
                self.server.inflight -= 1
                self.server.cond.notify_all()
        try:
            self.send_response(status)
            for key, value in reply_headers:
                if key.lower() not in ("transfer-encoding", "connection", "content-length"):
                    self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            pass  # the peer was killed while waiting


# --- running one peer on one task ------------------------------------------------------------

@dataclass
class PeerResult(TaskResult):  # mode = the peer, steps = model calls
    prompt_tokens: int = 0
    completion_tokens: int = 0
    exit_code: int | None = None
    timed_out: bool = False
    load_avg: float = 0.0  # 1-minute load when the task ended (2 cores: above ~2.5 = contention)
    command: list[str] = field(default_factory=list)


@dataclass
class Run:
    """What a peer needs to know for one task."""
    name: str
    request: str
    test_command: str
    root: Path  # the workspace
    scratch: Path  # outside the workspace: the peer's home, configs, transcripts
    api_base: str
    alias: str
    files: list[str]
    has_tests: bool
    args: argparse.Namespace
    given: list[str] | None = None  # the files to hand over (default: those the request names)


def aider_command(run: Run) -> tuple[list[str], dict[str, str]]:
    from codeloop.jobs.request_files import named_files

    model = f"openai/{run.alias}"
    extra: dict = {"temperature": 0}
    if run.args.max_tokens:
        extra["max_tokens"] = run.args.max_tokens
    settings = run.scratch / "aider.model.settings.yml"
    settings.write_text(json.dumps([{"name": model, "edit_format": "whole",
                                     "use_temperature": True, "extra_params": extra}]))
    metadata = run.scratch / "aider.model.metadata.json"
    metadata.write_text(json.dumps({model: {
        "max_input_tokens": run.args.n_ctx, "max_tokens": run.args.n_ctx,
        "max_output_tokens": run.args.max_tokens or run.args.n_ctx,
        "input_cost_per_token": 0.0, "output_cost_per_token": 0.0,
        "litellm_provider": "openai", "mode": "chat"}}))
    existing = run.given if run.given is not None else named_files(run.request, run.files)[0]
    argv = [str(PEERS["aider"].exe), "--model", model, "--openai-api-base", run.api_base,
            "--model-settings-file", str(settings), "--model-metadata-file", str(metadata),
            "--edit-format", "whole", "--yes-always", "--no-auto-commits",
            "--no-show-model-warnings", "--no-check-update", "--no-analytics",
            "--no-stream", "--no-pretty", "--no-fancy-input",
            "--chat-history-file", str(run.scratch / "aider.chat.history.md"),
            "--input-history-file", str(run.scratch / "aider.input.history")]
    if run.has_tests:  # as codeloop: the tests run after edits when the project has tests
        argv += ["--auto-test", "--test-cmd", run.test_command]
    argv += ["--message", run.request, *existing]
    return argv, {}


def mini_command(run: Run) -> tuple[list[str], dict[str, str]]:
    overlay = {
        "model": {
            # Text-based actions (```mswea_bash_command blocks): llama.cpp's OpenAI server
            # does not return tool calls with the GGUF's chat template (mini.yaml needs them).
            "model_class": "litellm_textbased",
            "cost_tracking": "ignore_errors",
            "model_kwargs": {"api_base": run.api_base, "api_key": "dummy", "temperature": 0,
                             **({"max_tokens": run.args.max_tokens}
                                if run.args.max_tokens else {})},
        },
        "agent": {"step_limit": run.args.step_limit, "cost_limit": 0},
    }
    config = run.scratch / "mini.overlay.yaml"
    config.write_text(json.dumps(overlay))  # JSON is YAML
    argv = [str(PEERS["mini-swe-agent"].exe), "-c", "mini_textbased.yaml", "-c", str(config),
            "-m", f"openai/{run.alias}", "-t", run.request, "-y", "--exit-immediately",
            "-o", str(run.scratch / "mini.traj.json")]
    env = {"MSWEA_CONFIGURED": "true", "MSWEA_GLOBAL_CONFIG_DIR": str(run.scratch / "mswea"),
           "MSWEA_COST_TRACKING": "ignore_errors"}
    return argv, env


def aider_status(run: Run, exit_code: int | None, timed_out: bool) -> str:
    if timed_out:
        return "timeout"
    return "done" if exit_code == 0 else f"exit {exit_code}"


def mini_status(run: Run, exit_code: int | None, timed_out: bool) -> str:
    if timed_out:
        return "timeout"
    try:
        traj = json.loads((run.scratch / "mini.traj.json").read_text())
        return traj["info"]["exit_status"] or f"exit {exit_code}"
    except (OSError, ValueError, KeyError):
        return f"exit {exit_code} (no trajectory)"


COMMANDS: dict[str, Callable[[Run], tuple[list[str], dict[str, str]]]] = {
    "aider": aider_command, "mini-swe-agent": mini_command}
STATUS: dict[str, Callable[[Run, int | None, bool], str]] = {
    "aider": aider_status, "mini-swe-agent": mini_status}
ARTEFACTS = {"aider": ["aider.chat.history.md"], "mini-swe-agent": ["mini.traj.json"]}


def kill_group(process: subprocess.Popen, grace: float = 5) -> None:
    """SIGTERM to the process group, SIGKILL after `grace` seconds."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=grace)
            if sig == signal.SIGTERM:
                # the leader is gone; whatever it left in the group goes too
                os.killpg(process.pid, signal.SIGKILL)
            return
        except subprocess.TimeoutExpired:
            continue
        except ProcessLookupError:
            return


def peer_env(run: Run, extra: dict[str, str]) -> dict[str, str]:
    home = run.scratch / "home"
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")
           and not k.startswith(("OPENAI_", "AIDER_", "MSWEA_", "LITELLM_"))}
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    if pyenv.is_dir():
        env["PYENV_ROOT"] = str(pyenv)
    env.update({
        # `python` is the interpreter the scoring sandbox uses (this venv's), as for codeloop
        "PATH": f"{Path(sys.prefix) / 'bin'}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "HOME": str(home),  # no dotfiles of the machine's user
        "OPENAI_API_KEY": "dummy", "OPENAI_API_BASE": run.api_base,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "GIT_AUTHOR_NAME": "peer", "GIT_AUTHOR_EMAIL": "peer@localhost",
        "GIT_COMMITTER_NAME": "peer", "GIT_COMMITTER_EMAIL": "peer@localhost",
        "NO_COLOR": "1", "TERM": "dumb", "PYTHONUNBUFFERED": "1",
    })
    env.update(extra)
    return env


def launch(argv: list[str], run: Run, env: dict[str, str], log_path: Path, time_cap: float,
           proxy: CountingProxy) -> tuple[int | None, bool, float]:
    """(exit code or None at the cap, timed out, seconds): the peer in the workspace, its
    output to `log_path`, its whole process group gone after, the model server idle again."""
    started = time.perf_counter()
    with log_path.open("w") as out:
        process = subprocess.Popen(argv, cwd=run.root, env=env, stdin=subprocess.DEVNULL,
                                   stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        timed_out = False
        try:
            process.wait(timeout=time_cap)
        except subprocess.TimeoutExpired:
            timed_out = True
        seconds = time.perf_counter() - started
        kill_group(process)  # the peer at the cap, or what it left running
    if not proxy.wait_idle():
        print("  warning: the model server is still busy after 900 s", flush=True)
    return (None if timed_out else process.returncode), timed_out, seconds


def run_peer_task(peer: str, name: str, spec: dict, folder: Path, proxy: CountingProxy,
                  alias: str, args: argparse.Namespace, logs: Path | None) -> PeerResult:
    from codeloop.agent.snapshots import init_repo

    with tempfile.TemporaryDirectory(prefix=f"peer-bench-{peer}-{name}-") as tmp:
        scratch = Path(tmp)
        root = scratch / "ws"
        root.mkdir()
        _copy_files(folder / "files", root)
        init_repo(root)
        files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*")
                       if p.is_file() and ".git" not in p.relative_to(root).parts)
        run = Run(name, spec["request"], spec["test_command"], root, scratch, proxy.url, alias,
                  files, any(_is_test(Path(f)) for f in files), args)
        argv, extra_env = COMMANDS[peer](run)
        log_path = scratch / "output.log"
        bucket = proxy.new_bucket()
        exit_code, timed_out, seconds = launch(argv, run, peer_env(run, extra_env), log_path,
                                               args.time_cap, proxy)
        status = STATUS[peer](run, exit_code, timed_out)
        if logs is not None:
            shutil.copyfile(log_path, logs / f"{name}.log")
            for artefact in ARTEFACTS[peer]:
                if (scratch / artefact).is_file():
                    shutil.copyfile(scratch / artefact, logs / f"{name}.{artefact}")
        passed, last_line = score_workspace(root, spec, folder)
        shown = [a.replace(str(scratch), "$SCRATCH") for a in argv]
        return PeerResult(
            name, peer, passed, status, bucket.calls,
            bucket.prompt_tokens + bucket.completion_tokens, round(seconds, 1), last_line,
            prompt_tokens=bucket.prompt_tokens, completion_tokens=bucket.completion_tokens,
            exit_code=exit_code, timed_out=timed_out, load_avg=round(os.getloadavg()[0], 2),
            command=shown)


# --- the report ------------------------------------------------------------------------------

def _row(label: str, rows: list[dict]) -> str:
    solved = sum(r["passed"] for r in rows)
    seconds = statistics.median(r["seconds"] for r in rows)
    tokens = [r["tokens"] for r in rows]
    return (f"| {label} | {solved}/{len(rows)} | {seconds:.0f} | "
            f"{statistics.mean(tokens):.0f} | {statistics.median(tokens):.0f} |")


SETTINGS = ("model", "time_cap", "n_ctx", "threads", "max_tokens", "step_limit")


def write_report(out: Path, args: argparse.Namespace) -> None:
    """README.md from every <peer>.json in `out` (each written by its own run)."""
    runs = {p.stem: json.loads(p.read_text()) for p in sorted(out.glob("*.json"))}
    runs = {k: v for k, v in runs.items() if isinstance(v, dict) and v.get("results")}
    if not runs:
        return
    results = {k: v["results"] for k, v in runs.items()}
    tasks = sorted({r["task"] for rows in results.values() for r in rows})
    lines = [
        "# Peers side by side (1.5B)", "",
        ("aider and mini-swe-agent on benchmarks/agent_tasks with the GGUF codeloop uses, "
         "served by llama_cpp.server (OpenAI API), greedy, the same request, time cap and "
         "scoring as benchmarks/agent_bench.py. Written by benchmarks/peers/run_peers.py."), "",
        ("Install the peers (no model), then run the whole comparison (from the repository "
         "root):"), "", "```", ".venv/bin/python benchmarks/peers/run_peers.py --install-only",
        FULL_COMMAND, "```", "",
        "The numbers below came from:", "", "```",
        *sorted({c for v in runs.values() for c in v.get("commands", [v.get("command")])
                 if c}), "```", "",
        ("| agent | tasks solved | median seconds | mean tokens per task "
         "| median tokens per task |"), "|---|---|---|---|---|",
    ]
    if args.codeloop_results and args.codeloop_results.is_file():
        ours = [r for r in json.loads(args.codeloop_results.read_text())
                if r["mode"] == "single" and r["task"] in tasks]
        if ours:
            lines.append(_row(f"codeloop ({args.codeloop_results.parent.name})", ours))
    for peer, rows in results.items():
        lines.append(_row(runs[peer].get("peer", peer), rows))
    lines += ["", "Per task (pass, seconds, tokens, model calls, final status):", "",
              "| task | " + " | ".join(results) + " |",
              "|---|" + "---|" * len(results)]
    for task in tasks:
        cells = []
        for rows in results.values():
            r = next((r for r in rows if r["task"] == task), None)
            cells.append("" if r is None else
                         f"{'PASS' if r['passed'] else 'fail'}, {r['seconds']:.0f} s, "
                         f"{r['tokens']} tok, {r['steps']} calls, {r['status']}")
        lines.append(f"| {task} | " + " | ".join(cells) + " |")
    for peer, run in runs.items():
        loads = [r["load_avg"] for r in run["results"] if "load_avg" in r]
        load = (f"; machine load (1 min, 2 cores) at the end of a task: {min(loads)} to "
                f"{max(loads)}" if loads else "")
        lines.append(f"\n{peer} settings: " + ", ".join(
            f"{k} {v}" for k, v in run.get("settings", {}).items()) + load + ".")
    lines += ["",
              ("Tokens are prompt + completion as llama.cpp reports them per response "
               "(counted by the proxy; a request still running when a peer was stopped is "
               "counted too). Seconds are the peer's wall time, at most the cap. The peers' own "
               "output is in the folder of the same name as each JSON file."),
              "",
              ("Both peers get codeloop's output cap per model call (max_tokens) and "
               "temperature 0; step_limit is mini-swe-agent's (aider stops after its own 3 "
               "test-fix rounds). aider gets the files the request names that exist, and "
               "--auto-test with the task's test_command when the workspace has tests. "
               "mini-swe-agent runs its mini_textbased.yaml config (llama.cpp's server returns "
               "no tool calls with the GGUF's chat template, which mini.yaml needs). Greedy is "
               "not bit-reproducible here: llama.cpp reuses a cached prompt prefix, so what ran "
               "just before (e.g. aider's background history summaries) can change a reply, and "
               "a rerun can differ. Add "
               "codeloop's own row with --codeloop-results <agent_bench.py --out JSON>."), ""]
    (out / "README.md").write_text("\n".join(lines))


# --- main ------------------------------------------------------------------------------------

def main() -> None:
    from codeloop.config import load_config

    settings = load_config().settings
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--peers", nargs="+", choices=sorted(PEERS), default=sorted(PEERS))
    parser.add_argument("--tasks", nargs="*", help="task names (default: all)")
    parser.add_argument("--model", default=settings.model,
                        help="codeloop model spec: local:NAME or local:/path/x.gguf")
    parser.add_argument("--time-cap", type=float, default=360, help="seconds per task")
    parser.add_argument("--n-ctx", type=int, default=settings.n_ctx)
    parser.add_argument("--threads", type=int, default=settings.threads())
    parser.add_argument("--max-tokens", type=int, default=settings.max_tokens,
                        help="output cap per model call (codeloop's max_tokens); 0: none")
    parser.add_argument("--step-limit", type=int, default=30, help="mini-swe-agent steps")
    parser.add_argument("--port", type=int, default=0, help="llama.cpp server port (0: free)")
    parser.add_argument("--out", type=Path, help="folder: <peer>.json, <peer>/ logs, README.md")
    parser.add_argument("--codeloop-results", type=Path,
                        help="an agent_bench.py --out JSON to add as a row of the table")
    parser.add_argument("--install-only", action="store_true")
    parser.add_argument("--report-only", action="store_true",
                        help="rewrite README.md from the JSON files in --out")
    args = parser.parse_args()
    command = ("flock /tmp/codeloop-model.lock .venv/bin/python "
               + shlex.join(["benchmarks/peers/run_peers.py", *sys.argv[1:]]))
    settings_used = {k: getattr(args, k) for k in SETTINGS}

    if args.report_only:
        if not args.out:
            parser.error("--report-only needs --out")
        write_report(args.out, args)
        return
    for name in args.peers:
        install(PEERS[name])
    if args.install_only:
        return
    tasks = load_tasks(args.tasks)
    model, alias = resolve_model(args.model)
    server_log = REPO / "runs" / "peers-llama-server.log"
    all_results: list[PeerResult] = []
    with LlamaServer(model, alias, args.n_ctx, args.threads, server_log, args.port) as server:
        proxy = CountingProxy(server.url)
        try:
            for peer in args.peers:
                logs = args.out / peer if args.out else None
                if logs is not None:
                    logs.mkdir(parents=True, exist_ok=True)
                results: list[PeerResult] = []
                for name, spec, folder in tasks:
                    result = run_peer_task(peer, name, spec, folder, proxy, alias, args, logs)
                    print(f"{name} [{peer}]: {'PASS' if result.passed else 'FAIL'} "
                          f"({result.status}, {result.steps} calls, {result.tokens} tokens, "
                          f"{result.seconds}s)", flush=True)
                    results.append(result)
                    if args.out:
                        (args.out / f"{peer}.json").write_text(json.dumps(
                            {"peer": PEERS[peer].requirement, "command": command,
                             "settings": settings_used,
                             "results": [asdict(r) for r in results]}, indent=2))
                all_results += results
        finally:
            proxy.close()
    print(summarise(all_results))
    if args.out:
        write_report(args.out, args)


if __name__ == "__main__":
    main()
