// Play from the page: what the encounter awaits, turned into controls. The commands legal
// now come from /playable with their body schemas (the ruleset's own declarations), so one
// form builder serves every rule system; a hand die the rules wait for gets a die entry.

import { command, get } from "./api.js";
import { node } from "./dom.js";
import { commandWord, learnCommandWords, learnPhaseWords, playWord } from "./i18n.js";
import { named, summarize } from "./log.js";
import { fieldControl } from "./playfields.js";
import { drawHouseRules } from "./playrules.js";

const PLAYABLE = "/v1/encounters/{encounter_id}/playable";
// Setup, not play: a combatant joins with a whole sheet (the demos and the API do that).
const NOT_PLAYED_HERE = new Set(["JoinCombatant", "EnterDie"]);
// The fields that say who acts: filled from the awaited combatant, not asked.
const ACTOR_FIELDS = ["combatant_id", "unit_id"];
// Reactions to an attack (GD-REACT): their buttons come with the attack they answer.
const REACTIONS = new Set(["Dodge", "Guard", "TakeHit", "Intercept", "UseCounterSkill"]);
const RECENT = 6; // outcomes shown where you play, newest first

export async function loadPlayable(page, say) {
  if (!page.offers.has(PLAYABLE)) {
    page.playable = null;
    return;
  }
  try {
    // The commands offered stay until the new ones arrive: a redraw meanwhile (a language
    // switch) must not say there is nothing for you.
    page.playable = await get(`/v1/encounters/${page.id}/playable`);
    learnCommandWords(page.playable.labels);
    learnPhaseWords(page.playable.phase_labels);
  } catch (error) {
    page.playable = null;
    say(error.message);
  }
}

function nameOf(encounter, id) {
  const found = encounter.combatants.find((c) => c.combatant_id === id);
  return found ? found.name : id;
}

/** Draw the play panel into `host`; `ctx`: {page, say, pick, done}. */
export function drawPlay(host, ctx) {
  const { page } = ctx;
  const lang = page.lang;
  const live = page.live;
  const shownLive = page.shown && page.shown.version === live.version;
  const parts = [];
  if (!shownLive) parts.push(node("p", { class: "note" }, playWord(lang, "playAtLive")));
  else if (live.ended) parts.push(node("p", { class: "note" }, playWord(lang, "ended")));
  else {
    const die = live.awaited_die;
    if (die && enters(page, die)) parts.push(dieEntry(die, ctx));
    else if (die) parts.push(node("p", { class: "note" }, `${playWord(lang, "dieOf")} ${die.for_member === "gm" ? playWord(lang, "gm") : die.for_member}: ${lang === "ja" ? die.text_ja : die.text_en}`));
    const mine = page.playable ? page.playable.commands.filter((c) => c.yours && !NOT_PLAYED_HERE.has(c.command)) : [];
    if (!mine.length && !(die && enters(page, die))) parts.push(node("p", { class: "note" }, playWord(lang, "nothingForYou")));
    parts.push(attackAnswered(page, mine));
    const byWho = new Map();
    for (const c of mine) {
      const who = c.combatant ? nameOf(live, c.combatant) : playWord(lang, "gm");
      byWho.set(who, [...(byWho.get(who) || []), c]);
    }
    for (const [who, commands] of byWho) {
      parts.push(node("h3", {}, who));
      parts.push(node("div", { class: "play-buttons" }, ...commands.map((c) => commandButton(c, ctx, host))));
    }
  }
  const slot = node("div", { class: "play-form", id: "play-form" });
  parts.push(slot);
  parts.push(recentOutcomes(page));
  parts.push(drawHouseRules(page, ctx.say));
  host.replaceChildren(...parts.filter(Boolean));
  // A die that is yours to enter takes the keyboard, unless you are typing elsewhere: the face
  // and Enter, no click to find the field.
  const face = host.querySelector("form.die-entry input");
  const typing = document.activeElement && document.activeElement.matches("input, select, textarea");
  if (face && !typing) face.focus();
  // On a phone the Play panel comes first while something in it is yours (table.css).
  const yours = shownLive && !live.ended && Boolean(host.querySelector("button[data-command], form.die-entry"));
  const table = document.getElementById("table");
  if (table) table.classList.toggle("yours", yours);
  // A redraw at the same version (the stream catching up, a language switch of the rest)
  // keeps the form being filled in; a new version drops it, as what is legal may change.
  const open = page.playForm;
  if (open && open.version === live.version && shownLive && !live.ended) {
    slot.replaceChildren(open.form);
    open.activate();
  } else page.playForm = null;
}

/** Whether this reader enters the awaited hand die: the member it is for, or the GM. */
function enters(page, die) {
  if (!page.me) return true; // a server without /v1/me: offer it; the server still refuses
  return page.me.role === "gm" || page.me.member_id === die.for_member;
}

/** The attack a reaction answers, in words: who attacks whom, with what, at what hit. */
function attackAnswered(page, mine) {
  if (!mine.some((c) => REACTIONS.has(c.command))) return null;
  const declared = [...page.events].reverse().find((e) => e.type === "gd.AttackDeclared");
  if (!declared) return null;
  const p = declared.payload;
  const live = page.live;
  const who = nameOf(live, p.attacker);
  const sep = page.lang === "ja" ? "、" : ", ";
  const targets = (p.defenders || []).map((id) => nameOf(live, id)).join(sep);
  const hit = typeof p.hit === "number" ? p.hit : null;
  const text = page.lang === "ja"
    ? `${who}が${p.weapon}で${targets}を攻撃${hit === null ? "" : `（命中 ${hit}）`}`
    : `${who} attacks ${targets} with ${p.weapon}${hit === null ? "" : ` (hit ${hit})`}`;
  return node("p", { class: "attack-answered", "data-version": declared.version }, text);
}

