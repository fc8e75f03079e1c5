"""Runs INSIDE the sandbox in the trusted harness process (standalone: stdlib only).

The harness holds the tests and the result channel (an fd the host opened outside the
workspace); the candidate's code runs only in a child process (worker.py) that gets neither.
Here: the channel, the harness's protection from its child, and proxies that stand for the
candidate's top-level names: calling one sends (name, args, kwargs) to the child and brings
back a plain value (codec.py), so every comparison happens here, on plain values.
"""

from __future__ import annotations

import builtins
import ctypes
import json
import os
import signal
import subprocess
import sys
import time

import codec

PR_SET_DUMPABLE = 4
# Stdlib modules the candidate may hand over by name (its `import math` seen by the tests);
# none of these can reach the channel, files or processes.
_NO_MODULES = {"os", "sys", "subprocess", "shutil", "ctypes", "signal", "posix", "pty",
               "socket", "builtins", "importlib", "io", "pickle", "multiprocessing",
               "threading", "_thread", "gc", "inspect", "pathlib", "tempfile", "codecs",
               # importing these does something (prints, opens a browser or a window)
               "this", "antigravity", "webbrowser", "turtle", "turtledemo", "tkinter",
               "idlelib", "venv", "ensurepip", "lib2to3", "pydoc", "pdb", "code"}
_BUILTIN_NAMES = frozenset(dir(builtins))


class TestTimeout(BaseException):
    """A test ran over its time; a BaseException so `except Exception` in tests misses it."""


class CandidateGone(RuntimeError):
    """The candidate's process ended by itself during a call."""

    def __init__(self, message: str, exit_code: int | None) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def harden() -> None:
    """No process of our uid (the candidate's) may open /proc/OURPID/fd, mem, or ptrace us;
    its SIGINT raises nothing here (SIGKILL/SIGSTOP it may send: the run then ends early)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0) failed")


def crash_record(candidate: Candidate | None, what: str, exc: BaseException) -> dict | None:
    """A failure of the harness before the candidate ran is codeloop's (harness_error); after,
    the candidate may have caused it (a signal, say), so the run just ends early and the host
    marks the tests left as not run: never a way for a wrong answer to dodge its verdict."""
    if candidate is not None and candidate.started:
        return None
    return {"kind": "harness_error", "message": f"{what} failed: {type(exc).__name__}: {exc}"}


class Session:
    """What one harness run holds: the channel and, once started, the candidate's process."""

    def __init__(self, fd: int) -> None:
        self.channel = Channel(fd)
        self.candidate: Candidate | None = None

    def start_candidate(self, code_file: str, module_name: str, timeout: float) -> Candidate:
        self.candidate = Candidate(code_file, module_name, timeout)
        return self.candidate


def serve(fd: int, what: str, body) -> None:
    """The trusted side of every test mode: harden, read the tests from stdin, run
    body(config, session), report a crash of the harness itself (crash_record), and never
    leave the candidate's process behind."""
    session = Session(fd)
    try:
        harden()
        config = json.loads(sys.stdin.read())
        body(config, session)
    except BaseException as exc:  # noqa: BLE001 - any failure is reported, never swallowed
        record = crash_record(session.candidate, what, exc)
        if record:
            session.channel.emit(**record)
    finally:
        if session.candidate is not None:
            session.candidate.kill()


class Channel:
    """JSON lines to the host-opened fd; the only thing the host believes."""

    def __init__(self, fd: int) -> None:
        os.set_inheritable(fd, False)
        self.fd = fd

    def emit(self, **record) -> None:
        data = memoryview((json.dumps(record) + "\n").encode())
        while data:
            data = data[os.write(self.fd, data):]


def rebuild_exception(names, args, message, line) -> Exception:
    """The candidate's exception as one of ours: its builtin base (so `pytest.raises(
    ValueError)` still works), under its own name; never SystemExit or KeyboardInterrupt."""
    names = [str(n)[:100] for n in names] if isinstance(names, list) and names else ["Exception"]
    base: type[Exception] = Exception
    for name in names:
        found = getattr(builtins, name, None)
        if found in (StopIteration, StopAsyncIteration):  # map() would take it for the end
            base = RuntimeError
            break
        if isinstance(found, type) and issubclass(found, Exception):
            base = found
            break
    try:
        cls = base if base.__name__ == names[0] else type(names[0], (base,), {})
        exc = cls(*args) if isinstance(args, tuple) else cls(str(message))
        str(exc)
    except Exception:  # noqa: BLE001 - arguments its builtin type does not take
        exc = type(names[0] if names[0].isidentifier() else "Exception", (Exception,), {})(
            str(message))
    exc.candidate_line = line if isinstance(line, int) else None
    return exc


def _replay(items: list, truncated: bool, name: str):
    yield from items
    if truncated:
        raise RuntimeError(f"{name}() returned an iterator of more than {len(items)} items; "
                           "the test stopped there")


def _update_in_place(args: tuple, changed) -> None:
    """A call that mutated a list/dict/set argument in the candidate's process mutates ours."""
    for index, new in changed if isinstance(changed, list) else []:
        if not (isinstance(index, int) and 0 <= index < len(args)):
            continue
        old = args[index]
        if type(old) is not type(new) or old == new:
            continue
        if isinstance(old, (list, bytearray)):
            old[:] = new
        elif isinstance(old, (dict, set)):
            old.clear()
            old.update(new)


