// A roll log at the table: every roll in BCDice's own text, a form to roll (server dice or dice
// rolled by hand), the GM's reveal, and each roll's check against the revealed seed. A secret
// roll the reader may not see yet arrives from the server already withheld (docs/visibility.md):
// the page shows only that it happened.

import { wireAccess } from "./access.js";
import { ApiError, get, offered, post, savedToken, takeTokenFromAddress } from "./api.js";
import { node } from "./dom.js";
import { t, translatePage } from "./i18n.js";
import { can, loadMe } from "./roles.js";

const $ = (id) => document.getElementById(id);
const POLL_MS = 2000;
// Highlighted in this order: a critical is also a success, a fumble also a failure.
const FLAGS = ["critical", "fumble", "success", "failure"];

const page = {
  lang: sessionStorage.getItem("senki.lang") || (navigator.language.startsWith("ja") ? "ja" : "en"),
  logId: null,
  campaignId: null, // the campaign's page: its logs, from the address
  logs: null, // GET /v1/campaigns/{id}/rolls/logs
  log: null, // GET /v1/roll-logs/{id}, as redacted for this token
  checks: null, // roll_seq -> check, once the seed is revealed
  offers: new Set(),
  me: null,
  polling: false,
};

/** Faces typed by hand ("3 4", "3,4"): null when none, undefined when not whole numbers. */
export function parseFaces(text) {
  const parts = text.split(/[\s,、，]+/).filter(Boolean);
  if (!parts.length) return null;
  if (!parts.every((p) => /^\d+$/.test(p))) return undefined;
  return parts.map(Number);
}

/** The flags BCDice set on a roll, strongest first (none for a withheld roll). */
export function outcomes(entry) {
  return entry.withheld ? [] : FLAGS.filter((flag) => entry[flag] === true);
}

/**
 * A roll's check after the reveal: recomputed (✓), a discrepancy (✗, the server's words), or
 * dice entered by hand, which no seed can recompute (not a failure: nothing was found wrong).
 */
export function checkTag(check, lang) {
  if (check.problems.length) return { kind: "unverified", text: `✗ ${check.problems.join("; ")}` };
  if (check.unverifiable) return { kind: "unrecomputable", text: `— ${t(lang, "handNotRecomputed")}` };
  return { kind: "verified", text: `✓ ${t(lang, "recomputes")}` };
}

/**
 * What one roll shows to this reader: its number and BCDice text, then tags (outcome, source,
 * secret, who rolled, its check). A withheld roll shows its number and "secret", nothing else.
 */
export function describe(entry, lang, { memberId = null, check = null } = {}) {
  const seq = `#${entry.roll_seq + 1}`;
  if (entry.withheld) return { seq, text: t(lang, "secretWord"), tags: [], withheld: true };
  const tags = outcomes(entry).map((flag) => ({ kind: flag, text: t(lang, flag) }));
  tags.push({ kind: `source-${entry.source}`, text: t(lang, entry.source === "hand" ? "sourceHand" : "sourceServer") });
  if (entry.secret) tags.push({ kind: "secret", text: t(lang, "secretWord") });
  if (entry.rolled_by) {
    const you = entry.rolled_by === memberId ? ` (${t(lang, "you")})` : "";
    tags.push({ kind: "by", text: `${t(lang, "rolledBy")} ${entry.rolled_by}${you}` });
  }
  if (check) tags.push(checkTag(check, lang));
  return { seq, text: entry.text, comment: entry.table || entry.comment || "", tags, withheld: false };
}

/** One line of the campaign's list: the log's name (the table log by its role), what it is. */
export function describeLog(log, lang) {
  const kind = { table: "kindTable", named: "kindNamed", secret: "kindSecret" }[log.kind];
  const name = log.kind === "table" ? t(lang, "tableLog") : log.name;
  const facts = [t(lang, kind), `${t(lang, "rollCount")}: ${log.rolls}`];
  if (log.revealed) facts.push(t(lang, "revealedLog"));
  if (log.last_roll_at) {
    const at = new Date(log.last_roll_at).toLocaleString(lang === "ja" ? "ja-JP" : "en-GB");
    facts.push(`${t(lang, "lastRoll")} ${at}`);
  }
  return { name, facts: facts.join(" · ") };
}

function say(text) {
  $("status").textContent = text;
}

function fromAddress() {
  const log = location.pathname.match(/\/table\/rolls\/([0-9a-fA-F-]{36})$/);
  if (log) return { logId: log[1] };
  const campaign = location.pathname.match(/\/table\/campaigns\/([0-9a-fA-F-]{36})\/rolls$/);
  return campaign ? { campaignId: campaign[1] } : null;
}

