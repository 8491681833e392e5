// The table page: asks for a token, loads an encounter and its log, follows it live, and lets
// the table travel through its history, check its dice and argue about its rulings.

import { wireAccess } from "./access.js";
import { ApiError, follow, get, offered, post, savedToken, takeTokenFromAddress } from "./api.js";
import { attackAt, checkAt } from "./attack.js";
import { drawBoard, drawLegend, drawParties, hasPositions, squareAt } from "./board.js";
import { t, translatePage } from "./i18n.js";
import { drawLog } from "./log.js";
import { drawCombatants, drawOrder, drawProcedure, lastMoveAt, orderAt } from "./panels.js";
import { can, drawMe, loadMe } from "./roles.js";
import { drawPlay, loadPlayable, pickCombatant } from "./play.js";
import { drawPoints, loadCrews, loadPoints, selectPoint } from "./stops.js";
import { downloadBundle, drawVerification, loadVerification } from "./verify.js";
import { mountWhatIf } from "./whatif.js";

const $ = (id) => document.getElementById(id);
const RULINGS = "/v1/encounters/{encounter_id}/rulings";
const DISPUTES = "/v1/encounters/{encounter_id}/disputes";
const REPLAY = "/v1/encounters/{encounter_id}/replay";

const page = {
  lang: sessionStorage.getItem("senki.lang") || (navigator.language.startsWith("ja") ? "ja" : "en"),
  id: null,
  live: null, // the encounter now
  shown: null, // the encounter at the version on the board
  events: [],
  versions: new Map(), // version -> encounter, as fetched for the slider
  audit: null, // Map version -> audit-trail entry, when the server offers the trail
  offers: new Set(),
  verification: null,
  stopStream: null,
  openRulings: new Set(),
  refreshTimer: null,
  slideTimer: null,
  me: null, // who the token is (/v1/me), kept in memory only
  crews: new Map(), // version -> Map(combatant id -> crew), for a fight in a scenario
  points: [], // the procedure's stops: {version, turn, phase, step, acting}
  playable: null, // the commands legal now with their body schemas (/playable)
  picker: null, // the form field the board's clicks fill: (x, y) => void
  playForm: null, // the command form being filled in: {form, version, activate}
};


function say(text) {
  $("status").textContent = text;
}

function idFromAddress() {
  const found = location.pathname.match(/\/table\/encounters\/([0-9a-fA-F-]{36})$/);
  return found ? found[1] : null;
}

async function allEvents(id) {
  const events = [];
  let after = 0;
  for (;;) {
    const chunk = await get(`/v1/encounters/${id}/events?after=${after}&limit=500`);
    events.push(...chunk.events);
    after = chunk.next_cursor;
    if (!chunk.more) return events;
  }
}

async function loadAudit() {
  if (!page.offers.has(RULINGS)) {
    page.audit = null;
    return;
  }
  try {
    const trail = await get(`/v1/encounters/${page.id}/rulings`);
    const entries = Array.isArray(trail) ? trail : trail.rulings || trail.entries || [];
    page.audit = new Map(entries.map((entry) => [entry.version, entry]));
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 404) say(error.message);
    page.audit = null;
  }
}

async function loadVerificationPanel() {
  try {
    page.verification = await loadVerification(page.live, page.events);
  } catch (error) {
    say(error.message);
  }
}

function render() {
  const lang = page.lang;
  const shown = page.shown;
  if (!shown) return;
  const version = shown.version;
  const crews = page.crews.get(version) || new Map();
  drawProcedure($("procedure"), shown, lang);
  const names = new Map(shown.combatants.map((c) => [c.combatant_id, c.name]));
  if (hasPositions(shown)) {
    const attack = attackAt(page.events, version, lang, names, shown.procedure.acting);
    drawBoard($("board"), shown, lastMoveAt(page.events, version), crews, attack, lang);
  } else drawParties($("board"), shown, lang, checkAt(page.events, version, lang, names));
  drawOrder($("order"), shown, orderAt(page.events, version));
  drawCombatants($("combatants"), shown, lang, { crews, me: page.me });
  drawPlayPanel();
  selectPoint(page, version);
  $("reveal").hidden = !can(page, "reveal") || Boolean(page.live.revealed_seed);
  const slider = $("history");
  slider.max = String(page.live.version);
  slider.value = String(version);
  const live = version === page.live.version;
  $("history-out").textContent = `${t(lang, "showing")} ${version} ${t(lang, "of")} ${page.live.version}${live ? ` (${t(lang, "live")})` : ""}`;
  $("live").disabled = live;
  renderLog();
  const notes = [];
  if (!page.offers.has(RULINGS)) notes.push(t(lang, "rulingsUnavailable"));
  if (!page.offers.has(DISPUTES)) notes.push(t(lang, "disputesUnavailable"));
  $("rulings-note").textContent = notes.join(" ");
  if (page.verification) {
    drawVerification({ badge: $("badge"), facts: $("verify-facts"), checks: $("checks") }, page.live, page.verification, lang);
  }
}

