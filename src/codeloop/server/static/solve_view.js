// The solve job: its stages as they run, then the final code, the verdict and the metrics.
import { clear, h } from "./dom.js";

export class SolveView {
  constructor() {
    this.stages = new Map();
    this.stageList = h("ol", { class: "stages", id: "solve-stages" });
    this.resultBox = h("div", { class: "solve-result" });
    this.element = h("section", { class: "card solve-view", id: "solve-view" },
      h("h3", {}, "Stages"), this.stageList, this.resultBox);
  }

  onEvent(event) {
    if (event.type !== "stage_start" && event.type !== "stage_end") return;
    const key = `${event.stage}`;
    let item = this.stages.get(key);
    if (event.type === "stage_start") {
      item = h("li", { class: "stage running" }, h("b", {}, event.stage), " ",
        h("span", { class: "muted" }, event.detail || ""), " ", h("span", { class: "state" }, "…"));
      this.stages.set(key, item);
      this.stageList.append(item);
    } else if (item) {
      item.className = `stage ${event.ok ? "done" : "failed"}`;
      item.querySelector(".state").textContent = `${event.ok ? "✓" : "✗"} ${event.seconds}s`;
    }
  }

  setResult(result) {
    clear(this.resultBox);
    if (!result || !result.verdict) return;
    const metrics = result.quality_metrics || {};
    const review = result.review || {};
    const ran = result.exec_result || {};
    // No test ran: never shown as a pass; the reason says why (examples that do not call
    // the function, or none at all).
    const untested = Boolean(result.untested_reason);
    const verdictClass = result.passed ? "pass" : untested ? "untested" : "fail";
    const tested = ran.total ? `${ran.passed}/${ran.total} tests passed` : "no tests to run";
    // What the CLI lists under the verdict: every failure, then every warning.
    const notes = [
      ...(review.issues || []).map((text) => h("li", { class: "issue" }, String(text))),
      ...(review.warnings || []).map((text) => h("li", { class: "warning" },
        h("b", {}, "warning: "), String(text))),
    ];
    this.resultBox.append(
      h("p", { class: `verdict ${verdictClass}`, id: "solve-verdict" },
        result.verdict, ` · ${tested} · ${result.refinement_count} refinement(s)`),
      untested ? h("p", { class: "untested-reason", id: "solve-untested" },
        `untested: ${result.untested_reason}`) : "",
      notes.length ? h("ul", { class: "solve-notes", id: "solve-notes" }, notes) : "",
      h("h3", {}, "Code"), h("pre", { class: "code", id: "solve-code" }, result.code || ""),
      h("h3", {}, "Metrics"),
      h("table", { class: "metrics", id: "solve-metrics" },
        // A figure the metrics do not have (null: no syntax error) is left out, not "null".
        Object.entries(metrics).filter(([, v]) => v !== null && typeof v !== "object")
          .map(([k, v]) => h("tr", {}, h("td", {}, k), h("td", { class: "num" }, String(v))))));
  }
}
