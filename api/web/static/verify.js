// Verification: the chain head, whether every die of a revealed encounter recomputes, and the
// audit bundle to download (the what-if replay is whatif.js's).

import { get } from "./api.js";
import { node } from "./dom.js";
import { t } from "./i18n.js";

function fact(term, value) {
  return [node("dt", {}, term), node("dd", {}, value)];
}

/** Fetch what the badge shows: the log's chain heads, and the audit once the seed is out. */
export async function loadVerification(encounter) {
  const heads = await get("/v1/log/head");
  const audit = encounter.revealed_seed ? await get(`/v1/encounters/${encounter.id}/audit`) : null;
  return { heads: heads.heads, audit };
}

export function drawVerification(hosts, encounter, found, lang) {
  const { badge, facts, checks } = hosts;
  const { heads, audit } = found;
  const rows = heads.flatMap((h) => fact(
    `${t(lang, "chainHead")} (${t(lang, "shard")} ${h.shard})`,
    `${t(lang, "position")} ${h.position} · ${h.chain_hash}`,
  ));
  rows.push(...fact(t(lang, "commitment"), encounter.commitment));
  if (encounter.revealed_seed) rows.push(...fact(t(lang, "seed"), encounter.revealed_seed));
  facts.replaceChildren(...rows);
  if (!audit) {
    badge.className = "badge";
    badge.textContent = t(lang, "notRevealed");
    checks.replaceChildren();
    return;
  }
  // Three honest states, in `senki verify`'s words: a server die recomputed from the seed, a
  // hand die recorded (physical dice cannot be recomputed; that is not a failure), a failure.
  const failed = audit.checks.filter((c) => !c.ok);
  const byHand = audit.checks.filter((c) => c.ok && !c.verified);
  const recomputed = audit.checks.length - failed.length - byHand.length;
  badge.className = failed.length ? "badge bad" : "badge ok";
  badge.textContent = failed.length
    ? `✗ ${t(lang, "someFail")} (${failed.length}/${audit.checks.length})`
    : `✓ ${t(lang, "holds")}: ${recomputed}/${audit.checks.length} ${t(lang, "recomputedCount")}` +
      (byHand.length ? `${t(lang, "sep")}${byHand.length} ${t(lang, "byHandCount")}` : "");
  checks.replaceChildren(...audit.checks.map((c) => {
    const state = !c.ok ? "bad" : c.verified ? "ok" : "hand";
    const mark = { bad: "✗", ok: "✓", hand: "✋" }[state];
    const said = { bad: c.problems.join("; "), ok: t(lang, "recomputes"), hand: t(lang, "enteredByHand") }[state];
    return node("li", { class: state, "data-state": state }, `${mark} #${c.roll_seq} ${c.text} — ${said}`);
  }));
}

/** Everything a table needs to check the encounter offline, as one JSON file. */
export function downloadBundle(bundle) {
  const blob = new Blob([JSON.stringify(bundle, null, 2)], { type: "application/json" });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = `senki-audit-${bundle.encounter.id}-v${bundle.encounter.version}.json`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}