function drawPlayPanel() {
  page.picker = null;
  $("board").classList.remove("picking");
  drawPlay($("play"), {
    page,
    say,
    pick: (onSquare) => {
      page.picker = onSquare;
      $("board").classList.add("picking");
    },
    done: refreshLive,
  });
}

function renderLog() {
  drawLog($("log"), page.events, {
    lang: page.lang,
    names: new Map(page.live.combatants.map((c) => [c.combatant_id, c.name])),
    shownVersion: page.shown.version,
    audit: page.audit,
    open: page.openRulings,
    rulingsOnly: $("rulings-only").checked,
    disputesOffered: page.offers.has(DISPUTES),
    canDispute: can(page, "dispute"),
    canSettle: can(page, "settle"),
    onDispute: fileDispute,
    onUphold: (id, note) => settle(id, "uphold", { note }),
    onAmend: (id, note, options) => {
      try {
        settle(id, "amend", { note, options: JSON.parse(options.trim() || "{}") });
      } catch {
        say(t(page.lang, "badJson"));
      }
    },
  });
}

async function fileDispute(version, reason) {
  try {
    await post(`/v1/encounters/${page.id}/disputes`, { ruling_version: version, reason });
    const field = $(`dispute-${version}`);
    if (field) field.value = "";
    say(t(page.lang, "filed"));
  } catch (error) {
    say(error.status === 404 ? t(page.lang, "disputesUnavailable") : error.message);
  }
}

async function settle(disputeId, how, body) {
  try {
    await post(`/v1/encounters/${page.id}/disputes/${disputeId}/${how}`, body);
    say(t(page.lang, "settled"));
  } catch (error) {
    say(error.status === 404 ? t(page.lang, "disputesUnavailable") : error.message);
  }
}

/** One ordered feed keyed by version: catch-up and the live stream merge into it, each event
 * once, whichever of them brings it first. */
function mergeEvents(events) {
  const known = new Set(page.events.map((e) => e.version));
  const fresh = events.filter((e) => !known.has(e.version) && known.add(e.version));
  if (!fresh.length) return false;
  page.events = [...page.events, ...fresh].sort((a, b) => a.version - b.version);
  return true;
}

function lastVersion() {
  return page.events.length ? page.events[page.events.length - 1].version : 0;
}

function onStreamEvent(event) {
  if (!mergeEvents([event])) return;
  clearTimeout(page.refreshTimer);
  page.refreshTimer = setTimeout(refreshLive, 150);
}

async function refreshLive() {
  const following = !page.shown || page.shown.version === page.live.version;
  const before = page.live.version;
  try {
    page.live = await get(`/v1/encounters/${page.id}`);
  } catch (error) {
    say(error.message);
    return;
  }
  if (page.live.version !== before) say(""); // a refusal banner is about a moment play has left
  page.versions.set(page.live.version, page.live);
  await catchUp();
  if (following) page.shown = page.live;
  await Promise.all([loadAudit(), loadVerificationPanel(), loadCrews(page, page.live.version, say), loadPoints(page, say), loadPlayable(page, say)]);
  drawPoints(page); // once /playable has brought the names of the phases and steps
  render();
}

/** The events up to the version just read, when the stream has not brought them all yet. */
async function catchUp() {
  while (lastVersion() < page.live.version) {
    const chunk = await get(`/v1/encounters/${page.id}/events?after=${lastVersion()}&limit=500`);
    mergeEvents(chunk.events); // the live feed may have brought some meanwhile
    if (!chunk.more) return;
  }
}

function onStreamState(state) {
  if (state === "live") say("");
  else if (state === "denied") say(t(page.lang, "denied"));
  else say(t(page.lang, "streamDown"));
}

