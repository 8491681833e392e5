// The encounter log in English or Japanese: every event, each ruling expandable to its rules
// (with their text when the audit trail is offered), inputs, outcome, dice and options, and the
// disputes filed against it with their settlement and corrections beside the original.

import { node } from "./dom.js";
import { factList, ruleText } from "./facts.js";
import { commandWord, t } from "./i18n.js";

/** One line of text for an event: its own summary, else the server's line for it in the
 * table's language (`event.line`, from /events and the live stream), else words built here. */
export function summarize(event, lang) {
  const p = event.payload;
  if (lang === "ja" && p.summary_ja) return p.summary_ja;
  if (lang !== "ja" && p.summary_en) return p.summary_en;
  // A command by its label in the table's language (the server's line names its class).
  if (event.line && event.type !== "CommandIssued") return lang === "ja" ? event.line.ja : event.line.en;
  if (p.summary_en) return p.summary_en;
  const ja = lang === "ja";
  switch (event.type) {
    case "CommandIssued": {
      const who = p.payload && p.payload.combatant_id ? p.payload.combatant_id : "";
      const what = commandWord(lang, p.command_type);
      if (ja) return `${what}を宣言${who ? `（${who}）` : ""}`;
      return `declares ${what}${who ? ` (${who})` : ""}`;
    }
    case "EncounterDiceRolled":
      return `${ja ? "ダイス" : "dice"} #${p.result.roll_seq} ${p.result.purpose}: ${p.result.text}`;
    case "CombatantJoined":
      return `${p.name} ${ja ? "が参加" : "joins"} (${p.side})`;
    case "EncounterOpened":
      return ja ? "戦闘開始" : "encounter opened";
    case "EncounterSeedRevealed":
      return ja ? "サーバーシード公開" : "server seed revealed";
    case "EncounterEnded":
      return `${ja ? "戦闘終了" : "combat over"} (${p.rule_id}): ${p.reason}`;
    case "RulingDisputed":
      return `${ja ? "異議" : "dispute"} v${p.ruling_version}: ${p.reason}`;
    case "DisputeUpheld":
      return `${ja ? "裁定維持" : "ruling upheld"}${p.note ? `: ${p.note}` : ""}`;
    case "DisputeAmended":
      return `${ja ? "裁定修正" : "ruling amended"}${p.note ? `: ${p.note}` : ""}`;
    case "CombatantCorrected":
      return `${ja ? "訂正" : "correction"} ${p.combatant_id}: ${JSON.stringify(p.changes)}`;
    default: {
      const who = p.combatant || p.attacker || "";
      const words = event.type.replace(/^[a-z]+\./, "").replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
      return `${words}${who ? ` ${who}` : ""}`;
    }
  }
}

/** Disputes as the log tells them: filed, then upheld or amended, with their corrections. */
export function disputesOf(events) {
  const byId = new Map();
  for (const e of events) {
    const p = e.payload;
    if (e.type === "RulingDisputed") {
      byId.set(p.dispute_id, {
        id: p.dispute_id, ruling: p.ruling_version, reason: p.reason, by: e.by,
        version: e.version, status: "open", note: "", corrections: [],
      });
    } else if (byId.has(p.dispute_id)) {
      const d = byId.get(p.dispute_id);
      if (e.type === "DisputeUpheld") Object.assign(d, { status: "upheld", note: p.note });
      if (e.type === "DisputeAmended") Object.assign(d, { status: "amended", note: p.note });
      if (e.type === "CombatantCorrected") d.corrections.push(p);
    }
  }
  return [...byId.values()];
}

function diceOf(event, rolls) {
  return (event.payload.roll_seqs || []).map((seq) => rolls.get(seq)).filter(Boolean);
}

function rulesList(event, audit, lang) {
  const cited = audit ? audit.rules : event.payload.rule_ids.map((id) => ({ rule_id: id, text: null }));
  return node("ul", { class: "rules" }, ...cited.map((rule) => node(
    "li", {},
    node("strong", {}, rule.rule_id),
    // The digest is English: a Japanese table gets it folded, marked as English, under the
    // seed's own words for the rule.
    rule.text && lang === "ja" ? node("details", { class: "rule-digest" }, node("summary", {}, t(lang, "digestInEnglish")), node("span", { lang: "en" }, ruleText(rule.text))) : null,
    rule.text && lang !== "ja" ? ruleText(rule.text) : null,
    !rule.text && audit ? node("span", { class: "rule-text" }, ` — ${t(lang, "noRuleText")}`) : null,
    lang === "ja" && rule.ja_source ? seedWords(rule.ja_source, lang) : null,
  )));
}

