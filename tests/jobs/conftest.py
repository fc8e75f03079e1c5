import sys
from pathlib import Path

# The agent tests' reply helpers (agent_replies.py) script the agent runner's model here too.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "agent"))
