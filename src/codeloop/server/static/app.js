// The web UI: hash routes, #/runs (the list and the start form) and #/runs/ID (one run).
import { api } from "./api.js";
import { clear, h } from "./dom.js";
import { renderRuns } from "./runs.js";
import { renderRun } from "./run.js";

const view = document.getElementById("view");
let teardown = null;
// The server's /api/info, handed to the views that need it (no view imports this module).
const server = { info: null };

async function route() {
  if (teardown) { teardown(); teardown = null; }
  clear(view);
  const hash = window.location.hash || "#/runs";
  const match = hash.match(/^#\/runs\/([A-Za-z0-9._-]+)$/);
  try {
    teardown = match ? await renderRun(view, match[1]) : await renderRuns(view, server.info);
  } catch (err) {
    view.append(h("p", { class: "error" }, String(err.message || err)));
  }
}

async function start() {
  try {
    server.info = await api("/api/info");
    document.getElementById("server-info").textContent =
      `model ${server.info.model} · roots ${server.info.roots.join(", ")}`;
  } catch (err) {
    view.append(h("p", { class: "error" }, String(err.message || err)));
  }
  window.addEventListener("hashchange", route);
  route();
}

start();
