"""The kit every job stands on: the stage wrapper and model calls with events (stage.py),
one prompt loader (prompts.py), one usage record (usage.py), code-block extraction
(extract.py) and the agent runner (agent_run.py). Import the modules themselves; this
package imports nothing on its own."""
