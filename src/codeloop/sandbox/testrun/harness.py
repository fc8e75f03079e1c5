# ruff: noqa: S102, BLE001 - it execs the tests and reports any failure
"""Runs INSIDE the sandbox as the trusted harness (standalone: stdlib only).

    python -I entry.py harness CHANNEL_FD < CONFIG.json   (entry.py calls run() below)

Reads its config (the tests) from stdin, so no file holds them; makes itself non-dumpable;
starts the candidate's code in a child process (worker.py) that never gets the channel fd;
then runs assert lists (MBPP) or check(candidate) (HumanEval) here, with the candidate's
top-level names as proxies into the child, and writes one JSON line per result to the
channel as it goes, so a run killed from outside still reports what finished.
Timeouts: an alarm here for the test's own code, and a deadline on every call into the child,
which is killed (and restarted for the next test) when it runs over.
"""

from __future__ import annotations

import ast
import signal
import sys
import time
import traceback

MAX_REPR = 200


def short_repr(value) -> str:
    try:
        text = repr(value)
    except Exception as exc:  # a broken __repr__ must not break the report
        text = f"<unrepresentable {type(value).__name__}: {exc}>"
    return text if len(text) <= MAX_REPR else text[: MAX_REPR - 3] + "..."


def error_line(exc: BaseException, filenames: tuple[str, ...]) -> int | None:
    """The deepest traceback line that belongs to one of `filenames`."""
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename in filenames:
            line = frame.lineno
    if line is None and isinstance(exc, SyntaxError) and exc.filename in filenames:
        line = exc.lineno
    return line


def describe(exc: BaseException) -> str:
    text = exc.msg if isinstance(exc, SyntaxError) and exc.msg else str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def comparison_message(shown: str, op: ast.cmpop, actual, expected) -> str:
    if isinstance(op, ast.Eq):
        return f"{shown} returned {short_repr(actual)}, expected {short_repr(expected)}"
    symbol = {ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
              ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}
    return (f"{shown} returned {short_repr(actual)}, expected it {symbol.get(type(op), '?')} "
            f"{short_repr(expected)}")


class _Rename(ast.NodeTransformer):
    """Show `candidate(...)` as the real function name, and loop variables by their values
    (`add(x, 2)` with x == 2 reads `add(2, 2)`)."""

    def __init__(self, old: str, new: str, local_values: dict | None = None) -> None:
        self.old, self.new = old, new
        self.values = {}
        for name, value in (local_values or {}).items():
            text = short_repr(value)
            if len(text) <= 60:
                try:
                    self.values[name] = ast.parse(text, mode="eval").body
                    ast.literal_eval(self.values[name])
                except (SyntaxError, ValueError, TypeError):
                    self.values.pop(name, None)

    def visit_Name(self, node: ast.Name):
        if node.id == self.old:
            return ast.copy_location(ast.Name(self.new, node.ctx), node)
        if node.id in self.values and isinstance(node.ctx, ast.Load):
            return ast.copy_location(self.values[node.id], node)
        return node


def explain_assert(node: ast.Assert, env: dict, shown_as=None) -> str | None:
    """Re-evaluate the failing assert's parts in `env` and say what went wrong, or None."""
    test = node.test

    def text(expr):
        return ast.unparse(shown_as.visit(expr) if shown_as else expr)

    def value(expr):
        return eval(compile(ast.Expression(expr), "<assert>", "eval"), env)

    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        actual, expected = value(test.left), value(test.comparators[0])
        return comparison_message(text(test.left), test.ops[0], actual, expected)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return f"{text(test.operand)} returned {short_repr(value(test.operand))}, expected falsy"
    if isinstance(test, ast.Call) and test.args:
        name = ast.unparse(test.func)
        if name.endswith("isclose") and len(test.args) >= 2:
            return (f"{text(test.args[0])} returned {short_repr(value(test.args[0]))}, "
                    f"expected close to {short_repr(value(test.args[1]))}")
        return f"{text(test)} returned {short_repr(value(test))}, expected truthy"
    return None


