#!/usr/bin/env bash
# The MCP protocol's own checkers, pinned, installed with npm into a cache directory outside the
# repository (about 30 s once; they run offline afterwards): the conformance suite and the
# Inspector's CLI. tests/mcp/test_mcp_conformance.py runs them against `codeloop mcp` and
# `codeloop serve`'s /api/mcp. conformance 0.1.11+ needs Node 22 (fs.globSync); 0.1.10 runs on
# Debian's Node 20.
set -euo pipefail
dir="${CODELOOP_MCP_TOOLS:-$HOME/.cache/codeloop/mcp-tools}"
mkdir -p "$dir"
cd "$dir"
[ -f package.json ] || echo '{"private": true}' > package.json
npm install --no-audit --no-fund --silent \
  @modelcontextprotocol/conformance@0.1.10 @modelcontextprotocol/inspector-cli@1.0.3
echo "MCP tools in $dir/node_modules/.bin: conformance, mcp-inspector-cli"
