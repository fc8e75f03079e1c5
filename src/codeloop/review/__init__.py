"""The review job: security gate -> reviewer -> diff-based refiner (loop) -> human approval
-> persistence; a rejected change self-heals up to a limit. Entry points: service.py."""
