// Verification: the chain head, whether every die of a revealed encounter recomputes, and the
// audit bundle to download (the what-if replay is whatif.js's).

import { ApiError, get } from "./api.js";
import { node } from "./dom.js";
import { t } from "./i18n.js";
import { WitnessFailure, witnessPage } from "./witness.js";

// The witness reads through the same API; a refusal to sign or to prove is a finding.
const witnessApi = {
  async text(path) {
    const response = await fetch(path);
    if (!response.ok) throw new WitnessFailure(`${path}: HTTP ${response.status}: the log refuses`, await response.text());
    return response.text();
  },
  async json(path) {
    try {
      return await get(path);
    } catch (error) {
      if (error instanceof ApiError) throw new WitnessFailure(`${path}: HTTP ${error.status}: the log refuses to prove`, error.message);
      throw error;
    }
  },
};
const proved = new Set(); // positions proved in a checkpoint since this page opened

function fact(term, value) {
  return [node("dt", {}, term), node("dd", {}, value)];
}

/** Fetch what the badge shows: the log's chain heads, the audit once the seed is out, and
 * this browser's witness of the signed log over the events shown. */
export async function loadVerification(encounter, events = []) {
  const heads = await get("/v1/log/head");
  const audit = encounter.revealed_seed ? await get(`/v1/encounters/${encounter.id}/audit`) : null;
  let witness;
  try {
    witness = await witnessPage(localStorage, witnessApi, events, proved);
  } catch (error) { // no Ed25519 in this browser's WebCrypto, or the network: no verdict
    witness = { ok: null, message: error.message };
  }
  return { heads: heads.heads, audit, witness };
}

function witnessRows(witness, lang) {
  if (!witness) return [];
  if (witness.ok) return fact(t(lang, "witness"), `✓ ${t(lang, "witnessOk")} ${witness.since}`);
  if (witness.ok === null) return fact(t(lang, "witness"), `${t(lang, "witnessUnchecked")}: ${witness.message}`);
  return [
    ...fact(t(lang, "witness"), node("strong", { class: "bad" }, `✗ ${t(lang, "witnessFailed")}: ${witness.message}`)),
    ...fact(t(lang, "evidence"), node("pre", { class: "evidence" }, witness.evidence || "")),
  ];
}

export function drawVerification(hosts, encounter, found, lang) {
  const { badge, facts, checks } = hosts;
  const { heads, audit } = found;
  const rows = heads.flatMap((h) => fact(
    `${t(lang, "chainHead")} (${t(lang, "shard")} ${h.shard})`,
    `${t(lang, "position")} ${h.position} · ${h.chain_hash}`,
  ));
  rows.push(...witnessRows(found.witness, lang));
  rows.push(...fact(t(lang, "commitment"), encounter.commitment));
  if (encounter.revealed_seed) rows.push(...fact(t(lang, "seed"), encounter.revealed_seed));
  facts.replaceChildren(...rows);
  if (found.witness && !found.witness.ok) { // loudly: above anything the dice say
    badge.className = "badge bad";
    badge.textContent = `✗ ${t(lang, "witnessFailed")}`;
    checks.replaceChildren();
    return;
  }
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
