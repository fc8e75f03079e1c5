"""The ask job: repository analysis and questions answered from the code, citing file:line.

planner -> repo_analyzer -> reasoner -> reflector -> (loop or) generator -> evaluator; see
graph.py. `service.ask` is its Python entry point (CLI, server, benchmark)."""
