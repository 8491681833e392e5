// What the board needs beside the encounter: who rides which Assault Core at a version
// (/crews), and the procedure's stops for the history select (/points).

import { get } from "./api.js";
import { node } from "./dom.js";
import { phaseWord, t } from "./i18n.js";

const CREWS = "/v1/encounters/{encounter_id}/crews";
const POINTS = "/v1/encounters/{encounter_id}/points";
const $ = (id) => document.getElementById(id);

/** Who rides which Assault Core at `version` (only a fight in a scenario has any). */
export async function loadCrews(page, version, say) {
  if (!page.offers.has(CREWS) || !page.live.scenario_id) return;
  try {
    const found = await get(`/v1/encounters/${page.id}/crews?version=${version}`);
    page.crews.set(version, new Map(found.map((crew) => [crew.combatant_id, crew])));
  } catch (error) {
    say(error.message);
  }
}

export async function loadPoints(page, say) {
  if (!page.offers.has(POINTS)) return;
  try {
    page.points = await get(`/v1/encounters/${page.id}/points`);
  } catch (error) {
    say(error.message);
  }
}

/** One option per stop: turn · phase · step · who acts (version). */
export function drawPoints(page) {
  if (!page.live) return;
  const lang = page.lang;
  const name = (id) => (page.live.combatants.find((c) => c.combatant_id === id) || { name: id }).name;
  $("history-point").replaceChildren(
    node("option", { value: "" }, t(lang, "choosePoint")),
    ...page.points.map((p) => node(
      "option", { value: p.version },
      [`${t(lang, "turn")} ${p.turn}`, phaseWord(p.phase, lang), p.step ? phaseWord(p.step, lang) : null, p.acting ? name(p.acting) : null]
        .filter(Boolean).join(" · ") + ` (v${p.version})`,
    )),
  );
}

/** The select names the stop the shown version is in (the last one begun by then). */
export function selectPoint(page, version) {
  const begun = page.points.filter((p) => p.version <= version);
  $("history-point").value = begun.length ? String(begun[begun.length - 1].version) : "";
}
