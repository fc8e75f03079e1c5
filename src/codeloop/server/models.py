"""Which model a server run uses, and the one instance (and gate) per model.

A request may name a model spec. Specs naming a file on the host (`local:/x.gguf`,
`scripted:/x.yaml`) are remote input pointing at the server's disk, so they are accepted only
when the file lies under a --root (or is the server's own configured model). A local model is
loaded once and shared (one llama.cpp instance, serial gate); a server backend is shared too
(parallel); a scripted model is read anew for every run (its replies are consumed in order).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from codeloop.config import Settings
from codeloop.llm.base import LLM, UnknownModelSpec
from codeloop.server.model_gate import GatedLLM, ModelGate, RunSignals
from codeloop.server.roots import Roots

# Backends whose calls are queued one at a time (one in-process model).
DEFAULT_SERIAL_BACKENDS = frozenset({"local"})


class ServerModels:
    def __init__(self, settings: Settings, roots: Roots,
                 serial_backends: frozenset[str] = DEFAULT_SERIAL_BACKENDS) -> None:
        self.settings, self.roots, self.serial_backends = settings, roots, serial_backends
        self._shared: dict[str, LLM] = {}
        self._gates: dict[str, ModelGate] = {}
        self._lock = threading.Lock()
        self._load_lock = threading.Lock()  # held while a model loads (seconds)

    def check_spec(self, spec: str | None) -> str:
        """The spec a run will use (the server's default when None); LLMError when it is
        malformed or names a host file outside the roots (checked before any run starts)."""
        from codeloop.llm.registry import parse_spec
        from codeloop.server.roots import BadPath, PathOutsideRoots

        spec = (spec or "").strip() or self.settings.model
        parsed = parse_spec(spec)
        if str(parsed) == str(parse_spec(self.settings.model)):
            return str(parsed)
        if parsed.backend == "scripted" or parsed.is_path:
            try:
                self.roots.resolve(parsed.name, kind="model file", want_dir=False)
            except (BadPath, PathOutsideRoots) as exc:
                raise UnknownModelSpec(f"model {spec!r}: {exc}") from None
        return str(parsed)

    def _gate(self, spec: str) -> ModelGate:
        from codeloop.llm.registry import parse_spec

        with self._lock:
            return self._gates.setdefault(
                spec, ModelGate(parse_spec(spec).backend in self.serial_backends))

    def _shared_llm(self, spec: str) -> LLM:
        """One instance of a (non-scripted) model for every run, loaded on first use."""
        from codeloop.llm.registry import get_llm

        with self._load_lock:  # one load, even when two runs ask at once
            if spec not in self._shared:
                self._shared[spec] = get_llm(spec, self.settings)
            return self._shared[spec]

    def _loader(self, spec: str) -> Callable[[], LLM]:
        from codeloop.llm.registry import get_llm, parse_spec

        if parse_spec(spec).backend == "scripted":  # a fresh script for every run
            return lambda: get_llm(spec, self.settings)
        return lambda: self._shared_llm(spec)

    def for_run(self, spec: str, signals: RunSignals) -> GatedLLM:
        """The run's gated model; it is loaded at the run's first model call (an LLMError
        then, recorded by the run, when it cannot be)."""
        return GatedLLM(self._loader(spec), spec, self._gate(spec), signals)

    def for_build(self, spec: str, signals: RunSignals) -> Callable[[str], GatedLLM]:
        """The build's `llm_for(agent key)`, every agent's model gated for this run. A
        scripted spec may hold one script per agent (codeloop.build.models)."""
        from codeloop.build.models import models_for
        from codeloop.llm.registry import parse_spec

        gate = self._gate(spec)
        if parse_spec(spec).backend == "scripted":
            per_agent = models_for(spec, self.settings)  # reads the script file now
        else:
            def per_agent(_key: str) -> LLM:
                return self._shared_llm(spec)
        made: dict[str, GatedLLM] = {}
        lock = threading.Lock()

        def llm_for(key: str) -> GatedLLM:
            with lock:  # task agents ask from parallel threads
                if key not in made:
                    made[key] = GatedLLM(lambda: per_agent(key), spec, gate, signals)
                return made[key]

        return llm_for

    def gate(self, spec: str) -> ModelGate | None:
        with self._lock:
            return self._gates.get(spec)
