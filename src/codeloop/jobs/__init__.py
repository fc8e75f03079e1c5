"""The kit every job stands on: the stage wrapper and model calls with events (stage.py),
one prompt loader (prompts.py), one usage record (usage.py), code-block extraction
(extract.py), the ReAct loop (react/) and the agent runner (agent_run.py). The kit imports
no job. Import the modules themselves; this package imports nothing on its own."""
