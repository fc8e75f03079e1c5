"""Speed of our local backend against raw llama-cpp-python on the same prompts.

Both sides stream the same chat messages with the same n_ctx and n_threads; repeats are
interleaved (alternating which goes first) and every repeat starts with a fresh prefix, so
llama.cpp's prompt-prefix reuse cannot make either side look faster. Prefill tok/s is
prompt tokens over time to the first piece; decode tok/s is pieces after the first over
the time after it.
"""

from __future__ import annotations

import statistics
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from codeloop.config import Settings, load_config
from codeloop.llm.base import Reply

_TASK = (
    "Here is a function and its tests.\n\n"
    "def merge_intervals(intervals):\n"
    "    '''Merge overlapping closed intervals given as (start, end) pairs.\n"
    "    >>> merge_intervals([(1, 3), (2, 6), (8, 10), (15, 18)])\n"
    "    [(1, 6), (8, 10), (15, 18)]\n"
    "    >>> merge_intervals([(1, 4), (4, 5)])\n"
    "    [(1, 5)]\n"
    "    '''\n\n"
)


def bench_messages(nonce: str, prompt_repeats: int) -> list[dict[str, str]]:
    body = _TASK * prompt_repeats
    return [
        {"role": "system", "content": f"Session {nonce}. You are a careful Python programmer."},
        {"role": "user", "content": body + "Write a complete, well documented implementation "
                                           "with a long explanation of every step."},
    ]


@dataclass
class Sample:
    prompt_tokens: int
    pieces: int
    prefill_tps: float
    decode_tps: float


@dataclass
class BenchResult:
    spec: str
    n_ctx: int
    threads: int
    repeats: int
    ours: list[Sample] = field(default_factory=list)
    raw: list[Sample] = field(default_factory=list)

    @staticmethod
    def _median(samples: list[Sample], attr: str) -> float:
        return statistics.median(getattr(s, attr) for s in samples) if samples else 0.0

    def summary(self) -> dict[str, float]:
        out = {}
        for attr in ("prefill_tps", "decode_tps"):
            ours, raw = self._median(self.ours, attr), self._median(self.raw, attr)
            out[f"ours_{attr}"] = round(ours, 2)
            out[f"raw_{attr}"] = round(raw, 2)
            out[f"ratio_{attr}"] = round(ours / raw, 3) if raw else 0.0
        return out

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "summary": self.summary()}

    def lines(self) -> list[str]:
        s = self.summary()
        prompt = self.ours[0].prompt_tokens if self.ours else 0
        header = (f"{self.spec}: n_ctx {self.n_ctx}, {self.threads} threads, {self.repeats} "
                  f"interleaved repeats, prompt {prompt} tokens (medians)")
        rows = [header]
        for label, attr in (("prefill", "prefill_tps"), ("decode ", "decode_tps")):
            rows.append(f"  {label} tok/s  ours {s['ours_' + attr]:8.1f}   raw "
                        f"{s['raw_' + attr]:8.1f}   ratio {s['ratio_' + attr]:.3f}")
        return rows


def _measure(pieces: Iterable[Any], prompt_tokens: Callable[[], int]) -> Sample:
    started = time.perf_counter()
    first = end = 0.0
    count = 0
    for piece in pieces:
        if isinstance(piece, Reply):
            continue
        if isinstance(piece, dict):  # a raw llama-cpp stream chunk
            piece = piece["choices"][0].get("delta", {}).get("content")
        if piece:
            count += 1
            end = time.perf_counter()
            first = first or end
    tokens = prompt_tokens()
    prefill = tokens / (first - started) if first > started else 0.0
    decode = (count - 1) / (end - first) if count > 1 and end > first else 0.0
    return Sample(tokens, count, prefill, decode)


def run_benchmark(
    spec: str = "local:qwen2.5-coder-0.5b",
    *,
    repeats: int = 3,
    max_tokens: int = 96,
    prompt_repeats: int = 4,
    settings: Settings | None = None,
    report: Callable[[str], None] = lambda line: None,
) -> BenchResult:
    from codeloop.llm.local import LocalLLM, import_llama_cpp
    from codeloop.llm.registry import get_llm

    settings = settings or load_config().settings
    ours = get_llm(spec, settings)
    if not isinstance(ours, LocalLLM):
        raise TypeError(f"the speed benchmark compares local models only, not {spec}")
    llama_cpp = import_llama_cpp()
    raw = llama_cpp.Llama(model_path=str(ours.path), n_ctx=ours.n_ctx, n_threads=ours.n_threads,
                          n_threads_batch=ours.n_threads, verbose=False)
    result = BenchResult(spec, ours.n_ctx, ours.n_threads, repeats)

    def run_ours(messages: list[dict[str, str]]) -> Sample:
        counted: list[int] = []

        def pieces():
            for item in ours.stream(messages, max_tokens=max_tokens):
                if isinstance(item, Reply):
                    counted.append(item.usage.prompt_tokens)
                yield item

        return _measure(pieces(), lambda: counted[0])

    def run_raw(messages: list[dict[str, str]], prompt_tokens: int) -> Sample:
        chunks = raw.create_chat_completion(messages=messages, max_tokens=max_tokens,
                                            temperature=0.0, stream=True)
        return _measure(chunks, lambda: prompt_tokens)

    warm = bench_messages("warmup", 1)
    run_ours(warm)
    run_raw(warm, 0)
    for i in range(repeats):
        messages = bench_messages(uuid.uuid4().hex[:8], prompt_repeats)
        prompt_tokens = ours.count_prompt_tokens(messages)
        if i % 2 == 0:
            result.ours.append(run_ours(messages))
            result.raw.append(run_raw(messages, prompt_tokens))
        else:
            result.raw.append(run_raw(messages, prompt_tokens))
            result.ours.append(run_ours(messages))
        o, r = result.ours[-1], result.raw[-1]
        report(f"repeat {i + 1}/{repeats}: prefill {o.prefill_tps:.1f} vs {r.prefill_tps:.1f}, "
               f"decode {o.decode_tps:.1f} vs {r.decode_tps:.1f} tok/s (ours vs raw)")
    return result
