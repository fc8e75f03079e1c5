#!/usr/bin/env bash
# The system programs the test suite drives for real (installed when absent, from Debian):
#   chromium    the web UI's end-to-end tests (Playwright with executable_path, no download)
#   golang-go   the build job's go-api stack
# Node 20 and npm are expected on the machine (the build job's nodejs-api and react-spa stacks).
# Needs root or sudo when something is missing; says what to install otherwise.
set -euo pipefail
say() { printf '\033[1;34m[setup]\033[0m %s\n' "$*" >&2; }

missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v go >/dev/null 2>&1 || missing+=(golang-go)
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ]; then
  SUDO=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  SUDO=(sudo -n)
else
  echo "setup: the test suite needs: ${missing[*]} (install them with: sudo apt-get install -y ${missing[*]})" >&2
  exit 2
fi
say "installing ${missing[*]} from Debian"
DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -q "${missing[@]}" >/dev/null \
  || { "${SUDO[@]}" apt-get update -q >/dev/null && \
       DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -q "${missing[@]}" >/dev/null; }