class Runner:
    def __init__(self, config: dict, channel, candidate, trusted) -> None:
        self.config = config
        self.timeout = float(config["per_test_timeout"])
        self.channel, self.candidate, self.t = channel, candidate, trusted
        self.env: dict = {"__name__": "solution"}
        signal.signal(signal.SIGALRM, self._on_alarm)

    def _on_alarm(self, signum, frame):
        if self.candidate.deadline is not None:  # a stray SIGALRM between tests changes nothing
            raise self.t.TestTimeout()

    def emit(self, **record) -> None:
        self.channel.emit(**record)

    def alarm(self, seconds: float) -> None:
        signal.setitimer(signal.ITIMER_REAL, seconds)

    def load_candidate(self) -> bool:
        if not self.candidate.start():
            message, line = self.candidate.load_error
            self.emit(kind="load_error", message=message, line=line)
            return False
        # Only the function an assert list tests may take a builtin's name (MBPP's
        # `def sum(a, b)`); check(candidate) is handed its function, so none may there.
        entry = self.config.get("entry_point")
        shadow = self.config["mode"] == "asserts" and isinstance(entry, str)
        self.env.update(self.candidate.namespace(frozenset([entry]) if shadow else frozenset()))
        return True

    def run_case(self, name: str, body, explain) -> bool:
        """body() runs the test; explain(exc) -> message for an AssertionError.
        False when the candidate's process ended by itself: the run stops there."""
        self.candidate.deadline = time.monotonic() + self.timeout
        try:
            self.alarm(self.timeout + 0.5)  # the child's deadline usually comes first
            body()
            self.alarm(0)
            self.emit(kind="pass", name=name)
        except self.t.TestTimeout:
            self.alarm(0)
            self.emit(kind="timeout", name=name, message=f"timed out after {self.timeout:g}s")
        except self.t.CandidateGone as exc:
            self.alarm(0)
            status = f" (exit {exc.exit_code})" if exc.exit_code is not None else ""
            self.emit(kind="error", name=name, message=f"the test run ended early{status}: {exc}")
            return False
        except AssertionError as exc:
            self.alarm(0)
            self.candidate.deadline = time.monotonic() + self.timeout
            try:
                self.alarm(self.timeout)
                message = explain(exc)
                self.alarm(0)
            except BaseException:
                self.alarm(0)
                message = None
            line = getattr(exc, "candidate_line", None) or error_line(exc, ("<check>",))
            self.emit(kind="fail", name=name, message=message or f"assertion failed: {name}",
                      line=line)
        except BaseException as exc:
            self.alarm(0)
            self.emit(kind="error", name=name, message=describe(exc),
                      line=getattr(exc, "candidate_line", None))
        finally:
            self.candidate.deadline = None
        return True

    def run_asserts(self) -> None:
        sources = [source.strip() for source in self.config["asserts"]]
        for index, source in enumerate(sources):
            try:
                tree = ast.parse(source)
            except SyntaxError as exc:
                self.emit(kind="error", name=source, message=f"test does not parse: {exc.msg}")
                continue
            node = tree.body[0] if len(tree.body) == 1 else None
            if isinstance(node, ast.Expr):
                # A bare expression in an assert list must hold: `f(2) == 4` means assert it.
                node = ast.copy_location(ast.Assert(test=node.value, msg=None), node)
            if isinstance(node, ast.Assert):
                going = self.run_case(source, lambda n=node: self.eval_assert(n),
                                      lambda exc, n=node: str(exc) or explain_assert(n, self.env))
            else:
                code = compile(tree, "<test>", "exec")
                going = self.run_case(source, lambda c=code: exec(c, self.env),
                                      lambda exc: str(exc))
            if not going:
                for rest in sources[index + 1:]:
                    self.emit(kind="error", name=rest, message="not run: the code ended its "
                              "own process in an earlier test")
                return

    def eval_assert(self, node: ast.Assert) -> None:
        test = node.test
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
            # Evaluate each side once so the message shows the very value that failed.
            actual = eval(compile(ast.Expression(test.left), "<test>", "eval"), self.env)
            expected = eval(compile(ast.Expression(test.comparators[0]), "<test>", "eval"),
                            self.env)
            if not actual == expected:
                raise AssertionError(comparison_message(ast.unparse(test.left), test.ops[0],
                                                        actual, expected))
            return
        exec(compile(ast.Module([node], []), "<test>", "exec"), self.env)

    def run_check(self) -> None:
        check_source, entry = self.config["check_source"], self.config["entry_point"]
        check_env = dict(self.env)
        try:
            exec(compile(check_source, "<check>", "exec"), check_env)
        except BaseException as exc:
            self.emit(kind="load_error", message=f"the check code itself failed: {describe(exc)}")
            return
        candidate = self.candidate.namespace(frozenset([entry])).get(entry)
        if not callable(candidate):
            self.emit(kind="load_error", message=f"the code defines no function {entry!r}")
            return
        tree = ast.parse(check_source)

        def explain(exc: AssertionError) -> str | None:
            frames = [f for f, _ in traceback.walk_tb(exc.__traceback__)
                      if f.f_code.co_filename == "<check>"]
            if not frames:
                return str(exc) or None
            frame = frames[-1]
            line = frame.f_lineno
            for node in ast.walk(tree):
                if isinstance(node, ast.Assert) and node.lineno <= line <= node.end_lineno:
                    env = {**frame.f_globals, **frame.f_locals}
                    detail = explain_assert(node, env,
                                            _Rename("candidate", entry, frame.f_locals))
                    note = f": {exc}" if str(exc) else ""
                    return (detail or f"assertion failed: {ast.unparse(node.test)}") + note
            return str(exc) or None

        self.run_case(f"check({entry})", lambda: check_env["check"](candidate), explain)


WHAT = "the test harness"


def run(config: dict, session, trusted) -> None:
    """Assert lists or check(candidate), for entry.py."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 3000))
    session.channel.emit(kind="start")
    candidate = session.start_candidate(config["code_file"], "solution",
                                        float(config["per_test_timeout"]))
    runner = Runner(config, session.channel, candidate, trusted)
    if runner.load_candidate():
        if config["mode"] == "asserts":
            runner.run_asserts()
        else:
            runner.run_check()
    session.channel.emit(kind="done")
