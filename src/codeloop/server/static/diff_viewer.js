// DiffViewer: a review's pending diffs, unified or side by side, the +/- counts and the
// description per file, and Approve / Reject with a message. Hidden characters (controls,
// bidi overrides, zero-width) show as markers; a decision names the digest of the diffs
// shown, so the server refuses it when the pending change is no longer this one.
import { clear, h } from "./dom.js";
import { visible } from "./hidden_chars.js";

// The unified hunks as rows for two columns: context on both sides, removed lines left,
// added lines right, a block of removals paired with the additions that follow it.
export function sideBySide(unified) {
  const rows = [];
  let minus = [];
  let plus = [];
  const flush = () => {
    for (let i = 0; i < Math.max(minus.length, plus.length); i++) {
      rows.push({ left: minus[i] ?? null, right: plus[i] ?? null, kind: "change" });
    }
    minus = []; plus = [];
  };
  for (const line of (unified || "").split("\n")) {
    if (line.startsWith("---") || line.startsWith("+++")) continue;
    if (line.startsWith("@@")) { flush(); rows.push({ left: line, right: line, kind: "hunk" }); }
    else if (line.startsWith("-")) minus.push(line.slice(1));
    else if (line.startsWith("+")) plus.push(line.slice(1));
    else { flush(); if (line !== "" || rows.length) rows.push({ left: line.slice(1),
      right: line.slice(1), kind: "context" }); }
  }
  flush();
  return rows;
}

function unifiedView(text) {
  return h("pre", { class: "diff unified" }, (text || "").split("\n").map((line) => h("span", {
    class: line.startsWith("+++") || line.startsWith("---") ? "hdr"
      : line.startsWith("@@") ? "hunk" : line.startsWith("+") ? "add"
      : line.startsWith("-") ? "del" : "ctx" }, visible(line), "\n")));
}

function splitView(text) {
  return h("table", { class: "diff split" }, sideBySide(text).map((row) => h("tr",
    { class: row.kind },
    h("td", { class: row.left === null ? "empty" : row.kind === "change" ? "del" : "" },
      visible(row.left ?? "")),
    h("td", { class: row.right === null ? "empty" : row.kind === "change" ? "add" : "" },
      visible(row.right ?? "")))));
}

export class DiffViewer {
  constructor(run, decide) {
    this.mode = "unified";
    this.files = h("div", { class: "diff-files" });
    this.diffs = run.pending_diffs;
    this.digest = run.diff_digest;
    const message = h("textarea", { id: "decision-message", rows: 2,
      placeholder: "A message for the record (why you approve or reject)" });
    const error = h("p", { class: "error", role: "alert" });
    const act = (approved) => async () => {
      error.textContent = "";
      buttons.forEach((b) => { b.disabled = true; });
      try { await decide(approved, message.value, this.digest); }
      catch (err) { error.textContent = err.message; buttons.forEach((b) => { b.disabled = false; }); }
    };
    const buttons = [
      h("button", { id: "approve", class: "approve", onclick: act(true) }, "Approve"),
      h("button", { id: "reject", class: "reject", onclick: act(false) }, "Reject"),
    ];
    const modeButton = h("button", { id: "diff-mode", onclick: () => {
      this.mode = this.mode === "unified" ? "split" : "unified";
      modeButton.textContent = this.mode === "unified" ? "Side by side" : "Unified";
      this.draw();
    } }, "Side by side");
    const added = this.diffs.reduce((n, d) => n + (d.added || 0), 0);
    const removed = this.diffs.reduce((n, d) => n + (d.removed || 0), 0);
    this.element = h("section", { class: "card diff-viewer", id: "diff-viewer" },
      h("h3", {}, `DiffViewer: ${this.diffs.length} file(s) `,
        h("span", { class: "add" }, `+${added}`), " ", h("span", { class: "del" }, `−${removed}`)),
      h("div", { class: "toolbar" }, modeButton,
        h("span", { class: "muted digest", title: "sha256 of the diffs shown; an approval " +
          "names it" }, `digest ${String(this.digest || "").slice(0, 12)}`)), this.files,
      h("div", { class: "decision" }, message, buttons, error));
    this.draw();
  }

  draw() {
    clear(this.files);
    for (const diff of this.diffs) {
      this.files.append(h("details", { class: "diff-file", open: true },
        h("summary", {}, h("span", { class: "path" }, visible(diff.file_path)), " ",
          h("span", { class: "add" }, `+${diff.added || 0}`), " ",
          h("span", { class: "del" }, `−${diff.removed || 0}`)),
        diff.description ? h("p", { class: "description" }, visible(diff.description)) : null,
        this.mode === "unified" ? unifiedView(diff.diff_hunks) : splitView(diff.diff_hunks)));
    }
  }
}
