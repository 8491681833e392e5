// A pilot's or an Assault Core's sheet: effective stats, HP now and max with its ratio,
// injuries, equipment, the HP ratio carried across scenarios, and "copy for CCFolia".

import { wireAccess } from "./access.js";
import { ApiError, get, savedToken, takeTokenFromAddress } from "./api.js";
import { drawHpChart, drawLedgerTable } from "./chart.js";
import { copyForCcfolia } from "./copy.js";
import { hpMeter, node, percent } from "./dom.js";
import { t, translatePage } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const STAT_JA = {
  phys_atk: "物理攻撃力", phys_def: "物理防御力", perc_atk: "知覚攻撃力", perc_def: "知覚防御力",
  evasion: "回避", melee_hit: "近接命中", ranged_hit: "遠隔命中", move: "移動力", hp: "最大HP",
  reaction: "反応", piloting: "操縦", resistance: "抵抗", capacity: "装備力",
};

const page = {
  lang: sessionStorage.getItem("senki.lang") || (navigator.language.startsWith("ja") ? "ja" : "en"),
  kind: null, // "characters" | "units"
  id: null,
  sheet: null,
  ledger: null, // rows, or null when the read model is not ready
};

function say(text) {
  $("status").textContent = text;
}

function fromAddress() {
  const found = location.pathname.match(/\/table\/(characters|units)\/([0-9a-fA-F-]{36})$/);
  return found ? { kind: found[1], id: found[2] } : null;
}

function statName(key) {
  return page.lang === "ja" && STAT_JA[key] ? STAT_JA[key] : key.replaceAll("_", " ");
}

function drawSummary(sheet) {
  const lang = page.lang;
  const unit = page.kind === "units";
  $("sheet-kind").textContent = t(lang, unit ? "unitSheet" : "characterSheet");
  $("sheet-name").textContent = sheet.name;
  const meta = unit
    ? [`${t(lang, "pilot")}: ${sheet.pilot_name}`, `${t(lang, "player")}: ${sheet.owner}`, `${t(lang, "piloting")}: +${sheet.piloting_boost}%`]
    : [`${t(lang, "player")}: ${sheet.owner}`, `${t(lang, "level")} ${sheet.level}`];
  if (sheet.lost) meta.push(t(lang, "lost"));
  $("sheet-meta").textContent = meta.join(" · ");
  $("sheet-hp").replaceChildren(hpMeter(`${sheet.name} HP`, sheet.current_hp, sheet.max_hp));
  const r = sheet.carried_ratio;
  $("sheet-ratio").textContent = `${t(lang, "carriedRatio")}: ${r.numerator}/${r.denominator} (${percent(r.value)})`;
  $("sheet-pilot").replaceChildren(...(unit
    ? [`${t(lang, "pilot")}: `, node("a", { href: `/table/characters/${sheet.pilot_id}` }, sheet.pilot_name)]
    : []));
}

function drawStats(sheet) {
  const lang = page.lang;
  const head = node("tr", {}, ...[t(lang, "stat"), t(lang, "effective"), t(lang, "base")].map((w) => node("th", { scope: "col" }, w)));
  const rows = Object.entries(sheet.stats).map(([key, value]) => node(
    "tr", { "data-stat": key },
    node("th", { scope: "row" }, statName(key)),
    node("td", {}, String(value)),
    node("td", {}, key in sheet.base_stats ? String(sheet.base_stats[key]) : "—"),
  ));
  $("stats").replaceChildren(node("caption", { class: "sr-only" }, t(lang, "effectiveStats")), node("thead", {}, head), node("tbody", {}, ...rows));
}

function drawGear(sheet) {
  const lang = page.lang;
  const items = sheet.items.map((i) => node("li", {}, `${i.name} (${i.slot}, ${t(lang, "cost")} ${i.cost})`,
    Object.keys(i.stats).length ? node("span", { class: "meta" }, ` ${Object.entries(i.stats).map(([k, v]) => `${statName(k)} ${v >= 0 ? "+" : ""}${v}`).join(", ")}`) : null));
  $("equipment").replaceChildren(...(items.length ? items : [node("li", { class: "meta" }, t(lang, "none"))]));
  const skills = (sheet.skills || []).map((s) => node("li", {}, `${s.name} (${t(lang, "cost")} ${s.cost}, ×${s.uses})`));
  $("skills").replaceChildren(...(skills.length ? skills : [node("li", { class: "meta" }, t(lang, "none"))]));
  const injuries = (sheet.injuries || []).filter((i) => i.injury !== "none");
  $("injuries").replaceChildren(...(injuries.length
    ? injuries.map((i) => node("li", { class: "injury", title: i.scenario_id }, i.injury))
    : [node("li", {}, t(lang, "none"))]));
}

function drawHistory() {
  if (page.ledger === null) {
    $("hp-chart").replaceChildren(node("p", { class: "note" }, t(page.lang, "ledgerBuilding")));
    $("hp-table").replaceChildren();
    return;
  }
  drawHpChart($("hp-chart"), page.ledger, page.lang);
  drawLedgerTable($("hp-table"), page.ledger, page.lang);
}

function render() {
  if (!page.sheet) return;
  drawSummary(page.sheet);
  drawStats(page.sheet);
  drawGear(page.sheet);
  drawHistory();
  document.title = `Senki — ${page.sheet.name}`;
}

async function loadLedger(pilotId) {
  try {
    page.ledger = (await get(`/v1/characters/${pilotId}/hp-ledger`)).rows;
  } catch (error) {
    // 503: the read model is still being built; the sheet itself is strongly consistent.
    if (!(error instanceof ApiError) || error.status !== 503) say(error.message);
    page.ledger = null;
  }
}

async function open() {
  say(t(page.lang, "loading"));
  try {
    page.sheet = await get(`/v1/${page.kind}/${page.id}/sheet`);
  } catch (error) {
    const denied = error instanceof ApiError && (error.status === 401 || error.status === 403);
    say(denied ? `${t(page.lang, "denied")} (${error.message})` : error.message);
    $("access").hidden = false;
    return;
  }
  await loadLedger(page.kind === "units" ? page.sheet.pilot_id : page.id);
  $("access").hidden = true;
  $("sheet").hidden = false;
  $("sign-out").hidden = false;
  say("");
  render();
}

function wire() {
  wireAccess(page, { open, redraw: render });
  $("copy").addEventListener("click", () => {
    const hosts = { status: $("copy-status"), fallback: $("copy-fallback"), text: $("ccfolia-text") };
    copyForCcfolia(`/v1/${page.kind}/${page.id}/sheet?format=ccfolia`, hosts, page.lang).catch((error) => say(error.message));
  });
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
