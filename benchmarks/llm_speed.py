"""Prefill and decode speed of codeloop's local backend vs raw llama-cpp-python.

    .venv/bin/python benchmarks/llm_speed.py [--model local:qwen2.5-coder-0.5b] [--repeats 3]
                                        [--max-tokens 96] [--json out.json]

Same prompt, n_ctx and n_threads on both sides, interleaved repeats, medians and the
ratio ours/raw (target >= 0.95). `codeloop models --bench` runs the same code.
"""

from __future__ import annotations

import argparse
import json
import sys

from codeloop.llm.speed import run_benchmark


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="local:qwen2.5-coder-0.5b")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=96)
    parser.add_argument("--prompt-repeats", type=int, default=4,
                        help="how many copies of the task text make up the prompt")
    parser.add_argument("--json", dest="json_path", help="also write the figures here")
    args = parser.parse_args(argv)
    result = run_benchmark(
        args.model, repeats=args.repeats, max_tokens=args.max_tokens,
        prompt_repeats=args.prompt_repeats, report=lambda line: print(line, file=sys.stderr),
    )
    print("\n".join(result.lines()))
    if args.json_path:
        with open(args.json_path, "w", encoding="utf-8") as fh:
            json.dump(result.as_dict(), fh, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