/** An outcome: a ruling, or a fact of the rule system's (damage taken, a status…). */
function isOutcome(event) {
  return event.type === "RulingRecorded" || /^[a-z]+\./.test(event.type);
}

/** What just happened, where you play: the newest outcomes in words, newest first. */
function recentOutcomes(page) {
  const all = page.events.filter(isOutcome);
  // The whole of the last attack (its hit against evasion, damage, injuries), however long.
  const declared = all.findLastIndex((e) => /^[a-z]+\.AttackDeclared$/.test(e.type));
  const from = declared >= 0 ? Math.min(declared, all.length - RECENT) : all.length - RECENT;
  const outcomes = all.slice(Math.max(0, from)).reverse();
  if (!outcomes.length) return null;
  const names = new Map(page.live.combatants.map((c) => [c.combatant_id, c.name]));
  return node(
    "section", { class: "recent", "aria-label": playWord(page.lang, "justNow") },
    node("h3", {}, playWord(page.lang, "justNow")),
    node("ol", {}, ...outcomes.map((e) => node(
      "li", { "data-version": e.version },
      e.type === "RulingRecorded" ? node("strong", {}, `${e.payload.rule_ids.join(", ")} `) : null,
      named(summarize(e, page.lang), names),
    ))),
  );
}

function commandButton(legal, ctx, host) {
  const lang = ctx.page.lang;
  const button = node("button", { type: "button", "data-command": legal.command, "data-for": legal.combatant || "gm" }, commandWord(lang, legal.command));
  button.addEventListener("click", () => openForm(legal, ctx, host));
  return button;
}

/** The form of one command: its fields by type; a command with nothing to fill is one click. */
function openForm(legal, ctx, host) {
  const { page } = ctx;
  const lang = page.lang;
  const schema = legal.body_schema;
  const props = schema.properties || {};
  const required = new Set(schema.required || []);
  const fixed = {};
  for (const name of ACTOR_FIELDS) if (name in props && legal.combatant) fixed[name] = legal.combatant;
  const asked = Object.keys(props).filter((name) => !(name in fixed));
  if (!asked.length) {
    send({ command: legal.command, ...fixed }, ctx);
    return;
  }
  const acting = page.live.combatants.find((c) => c.combatant_id === legal.combatant) || null;
  let answering = null; // the square field the board's clicks fill now
  const pick = (onSquare) => {
    answering = onSquare;
    ctx.pick(onSquare);
  };
  const fieldCtx = { id: `play-${legal.command}`, lang, encounter: page.live, acting, root: schema, pick };
  const controls = asked.map((name) => [name, fieldControl(name, props[name], required.has(name), fieldCtx)]);
  const form = node(
    "form", { class: "play-command", "data-command": legal.command, "aria-label": commandWord(lang, legal.command) },
    node("h4", {}, `${commandWord(lang, legal.command)}${acting ? ` — ${acting.name}` : ""}`),
    // The docstring is English: shown to an English table only.
    schema.description && lang !== "ja" ? node("p", { class: "hint" }, schema.description.split("\n")[0]) : null,
    ...controls.map(([, c]) => c.element),
    node("button", { type: "submit" }, playWord(lang, "send")),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const body = { command: legal.command, ...fixed };
    try {
      for (const [name, control] of controls) {
        const value = control.read();
        if (value !== undefined) body[name] = value;
      }
    } catch {
      ctx.say(playWord(lang, "badJson"));
      return;
    }
    send(body, ctx);
  });
  host.querySelector("#play-form").replaceChildren(form);
  // The board answers the first square field until another's "pick" button is pressed.
  const picking = controls.find(([, c]) => c.activate);
  if (picking) picking[1].activate();
  page.playForm = { form, version: page.live.version, activate: () => answering && ctx.pick(answering) };
  const first = form.querySelector("input, select, textarea");
  if (first) first.focus();
}

function dieEntry(die, ctx) {
  const lang = ctx.page.lang;
  const text = lang === "ja" ? die.text_ja : die.text_en;
  const face = node("input", { id: "die-face", type: "number", min: 1, max: die.sides, step: 1, required: "" });
  const form = node(
    "form", { class: "die-entry", "aria-label": playWord(lang, "enterDie") },
    node("p", {}, `${playWord(lang, "dieAwaited")}: ${text}`),
    node("label", { for: "die-face" }, `${playWord(lang, "face")} (1–${die.sides})`), face,
    node("button", { type: "submit" }, playWord(lang, "enterDie")),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    send({ command: "EnterDie", faces: [Number(face.value)] }, ctx);
  });
  return form;
}

async function send(body, ctx) {
  const { page } = ctx;
  try {
    await command(page.id, page.live.version, body);
    ctx.say(`${playWord(page.lang, "sent")}: ${commandWord(page.lang, body.command)}`);
    ctx.done();
  } catch (error) {
    ctx.say(error.message);
  }
}

/**
 * A token clicked while a form asks for a combatant (a target, a defender…): the first such
 * select takes the combatant on that square. True when one was picked.
 */
export function pickCombatant(host, encounter, at) {
  const select = host.querySelector("form.play-command select[data-kind=combatant]");
  if (!select) return false;
  const here = encounter.combatants.find((c) => {
    const p = (c.status && (c.status.position || c.status.cell)) || (c.sheet && (c.sheet.position || c.sheet.cell));
    return p && p.x === at.x && p.y === at.y;
  });
  if (!here || ![...select.options].some((o) => o.value === here.combatant_id)) return false;
  select.value = here.combatant_id;
  select.dispatchEvent(new Event("change"));
  return true;
}
