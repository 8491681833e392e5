// The side panels: procedure point, initiative order, combatants with HP, and the facts the
// board needs from the log (the order rolled, the last move of the phase).

import { hpOf, sideColour } from "./board.js";
import { t } from "./i18n.js";

function node(tag, attrs = {}, ...children) {
  const made = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") made.className = value;
    else made.setAttribute(key, String(value));
  }
  made.append(...children.filter((c) => c !== null && c !== undefined));
  return made;
}

const PHASE_EN_JA = {
  setup: "準備", initiative: "イニシアチブ", main_action: "メインアクション", over: "終了",
  cleanup: "クリンナップ", weapon_swap: "武器持ち替え", move: "移動", action: "アクション",
  reaction: "リアクション",
};

function phaseWord(word, lang) {
  if (!word) return "—";
  return lang === "ja" ? PHASE_EN_JA[word] || word : word.replaceAll("_", " ");
}

export function drawProcedure(host, encounter, lang) {
  const p = encounter.procedure;
  const parts = [
    `${t(lang, "turn")} ${p.turn}`,
    `${t(lang, "phase")}: ${phaseWord(p.phase, lang)}`,
    `${t(lang, "step")}: ${phaseWord(p.step, lang)}`,
  ];
  if (p.acting) parts.push(`${t(lang, "acting")}: ${nameOf(encounter, p.acting)}`);
  if (encounter.ended) parts.push(t(lang, "ended"));
  const awaiting = p.awaiting.map((a) => `${a.command}${a.combatant ? ` (${a.combatant})` : ""}`);
  host.replaceChildren(
    node("span", {}, parts.join(" · ")),
    awaiting.length ? node("span", { class: "note" }, ` — ${t(lang, "awaiting")}: ${awaiting.join(", ")}`) : null,
  );
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

function hpBar(combatant, lang) {
  const hp = hpOf(combatant);
  if (!hp) return node("p", { class: "meta" }, t(lang, "hpHidden"));
  const fill = node("div", { class: `hp-fill${hp.ratio <= 0.25 ? " low" : ""}` });
  fill.style.width = `${Math.round(hp.ratio * 100)}%`;
  const track = node("div", {
    class: "hp-track", role: "meter", "aria-valuemin": 0, "aria-valuemax": hp.max,
    "aria-valuenow": hp.hp, "aria-label": `${combatant.name} HP`,
  }, fill);
  const bar = node("div", { class: "hp" }, node("span", {}, "HP"), track,
    node("span", {}, `${hp.hp}/${hp.max} (${Math.round(hp.ratio * 100)}%)`));
  if (!(combatant.sheet && combatant.sheet.body === "assault_core")) return bar;
  // GD-HPS-1: the pilot leaves the scenario at the ratio their Assault Core ends on.
  return node("div", {}, bar, node("p", { class: "meta" }, `${t(lang, "sharedRatio")}: ${Math.round(hp.ratio * 100)}% (GD-HPS-1)`));
}

export function drawCombatants(host, encounter, lang) {
  host.replaceChildren(...encounter.combatants.map((c) => {
    const status = c.status || {};
    const tags = (status.statuses || []).map((s) => node("li", {}, `${s.name} ${s.effect_value} (${s.turns_left})`));
    if (status.injury && status.injury !== "none") tags.unshift(node("li", { class: "injury" }, status.injury));
    const where = status.position ? `(${status.position.x},${status.position.y}${status.position.z ? `,${status.position.z}` : ""})` : "";
    const item = node(
      "li", { class: `combatant side-${c.side}`, "data-combatant": c.combatant_id },
      node("span", { class: "name" }, c.name), " ",
      node("span", { class: "meta" }, `${c.side} · ${c.controller} ${where}${c.hidden ? " · hidden" : ""}${c.sheet && c.sheet.body === "assault_core" ? ` · ${t(lang, "assaultCore")}` : ""}`),
      hpBar(c, lang),
      tags.length ? node("ul", { class: "tags", "aria-label": "statuses" }, ...tags) : node("p", { class: "meta" }, t(lang, "noStatuses")),
    );
    item.style.borderLeftColor = sideColour(c.side);
    return item;
  }));
}
