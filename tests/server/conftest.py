"""The server's tests import their helpers from server_kit.py (beside this file)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
