"""ScriptedLLM: replays given replies, so agent logic runs offline, fast and repeatably.

A script is a list. Each entry is one of:
  "text"                                  the next reply, in order
  {"reply": "text"}  /  {"json": {...}}   the same (json is serialised for complete_json)
  {"raise": "BackendTimeout", "message": "..."}   the next call fails with that LLMError
  {"match": "needle", "reply"|"json"|"raise": ...}   a rule: answers whenever the last user
      message contains the needle (or matches it as a regex); checked before the ordered
      replies; `"times": n` limits how often it fires.
  {"reply": "text", "finish": "length"}   a reply as a model sends it when cut off at its
      token limit (finish_reason "length")
A script file may also be a mapping {"replies": [...], "delay_seconds": 0.5}: every call then
takes that long, as a model would (for benchmarks of the executor and for tests that need a
unit still running when they act).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from codeloop.llm import base
from codeloop.llm.backend import BackendLLM, ModelRequest
from codeloop.llm.base import JsonReply, LLMError, Message, Reply, ScriptExhausted, Usage

_ERRORS = {
    name: cls
    for name, cls in vars(base).items()
    if isinstance(cls, type) and issubclass(cls, LLMError)
}


class ScriptFileError(LLMError):
    """A script file is missing, unreadable or not in the script format."""


def approx_tokens(text: str) -> int:
    """About four characters a token: good enough for usage figures in tests and demos."""
    return (len(text) + 3) // 4


@dataclass
class _Entry:
    text: str | None = None
    error: tuple[str, str] | None = None
    pattern: str | None = None
    times: int | None = None
    finish: str = "stop"  # "length": the reply as a model gives it when cut at max_tokens

    def matches(self, prompt: str) -> bool:
        if self.pattern is None:
            return False
        if self.pattern in prompt:
            return True
        try:
            return re.search(self.pattern, prompt) is not None
        except re.error:
            return False


def _parse_entry(raw: str | dict, index: int) -> _Entry:
    if isinstance(raw, str):
        return _Entry(text=raw)
    if not isinstance(raw, dict):
        raise ScriptFileError(f"script entry #{index + 1}: expected a string or a mapping, "
                              f"got {type(raw).__name__}")
    answers = [k for k in ("reply", "json", "raise") if k in raw]
    unknown = set(raw) - {"reply", "json", "raise", "message", "match", "times", "finish"}
    if len(answers) != 1 or unknown:
        raise ScriptFileError(
            f"script entry #{index + 1}: needs exactly one of 'reply', 'json', 'raise' "
            f"(optional 'match', 'times', 'message', 'finish'); got keys {sorted(raw)}"
        )
    if raw.get("finish", "stop") not in ("stop", "length"):
        raise ScriptFileError(f"script entry #{index + 1}: 'finish' is 'stop' or 'length'")
    entry = _Entry(pattern=raw.get("match"), times=raw.get("times"),
                   finish=raw.get("finish", "stop"))
    if "reply" in raw:
        entry.text = str(raw["reply"])
    elif "json" in raw:
        entry.text = json.dumps(raw["json"])
    else:
        if raw["raise"] not in _ERRORS:
            raise ScriptFileError(f"script entry #{index + 1}: unknown error {raw['raise']!r}; "
                                  f"use one of {', '.join(sorted(_ERRORS))}")
        entry.error = (raw["raise"], str(raw.get("message", f"scripted {raw['raise']}")))
    return entry


class ScriptedLLM(BackendLLM):
    """An LLM whose replies are given in advance. `.calls` holds every call's messages;
    beside it, `.schemas` the JSON schema each call was asked for (None for plain text) and
    `.temperatures` the temperature it was asked at, `.seeds` its seed (None: none given);
    `.task_starts` how many calls had been made when each task began (forget_prompt_cache)."""

    calls_real_model = False

    def __init__(self, replies: list[str | dict], name: str = "scripted",
                 delay_seconds: float = 0.0) -> None:
        if not isinstance(replies, list):
            raise ScriptFileError("a script is a list of replies")
        entries = [_parse_entry(raw, i) for i, raw in enumerate(replies)]
        if not isinstance(delay_seconds, (int, float)) or not 0 <= delay_seconds <= 600:
            raise ScriptFileError(f"delay_seconds must be a number from 0 to 600, "
                                  f"got {delay_seconds!r}")
        self.name = name
        self.delay_seconds = float(delay_seconds)
        self._rules = [e for e in entries if e.pattern is not None]
        self._ordered = [e for e in entries if e.pattern is None]
        self._next = 0
        self._lock = threading.Lock()
        self.calls: list[list[Message]] = []
        self.schemas: list[dict[str, Any] | None] = []
        self.temperatures: list[float] = []
        self.seeds: list[int | None] = []
        self.max_tokens: list[int | None] = []  # each call's reply cap, as asked
        self.task_starts: list[int] = []

    def forget_prompt_cache(self) -> None:
        # Nothing is cached here; recorded so tests see every task start from a fresh cache.
        with self._lock:
            self.task_starts.append(len(self.calls))

    @classmethod
    def from_file(cls, path: str | Path, name: str | None = None) -> ScriptedLLM:
        path = Path(path).expanduser()
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ScriptFileError(f"cannot read script {path}: {exc.strerror or exc}") from exc
        try:
            data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
        except (json.JSONDecodeError, yaml.YAMLError) as exc:
            raise ScriptFileError(f"script {path} is not valid JSON/YAML: {exc}") from exc
        delay = 0.0
        if isinstance(data, dict) and isinstance(data.get("replies"), list):
            delay = data.get("delay_seconds", 0.0)
            data = data["replies"]
        if not isinstance(data, list):
            raise ScriptFileError(f"script {path}: expected a list of replies (or "
                                  "{'replies': [...]}), got " + type(data).__name__)
        return cls(data, name=name or f"scripted:{path}", delay_seconds=delay)

    @property
    def remaining(self) -> int:
        return len(self._ordered) - self._next

    # ------------------------------------------------------------------ the one primitive

    def _generate(self, request: ModelRequest) -> Iterator[str | Reply]:
        started = time.perf_counter()
        schema = request.schema.schema if request.schema is not None else None
        text, finish = self._answer(request.messages, schema, request.temperature, request.seed,
                                    request.max_tokens)
        if self.delay_seconds:
            time.sleep(self.delay_seconds)
        for marker in request.stop or []:
            if marker and marker in text:
                text = text[: text.index(marker)]
        usage = Usage(sum(approx_tokens(m.content) for m in request.messages),
                      approx_tokens(text))
        reply = Reply(text, usage, time.perf_counter() - started, self.name, finish)
        if request.stream:
            yield from re.findall(r"\S+\s*|\s+", text)
        yield reply

    def _structured(self, request: ModelRequest) -> JsonReply:
        # One scripted reply per call: a test scripts the invalid reply it wants to see.
        assert request.schema is not None
        reply = self._reply(request)
        return JsonReply(request.schema.parse_text(reply.text), reply)

    # ------------------------------------------------------------------ internals

    def _answer(self, msgs: list[Message], schema: dict[str, Any] | None,
                temperature: float, seed: int | None = None,
                max_tokens: int | None = None) -> tuple[str, str]:
        with self._lock:
            self.calls.append(msgs)
            self.max_tokens.append(max_tokens)
            self.schemas.append(schema)
            self.temperatures.append(temperature)
            self.seeds.append(seed)
            entry = self._pick(_last_user(msgs))
            if entry is None:
                raise ScriptExhausted(self._exhausted_message(msgs))
        if entry.error is not None:
            raise _ERRORS[entry.error[0]](entry.error[1])
        return entry.text or "", entry.finish

    def _pick(self, prompt: str) -> _Entry | None:
        for rule in self._rules:
            if (rule.times is None or rule.times > 0) and rule.matches(prompt):
                if rule.times is not None:
                    rule.times -= 1
                return rule
        if self._next < len(self._ordered):
            self._next += 1
            return self._ordered[self._next - 1]
        return None

    def _exhausted_message(self, msgs: list[Message]) -> str:
        prompt = (_last_user(msgs) or (msgs[-1].content if msgs else "")).replace("\n", " ")
        count = len(self._ordered)
        rules = f" and none of its {len(self._rules)} match rule(s) fired" if self._rules else ""
        return (
            f"{self.name}: script exhausted: its {count} ordered "
            f"repl{'y was' if count == 1 else 'ies were'} all used{rules}; call "
            f"#{len(self.calls)} could not be answered. Prompt starts: {prompt[:160]!r}"
        )


def _last_user(msgs: list[Message]) -> str:
    for message in reversed(msgs):
        if message.role == "user":
            return message.content
    return ""
