"""The MCP servers of the user's config file, as Codex CLI writes them in TOML:

    [mcp_servers.notes]
    command = "uvx"
    args = ["notes-mcp"]
    env = { NOTES_DB = "~/notes.sqlite" }
    enabled_tools = ["lookup"]          # the allow-list; left out: every tool it offers

    [mcp_servers.docs]
    url = "https://docs.example.com/mcp"
    bearer_token_env_var = "DOCS_TOKEN" # Authorization: Bearer $DOCS_TOKEN

Only the user's own file is read for these (config.py); a project file's are ignored
(project_config.py). Nothing here imports the MCP SDK: this is on every command's path.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

SECTION = "mcp_servers"
# What a project file might use to name servers; all of them are ignored there.
SECTION_ALIASES = (SECTION, "mcp", "mcpServers")
NAME = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


class McpConfigError(Exception):
    """The user's MCP servers are not usable as written: one line naming file and server."""


class McpServerConfig(BaseModel):
    """One server: a command (stdio) or a URL (Streamable HTTP)."""

    model_config = ConfigDict(extra="forbid")

    command: str = ""
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str = ""
    url: str = ""
    bearer_token_env_var: str = ""
    env_http_headers: dict[str, str] = Field(default_factory=dict)  # header -> variable name
    enabled_tools: list[str] | None = None
    startup_timeout_sec: float = Field(default=10.0, gt=0, le=600)
    tool_timeout_sec: float = Field(default=60.0, gt=0, le=3600)

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerConfig:
        if bool(self.command) == bool(self.url):
            raise ValueError("give either `command` (stdio) or `url` (HTTP), not both or none")
        if self.url and not self.url.startswith(("http://", "https://")):
            raise ValueError("`url` must start with http:// or https://")
        if self.command and (self.bearer_token_env_var or self.env_http_headers):
            raise ValueError("HTTP headers apply to a `url` server only")
        if self.url and (self.args or self.env or self.cwd):
            raise ValueError("`args`, `env` and `cwd` apply to a `command` server only")
        return self

    @property
    def transport(self) -> str:
        return "stdio" if self.command else "http"

    def target(self) -> str:
        """What it runs or reaches, for one line of `config show` (no env values)."""
        return " ".join([self.command, *self.args]) if self.command else self.url

    def allows(self, tool: str) -> bool:
        return self.enabled_tools is None or tool in self.enabled_tools


def parse_mcp_servers(raw: Any, path: str) -> dict[str, McpServerConfig]:
    """The `[mcp_servers]` table of the user's file; McpConfigError with one line naming the
    file, the server and what is wrong."""
    if not isinstance(raw, dict):
        raise McpConfigError(f"{path}: `{SECTION}` must be a table of servers")
    servers: dict[str, McpServerConfig] = {}
    for name, entry in raw.items():
        if not NAME.match(name):
            raise McpConfigError(f"{path}: MCP server name {name!r} must be 1-32 letters, digits, "
                             "_ or -")
        if not isinstance(entry, dict):
            raise McpConfigError(f"{path}: MCP server {name!r} must be a table")
        try:
            servers[name] = McpServerConfig.model_validate(entry)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"])
            where = f" `{where}`" if where else ""
            message = str(err["msg"]).removeprefix("Value error, ")
            raise McpConfigError(f"{path}: MCP server {name!r}{where}: {message}") from None
    return servers
