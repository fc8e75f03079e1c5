// The one way the UI talks to the API: JSON in, JSON out, errors as {error, detail}.

export class ApiError extends Error {
  constructor(status, body) {
    super(body && body.detail ? body.detail : `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

export async function api(path, { method = "GET", body } = {}) {
  const options = { method, credentials: "same-origin", headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  if (response.status === 401) {
    window.location.href = "/login";
    throw new ApiError(401, { detail: "log in first" });
  }
  let data = null;
  try { data = await response.json(); } catch { data = null; }
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

// A run's event stream: calls onEvent(event) for each stored event (replayed, then live),
// onEnd(status) when the run has ended. EventSource reconnects by itself with
// Last-Event-ID, so nothing is lost or shown twice across a dropped connection.
export function streamRun(runId, { onEvent, onEnd }) {
  const source = new EventSource(`/api/runs/${encodeURIComponent(runId)}/events`);
  const seen = new Set();
  source.addEventListener("message", (msg) => {
    const event = JSON.parse(msg.data);
    if (seen.has(event.seq)) return;
    seen.add(event.seq);
    onEvent(event);
  });
  source.addEventListener("end", (msg) => {
    source.close();
    onEnd && onEnd(JSON.parse(msg.data).status);
  });
  return () => source.close();
}
