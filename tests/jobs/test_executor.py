"""The one executor (principle 14): results come back as futures, at most max_workers units
run at once, and shutdown cancels what has not started."""

from __future__ import annotations

import threading
import time

import pytest

from codeloop.jobs.executor import Executor, LocalExecutor, local_executor


def test_results_and_the_concurrency_cap():
    running, peak, lock = [0], [0], threading.Lock()

    def unit(n: int) -> int:
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        return n * n

    with LocalExecutor(2) as pool:
        assert isinstance(pool, Executor)
        futures = [pool.submit(unit, n) for n in range(6)]
        assert [f.result(timeout=5) for f in futures] == [0, 1, 4, 9, 16, 25]
    assert peak[0] == 2


def test_a_units_exception_comes_back_with_its_future():
    pool = local_executor(1)
    future = pool.submit(lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        future.result(timeout=5)
    pool.shutdown()


def test_shutdown_cancels_pending_units():
    gate = threading.Event()
    pool = LocalExecutor(1)
    first = pool.submit(gate.wait, 5)
    second = pool.submit(lambda: "never")
    gate.set()
    pool.shutdown(wait=True, cancel_pending=True)
    assert first.result() is True
    assert second.cancelled() or second.result() == "never"


def test_at_least_one_worker():
    with pytest.raises(ValueError, match="at least 1"):
        LocalExecutor(0)
