"""The MCP tests import their helpers from mcp_kit.py (beside this file) and the server
tests' kit (scripts, a review workspace)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "server"))
