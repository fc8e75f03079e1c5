// Characters that hide text or change how it is laid out (Trojan Source: a bidi override
// makes `return true` read as part of a comment) are shown as visible markers, never drawn
// raw. The rule is textsafe.py's: every control (Cc) but tab and newline, every format
// character (Cf: bidi embeddings, overrides, isolates and marks, zero-width characters, the
// BOM ...), and the line and paragraph separators (Zl, Zp).
import { h } from "./dom.js";

const HIDDEN = /(?![\t\n])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
const HIDDEN_ALL = new RegExp(HIDDEN.source, "gu");

export function markerText(char) {
  return `⟪U+${char.codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}⟫`;
}

// The text as nodes for h(): plain strings, and a styled span per hidden character.
export function visible(text) {
  const value = String(text ?? "");
  if (!HIDDEN.test(value)) return [value];
  const out = [];
  let last = 0;
  for (const match of value.matchAll(HIDDEN_ALL)) {
    if (match.index > last) out.push(value.slice(last, match.index));
    out.push(h("span", { class: "hidden-char", title: "an invisible or layout-changing " +
      "character the file holds" }, markerText(match[0])));
    last = match.index + match[0].length;
  }
  if (last < value.length) out.push(value.slice(last));
  return out;
}
