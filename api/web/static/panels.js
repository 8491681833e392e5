// The side panels: procedure point, initiative order, combatants with HP, and the facts the
// board needs from the log (the order rolled, the last move of the phase).

import { hpOf, sideColour } from "./board.js";
import { hpMeter, node, percent } from "./dom.js";
import { injuryWord } from "./attack.js";
import { commandWord, phaseWord, t } from "./i18n.js";

export function drawProcedure(host, encounter, lang) {
  const p = encounter.procedure;
  const parts = [
    `${t(lang, "turn")} ${p.turn}`,
    `${t(lang, "phase")}: ${phaseWord(p.phase, lang)}`,
    `${t(lang, "step")}: ${phaseWord(p.step, lang)}`,
  ];
  if (p.acting) parts.push(`${t(lang, "acting")}: ${nameOf(encounter, p.acting)}`);
  if (encounter.ended) parts.push(t(lang, "ended"));
  // Who is awaited, by name (a combatant's id may be a unit's UUID): their commands are in the
  // Play panel (a GM's turn can offer fourteen), a reaction's names itself.
  const byWho = new Map();
  for (const a of p.awaiting) {
    const who = a.combatant ? nameOf(encounter, a.combatant) : a.issuer === "gm" ? t(lang, "gm") : a.issuer;
    byWho.set(who, [...(byWho.get(who) || []), commandWord(lang, a.command)]);
  }
  const awaiting = [...byWho].map(([who, commands]) => (commands.length <= 2 ? `${who}: ${commands.join(", ")}` : who));
  // replaceChildren would write a null as the text "null" (the header once read "Combat overnull").
  host.replaceChildren(...[
    node("span", {}, parts.join(" · ")),
    awaiting.length ? node("span", { class: "note" }, ` — ${t(lang, "awaiting")}: ${awaiting.join("; ")}`) : null,
  ].filter(Boolean));
}

function nameOf(encounter, id) {
  const found = encounter.combatants.find((c) => c.combatant_id === id);
  return found ? found.name : id;
}

/** The order of the latest initiative roll at or before the shown version. */
export function orderAt(events, version) {
  let order = [];
  for (const e of events) {
    if (e.version > version) break;
    if (e.type.endsWith("InitiativeOrdered")) order = e.payload.order || [];
  }
  return order;
}

/** The last move of the phase shown: who moved, from where, along which squares. */
export function lastMoveAt(events, version) {
  const at = new Map();
  let move = null;
  for (const e of events) {
    if (e.version > version) break;
    const p = e.payload;
    if (e.type === "CombatantJoined" && p.sheet && p.sheet.position) at.set(p.combatant_id, p.sheet.position);
    if (e.type === "CombatantCorrected" && p.changes && p.changes.position) at.set(p.combatant_id, p.changes.position);
    if (e.type.endsWith("InitiativeOrdered") || e.type.endsWith("MainActionEnded")) move = null;
    if (e.type.endsWith("CombatantMoved") && Array.isArray(p.path) && p.path.length) {
      const start = at.get(p.combatant);
      if (start) move = { combatant: p.combatant, start, path: p.path };
      at.set(p.combatant, p.path[p.path.length - 1]);
    }
  }
  return move;
}

export function drawOrder(host, encounter, order) {
  const acting = encounter.procedure.acting;
  host.replaceChildren(...order.map((id) => node(
    "li", { class: id === acting ? "acting" : "", "aria-current": id === acting ? "step" : "false" },
    nameOf(encounter, id),
  )));
}

/** What a rule system without HP tracks of a combatant, in words: Armor Knights' armour by
 * type and its active and response points, a Wizardry-style fighter's fatigue and penalties. */
function systemFacts(combatant, lang) {
  const s = combatant.status || {};
  const ja = lang === "ja";
  const facts = [];
  if (s.armor && typeof s.armor === "object") {
    const parts = Object.entries(s.armor).map(([kind, value]) => `${kind} ${value}`);
    facts.push(`${ja ? "装甲" : "armour"}: ${parts.join(" · ")}`);
  }
  if (typeof s.active_points === "number") facts.push(`${ja ? "アクティブ" : "active points"} ${s.active_points}`);
  if (typeof s.response_points === "number") facts.push(`${ja ? "リアクション" : "response points"} ${s.response_points}`);
  if (s.shot_down) facts.push(ja ? "撃墜" : "shot down");
  if (typeof s.fatigue_step === "number") facts.push(`${ja ? "疲労" : "fatigue"} ${s.fatigue_step}`);
  if (s.die_penalty) facts.push(`${ja ? "ダイス修正" : "die penalty"} ${s.die_penalty}`);
  if (s.ac_penalty) facts.push(`${ja ? "AC修正" : "AC penalty"} ${s.ac_penalty}`);
  if (s.collapsed) facts.push(ja ? "昏倒" : "collapsed");
  if (s.surrendered) facts.push(ja ? "降伏" : "surrendered");
  return facts.length ? node("p", { class: "system-facts" }, facts.join(" · ")) : null;
}