function drawEntry(entry) {
  const shown = describe(entry, page.lang, {
    memberId: page.me?.member_id,
    check: page.checks?.get(entry.roll_seq),
  });
  const flags = outcomes(entry);
  const item = node("li", {
    class: ["roll", ...flags, shown.withheld ? "withheld" : "", entry.secret ? "secret" : ""].filter(Boolean).join(" "),
    "data-seq": entry.roll_seq,
    "data-source": shown.withheld ? "" : entry.source,
    "data-outcome": flags[0] || "",
    "data-withheld": String(shown.withheld),
  }, node("span", { class: "v" }, shown.seq), " ", node("span", { class: "roll-text" }, shown.text));
  if (shown.comment) item.append(" ", node("span", { class: "roll-comment" }, shown.comment));
  if (shown.tags.length) {
    item.append(node("ul", { class: "tags roll-tags" }, ...shown.tags.map((tag) => node("li", { class: `tag-${tag.kind}` }, tag.text))));
  }
  return item;
}

function drawVerification() {
  const lang = page.lang;
  const log = page.log;
  const badge = $("rolls-badge");
  if (!log.revealed_seed) {
    badge.className = "badge";
    badge.textContent = t(lang, "notRevealed");
  } else if (page.checks) {
    const checks = [...page.checks.values()];
    const sound = checks.every((c) => !c.problems.length);
    const byHand = checks.filter((c) => c.unverifiable).length;
    badge.className = `badge ${sound ? "ok" : "bad"}`;
    badge.textContent = sound
      ? `✓ ${t(lang, "allRollsVerified")}${byHand ? ` (${t(lang, "byHandCount")}: ${byHand})` : ""}`
      : `✗ ${t(lang, "someFail")}`;
  }
  const facts = [[t(lang, "commitment"), log.commitment]];
  if (log.revealed_seed) facts.push([t(lang, "seed"), log.revealed_seed]);
  $("rolls-facts").replaceChildren(...facts.flatMap(([k, v]) => [node("dt", {}, k), node("dd", {}, v)]));
  $("rolls-reveal").hidden = !can(page, "reveal") || Boolean(log.revealed_seed);
}

function render() {
  const log = page.log;
  if (!log) return;
  const lang = page.lang;
  $("rolls-name").textContent = log.name;
  const meta = [`${t(lang, "rollCount")}: ${log.rolls}`];
  if (log.secret) meta.push(t(lang, "secretLogShort"));
  $("rolls-meta").textContent = meta.join(" · ");
  $("roll-list").replaceChildren(...(log.entries.length
    ? log.entries.map(drawEntry)
    : [node("li", { class: "note" }, t(lang, "noRolls"))]));
  const mayRoll = can(page, "command");
  $("roll-form").hidden = !mayRoll || Boolean(log.revealed_seed);
  $("roll-closed").hidden = !log.revealed_seed || !mayRoll;
  $("roll-readonly").hidden = mayRoll;
  drawVerification();
  document.title = `Senki — ${log.name}`;
}

async function loadChecks() {
  if (!page.log.revealed_seed) {
    page.checks = null;
    return;
  }
  const audit = await get(`/v1/roll-logs/${page.logId}/verify`);
  page.checks = new Map(audit.checks.map((c) => [c.roll_seq, c]));
}

/** Read the log; redraw only when it moved (its version), so a poll costs no redraw. */
async function refresh() {
  const log = await get(`/v1/roll-logs/${page.logId}`);
  if (page.log && page.log.version === log.version) return;
  page.log = log;
  await loadChecks();
  render();
}

function poll() {
  setInterval(async () => {
    if (page.polling || document.hidden) return;
    page.polling = true;
    try {
      await refresh();
    } catch (error) {
      say(error.message);
    } finally {
      page.polling = false;
    }
  }, POLL_MS);
}

async function rollDice(submitted) {
  submitted.preventDefault();
  const faces = parseFaces($("roll-faces").value);
  if (faces === undefined) {
    say(t(page.lang, "badFaces"));
    return;
  }
  const table = $("roll-table").value;
  const expression = $("roll-command").value.trim();
  if (!table && !expression) {
    say(t(page.lang, "noCommand"));
    return;
  }
  const body = { roll_log_id: page.logId, secret: $("roll-secret").checked };
  if (table) body.table = table;
  else body.expression = expression;
  if (faces) body.hand_faces = faces;
  try {
    await post(`/v1/campaigns/${page.log.campaign_id}/rolls`, body);
    $("roll-command").value = "";
    $("roll-faces").value = "";
    say("");
    await refresh();
  } catch (error) {
    say(error.message);
  }
}

/** The campaign's kept dice tables, offered by name in the roll form (read once). */
async function loadTables() {
  const { tables } = await get(`/v1/campaigns/${page.log.campaign_id}/tables`);
  const none = $("roll-table").firstElementChild;
  $("roll-table").replaceChildren(none, ...tables.map((kept) =>
    node("option", { value: kept.name }, `${kept.name} (${kept.dice}, v${kept.version})`)));
}

