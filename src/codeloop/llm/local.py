"""llama.cpp in process: the default backend. llama_cpp is imported only when a model loads.

Loaded models are shared within the process per (path, n_ctx, threads), so repeated
`get_llm` calls reuse one instance; calls on one instance are serialised (llama.cpp
contexts are not thread-safe).
"""

from __future__ import annotations

import atexit
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from codeloop.llm.backend import BackendLLM, ModelRequest
from codeloop.llm.base import (
    ContextOverflow,
    MessagesLike,
    ModelNotAvailable,
    Reply,
    Usage,
    to_messages,
)
from codeloop.llm.guard import check_real_models_allowed

_instances: dict[tuple[str, int, int], _LoadedModel] = {}
_instances_lock = threading.Lock()


def import_llama_cpp() -> Any:
    try:
        import llama_cpp
    except ImportError as exc:
        raise ModelNotAvailable(
            "the local backend needs llama-cpp-python: run scripts/setup.sh, or "
            "pip install 'codeloop[local]'"
        ) from exc
    return llama_cpp


class _LoadedModel:
    """One Llama instance, its lock, and the GGUF chat template used to count tokens."""

    def __init__(self, path: Path, n_ctx: int, n_threads: int) -> None:
        llama_cpp = import_llama_cpp()
        try:
            self.llama = llama_cpp.Llama(
                model_path=str(path), n_ctx=n_ctx, n_threads=n_threads,
                n_threads_batch=n_threads, verbose=False,
            )
        except (ValueError, RuntimeError, OSError) as exc:
            raise ModelNotAvailable(f"llama.cpp could not load {path}: {exc}") from exc
        self.lock = threading.Lock()
        self._formatter = None
        template = self.llama.metadata.get("tokenizer.chat_template")
        if template:
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            llm = self.llama
            eos, bos = llm.token_eos(), llm.token_bos()
            self._formatter = Jinja2ChatFormatter(
                template=template,
                eos_token=llm._model.token_get_text(eos) if eos != -1 else "",
                bos_token=llm._model.token_get_text(bos) if bos != -1 else "",
            )

    def count_prompt_tokens(self, messages: list[dict[str, str]]) -> int:
        """Tokens of the prompt as the chat template renders it (as llama.cpp will see it)."""
        if self._formatter is not None:
            rendered = self._formatter(messages=messages)
            tokens = self.llama.tokenize(
                rendered.prompt.encode("utf-8"), add_bos=not rendered.added_special, special=True
            )
            return len(tokens)
        joined = "\n".join(m["content"] for m in messages)
        return len(self.llama.tokenize(joined.encode("utf-8"))) + 4 * len(messages)

    def count_text_tokens(self, text: str) -> int:
        return len(self.llama.tokenize(text.encode("utf-8"), add_bos=False)) if text else 0


def _close_all() -> None:
    """Free cached models before interpreter shutdown; left to Llama.__del__, the close runs
    after llama.cpp's module globals are gone and prints a TypeError traceback."""
    with _instances_lock:
        for loaded in _instances.values():
            loaded.llama.close()
        _instances.clear()


def load_model(path: Path, n_ctx: int, n_threads: int) -> _LoadedModel:
    key = (str(Path(path).resolve()), n_ctx, n_threads)
    with _instances_lock:
        if not _instances:
            atexit.register(_close_all)
        if key not in _instances:
            _instances[key] = _LoadedModel(Path(key[0]), n_ctx, n_threads)
        return _instances[key]


class LocalLLM(BackendLLM):
    """An LLM backed by a GGUF file run in this process."""

    # Constrained decoding always yields JSON; a retry only helps when max_tokens cut it short.
    json_attempts = 2

    def __init__(self, model_path: str | Path, *, name: str, n_ctx: int, n_threads: int) -> None:
        check_real_models_allowed(name)  # before loading the weights
        self.name = name
        self.path = Path(model_path)
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self._model = load_model(self.path, n_ctx, n_threads)

    def forget_prompt_cache(self) -> None:
        """The next call evaluates its whole prompt into an empty KV cache. llama.cpp reuses the
        prefix a prompt shares with the previous call, and the greedy reply can depend on what
        that call left: measured on the 1.5B, Mbpp/135's one-shot prompt gave another program
        right after Mbpp/128's than after a fresh load or Mbpp/133's. Called at the start of
        every task (solve_task, each bench problem), so a task gets the same replies whatever
        ran before it in the process; calls within a task still share the cache."""
        with self._model.lock:
            self._model.llama.reset()

    def count_prompt_tokens(self, messages: MessagesLike) -> int:
        """Prompt tokens of these messages as the model's chat template renders them."""
        payload = [m.as_dict() for m in to_messages(messages)]
        with self._model.lock:
            return self._model.count_prompt_tokens(payload)

    def _generate(self, request: ModelRequest) -> Iterator[str | Reply]:
        payload = [m.as_dict() for m in request.messages]
        extra: dict[str, Any] = {}
        if request.schema is not None:
            extra["response_format"] = {"type": "json_object", "schema": request.schema.schema}
        if request.seed is not None:
            extra["seed"] = request.seed
        with self._model.lock:
            if request.seed is not None:
                # A seed promises the same draw: from a reused prompt cache the last token's
                # logits come from another batch shape and differ in the last bits, enough to
                # change a sample at temperature (measured with this machine's llama.cpp
                # build: seed 1234 drew two different lines in a row, the same after a reset).
                self._model.llama.reset()
            started = time.perf_counter()
            prompt_tokens = self._check_fits(payload, request.max_tokens)
            result = self._model.llama.create_chat_completion(
                messages=payload, max_tokens=request.max_tokens,
                temperature=request.temperature, stop=request.stop or None,
                stream=request.stream, **extra,
            )
            if request.stream:
                yield from self._streamed(result, prompt_tokens, started)
                return
            seconds = time.perf_counter() - started
        choice = result["choices"][0]
        usage = result.get("usage") or {}
        yield Reply(
            choice["message"].get("content") or "",
            Usage(usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0)),
            seconds,
            self.name,
            choice.get("finish_reason") or "stop",
        )

    # ------------------------------------------------------------------ internals

    def _streamed(self, chunks: Iterator[dict[str, Any]], prompt_tokens: int,
                  started: float) -> Iterator[str | Reply]:
        pieces: list[str] = []
        finish = "stop"
        for chunk in chunks:
            choice = chunk["choices"][0]
            piece = choice.get("delta", {}).get("content")
            if piece:
                pieces.append(piece)
                yield piece
            finish = choice.get("finish_reason") or finish
        text = "".join(pieces)
        usage = Usage(prompt_tokens, self._model.count_text_tokens(text))
        yield Reply(text, usage, time.perf_counter() - started, self.name, finish)

    def _check_fits(self, payload: list[dict[str, str]], max_tokens: int) -> int:
        prompt_tokens = self._model.count_prompt_tokens(payload)
        if prompt_tokens + max_tokens > self.n_ctx:
            raise ContextOverflow(
                f"{self.name}: the prompt is {prompt_tokens} tokens; with max_tokens "
                f"{max_tokens} it needs {prompt_tokens + max_tokens} > n_ctx {self.n_ctx}. "
                "Shorten the prompt, lower max_tokens or raise n_ctx.",
                prompt_tokens=prompt_tokens,
                limit=self.n_ctx,
            )
        return prompt_tokens
