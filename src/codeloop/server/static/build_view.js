// The build job: a progress bar, the tasks by dependency level with their status, and the
// project's files (each opens as text).
import { api } from "./api.js";
import { clear, h } from "./dom.js";

// Level of each task: 0 for no dependencies, else one more than its deepest dependency.
export function levels(tasks) {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const memo = new Map();
  const level = (id, seen = new Set()) => {
    if (memo.has(id)) return memo.get(id);
    if (seen.has(id)) return 0;
    seen.add(id);
    const deps = (byId.get(id) || {}).depends_on || [];
    const value = deps.length ? 1 + Math.max(...deps.map((d) => level(d, seen))) : 0;
    memo.set(id, value);
    return value;
  };
  const out = [];
  for (const task of tasks) {
    const l = level(task.id);
    (out[l] = out[l] || []).push(task);
  }
  return out;
}

// A blocked task (its retries used up, or a dependency not merged) is in failed_tasks too,
// with the reason: it is shown as blocked, the reason beside it.
export function taskState(id, status) {
  if (status.completed_tasks.includes(id)) return "completed";
  if (status.blocked_tasks.includes(id)) return "blocked";
  if (id in status.failed_tasks) return "failed";
  if (status.current_tasks.includes(id)) return "running";
  return "pending";
}

export class BuildView {
  constructor() {
    this.bar = h("div");  // its width is set through the CSSOM (the page's CSP has no inline style)
    this.bar.style.width = "0%";
    this.label = h("span", { class: "muted" });
    this.tasks = h("div", { class: "build-levels", id: "build-levels" });
    this.files = h("ul", { class: "build-files", id: "build-files" });
    this.viewer = h("pre", { class: "code", id: "build-file", hidden: true });
    this.element = h("section", { class: "card build-view", id: "build-view" },
      h("h3", {}, "Build ", this.label), h("div", { class: "progress" }, this.bar),
      h("h3", {}, "Tasks by dependency level"), this.tasks,
      h("h3", {}, "Files"), this.files, this.viewer);
  }

  async update(run) {
    const status = run.build;
    if (!status) return;
    this.bar.style.width = `${status.progress}%`;
    const blocked = status.blocked_tasks.length;
    const failed = Object.keys(status.failed_tasks)
      .filter((id) => !status.blocked_tasks.includes(id)).length;
    this.label.textContent = `${status.status} · ${status.progress}% · ` +
      `${status.completed_tasks.length}/${status.total_tasks} tasks` +
      (blocked ? ` · ${blocked} blocked` : "") + (failed ? ` · ${failed} failed` : "");
    const tasks = ((run.input || {}).request || {}).tasks || [];
    clear(this.tasks);
    levels(tasks).forEach((group, index) => {
      this.tasks.append(h("div", { class: "level" }, h("b", {}, `Level ${index}`),
        h("ul", {}, (group || []).map((t) => {
          const state = taskState(t.id, status);
          const why = status.failed_tasks[t.id];
          return h("li", { class: `task task-${state}`, dataset: { task: t.id } },
            h("span", { class: `badge status-${state}` }, state), " ", h("b", {}, t.id), " ",
            t.description, why ? h("div", { class: state === "blocked" ? "why-blocked" : "error" },
              String(why)) : null);
        }))));
    });
    if (run.project_id && !run.live) await this.listFiles(run.project_id);
  }

  async listFiles(project) {
    const base = `/api/codegen/projects/${encodeURIComponent(project)}`;
    let files = [];
    try { files = await api(`${base}/files`); } catch { return; }
    clear(this.files);
    for (const file of files) {
      this.files.append(h("li", {}, h("a", { href: "#", onclick: async (ev) => {
        ev.preventDefault();
        const response = await fetch(`${base}/files/${file.path.split("/")
          .map(encodeURIComponent).join("/")}`, { credentials: "same-origin" });
        this.viewer.hidden = false;
        this.viewer.textContent = await response.text();
      } }, file.path), h("span", { class: "muted" }, ` ${file.size} B`)));
    }
  }
}
