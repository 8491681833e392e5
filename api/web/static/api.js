// The page's only way to the server: the same /v1 API as any client, with the caller's token.
// The token lives in sessionStorage (this tab only), never in localStorage or a cookie.

const TOKEN_KEY = "senki.token";

export function savedToken() {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function saveToken(token) {
  sessionStorage.setItem(TOKEN_KEY, token);
}

/**
 * A sign-in link (`/table/encounters/{id}#token=…`, as `senki demo` prints it): keep the token
 * for this tab and take it out of the address at once, so it stays in no history entry or
 * bookmark. A fragment is never sent in a request (nor in a Referer), so the token reaches no
 * server or proxy log. True when the address carried a token.
 */
export function takeTokenFromAddress() {
  const token = new URLSearchParams(location.hash.slice(1)).get("token");
  if (!token) return false;
  saveToken(token);
  history.replaceState(null, "", location.pathname + location.search);
  return true;
}

export function forgetToken() {
  sessionStorage.removeItem(TOKEN_KEY);
}

/** An error answer, with the problem detail (RFC 9457) the server gave. */
export class ApiError extends Error {
  constructor(status, detail) {
    super(detail);
    this.status = status;
  }
}

function headers(extra = {}) {
  const token = savedToken();
  return token ? { Authorization: `Bearer ${token}`, ...extra } : { ...extra };
}

async function answer(response) {
  if (response.ok) return response.status === 204 ? null : response.json();
  let detail = `${response.status} ${response.statusText}`;
  try {
    const problem = await response.json();
    // A refusal carries its Japanese words too (detail_ja): the page's language picks one.
    const ja = document.documentElement.lang === "ja" && problem.detail_ja;
    detail = ja || problem.detail || problem.title || detail;
  } catch {
    // not JSON: keep the status line
  }
  throw new ApiError(response.status, detail);
}

export async function get(path) {
  return answer(await fetch(path, { headers: headers({ Accept: "application/json" }) }));
}

/** A write: every one carries a fresh Idempotency-Key, so a retry never appends twice. */
export async function post(path, body) {
  const sent = headers({
    "Content-Type": "application/json",
    Accept: "application/json",
    "Idempotency-Key": crypto.randomUUID(),
  });
  return answer(await fetch(path, { method: "POST", headers: sent, body: JSON.stringify(body) }));
}

/** Which optional endpoints this server offers, read from its OpenAPI (no probing by 404). */
export async function offered() {
  try {
    const spec = await answer(await fetch("/openapi.json"));
    return new Set(Object.keys(spec.paths || {}));
  } catch {
    return new Set();
  }
}

/**
 * Follow a Server-Sent Events stream with the token in a header (EventSource cannot send one),
 * resuming with Last-Event-ID after a drop. `onEvent(data)` gets each parsed `data:` payload.
 */
export function follow(path, lastId, onEvent, onState) {
  const stop = new AbortController();
  let last = lastId;
  const run = async () => {
    while (!stop.signal.aborted) {
      try {
        const response = await fetch(path, {
          headers: headers({ Accept: "text/event-stream", "Last-Event-ID": String(last) }),
          signal: stop.signal,
        });
        if (response.status === 401 || response.status === 403) {
          onState("denied");
          return;
        }
        if (!response.ok || !response.body) throw new Error(`stream ${response.status}`);
        onState("live");
        last = await readFrames(response.body, last, onEvent);
      } catch (error) {
        if (stop.signal.aborted) return;
        onState("reconnecting");
      }
      await new Promise((done) => setTimeout(done, 1000));
    }
  };
  run();
  return () => stop.abort();
}

async function readFrames(body, last, onEvent) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return last;
    buffer += value.replaceAll("\r\n", "\n");
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let id = null;
      let kind = "";
      const data = [];
      for (const line of frame.split("\n")) {
        if (line.startsWith("id:")) id = line.slice(3).trim();
        else if (line.startsWith("event:")) kind = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
      }
      // `closed` is the server ending the stream (token revoked, shutdown), not an event of
      // the fight: the stream ends right after it and `follow` reconnects (or hears 401).
      if (data.length && kind !== "closed") onEvent(JSON.parse(data.join("\n")));
      if (id !== null) last = id;
    }
  }
}

/** A command in an encounter, at the version the caller saw (If-Match: a stale page is told). */
export async function command(encounterId, version, body) {
  const sent = headers({
    "Content-Type": "application/json",
    Accept: "application/json",
    "Idempotency-Key": crypto.randomUUID(),
    "If-Match": `"${version}"`,
  });
  const path = `/v1/encounters/${encounterId}/commands`;
  return answer(await fetch(path, { method: "POST", headers: sent, body: JSON.stringify(body) }));
}

/** A PUT to an aggregate at the version the caller read (If-Match), with a fresh key. */
export async function put(path, version, body) {
  const sent = headers({
    "Content-Type": "application/json",
    Accept: "application/json",
    "Idempotency-Key": crypto.randomUUID(),
    "If-Match": `"${version}"`,
  });
  return answer(await fetch(path, { method: "PUT", headers: sent, body: JSON.stringify(body) }));
}
