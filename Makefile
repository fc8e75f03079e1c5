# The README's two commands are `make demo` and `make test`; everything else is a helper.
.PHONY: demo test setup setup-dev bench-llm bench-sandbox bench-agent bench-review clean

VENV ?= .venv
BIN := $(VENV)/bin
# The demo's model: empty means the default (the embedded 1.5B). CI checks the first command
# offline with DEMO_MODEL=scripted:examples/demo/count_vowels.script.yaml SETUP_MODEL=none.
DEMO_MODEL ?=
SETUP_MODEL ?= 1.5b

setup:
	CODELOOP_VENV=$(VENV) bash scripts/setup.sh --model $(SETUP_MODEL)

setup-dev:
	CODELOOP_VENV=$(VENV) bash scripts/setup.sh --dev --model 0.5b

# Sets everything up, then runs the main job on a bundled example with the default model,
# every stage shown (--plan-first: analysis and planning run even if a draft would pass).
demo: setup
	$(BIN)/codeloop solve --plan-first --task-file examples/strings/strings-tasks.json --task-id count_vowels --test-file examples/strings/strings-tests.py $(if $(DEMO_MODEL),--model $(DEMO_MODEL))

# Sets up with dev dependencies and the 0.5B model, then runs the whole test suite.
test: setup-dev
	$(BIN)/python -m pytest -q

bench-sandbox:
	$(BIN)/python benchmarks/sandbox_overhead.py

bench-llm:
	$(BIN)/codeloop models --bench

# The agent's workspace tasks (benchmarks/agent_tasks), single and multi-agent, on the 1.5B model.
bench-agent:
	$(BIN)/python benchmarks/agent_bench.py --model local:qwen2.5-coder-1.5b --mode both --out runs/agent-bench.json

# The review job's planted problems (benchmarks/review_tasks), diff vs full refiner, on the 1.5B
# model; results in benchmarks/results/review-1.5b.{jsonl,md}.
bench-review:
	$(BIN)/python benchmarks/review_bench.py --model local:qwen2.5-coder-1.5b --refiner both --label 1.5b --lock /tmp/codeloop-model.lock

clean:
	rm -rf $(VENV) .pytest_cache