/** The seed's own Japanese words for a rule, beside the digest (a Japanese table); where the
 * seed does not state the rule, the reason instead, never silence. */
function seedWords(seed, lang) {
  // Where the words come from (a seed file's lines, or why it has none) is for whoever checks
  // them, in the label's tooltip: a reader reads the words, not a file name.
  const head = node("span", { class: "seed-source", title: seed.source }, t(lang, "seedWords"));
  if (seed.text === null) return node("div", { class: "seed-words none" }, head, ` ${t(lang, "noSeedWords")}`);
  return node("blockquote", { class: "seed-words", lang: "ja" }, head, node("p", {}, seed.text));
}

function rulingDetails(event, ctx) {
  const { lang, rolls, audit } = ctx;
  const facts = (value) => factList(value, { lang, names: ctx.names });
  const entry = audit ? audit.get(event.version) : null;
  const dice = diceOf(event, rolls);
  return node(
    "dl", {},
    node("dt", {}, t(lang, "rules")), node("dd", {}, rulesList(event, entry, lang)),
    node("dt", {}, t(lang, "inputs")), node("dd", {}, facts(event.payload.inputs)),
    node("dt", {}, t(lang, "outcome")), node("dd", {}, facts(event.payload.outcome)),
    node("dt", {}, t(lang, "dice")),
    node("dd", {}, dice.length ? node("ul", {}, ...dice.map((d) => node("li", {},
      `#${d.roll_seq} ${d.purpose}: ${d.text} (${d.source}${d.client_seed ? `, client seed ${d.client_seed}` : ""})`,
      recomputed(entry, d.roll_seq, lang)))) : t(lang, "noDice")),
    node("dt", {}, t(lang, "options")),
    node("dd", {}, Object.keys(event.payload.options || {}).length ? facts(event.payload.options) : t(lang, "defaults")),
  );
}

function recomputed(entry, seq, lang) {
  if (!entry) return null;
  const roll = entry.dice.find((r) => r.roll_seq === seq);
  if (!roll || roll.dice.some((d) => d.recomputes === null)) return null;
  const ok = roll.dice.every((d) => d.recomputes);
  return node("span", { class: ok ? "ok" : "bad" }, ` ${ok ? "✓" : "✗"} ${t(lang, ok ? "recomputes" : "doesNotRecompute")}`);
}

function disputeBlock(dispute, ctx) {
  const { lang } = ctx;
  const block = node(
    "div", { class: "dispute", "data-dispute": dispute.id },
    node("p", {}, node("strong", {}, `${t(lang, "dispute")} (${dispute.by}): `), dispute.reason),
    node("p", {}, `${t(lang, "status")}: ${t(lang, `status${dispute.status[0].toUpperCase()}${dispute.status.slice(1)}`)}${dispute.note ? ` — ${dispute.note}` : ""}`),
  );
  if (dispute.corrections.length) {
    block.append(node("ul", { class: "corrections" }, ...dispute.corrections.map((c) => node(
      "li", {}, `${t(lang, "correction")} ${c.combatant_id}: `,
      node("del", {}, JSON.stringify(c.previous)), " → ", node("ins", {}, JSON.stringify(c.changes)),
    ))));
  }
  // Only to a token that may settle (/v1/me); the server refuses anyone else (403) anyway.
  if (dispute.status === "open" && ctx.disputesOffered && ctx.canSettle) block.append(settleForm(dispute, ctx));
  return block;
}

function settleForm(dispute, ctx) {
  const { lang } = ctx;
  const id = `settle-${dispute.id}`;
  const note = node("textarea", { id: `${id}-note`, rows: 2 });
  const options = node("textarea", { id: `${id}-options`, rows: 2 });
  options.value = "{}";
  const uphold = node("button", { type: "button" }, t(lang, "uphold"));
  const amend = node("button", { type: "button", class: "secondary" }, t(lang, "amend"));
  uphold.addEventListener("click", () => ctx.onUphold(dispute.id, note.value));
  amend.addEventListener("click", () => ctx.onAmend(dispute.id, note.value, options.value));
  return node(
    "form", { class: "settle-form", "aria-label": t(lang, "settle") },
    node("label", { for: note.id }, t(lang, "note")), note,
    node("label", { for: options.id }, t(lang, "amendOptions")), options,
    node("div", { class: "inline" }, uphold, amend),
  );
}

