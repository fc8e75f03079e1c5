"""No token in a log: uvicorn's logging as `codeloop serve` configures it, with a filter on
every handler that hides a `token=` query value (the browser's login link, `GET /?token=...`,
lands in the access log at `--log-level info`) and the server's token wherever else it would
appear. uvicorn's `trace` level is not offered: it logs whole requests, cookies included."""

from __future__ import annotations

import copy
import logging
import re
from typing import Any

HIDDEN = "[hidden]"
LOG_LEVELS = ("critical", "error", "warning", "info", "debug")
_QUERY_TOKEN = re.compile(r"((?:^|[?&;])token=)[^&;\s\"']*", re.IGNORECASE)


class HideTokens(logging.Filter):
    def __init__(self, secret: str | None = None) -> None:
        super().__init__()
        self.secret = secret

    def _clean(self, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        value = _QUERY_TOKEN.sub(lambda m: m.group(1) + HIDDEN, value)
        return value.replace(self.secret, HIDDEN) if self.secret else value

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = self._clean(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(self._clean(arg) for arg in record.args)
        elif isinstance(record.args, dict):
            record.args = {key: self._clean(arg) for key, arg in record.args.items()}
        return True


def log_config(secret: str | None) -> dict[str, Any]:
    """uvicorn's own logging configuration, every handler behind HideTokens."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config.setdefault("filters", {})["hide_tokens"] = {"()": HideTokens, "secret": secret}
    for handler in config["handlers"].values():
        handler["filters"] = [*handler.get("filters", []), "hide_tokens"]
    return config
