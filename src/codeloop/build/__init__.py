"""The build job: test-driven project generation from a task dependency graph (request.py
the input, stacks/ the tech stacks, graph.py the job: scaffold -> generate -> integrate)."""
