// The attack just resolved, as the board draws it: who attacked whom, and for each target what
// came of it (hit or not, hit against evasion, the damage, the injury), read from the facts and
// lines the events carry as this reader may see them (a withheld number is null: never drawn).
// Nothing here applies a rule: the server's rulings and facts already did.

import { named } from "./log.js";

const WORDS = {
  en: {
    hit: "hit", notHit: "no hit", dodged: "dodged", missed: "missed", vs: "vs",
    damage: (n) => `−${n} HP`, check: "check",
    success: "success", failure: "failure",
  },
  ja: {
    hit: "命中", notHit: "命中せず", dodged: "回避", missed: "外れ", vs: "対",
    damage: (n) => `${n}ダメージ`, check: "判定",
    success: "成功", failure: "失敗",
  },
};

// Glorious Drive's injuries by the seed's words (as the log's lines say them).
const INJURY = {
  en: { faint: "faint", shutdown: "shutdown", critical: "critical", incapacitated: "incapacitated", dead: "dead" },
  ja: { faint: "気絶", shutdown: "機能停止", critical: "重体", incapacitated: "再起不能", dead: "死亡" },
};

// Commands that answer or settle an attack: until another is issued (or the turn, the phase
// ends) the attack stays on the board. A step the service runs by itself (a fainted
// combatant's cleanup, the end of the turn) issues no command and does not clear it.
const ANSWERS = new Set([
  "Dodge", "Guard", "TakeHit", "Intercept", "UseCounterSkill", "GrantSituationModifier",
  "EnterDie", "Evade", "ResolveAttack",
]);

/** An injury in the table's language. */
export function injuryWord(injury, lang) {
  return INJURY[lang === "ja" ? "ja" : "en"][injury] || injury;
}

function words(lang) {
  return WORDS[lang === "ja" ? "ja" : "en"];
}

function lineOf(event, lang, names) {
  const p = event.payload;
  const text = lang === "ja" ? p.summary_ja || (event.line && event.line.ja) : p.summary_en || (event.line && event.line.en);
  return named(text || "", names);
}

function target(attack, id) {
  let found = attack.targets.find((t) => t.id === id);
  if (!found) {
    found = { id, hit: null, dodged: false, missed: false, totals: null, damage: null, injury: null, lines: [] };
    attack.targets.push(found);
  }
  return found;
}

/** The number when the reader may see it (the lens nulls what is withheld). */
function shown(value) {
  return typeof value === "number" ? value : null;
}

/**
 * The attack to draw at `version`: the last one declared, until a command other than its
 * answers is issued (the next cleanup, move or attack), a new initiative or a phase's end. `done`: play has moved
 * past it (drawn faded). Null when there is none. `names`: combatant id → name.
 */
export function attackAt(events, version, lang, names, acting) {
  let attack = null;
  let react = null; // the last GD-REACT-1 ruling: hit against evasion, for the next defence
  for (const e of events) {
    if (e.version > version) break;
    const p = e.payload;
    const type = e.type;
    if (type === "gd.AttackDeclared" || type === "ak.AttackDeclared") {
      const defenders = type === "gd.AttackDeclared" ? p.defenders || [] : [p.target];
      attack = {
        version: e.version, attacker: p.attacker, weapon: p.weapon, point: p.point || null,
        area: p.area || 0, targets: [], line: lineOf(e, lang, names),
      };
      for (const id of defenders) target(attack, id);
      react = null;
      continue;
    }
    const next = type === "CommandIssued" && !ANSWERS.has(p.command_type);
    if (next || type.endsWith("InitiativeOrdered") || type === "ak.PhaseEnded" || type === "EncounterEnded") {
      attack = null;
      continue;
    }
    if (!attack) continue;
    if (type === "RulingRecorded" && (p.rule_ids || []).includes("GD-REACT-1")) {
      react = p.outcome || null;
    } else if (type === "gd.DefenceResolved") {
      const t = target(attack, p.combatant);
      t.hit = Boolean(p.hit);
      t.dodged = Boolean(react && react.dodged);
      if (react && shown(react.hit_total) !== null && shown(react.evasion_total) !== null) {
        t.totals = { hit: react.hit_total, evasion: react.evasion_total };
      }
      t.lines.push(lineOf(e, lang, names));
      react = null;
    } else if (type === "gd.DamageApplied") {
      const t = target(attack, p.combatant);
      t.damage = shown(p.damage);
      t.lines.push(lineOf(e, lang, names));
    } else if (type === "gd.InjurySuffered" && p.injury && p.injury !== "none") {
      const t = target(attack, p.combatant);
      t.injury = INJURY[lang === "ja" ? "ja" : "en"][p.injury] || null;
      t.lines.push(lineOf(e, lang, names));
    } else if (type === "ak.AttackSettled") {
      const t = target(attack, p.target);
      t.hit = p.outcome === "hit";
      t.missed = p.outcome === "missed";
      t.lines.push(lineOf(e, lang, names));
    }
  }
  if (attack) attack.done = Boolean(acting) && acting !== attack.attacker;
  return attack;
}

/** The short words drawn beside a target: "hit 140 vs 52", "−70 HP", "再起不能". */
export function resultWords(t, lang) {
  const w = words(lang);
  const parts = [];
  if (t.hit !== null) {
    let verdict = t.hit ? w.hit : t.missed ? w.missed : t.dodged ? w.dodged : w.notHit;
    if (t.totals) verdict += ` ${t.totals.hit} ${w.vs} ${t.totals.evasion}`;
    parts.push(verdict);
  }
  if (t.damage !== null) parts.push(w.damage(t.damage));
  if (t.injury) parts.push(t.injury);
  return parts;
}

/**
 * A Wizardry-style round has no attacker and target on the board: the last check of the
 * phase is drawn beside the one who made it (its total, the GM's ruling). Null when none.
 */
export function checkAt(events, version, lang, names) {
  let check = null;
  for (const e of events) {
    if (e.version > version) break;
    const p = e.payload;
    if (e.type === "wz.PhaseEntered") check = null;
    else if (e.type === "wz.CheckRolled") {
      check = { combatant: p.combatant, total: shown(p.total), success: null, lines: [lineOf(e, lang, names)] };
    } else if (e.type === "wz.CheckRuled" && check && check.combatant === p.combatant) {
      check.success = typeof p.success === "boolean" ? p.success : null;
      check.lines.push(lineOf(e, lang, names));
    }
  }
  if (!check) return null;
  const w = words(lang);
  const verdict = check.success === null ? "" : ` ${check.success ? `✓ ${w.success}` : `✗ ${w.failure}`}`;
  check.words = `${w.check}${check.total === null ? "" : ` ${check.total}`}${verdict}`;
  return check;
}
