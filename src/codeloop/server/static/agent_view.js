// The agent job: its answer and changed files, and for a multi-agent run what the terminal
// shows (agent/multi/view.py): the plan, each round's implementation report and the
// validator's verdict. All of it is model text: set as text only.
import { h } from "./dom.js";

// "success; created a.py; modified b.py; lint: a.py 9.5", as implementation_summary says it.
export function implementationSummary(report) {
  const parts = [report.status];
  if ((report.files_created || []).length) parts.push(`created ${report.files_created.join(", ")}`);
  if ((report.files_modified || []).length) {
    parts.push(`modified ${report.files_modified.join(", ")}`);
  }
  if (!(report.files_created || []).length && !(report.files_modified || []).length) {
    parts.push("no file named");
  }
  const lints = (report.linting_results || []).map((l) =>
    `${l.file} ${Number(l.score).toFixed(1)}${l.notes ? ` (${l.notes})` : ""}`);
  if (lints.length) parts.push(`lint: ${lints.join(", ")}`);
  return parts.join("; ");
}

function planView(plan) {
  return h("div", { class: "agent-plan", id: "agent-plan" }, h("h3", {}, "Plan"),
    h("p", {}, plan.analysis || ""),
    h("ol", {}, (plan.steps || []).map((s) => h("li", {},
      h("b", {}, `${s.action} ${s.file}`), `: ${s.details}`))),
    (plan.considerations || []).length
      ? h("ul", { class: "muted" }, plan.considerations.map((c) => h("li", {}, c))) : null);
}

function roundsView(result) {
  const reports = result.implementations || [];
  const verdicts = result.validations || [];
  const rounds = Math.max(reports.length, verdicts.length);
  if (!rounds) return null;
  const items = [];
  for (let i = 0; i < rounds; i++) {
    const verdict = verdicts[i];
    items.push(h("li", { class: "round", dataset: { round: i + 1 } },
      reports[i] ? h("div", { class: "implementation" }, h("b", {}, "Implementation: "),
        implementationSummary(reports[i])) : null,
      verdict ? h("div", { class: `validation ${verdict.status === "approved" ? "pass" : "fail"}` },
        h("b", {}, "Validation: "), `${verdict.status} (quality ` +
          `${Number(verdict.quality_score).toFixed(1)}/10): ${verdict.changes_summary}`,
        (verdict.issues || []).length ? h("ul", {}, verdict.issues.map((x) => h("li", {}, x)))
          : null,
        verdict.fix_instructions ? h("div", { class: "muted" }, `fix: ${verdict.fix_instructions}`)
          : null) : null));
  }
  return h("div", { id: "agent-rounds" }, h("h3", {}, "Rounds"), h("ol", {}, items));
}

export function agentResult(result) {
  const changes = result.changes || [];
  return [h("h3", {}, "Answer"), h("pre", { class: "answer" }, result.answer || ""),
    changes.length ? [h("h3", {}, "Changed files"), h("ul", {}, changes.map((c) =>
      h("li", {}, `${c.path || c.file || JSON.stringify(c)}`)))] : null,
    result.plan ? planView(result.plan) : null, roundsView(result),
    (result.notes || []).length ? h("ul", { class: "muted" },
      result.notes.map((n) => h("li", {}, `note: ${n}`))) : null];
}
