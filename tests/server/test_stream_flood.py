"""A flood of event streams against the real server (`codeloop serve` in a subprocess on
127.0.0.1): streams are bounded per client and in total, the ones over the bound are a 429
at once, the API keeps answering while the admitted streams replay a long history as fast
as their clients read, and a closed stream gives its place back.

The audit's 600 replaying `workflow/stream?after=0` streams made `GET /api/info` take 101 s.
Each client here is one source address on the loopback (127.0.0.x): the per-client bound
is reached from one of them, the total one from several. Every loop is bounded in count
and in time; the server is stopped (and killed if it must be) when the test ends."""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager, suppress
from pathlib import Path

import httpx
import pytest

from codeloop.events import Progress
from codeloop.server.stream_gate import MAX_STREAMS, MAX_STREAMS_PER_CLIENT
from codeloop.store import RunStore

TOKEN = "stream-flood-test-token-0123456789"
HISTORY = 3000  # events every admitted stream replays from after=0
EXTRA = 4  # streams asked for past each bound


def _seed(store_path: Path) -> str:
    """A finished run and one waiting at approval (its stream stays open), each with a long
    history; the waiting run's id."""
    with RunStore(store_path) as store:
        for status in ("passed", "awaiting_approval"):
            run_id = store.start_run("solve", {"via": "test"})
            for index in range(HISTORY):
                store.record_event(Progress(run_id=run_id, done=index, total=HISTORY,
                                            message="x" * 200))
            store.finish_run(run_id, status, {}, ended=status == "passed")
    return run_id


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def _server(tmp_path: Path):
    root = tmp_path / "root"
    root.mkdir()
    (root / "default.yaml").write_text("- unused\n")
    store = tmp_path / "runs.sqlite"
    waiting = _seed(store)
    port = _free_port()
    log = (tmp_path / "serve.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "codeloop", "serve", "--host", "127.0.0.1", "--port",
         str(port), "--root", str(root), "--store", str(store), "--token", TOKEN,
         "--model", f"scripted:{root / 'default.yaml'}"],
        stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        env=dict(os.environ))
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (tmp_path / "serve.log").read_text()
            with suppress(httpx.TransportError):
                if httpx.get(f"{url}/api/info", headers=_auth(), timeout=5).status_code == 200:
                    break
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.2)
        yield port, url, waiting
    finally:
        with suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(30)
        log.close()


def _auth() -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKEN}"}


def _open_stream(port: int, source: str, path: str = "/api/workflow/stream?after=0"
                 ) -> tuple[socket.socket, int, bytes]:
    """A raw HTTP connection from `source` asking for a whole history: (socket, status,
    what came after the headers)."""
    sock = socket.socket()
    sock.settimeout(60)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    sock.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                  f"Authorization: Bearer {TOKEN}\r\nAccept: text/event-stream\r\n"
                  "Connection: close\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head and len(head) < 65536:
        chunk = sock.recv(4096)
        if not chunk:
            break
        head += chunk
    status = int(head.split(b"\r\n", 1)[0].split()[1])
    while status != 200 and len(head) < 65536 and (chunk := sock.recv(4096)):
        head += chunk  # a refusal: its whole body, up to the close
    return sock, status, head.partition(b"\r\n\r\n")[2]


def _drain(socks: list[socket.socket], stop: threading.Event) -> None:
    """Read every admitted stream as fast as it comes (the server's worst case)."""
    while not stop.is_set() and socks:
        ready, _w, _x = select.select(socks, [], [], 0.2)
        for sock in ready:
            with suppress(OSError):
                if not sock.recv(65536):
                    socks.remove(sock)


@pytest.mark.attack
def test_a_stream_flood_is_bounded_and_the_api_keeps_answering(tmp_path):
    with _server(tmp_path) as (port, url, waiting):
        admitted: list[socket.socket] = []
        refused: list[tuple[str, int, bytes]] = []
        sources = [f"127.0.0.{n}" for n in range(1, 2 + MAX_STREAMS // MAX_STREAMS_PER_CLIENT)]
        opened: list[socket.socket] = []
        try:
            paths = ["/api/workflow/stream?after=0", f"/api/runs/{waiting}/events"]
            for source in sources:  # each source asks past the per-client bound
                for index in range(MAX_STREAMS_PER_CLIENT + EXTRA):
                    sock, status, rest = _open_stream(port, source, paths[index % 2])
                    opened.append(sock)
                    if status == 200:
                        admitted.append(sock)
                    else:
                        refused.append((source, status, rest))
            assert len(admitted) == MAX_STREAMS, (len(admitted), refused[:2])
            assert refused and {status for _s, status, _r in refused} == {429}
            body = json.loads(refused[0][2])  # one line: what the bound is, what to do
            assert body["error"] == "too many streams", body
            assert "\n" not in body["detail"] and str(MAX_STREAMS_PER_CLIENT) in body["detail"]
            assert {json.loads(r)["error"] for _s, _st, r in refused} == {"too many streams"}

            stop = threading.Event()
            reader = threading.Thread(target=_drain, args=(list(admitted), stop), daemon=True)
            reader.start()
            try:
                for _ in range(3):  # the API answers while every admitted stream replays
                    info = httpx.get(f"{url}/api/info", headers=_auth(), timeout=120)
                    assert info.status_code == 200 and info.json()["jobs"]
                    runs = httpx.get(f"{url}/api/runs", headers=_auth(), timeout=120)
                    assert runs.status_code == 200 and runs.json()["total"] == 2
            finally:
                stop.set()
                reader.join(30)
        finally:
            for sock in opened:
                sock.close()

        # closed streams give their places back: a new one is admitted (bounded wait)
        deadline = time.monotonic() + 60
        while True:
            sock, status, rest = _open_stream(port, "127.0.0.1")
            sock.close()
            if status == 200:
                break
            assert status == 429, (status, rest)
            assert time.monotonic() < deadline, "the closed streams kept their places"
            time.sleep(0.5)

