"""Code-quality toolkit: radon metrics (`metrics`), lint with ruff + a pylint score (`lint`),
and a security scan with bandit + secret patterns (`security`).

Import the submodule you need; nothing is imported here so `import codeloop.quality` stays
free of side effects and cheap.
"""