async function showVersion(version) {
  try {
    let found = page.versions.get(version);
    if (!found) {
      found = await get(`/v1/encounters/${page.id}?version=${version}`);
      page.versions.set(version, found);
    }
    if (!page.crews.has(version)) await loadCrews(page, version, say);
    if (String(version) === $("history").value) {
      page.shown = found;
      render();
    }
  } catch (error) {
    say(error.message);
  }
}

async function openEncounter(id) {
  if (page.stopStream) page.stopStream();
  say(t(page.lang, "loading"));
  page.id = id;
  page.versions.clear();
  page.crews.clear();
  try {
    page.live = await get(`/v1/encounters/${id}`);
    page.events = [];
    mergeEvents(await allEvents(id));
  } catch (error) {
    say(error instanceof ApiError && (error.status === 401 || error.status === 403) ? `${t(page.lang, "denied")} (${error.message})` : error.message);
    $("access").hidden = false;
    return;
  }
  page.shown = page.live;
  page.versions.set(page.live.version, page.live);
  page.offers = await offered();
  await loadMe(page, say);
  await Promise.all([loadAudit(), loadVerificationPanel(), loadCrews(page, page.live.version, say), loadPoints(page, say), loadPlayable(page, say)]);
  drawPoints(page); // once /playable has brought the names of the phases and steps
  sessionStorage.setItem("senki.encounter", id); // for the sheets' way back; not a secret
  $("access").hidden = true;
  $("table").hidden = false;
  $("sign-out").hidden = false;
  if (idFromAddress() !== id) history.replaceState(null, "", `/table/encounters/${id}`);
  document.title = `Senki — ${id.slice(0, 8)}`;
  mountWhatIf($("whatif-panel"), page, page.offers.has(REPLAY) ? can(page, "what_if") : null);
  drawMe(page);
  render();
  say("");
  page.stopStream = follow(`/v1/encounters/${id}/stream`, lastVersion(), onStreamEvent, onStreamState);
}

function wire() {
  wireAccess(page, {
    open: () => openEncounter($("encounter-id").value.trim()),
    redraw: () => {
      drawLegend($("legend"), page.lang);
      drawMe(page);
      drawPoints(page);
      render();
    },
    leave: () => {
      page.me = null;
      if (page.stopStream) page.stopStream();
    },
  });
  $("history").addEventListener("input", () => {
    const version = Number($("history").value);
    $("history-out").textContent = `${t(page.lang, "showing")} ${version} ${t(page.lang, "of")} ${page.live.version}`;
    clearTimeout(page.slideTimer);
    page.slideTimer = setTimeout(() => showVersion(version), 120);
  });
  $("history-point").addEventListener("change", () => {
    const version = Number($("history-point").value);
    if (!version) return;
    $("history").value = String(version);
    showVersion(version);
  });
  $("reveal").addEventListener("click", async () => {
    try {
      await post(`/v1/encounters/${page.id}/reveal`, {});
      say(t(page.lang, "revealedNow"));
      refreshLive();
    } catch (error) {
      say(error.message);
    }
  });
  $("live").addEventListener("click", () => {
    $("history").value = String(page.live.version);
    page.shown = page.live;
    render();
  });
  $("rulings-only").addEventListener("change", renderLog);
  $("board").addEventListener("click", (clicked) => {
    // While a form asks for squares, a click on the board (even on a token) picks one.
    const svg = $("board").querySelector("svg");
    if (!svg || !page.live || page.shown.version !== page.live.version) return;
    const at = squareAt(svg, clicked, page.shown.battle_map);
    if (!at) return;
    // A token answers a field that asks for a combatant (a target); a square, one for squares.
    const onToken = clicked.target.closest && clicked.target.closest("g[data-combatant]");
    if (onToken && pickCombatant($("play"), page.live, at)) {
      clicked.preventDefault(); // picked as the form's target, not its sheet opened
    } else if (page.picker) {
      clicked.preventDefault();
      page.picker(at.x, at.y);
    }
  });
  $("download").addEventListener("click", () => downloadBundle({
    generated_at: new Date().toISOString(),
    encounter: page.live,
    events: page.events,
    log_head: page.verification ? page.verification.heads : null,
    audit: page.verification ? page.verification.audit : null,
    rulings: page.audit ? [...page.audit.values()] : null,
  }));
}

function start() {
  translatePage(page.lang);
  drawLegend($("legend"), page.lang);
  wire();
  takeTokenFromAddress(); // a sign-in link's #token=… (senki demo)
  const id = idFromAddress();
  if (id) $("encounter-id").value = id;
  if (savedToken() && id) openEncounter(id);
}

start();