/** Whether the encounter's rule system counts HP (Glorious Drive does; Armor Knights and the
 * Wizardry-style round do not, so "HP hidden" would be false there, even to the GM). */
function countsHp(encounter) {
  return encounter.combatants.some((c) => c.status && "hp" in c.status);
}

function hpBar(combatant, lang, crew, withHp = true) {
  const hp = hpOf(combatant);
  if (!withHp) return systemFacts(combatant, lang);
  if (!hp) return node("p", { class: "meta" }, t(lang, "hpHidden"));
  const core = combatant.sheet && combatant.sheet.body === "assault_core";
  const label = `${combatant.name} HP${core ? ` (${t(lang, "assaultCore")})` : ""}`;
  if (crew && crew.unit_id) return crewBars(hpMeter(label, hp.hp, hp.max, "AC"), crew, lang);
  const bar = hpMeter(label, hp.hp, hp.max);
  if (!core) return bar;
  // GD-HPS-1: the pilot leaves the scenario at the ratio their Assault Core ends on.
  return node("div", {}, bar, node("p", { class: "meta" }, `${t(lang, "sharedRatio")}: ${Math.round(hp.ratio * 100)}% (GD-HPS-1)`));
}

/** A pilot in an Assault Core: the core's bar, the pilot's bar at the shared ratio, the ratio. */
function crewBars(coreBar, crew, lang) {
  if (crew.pilot_hp === null || crew.ratio === null) {
    return node("div", { class: "crew" }, coreBar, node("p", { class: "meta" }, `${crew.pilot_name}: ${t(lang, "hpHidden")}`));
  }
  const label = `${crew.pilot_name} HP (${t(lang, "pilot")})`;
  const r = crew.ratio;
  return node(
    "div", { class: "crew", "data-pilot": crew.character_id },
    coreBar,
    hpMeter(label, crew.pilot_hp, crew.pilot_max_hp, t(lang, "pilotHp")),
    node("p", { class: "shared" }, `${t(lang, "sharedNow")}: ${r.numerator}/${r.denominator} = ${percent(r.value)}`),
  );
}

function sheetLinks(crew, lang) {
  if (!crew) return null;
  return node(
    "p", { class: "sheet-links" },
    crew.unit_id ? node("a", { href: `/table/units/${crew.unit_id}` }, `${t(lang, "sheet")}: ${crew.unit_name}`) : null,
    node("a", { href: `/table/characters/${crew.character_id}` }, `${t(lang, "pilot")}: ${crew.pilot_name}`),
  );
}

/** `extra`: crews by combatant id (from /crews) and who the caller is (from /v1/me), if known. */
/** A side as a Japanese table says it (味方, 敵); another side by its own name. */
export function sideWord(side, lang) {
  return (lang === "ja" && { pc: "味方", enemy: "敵" }[side]) || side;
}

export function drawCombatants(host, encounter, lang, extra = {}) {
  const crews = extra.crews || new Map();
  const me = extra.me || null;
  const withHp = countsHp(encounter);
  host.replaceChildren(...encounter.combatants.map((c) => {
    const status = c.status || {};
    const crew = crews.get(c.combatant_id);
    const tags = (status.statuses || []).map((s) => node("li", {}, `${s.name} ${s.effect_value} (${s.turns_left})`));
    if (status.injury && status.injury !== "none") tags.unshift(node("li", { class: "injury" }, injuryWord(status.injury, lang)));
    const where = status.position ? `(${status.position.x},${status.position.y}${status.position.z ? `,${status.position.z}` : ""})` : "";
    const mine = me && me.member_id && me.member_id === c.controller;
    const item = node(
      "li", { class: `combatant side-${c.side}`, "data-combatant": c.combatant_id },
      node("span", { class: "name" }, c.name), " ",
      mine ? node("span", { class: "you" }, `(${t(lang, "you")}) `) : null,
      node("span", { class: "meta" }, `${sideWord(c.side, lang)} · ${c.controller} ${where}${c.hidden ? ` · ${lang === "ja" ? "非公開" : "hidden"}` : ""}${c.sheet && c.sheet.body === "assault_core" ? ` · ${t(lang, "assaultCore")}` : ""}`),
      hpBar(c, lang, crew, withHp),
      sheetLinks(crew, lang),
      tags.length ? node("ul", { class: "tags", "aria-label": "statuses" }, ...tags) : node("p", { class: "meta" }, t(lang, "noStatuses")),
    );
    item.style.borderLeftColor = sideColour(c.side);
    return item;
  }));
}
