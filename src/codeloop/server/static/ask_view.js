// The ask job: its start form's fields, and its answer as a report: the answer's Markdown
// drawn as elements (never parsed as HTML: it is model text), each `path:line` it cites
// marked grounded or not, the citations listed with why, and the score panel (the five
// weighted metrics, the overall score, grounding beside it).
import { h } from "./dom.js";

// The start form's fields ([name, label, kind, placeholder, required], as runs.js's).
export const ASK_FORM = [
  ["repo", "Repository (optional; a directory under a root)", "input", "e.g. my-project",
    false],
  ["question", "Question", "textarea", "e.g. Where is the configuration read?", true],
];

export function askParams(value, model) {
  return { question: value("question"), repo: value("repo") || undefined, model };
}

const METRICS = [["task_completion", "Task completion"],
  ["reasoning_quality", "Reasoning quality"], ["tool_effectiveness", "Tool effectiveness"],
  ["reflection_quality", "Reflection quality"], ["output_quality", "Output quality"]];

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function citeLabel(cite) {
  const where = cite.resolved || cite.path;
  return cite.end > cite.start ? `${where}:${cite.start}-${cite.end}` : `${where}:${cite.start}`;
}

function citeState(cite) {
  if (cite.grounded) return "grounded";
  return cite.exists ? "ungrounded" : "invented";
}

// Inline text: `code` spans, **bold**, and each cited place marked by its grounding.
function inline(text, cites) {
  const out = [];
  const known = [...new Set(cites.map((c) => c.text))].sort((a, b) => b.length - a.length);
  const citeRe = known.length ? new RegExp(known.map(escapeRegExp).join("|"), "g") : null;
  const byText = new Map(cites.map((c) => [c.text, c]));
  const plain = (segment) => {
    if (!citeRe) { out.push(segment); return; }
    let last = 0;
    for (const match of segment.matchAll(citeRe)) {
      if (match.index > last) out.push(segment.slice(last, match.index));
      const cite = byText.get(match[0]);
      out.push(h("span", { class: `cite ${citeState(cite)}`, title: cite.why || "" }, match[0]));
      last = match.index + match[0].length;
    }
    if (last < segment.length) out.push(segment.slice(last));
  };
  const parts = text.split(/(`[^`\n]+`|\*\*[^*\n]+\*\*)/);
  parts.forEach((part, i) => {
    if (i % 2 === 0) { if (part) plain(part); return; }
    if (part.startsWith("`")) {
      const code = part.slice(1, -1);
      const cite = byText.get(code);
      out.push(cite ? h("code", { class: `cite ${citeState(cite)}`, title: cite.why || "" },
        code) : h("code", {}, code));
    } else {
      out.push(h("strong", {}, part.slice(2, -2)));
    }
  });
  return out;
}

// A small Markdown subset as elements: headings, lists, fenced code, paragraphs.
export function markdown(text, cites = []) {
  const box = h("div", { class: "markdown", id: "ask-answer" });
  const lines = String(text || "").split("\n");
  let para = [];
  let list = null;
  const endPara = () => {
    if (para.length) box.append(h("p", {}, inline(para.join(" "), cites)));
    para = [];
  };
  const endList = () => { if (list) box.append(list); list = null; };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^\s*```/.test(line)) {
      endPara(); endList();
      const code = [];
      for (i += 1; i < lines.length && !/^\s*```/.test(lines[i]); i++) code.push(lines[i]);
      box.append(h("pre", { class: "code" }, code.join("\n")));
      continue;
    }
    const heading = line.match(/^(#{1,6})\s+(.*)$/);
    const bullet = line.match(/^\s*(?:[-*+]|(\d+)[.)])\s+(.*)$/);
    if (heading) {
      endPara(); endList();
      box.append(h(`h${Math.min(heading[1].length + 2, 6)}`, {}, inline(heading[2], cites)));
    } else if (bullet) {
      endPara();
      const tag = bullet[1] ? "ol" : "ul";
      if (!list || list.tagName.toLowerCase() !== tag) { endList(); list = h(tag); }
      list.append(h("li", {}, inline(bullet[2], cites)));
    } else if (!line.trim()) {
      endPara(); endList();
    } else {
      endList();
      para.push(line.trim());
    }
  }
  endPara(); endList();
  return box;
}

function citationList(grounding) {
  const cites = grounding.citations || [];
  if (!cites.length) return h("p", { class: "muted", id: "ask-citations" }, "No file:line cited.");
  return h("ul", { class: "citations", id: "ask-citations" }, cites.map((c) => {
    const state = citeState(c);
    return h("li", { class: `citation ${state}`, dataset: { path: c.resolved || c.path,
      line: c.start } }, h("code", {}, citeLabel(c)), " ",
    h("span", { class: `badge cite-${state}` }, state === "ungrounded" ? "not grounded" : state),
    " ", h("span", { class: "muted" }, c.why || ""));
  }));
}

function scorePanel(result) {
  const scores = result.evaluation_scores || {};
  const metrics = scores.metrics || {};
  const g = result.grounding || {};
  const grounding = g.cited
    ? `Grounding: ${g.grounded}/${g.cited} citations grounded ` +
      `(${Math.round((g.rate || 0) * 100)} %), ${g.existing} exist`
    : "Grounding: no file:line cited";
  return h("div", { class: "score-panel", id: "ask-scores" },
    h("table", { class: "scores" },
      h("tr", {}, ["Metric", "Score", "Weight", "Why"].map((c) => h("th", {}, c))),
      METRICS.filter(([key]) => metrics[key]).map(([key, label]) => h("tr",
        { dataset: { metric: key } }, h("td", {}, label),
        h("td", { class: "num" }, String(metrics[key].score)),
        h("td", { class: "num" }, String(metrics[key].weight)),
        h("td", {}, (metrics[key].why || []).join("; ")))),
      h("tr", { class: "total" }, h("td", {}, "Overall"),
        h("td", { class: "num", id: "ask-overall" }, String(scores.overall ?? 0)),
        h("td", { class: "num" }, "100"), h("td", {}, ""))),
    h("p", { id: "ask-grounding" }, grounding));
}

// The report of a finished ask run (its stored result).
export function askReport(result) {
  const g = result.grounding || {};
  const totals = result.totals || {};
  const tokens = (totals.prompt_tokens || 0) + (totals.completion_tokens || 0);
  return h("div", { class: "ask-report", id: "ask-report" },
    h("p", { class: "muted" }, `Task type: ${result.task_type} (by ${result.task_type_source})`),
    result.output_source === "template" ? h("p", { class: "warning" }, "No model reachable: " +
      "the report is built from the tool data alone.") : null,
    h("h3", {}, "Answer"), markdown(result.final_output, g.citations || []),
    h("h3", {}, "Citations"), citationList(g),
    h("h3", {}, "Score"), scorePanel(result),
    h("p", { class: "muted" }, `${result.iteration_count} iteration(s), ` +
      `${totals.calls ?? 0} model call(s), ${tokens} tokens, ` +
      `${result.seconds} s`));
}
