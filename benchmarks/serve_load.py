"""`codeloop serve` under load (a benchmark, not a test).

    .venv/bin/python benchmarks/serve_load.py [--clients 50] [--runs 20] [--json OUT]

A real server (`python -m codeloop serve`, a subprocess, its own store) on the scripted
model. At once: one review run watched by `--clients` SSE clients, and `--runs` more review
runs started together, each watched by one client. Every review runs to the end (approve),
with its sandboxed test runs, so the server streams while its machine is busy.

Reported: lost or duplicated events per client (compared with the store's events of the
run once it has ended: must be 0), event latency (the event's own timestamp, set when the
job emitted it, to its arrival at the client: p50, p95, max, over events that arrived live,
not replayed), the server's peak RSS, and the wall time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import yaml

from codeloop.server.stream_gate import MAX_STREAMS_PER_CLIENT

BUGGY = "def add(a, b):\n    return a - b\n"
TEST = "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
FIX_EDIT = ("calc.py\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n"
            ">>>>>>> REPLACE\n")
APPROVE = {"approved": True, "issues": [], "suggestions": []}
SCRIPT = [{"match": "Fix these problems", "reply": FIX_EDIT}, {"json": APPROVE},
          {"json": APPROVE}, {"json": APPROVE}]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _rss_kib(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) of the process in KiB."""
    fields = {}
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


async def _watch(client: httpx.AsyncClient, run_id: str, out: dict) -> None:
    """One SSE client: every (seq, latency, live) until the stream's end event."""
    connected = time.time()
    out.update(seqs=[], latencies=[], status=None)
    event: dict[str, str] = {}
    async with client.stream("GET", f"/api/runs/{run_id}/events") as response:
        response.raise_for_status()
        async for line in response.aiter_lines():
            if line == "":
                if event.get("event") == "end":
                    out["status"] = json.loads(event["data"])["status"]
                    return
                if "data" in event:
                    data = json.loads(event["data"])
                    out["seqs"].append(data["seq"])
                    if data["ts"] >= connected:  # emitted after this client connected: live
                        out["latencies"].append(time.time() - data["ts"])
                event = {}
                continue
            if line.startswith(":"):
                continue
            key, _, value = line.partition(": ")
            event[key] = value


async def _start(client: httpx.AsyncClient, workspace: Path) -> str:
    response = await client.post("/api/runs", json={"job": "review", "params": {
        "workspace": str(workspace), "files": ["calc.py"], "approve": True}})
    response.raise_for_status()
    return response.json()["run_id"]


