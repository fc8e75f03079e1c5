"""Helpers for the model-layer tests: a small real HTTP server on 127.0.0.1 that answers
like an OpenAI-compatible endpoint from a queue of canned responses, and records every
request it gets."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def chat_body(text: str, prompt_tokens: int = 5, completion_tokens: int = 3) -> dict[str, Any]:
    return {
        "id": "cmpl-1", "object": "chat.completion", "created": 0, "model": "stub",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }


def stream_body(pieces: list[str]) -> str:
    events = []
    for piece in pieces:
        events.append({"id": "c", "object": "chat.completion.chunk", "created": 0,
                       "model": "stub", "choices": [{"index": 0, "delta": {"content": piece},
                                                     "finish_reason": None}]})
    events.append({"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "stub",
                   "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    events.append({"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "stub",
                   "choices": [], "usage": {"prompt_tokens": 11, "completion_tokens": 4,
                                            "total_tokens": 15}})
    return "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"


@dataclass
class Canned:
    status: int = 200
    body: Any = None  # dict -> JSON; str -> sent as is
    delay: float = 0.0
    content_type: str = "application/json"


@dataclass
class StubServer:
    url: str
    responses: list[Canned] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)

    def reply(self, *canned: Canned) -> None:
        self.responses.extend(canned)


def allow_stub_url(monkeypatch: Any, url: str) -> None:
    """Let backends call `url` in a run that forbids real models: it is our stub, not a model."""
    from codeloop.llm.guard import STUB_URLS_ENV

    monkeypatch.setenv(STUB_URLS_ENV, url)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve_openai_stub() -> Iterator[StubServer]:
    """Start a stub server; yields its state, stops it after."""
    state = StubServer(url="")

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # keep test output clean
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", 0))
            payload = json.loads(self.rfile.read(length) or b"{}")
            state.requests.append({"path": self.path, "json": payload,
                                   "auth": self.headers.get("authorization", "")})
            canned = state.responses.pop(0) if state.responses else Canned(
                500, {"error": {"message": "stub has no canned response left"}})
            time.sleep(canned.delay)
            body = canned.body if isinstance(canned.body, str) else json.dumps(canned.body)
            data = body.encode()
            try:
                self.send_response(canned.status)
                self.send_header("content-type", canned.content_type)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout test)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.block_on_close = False
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    yield state
    server.shutdown()
    server.server_close()
