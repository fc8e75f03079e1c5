"""The ReAct loop, part of the kit: one agent (AgentSpec: system prompt, toolbox, finish
schema, limits) thinks and acts under JSON schemas until it finishes (react.py; the action
asked in asking.py, the actions in actions.py, the state in state.py). Every job's agents run
on it: the agent job's turns, and through jobs/agent_run.py build's task agents and ask's
analyzer. Import the modules themselves; this package imports nothing on its own."""
