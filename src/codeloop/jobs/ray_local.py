"""The local Ray cluster `--executor ray` starts when no address is given: reachable from this
machine only, its files in a private directory.

* Loopback only. On Linux Ray binds its servers (GCS, raylet, workers, object manager) to the
  node's network address; `_node_ip_address="127.0.0.1"` is turned back into that address
  (ray 2.60 `resolve_ip_for_localhost`). Ray's own single-machine mode, the one it uses on
  macOS and Windows, is switched by RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0: the node address is
  then the loopback (measured here: every listening socket on 127.0.0.1). Ray's Python side
  reads the switch once at import, its native side and the processes it starts read the
  environment: both are set, and put back when the cluster is shut down (a later executor may
  join a real cluster). After the start, the node address is checked: not the loopback, and
  the cluster is shut down with a clear error (fail closed).
* Private files. Ray makes its temp and session directories world-writable (0777); under a
  fresh 0700 directory of ours (mkdtemp: an unpredictable name) no other user reaches them.
  Short, in the temp dir: Ray's unix sockets live there, and a socket path has 107 bytes.
"""

from __future__ import annotations

import ipaddress
import os
import tempfile
from pathlib import Path
from typing import Any

from codeloop.scratch import ScratchDir

CLUSTER_MODE_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


class LocalClusterError(RuntimeError):
    """The local cluster could not be kept to the loopback."""


class LocalCluster:
    """Set up before `import ray` / `ray.init`, closed after `ray.shutdown`."""

    def __init__(self) -> None:
        self._saved_env = os.environ.get(CLUSTER_MODE_ENV)
        os.environ[CLUSTER_MODE_ENV] = "0"
        self._saved_constant: bool | None = None
        path = Path(tempfile.mkdtemp(prefix="codeloop-ray-"))
        st = os.lstat(path)
        self.private = ScratchDir(path, st.st_dev, st.st_ino)

    def init_options(self, ray: Any) -> dict[str, Any]:
        """ray.init's options for this cluster; switches Ray's Python side too when Ray was
        imported before the environment said so."""
        constants = ray._private.ray_constants
        if constants.ENABLE_RAY_CLUSTER:
            self._saved_constant = True
            constants.ENABLE_RAY_CLUSTER = False
        return {"_temp_dir": str(self.private.path / "ray")}

    def check_started(self, ray: Any) -> None:
        address = ray.util.get_node_ip_address()
        try:
            loopback = ipaddress.ip_address(address).is_loopback
        except ValueError:
            loopback = False
        if not loopback:
            raise LocalClusterError(f"the local Ray cluster took the address {address}, not "
                                    "the loopback; it was stopped (start one yourself and "
                                    "give --ray-address)")

    def close(self, ray: Any) -> None:
        if self._saved_constant is not None:
            ray._private.ray_constants.ENABLE_RAY_CLUSTER = self._saved_constant
            self._saved_constant = None
        if self._saved_env is None:
            os.environ.pop(CLUSTER_MODE_ENV, None)
        else:
            os.environ[CLUSTER_MODE_ENV] = self._saved_env
        self.private.remove()
