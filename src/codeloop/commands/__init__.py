"""One module per CLI command or group: its commands are module-level functions (importable
and testable alone); `register(app)` adds them to an app in one line; codeloop.cli lists them."""