async def _load(url: str, token: str, workspaces: list[Path], clients: int,
                pid: int) -> dict:
    headers = {"Authorization": f"Bearer {token}"}
    limits = httpx.Limits(max_connections=clients + len(workspaces) + 10)
    peak = [0]

    async def sample_rss() -> None:
        while True:
            peak[0] = max(peak[0], _rss_kib(pid)[0])
            await asyncio.sleep(0.2)

    sampler = asyncio.create_task(sample_rss())
    # The server admits MAX_STREAMS_PER_CLIENT streams per client address: the SSE clients
    # come from as many loopback addresses as they need (127.0.0.1, .2, ...).
    total = clients + len(workspaces) - 1
    addresses = [f"127.0.0.{1 + n}" for n in range(-(-total // MAX_STREAMS_PER_CLIENT))]
    async with contextlib.AsyncExitStack() as stack:
        by_address = [await stack.enter_async_context(httpx.AsyncClient(
            base_url=url, headers=headers, timeout=600, transport=httpx.AsyncHTTPTransport(
                local_address=address, limits=limits))) for address in addresses]
        client = by_address[0]
        streams = iter(range(total))

        def watcher_client() -> httpx.AsyncClient:
            return by_address[next(streams) // MAX_STREAMS_PER_CLIENT]

        started = time.perf_counter()
        target = await _start(client, workspaces[0])
        watchers = [(target, {}) for _ in range(clients)]
        tasks = [asyncio.create_task(_watch(watcher_client(), target, out))
                 for _, out in watchers]
        others = await asyncio.gather(*(_start(client, ws) for ws in workspaces[1:]))
        for run_id in others:
            out: dict = {}
            watchers.append((run_id, out))
            tasks.append(asyncio.create_task(_watch(watcher_client(), run_id, out)))
        await asyncio.gather(*tasks)
        wall = time.perf_counter() - started
    sampler.cancel()
    return {"target": target, "others": list(others), "watchers": watchers, "wall": wall,
            "rss_peak_kib": peak[0]}


def _stored_seqs(store: Path, run_id: str) -> list[int]:
    with sqlite3.connect(store) as conn:
        return [r[0] for r in conn.execute(
            "SELECT seq FROM events WHERE run_id = ? ORDER BY seq", (run_id,))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="serve-load-"))
    workspaces = []
    for i in range(args.runs + 1):
        ws = work / f"ws{i}"
        ws.mkdir()
        (ws / "calc.py").write_text(BUGGY)
        (ws / "test_calc.py").write_text(TEST)
        workspaces.append(ws)
    script = work / "script.yaml"
    script.write_text(yaml.safe_dump(SCRIPT))
    store = work / "runs.sqlite"
    port = _free_port()
    env = {**os.environ, "CODELOOP_TOKEN": "auto"}
    server = subprocess.Popen(
        [sys.executable, "-m", "codeloop", "serve", "--port", str(port), "--root", str(work),
         "--store", str(store), "--model", f"scripted:{script}"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
        start_new_session=True)
    try:
        banner = "".join(server.stdout.readline() for _ in range(3))
        token = re.search(r"^token: (\S+)$", banner, re.MULTILINE).group(1)
        url = f"http://127.0.0.1:{port}"
        for _ in range(300):
            try:
                httpx.get(f"{url}/api/info", headers={"Authorization": f"Bearer {token}"})
                break
            except httpx.TransportError:
                time.sleep(0.1)
        rss_idle = _rss_kib(server.pid)[0]
        result = asyncio.run(_load(url, token, workspaces, args.clients, server.pid))
        rss_end, rss_hwm = _rss_kib(server.pid)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(30)

    lost = duplicated = 0
    latencies: list[float] = []
    statuses = {}
    for run_id, out in result["watchers"]:
        stored = _stored_seqs(store, run_id)
        got = out["seqs"]
        lost += len(set(stored) - set(got))
        duplicated += len(got) - len(set(got))
        latencies += out["latencies"]
        statuses[run_id] = out["status"]
    total_events = sum(len(out["seqs"]) for _, out in result["watchers"])
    latencies.sort()
    figures = {
        "clients_on_one_run": args.clients, "runs_at_once": args.runs + 1,
        "sse_clients": len(result["watchers"]), "events_delivered": total_events,
        "events_per_run": len(_stored_seqs(store, result["target"])),
        "lost_events": lost, "duplicated_events": duplicated,
        "live_events_measured": len(latencies),
        "latency_p50_ms": round(statistics.median(latencies) * 1000, 1) if latencies else None,
        "latency_p95_ms": round(latencies[int(0.95 * (len(latencies) - 1))] * 1000, 1)
        if latencies else None,
        "latency_max_ms": round(latencies[-1] * 1000, 1) if latencies else None,
        "server_rss_idle_mib": round(rss_idle / 1024, 1),
        "server_rss_peak_mib": round(max(rss_hwm, result["rss_peak_kib"]) / 1024, 1),
        "server_rss_after_mib": round(rss_end / 1024, 1),
        "wall_seconds": round(result["wall"], 1),
        "run_statuses": sorted(set(statuses.values())),
        "cpus": os.cpu_count(),
    }
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    shutil.rmtree(work, ignore_errors=True)
    if lost or duplicated:
        sys.exit(1)


if __name__ == "__main__":
    main()
