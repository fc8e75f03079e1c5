"""Wiring for `codeloop agent`: workspace, git, model, run store, event printing, and the
single-agent session or the multi-agent runner."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from codeloop.agent.factory import agent_spec
from codeloop.agent.multi.orchestrator import run_multi_agent
from codeloop.agent.render import EventPrinter, print_turn_end
from codeloop.agent.repl import (
    MultiAgentConversation,
    Outcome,
    SessionConversation,
    run_repl,
)
from codeloop.agent.session import AgentSession
from codeloop.agent.snapshots import (
    SnapshotError,
    Snapshots,
    init_repo,
    is_git_repo,
    not_a_repository,
)
from codeloop.config import Settings
from codeloop.events import EventBus
from codeloop.jobs.react.state import AgentLimits
from codeloop.llm.base import LLM, LLMError
from codeloop.mcp_client.settings import McpServerConfig
from codeloop.store import RunStore, StoreError
from codeloop.tools import ToolError, Workspace


class AgentAppError(Exception):
    """A problem the user must fix before the agent can start (the message says what)."""


def open_workspace(home: str | Path, settings: Settings, console: Console, *,
                   init_git: bool = True) -> Workspace:
    """The workspace; one that is not a git repository is made one when `init_git` (the
    CLI's way, said on the console), else refused (the API asks for it explicitly)."""
    try:
        workspace = Workspace.at(home, shell_timeout=max(settings.sandbox_timeout, 1.0),
                                 unsafe_no_sandbox=settings.unsafe_no_sandbox)
    except ToolError as exc:
        raise AgentAppError(str(exc)) from exc
    if not is_git_repo(workspace.root) and not init_git:
        raise AgentAppError(not_a_repository(workspace.root))
    if not is_git_repo(workspace.root):
        console.print(f"[yellow]{workspace.root} is not a git repository: initialising one, "
                      "with a first commit of the files there now (for diffs and /undo).[/]")
        try:
            init_repo(workspace.root)
        except Exception as exc:
            raise AgentAppError(f"could not initialise git in {workspace.root}: {exc}") from exc
    return workspace


class AgentApp:
    def __init__(self, llm: LLM, workspace: Workspace, store: RunStore, *, limits: AgentLimits,
                 multi_agent: bool, thread: str, console: Console,
                 context_first: bool = True, mcp_hub: Any = None) -> None:
        self.llm, self.workspace, self.store = llm, workspace, store
        # The MCP servers of the user's config (mcp_client/hub.py), started for this app's
        # life and stopped by close(); their tools join the single agent's own.
        self.mcp_hub = mcp_hub
        extra_tools = []
        if mcp_hub is not None and not multi_agent:
            from codeloop.mcp_client.tools import mcp_tools

            extra_tools = mcp_tools(mcp_hub)
        self.limits, self.multi_agent, self.console = limits, multi_agent, console
        # One bus for the app's life (the tools and the session were built with it); each
        # request lends it to its run, which feeds the store its events.
        self.bus = EventBus()
        self.bus.subscribe(EventPrinter(console))
        self.snapshots = Snapshots(workspace)
        self.last_run_id: str | None = None  # the newest request's run, once it exists
        self.session = None if multi_agent else AgentSession(
            llm, agent_spec("single", workspace, limits=limits, bus=self.bus,
                            extra_tools=extra_tools),
            checkpointer=store.checkpointer(), snapshots=self.snapshots, thread=thread,
            bus=self.bus, context_first=context_first)

    @classmethod
    def open(cls, home: str, settings: Settings, *, max_steps: int, token_budget: int,
             multi_agent: bool, thread: str, quiet: bool = False,
             context_first: bool = True,
             mcp_servers: dict[str, McpServerConfig] | None = None) -> AgentApp:
        from codeloop.llm.registry import get_llm

        console = Console(stderr=True, soft_wrap=True) if quiet else Console(soft_wrap=True)
        workspace = open_workspace(home, settings, console)
        limits = AgentLimits(max_steps=max_steps, token_budget=token_budget,
                             max_tokens_per_step=settings.max_tokens,
                             temperature=settings.temperature)
        try:
            llm = get_llm(settings.model, settings)
        except LLMError as exc:
            raise AgentAppError(str(exc)) from exc
        try:
            store = RunStore(settings.store_path())
        except StoreError as exc:
            raise AgentAppError(str(exc)) from exc
        hub = None
        if mcp_servers and not multi_agent:
            from codeloop.mcp_client.hub import McpHub

            hub = McpHub(mcp_servers).start()
        try:
            return cls(llm, workspace, store, limits=limits, multi_agent=multi_agent,
                       thread=thread, console=console, context_first=context_first,
                       mcp_hub=hub)
        except StoreError as exc:  # the checkpointer's tables could not be made
            store.close()
            if hub is not None:
                hub.stop()
            raise AgentAppError(str(exc)) from exc

    # ------------------------------------------------------------------ running
    def conversation(self):
        if self.session is not None:
            return SessionConversation(self.session)
        return MultiAgentConversation(self._run_multi, self.snapshots)

    def _run_multi(self, request: str):
        return run_multi_agent(self.llm, self.workspace, request, bus=self.bus,
                               limits=self.limits, checkpointer=self.store.checkpointer())

    def _recorded(self, request: str, conversation) -> tuple[Outcome, Any]:
        inputs = {"request": request, "home": str(self.workspace.root),
                  "multi_agent": self.multi_agent, "model": getattr(self.llm, "name", None)}
        with self.store.run("agent", inputs, bus=self.bus) as run:
            self.last_run_id = run.id
            if self.workspace.unsafe_no_sandbox:  # in the run's events too, not only on screen
                from codeloop.events import Progress
                from codeloop.sandbox.unsafe import UNSANDBOXED_NOTICE

                run.bus.emit(Progress(done=0, total=0, message=UNSANDBOXED_NOTICE))
            if self.mcp_hub is not None:  # a server that failed: one line each, turn goes on
                from codeloop.events import Progress

                for line in self.mcp_hub.failures():
                    run.bus.emit(Progress(done=0, total=0, message=line))
            outcome = conversation.ask(request)  # an error is recorded by the run, then raised
            if self.snapshots.omitted:  # the change summary is partial: say so, and why
                self.console.print(f"[yellow]note:[/] {escape(self.snapshots.omitted)}",
                                   highlight=False)
            ok = outcome.status in ("finished", "approved")
            run.finish("done" if ok else outcome.status, outcome.record())
        return outcome, run.id

    def run_once(self, request: str, *, as_json: bool = False) -> int:
        try:
            outcome, run_id = self._recorded(request, self.conversation())
        except (LLMError, SnapshotError) as exc:
            self.console.print(f"[bold red]error:[/] {exc}")
            return 1
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the run is recorded as interrupted
            if as_json:
                print(json.dumps({"run_id": self.last_run_id, "status": "interrupted"},
                                 indent=2))
            self.console.print(f"[yellow]interrupted[/] (run {self.last_run_id})",
                               highlight=False)
            return 130
        if as_json:
            from codeloop.run_statuses import settle

            ok = outcome.status in ("finished", "approved")
            run_status, phrase = settle("agent", "done" if ok else outcome.status)
            print(json.dumps({"run_id": run_id, "run_status": run_status, "outcome": phrase,
                              "sandboxed": not self.workspace.unsafe_no_sandbox,
                              **outcome.record()}, indent=2))
        else:
            print_turn_end(self.console, outcome.answer, outcome.status, outcome.steps,
                           outcome.tokens, outcome.changes, outcome.details)
        return 0 if outcome.status in ("finished", "approved") else 1

    def run_repl(self) -> None:
        conversation = _RecordingConversation(self, self.conversation())

        def read_line() -> str | None:
            try:
                return self.console.input("[bold]> [/]")
            except (EOFError, KeyboardInterrupt):
                return None

        run_repl(conversation, read_line, self.console)

    def close(self) -> None:
        try:
            if self.mcp_hub is not None:
                self.mcp_hub.stop()
        finally:
            self.store.close()


class _RecordingConversation:
    """Records each REPL request as a run in the store; model errors end the turn, not
    the REPL."""

    def __init__(self, app: AgentApp, inner) -> None:
        self.app, self.inner = app, inner

    def ask(self, request: str) -> Outcome:
        try:
            return self.app._recorded(request, self.inner)[0]
        except (LLMError, SnapshotError) as exc:
            return Outcome(f"error: {exc}", "error", 0, 0)

    def __getattr__(self, name: str):
        return getattr(self.inner, name)
