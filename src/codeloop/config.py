"""Effective configuration and where each value came from.

Precedence, lowest first: built-in defaults < user `codeloop.toml` (user config dir) <
project `codeloop.toml` (current directory) < `CODELOOP_*` environment < CLI flags.
Provider variables that other tools already use (`OPENAI_BASE_URL`, `OPENAI_API_KEY`,
`AZURE_OPENAI_*`, `OLLAMA_HOST`) count as environment too.

The project file is data the model may have written: it can only tighten a few settings
(project_config.py); what it tries beyond that is ignored and listed in `ignored`.
MCP servers for the agent (`[mcp_servers.NAME]`, mcp_client/settings.py) come from the user
file alone: they start programs on the host.
Commands read the configuration once and pass the values down; nothing below the command
(the sandbox runner above all) reads it again.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from codeloop.mcp_client.settings import SECTION as MCP_SECTION
from codeloop.mcp_client.settings import McpConfigError, McpServerConfig, parse_mcp_servers
from codeloop.paths import config_dir, default_store_path
from codeloop.project_config import IgnoredSetting, read_project_file, tighten

CONFIG_FILE = "codeloop.toml"


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    model: str = "local:qwen2.5-coder-1.5b"
    n_ctx: int = 8192
    n_threads: int = 0  # 0 = the machine's cores
    temperature: float = 0.0
    max_tokens: int = 1024
    request_timeout: float = 300.0
    max_retries: int = 2
    openai_base_url: str = ""
    openai_api_key: str = ""
    azure_endpoint: str = ""
    azure_api_version: str = ""
    ollama_base_url: str = "http://127.0.0.1:11434"
    store: str = ""
    sandbox_timeout: float = 10.0
    unsafe_no_sandbox: bool = False

    def store_path(self) -> Path:
        return Path(self.store).expanduser() if self.store else default_store_path()

    def threads(self) -> int:
        return self.n_threads or (os.cpu_count() or 1)


class ConfigError(Exception):
    pass


# Foreign variable names that map onto settings (they are what users already have set).
_PROVIDER_ENV = {
    "OPENAI_BASE_URL": "openai_base_url",
    "OPENAI_API_KEY": "openai_api_key",
    "AZURE_OPENAI_ENDPOINT": "azure_endpoint",
    "AZURE_OPENAI_API_KEY": "openai_api_key",
    "OPENAI_API_VERSION": "azure_api_version",
    "OLLAMA_HOST": "ollama_base_url",
}
SECRET_KEYS = {"openai_api_key"}


@dataclass
class EffectiveConfig:
    settings: Settings
    sources: dict[str, str] = field(default_factory=dict)
    ignored: list[IgnoredSetting] = field(default_factory=list)  # refused project keys
    mcp_servers: dict[str, McpServerConfig] = field(default_factory=dict)  # user file only

    def warnings(self) -> list[str]:
        return [item.warning() for item in self.ignored]

    def rows(self) -> list[tuple[str, Any, str]]:
        out = []
        for key in Settings.model_fields:
            value = getattr(self.settings, key)
            if key in SECRET_KEYS and value:
                value = value[:3] + "…" + f"({len(value)} chars)"
            out.append((key, value, self.sources.get(key, "default")))
        return out


def _read_toml(path: Path) -> tuple[dict[str, Any], dict[str, McpServerConfig]]:
    """The user file's settings and its MCP servers (in `[codeloop]` or beside it)."""
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc
    section = dict(data.get("codeloop", data))
    mcp_raw = section.pop(MCP_SECTION, None)
    if mcp_raw is None and "codeloop" in data:
        mcp_raw = data.get(MCP_SECTION)
    unknown = set(section) - set(Settings.model_fields)
    if unknown:
        raise ConfigError(f"{path}: unknown setting(s): {', '.join(sorted(unknown))}")
    try:
        servers = parse_mcp_servers(mcp_raw, str(path)) if mcp_raw is not None else {}
    except McpConfigError as exc:
        raise ConfigError(str(exc)) from None
    return section, servers


def user_mcp_servers() -> dict[str, McpServerConfig]:
    """The MCP servers of the user's own config file ({} when none); ConfigError when the
    file or a server is wrong. Never a project file's (project_config.py ignores those)."""
    user_file = config_dir() / CONFIG_FILE
    return _read_toml(user_file)[1] if user_file.is_file() else {}


def _env_layer(env: dict[str, str]) -> dict[str, tuple[Any, str]]:
    layer: dict[str, tuple[Any, str]] = {}
    for var, key in _PROVIDER_ENV.items():
        if env.get(var):
            value = env[var]
            if key == "ollama_base_url" and not value.startswith("http"):
                value = "http://" + value
            layer[key] = (value, f"env {var}")
    for key in Settings.model_fields:
        var = f"CODELOOP_{key.upper()}"
        if var in env:
            layer[key] = (env[var], f"env {var}")
    return layer


def load_config(
    cli: dict[str, Any] | None = None,
    *,
    project_dir: Path | None = None,
    env: dict[str, str] | None = None,
) -> EffectiveConfig:
    """Merge every layer; raise ConfigError naming the file or variable that is wrong."""
    env = dict(os.environ) if env is None else env
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}

    user_file = config_dir() / CONFIG_FILE
    mcp_servers: dict[str, McpServerConfig] = {}
    if user_file.is_file():
        user_values, mcp_servers = _read_toml(user_file)
        for key, value in user_values.items():
            values[key], sources[key] = value, str(user_file)
    below = _validated(values, sources)
    ignored: list[IgnoredSetting] = []
    project_file = (project_dir or Path.cwd()) / CONFIG_FILE
    if project_file.is_file() and project_file.resolve() != user_file.resolve():
        pairs, ignored = read_project_file(project_file)
        accepted, refused = tighten(below, pairs, str(project_file), _field_validator(below))
        ignored += refused
        for key, value in accepted.items():
            values[key], sources[key] = value, str(project_file)
    for key, (value, source) in _env_layer(env).items():
        values[key], sources[key] = value, source
    for key, value in (cli or {}).items():
        if value is not None:
            values[key], sources[key] = value, "cli"

    return EffectiveConfig(_validated(values, sources), sources, ignored, mcp_servers)


def _validated(values: dict[str, Any], sources: dict[str, str]) -> Settings:
    try:
        return Settings(**values)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            key = str(err["loc"][0]) if err["loc"] else "?"
            problems.append(f"{key} (from {sources.get(key, 'default')}): {err['msg']}")
        raise ConfigError("invalid configuration: " + "; ".join(problems)) from exc


def _field_validator(base: Settings):
    """validate(key, value): the value as that setting's type, ValueError when it is not."""
    def validate(key: str, value: Any) -> Any:
        try:
            return getattr(Settings.model_validate({**base.model_dump(), key: value}), key)
        except ValidationError as exc:
            raise ValueError(exc.errors()[0]["msg"]) from None
    return validate
