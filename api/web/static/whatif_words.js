// A replay's answer in words, English and Japanese: what changes for each combatant ("grunt's
// HP: 251 → 216"), what a changed ruling now decides ("the dodge now succeeds"), and every
// recorded command the replay could not apply, with the rule it cites or what it awaited.

import { node } from "./dom.js";
import { commandWord, t } from "./i18n.js";

const FIELDS = {
  en: {
    hp: "HP", max_hp: "max HP", injury: "injury", statuses: "statuses", position: "position",
    order: "place in the order", ammo: "ammunition", collapsed: "collapsed", armor: "armour",
    fatigue_step: "fatigue step", die_penalty: "die penalty", ac_penalty: "AC penalty",
    first_move_total: "first-move total", tp: "TP", ini: "INI", shot_down: "shot down",
  },
  ja: {
    hp: "HP", max_hp: "最大HP", injury: "負傷", statuses: "変調", position: "位置",
    order: "行動順", ammo: "弾数", collapsed: "行動不能", armor: "装甲",
    fatigue_step: "疲労段階", die_penalty: "ダイス修正", ac_penalty: "AC修正",
    first_move_total: "先攻決定の合計", tp: "TP", ini: "INI", shot_down: "撃墜",
  },
};

// A ruling's yes/no outcome that flips, said as the table would say it.
const FLIPS = {
  dodged: { en: ["the dodge now succeeds", "the dodge now fails"], ja: ["回避が成功するようになる", "回避が失敗するようになる"] },
  hit: { en: ["the attack now hits", "the attack now misses"], ja: ["攻撃が命中するようになる", "攻撃が外れるようになる"] },
  fainted: { en: ["the character now faints", "the character no longer faints"], ja: ["気絶するようになる", "気絶しなくなる"] },
  success: { en: ["the check now succeeds", "the check now fails"], ja: ["判定が成功するようになる", "判定が失敗するようになる"] },
  collapsed: { en: ["the character now collapses", "the character no longer collapses"], ja: ["行動不能になる", "行動不能にならない"] },
};

function field(name, lang) {
  return (FIELDS[lang] || FIELDS.en)[name] || FIELDS.en[name] || name.replaceAll("_", " ");
}

function shown(value, name) {
  if (value === null || value === undefined) return "…"; // withheld from this reader, or none
  if (name === "order" && typeof value === "number") return String(value + 1);
  if (typeof value === "object" && "x" in value && "y" in value) return `(${value.x},${value.y}${value.z ? `,${value.z}` : ""})`;
  if (Array.isArray(value)) return value.length ? value.map((v) => (typeof v === "object" ? v.name || JSON.stringify(v) : v)).join(", ") : "—";
  if (typeof value === "boolean") return value ? "✓" : "✗";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

function nameOf(page, id) {
  const found = ((page.live && page.live.combatants) || []).find((c) => c.combatant_id === id);
  return found ? found.name : id;
}

/** One line per changed field: "grunt's HP: 251 → 216" / 「gruntのHP：251 → 216」. */
export function changeLines(differences, page, lang) {
  const lines = [];
  for (const [who, fields] of Object.entries(differences || {})) {
    for (const [name, change] of Object.entries(fields)) {
      const from = shown(change.original, name);
      const to = shown(change.replay, name);
      const whose = nameOf(page, who);
      lines.push(lang === "ja" ? `${whose}の${field(name, lang)}：${from} → ${to}` : `${whose}'s ${field(name, lang)}: ${from} → ${to}`);
    }
  }
  return lines;
}

/** What the first divergent command's rulings now decide, beside what they decided. */
export function rulingLines(divergence, lang) {
  if (!divergence) return [];
  const rulings = (events) => events.filter((e) => e.type === "RulingRecorded");
  const was = rulings(divergence.original || []);
  const now = rulings(divergence.replayed || []);
  const lines = [];
  now.forEach((ruling, index) => {
    const before = was[index];
    const summary = lang === "ja" ? ruling.summary_ja : ruling.summary_en;
    if (!before) {
      lines.push(`${t(lang, "whatIfNewRuling")}: ${summary}`);
      return;
    }
    for (const [key, value] of Object.entries(ruling.outcome || {})) {
      const old = (before.outcome || {})[key];
      if (typeof value === "boolean" && typeof old === "boolean" && value !== old) {
        const phrases = FLIPS[key] ? FLIPS[key][lang] || FLIPS[key].en : null;
        lines.push(phrases ? phrases[value ? 0 : 1] : `${key}: ${shown(old)} → ${shown(value)}`);
      }
    }
    const said = lang === "ja" ? before.summary_ja : before.summary_en;
    if (said !== summary) lines.push(`${t(lang, "whatIfRulingNow")}: ${summary} (${t(lang, "whatIfRulingWas")}: ${said})`);
  });
  return lines;
}

/** Why one recorded command was not applied, in the reader's language. */
export function unappliedLine(skipped, page, lang) {
  const who = skipped.combatant ? ` (${nameOf(page, skipped.combatant)})` : "";
  const head = `#${skipped.command} · v${skipped.version} · ${commandWord(lang, skipped.command_type)}${who}`;
  const why = skipped.reason === "needs_declaration"
    ? `${t(lang, "whatIfNeedsDeclaration")}: ${skipped.awaiting.join(", ")}`
    : `${t(lang, "whatIfRefused")}${skipped.rule_id ? ` (${skipped.rule_id})` : ""}`;
  // The engine's message ends with everything awaited; the list above already says what counts.
  const said = lang === "ja" && skipped.message_ja ? skipped.message_ja : skipped.message;
  const message = skipped.reason === "needs_declaration" ? said.split(/; awaiting:|。待っているもの：/)[0] : said;
  return `${head}: ${why} — ${message}`;
}

export function replayInWords(answer, page, lang) {
  const parts = [node("p", { class: "whatif-complete" }, `${t(lang, "complete")}: ${answer.complete ? "✓" : "✗"}${answer.missing ? ` — ${t(lang, "missing")}: ${answer.missing}` : ""}`)];
  if (answer.divergence) {
    const d = answer.divergence;
    parts.push(node("p", {}, `${t(lang, "divergence")}: v${d.version} ${commandWord(lang, d.command_type)} (#${d.command})${d.refused ? ` — ${(lang === "ja" && d.refused_ja) || d.refused}` : ""}`));
  }
  const changes = [...rulingLines(answer.divergence, lang), ...changeLines(answer.differences, page, lang)];
  if (!changes.length) parts.push(node("p", {}, t(lang, "noDifferences")));
  else {
    parts.push(node("h3", {}, t(lang, "differences")));
    parts.push(node("ul", { class: "whatif-changes" }, ...changes.map((line) => node("li", {}, line))));
  }
  const skipped = answer.unapplied || [];
  if (skipped.length) {
    parts.push(node("h3", {}, `${t(lang, "whatIfUnapplied")} (${skipped.length})`));
    parts.push(node("ul", { class: "whatif-unapplied" }, ...skipped.map((s) => node("li", { "data-command": s.command, "data-reason": s.reason }, unappliedLine(s, page, lang)))));
  }
  return parts;
}
