// Runs: the list (job, status and outcome, what was asked, model, tokens, age), filters and
// paging, and the form that starts a job.
import { api } from "./api.js";
import { clear, fmtAge, h, statusBadge } from "./dom.js";
import { ASK_FORM, askParams } from "./ask_view.js";

const PAGE = 20;
// The one status set of every run (run_statuses.py); the job's own result is its outcome.
const STATUSES = ["", "queued", "running", "awaiting_approval", "succeeded", "failed",
  "cancelled", "interrupted"];
// Outcomes of a succeeded run that no test judged: shown as a caution, never plain green.
const CAUTION_OUTCOMES = ["untested"];

const statusLabel = (status) => String(status).replace(/_/g, " ");

// The status badge in people's words, and the job's outcome beside it.
function statusCell(run) {
  const badge = statusBadge(run.status);
  badge.textContent = statusLabel(run.status);
  if (run.status === "succeeded" && CAUTION_OUTCOMES.includes(run.outcome)) {
    badge.classList.add("status-caveat");
  }
  return h("td", { class: "status" }, badge,
    run.outcome ? h("span", { class: "outcome muted" }, run.outcome) : "");
}

// [name, label, kind, placeholder, required]. Every field starts empty: a placeholder only
// shows what goes there, so no click can start a job on a directory nobody chose.
const FORMS = {
  solve: [
    ["task_id", "Task id (optional)", "input", "e.g. add", false],
    ["signature", "Signature", "input", "e.g. def add(a, b)", true],
    ["docstring", "Docstring", "textarea", "e.g. Return the sum of a and b.", true],
    ["examples", "Examples", "textarea", "e.g. add(1, 2) == 3", false],
  ],
  review: [
    ["workspace", "Workspace", "input", "a directory under a root, e.g. my-project", true],
    ["request", "Change request", "textarea", "e.g. Implement input validation", false],
    ["files", "Files (comma separated)", "input", "e.g. app.py, util.py", false],
    ["git_rev", "Git revision (optional)", "input", "e.g. HEAD~1 or WORKTREE", false],
  ],
  agent: [
    ["workspace", "Workspace (a git repository)", "input",
      "a directory under a root, e.g. my-project", true],
    ["request", "Request", "textarea", "e.g. Add a docstring to every function", true],
    ["init_git", "Not a git repository yet: make it one (git init, then a first commit of " +
      "every file there)", "checkbox", "", false],
  ],
  build: [
    ["out_dir", "New project directory (under a root; new or empty)", "input",
      "e.g. my-project", true],
    ["stack", "Stack (optional)", "input", "e.g. python-api", false],
    ["tasks", "Task graph (JSON)", "textarea", JSON.stringify({ tasks: [
      { id: "T1", description: "A function add(a, b) in app/calc.py", depends_on: [] }] },
    null, 1), true],
  ],
  ask: ASK_FORM,
};

const crop = (text, width = 60) => {
  const value = String(text || "");
  return value.length <= width ? value : value.slice(0, width - 1) + "…";
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
  if (job === "ask") return askParams(value, model);
  if (job === "build") {
    let request;
    try { request = JSON.parse(value("tasks")); }
    catch (err) { throw new Error(`the task graph is not JSON: ${err.message}`); }
    return { out_dir: value("out_dir"), request, stack: value("stack") || undefined, model };
  }
  return { workspace: value("workspace"), request: value("request"), model,
    init_git: Boolean(form.elements.init_git && form.elements.init_git.checked) };
}

function field(name, kind, placeholder, required) {
  if (kind === "checkbox") return h("input", { name, type: "checkbox" });
  const attrs = { name, placeholder, required };
  if (kind === "textarea") return h("textarea", { ...attrs, rows: name === "tasks" ? 8 : 3 });
  return h("input", attrs);
}

function startForm(info, onStarted) {
  const jobs = (info && info.jobs) || Object.keys(FORMS);
  const fields = h("div", { class: "fields" });
  const error = h("p", { class: "error", role: "alert" });
  const select = h("select", { name: "job", id: "start-job" },
    jobs.filter((j) => FORMS[j]).map((j) => h("option", { value: j }, j)));
  const form = h("form", { class: "card start-form", id: "start-form" },
    h("h2", {}, "Start a job"),
    h("label", {}, "Job ", select), fields,
    h("label", {}, "Model (optional) ", h("input", { name: "model", placeholder:
      info ? info.model : "" })),
    h("button", { type: "submit" }, "Start"), error);
  const fill = () => {
    clear(fields);
    for (const [name, label, kind, placeholder, required] of FORMS[select.value]) {
      const input = field(name, kind, placeholder, required);
      fields.append(kind === "checkbox" ? h("label", {}, input, " " + label)
        : h("label", {}, label + " ", input));
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

// `info`: the server's /api/info (jobs, model), from app.js.
export async function renderRuns(view, info) {
  let offset = 0;
  const filters = { job: "", status: "" };
  const body = h("tbody");
  const pager = h("span", { class: "muted" });
  const table = h("table", { class: "runs", id: "runs-table" },
    h("thead", {}, h("tr", {}, ["Run", "Job", "Status", "Asked", "Model", "Tokens", "Age"].map(
      (c) => h("th", {}, c)))), body);
  const jobFilter = h("select", { onchange: (e) => { filters.job = e.target.value; offset = 0;
    refresh(); } }, ["", "solve", "review", "agent", "build", "ask"].map(
    (j) => h("option", { value: j }, j || "all jobs")));
  const statusFilter = h("select", { onchange: (e) => { filters.status = e.target.value;
    offset = 0; refresh(); } }, STATUSES.map((s) => h("option", { value: s },
    s ? statusLabel(s) : "any status")));
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
        statusCell(run), h("td", { class: "asked", title: run.asked || "" }, crop(run.asked)),
        h("td", { class: "model" }, run.model || ""),
        h("td", { class: "num" }, run.tokens), h("td", { class: "num" }, fmtAge(run.age_seconds))));
    }
    if (!data.runs.length) body.append(h("tr", {}, h("td", { colspan: 7, class: "muted" },
      "No runs yet.")));
    pager.textContent = `${data.total ? offset + 1 : 0}–${offset + data.runs.length} of ${data.total}`;
    prev.disabled = offset === 0;
    next.disabled = offset + data.runs.length >= data.total;
  }

  view.append(h("div", { class: "runs-page" },
    h("section", { class: "card" }, h("h2", {}, "Runs"),
      h("div", { class: "toolbar" }, jobFilter, statusFilter, prev, next, pager), table),
    startForm(info, (runId) => { window.location.hash = `#/runs/${runId}`; })));
  await refresh();
  const timer = setInterval(() => refresh().catch(() => {}), 2000);
  return () => clearInterval(timer);
}
