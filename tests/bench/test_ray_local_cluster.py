"""The local Ray cluster `--executor ray` starts (no address given) listens on the loopback
only and keeps its session files in a private directory: run as the CLI runs it, in a fresh
process, with a unit on a worker so every kind of Ray process is up."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ray") if not os.environ.get("CI") else None
pytestmark = pytest.mark.ray

HERE = Path(__file__).resolve().parent

PROBE = """
import json, os, stat, sys
sys.path.insert(0, sys.argv[1])
from listening_sockets import listening
from codeloop.jobs.ray_executor import RayExecutor

def worker_pid():
    return os.getpid()

executor = RayExecutor(local_cpus=1)
unit_pid = executor.submit(worker_pid).result(timeout=120)
ray = executor._ray
node = ray._private.worker.global_worker.node
session = node.get_session_dir_path()
chain = []
path = os.path.dirname(session)
while path != "/":
    st = os.lstat(path)
    chain.append([path, stat.S_IMODE(st.st_mode), st.st_uid])
    path = os.path.dirname(path)
report = {"listening": listening(os.getpid()), "session": session, "chain": chain,
          "unit_pid": unit_pid, "me": os.getpid(), "node_ip": node.node_ip_address}
executor.shutdown()
report["session_left"] = os.path.exists(session)
print("REPORT " + json.dumps(report))
"""


def _probe(tmp_path: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    proc = subprocess.run([sys.executable, "-c", PROBE, str(HERE)], capture_output=True,
                          text=True, timeout=300, env=env, cwd=tmp_path, check=False)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("REPORT ")]
    assert proc.returncode == 0 and lines, proc.stderr[-3000:]
    return json.loads(lines[-1].removeprefix("REPORT "))


def test_the_started_cluster_listens_on_the_loopback_only_and_keeps_its_files_private(
        tmp_path):
    from listening_sockets import is_loopback

    report = _probe(tmp_path)
    assert report["unit_pid"] != report["me"]  # a worker process of the cluster ran it
    assert report["listening"], "the cluster's processes listen somewhere"
    outside = [(addr, port) for addr, port in report["listening"] if not is_loopback(addr)]
    assert outside == [], outside
    assert is_loopback(report["node_ip"])
    # Some directory above the session is ours alone (0700): no other user reaches it.
    private = [(path, mode) for path, mode, uid in report["chain"]
               if uid == os.geteuid() and mode == 0o700]
    assert private, report["chain"]
    assert not report["session_left"]  # removed with the cluster