async function reveal() {
  try {
    await post(`/v1/roll-logs/${page.logId}/reveal`, {});
    say(t(page.lang, "revealedNow"));
    await refresh();
  } catch (error) {
    say(error.message);
  }
}

/** The campaign's logs by name, each a link; the picker offers those that still take rolls. */
async function loadLogs() {
  const listed = await get(`/v1/campaigns/${page.campaignId}/rolls/logs?limit=100`);
  page.logs = listed;
  drawLogs();
}

function drawLogs() {
  const listed = page.logs;
  if (!listed) return;
  const lang = page.lang;
  $("log-list").replaceChildren(...(listed.logs.length
    ? listed.logs.map((log) => {
      const shown = describeLog(log, lang);
      return node("li", { class: `kind-${log.kind}`, "data-log": log.id },
        node("a", { href: log.page }, shown.name), " ", node("span", { class: "note" }, shown.facts));
    })
    : [node("li", { class: "note" }, t(lang, "noLogs"))]));
  const more = listed.total - listed.logs.length;
  $("logs-more").hidden = more <= 0;
  $("logs-more").textContent = `${more} ${t(lang, "moreLogs")}`;
  const picker = $("pick-log");
  const chosen = picker.value;
  // The table log is the first option (its current generation, whatever its id); the others
  // by name while they still take rolls.
  const takers = listed.logs.filter((log) => !log.revealed && log.kind !== "table");
  picker.replaceChildren(picker.firstElementChild,
    ...takers.map((log) => node("option", { value: log.id }, describeLog(log, lang).name)));
  picker.value = takers.some((log) => log.id === chosen) ? chosen : "";
}

/** Roll from the campaign's page: in the table log unless another log is picked by name. */
async function rollAtTable(submitted) {
  submitted.preventDefault();
  const body = { expression: $("table-command").value.trim(), secret: $("table-secret").checked };
  if ($("pick-log").value) body.roll_log_id = $("pick-log").value;
  try {
    const rolled = await post(`/v1/campaigns/${page.campaignId}/rolls`, body);
    location.assign(`/table/rolls/${rolled.roll_log.id}`);
  } catch (error) {
    say(error.message);
  }
}

async function openNewLog(submitted) {
  submitted.preventDefault();
  try {
    const opened = await post(`/v1/campaigns/${page.campaignId}/rolls`, {
      name: $("log-name").value.trim(),
      secret: $("log-secret").checked,
    });
    location.assign(`/table/rolls/${opened.roll_log.id}`);
  } catch (error) {
    say(error.message);
  }
}

function denied(error) {
  const refused = error instanceof ApiError && (error.status === 401 || error.status === 403);
  say(refused ? `${t(page.lang, "deniedRolls")} (${error.message})` : error.message);
  $("access").hidden = !refused;
}

async function open() {
  say(t(page.lang, "loading"));
  page.offers = await offered();
  await loadMe(page, say);
  $("sign-out").hidden = false;
  const campaign = page.campaignId || page.me?.campaign_id;
  const mayRoll = can(page, "command");
  if (campaign && page.logId) {
    $("new-log-link").href = `/table/campaigns/${campaign}/rolls`;
    $("new-log-link").hidden = false;
  }
  if (!page.logId) {
    try {
      await loadLogs();
    } catch (error) {
      denied(error);
      return;
    }
    $("access").hidden = true;
    $("start").hidden = false;
    $("new-log-panel").hidden = !mayRoll; // a viewer may read a log, not open one
    $("table-roll-panel").hidden = !mayRoll;
    say("");
    return;
  }
  try {
    await refresh();
  } catch (error) {
    denied(error);
    return;
  }
  if (can(page, "command")) await loadTables().catch((error) => say(error.message));
  sessionStorage.setItem("senki.rollLog", page.logId);
  $("access").hidden = true;
  $("rolls").hidden = false;
  say("");
  poll();
}

function wire() {
  wireAccess(page, { open, redraw: () => { render(); drawLogs(); } });
  $("roll-form").addEventListener("submit", rollDice);
  $("rolls-reveal").addEventListener("click", reveal);
  $("new-log-form").addEventListener("submit", openNewLog);
  $("table-roll-form").addEventListener("submit", rollAtTable);
  const encounter = sessionStorage.getItem("senki.encounter");
  if (encounter) $("back").href = `/table/encounters/${encounter}`;
}

function start() {
  translatePage(page.lang);
  wire();
  takeTokenFromAddress(); // a sign-in link's #token=…
  const where = fromAddress();
  if (!where) {
    say(t(page.lang, "notAvailable"));
    return;
  }
  Object.assign(page, where);
  if (savedToken()) open();
  else $("access").hidden = false;
}

start();
