// The review job's verdict as the CLI shows it (commands/review_view.py render_feedback):
// approved or not (and when the model's approval was overruled), the tests after the change
// and before it, the failing tests, the reviewer's issues, suggestions and lint, and the
// run's error log. Every string is model or workspace text: set as text only.
import { h } from "./dom.js";

function testLine(tests) {
  if (!tests || !Object.keys(tests).length) return null;
  if (tests.ran === false) return "no tests ran";
  let line = `tests: ${tests.passed || 0} passed, ${tests.failed || 0} failed`;
  if (tests.before && typeof tests.before === "object") {
    line += ` (before: ${tests.before.passed || 0} passed, ${tests.before.failed || 0} failed)`;
  }
  return line;
}

const METRIC_LABELS = { mi: "maintainability", complexity: "complexity", lloc: "logical lines" };
const fmt = (v) => (typeof v === "number" && !Number.isInteger(v) ? v.toFixed(1) : String(v));

// "calc.py: maintainability 88.6 → 78.6 (-10.0)" from the reviewer's before/after figures.
export function metricLine(path, figures) {
  const names = [...new Set(Object.keys(figures).filter((k) => /_(before|after|delta)$/.test(k))
    .map((k) => k.replace(/_(before|after|delta)$/, "")))];
  return `${path}: ` + names.map((name) => {
    const before = figures[`${name}_before`];
    const after = figures[`${name}_after`];
    const delta = figures[`${name}_delta`];
    let text = `${METRIC_LABELS[name] || name} ` +
      (before !== undefined && before !== null ? `${fmt(before)} → ${fmt(after)}`
        : `${fmt(after)} (new)`);
    if (delta) text += ` (${delta > 0 ? "+" : ""}${fmt(delta)})`;
    return text;
  }).join(", ");
}

export function reviewVerdict(run) {
  const feedback = run.review_feedback;
  const errors = (run.result && run.result.error_log) || [];
  if (!feedback && !errors.length) return null;
  const box = h("div", { class: "review-verdict", id: "review-verdict" });
  if (feedback) {
    const approved = Boolean(feedback.approved);
    const tests = feedback.tests || {};
    const failing = (tests.failed || 0) > 0 || tests.ran === false;
    box.append(h("h3", {}, "Reviewer"), h("p", {},
      h("span", { class: `verdict ${approved ? "pass" : "fail"}`, id: "reviewer-verdict" },
        approved ? "approved" : "not approved"),
      feedback.model_approved && !approved
        ? h("span", { class: "muted" }, " (the model approved; a failing test or a HIGH " +
          "finding overrules it)") : null,
      testLine(tests) ? h("span", { class: `tests ${failing ? "fail" : "pass"}`,
        id: "review-tests" }, ` · ${testLine(tests)}`) : null));
    const items = [
      ...(tests.failures || []).slice(0, 5).map((f) => ["failing", f]),
      ...(feedback.issues || []).map((i) => ["issue", i]),
      ...(feedback.suggestions || []).map((s) => ["suggestion", s]),
      ...(feedback.lint || []).map((l) => ["lint", l]),
    ];
    if (items.length) {
      box.append(h("ul", { class: "review-items", id: "review-items" }, items.map(([kind, text]) =>
        h("li", { class: `item-${kind}` }, h("b", {}, `${kind}: `), String(text)))));
    }
  }
  const metrics = feedback && feedback.metrics;
  if (metrics && typeof metrics === "object") {
    const lines = Object.entries(metrics).filter(([, f]) => f && typeof f === "object");
    if (lines.length) {
      box.append(h("ul", { class: "muted review-metrics" },
        lines.map(([path, figures]) => h("li", {}, metricLine(path, figures)))));
    }
  }
  if (errors.length) {
    box.append(h("h3", {}, "Errors"), h("ul", { class: "error", id: "review-errors" },
      errors.map((line) => h("li", {}, String(line)))));
  }
  return box;
}