class Candidate:
    """The child process running the candidate's code; restarted after it is killed."""

    def __init__(self, code_file: str, module_name: str, timeout: float) -> None:
        self.argv = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker.py"), code_file,
                     module_name]
        self.timeout = timeout
        self.deadline: float | None = None  # the running test's end (time.monotonic())
        self.proc: subprocess.Popen | None = None
        self.names: dict | None = None
        self.load_error: tuple[str, int | None] | None = None
        self.started = False  # once the candidate has run, a crash here may be its doing

    def start(self) -> bool:
        """Start the child and load the code; False (and load_error) if the code fails."""
        self.started = True
        request_r, self.request_w = os.pipe()
        self.reply_r, reply_w = os.pipe()
        self.proc = subprocess.Popen(
            [*self.argv, str(request_r), str(reply_w)], stdin=subprocess.DEVNULL,
            pass_fds=(request_r, reply_w), close_fds=True, start_new_session=True)
        os.close(request_r)
        os.close(reply_w)
        try:
            reply = codec.receive(self.reply_r, time.monotonic() + self.timeout)
        except TimeoutError:
            self.kill()
            self.load_error = (f"loading the code took over {self.timeout:g}s", None)
            return False
        except codec.ChannelClosed:
            code = self.kill()
            self.load_error = (f"the code ended its process while loading (exit {code})", None)
            return False
        if isinstance(reply, tuple) and reply[:1] == ("loaded",) and len(reply) == 2 \
                and isinstance(reply[1], dict):
            if self.names is None:
                self.names = reply[1]
            return True
        self.kill()
        if isinstance(reply, tuple) and len(reply) == 3 and reply[0] == "load_error":
            line = reply[2] if isinstance(reply[2], int) else None
            self.load_error = (str(reply[1])[:2000], line)
        else:
            self.load_error = ("the code's process sent a malformed reply while loading", None)
        return False

    def kill(self) -> int | None:
        if self.proc is None:
            return None
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        code = self.proc.wait()
        for fd in (self.request_w, self.reply_r):
            os.close(fd)
        self.proc = None
        return code if code >= 0 else 128 - code

    def _ended(self, name: str) -> CandidateGone:
        if self.proc is not None:
            try:
                self.proc.wait(timeout=1)  # its exit status, when it is really gone
            except subprocess.TimeoutExpired:
                pass
        code = self.kill()
        return CandidateGone(f"the code ended its own process in {name}()", code)

    def call(self, name: str, args: tuple, kwargs: dict):
        if self.proc is None and not self.start():
            raise CandidateGone(f"the code failed to load again: {self.load_error[0]}", None)
        try:
            request = codec.encode(("call", name, codec.plain(list(args)),
                                    codec.plain(dict(kwargs))))
        except codec.Unsendable as exc:
            raise TypeError(f"cannot pass {exc} to {name}() in the candidate's process") from None
        deadline = self.deadline or time.monotonic() + self.timeout
        try:
            view = memoryview(request)
            while view:
                view = view[os.write(self.request_w, view):]
            reply = codec.receive(self.reply_r, deadline)
        except TimeoutError:
            self.kill()
            raise TestTimeout() from None
        except (codec.ChannelClosed, OSError):
            raise self._ended(name) from None
        except BaseException:  # the trusted alarm fired mid-call: the child is mid-call too
            self.kill()
            raise
        return self._unpack(name, reply, args)

    def _unpack(self, name: str, reply, args: tuple):
        kind = reply[0] if isinstance(reply, tuple) and reply else None
        if kind == "value" and len(reply) == 3:
            _update_in_place(args, reply[2])
            return reply[1]
        if kind == "iter" and len(reply) == 3 and isinstance(reply[1], list):
            return _replay(reply[1], bool(reply[2]), name)
        if kind == "unsendable" and len(reply) == 2:
            raise TypeError(f"{name}() returned {str(reply[1])[:200]}, which cannot leave the "
                            "candidate's process")
        if kind == "raise" and len(reply) == 5:
            raise rebuild_exception(*reply[1:])
        self.kill()
        raise CandidateGone(f"the code's process sent a malformed reply to {name}()", None)

    def namespace(self, may_shadow: frozenset[str] = frozenset()) -> dict:
        """The candidate's top-level names as the tests see them.

        The child is hostile and names what it likes, so (a) no dunder (`__builtins__`);
        (b) no name that would hide a builtin the tests rely on (`def set(*a): return 0`
        made `assert set(f(x)) == set(y)` pass), except those in `may_shadow`: the function
        under test may be called `sum`; (c) a module only as this process's own import of
        the top-level stdlib module of that very name (`import math`), never another module
        under it (`import cmath as math`) and never one with import-time side effects."""
        env: dict = {}
        for name, entry in (self.names or {}).items():
            if not (isinstance(name, str) and name.isidentifier() and not name.startswith("__")
                    and isinstance(entry, tuple) and len(entry) == 2):
                continue
            if name in _BUILTIN_NAMES and name not in may_shadow:
                continue
            kind, detail = entry
            if kind == "callable":
                env[name] = Proxy(self, name)
            elif kind == "value":
                env[name] = detail
            elif kind == "module" and detail == name:
                module = _stdlib_module(name)
                if module is not None:
                    env[name] = module
        return env


def _stdlib_module(name: str):
    """The stdlib module `name` (top-level only) imported here, or None."""
    if "." in name or name.startswith("_") or name in _NO_MODULES \
            or name not in sys.stdlib_module_names:
        return None
    try:
        return __import__(name)
    except Exception:  # noqa: BLE001 - a module this interpreter lacks
        return None


class Proxy:
    """Stands for one of the candidate's callables; shown by its name in messages."""

    def __init__(self, candidate: Candidate, name: str) -> None:
        self._candidate = candidate
        self.__name__ = self.__qualname__ = name

    def __call__(self, *args, **kwargs):
        return self._candidate.call(self.__name__, args, kwargs)

    def __repr__(self) -> str:
        return f"<function {self.__name__}>"
