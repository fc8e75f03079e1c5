// DebugPanel: the live log of a run, one line per event (time, node/agent, type icon,
// content, token usage), filters by node and event type, running token totals per node.
import { clear, fmtTime, h } from "./dom.js";

// Event types as short coloured tags (text, not emoji: headless and minimal systems often
// have no emoji font).
const ICONS = { thinking: "think", tool_call: "tool", prompt: "prompt", result: "result",
  error: "error", stage: "stage", llm: "llm", tests: "tests", diff: "diff",
  approval: "approval", progress: "progress" };

// Every event type as a DebugPanel line: {node, agent, kind, content, tokens}.
export function lineOf(event) {
  switch (event.type) {
    case "debug_log":
      return { node: event.node, agent: event.agent, kind: event.event_type,
        content: event.content, tokens: (event.token_usage || {}).total_tokens || 0 };
    case "stage_start":
      return { node: event.stage, kind: "stage", content: `start ${event.detail || ""}`.trim() };
    case "stage_end":
      return { node: event.stage, kind: "stage", content:
        `end (${event.seconds}s${event.ok ? "" : ", failed"}) ${event.output || ""}`.trim() };
    case "llm_call":
      return { node: event.stage || "model", kind: "llm", content: `${event.model} ` +
        `(${event.prompt_tokens} in, ${event.completion_tokens} out, ${event.seconds}s)`,
        tokens: event.prompt_tokens + event.completion_tokens, llm: true };
    case "tool_call":
      return { node: "tool", kind: "tool_call", content:
        `${event.tool}(${JSON.stringify(event.arguments)}) → ${event.result}` };
    case "test_result":
      return { node: "tests", kind: "tests", content:
        `${event.passed} passed, ${event.failed} failed, ${event.errors} errors` };
    case "diff":
      return { node: "diff", kind: "diff", content: event.path };
    case "approval_request":
      return { node: "approval", kind: "approval", content: `${event.subject}: ${event.detail}` };
    case "progress":
      return { node: "progress", kind: "progress", content:
        `${event.done}/${event.total} ${event.message}` };
    case "error":
      return { node: event.where || "error", kind: "error", content: event.message };
    default:
      return { node: event.type, kind: event.type, content: JSON.stringify(event) };
  }
}

// What the clipped box (6 lines of 12px text, CSS) cannot show whole.
const CLIP_LINES = 5;
const CLIP_CHARS = 400;
export function isLong(text) {
  return text.length > CLIP_CHARS || text.split("\n").length > CLIP_LINES;
}

// A filter's option for `value`, once (values are event data: set as text, never HTML).
function addOption(select, value) {
  if (!value || [...select.options].some((o) => o.value === value)) return;
  select.append(h("option", { value }, value));
}

export class DebugPanel {
  constructor() {
    this.lines = [];
    this.filters = { node: "", kind: "" };
    this.totals = new Map();  // node -> tokens (model calls; debug logs when no model calls)
    this.hasLLMCalls = false;
    this.nodeSelect = h("select", { class: "filter-node", onchange: (e) => {
      this.filters.node = e.target.value; this.redraw(); } }, h("option", { value: "" }, "all nodes"));
    // Both filters list what the run's events hold (a kind or node is added when first seen).
    this.kindSelect = h("select", { class: "filter-type", onchange: (e) => {
      this.filters.kind = e.target.value; this.redraw(); } }, h("option", { value: "" }, "all types"));
    this.log = h("ol", { class: "debug-log", id: "debug-log" });
    this.totalsBox = h("table", { class: "debug-totals", id: "debug-totals" });
    this.count = h("span", { class: "muted" });
    this.element = h("section", { class: "card debug-panel", id: "debug-panel", hidden: true },
      h("h3", {}, "DebugPanel ", this.count),
      h("div", { class: "toolbar" }, this.nodeSelect, this.kindSelect), this.totalsBox, this.log);
    this.toggleButton = h("button", { id: "toggle-debug", onclick: () => this.toggle() },
      "Show DebugPanel");
  }

  toggle() {
    this.element.hidden = !this.element.hidden;
    this.toggleButton.textContent = this.element.hidden ? "Show DebugPanel" : "Hide DebugPanel";
    // It sits below the job's view: opened, it is brought to where it is seen.
    if (!this.element.hidden) this.element.scrollIntoView({ block: "start" });
  }

  add(event) {
    const line = { ...lineOf(event), ts: event.ts, seq: event.seq };
    this.lines.push(line);
    addOption(this.nodeSelect, line.node);
    addOption(this.kindSelect, line.kind);
    if (line.llm && !this.hasLLMCalls) { this.hasLLMCalls = true; this.totals.clear();
      for (const old of this.lines) if (old.llm) this.count_(old); }
    else if (line.llm || !this.hasLLMCalls) this.count_(line);
    this.drawTotals();
    this.count.textContent = `${this.lines.length} events`;
    if (this.matches(line)) this.log.append(this.row(line));
  }

  count_(line) {
    if (!line.tokens) return;
    this.totals.set(line.node, (this.totals.get(line.node) || 0) + line.tokens);
  }

  matches(line) {
    return (!this.filters.node || line.node === this.filters.node) &&
      (!this.filters.kind || line.kind === this.filters.kind);
  }

  row(line) {
    const text = String(line.content || "");
    const body = h("span", { class: "text" }, text);
    const content = h("span", { class: "content" }, body);
    // A long line (a prompt, a reply) is shown clipped, with a button that unfolds it whole.
    if (isLong(text)) {
      const lines = text.split("\n").length;
      body.classList.add("clipped");
      const more = h("button", { class: "expand", type: "button", onclick: () => {
        const open = body.classList.toggle("expanded");
        more.textContent = open ? "less" : `more (${lines} lines)`;
      } }, `more (${lines} lines)`);
      content.append(more);
    }
    return h("li", { class: `debug-line kind-${line.kind}`, dataset: { seq: line.seq } },
      h("span", { class: "time" }, fmtTime(line.ts)),
      h("span", { class: "node" }, line.agent ? `${line.node}/${line.agent}` : line.node),
      h("span", { class: `icon tag-${line.kind}`, title: line.kind }, ICONS[line.kind] || line.kind),
      content,
      h("span", { class: "tokens" }, line.tokens ? `${line.tokens} tok` : ""));
  }

  redraw() {
    clear(this.log);
    for (const line of this.lines) if (this.matches(line)) this.log.append(this.row(line));
  }

  drawTotals() {
    clear(this.totalsBox);
    if (!this.totals.size) return;
    let sum = 0;
    this.totalsBox.append(h("tr", {}, h("th", {}, "Node"), h("th", {}, "Tokens")));
    for (const [node, tokens] of this.totals) {
      sum += tokens;
      this.totalsBox.append(h("tr", {}, h("td", {}, node), h("td", { class: "num" }, tokens)));
    }
    this.totalsBox.append(h("tr", { class: "total" }, h("td", {}, "total"),
      h("td", { class: "num" }, sum)));
  }
}
