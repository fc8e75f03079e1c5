// Runs: the list (job, status, model, tokens, age), filters and paging, and the form that
// starts a job.
import { api } from "./api.js";
import { clear, fmtAge, h, statusBadge } from "./dom.js";
import { server } from "./app.js";

const PAGE = 20;
const STATUSES = ["", "running", "queued", "awaiting_approval", "applied", "passed", "failed",
  "done", "error", "cancelled", "interrupted", "rejected", "blocked", "restarted"];

const FORMS = {
  solve: [
    ["task_id", "Task id", "input", "add"],
    ["signature", "Signature", "input", "def add(a, b)"],
    ["docstring", "Docstring", "textarea", "Return the sum of a and b."],
    ["examples", "Examples", "textarea", "add(1, 2) == 3"],
  ],
  review: [
    ["workspace", "Workspace", "input", "."],
    ["request", "Change request", "textarea", "Implement input validation"],
    ["files", "Files (comma separated)", "input", ""],
    ["git_rev", "Git revision (optional)", "input", ""],
  ],
  agent: [
    ["workspace", "Workspace", "input", "."],
    ["request", "Request", "textarea", "Add a docstring to every function"],
  ],
  build: [
    ["out_dir", "New project directory (under a root)", "input", "my-project"],
    ["stack", "Stack (optional)", "input", "python-api"],
    ["tasks", "Task graph (JSON)", "textarea", JSON.stringify({ tasks: [
      { id: "T1", description: "A function add(a, b) in app/calc.py", depends_on: [] }] },
    null, 1)],
  ],
};

function paramsFrom(job, form) {
  const value = (name) => (form.elements[name] ? form.elements[name].value.trim() : "");
  const model = value("model") || undefined;
  if (job === "solve") {
    return { task: { task_id: value("task_id") || "task", signature: value("signature"),
      docstring: value("docstring"), examples: value("examples") }, model };
  }
  if (job === "review") {
    const files = value("files").split(",").map((f) => f.trim()).filter(Boolean);
    return { workspace: value("workspace"), request: value("request") || undefined, files,
      git_rev: value("git_rev") || undefined, model };
  }
  if (job === "build") {
    let request;
    try { request = JSON.parse(value("tasks")); }
    catch (err) { throw new Error(`the task graph is not JSON: ${err.message}`); }
    return { out_dir: value("out_dir"), request, stack: value("stack") || undefined, model };
  }
  return { workspace: value("workspace"), request: value("request"), model };
}

function startForm(onStarted) {
  const jobs = (server.info && server.info.jobs) || Object.keys(FORMS);
  const fields = h("div", { class: "fields" });
  const error = h("p", { class: "error", role: "alert" });
  const select = h("select", { name: "job", id: "start-job" },
    jobs.filter((j) => FORMS[j]).map((j) => h("option", { value: j }, j)));
  const form = h("form", { class: "card start-form", id: "start-form" },
    h("h2", {}, "Start a job"),
    h("label", {}, "Job ", select), fields,
    h("label", {}, "Model (optional) ", h("input", { name: "model", placeholder:
      server.info ? server.info.model : "" })),
    h("button", { type: "submit" }, "Start"), error);
  const fill = () => {
    clear(fields);
    for (const [name, label, kind, example] of FORMS[select.value]) {
      const input = kind === "textarea"
        ? h("textarea", { name, rows: name === "tasks" ? 8 : 3 }, example)
        : h("input", { name, value: example });
      fields.append(h("label", {}, label + " ", input));
    }
  };
  select.addEventListener("change", fill);
  fill();
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    error.textContent = "";
    try {
      const started = await api("/api/runs", { method: "POST",
        body: { job: select.value, params: paramsFrom(select.value, form) } });
      onStarted(started.run_id);
    } catch (err) {
      error.textContent = err.message;
    }
  });
  return form;
}

export async function renderRuns(view) {
  let offset = 0;
  const filters = { job: "", status: "" };
  const body = h("tbody");
  const pager = h("span", { class: "muted" });
  const table = h("table", { class: "runs", id: "runs-table" },
    h("thead", {}, h("tr", {}, ["Run", "Job", "Status", "Model", "Tokens", "Age"].map(
      (c) => h("th", {}, c)))), body);
  const jobFilter = h("select", { onchange: (e) => { filters.job = e.target.value; offset = 0;
    refresh(); } }, ["", "solve", "review", "agent", "build", "ask"].map(
    (j) => h("option", { value: j }, j || "all jobs")));
  const statusFilter = h("select", { onchange: (e) => { filters.status = e.target.value;
    offset = 0; refresh(); } }, STATUSES.map((s) => h("option", { value: s }, s || "any status")));
  const prev = h("button", { onclick: () => { offset = Math.max(0, offset - PAGE); refresh(); } },
    "‹ Newer");
  const next = h("button", { onclick: () => { offset += PAGE; refresh(); } }, "Older ›");

  async function refresh() {
    const query = new URLSearchParams({ limit: PAGE, offset });
    if (filters.job) query.set("job", filters.job);
    if (filters.status) query.set("status", filters.status);
    const data = await api(`/api/runs?${query}`);
    clear(body);
    for (const run of data.runs) {
      body.append(h("tr", { class: "run-row", dataset: { runId: run.id },
        onclick: () => { window.location.hash = `#/runs/${run.id}`; } },
        h("td", {}, h("a", { href: `#/runs/${run.id}` }, run.id)), h("td", {}, run.job),
        h("td", {}, statusBadge(run.status)), h("td", { class: "model" }, run.model || ""),
        h("td", { class: "num" }, run.tokens), h("td", { class: "num" }, fmtAge(run.age_seconds))));
    }
    if (!data.runs.length) body.append(h("tr", {}, h("td", { colspan: 6, class: "muted" },
      "No runs yet.")));
    pager.textContent = `${data.total ? offset + 1 : 0}–${offset + data.runs.length} of ${data.total}`;
    prev.disabled = offset === 0;
    next.disabled = offset + data.runs.length >= data.total;
  }

  view.append(h("div", { class: "runs-page" },
    h("section", { class: "card" }, h("h2", {}, "Runs"),
      h("div", { class: "toolbar" }, jobFilter, statusFilter, prev, next, pager), table),
    startForm((runId) => { window.location.hash = `#/runs/${runId}`; })));
  await refresh();
  const timer = setInterval(() => refresh().catch(() => {}), 2000);
  return () => clearInterval(timer);
}
