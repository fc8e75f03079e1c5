"""Ray behind the kit's Executor protocol (principle 14): the same `submit` and `shutdown`, the
units run as Ray tasks on whatever cluster `address` names, or on a local one started here.

Why Ray tasks and not a pool of our own: Ray retries a task whose worker process or node died
(`max_retries`, bounded), cancels outstanding tasks, and runs the same on a laptop and on a
cluster. A task that raised is *not* retried (`retry_exceptions=False`): the unit records its
own errors, and an exception that escapes one (the model unreachable) must stop the run, not
be hammered again.

Ray is imported here only, and only when this executor is built: `codeloop[ray]` is an
optional extra and the default install never loads it.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Self, TypeVar

from codeloop.jobs.ray_local import LocalCluster, LocalClusterError

T = TypeVar("T")

RAY_EXTRA = "pip install 'codeloop[ray]'"
ADDRESS_ENV = "CODELOOP_RAY_ADDRESS"
# A unit whose worker died is run again once: "fails twice" is an infrastructure error.
DEFAULT_MAX_RETRIES = 1
CLIENT_TRIES = 3


class RayNotInstalled(RuntimeError):
    """--executor ray without the extra installed."""


class RayConnectError(RuntimeError):
    """The cluster at the given address could not be joined (or a local one started)."""


def import_ray() -> Any:
    # Read by Ray when it is imported. Nothing leaves the machine: no usage report. And
    # `ray start` turns token authentication on (the token in ~/.ray/auth_token, or
    # RAY_AUTH_TOKEN[_PATH]), but a client given an address assumes it off and is refused
    # (measured with ray 2.60.0): keep it on; RAY_AUTH_MODE=disabled still opts out.
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    os.environ.setdefault("RAY_AUTH_MODE", "token")
    try:
        import ray
    except ImportError as exc:
        raise RayNotInstalled(f"--executor ray needs Ray, which is not installed: {RAY_EXTRA} "
                              "(on the driver and on every node of the cluster)") from exc
    return ray


def resolve_address(address: str | None) -> str | None:
    """--ray-address, else CODELOOP_RAY_ADDRESS, else None: a local cluster on this machine."""
    chosen = (address or os.environ.get(ADDRESS_ENV, "")).strip()
    return chosen or None


class RayExecutor:
    """Units as Ray tasks. `max_workers` bounds the units in flight (the runner submits more
    as they finish), so Ctrl-C has at most that many to cancel; the cluster's CPUs decide how
    many actually run at once (a unit asks for `num_cpus`)."""

    remote = True

    def __init__(self, address: str | None = None, *, max_workers: int | None = None,
                 num_cpus: float = 1, max_retries: int = DEFAULT_MAX_RETRIES,
                 runtime_env: dict[str, Any] | None = None,
                 local_cpus: int | None = None) -> None:
        self.address = resolve_address(address)
        # A local cluster is set up before Ray is imported: loopback only, private files.
        self._local = LocalCluster() if self.address is None else None
        try:
            self._ray = import_ray()
        except RayNotInstalled:
            self._close_local()
            raise
        self._started_here = False
        self._connect(local_cpus)
        cluster_cpus = int(self._ray.cluster_resources().get("CPU", 1))
        self.max_workers = max_workers or max(1, cluster_cpus)
        self.num_cpus = num_cpus
        self.max_retries = max_retries
        self.runtime_env = runtime_env
        self._refs: dict[Any, Future[Any]] = {}
        self._lock = threading.Lock()

    def _connect(self, local_cpus: int | None) -> None:
        ray = self._ray
        if ray.is_initialized():
            self._close_local()  # joined the cluster already up in this process
            return
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                   "configure_logging": False}
        if self._local is not None:
            options["num_cpus"] = local_cpus or os.cpu_count() or 1
            options.update(self._local.init_options(ray))
            self._started_here = True
        # Ray's client server sometimes fails a first connection while it starts the
        # per-client server (seen here under load: psutil on a process that had just gone);
        # a client address gets two more tries. One clear line when all fail.
        tries = CLIENT_TRIES if (self.address or "").startswith("ray://") else 1
        for attempt in range(1, tries + 1):
            try:
                # "local": a new cluster for this run, never one that happens to be up here.
                ray.init(address=self.address or "local", **options)
            except Exception as exc:
                if attempt < tries:
                    time.sleep(2.0 * attempt)
                    continue
                self._close_local()
                where = self.address or "a local cluster"
                raise RayConnectError(f"cannot connect to Ray at {where}: {exc}") from exc
            if self._local is not None:
                try:
                    self._local.check_started(ray)
                except LocalClusterError as exc:
                    ray.shutdown()
                    self._close_local()
                    raise RayConnectError(str(exc)) from None
            return

    def _close_local(self) -> None:
        if self._local is not None:
            self._local.close(getattr(self, "_ray", None))
            self._local = None

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        task = self._ray.remote(fn).options(
            num_cpus=self.num_cpus, max_retries=self.max_retries, retry_exceptions=False,
            **({"runtime_env": self.runtime_env} if self.runtime_env else {}))
        ref = task.remote(*args, **kwargs)
        future: Future[T] = ref.future()
        with self._lock:
            self._refs[ref] = future
        future.add_done_callback(lambda _f, r=ref: self._forget(r))
        return future

    def _forget(self, ref: Any) -> None:
        with self._lock:
            self._refs.pop(ref, None)

    def infra_failure(self, exc: BaseException) -> str | None:
        """A reason when `exc` says the cluster lost the unit (its worker or node died on
        every try), None when the unit itself raised: that is the unit's own error."""
        errors = self._ray.exceptions
        if isinstance(exc, errors.RayTaskError) or not isinstance(exc, errors.RayError):
            return None
        first = (str(exc).strip().splitlines() or [""])[0][:200]
        tries = self.max_retries + 1
        return (f"infrastructure: the unit was lost on all {tries} tries "
                f"({type(exc).__name__}: {first})")

    def cause(self, exc: BaseException) -> BaseException:
        """The unit's own exception inside a RayTaskError (ABORTING_ERRORS are matched on it)."""
        if isinstance(exc, self._ray.exceptions.RayTaskError):
            return exc.as_instanceof_cause() if exc.cause is None else exc.cause
        return exc

    def shutdown(self, wait: bool = True, *, cancel_pending: bool = False) -> None:
        with self._lock:
            outstanding = list(self._refs)
        if cancel_pending:
            for ref in outstanding:
                try:
                    self._ray.cancel(ref, force=True)
                except Exception:  # noqa: BLE001, S112 - already finished or gone
                    continue
        elif wait and outstanding:
            self._ray.wait(outstanding, num_returns=len(outstanding))
        if self._started_here and self._ray.is_initialized():
            self._ray.shutdown()
        self._close_local()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown(wait=True, cancel_pending=True)