function disputeForm(event, ctx) {
  const { lang } = ctx;
  const id = `dispute-${event.version}`;
  const reason = node("textarea", { id, rows: 2, required: "", maxlength: 2000 });
  const form = node(
    "form", { class: "dispute-form", "aria-label": t(lang, "fileDispute") },
    node("label", { for: id }, t(lang, "disputeReason")), reason,
    node("button", { type: "submit" }, t(lang, "fileDispute")),
  );
  form.addEventListener("submit", (submitted) => {
    submitted.preventDefault();
    ctx.onDispute(event.version, reason.value);
  });
  return form;
}

function rulingItem(event, ctx) {
  const details = node("details", { "data-version": event.version });
  if (ctx.open.has(event.version)) details.open = true;
  details.addEventListener("toggle", () => {
    if (details.open) ctx.open.add(event.version);
    else ctx.open.delete(event.version);
  });
  details.append(
    node("summary", {}, node("span", { class: "v" }, `v${event.version}`), " ",
      node("strong", {}, event.payload.rule_ids.join(", ")), " ", named(summarize(event, ctx.lang), ctx.names)),
    rulingDetails(event, ctx),
  );
  for (const dispute of ctx.disputes.filter((d) => d.ruling === event.version)) {
    details.append(disputeBlock(dispute, ctx));
  }
  if (ctx.disputesOffered && ctx.canDispute) details.append(disputeForm(event, ctx));
  return details;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const IS_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function escaped(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A line with each combatant's id as its name: the table reads names (ナイトメアA), never ids
 * (nm-a) nor a crewed Assault Core's unit UUID. `names`: combatant id → name. */
export function named(text, names) {
  if (!names || typeof text !== "string") return text;
  let shown = text.replace(UUID, (id) => names.get(id) || id);
  const ids = [...names.keys()].filter((id) => id !== names.get(id) && !IS_UUID.test(id) && id.length > 1);
  if (!ids.length) return shown;
  // A line that names a combatant and gives its id ("エース（ace）") reads the name once.
  for (const id of ids) {
    const name = names.get(id);
    shown = shown.split(`${name}（${id}）`).join(name).split(`${name} (${id})`).join(name);
  }
  // Whole ids only: "nm-a" in "nm-a's hit", never the "ace" inside "space".
  const wanted = new RegExp(`(?<![\\w-])(${ids.sort((a, b) => b.length - a.length).map(escaped).join("|")})(?![\\w-])`, "g");
  shown = shown.replace(wanted, (id) => names.get(id));
  return shown;
}

/** Redraw the log. `ctx`: lang, shown version, rolls by seq, audit (Map or null), disputes… */
export function drawLog(host, events, ctx) {
  const rolls = new Map(events.filter((e) => e.type === "EncounterDiceRolled").map((e) => [e.payload.result.roll_seq, e.payload.result]));
  const full = { ...ctx, rolls, disputes: disputesOf(events) };
  const shown = ctx.rulingsOnly ? events.filter((e) => e.type === "RulingRecorded") : events;
  const items = shown.map((event) => {
    const classes = [];
    if (event.type === "RulingRecorded") classes.push("ruling");
    if (event.type === "CombatantCorrected" || event.type === "DisputeAmended") classes.push("correction");
    if (event.version > ctx.shownVersion) classes.push("future");
    const li = node("li", { class: classes.join(" "), "data-type": event.type, "data-version": event.version });
    if (event.type === "RulingRecorded") li.append(rulingItem(event, full));
    else {
      // The server's lines name who did it; the page's own fallback words do not.
      const by = event.line && event.type !== "CommandIssued" ? [] : [node("span", { class: "by" }, `${event.by}:`), " "];
      li.append(node("span", { class: "v" }, `v${event.version}`), " ", ...by, named(summarize(event, ctx.lang), ctx.names));
    }
    return li;
  });
  keepTyping(host, () => host.replaceChildren(...items));
}

/** Redraw without losing what someone is typing in a form of the log (live events redraw it). */
function keepTyping(host, redraw) {
  const typed = new Map([...host.querySelectorAll("textarea[id], input[id]")].map((f) => [f.id, f.value]));
  const focused = host.contains(document.activeElement) ? document.activeElement.id : null;
  redraw();
  for (const [id, value] of typed) {
    const field = document.getElementById(id);
    if (field && host.contains(field)) field.value = value;
  }
  if (focused && document.getElementById(focused)) document.getElementById(focused).focus();
}
