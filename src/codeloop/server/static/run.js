// One run: its status, the DebugPanel (live log), and the job's own view: the DiffViewer
// for a review waiting for approval (and the reviewer's verdict), the stages and result for
// solve, the answer (and a multi-agent run's plan and rounds) for agent, the report for ask.
import { api, streamRun } from "./api.js";
import { append, clear, h } from "./dom.js";
import { DebugPanel } from "./debug_panel.js";
import { DiffViewer } from "./diff_viewer.js";
import { SolveView } from "./solve_view.js";
import { BuildView } from "./build_view.js";
import { agentResult } from "./agent_view.js";
import { askReport } from "./ask_view.js";
import { reviewVerdict } from "./review_view.js";

// A success with a caveat (a solve whose code no test ran) is never drawn as a plain success.
function hasCaveat(run) {
  return run.job === "solve" && Boolean(run.result && run.result.untested_reason);
}

// The lifecycle status, and beside it the job's outcome phrase when the server gives one.
function statusLine(run) {
  const kind = hasCaveat(run) ? "caveat" : String(run.status || "").replace(/[^a-z_]/g, "");
  const label = String(run.status || "unknown").replace(/_/g, " ");  // people's words
  return [h("span", { class: `badge status-${kind}`, id: "run-status" }, label),
    run.outcome ? h("span", { class: "outcome", id: "run-outcome" }, run.outcome) : null];
}

// "model X · N tokens · M events": a value the run does not have yet is left out, never
// printed as "null" or "undefined".
function factsLine(run) {
  const known = (value) => value !== null && value !== undefined && value !== "";
  return [known(run.model) ? `model ${run.model}` : "model not chosen yet",
    known(run.tokens) ? `${run.tokens} tokens` : null,
    known(run.events) ? `${run.events} events` : null].filter(Boolean).join(" · ");
}

function resultView(run) {
  const box = h("section", { class: "card result", id: "run-result" });
  if (run.job === "agent" && run.result) {
    append(box, agentResult(run.result));
  } else if (run.job === "review") {
    if (run.message) box.append(h("p", { class: "message", id: "review-message" }, run.message));
    if (run.findings.length) {
      box.append(h("h3", {}, "Security findings"), h("table", { class: "findings" },
        h("tr", {}, ["Severity", "File", "Line", "Tool", "Message"].map((c) => h("th", {}, c))),
        run.findings.map((f) => h("tr", { class: `sev-${f.severity}` }, h("td", {}, f.severity),
          h("td", {}, f.file_path || ""), h("td", { class: "num" }, f.line ?? ""),
          h("td", {}, f.tool || ""), h("td", {}, f.message || "")))));
    }
    const written = run.result && run.result.written;
    if (written && written.length) {
      box.append(h("h3", {}, "Written"), h("ul", { id: "written-files" },
        written.map((w) => h("li", {}, w))));
    }
    const verdict = reviewVerdict(run);
    if (verdict) box.append(verdict);
  } else if (run.job === "ask" && run.result && run.result.final_output !== undefined) {
    box.append(askReport(run.result));
  } else if (run.result && !["solve", "build", "ask"].includes(run.job)) {
    box.append(h("pre", {}, JSON.stringify(run.result, null, 2)));
  }
  return box;
}

function tokensTable(run) {
  const stages = Object.entries(run.tokens_per_stage || {});
  if (!stages.length) return null;
  return h("table", { class: "tokens" },
    h("tr", {}, ["Stage", "Calls", "Prompt", "Completion", "Total"].map((c) => h("th", {}, c))),
    stages.map(([name, t]) => h("tr", {}, h("td", {}, name), h("td", { class: "num" }, t.calls),
      h("td", { class: "num" }, t.prompt_tokens), h("td", { class: "num" }, t.completion_tokens),
      h("td", { class: "num" }, t.total_tokens))));
}

export async function renderRun(view, runId) {
  const header = h("section", { class: "card run-header" });
  const jobArea = h("div", { class: "job-area" });
  const debug = new DebugPanel();
  const page = h("div", { class: "run-page" }, header, jobArea, debug.element);
  view.append(page);
  let solveView = null;
  let buildView = null;
  let diffViewer = null;

  async function refresh() {
    const run = await api(`/api/runs/${encodeURIComponent(runId)}`);
    clear(header);
    const actions = h("span", { class: "actions" });
    if (run.live || run.status === "awaiting_approval" || run.status === "interrupted") {
      actions.append(h("button", { id: "cancel-run", onclick: async () => {
        await api(`/api/runs/${encodeURIComponent(runId)}`, { method: "DELETE" });
        refresh();
      } }, "Cancel"));
    }
    if (run.status === "interrupted") {
      actions.append(h("button", { id: "resume-run", onclick: async () => {
        const started = await api(`/api/runs/${encodeURIComponent(runId)}/resume`,
          { method: "POST" });
        window.location.hash = `#/runs/${started.run_id}`;
        if (started.run_id === runId) window.location.reload();
      } }, "Resume"));
    }
    header.append(h("h2", {}, h("span", { class: "job" }, run.job), " ", run.id),
      h("p", {}, statusLine(run), " ", h("span", { class: "muted", id: "run-facts" },
        factsLine(run)), " ", actions),
      debug.toggleButton);
    // Before the first model call there is no table: Element.append(null) would print "null".
    const tokens = tokensTable(run);
    if (tokens) header.append(tokens);
    if (run.job === "solve") {
      if (!solveView) { solveView = new SolveView(); jobArea.append(solveView.element); }
      solveView.setResult(run.result);
    }
    if (run.job === "build") {
      if (!buildView) { buildView = new BuildView(); jobArea.append(buildView.element); }
      await buildView.update(run);
    }
    jobArea.querySelectorAll(".result, .diff-viewer").forEach((el) => el.remove());
    if (run.job === "review" && run.pending_diffs.length) {
      diffViewer = new DiffViewer(run, async (approved, message, digest) => {
        const verb = approved ? "approve" : "reject";
        await api(`/api/runs/${encodeURIComponent(runId)}/${verb}`,
          { method: "POST", body: { message, digest } });
        await refresh();
      });
      jobArea.append(diffViewer.element);
    }
    jobArea.append(resultView(run));
    return run;
  }

  await refresh();
  let pending = null;
  const refreshSoon = () => {
    if (pending) return;
    pending = setTimeout(() => { pending = null; refresh().catch(() => {}); }, 300);
  };
  const stop = streamRun(runId, {
    onEvent: (event) => {
      debug.add(event);
      if (solveView) solveView.onEvent(event);
      if (["approval_request", "stage_end", "error", "diff", "progress"].includes(event.type)) {
        refreshSoon();
      }
    },
    onEnd: () => refreshSoon(),
  });
  return () => { stop(); if (pending) clearTimeout(pending); };
}
